/* envcap.c: provenance capture from uname, /proc, /sys and the libraries' version calls */
#include "config.h"
#include "harness/run/envcap.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif
#include <gsl/gsl_version.h>
#include <hdf5.h>
#include <jansson.h>
#include <openssl/crypto.h>

#include "harness/base/spawn.h"
#include "harness/base/sysinfo.h"
#include "harness/base/util.h"

#define UNKNOWN "unknown"

/* The compiler that built harness itself (not the kernel compiler). */
#if defined(__clang__)
#define BUILD_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define BUILD_COMPILER "gcc " __VERSION__
#else
#define BUILD_COMPILER UNKNOWN
#endif
#define SYS_CPU0 "/sys/devices/system/cpu/cpu0"

/* Strip leading and trailing white space in place; returns the start. */
static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* The value of the first "key<spaces>: value" line of a /proc file such as cpuinfo or
 * meminfo, as a heap string, or NULL. */
static char *proc_field(const char *path, const char *key)
{
	char *data = xmalloc(1 << 18);
	char *ret = NULL;
	if (sysinfo_read_small(path, data, 1 << 18) < 0)
		goto done;
	size_t klen = strlen(key);
	for (char *line = data; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(line, key, klen) && (line[klen] == ':' || isspace((unsigned char)line[klen]))) {
			char *colon = strchr(line + klen, ':');
			if (colon) {
				char *v = trim(colon + 1);
				if (*v)
					ret = xstrdup(v);
				break;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
done:
	free(data);
	return ret;
}

/* A one-line sysfs value as a heap string, or NULL. */
static char *sys_line(const char *path)
{
	char buf[256];
	if (sysinfo_read_small(path, buf, sizeof(buf)) < 0)
		return NULL;
	char *v = trim(buf);
	return *v ? xstrdup(v) : NULL;
}

/* Set key to value (a heap string we free), or to "unknown" when value is NULL. */
static void set_owned(struct rec_meta *meta, const char *key, char *value)
{
	rec_meta_set(meta, key, value ? value : UNKNOWN);
	free(value);
}

/* 1 when prog (a path, or a name searched in path) is an executable regular file. */
static int program_exists(const char *prog, const char *path)
{
	struct stat st;
	if (strchr(prog, '/'))
		return !stat(prog, &st) && S_ISREG(st.st_mode) && !access(prog, X_OK);
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		char *cand = xasprintf("%.*s/%s", end == p ? 1 : (int)(end - p),
				       end == p ? "." : p, prog);
		int ok = !stat(cand, &st) && S_ISREG(st.st_mode) && !access(cand, X_OK);
		free(cand);
		if (ok)
			return 1;
		if (!*end)
			return 0;
		p = end;
	}
}

/* First line of `HARNESS_KERNEL_CC --version`, run with only PATH and LC_ALL=C in its
 * environment.  HARNESS_KERNEL_CC may carry words ("ccache gcc", "gcc -m64"); they are
 * split on blanks.  NULL when the compiler is missing or says nothing. */
static char *compiler_version(void)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *words = xstrdup(HARNESS_KERNEL_CC);
	const char *argv[16];
	size_t argc = 0;
	for (char *save = NULL, *w = strtok_r(words, " \t", &save);
	     w && argc + 2 < ARRAY_SIZE(argv); w = strtok_r(NULL, " \t", &save))
		argv[argc++] = w;
	argv[argc++] = "--version";
	argv[argc] = NULL;

	char *env_path = xasprintf("PATH=%s", path);
	const char *env[] = { env_path, "LC_ALL=C", NULL };
	struct spawn sp;
	struct sbuf out;
	struct spawn_status st;
	char *ret = NULL;
	spawn_init(&sp);
	sbuf_init(&out);
	if (argc < 2 || !program_exists(argv[0], path))
		goto done;
	sp.argv = argv;
	sp.env = env;
	if (spawn_run(&sp, &out, &st) < 0 || !st.exited || st.code)
		goto done;
	char *nl = strchr(out.buf, '\n');
	if (nl)
		*nl = '\0';
	char *line = trim(out.buf);
	if (*line)
		ret = xstrdup(line);
done:
	spawn_release(&sp);
	sbuf_release(&out);
	free(env_path);
	free(words);
	return ret;
}

static void collect_host(struct rec_meta *meta)
{
	struct utsname u;
	if (uname(&u) == 0) {
		rec_meta_set(meta, "host", u.nodename);
		set_owned(meta, "kernel",
			  xasprintf("%s %s %s %s", u.sysname, u.release, u.version, u.machine));
	} else {
		rec_meta_set(meta, "host", UNKNOWN);
		rec_meta_set(meta, "kernel", UNKNOWN);
	}
}

static void collect_cpu(struct rec_meta *meta)
{
	set_owned(meta, "cpu_model", proc_field("/proc/cpuinfo", "model name"));
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	set_owned(meta, "cpu_count", n > 0 ? xasprintf("%ld", n) : NULL);
	int smt = sysinfo_threads_per_core();
	set_owned(meta, "cpu_threads_per_core", smt > 0 ? xasprintf("%d", smt) : NULL);
	set_owned(meta, "cpu_governor", sys_line(SYS_CPU0 "/cpufreq/scaling_governor"));

	/* cpu0's clock when collected: /proc/cpuinfo, else cpufreq (kHz). */
	char *mhz = proc_field("/proc/cpuinfo", "cpu MHz");
	if (!mhz) {
		char *khz = sys_line(SYS_CPU0 "/cpufreq/scaling_cur_freq");
		int64_t v;
		if (khz && parse_i64(khz, 1, INT64_MAX, &v) == 0)
			mhz = xasprintf("%.3f", (double)v / 1000.0);
		free(khz);
	}
	set_owned(meta, "cpu_mhz", mhz);

	long llc = sysinfo_llc_bytes();
	set_owned(meta, "llc_bytes", llc > 0 ? xasprintf("%ld", llc) : NULL);

	char *mem = proc_field("/proc/meminfo", "MemTotal");
	char *bytes = NULL;
	if (mem) {
		uint64_t kb;
		char *sp = strchr(mem, ' ');
		if (sp && !strcmp(trim(sp), "kB"))
			*sp = '\0';
		if (parse_u64(mem, &kb) == 0 && kb <= UINT64_MAX / 1024)
			bytes = xasprintf("%llu", (unsigned long long)(kb * 1024));
	}
	free(mem);
	set_owned(meta, "memory_bytes", bytes);
}

static void collect_libraries(struct rec_meta *meta)
{
#ifdef __GLIBC__
	set_owned(meta, "libc", xasprintf("glibc %s", gnu_get_libc_version()));
#else
	rec_meta_set(meta, "libc", UNKNOWN);
#endif
	set_owned(meta, "compiler", compiler_version());
	rec_meta_set(meta, "build_compiler", BUILD_COMPILER);

	/* Run-time versions (the library actually loaded) where the library has a call. */
	rec_meta_set(meta, "gsl", gsl_version);
	unsigned maj, min, rel;
	if (H5get_libversion(&maj, &min, &rel) >= 0)
		set_owned(meta, "hdf5", xasprintf("%u.%u.%u", maj, min, rel));
	else
		rec_meta_set(meta, "hdf5", UNKNOWN);
	/* a backend's own libraries (OpenBLAS for cpu) come from its describe_build() */
#if JANSSON_VERSION_HEX >= 0x020d00
	rec_meta_set(meta, "jansson", jansson_version_str());
#else
	rec_meta_set(meta, "jansson", JANSSON_VERSION);
#endif
	rec_meta_set(meta, "openssl", OpenSSL_version(OPENSSL_VERSION));
	/* toml++ is header-only C++ with no C-visible version; the bridge would have to
	 * export one, so it is not recorded here. */
}

void envcap_collect(struct rec_meta *meta)
{
	collect_host(meta);
	collect_cpu(meta);
	collect_libraries(meta);
}
