/* timeworker.c: time a command mode's processes inside one unit (see timeworker.h) */
#include "config.h"
#include "harness/run/timeworker.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "harness/record/recorder.h"
#include "stats/stats.h"

extern char **environ;

/* The tail of a failing run's stderr kept for the unit's message. */
#define STDERR_TAIL 600
/* Runs whose CPU times are listed one by one in the unit's info (beyond: summaries only,
 * within the protocol's 1 MiB of info). */
#define CPU_LIST_MAX 10000

struct tw {
	const struct unitspec *spec;
	char *err_path;         /* where each run's stderr goes first (in the cache directory) */
	char tail[STDERR_TAIL + 1]; /* the last run's stderr, its end */
};

/* Copy the run's stderr file to our stderr (the unit's log) and keep its last bytes in
 * w->tail. */
static void relay_stderr(struct tw *w)
{
	char buf[8192];
	size_t kept = 0;
	ssize_t n;
	w->tail[0] = '\0';
	int fd = open(w->err_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		fwrite(buf, 1, (size_t)n, stderr);
		/* keep the last STDERR_TAIL bytes seen */
		size_t take = (size_t)n < STDERR_TAIL ? (size_t)n : STDERR_TAIL;
		size_t keep = kept + take > STDERR_TAIL ? STDERR_TAIL - take : kept;
		memmove(w->tail, w->tail + kept - keep, keep);
		memcpy(w->tail + keep, buf + n - (ssize_t)take, take);
		kept = keep + take;
	}
	close(fd);
	fflush(stderr);
	w->tail[kept] = '\0';
	/* one line: the message is a record's field and a line of the run's output */
	for (size_t i = 0; i < kept; i++)
		if (w->tail[i] == '\n' || w->tail[i] == '\r' || w->tail[i] == '\t')
			w->tail[i] = ' ';
	while (kept && w->tail[kept - 1] == ' ')
		w->tail[--kept] = '\0';
}

/* An argv as one line for messages: its words joined by spaces; heap. */
static char *argv_line(char *const *argv)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; argv[i]; i++)
		sbuf_addf(&sb, "%s%s", i ? " " : "", argv[i]);
	return sbuf_detach(&sb);
}

/* Run argv once in the unit's working folder: 0 and *st (its wall time in *wall_ns), or -1
 * with *why (heap): it could not start, or it failed (non-zero exit or a signal) and
 * may_fail is 0.  what names the run in messages ("run 3 of 10", "setup"). */
static int run_once(struct tw *w, char *const *argv, const char *what, int may_fail,
		    int64_t *wall_ns, struct spawn_status *st, char **why)
{
	struct spawn sp;
	spawn_init(&sp);
	sp.argv = (const char *const *)argv;
	sp.env = (const char *const *)environ; /* the unit's own, built environment */
	sp.dir = w->spec->process.workdir;     /* NULL: the unit's cache directory */
	sp.inherit_stdout = 1;
	sp.stderr_path = w->err_path;
	/* posix_spawn: this process's memory (the CUDA libraries mapped, in a CUDA build) is
	 * not copied, so a run's wall time does not carry the cost of copying it.  No process
	 * group of its own: the unit's deadline signals the unit's group, these runs with it,
	 * and the scheduler kills what the group leaves when the unit ends (or the sandbox's
	 * init does, with its PID namespace) */
	sp.light = 1;
	fflush(stdout);
	int64_t t0 = util_now_ns();
	int r = spawn_start(&sp);
	if (r == 0)
		r = spawn_wait(&sp, st);
	int64_t t1 = util_now_ns();
	spawn_release(&sp);
	if (r) {
		*why = xasprintf("%s: '%s' could not be run (see the unit's stderr log)", what,
				 argv[0]);
		return -1;
	}
	*wall_ns = t1 - t0;
	relay_stderr(w);
	if (st->exited && st->code == 0)
		return 0;
	if (may_fail)
		return 0;
	char *line = argv_line(argv);
	char *how = st->signaled ? xasprintf("was killed by signal %d", st->sig)
				 : xasprintf("exited with status %d", st->code);
	*why = xasprintf("%s: '%s' %s%s%s%s", what, line, how, *w->tail ? "; its stderr ends: '" : "",
			 w->tail, *w->tail ? "'" : "");
	free(how);
	free(line);
	return -1;
}

/* A hook (setup, prepare, cleanup) when the mode has one. */
static int hook(struct tw *w, char *const *argv, const char *what, char **why)
{
	int64_t ns;
	struct spawn_status st;
	return argv ? run_once(w, argv, what, 0, &ns, &st, why) : 0;
}

static void add_list(struct sbuf *sb, const char *key, const int64_t *v, size_t n)
{
	sbuf_addf(sb, "%s=", key);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(sb, "%s%" PRId64, i ? "," : "", v[i]);
	sbuf_adds(sb, "\n");
}

/* The median of n values (n >= 1), sorting v. */
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static double median_of(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/* What the unit says of its runs: how they were run, then their CPU times. */
static int note_runs(struct proto_out *out, const struct unitspec *s, const int64_t *user,
		     const int64_t *sys, size_t n, long maxrss, int64_t failed)
{
	struct sbuf sb;
	sbuf_init(&sb);
	char *cmd = argv_line(s->command);
	sbuf_addf(&sb, "process_timing=wall: CLOCK_MONOTONIC from before posix_spawn to after wait4; "
		  "cpu: wait4 rusage\nprocess_command=%s\nprocess_workdir=%s\nprocess_runs=%zu\n"
		  "process_warmup=%" PRId64 "\nprocess_failed_runs=%" PRId64 "\n", cmd,
		  s->process.workdir ? s->process.workdir : s->cache_dir, n, s->process.warmup,
		  failed);
	free(cmd);
	const char *hooks[] = { "setup", "prepare", "cleanup" };
	char **argvs[] = { s->process.setup, s->process.prepare, s->process.cleanup };
	for (size_t k = 0; k < 3; k++)
		if (argvs[k]) {
			char *l = argv_line(argvs[k]);
			sbuf_addf(&sb, "process_%s=%s\n", hooks[k], l);
			free(l);
		}
	if (n) {
		if (n <= CPU_LIST_MAX) {
			add_list(&sb, "process_user_ns", user, n);
			add_list(&sb, "process_sys_ns", sys, n);
		}
		int64_t *tmp = xmalloc(n * sizeof(*tmp));
		memcpy(tmp, user, n * sizeof(*tmp));
		sbuf_addf(&sb, "process_user_ns_median=%.0f\n", median_of(tmp, n));
		memcpy(tmp, sys, n * sizeof(*tmp));
		sbuf_addf(&sb, "process_sys_ns_median=%.0f\n", median_of(tmp, n));
		free(tmp);
		sbuf_addf(&sb, "process_maxrss_kb=%ld\n", maxrss);
	}
	int r = proto_info(out, sb.buf);
	sbuf_release(&sb);
	return r;
}

int timeworker_run(const struct unitspec *s, struct proto_out *out)
{
	struct tw w = { .spec = s };
	const struct mode_process *x = &s->process;
	size_t n = 0, cap = (size_t)x->runs;
	struct sample *smp = xcalloc(cap, sizeof(*smp));
	int64_t *wall = xcalloc(cap, sizeof(*wall)), *user = xcalloc(cap, sizeof(*user));
	int64_t *sys = xcalloc(cap, sizeof(*sys));
	int64_t failed = 0, warm_ns = 0, warm_n = 0;
	long maxrss = 0;
	char *why = NULL;
	int ret = -1;

	w.err_path = xasprintf("%s/harness-run-stderr-%04" PRId64 ".txt", s->cache_dir, s->unit);
	if (proto_hello(out, s->mode, s->unit, "command"))
		goto done;
	struct rec_cell c = { .name = "process/wall", .kind = "op", .workload = "process",
			      .op = "process", .shape = "wall", .count = 1, .flops = 0 };
	if (proto_cell(out, 0, &c))
		goto done;

	if (hook(&w, x->setup, "setup", &why))
		goto closing;
	int64_t t0 = util_now_ns();
	for (int64_t k = 0; k < x->warmup; k++) {
		char what[64];
		int64_t ns;
		struct spawn_status st;
		snprintf(what, sizeof(what), "warm-up run %" PRId64 " of %" PRId64, k + 1, x->warmup);
		if (hook(&w, x->prepare, "prepare", &why) ||
		    run_once(&w, s->command, what, x->ignore_failure, &ns, &st, &why))
			goto closing;
		warm_n++;
	}
	warm_ns = util_now_ns() - t0;
	for (n = 0; n < cap;) {
		char what[64];
		struct spawn_status st;
		snprintf(what, sizeof(what), "run %zu of %zu", n + 1, cap);
		if (hook(&w, x->prepare, "prepare", &why) ||
		    run_once(&w, s->command, what, x->ignore_failure, &wall[n], &st, &why))
			goto closing;
		failed += !(st.exited && st.code == 0);
		smp[n] = (struct sample)SAMPLE_INIT;
		smp[n].ns = wall[n];
		user[n] = st.user_ns;
		sys[n] = st.sys_ns;
		if (st.maxrss_kb > maxrss)
			maxrss = st.maxrss_kb;
		n++;
	}
closing:; /* (a statement: clang's C17 allows no declaration right after a label) */
	/* cleanup after every setup that ran, even when a run failed */
	char *cwhy = NULL;
	if (hook(&w, x->cleanup, "cleanup", &cwhy)) {
		if (why) /* the first failure is the unit's message; this one goes to its log */
			fprintf(stderr, "harness worker: %s\n", cwhy);
		else
			why = cwhy;
		if (why != cwhy)
			free(cwhy);
	}
	if (n && proto_samples(out, 0, 0, smp, n))
		goto done;
	double relse = NAN;
	if (n >= 4) {
		double *v = xmalloc(n * sizeof(*v)), *work = xmalloc(n * sizeof(*work));
		struct stats_summary sum;
		stats_from_ns(wall, n, v);
		stats_summarize(v, 1, n, work, &sum);
		relse = stats_median_rel_se(&sum);
		free(v);
		free(work);
	}
	if (n) {
		struct rec_measure m = { .cell = 0, .nsamples = (int64_t)n, .stop = "max-samples",
					 .warmup_n = warm_n, .warmup_ns = warm_ns,
					 .rel_precision = relse };
		if (proto_measure(out, &m))
			goto done;
	}
	if (note_runs(out, s, user, sys, n, maxrss, failed))
		goto done;
	struct rec_unit u = { .expects_work = 0 };
	if (proto_setup(out, &u))
		goto done;
	if (why)
		fprintf(stderr, "harness worker: %s\n", why);
	if (proto_done(out, why ? REC_STATUS_FAILED : REC_STATUS_OK, why ? why : ""))
		goto done;
	ret = 0;
done:
	unlink(w.err_path);
	free(w.err_path);
	free(why);
	free(smp);
	free(wall);
	free(user);
	free(sys);
	return ret;
}
