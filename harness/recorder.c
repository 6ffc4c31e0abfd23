/* placeholder */ typedef int placeholder_harness_recorder_c;
