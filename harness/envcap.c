/* placeholder */ typedef int placeholder_harness_envcap_c;
