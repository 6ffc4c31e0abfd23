/* sched.c: runs an experiment's units and records them (see sched.h) */
#include "config.h"
#include "harness/run/sched.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/cli/cmd.h"
#include "harness/run/envcap.h"
#include "harness/base/git-version.h"
#include "harness/analysis/hypothesis.h"
#include "harness/run/plan.h"
#include "harness/run/progress.h"
#include "harness/record/proto.h"
#include "harness/record/recorder.h"
#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "kernels/backend.h"
#include "kernels/tuner.h"
#include "stats/stats.h"

/* Seconds between SIGTERM and SIGKILL when a unit times out or the run is stopped. */
#define KILL_GRACE_S 2.0

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* Unit medians per (mode, cell), for the closing summary. */
struct summ {
	char *mode, *cell;
	double *med;
	size_t n, cap;
};

struct run {
	const struct sched_opts *o;
	struct experiment *exp;
	char *backend, *backend_reason;
	char *h5path, *dir, *exp_copy;
	struct rec *rec;
	struct rec_plan *plan;
	size_t nplan;
	char **cache_of;  /* per plan id: the unit's cache dir (heap) once known */
	int *done;        /* per plan id: 1 when recorded */
	char self[PATH_MAX];
	struct progress prog;
	struct summ *summ;
	size_t nsumm, summ_cap;
	size_t nfailed;
};

/* ---- environment given to units ------------------------------------------------ */

/* Variables a unit inherits from the harness when set (everything else is dropped). */
static const char *const env_allowlist[] = {
	"PATH", "LANG", "LC_ALL", "TZ", "USER", "LOGNAME", "LD_LIBRARY_PATH",
	"HARNESS_KERNEL_DIR", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
};

static void env_put(char ***env, size_t *n, size_t *cap, const char *name, const char *value)
{
	for (size_t i = 0; i < *n; i++) {
		size_t l = strlen(name);
		if (!strncmp((*env)[i], name, l) && (*env)[i][l] == '=') {
			free((*env)[i]);
			(*env)[i] = xasprintf("%s=%s", name, value);
			return;
		}
	}
	XGROW(*env, *cap, *n + 2);
	(*env)[(*n)++] = xasprintf("%s=%s", name, value);
	(*env)[*n] = NULL;
}

char **sched_unit_env(const struct experiment *e, const char *cache_dir, int64_t unit,
		      const char *mode)
{
	char **env = NULL;
	size_t n = 0, cap = 0;
	XGROW(env, cap, 1);
	env[0] = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(env_allowlist); i++) {
		const char *v = getenv(env_allowlist[i]);
		if (v)
			env_put(&env, &n, &cap, env_allowlist[i], v);
	}
	if (!getenv("PATH"))
		env_put(&env, &n, &cap, "PATH", "/usr/local/bin:/usr/bin:/bin");
	for (size_t i = 0; i < e->nenv_pass; i++) {
		const char *v = getenv(e->env_pass[i]);
		if (v)
			env_put(&env, &n, &cap, e->env_pass[i], v);
	}
	/* Every cache a unit could fill points into its own directory. */
	char *tmp = xasprintf("%s/tmp", cache_dir);
	char *sub;
	env_put(&env, &n, &cap, "HOME", cache_dir);
	env_put(&env, &n, &cap, "TMPDIR", tmp);
	env_put(&env, &n, &cap, "XDG_CACHE_HOME", cache_dir);
	env_put(&env, &n, &cap, "HARNESS_CACHE_DIR", cache_dir);
	sub = xasprintf("%s/triton", cache_dir);
	env_put(&env, &n, &cap, "TRITON_CACHE_DIR", sub);
	free(sub);
	sub = xasprintf("%s/inductor", cache_dir);
	env_put(&env, &n, &cap, "TORCHINDUCTOR_CACHE_DIR", sub);
	free(sub);
	sub = xasprintf("%s/cuda", cache_dir);
	env_put(&env, &n, &cap, "CUDA_CACHE_PATH", sub);
	free(sub);
	free(tmp);
	char num[32];
	snprintf(num, sizeof(num), "%" PRId64, e->measure.threads);
	env_put(&env, &n, &cap, "OPENBLAS_NUM_THREADS", num);
	env_put(&env, &n, &cap, "OMP_NUM_THREADS", num);
	snprintf(num, sizeof(num), "%d", PROTO_FD);
	env_put(&env, &n, &cap, "HARNESS_RECORD_FD", num);
	snprintf(num, sizeof(num), "%" PRId64, unit);
	env_put(&env, &n, &cap, "HARNESS_UNIT", num);
	env_put(&env, &n, &cap, "HARNESS_MODE", mode);
	for (size_t i = 0; i < e->nenv_set; i++)
		env_put(&env, &n, &cap, e->env_set[i].name, e->env_set[i].value);
	return env;
}

void sched_env_free(char **env)
{
	if (!env)
		return;
	for (char **p = env; *p; p++)
		free(*p);
	free(env);
}

static char *json_strv(const char *const *v)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "[");
	for (size_t i = 0; v[i]; i++) {
		if (i)
			sbuf_adds(&sb, ",");
		sbuf_add_json_string(&sb, v[i]);
	}
	sbuf_adds(&sb, "]");
	return sbuf_detach(&sb);
}

static char *json_env(char *const *env)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "{");
	for (size_t i = 0; env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char *name = xstrndup(env[i], (size_t)(eq - env[i]));
		if (i)
			sbuf_adds(&sb, ",");
		sbuf_add_json_string(&sb, name);
		sbuf_adds(&sb, ":");
		sbuf_add_json_string(&sb, eq + 1);
		free(name);
	}
	sbuf_adds(&sb, "}");
	return sbuf_detach(&sb);
}

/* ---- backend choice --------------------------------------------------------------- */

/* Resolve the backend: auto picks CUDA when it is built and usable, else the CPU, and says
 * why; a backend asked for by name that cannot run is an error, never a fallback. */
static int resolve_backend(const char *requested, char **name, char **reason)
{
	char *why = NULL;
	if (!strcmp(requested, "auto")) {
		const struct backend_ops *cuda = backend_find("cuda");
		if (cuda && cuda->available(&why)) {
			*name = xstrdup("cuda");
			*reason = xstrdup("auto: a CUDA device is available");
			return 0;
		}
		*name = xstrdup("cpu");
		*reason = xasprintf("auto: %s", cuda ? (why ? why : "no usable CUDA device")
					       : "this build has no CUDA backend");
		free(why);
		return 0;
	}
	const struct backend_ops *b = backend_find(requested);
	if (!b)
		return error("backend '%s' is not available in this build (built: %s)", requested,
			     backend_table[0] ? backend_table[0]->name : "none");
	if (!b->available(&why)) {
		error("backend '%s' was asked for but cannot run here: %s", requested,
		      why ? why : "unavailable");
		free(why);
		return -1;
	}
	*name = xstrdup(requested);
	*reason = xstrdup("requested by name");
	return 0;
}

/* ---- one unit --------------------------------------------------------------------- */

int sched_is_cache_leak(const struct rec_unit *u)
{
	return !u->warm && u->expects_work && u->status && !strcmp(u->status, REC_STATUS_OK) &&
	       u->compiles == 0 && u->benchmarks == 0;
}

static void summ_add(struct run *r, const char *mode, const char *cell, double med)
{
	struct summ *s = NULL;
	for (size_t i = 0; i < r->nsumm; i++)
		if (!strcmp(r->summ[i].mode, mode) && !strcmp(r->summ[i].cell, cell))
			s = &r->summ[i];
	if (!s) {
		XGROW(r->summ, r->summ_cap, r->nsumm + 1);
		s = &r->summ[r->nsumm++];
		memset(s, 0, sizeof(*s));
		s->mode = xstrdup(mode);
		s->cell = xstrdup(cell);
	}
	XGROW(s->med, s->cap, s->n + 1);
	s->med[s->n++] = med;
}

/* Per-cell medians of an ok cold unit, for the closing summary. */
static void summ_unit(struct run *r, const struct rec_unit_data *u)
{
	if (strcmp(u->unit.status, REC_STATUS_OK) || u->unit.warm)
		return;
	double *med = xmalloc((u->ncells ? u->ncells : 1) * sizeof(*med));
	stats_cell_medians(u->sample_cell, u->sample_ns, u->nsamples, u->ncells, med);
	for (size_t c = 0; c < u->ncells; c++)
		if (!isnan(med[c]))
			summ_add(r, u->unit.mode, u->cells[c].name, med[c]);
	free(med);
}

static const char *last_cell(const struct rec_unit_data *u)
{
	if (u->nmeasures)
		return u->cells[u->measures[u->nmeasures - 1].cell].name;
	if (u->ntrials)
		return u->cells[u->trials[u->ntrials - 1].cell].name;
	return "(setting up)";
}

/* Read the unit's records until its pipe closes and it exits, or the deadline passes, or
 * the harness is told to stop.  Fills *st; *timed_out / *stopped say why it was killed. */
static int watch_unit(struct run *r, struct spawn *sp, struct proto_in *in, const char *mode,
		      struct spawn_status *st, int *timed_out, int *stopped)
{
	int64_t deadline = util_now_ns() + (int64_t)(r->exp->unit_timeout_s * 1e9);
	int64_t kill_at = 0; /* when SIGKILL follows the SIGTERM already sent */
	int open = 1;
	char buf[65536];
	for (;;) {
		int64_t now = util_now_ns();
		if (!kill_at && (now >= deadline || stop_signal)) {
			if (now >= deadline)
				*timed_out = 1;
			else
				*stopped = 1;
			spawn_kill_group(sp, SIGTERM);
			kill_at = now + (int64_t)(KILL_GRACE_S * 1e9);
		} else if (kill_at && now >= kill_at) {
			spawn_kill_group(sp, SIGKILL);
			kill_at = INT64_MAX;
		}
		if (open) {
			struct pollfd pfd = { .fd = sp->rec_fd, .events = POLLIN };
			int pr = poll(&pfd, 1, 100);
			if (pr < 0 && errno != EINTR)
				return error_errno("cannot poll the unit's record pipe");
			if (pr > 0) {
				ssize_t n = read(sp->rec_fd, buf, sizeof(buf));
				if (n < 0 && errno != EINTR && errno != EAGAIN)
					return error_errno("cannot read the unit's record pipe");
				if (n == 0) {
					open = 0;
				} else if (n > 0) {
					proto_in_feed(in, buf, (size_t)n);
					progress_tick(&r->prog, mode, last_cell(in->u));
				}
			}
		}
		int done = spawn_poll(sp, st);
		if (done < 0)
			return -1;
		if (done == 1) {
			/* Drain what the unit wrote before it exited (the pipe may be held open
			 * by a grandchild: read only what is there now). */
			if (open) {
				int fl = fcntl(sp->rec_fd, F_GETFL);
				fcntl(sp->rec_fd, F_SETFL, fl | O_NONBLOCK);
				ssize_t n;
				while ((n = read(sp->rec_fd, buf, sizeof(buf))) > 0)
					proto_in_feed(in, buf, (size_t)n);
			}
			return 0;
		}
		if (!open)
			usleep(20000);
	}
}

static int run_unit(struct run *r, const struct rec_plan *p)
{
	struct rec_unit_data u;
	rec_unit_data_init(&u);
	struct proto_in in;
	proto_in_init(&in, &u);
	struct spawn sp;
	spawn_init(&sp);
	char **env = NULL;
	char *cache = NULL, *idstr = xasprintf("%" PRId64, p->id);
	int ret = -1;

	/* The cache dir: new for a cold unit, the cold unit's for a warm probe. */
	if (p->warm) {
		if (p->warm_of < 0 || !r->cache_of[p->warm_of]) {
			error("warm unit %" PRId64 " has no cold unit's cache directory", p->id);
			goto done;
		}
		cache = xstrdup(r->cache_of[p->warm_of]);
	} else {
		cache = xasprintf("%s/cache/u%04" PRId64 "-XXXXXX", r->dir, p->id);
		if (!mkdtemp(cache)) {
			error_errno("cannot create the cache directory '%s'", cache);
			goto done;
		}
		free(r->cache_of[p->id]);
		r->cache_of[p->id] = xstrdup(cache);
	}
	int empty = util_dir_is_empty(cache);
	if (empty < 0)
		goto done;
	char *tmp = xasprintf("%s/tmp", cache);
	if (mkdir(tmp, 0700) < 0 && errno != EEXIST) {
		error_errno("cannot create '%s'", tmp);
		free(tmp);
		goto done;
	}
	free(tmp);

	char *out_log = xasprintf("%s/logs/u%04" PRId64 ".out", r->dir, p->id);
	char *err_log = xasprintf("%s/logs/u%04" PRId64 ".err", r->dir, p->id);
	/* /proc/self/exe, not the path: every unit runs the very binary that started the run,
	 * even if it is rebuilt or replaced meanwhile (the path is in the run metadata). */
	const char *argv[] = { "/proc/self/exe", "__worker", "--experiment", r->exp_copy, "--mode", p->mode,
			       "--unit", idstr, "--backend", r->backend, "--cache-dir", cache, NULL };
	env = sched_unit_env(r->exp, cache, p->id, p->mode);

	struct rec_unit *x = &u.unit;
	x->id = p->id;
	x->mode = xstrdup(p->mode);
	x->repeat = p->repeat;
	x->block = p->block;
	x->position = p->position;
	x->warm = p->warm;
	x->cache_dir = xstrdup(cache);
	x->cache_dir_empty = empty;
	/* Paths in the file are relative to the results file's folder. */
	const char *base = strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir;
	x->stdout_log = xasprintf("%s/logs/u%04" PRId64 ".out", base, p->id);
	x->stderr_log = xasprintf("%s/logs/u%04" PRId64 ".err", base, p->id);
	x->argv_json = json_strv(argv);
	x->env_json = json_env(env);
	char t[32];
	util_utc_now(t);
	x->start_utc = xstrdup(t);

	sp.argv = argv;
	sp.env = (const char *const *)env;
	sp.dir = cache;
	sp.stdout_path = out_log;
	sp.stderr_path = err_log;
	sp.record_pipe = 1;
	sp.new_pgroup = 1;
	progress_unit_start(&r->prog, p->id, p->mode, p->block, p->warm);
	int64_t t0 = util_now_ns();
	int started = spawn_start(&sp) == 0;
	free(out_log);
	free(err_log);
	if (!started)
		goto done;
	x->pid = sp.pid;

	struct spawn_status st = { 0 };
	int timed_out = 0, stopped = 0;
	if (watch_unit(r, &sp, &in, p->mode, &st, &timed_out, &stopped)) {
		spawn_kill_group(&sp, SIGKILL);
		spawn_wait(&sp, &st);
		goto done;
	}
	proto_in_end(&in);
	x->wall_ns = util_now_ns() - t0;
	util_utc_now(t);
	x->end_utc = xstrdup(t);
	x->exit_code = st.code;
	x->signal = st.signaled ? st.sig : 0;

	if (stopped) {
		/* An interrupted unit is not recorded: --resume runs it again. */
		ret = 1;
		goto done;
	}
	const char *status;
	char *msg = NULL;
	if (timed_out) {
		status = REC_STATUS_TIMEOUT;
		msg = xasprintf("no result within %.0f s; killed", r->exp->unit_timeout_s);
	} else if (st.signaled) {
		status = REC_STATUS_CRASHED;
		msg = xasprintf("killed by signal %d (%s)", st.sig, strsignal(st.sig));
	} else if (st.code != 0) {
		status = REC_STATUS_FAILED;
		msg = xasprintf("exited with status %d%s%s", st.code, in.done_message ? ": " : "",
				in.done_message ? in.done_message : "");
	} else if (in.error) {
		status = REC_STATUS_BAD_OUTPUT;
		msg = xstrdup(in.error);
	} else if (!in.saw_done) {
		status = REC_STATUS_BAD_OUTPUT;
		msg = xstrdup("the unit exited without a 'done' record");
	} else {
		status = in.done_status;
		msg = xstrdup(in.done_message ? in.done_message : "");
		static const char *const known[] = { REC_STATUS_OK, REC_STATUS_COMPILE_ERROR,
						     REC_STATUS_INCORRECT, REC_STATUS_FAILED };
		int ok = 0;
		for (size_t i = 0; i < ARRAY_SIZE(known); i++)
			ok |= !strcmp(status, known[i]);
		if (!ok) {
			free(msg);
			msg = xasprintf("unknown unit status '%s'", status);
			status = REC_STATUS_BAD_OUTPUT;
		}
	}
	x->status = xstrdup(status);
	x->message = msg;
	x->cache_leak = sched_is_cache_leak(x);
	if (strcmp(status, REC_STATUS_OK))
		r->nfailed++;

	if (rec_append_unit(r->rec, &u))
		goto done;
	r->done[p->id] = 1;
	summ_unit(r, &u);
	progress_unit_end(&r->prog, p->mode, status);
	ret = 0;
done:
	spawn_release(&sp);
	sched_env_free(env);
	proto_in_release(&in);
	rec_unit_data_release(&u);
	free(cache);
	free(idstr);
	return ret;
}

/* ---- the run ----------------------------------------------------------------------- */

/* Median of a (mode, cell)'s unit medians, or NaN when it has none. */
static double summ_median(const struct run *r, const char *mode, const char *cell)
{
	for (size_t i = 0; i < r->nsumm; i++) {
		const struct summ *s = &r->summ[i];
		if (strcmp(s->mode, mode) || strcmp(s->cell, cell))
			continue;
		double *w = xmalloc(s->n * sizeof(*w));
		struct stats_summary ss;
		stats_summarize(s->med, 1, s->n, w, &ss);
		free(w);
		return ss.median;
	}
	return NAN;
}

/* The closing summary on stdout: one row per cell, one column per mode (declared order). */
static void print_summary(struct run *r)
{
	progress_clear(&r->prog);
	size_t ok = 0;
	for (size_t i = 0; i < r->nplan; i++)
		ok += r->done[i];
	printf("run: %s\nbackend: %s (%s)\nunits: %zu recorded of %zu planned, %zu not ok\n",
	       r->h5path, r->backend, r->backend_reason, ok, r->nplan, r->nfailed);
	if (!r->nsumm)
		return;
	/* cells in first-seen order */
	const char **cells = xcalloc(r->nsumm, sizeof(*cells));
	size_t ncells = 0, width = 4;
	for (size_t i = 0; i < r->nsumm; i++) {
		size_t j = 0;
		while (j < ncells && strcmp(cells[j], r->summ[i].cell))
			j++;
		if (j == ncells) {
			cells[ncells++] = r->summ[i].cell;
			if (strlen(r->summ[i].cell) > width)
				width = strlen(r->summ[i].cell);
		}
	}
	printf("\nmedian over this session's cold ok units of each unit's median, in microseconds\n"
	       "(descriptive only: this version computes no paired tests or verdicts)\n\n%-*s",
	       (int)width, "cell");
	for (size_t m = 0; m < r->exp->nmodes; m++)
		printf(" %12.12s", r->exp->modes[m].name);
	printf("\n");
	for (size_t c = 0; c < ncells; c++) {
		printf("%-*s", (int)width, cells[c]);
		for (size_t m = 0; m < r->exp->nmodes; m++) {
			double v = summ_median(r, r->exp->modes[m].name, cells[c]);
			if (isnan(v))
				printf(" %12s", "-");
			else
				printf(" %12.2f", v / 1e3);
		}
		printf("\n");
	}
	free(cells);
}

static int write_meta(struct run *r, struct rec_meta *m)
{
	char t[32];
	util_utc_now(t);
	rec_meta_set(m, "harness_version", PACKAGE_VERSION);
	rec_meta_set(m, "harness_binary", r->self);
	rec_meta_set(m, "git_commit", HARNESS_GIT_COMMIT);
	rec_meta_set(m, "git_dirty", HARNESS_GIT_DIRTY ? "1" : "0");
	rec_meta_set(m, "experiment_name", r->exp->name);
	rec_meta_set(m, "experiment_path", r->exp->path);
	rec_meta_set(m, "experiment_sha256", r->exp->sha256);
	rec_meta_set(m, "backend_requested",
		     r->o->backend ? r->o->backend : backend_kind_name(r->exp->backend));
	rec_meta_set(m, "backend", r->backend);
	rec_meta_set(m, "backend_reason", r->backend_reason);
	char num[32];
	snprintf(num, sizeof(num), "%" PRIu64, r->exp->seed);
	rec_meta_set(m, "seed", num);
	rec_meta_set(m, "order", order_kind_name(r->exp->order));
	snprintf(num, sizeof(num), "%" PRId64, r->exp->repeats);
	rec_meta_set(m, "repeats", num);
	rec_meta_set(m, "start_utc", t);
	rec_meta_set(m, "end_utc", "");
	rec_meta_set(m, "status", "running");
	rec_meta_set(m, "run_dir", strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir);
	char *argv = json_strv((const char *const *)r->o->argv);
	rec_meta_set(m, "harness_argv", argv);
	free(argv);
	struct sbuf al;
	sbuf_init(&al);
	for (size_t i = 0; i < ARRAY_SIZE(env_allowlist); i++)
		sbuf_addf(&al, "%s%s", i ? "," : "", env_allowlist[i]);
	rec_meta_set(m, "unit_env_allowlist", al.buf);
	sbuf_release(&al);
	envcap_collect(m);
	rec_meta_add_file(m, "experiment", r->exp->path, r->exp->text, r->exp->text_len);
	/* Hypothesis files, verbatim with their hashes, before the first sample. */
	const char *slash = strrchr(r->exp->path, '/');
	char *edir = slash ? xstrndup(r->exp->path, (size_t)(slash - r->exp->path) + 1) : xstrdup("");
	for (size_t i = 0; i < r->exp->nhypotheses; i++) {
		const char *h = r->exp->hypotheses[i];
		char *hp = h[0] == '/' ? xstrdup(h) : xasprintf("%s%s", edir, h);
		char *text = NULL;
		size_t len = 0;
		if (util_read_file(hp, &text, &len)) {
			free(hp);
			free(edir);
			return -1;
		}
		rec_meta_add_file(m, "hypothesis", hp, text, len);
		free(text);
		/* its git state at run start: what pre-registration is judged on */
		if (hyp_capture_git(hp, m, i)) {
			free(hp);
			free(edir);
			return -1;
		}
		free(hp);
	}
	free(edir);
	return 0;
}

/* Units start in their cache directory: every path they are given is absolute. */
static int make_dir_absolute(struct run *r)
{
	char *abs = realpath(r->dir, NULL);
	if (!abs)
		return error_errno("cannot resolve the run folder '%s'", r->dir);
	free(r->dir);
	r->dir = abs;
	return 0;
}

/* Set up a new run: metadata (and the pre-registration check) first, so a refused run
 * creates nothing; then the folder, the experiment copy, the results file with meta and
 * plan.  Returns 0, -1 (run failed) or -2 (refused: bad input). */
static int start_new(struct run *r)
{
	char stamp[32];
	util_utc_stamp(stamp);
	const char *rd = r->o->results_dir ? r->o->results_dir : "results";
	struct rec_meta m;
	rec_meta_init(&m);
	int rc = -1;
	if (r->o->output)
		r->h5path = xstrdup(r->o->output);
	else
		r->h5path = xasprintf("%s/%s-%s.h5", rd, r->exp->name, stamp);
	size_t l = strlen(r->h5path);
	r->dir = l > 3 && !strcmp(r->h5path + l - 3, ".h5") ? xstrndup(r->h5path, l - 3)
							     : xasprintf("%s.d", r->h5path);
	if (access(r->h5path, F_OK) == 0 || access(r->dir, F_OK) == 0) {
		error("'%s' already exists; not overwriting a run", r->h5path);
		goto done;
	}
	if (write_meta(r, &m))
		goto done;
	if (r->o->require_preregistered && hyp_require_preregistered(&m)) {
		rc = -2;
		goto done;
	}
	if (!r->o->output && util_mkdir_p(rd, 0755))
		goto done;
	char *sub = xasprintf("%s/logs", r->dir);
	int mk = util_mkdir_p(sub, 0755);
	free(sub);
	sub = xasprintf("%s/cache", r->dir);
	mk = mk ? mk : util_mkdir_p(sub, 0700);
	free(sub);
	if (mk || make_dir_absolute(r))
		goto done;
	r->exp_copy = xasprintf("%s/experiment.toml", r->dir);
	if (util_write_file(r->exp_copy, r->exp->text, r->exp->text_len, 0444))
		goto done;
	if (rec_create(r->h5path, &m, r->plan, r->nplan, &r->rec))
		goto done;
	if (!r->o->quiet)
		fprintf(stderr, "harness: backend '%s' (%s); %zu units; results in '%s'\n", r->backend,
			r->backend_reason, r->nplan, r->h5path);
	rc = 0;
done:
	rec_meta_release(&m);
	return rc;
}

/* Reopen a run for --resume: the experiment must hash to what the run recorded. */
static int start_resume(struct run *r, int *usage)
{
	struct rec_meta m;
	rec_meta_init(&m);
	int ret = -1;
	struct rec_unit *units = NULL;
	size_t nunits = 0;
	*usage = 1;
	if (rec_open(r->o->resume, 1, &r->rec))
		goto done;
	if (rec_read_meta(r->rec, &m))
		goto done;
	const char *sha = rec_meta_get(&m, "experiment_sha256");
	const char *path = r->o->experiment ? r->o->experiment : rec_meta_get(&m, "experiment_path");
	const char *backend = rec_meta_get(&m, "backend");
	if (!sha || !path || !backend) {
		error("'%s' lacks the run metadata needed to resume", r->o->resume);
		goto done;
	}
	if (experiment_load(path, &r->exp))
		goto done;
	if (strcmp(sha, r->exp->sha256)) {
		error("'%s' has changed since the run started (SHA-256 %.12s..., recorded %.12s...); "
		      "refusing to resume '%s'",
		      path, r->exp->sha256, sha, r->o->resume);
		goto done;
	}
	char *why = NULL;
	const struct backend_ops *b = backend_find(backend);
	if (!b || !b->available(&why)) {
		error("the run used backend '%s', which cannot run here%s%s", backend, why ? ": " : "",
		      why ? why : "");
		free(why);
		goto done;
	}
	r->backend = xstrdup(backend);
	r->backend_reason = xasprintf("resumed; %s", rec_meta_get(&m, "backend_reason")
							 ? rec_meta_get(&m, "backend_reason")
							 : "");
	r->h5path = xstrdup(r->o->resume);
	size_t l = strlen(r->h5path);
	r->dir = l > 3 && !strcmp(r->h5path + l - 3, ".h5") ? xstrndup(r->h5path, l - 3)
							     : xasprintf("%s.d", r->h5path);
	if (make_dir_absolute(r))
		goto done;
	r->exp_copy = xasprintf("%s/experiment.toml", r->dir);
	if (access(r->exp_copy, R_OK) < 0) {
		error_errno("cannot read the run's experiment copy '%s'", r->exp_copy);
		goto done;
	}
	*usage = 0;
	if (plan_build(r->exp, &r->plan, &r->nplan))
		goto done;
	r->done = xcalloc(r->nplan, sizeof(*r->done));
	r->cache_of = xcalloc(r->nplan, sizeof(*r->cache_of));
	if (rec_read_units(r->rec, &units, &nunits))
		goto done;
	for (size_t i = 0; i < nunits; i++) {
		int64_t id = units[i].id;
		if (id < 0 || (size_t)id >= r->nplan || strcmp(units[i].mode, r->plan[id].mode)) {
			error("'%s' holds unit %" PRId64 " that is not in the experiment's plan",
			      r->o->resume, id);
			goto done;
		}
		r->done[id] = 1;
		if (!units[i].warm) {
			free(r->cache_of[id]);
			r->cache_of[id] = xstrdup(units[i].cache_dir);
		}
	}
	rec_set_meta(r->rec, "status", "running");
	ret = 0;
done:
	rec_units_free(units, nunits);
	rec_meta_release(&m);
	return ret;
}

int sched_run(const struct sched_opts *o)
{
	struct run r = { .o = o };
	int ret = EXIT_RUN_FAILED, usage = 0;
	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	signal(SIGPIPE, SIG_IGN);
	stop_signal = 0;

	ssize_t sl = readlink("/proc/self/exe", r.self, sizeof(r.self) - 1);
	if (sl < 0) {
		error_errno("cannot find the harness binary (/proc/self/exe)");
		goto done;
	}
	r.self[sl] = '\0';

	if (o->resume) {
		if (start_resume(&r, &usage)) {
			ret = usage ? EXIT_USAGE : EXIT_RUN_FAILED;
			goto done;
		}
	} else {
		if (experiment_load(o->experiment, &r.exp)) {
			ret = EXIT_USAGE;
			goto done;
		}
		const char *want = o->backend ? o->backend : backend_kind_name(r.exp->backend);
		if (resolve_backend(want, &r.backend, &r.backend_reason)) {
			ret = EXIT_USAGE;
			goto done;
		}
		if (plan_build(r.exp, &r.plan, &r.nplan))
			goto done;
		r.done = xcalloc(r.nplan, sizeof(*r.done));
		r.cache_of = xcalloc(r.nplan, sizeof(*r.cache_of));
		int sn = start_new(&r);
		if (sn) {
			ret = sn == -2 ? EXIT_USAGE : EXIT_RUN_FAILED;
			goto done;
		}
	}

	size_t already = 0;
	for (size_t i = 0; i < r.nplan; i++)
		already += r.done[i];
	progress_init(&r.prog, r.nplan, already, o->quiet);
	int failed_infra = 0;
	for (size_t i = 0; i < r.nplan && !stop_signal; i++) {
		if (r.done[i])
			continue;
		int u = run_unit(&r, &r.plan[i]);
		if (u < 0) {
			failed_infra = 1;
			break;
		}
	}
	char t[32];
	util_utc_now(t);
	const char *status = stop_signal ? "interrupted" : failed_infra ? "failed" : "complete";
	rec_set_meta(r.rec, "end_utc", t);
	rec_set_meta(r.rec, "status", status);
	/* Peak memory: the scheduler's own, and the largest unit's. */
	struct rusage ru;
	char kb[32];
	getrusage(RUSAGE_SELF, &ru);
	snprintf(kb, sizeof(kb), "%ld", ru.ru_maxrss);
	rec_set_meta(r.rec, "harness_peak_rss_kb", kb);
	getrusage(RUSAGE_CHILDREN, &ru);
	snprintf(kb, sizeof(kb), "%ld", ru.ru_maxrss);
	rec_set_meta(r.rec, "units_peak_rss_kb", kb);
	if (stop_signal) {
		progress_clear(&r.prog);
		fprintf(stderr, "harness: stopped by signal %d; finished units are in '%s'; continue "
				"with 'harness run --resume %s'\n",
			(int)stop_signal, r.h5path, r.h5path);
	}
	print_summary(&r);
	ret = stop_signal ? EXIT_INTERRUPTED : (failed_infra || r.nfailed) ? EXIT_RUN_FAILED : EXIT_OK;
done:
	if (rec_close(r.rec) && ret == EXIT_OK)
		ret = EXIT_RUN_FAILED;
	r.rec = NULL;
	/* The run's pre-registered hypotheses, evaluated on what was just recorded.  A falsified
	 * hypothesis is a finding, not a failed run: `harness verify` exits 3 for it. */
	if ((ret == EXIT_OK || ret == EXIT_RUN_FAILED) && r.exp && r.exp->nhypotheses && r.h5path &&
	    access(r.h5path, F_OK) == 0) {
		fflush(stdout);
		printf("\n");
		if (hyp_evaluate_run(r.h5path, stdout) < 0 && ret == EXIT_OK)
			ret = EXIT_RUN_FAILED;
	}
	for (size_t i = 0; r.cache_of && i < r.nplan; i++)
		free(r.cache_of[i]);
	free(r.cache_of);
	free(r.done);
	rec_plan_free(r.plan, r.nplan);
	for (size_t i = 0; i < r.nsumm; i++) {
		free(r.summ[i].mode);
		free(r.summ[i].cell);
		free(r.summ[i].med);
	}
	free(r.summ);
	free(r.backend);
	free(r.backend_reason);
	free(r.h5path);
	free(r.dir);
	free(r.exp_copy);
	experiment_free(r.exp);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret;
}
