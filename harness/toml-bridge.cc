/* placeholder */ typedef int placeholder_harness_toml_bridge_cc;
