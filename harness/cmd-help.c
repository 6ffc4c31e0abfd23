/* placeholder */ typedef int placeholder_harness_cmd_help_c;
