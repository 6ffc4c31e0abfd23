/* decide.c: placeholder until it lands */ typedef int placeholder_stats_decide_c;
