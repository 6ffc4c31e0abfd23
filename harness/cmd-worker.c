/* placeholder */ typedef int placeholder_harness_cmd_worker_c;
