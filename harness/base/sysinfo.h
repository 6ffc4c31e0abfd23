/* sysinfo.h: facts about this machine that more than one layer reads (the CPU backend sizes
 * its cache flush with them; the run's provenance records them).  Read from sysfs; a fact
 * that cannot be read is unknown (0), never an error. */
#ifndef HARNESS_SYSINFO_H
#define HARNESS_SYSINFO_H

#include <stddef.h>
#include <sys/types.h>

/* Read a small file (a /proc or /sys entry, whose st_size is 0) into buf, NUL-terminated and
 * truncated to size - 1 bytes.  Returns the length, or -1 without reporting: a fact that
 * cannot be read is unknown, not an error. */
ssize_t sysinfo_read_small(const char *path, char *buf, size_t size);

/* Size in bytes of the largest cache at the highest level cpu0 reports in
 * /sys/devices/system/cpu/cpu0/cache/index<N>/{level,size}; 0 when unknown. */
long sysinfo_llc_bytes(void);

/* The CPUs that share cpu0's core (SMT threads: 1 without SMT), counted in
 * /sys/devices/system/cpu/cpu0/topology/thread_siblings_list ("0,16", "0-1"); 0 when
 * unknown.  Two hosts with one CPU count differ by it in what parallel work (NVRTC's
 * compiles) gets done: 16 CPUs are 16 cores or 8. */
int sysinfo_threads_per_core(void);
/* The count of CPUs in a Linux CPU list ("0-3,8,10-11"); -1 when s is not one. */
int sysinfo_cpulist_count(const char *s);

/* The host's CPU time so far, from /proc/stat's first line, in clock ticks: busy (user,
 * nice, system, irq, softirq, steal) and total (those and idle, iowait).  Returns 0, or -1
 * where it cannot be read (unknown, not reported). */
struct sysinfo_cpu {
	long long busy, total;
};
int sysinfo_cpu_sample(struct sysinfo_cpu *c);
/* The average number of the host's ncpu CPUs busy between samples a and b (any process);
 * -1 when no time passed between them. */
double sysinfo_cpu_busy(const struct sysinfo_cpu *a, const struct sysinfo_cpu *b, long ncpu);

/* Process pid's main thread as the scheduler sees it (readable while it runs and, a zombie,
 * until it is reaped): its moves between CPUs (/proc/PID/sched's se.nr_migrations: Linux
 * with scheduler statistics) and the CPU it last ran on (/proc/PID/stat's 39th field).
 * Either is -1 where it cannot be read. */
void sysinfo_proc_sched(pid_t pid, long long *migrations, int *last_cpu);

/* How fast this thread's CPU runs host code now: the least time in ns, over reps tries, of a
 * fixed chain of 2^20 dependent integer steps (no memory traffic, no system call), and the
 * CPU the thread was on at the end (-1 unknown).  About 1-3 ms a try on a current core; a
 * core shared with a busy SMT sibling, or clocked down, takes longer.  For a unit slow for
 * its whole life: is its core slow, or its code? */
struct sysinfo_spin {
	long long ns;
	int cpu;
};
void sysinfo_spin(int reps, struct sysinfo_spin *out);

/* NUMA placement, for the same question (which memory a host-bound process's calls reach):
 * the node of CPU cpu (its /sys/devices/system/cpu/cpuN/nodeK entry), -1 where unknown
 * (no such CPU, a kernel without NUMA in sysfs). */
int sysinfo_cpu_node(int cpu);
/* The node of the PCI device bus_id ("0000:1B:00.0" or NVML's "00000000:1B:00.0", either
 * case; /sys/bus/pci/devices/<id>/numa_node), -1 where unknown or the platform says none. */
int sysinfo_pci_node(const char *bus_id);
/* This process's pages by the node they sit on: the N<k>=<pages> counts of
 * /proc/self/numa_maps summed over its mappings, into pages[k] for k < n (zeroed first).
 * Returns the number of nodes seen (the highest + 1, at most n), or -1 where the file
 * cannot be read (a kernel without NUMA support). */
int sysinfo_numa_pages(long long *pages, int n);

#endif
