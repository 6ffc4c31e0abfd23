/* placeholder */ typedef int placeholder_harness_spawn_c;
