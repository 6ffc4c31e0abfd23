/* sysinfo.c: machine facts from sysfs (see sysinfo.h) */
#include "config.h"
#include "harness/base/sysinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/util.h"

#define SYS_CPU0 "/sys/devices/system/cpu/cpu0"

ssize_t sysinfo_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* A small sysfs file into buf, leading and trailing white space removed; the start of the
 * text, or NULL when it cannot be read. */
static char *read_trimmed(const char *path, char *buf, size_t size)
{
	ssize_t n = sysinfo_read_small(path, buf, size);
	if (n < 0)
		return NULL;
	size_t len = (size_t)n;
	while (len && isspace((unsigned char)buf[len - 1]))
		buf[--len] = '\0';
	char *s = buf;
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Parse a sysfs cache size ("32768K", "8M", "1G" or plain bytes); 0 when malformed. */
static long parse_cache_size(const char *s)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || v <= 0)
		return 0;
	long long mult = 1;
	switch (*end) {
	case 'K': case 'k': mult = 1024; end++; break;
	case 'M': case 'm': mult = 1024 * 1024; end++; break;
	case 'G': case 'g': mult = 1024LL * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end || v > (long long)(__LONG_MAX__ / mult))
		return 0;
	return (long)(v * mult);
}

long sysinfo_llc_bytes(void)
{
	long best_level = 0, best_size = 0;
	for (int i = 0; i < 32; i++) {
		char path[128], buf[64];
		int64_t level;
		snprintf(path, sizeof(path), SYS_CPU0 "/cache/index%d/level", i);
		const char *s = read_trimmed(path, buf, sizeof(buf));
		if (!s)
			break;
		if (parse_i64(s, 0, 16, &level) < 0)
			continue;
		snprintf(path, sizeof(path), SYS_CPU0 "/cache/index%d/size", i);
		s = read_trimmed(path, buf, sizeof(buf));
		if (!s)
			continue;
		long size = parse_cache_size(s);
		if (!size)
			continue;
		if (level > best_level || (level == best_level && size > best_size)) {
			best_level = (long)level;
			best_size = size;
		}
	}
	return best_size;
}

int sysinfo_cpulist_count(const char *s)
{
	int n = 0;
	for (;;) {
		char *end;
		errno = 0;
		long a = strtol(s, &end, 10), b = a;
		if (errno || end == s || a < 0 || *s == '-' || *s == '+')
			return -1;
		s = end;
		if (*s == '-') {
			b = strtol(++s, &end, 10);
			if (errno || end == s || b < a || *s == '-' || *s == '+')
				return -1;
			s = end;
		}
		if (b - a >= (1 << 20) - n)
			return -1;
		n += (int)(b - a + 1);
		if (!*s)
			return n;
		if (*s++ != ',')
			return -1;
	}
}

int sysinfo_threads_per_core(void)
{
	char buf[256];
	const char *s = read_trimmed(SYS_CPU0 "/topology/thread_siblings_list", buf, sizeof(buf));
	int n = s ? sysinfo_cpulist_count(s) : -1;
	return n > 0 ? n : 0;
}

int sysinfo_cpu_sample(struct sysinfo_cpu *c)
{
	char buf[512];
	long long v[8] = { 0 };
	/* cpu  user nice system idle iowait irq softirq steal (guest time is inside user) */
	if (sysinfo_read_small("/proc/stat", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]) < 4)
		return -1;
	c->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	c->total = c->busy + v[3] + v[4];
	return 0;
}

double sysinfo_cpu_busy(const struct sysinfo_cpu *a, const struct sysinfo_cpu *b, long ncpu)
{
	long long dt = b->total - a->total;
	if (dt <= 0 || ncpu <= 0)
		return -1;
	return (double)(b->busy - a->busy) / (double)dt * (double)ncpu;
}

void sysinfo_proc_sched(pid_t pid, long long *migrations, int *last_cpu)
{
	char path[64], buf[4096];
	*migrations = -1;
	*last_cpu = -1;
	snprintf(path, sizeof(path), "/proc/%ld/sched", (long)pid);
	if (sysinfo_read_small(path, buf, sizeof(buf)) > 0) {
		const char *m = strstr(buf, "se.nr_migrations");
		const char *colon = m ? strchr(m, ':') : NULL;
		long long v;
		if (colon && sscanf(colon + 1, "%lld", &v) == 1 && v >= 0)
			*migrations = v;
	}
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (sysinfo_read_small(path, buf, sizeof(buf)) > 0) {
		/* after the command's closing parenthesis: field 3 (the state) onwards */
		const char *f = strrchr(buf, ')');
		int field = 2, cpu;
		for (f = f ? f + 1 : NULL; f && *f && field < 39; f++)
			if (*f == ' ')
				field++;
		if (f && field == 39 && sscanf(f, "%d", &cpu) == 1 && cpu >= 0)
			*last_cpu = cpu;
	}
}

void sysinfo_spin(int reps, struct sysinfo_spin *out)
{
	/* an xorshift-multiply chain: each step needs the last, so the time is the core's
	 * latency for it, not a compiler's or a memory system's choice */
	volatile uint64_t seed = 0x9e3779b97f4a7c15u;
	out->ns = -1;
	for (int r = 0; r < reps; r++) {
		uint64_t x = seed;
		int64_t t0 = util_now_ns();
		for (int i = 0; i < (1 << 20); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			x *= 0x2545f4914f6cdd1du;
		}
		int64_t dt = util_now_ns() - t0;
		seed = x; /* keeps the chain */
		if (out->ns < 0 || dt < out->ns)
			out->ns = dt;
	}
	out->cpu = sched_getcpu(); /* -1 where it cannot tell */
}

int sysinfo_cpu_node(int cpu)
{
	char path[64];
	if (cpu < 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int node = -1;
	const struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		if (strncmp(e->d_name, "node", 4) || !isdigit((unsigned char)e->d_name[4]))
			continue;
		long k = strtol(e->d_name + 4, &end, 10);
		if (!*end && k >= 0 && k < 1 << 16) {
			node = (int)k;
			break;
		}
	}
	closedir(d);
	return node;
}

int sysinfo_pci_node(const char *bus_id)
{
	unsigned dom, bus, dev, fn;
	char path[96], buf[32], tail;
	if (!bus_id || sscanf(bus_id, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4 ||
	    dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -1;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%04x:%02x:%02x.%x/numa_node", dom,
		 bus, dev, fn);
	int node;
	if (sysinfo_read_small(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%d", &node) != 1 ||
	    node < 0)
		return -1; /* -1 in the file: the platform gives the device no node */
	return node;
}

int sysinfo_numa_pages(long long *pages, int n)
{
	FILE *f = fopen("/proc/self/numa_maps", "re");
	if (!f)
		return -1;
	for (int k = 0; k < n; k++)
		pages[k] = 0;
	int seen = 0;
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		/* "ADDR POLICY [file=...] ... N0=12 N1=3 kernelpagesize_kB=4": the N<k>= words */
		for (const char *w = strstr(line, " N"); w; w = strstr(w + 1, " N")) {
			int k;
			long long v;
			if (sscanf(w + 2, "%d=%lld", &k, &v) == 2 && k >= 0 && k < n && v >= 0) {
				pages[k] += v;
				if (k + 1 > seen)
					seen = k + 1;
			}
		}
	}
	fclose(f);
	return seen;
}
