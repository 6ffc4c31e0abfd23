/* rank.c: placeholder until it lands */ typedef int placeholder_stats_rank_c;
