/* placeholder */ typedef int placeholder_stats_summary_c;
