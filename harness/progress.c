/* placeholder */ typedef int placeholder_harness_progress_c;
