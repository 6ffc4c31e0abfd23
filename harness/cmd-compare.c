/* cmd-compare.c: placeholder until it lands */ typedef int placeholder_harness_cmd_compare_c;
