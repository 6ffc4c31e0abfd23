/* report.c: placeholder until it lands */ typedef int placeholder_harness_report_c;
