/* placeholder */ typedef int placeholder_harness_worker_c;
