/* analysis.c: placeholder until it lands */ typedef int placeholder_harness_analysis_c;
