/* sysinfo.h: facts about this machine that more than one layer reads (the CPU backend sizes
 * its cache flush with them; the run's provenance records them).  Read from sysfs; a fact
 * that cannot be read is unknown (0), never an error. */
#ifndef HARNESS_SYSINFO_H
#define HARNESS_SYSINFO_H

/* Size in bytes of the largest cache at the highest level cpu0 reports in
 * /sys/devices/system/cpu/cpu0/cache/index<N>/{level,size}; 0 when unknown. */
long sysinfo_llc_bytes(void);

#endif
