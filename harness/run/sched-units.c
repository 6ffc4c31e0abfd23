/* sched-units.c: the units of a run (see sched-int.h): one unit prepared, launched and
 * recorded in the journal, and the slots that run units side by side (whole blocks per
 * slot, --max-time's budget).  Part of the scheduler; sched.c drives it. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness/base/git-version.h"
#include "harness/base/sandbox.h"
#include "harness/base/util.h"
#include "kernels/sample.h"
#include "harness/config/experiment.h"
#include "harness/config/lut.h"
#include "harness/record/prereg.h"
#include "harness/record/recorder.h"
#include "harness/run/envcap.h"
#include "harness/run/plan.h"
#include "harness/run/progress.h"
#include "harness/run/sched.h"
#include "harness/run/sched-int.h"
#include "harness/run/unit.h"
#include "harness/config/unitenv.h"
#include "harness/record/proto.h"
#include "harness/run/unitspec.h"
#include "kernels/backend.h"
#include "stats/stats.h"

char *sched_json_strv(const char *const *v)
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

/* ---- one unit --------------------------------------------------------------------- */

/* An ok unit's samples must all be positive (a unit is ok only if its samples are): one
 * that is not is recorded as bad output. */
static void check_samples(struct rec_unit_data *u)
{
	if (strcmp(u->unit.status, REC_STATUS_OK))
		return;
	for (size_t i = 0; i < u->nsamples; i++) {
		if (u->sample_ns[i] > 0)
			continue;
		free(u->unit.status);
		free(u->unit.message);
		u->unit.status = xstrdup(REC_STATUS_BAD_OUTPUT);
		u->unit.message = xasprintf("sample %zu of cell '%s' is %" PRId64 " ns: not a timing",
					    i, u->cells[u->sample_cell[i]].name, u->sample_ns[i]);
		return;
	}
}

/* Assemble the results file from the journal (rec_assemble).  -1 reported. */
int sched_assemble(struct run *r)
{
	const char *dirs[1] = { r->dir };
	int64_t t0 = util_now_ns();
	int rc = rec_assemble(dirs, 1, r->h5path);
	r->assemble_ns += util_now_ns() - t0;
	return rc;
}

/* After a unit: the results file assembled anew, unless that would take the time spent
 * assembling past 1% of the session's wall time (a long run's file is then assembled at
 * the end, at a stop or by --resume; the journal holds every finished unit regardless).
 * -1 reported. */
static int maybe_assemble(struct run *r)
{
	int64_t elapsed = util_now_ns() - r->session_ns;
	if (r->assemble_ns * 100 > elapsed)
		return 0;
	return sched_assemble(r);
}

/* Record warm probe p as skipped: its cold unit's cache directory is gone.  0 recorded,
 * -1 failed. */
static int record_skipped(struct run *r, const struct rec_plan *p, const char *cache)
{
	struct rec_unit_data u;
	char t[32];
	rec_unit_data_init(&u);
	util_utc_now(t);
	const char *base = strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir;
	u.unit = (struct rec_unit){
		.id = p->id, .mode = xstrdup(p->mode), .repeat = p->repeat, .block = p->block,
		.position = p->position, .warm = 1, .cache_dir = xstrdup(cache),
		.status = xstrdup(REC_STATUS_SKIPPED), .exit_code = 0, .start_utc = xstrdup(t),
		.end_utc = xstrdup(t),
		.stdout_log = xasprintf("%s/logs/u%04" PRId64 ".out", base, p->id),
		.stderr_log = xasprintf("%s/logs/u%04" PRId64 ".err", base, p->id),
		.argv_json = xstrdup("[]"), .env_json = xstrdup("{}"), .slot = -1,
		.workload = xstrdup(p->workload ? p->workload : ""),
		.message = xasprintf("not run: its cold unit's cache directory '%s' is gone (deleted "
				     "before --resume); a warm probe cannot be measured without it",
				     cache),
	};
	warning("unit %" PRId64 " (warm probe of %s) skipped: its cold unit's cache directory "
		"'%s' is gone", p->id, p->mode, cache);
	r->nfailed++;
	int rc = rec_journal_write_unit(r->jr, &u);
	if (rc == 0) {
		rec_journal_clear_running(r->jr, p->id); /* the note of the session that lost it */
		r->done[p->id] = 1;
		progress_unit_end(&r->prog, p->mode, u.unit.status, NULL);
		rc = maybe_assemble(r);
	}
	rec_unit_data_release(&u);
	return rc;
}

/* Release what a slot's current unit holds (its job finished or never started). */
static void slot_clear(struct slot_run *s)
{
	unitenv_free(s->env);
	unitenv_free(s->argv);
	rec_unit_data_release(&s->u);
	rec_unit_data_init(&s->u);
	free(s->cache);
	free(s->out_log);
	free(s->err_log);
	free(s->protect);
	free(s->check);
	s->env = s->argv = NULL;
	s->cache = s->out_log = s->err_log = s->protect = s->check = NULL;
	s->p = NULL;
	s->running = 0;
}

/* Prepare plan entry p on slot s: a cache directory of its own (a warm probe: its cold
 * unit's), its logs, argv and environment (with the slot's device), the unit's recorded
 * fields.  0 prepared (s->spec ready to start), 2 recorded without running (a warm probe
 * whose cold unit's cache is gone), -1 failed. */
static int unit_prepare(struct run *r, struct slot_run *s, const struct rec_plan *p)
{
	char *cause = NULL;
	int ret = -1;
	rec_unit_data_init(&s->u);
	s->p = p;

	ssize_t mi = experiment_mode_index(r->exp, p->mode);
	if (mi < 0) {
		error("unit %" PRId64 " names mode '%s', which the experiment lacks", p->id, p->mode);
		goto done;
	}
	/* An external command runs only as the program the run started with. */
	if (r->mb[mi].command && sched_command_check(r, (size_t)mi, p->id))
		goto done;
	/* The cache dir: new for a cold unit, the cold unit's for a warm probe. */
	if (p->warm) {
		if (p->warm_of < 0 || !r->cache_of[p->warm_of]) {
			error("warm unit %" PRId64 " has no cold unit's cache directory", p->id);
			goto done;
		}
		s->cache = xstrdup(r->cache_of[p->warm_of]);
		struct stat cst;
		if (stat(s->cache, &cst) < 0 || !S_ISDIR(cst.st_mode)) {
			/* Resumed after the cache was deleted: the probe cannot measure a warm
			 * cache, and re-running its cold unit would record that unit twice. */
			ret = record_skipped(r, p, s->cache) ? -1 : 2;
			goto done;
		}
	} else {
		char *cdir = xasprintf("%s/cache", r->dir);
		int mk = util_mkdir_p(cdir, 0700); /* a resumed run's cache/ may be gone */
		free(cdir);
		if (mk)
			goto done;
		cdir = xasprintf("%s/logs", r->dir); /* and its logs/ (moved without them) */
		mk = util_mkdir_p(cdir, 0755);
		free(cdir);
		if (mk)
			goto done;
		s->cache = xasprintf("%s/cache/u%04" PRId64 "-XXXXXX", r->dir, p->id);
		if (!mkdtemp(s->cache)) {
			error_errno("cannot create the cache directory '%s'", s->cache);
			goto done;
		}
		free(r->cache_of[p->id]);
		r->cache_of[p->id] = xstrdup(s->cache);
	}
	int empty = util_dir_is_empty(s->cache);
	if (empty < 0)
		goto done;
	char *tmp = xasprintf("%s/tmp", s->cache);
	if (mkdir(tmp, 0700) < 0 && errno != EEXIST) {
		error_errno("cannot create '%s'", tmp);
		free(tmp);
		goto done;
	}
	free(tmp);

	/* the results folder: the run folder (journal, logs, the other units' caches) and
	 * the results file beside it; r->dir is absolute (sched_make_dir_absolute) */
	s->protect = xstrndup(r->dir, (size_t)(strrchr(r->dir, '/') - r->dir));
	if (!*s->protect) {
		free(s->protect);
		s->protect = xstrdup("/");
	}
	s->out_log = xasprintf("%s/logs/u%04" PRId64 ".out", r->dir, p->id);
	s->err_log = xasprintf("%s/logs/u%04" PRId64 ".err", r->dir, p->id);
	/* Every unit, the harness's own worker too, is told what to measure by its resolved
	 * specification (written after the emptiness check above: the file is the harness's,
	 * not the unit's cache) */
	const struct mode *m = &r->exp->modes[mi];
	const char *backend = r->mb[mi].entry->name;
	char *spec = unitspec_path(s->cache, p->id);
	struct unitspec_unit su = { .id = p->id, .repeat = p->repeat, .block = p->block,
				    .warm = p->warm, .backend = backend, .run_dir = r->dir,
				    .cache_dir = s->cache, .timeout_s = mode_timeout(r->exp, m),
				    .workload = p->workload,
				    .command = (const char *const *)r->mb[mi].command };
	/* /proc/self/exe, not the path: every unit runs the very binary that started the run,
	 * even if it is rebuilt or replaced meanwhile (the path is in the run metadata). */
	struct unitenv_start us = { .self = "/proc/self/exe", .spec = spec,
				    .command = (const char *const *)r->mb[mi].command,
				    .timed = m->timing == TIMING_PROCESS };
	struct unitenv_unit eu = { .id = p->id, .backend = backend, .cache_dir = s->cache,
				   .spec = spec, .record_fd = PROTO_FD };
	s->argv = unitenv_argv(r->mb[mi].entry, &us, &cause);
	if (!s->argv)
		error("mode '%s': %s", p->mode, cause);
	else if (!unitspec_write(spec, r->exp, m, &su))
		s->env = unitenv_env(r->exp, m, &eu);
	free(spec);
	if (!s->env)
		goto done;
	/* A GPU slot's unit sees its GPU only, by UUID (over the experiment's own setting). */
	if (s->def && r->slots.gpus)
		unitenv_set(&s->env, "CUDA_VISIBLE_DEVICES", s->def->device);

	if (!r->mb[mi].command) {
		/* the harness's own worker shares the run's check folder (HARNESS_CHECK_DIR:
		 * the CUDA backend's reference); external command units may not write it */
		s->check = xasprintf("%s/cache/check", r->dir);
		if (mkdir(s->check, 0700) < 0 && errno != EEXIST) {
			error_errno("cannot create '%s'", s->check);
			goto done;
		}
	}

	struct rec_unit *x = &s->u.unit;
	x->id = p->id;
	x->mode = xstrdup(p->mode);
	x->repeat = p->repeat;
	x->block = p->block;
	x->position = p->position;
	x->warm = p->warm;
	x->cache_dir = xstrdup(s->cache);
	x->cache_dir_empty = empty;
	x->slot = s->def ? (int64_t)s->index : -1;
	x->device = xstrdup(s->def ? s->def->device : "");
	x->cpus = xstrdup(s->def ? s->def->cpus : "");
	x->workload = xstrdup(p->workload ? p->workload : "");
	/* Paths in the file are relative to the results file's folder. */
	const char *base = strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir;
	x->stdout_log = xasprintf("%s/logs/u%04" PRId64 ".out", base, p->id);
	x->stderr_log = xasprintf("%s/logs/u%04" PRId64 ".err", base, p->id);
	x->argv_json = sched_json_strv((const char *const *)s->argv);
	x->env_json = json_env(s->env);

	s->spec = (struct unit_spec){ .id = p->id, .mode = p->mode,
				      .argv = (const char *const *)s->argv,
				      .env = (const char *const *)s->env, .cache_dir = s->cache,
				      .stdout_path = s->out_log, .stderr_path = s->err_log,
				      .protect_dir = s->protect, .check_dir = s->check,
				      .no_sandbox = r->exp->no_sandbox,
				      .timeout_s = mode_timeout(r->exp, m), .block = p->block,
				      .workload = p->workload,
				      .warm = p->warm, .command = r->mb[mi].command != NULL,
				      .expects = m->expects, .limits = r->exp->limits,
				      .note_host = 1 };
	ret = 0;
done:
	free(cause);
	return ret;
}

/* Start slot s's prepared unit, pinned to the slot's cores: the scheduler (one thread)
 * takes the slot's affinity for the fork, so the unit inherits it from its first
 * instruction, and takes its own back.  -1 reported. */
static int unit_launch(struct run *r, struct slot_run *s)
{
	cpu_set_t mine;
	int pinned = 0, rc;
	if (s->def) {
		if (sched_getaffinity(0, sizeof(mine), &mine) < 0 ||
		    sched_setaffinity(0, sizeof(s->def->set), &s->def->set) < 0)
			return error_errno("cannot pin unit %" PRId64 " to the cores %s", s->p->id,
					   s->def->cpus);
		pinned = 1;
	}
	rc = unit_start(&s->spec, &r->prog, &s->u, &s->job);
	if (pinned && sched_setaffinity(0, sizeof(mine), &mine) < 0 && rc == 0) {
		error_errno("cannot restore the harness's own CPU affinity");
		unit_finish(&s->job, 1);
		return -1;
	}
	if (rc == 0) {
		s->running = 1;
		s->noted_ns = util_now_ns(); /* the first running note after a second */
	}
	return rc;
}

/* Slot s's unit has ended (fin: unit_finish's result): record it in the journal, verified,
 * and note it.  0 recorded, 1 stopped (not recorded: --resume runs it again), -1 failed. */
static int unit_complete(struct run *r, struct slot_run *s, int fin)
{
	if (fin)
		return fin;
	struct rec_unit *x = &s->u.unit;
	check_samples(&s->u);
	if (strcmp(x->status, REC_STATUS_OK))
		r->nfailed++;
	/* In the journal, verified, before the slot starts its next unit: the scheduler is the
	 * journal's one writer, whatever runs beside it. */
	if (rec_journal_write_unit(r->jr, &s->u))
		return -1;
	rec_journal_clear_running(r->jr, s->p->id);
	r->done[s->p->id] = 1;
	sched_estimate_note(r, x->mode, x->workload, x->warm, x->wall_ns);
	progress_unit_end(&r->prog, s->p->mode, x->status, x->message);
	return maybe_assemble(r) ? -1 : 0;
}

/* ---- units side by side ---------------------------------------------------------- */

static struct estimate *estimate_entry(struct run *r, const char *mode, const char *workload,
				       int warm)
{
	workload = workload ? workload : "";
	for (size_t i = 0; i < r->nest; i++)
		if (!strcmp(r->est[i].mode, mode) && !strcmp(r->est[i].workload, workload) &&
		    r->est[i].warm == warm)
			return &r->est[i];
	XGROW(r->est, r->est_cap, r->nest + 1);
	struct estimate *e = &r->est[r->nest++];
	memset(e, 0, sizeof(*e));
	e->mode = xstrdup(mode);
	e->workload = xstrdup(workload);
	e->warm = warm;
	return e;
}

void sched_estimate_note(struct run *r, const char *mode, const char *workload, int warm,
			 int64_t wall_ns)
{
	/* a unit recorded without running (a skipped probe: 0 s) says nothing of its length;
	 * counted, it made its kind "0 s", and --max-time started such probes past any budget */
	if (wall_ns <= 0)
		return;
	struct estimate *e = estimate_entry(r, mode, workload, warm);
	if (!e->n || wall_ns > e->max_ns)
		e->max_ns = wall_ns;
	e->n++;
}

void sched_estimate_note_unfinished(struct run *r, const char *mode, const char *workload,
				    int warm, int64_t elapsed_ns)
{
	struct estimate *e = estimate_entry(r, mode, workload, warm);
	if (elapsed_ns > e->unfinished_ns)
		e->unfinished_ns = elapsed_ns;
}

/* --max-time's estimate of how long unit p will take: the longest recorded unit of its
 * mode, workload (unit_scope = "workload": one model's max-autotune is not another's) and
 * kind (cold or warm); for the first of those, the longest of its mode and kind over the
 * workloads; for the first of its mode and kind, the longest recorded unit of any; and never
 * less than the longest a unit of its mode, workload and kind ran without being recorded (a
 * lost session's running note).  With none of these, -1 (unknown: it starts).  "Recorded"
 * counts this run's units and those of --estimates' earlier run (sched_run notes both). */
static int64_t estimate_ns(const struct run *r, const struct rec_plan *p)
{
	int64_t any = -1, mode = -1, exact = -1, lower = 0;
	const char *wl = p->workload ? p->workload : "";
	for (size_t i = 0; i < r->nest; i++) {
		const struct estimate *e = &r->est[i];
		if (!strcmp(e->mode, p->mode) && e->warm == p->warm) {
			if (!strcmp(e->workload, wl)) {
				lower = e->unfinished_ns;
				if (e->n)
					exact = e->max_ns;
			}
			if (e->n && e->max_ns > mode)
				mode = e->max_ns;
		}
		if (e->n && e->max_ns > any)
			any = e->max_ns;
	}
	int64_t est = exact >= 0 ? exact : mode >= 0 ? mode : any;
	return lower > 0 && lower > est ? lower : est;
}

/* 1 when unit p cannot be expected to finish before the --max-time deadline; with its warm
 * probe (probe: the plan entry after it, or NULL), when the two cannot.  A cold unit and its
 * probe start in one session or not at all: the probe needs the cold unit's cache directory,
 * which a session on another machine (a lease, a batch job) does not have, so a cold unit
 * recorded at the budget's end would leave its probe to be skipped at --resume. */
static int past_budget(const struct run *r, const struct rec_plan *p, const struct rec_plan *probe)
{
	if (r->o->max_time_s <= 0)
		return 0;
	/* saturating sums: an estimate near INT64_MAX (a damaged --estimates file, a note
	 * of a unit that ran for ever) stays too long, never wraps into "fits" */
	int64_t deadline = util_add_sat(r->session_ns, util_s_to_ns(r->o->max_time_s));
	int64_t est = estimate_ns(r, p);
	if (est >= 0 && probe && probe->warm && probe->warm_of == p->id) {
		int64_t pe = estimate_ns(r, probe);
		if (pe > 0)
			est = util_add_sat(est, pe);
	}
	return est >= 0 && util_add_sat(util_now_ns(), est) > deadline;
}

/* Give free slot s the next block with units to run: a block pinned to it (a resumed block
 * that already ran part of its units on this slot's device, r->pin) first, else the first
 * block in plan order that is pinned to no slot and not yet dealt (dealt[i]: plan entry i's
 * block has been given to a slot).  0: none left for s. */
static int deal_block(struct run *r, struct slot_run *s, char *dealt)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0, j; i < r->nplan; i = j) {
			int64_t b = r->plan[i].block;
			for (j = i; j < r->nplan && r->plan[j].block == b; j++)
				;
			long pin = r->pin ? r->pin[i] : -1;
			if (dealt[i] || (pass == 0 ? pin != (long)s->index : pin >= 0))
				continue;
			s->nqueue = s->next = 0;
			for (size_t k = i; k < j; k++) {
				dealt[k] = 1;
				if (!r->done[k] && r->mine[k])
					s->queue[s->nqueue++] = k;
			}
			if (s->nqueue) {
				s->block = b;
				return 1;
			}
		}
	}
	s->block = -1;
	return 0;
}

/* Start slot s's next unit, if its block has one and the budget allows it.  0 started or
 * nothing to start, 1 the block's next unit cannot finish within the --max-time budget (the
 * slot may start nothing more of this block: its units run in planned order), -1 failed. */
static int slot_start_next(struct run *r, struct slot_run *s)
{
	while (s->next < s->nqueue) {
		const struct rec_plan *p = &r->plan[s->queue[s->next]];
		const struct rec_plan *probe =
			s->next + 1 < s->nqueue ? &r->plan[s->queue[s->next + 1]] : NULL;
		/* A warm probe right after its cold unit on this slot was budgeted with it
		 * (past_budget): it starts even where the cold unit ran past its estimate, since
		 * its cache directory stays on this machine only (a torch-resnet probe was lost
		 * so on 2026-11-26, its cold unit 122 s against an estimate of 119). */
		int with_cold = p->warm && s->next > 0 &&
				r->plan[s->queue[s->next - 1]].id == p->warm_of;
		if (!with_cold && past_budget(r, p, probe))
			return 1;
		s->next++;
		int pr = unit_prepare(r, s, p);
		if (pr == 2) { /* recorded without running: on to the block's next unit */
			slot_clear(s);
			continue;
		}
		if (pr < 0 || unit_launch(r, s)) {
			slot_clear(s);
			return -1;
		}
		return 0;
	}
	return 0;
}

/* --share-split-blocks: give slot s, which has no block left, units of another slot's
 * block that r->shared marks (its pairs already mix devices): of the units no slot has
 * started, the group, a cold unit with the warm probe planned right after it or a unit
 * alone, that --max-time's estimates make longest (the last of equals), so the run's end
 * is not one slot working through a long block alone.  The owner goes on in planned order
 * without them; a probe whose cold unit the owner started stays with it.  Only a group that
 * fits the --max-time budget is taken.  1 when s got units, 0 when there are none to take. */
static int steal_units(struct run *r, struct slot_run *sl, size_t n, struct slot_run *s)
{
	struct slot_run *from = NULL;
	size_t at = 0, len = 0;
	int64_t best = -1;
	for (size_t k = 0; r->shared && k < n; k++) {
		struct slot_run *t = &sl[k];
		if (t == s || t->next >= t->nqueue || !r->shared[t->queue[t->next]])
			continue;
		for (size_t i = t->next, g; i < t->nqueue; i += g) {
			const struct rec_plan *p = &r->plan[t->queue[i]];
			const struct rec_plan *probe =
				i + 1 < t->nqueue ? &r->plan[t->queue[i + 1]] : NULL;
			g = probe && probe->warm && probe->warm_of == p->id ? 2 : 1;
			if (p->warm && i > 0 && r->plan[t->queue[i - 1]].id == p->warm_of)
				continue; /* the owner's cold unit ran or runs: its probe is the owner's */
			if (past_budget(r, p, probe))
				continue;
			int64_t e = estimate_ns(r, p), pe = g == 2 ? estimate_ns(r, probe) : 0;
			int64_t est = util_add_sat(e > 0 ? e : 0, pe > 0 ? pe : 0);
			if (est >= best) {
				best = est;
				from = t;
				at = i;
				len = g;
			}
		}
	}
	if (!from)
		return 0;
	memcpy(s->queue, from->queue + at, len * sizeof(*s->queue));
	memmove(from->queue + at, from->queue + at + len,
		(from->nqueue - at - len) * sizeof(*from->queue));
	from->nqueue -= len;
	s->nqueue = len;
	s->next = 0;
	s->block = from->block;
	return 1;
}

/* Every second of a running unit, its running note in the journal (its wall time so far):
 * what a session that ends without recording it leaves for the next to estimate from.  A
 * note that cannot be written is reported and the run goes on without notes. */
static void note_running(struct run *r, struct slot_run *s)
{
	int64_t now = util_now_ns();
	if (r->notes_off || now - s->noted_ns < 1000000000)
		return;
	s->noted_ns = now;
	if (rec_journal_note_running(r->jr, s->p->id, now - s->job.t0)) {
		warning("running notes are off for the rest of this session");
		r->notes_off = 1;
	}
}

/* Run this run's units that are not yet recorded: one per slot at a time (one slot, not
 * pinned, without --jobs/--gpus), every unit of a block on one slot in planned order,
 * blocks dealt in plan order to slots as they free up, free slots taken in the drawn order
 * (a resumed block that already ran on a slot's device goes back to that slot: r->pin).
 * The scheduler is the only writer: it records each unit in the journal as it ends.  A
 * stop (signal) kills the running units (not recorded); an infrastructure failure stops
 * the others the same way.  A slot whose block's next unit cannot finish within --max-time
 * leaves that block's rest for --resume and takes a block not yet dealt, and so on until it
 * finds a unit that fits or no block is left; the other slots go on meanwhile (a long unit
 * waiting in one block idles no GPU while units elsewhere fit).  With --share-split-blocks
 * a slot with no block left takes units of a block whose pairs already mix devices from the
 * slot working through it (steal_units).  Returns 0 (*failed,
 * *time_limit say how it ended) or -1 reported. */
int sched_run_slots(struct run *r, const volatile sig_atomic_t *stop, int *failed,
		    int *time_limit)
{
	size_t n = r->slots.n ? r->slots.n : 1, maxq = 0;
	char *dealt = xcalloc(r->nplan + 1, 1);
	for (size_t i = 0, j; i < r->nplan; i = j) {
		for (j = i; j < r->nplan && r->plan[j].block == r->plan[i].block; j++)
			;
		if (j - i > maxq)
			maxq = j - i;
	}
	/* where a unit's sandbox lacks its own /proc, the harness's environment and memory are
	 * still closed to it (sandbox.h) */
	sandbox_hide_self();
	struct slot_run *sl = xcalloc(n, sizeof(*sl));
	for (size_t k = 0; k < n; k++) {
		sl[k].index = r->slots.n ? r->slots.order[k] : 0;
		sl[k].def = r->slots.n ? &r->slots.s[sl[k].index] : NULL;
		sl[k].queue = xcalloc(maxq ? maxq : 1, sizeof(*sl[k].queue));
		sl[k].block = -1;
		rec_unit_data_init(&sl[k].u);
	}
	int halt = 0; /* a stop or a failure: start nothing more and kill what runs */
	for (;;) {
		if (*stop)
			halt = 1;
		/* Free slots (in the drawn order) take their block's next unit or a new block. */
		for (size_t k = 0; k < n && !halt; k++) {
			struct slot_run *s = &sl[k];
			if (s->running || s->dealt_out)
				continue;
			while (!s->running && !halt) {
				if (s->next >= s->nqueue && !deal_block(r, s, dealt) &&
				    !steal_units(r, sl, n, s)) {
					/* sharing: another slot's block may still have units to take */
					s->dealt_out = !r->shared;
					break;
				}
				int st = slot_start_next(r, s);
				if (st < 0) {
					*failed = 1;
					halt = 1;
				} else if (st == 1) { /* the block's rest waits for --resume */
					*time_limit = 1;
					s->nqueue = s->next = 0;
				}
			}
		}
		size_t busy = 0;
		for (size_t k = 0; k < n; k++)
			busy += sl[k].running;
		if (!busy)
			break;
		int wait_ms = (int)(100 / busy);
		for (size_t k = 0; k < n; k++) {
			struct slot_run *s = &sl[k];
			if (!s->running)
				continue;
			int st = unit_step(&s->job, *stop || halt, wait_ms > 5 ? wait_ms : 5);
			if (st == 0) {
				note_running(r, s);
				continue;
			}
			int fin = unit_finish(&s->job, st < 0);
			s->running = 0;
			int c = unit_complete(r, s, fin);
			slot_clear(s);
			if (c == 1) {
				s->nqueue = s->next = 0; /* stopped: the block's rest waits for --resume */
			} else if (c < 0) {
				*failed = 1;
				halt = 1;
			}
		}
	}
	for (size_t k = 0; k < n; k++) {
		rec_unit_data_release(&sl[k].u);
		free(sl[k].queue);
	}
	free(sl);
	free(dealt);
	return 0;
}
