/* placeholder */ typedef int placeholder_harness_sched_c;
