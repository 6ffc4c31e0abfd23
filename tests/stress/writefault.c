/* writefault.c: an LD_PRELOAD shim that makes file writes fail on purpose, to test crash
 * safety (tests/cli/crash.sh, tests/stress/crash-stress.sh).  Only writes to files whose
 * path contains $WRITEFAULT_MATCH (default ".h5") count; the Nth such call (1-based) is hit:
 *
 *   WRITEFAULT_KILL_AT=N    the process SIGKILLs itself inside the Nth write, after writing
 *                           the first half of its bytes (a torn write, as power loss leaves)
 *   WRITEFAULT_ENOSPC_AT=N  the Nth write and every later one fail with ENOSPC (a full disk)
 *   WRITEFAULT_TERM_AT=N    the process sends itself SIGTERM just before the Nth write, which
 *                           then goes ahead (a signal that lands while the file is written)
 *   WRITEFAULT_LOG=PATH     append "pid count" of matching writes at exit (to pick N)
 *
 * Not linked with the sanitizers: it must load before anything else. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long count, kill_at, enospc_at, term_at;
static const char *match = ".h5";
static int inited;

static void init(void)
{
	if (inited)
		return;
	inited = 1;
	const char *s;
	if ((s = getenv("WRITEFAULT_KILL_AT")))
		kill_at = strtol(s, NULL, 10);
	if ((s = getenv("WRITEFAULT_ENOSPC_AT")))
		enospc_at = strtol(s, NULL, 10);
	if ((s = getenv("WRITEFAULT_TERM_AT")))
		term_at = strtol(s, NULL, 10);
	if ((s = getenv("WRITEFAULT_MATCH")) && *s)
		match = s;
}

static __attribute__((destructor)) void report(void)
{
	const char *log = getenv("WRITEFAULT_LOG");
	if (!log || !count)
		return;
	FILE *f = fopen(log, "a");
	if (f) {
		fprintf(f, "%ld %ld\n", (long)getpid(), count);
		fclose(f);
	}
}

/* 0: pass through; 1: fail with ENOSPC; 2: tear and kill (SIGTERM first for term_at). */
static int hit(int fd)
{
	init();
	if (!kill_at && !enospc_at && !term_at && !getenv("WRITEFAULT_LOG"))
		return 0;
	char link[64], path[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	if (!strstr(path, match))
		return 0;
	count++;
	if (term_at && count == term_at)
		kill(getpid(), SIGTERM); /* caught or not, as the process has it; the write goes on */
	if (kill_at && count == kill_at)
		return 2;
	if (enospc_at && count >= enospc_at)
		return 1;
	return 0;
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
#define REAL(name, type) \
	static type real_##name; \
	if (!real_##name) \
		real_##name = (type)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(write, write_fn);
	switch (hit(fd)) {
	case 1: errno = ENOSPC; return -1;
	case 2: real_write(fd, buf, n / 2); kill(getpid(), SIGKILL); pause();
	}
	return real_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite, pwrite_fn);
	switch (hit(fd)) {
	case 1: errno = ENOSPC; return -1;
	case 2: real_pwrite(fd, buf, n / 2, off); kill(getpid(), SIGKILL); pause();
	}
	return real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite64, pwrite_fn);
	switch (hit(fd)) {
	case 1: errno = ENOSPC; return -1;
	case 2: real_pwrite64(fd, buf, n / 2, off); kill(getpid(), SIGKILL); pause();
	}
	return real_pwrite64(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	REAL(writev, writev_fn);
	switch (hit(fd)) {
	case 1: errno = ENOSPC; return -1;
	case 2: if (cnt > 0) real_writev(fd, iov, 1); kill(getpid(), SIGKILL); pause();
	}
	return real_writev(fd, iov, cnt);
}
