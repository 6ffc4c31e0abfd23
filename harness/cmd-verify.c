/* cmd-verify.c: placeholder until it lands */ typedef int placeholder_harness_cmd_verify_c;
