/* placeholder */ typedef int placeholder_harness_cmd_run_c;
