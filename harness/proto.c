/* placeholder */ typedef int placeholder_harness_proto_c;
