/* corr.c: placeholder until it lands */ typedef int placeholder_stats_corr_c;
