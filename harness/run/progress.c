/* progress.c: the progress line (see progress.h) */
#include "config.h"
#include "harness/run/progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/util.h"

void progress_init(struct progress *p, size_t total, size_t already, int quiet)
{
	memset(p, 0, sizeof(*p));
	p->quiet = quiet;
	p->tty = isatty(STDERR_FILENO);
	p->total = total;
	p->already = already;
	p->start_ns = util_now_ns();
}

static void fmt_dur(char *buf, size_t n, double s)
{
	if (s < 0 || s != s)
		snprintf(buf, n, "?");
	else if (s < 60)
		snprintf(buf, n, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, n, "%dh%02dm", (int)s / 3600, ((int)s % 3600) / 60);
}

static void times(const struct progress *p, char *el, char *eta, size_t n)
{
	double elapsed = (double)(util_now_ns() - p->start_ns) / 1e9;
	fmt_dur(el, n, elapsed);
	if (p->done == 0)
		snprintf(eta, n, "?");
	else
		fmt_dur(eta, n, elapsed / (double)p->done * (double)(p->total - p->already - p->done));
}

void progress_clear(struct progress *p)
{
	if (p->drawn) {
		fputs("\r\033[K", stderr);
		p->drawn = 0;
	}
}

void progress_unit_start(struct progress *p, int64_t id, const char *mode, const char *workload,
			 int64_t block, int warm)
{
	if (p->quiet)
		return;
	char el[32], eta[32];
	times(p, el, eta, sizeof(el));
	if (p->tty) {
		progress_tick(p, mode, NULL);
		return;
	}
	int one = workload && *workload;
	fprintf(stderr, "harness: [%zu/%zu] unit %" PRId64 " mode '%s'%s%s%s block %" PRId64 "%s, "
		"elapsed %s, eta %s\n", p->already + p->done + 1, p->total, id, mode,
		one ? " workload '" : "", one ? workload : "", one ? "'" : "", block,
		warm ? " (warm)" : "", el, eta);
}

void progress_tick(struct progress *p, const char *mode, const char *cell)
{
	if (p->quiet || !p->tty)
		return;
	int64_t now = util_now_ns();
	if (p->drawn && now - p->last_draw_ns < 200000000)
		return;
	p->last_draw_ns = now;
	char el[32], eta[32];
	times(p, el, eta, sizeof(el));
	fprintf(stderr, "\r\033[K[%zu/%zu] %s %s  elapsed %s  eta %s", p->already + p->done + 1,
		p->total, mode, cell ? cell : "", el, eta);
	fflush(stderr);
	p->drawn = 1;
}

void progress_unit_end(struct progress *p, const char *mode, const char *status,
		       const char *message)
{
	p->done++;
	if (p->quiet)
		return;
	if (strcmp(status, "ok")) {
		progress_clear(p);
		fprintf(stderr, "harness: unit of mode '%s' ended with status '%s'%s%s\n", mode,
			status, message && *message ? ": " : "", message ? message : "");
	}
}
