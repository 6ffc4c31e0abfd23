/* cmd-report.c: placeholder until it lands */ typedef int placeholder_harness_cmd_report_c;
