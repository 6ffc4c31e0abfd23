/* audit.c: placeholder until it lands */ typedef int placeholder_harness_audit_c;
