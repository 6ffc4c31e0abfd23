/* placeholder */ typedef int placeholder_harness_cmd_c;
