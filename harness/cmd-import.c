/* cmd-import.c: placeholder until it lands */ typedef int placeholder_harness_cmd_import_c;
