/* audit.h: placeholder until it lands */ typedef int placeholder_harness_audit_h;
