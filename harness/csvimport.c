/* csvimport.c: placeholder until it lands */ typedef int placeholder_harness_csvimport_c;
