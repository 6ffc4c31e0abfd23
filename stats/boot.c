/* boot.c: placeholder until it lands */ typedef int placeholder_stats_boot_c;
