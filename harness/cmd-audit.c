/* cmd-audit.c: placeholder until it lands */ typedef int placeholder_harness_cmd_audit_c;
