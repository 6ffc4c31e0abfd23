/* worker.c: tune then measure, inside one unit process (see worker.h) */
#include "config.h"
#include "harness/run/worker.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness/base/sysinfo.h"
#include "harness/config/lut.h"
#include "harness/record/proto.h"
#include "harness/record/recorder.h"
#include "harness/record/train.h"
#include "harness/run/timeworker.h"
#include "harness/run/unitspec.h"
#include "kernels/backend.h"
#include "kernels/tune.h"
#include "kernels/tuner.h"
#include "stats/stats.h"

/* Where this process sits for NUMA, after its measurement (never inside it): the nodes of
 * the probe's CPUs before and after, and its pages by node (sysinfo.h).  A host-bound unit
 * whose memory sits on another node than its CPU pays for every call's memory traffic. */
static int numa_note(struct proto_out *out, int cpu_before, int cpu_after)
{
	long long pages[64];
	int n = sysinfo_numa_pages(pages, 64);
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_addf(&sb, "host_numa_node_before=%d\nhost_numa_node_after=%d\n",
		  sysinfo_cpu_node(cpu_before), sysinfo_cpu_node(cpu_after));
	if (n > 0) {
		sbuf_adds(&sb, "host_numa_pages=");
		for (int k = 0; k < n; k++)
			sbuf_addf(&sb, "%s%d:%lld", k ? "," : "", k, pages[k]);
		sbuf_adds(&sb, "\n");
	}
	int r = proto_info(out, sb.buf);
	sbuf_release(&sb);
	return r;
}

/* Tries of the host-speed probe before and after the measurement (sysinfo_spin): about
 * 1-3 ms each, the least of them kept. */
#define SPIN_REPS 5

/* Setup-time accounting for the unit (all ns). */
struct setup {
	int64_t compile_ns;  /* compiler time (tuning and final prepares) */
	int64_t bench_ns;    /* timing candidates during tuning */
	int64_t check_ns;    /* reference checks */
	int64_t tuning_ns;   /* wall time of the whole tuning phase */
	int64_t benchmarks;  /* candidates timed */
	int64_t duels, duels_won, duel_ns; /* accept = "paired" (kernels/tune.h) */
};

struct wk {
	const struct worker_args *a;
	const struct unitspec *spec; /* what to do: backend, tuner, workloads, measure, ... */
	const struct tuner_ops *tuner;
	const struct backend_ops *bops;
	struct backend *b;
	struct tuner_lut *lut;     /* the lut tuner's table (the run folder's copy), or NULL */
	struct tuner_train *train; /* model-topk's training data, or NULL */
	struct proto_out out;
	struct setup setup;
	char *verdict;       /* the unit's own status, REC_STATUS_* (static string) */
	char *message;       /* heap, why it is not ok */
	int planned;         /* every cell's plan went to the backend before tuning (plan_unit) */
};

static void set_verdict(struct wk *w, const char *status, char *msg)
{
	if (strcmp(w->verdict, REC_STATUS_OK)) {
		free(msg); /* keep the first problem */
		return;
	}
	w->verdict = (char *)status;
	free(w->message);
	w->message = msg;
}

static const char *prepare_status_name(enum prepare_status s)
{
	switch (s) {
	case PREPARE_OK: return "ok";
	case PREPARE_COMPILE_ERROR: return "compile-error";
	case PREPARE_INCORRECT: return "incorrect";
	}
	return "failed";
}

/* Take `count` samples of cell i into s[]; returns 0 or -1 reported. */
static int take_samples(struct wk *w, size_t i, int64_t count, struct sample *s)
{
	for (int64_t k = 0; k < count; k++) {
		char *cause = NULL;
		s[k] = (struct sample)SAMPLE_INIT;
		if (w->bops->sample(w->b, i, w->spec->measure.flush, &s[k], &cause)) {
			error("cell '%s': %s", w->bops->cell(w->b, i)->name, cause);
			free(cause);
			return -1;
		}
	}
	return 0;
}

/* The live measurer the tuning driver calls (kernels/tune.h): the backend prepares config
 * c of op cell i and, when the tuner benchmarks, times it. */
struct live {
	struct wk *w;
	size_t i;
	const struct space *s;
};

static int live_trial(void *ctx, const struct config *c, int64_t n, struct tune_trial *out,
		      char **cause)
{
	struct live *l = ctx;
	struct wk *w = l->w;
	struct prepare_result res = { 0 };
	char *why = NULL;
	if (w->bops->prepare(w->b, l->i, c, &res, &why)) {
		struct sbuf cfg;
		sbuf_init(&cfg);
		config_format(l->s, c, &cfg);
		*cause = xasprintf("config '%s': %s", cfg.buf, why);
		sbuf_release(&cfg);
		free(why);
		prepare_result_release(&res);
		return -1;
	}
	out->status = res.status == PREPARE_OK ? TRIAL_OK
		      : res.status == PREPARE_COMPILE_ERROR ? TRIAL_COMPILE_ERROR
							    : TRIAL_INCORRECT;
	out->cache_hit = res.cache_hit;
	out->compile_ns = res.compile_ns;
	out->check_ns = res.check_ns;
	out->detail = res.detail;
	res.detail = NULL;
	prepare_result_release(&res);
	if (out->status != TRIAL_OK || n <= 0)
		return 0;
	out->samples = xmalloc((size_t)n * sizeof(*out->samples));
	int64_t t0 = util_now_ns();
	if (take_samples(w, l->i, n, out->samples)) {
		*cause = xstrdup("sampling failed");
		return -1;
	}
	out->bench_ns = util_now_ns() - t0;
	out->nsamples = (size_t)n;
	return 0;
}

/* Emit the trial record (with every sample of the trial). */
static int live_record(void *ctx, const struct config *c, const struct tune_trial *t,
		       double median_ns, char **cause)
{
	struct live *l = ctx;
	struct wk *w = l->w;
	struct sbuf cfg;
	sbuf_init(&cfg);
	config_format(l->s, c, &cfg);
	struct rec_trial rt = { .cell = (int64_t)l->i, .config = cfg.buf,
				.status = (char *)trial_status_name(t->status),
				.cache_hit = t->cache_hit, .compile_ns = t->compile_ns,
				.nsamples = (int64_t)t->nsamples, .median_ns = median_ns,
				.min_ns = NAN, .max_ns = NAN, .bench_ns = t->bench_ns };
	for (size_t k = 0; k < t->nsamples; k++) {
		double v = (double)sample_exec_ns(t->samples[k].ns, t->samples[k].launches);
		if (!k || v < rt.min_ns)
			rt.min_ns = v;
		if (!k || v > rt.max_ns)
			rt.max_ns = v;
	}
	if (t->detail)
		fprintf(stderr, "trial %s on '%s': %s: %s\n", cfg.buf,
			w->bops->cell(w->b, l->i)->name, rt.status, t->detail);
	int r = proto_trial(&w->out, &rt, t->samples, t->nsamples);
	sbuf_release(&cfg);
	if (r)
		*cause = xstrdup("cannot write the trial record");
	return r;
}

/* Record op cell i's config space: fields and values, vendor candidates, and the grid
 * points its constraint excludes, with why (docs/results-format.md, /spaces). */
static int proto_space_of(struct wk *w, size_t i, const struct space *s)
{
	struct rec_space sp = { .cell = (int64_t)i, .grid = (int64_t)space_grid_size(s) };
	struct rec_space_value *v = NULL;
	struct rec_space_vendor *vd = NULL;
	struct rec_space_invalid *inv = NULL;
	size_t nv = 0, nvd = space_nvendors(s), ninv = 0, cap = 0;
	for (size_t f = 0; f < s->nfields; f++)
		nv += s->fields[f].nvalues;
	v = xcalloc(nv ? nv : 1, sizeof(*v));
	nv = 0;
	for (size_t f = 0; f < s->nfields; f++)
		for (size_t k = 0; k < s->fields[f].nvalues; k++) {
			v[nv].field = (int32_t)f;
			snprintf(v[nv].name, sizeof(v[nv].name), "%s", s->fields[f].name);
			v[nv++].value = s->fields[f].values[k];
		}
	vd = xcalloc(nvd ? nvd : 1, sizeof(*vd));
	for (size_t k = 0; k < nvd; k++) {
		struct config c;
		struct sbuf sb;
		sbuf_init(&sb);
		space_vendor_point(s, k, &c);
		config_format(s, &c, &sb);
		vd[k].candidate = (int32_t)k;
		snprintf(vd[k].config, sizeof(vd[k].config), "%s", sb.buf);
		sbuf_release(&sb);
	}
	if (sp.grid > REC_MAX_POINTS) {
		sp.nvalid = -1;
	} else {
		struct space_walk walk;
		space_walk_init(s, &walk);
		for (size_t p = 0; p < (size_t)sp.grid; p++) {
			struct config c;
			const char *why = "excluded";
			if (space_walk_next(s, &walk, &c, NULL))
				break;
			if (space_check_grid(s, &c, &why)) {
				sp.nvalid++;
				continue;
			}
			/* a run of excluded points for one reason is one entry: at stop 65 the GPU
			 * main job's 45 op cells excluded 572,379 points a unit in 24,440 runs, and
			 * a point an entry made its results file 24 M rows of them */
			if (ninv && inv[ninv - 1].point + inv[ninv - 1].count == (int64_t)p &&
			    !strncmp(inv[ninv - 1].why, why, sizeof(inv[ninv - 1].why) - 1)) {
				inv[ninv - 1].count++;
				continue;
			}
			XGROW(inv, cap, ninv + 1);
			memset(&inv[ninv], 0, sizeof(*inv));
			inv[ninv].point = (int64_t)p;
			inv[ninv].count = 1;
			snprintf(inv[ninv].why, sizeof(inv[ninv].why), "%s", why);
			ninv++;
		}
	}
	int r = proto_space(&w->out, &sp, v, nv, vd, nvd, inv, ninv);
	free(v);
	free(vd);
	free(inv);
	return r;
}

/* The tuners' view of the backend's estimate of op cell i (tuner_args.estimate). */
struct wk_estimate {
	const struct backend_ops *ops;
	const struct backend *b;
	size_t i;
};

static double wk_estimate(const void *ctx, const struct config *c)
{
	const struct wk_estimate *e = ctx;
	return e->ops->estimate(e->b, e->i, c);
}

/* The tuner's arguments for op cell i (id and est: storage they point into). */
static void cell_args(struct wk *w, size_t i, struct tuner_cell *id, struct wk_estimate *est,
		      struct tuner_args *ta)
{
	const struct cell *cell = w->bops->cell(w->b, i);
	*id = (struct tuner_cell){ .name = cell->name, .op = cell->op, .shape = cell->shape };
	*ta = (struct tuner_args){ .space = w->bops->space(w->b, i), .cell = id,
				   .options = w->spec->options, .noptions = w->spec->noptions,
				   .seed = w->spec->seed ^ (uint64_t)i, .lut = w->lut,
				   .train = w->train };
	*est = (struct wk_estimate){ .ops = w->bops, .b = w->b, .i = i };
	if (w->bops->estimate) {
		ta->estimate = wk_estimate;
		ta->estimate_ctx = est;
	}
}

/* Every op cell's plan (the configs its tuner will propose, known before it measures
 * anything: kernels/tune.h, tune_plan) to the backend at once, in the order the cells will
 * be tuned, so that it compiles the whole unit's configs on its pool without draining it
 * between cells: vendor points, heuristic picks and exhaustive walks of different cells
 * compile side by side.  Nothing when the backend cannot compile ahead or the tuner has
 * no plan (its proposals depend on what it measures). */
static void plan_unit(struct wk *w)
{
	size_t ncells = w->bops->ncells(w->b);
	if (!w->bops->prepare_ahead || !w->tuner->plan)
		return;
	struct config *plan = xmalloc(TUNE_AHEAD_MAX * sizeof(*plan));
	for (size_t i = 0; i < ncells; i++) {
		if (w->bops->cell(w->b, i)->kind != CELL_OP)
			continue;
		struct tuner_cell id;
		struct wk_estimate est;
		struct tuner_args ta;
		cell_args(w, i, &id, &est, &ta);
		size_t n = tune_plan(w->tuner, &ta, plan, TUNE_AHEAD_MAX);
		if (n)
			w->bops->prepare_ahead(w->b, i, plan, n);
	}
	free(plan);
	w->planned = 1;
}

/* Tune op cell i with the mode's tuner through the driver and make the chosen config
 * current. */
static int tune_one(struct wk *w, size_t i)
{
	const struct space *s = w->bops->space(w->b, i);
	const struct cell *cell = w->bops->cell(w->b, i);
	struct tuner_cell id;
	struct wk_estimate est;
	struct tuner_args ta;
	cell_args(w, i, &id, &est, &ta);
	struct live l = { .w = w, .i = i, .s = s };
	/* no ahead(): plan_unit gave the backend every cell's plan before the first was tuned */
	struct tune_measurer m = { .ctx = &l, .trial = live_trial, .record = live_record };
	struct tune_result tr;
	char *cause = NULL;
	int ret = -1;

	if (proto_space_of(w, i, s))
		return -1;
	int64_t t0 = util_now_ns();
	if (tune_cell(w->tuner, &ta, w->spec->measure.trial_samples, &m, &tr, &cause)) {
		error("cell '%s': %s", cell->name, cause);
		free(cause);
		return -1;
	}
	/* progress in the unit's log: where a long search spends its time, even if the unit
	 * is stopped before it records anything */
	fprintf(stderr, "tuned '%s': %" PRId64 " trials in %.3f s (compile %.3f s, check %.3f s, "
		"benchmark %.3f s)\n", cell->name, tr.ntrials, (double)(util_now_ns() - t0) / 1e9,
		(double)tr.compile_ns / 1e9, (double)tr.check_ns / 1e9, (double)tr.bench_ns / 1e9);
	w->setup.compile_ns += tr.compile_ns;
	w->setup.check_ns += tr.check_ns;
	w->setup.bench_ns += tr.bench_ns;
	w->setup.benchmarks += tr.benchmarks;
	w->setup.duels += tr.duels;
	w->setup.duels_won += tr.duels_won;
	w->setup.duel_ns += tr.duel_ns;
	if (tr.reason == TUNE_NONE) {
		set_verdict(w, REC_STATUS_INCORRECT,
			    xasprintf("cell '%s': none of %" PRId64 " configs passed the check",
				      cell->name, tr.ntrials));
		return 0;
	}
	if (tr.note[0]) {
		/* how the tuner chose (a lookup table's entry, or why it fell back), on one line;
		 * and, where the tuner says the choice is its fallback, the cell on a line of its
		 * own (the audit's tuner-fallback check) */
		for (char *q = tr.note; *q; q++)
			if (*q == '\n')
				*q = ' ';
		char *note = xasprintf("tuner_note=%s: %s\n%s%s%s", cell->name, tr.note,
				       tr.fell_back ? "tuner_fallback=" : "",
				       tr.fell_back ? cell->name : "", tr.fell_back ? "\n" : "");
		int r = proto_info(&w->out, note);
		free(note);
		if (r)
			return -1;
	}
	if (tr.reason == TUNE_FALLBACK_VENDOR)
		fprintf(stderr, "cell '%s': no usable config; falling back to the vendor path\n",
			cell->name);
	struct prepare_result res = { 0 };
	if (w->bops->prepare(w->b, i, &tr.best, &res, &cause)) {
		error("cell '%s': %s", cell->name, cause);
		free(cause);
		return -1;
	}
	w->setup.compile_ns += res.compile_ns;
	w->setup.check_ns += res.check_ns;
	struct sbuf cfg;
	sbuf_init(&cfg);
	config_format(s, &tr.best, &cfg);
	if (res.status != PREPARE_OK)
		set_verdict(w, res.status == PREPARE_COMPILE_ERROR ? REC_STATUS_COMPILE_ERROR
								   : REC_STATUS_INCORRECT,
			    xasprintf("cell '%s': chosen config '%s': %s", cell->name, cfg.buf,
				      res.detail ? res.detail : prepare_status_name(res.status)));
	prepare_result_release(&res);
	struct rec_choice ch = { .cell = (int64_t)i, .config = cfg.buf,
				 .reason = (char *)tune_reason_name(tr.reason) };
	ret = proto_choice(&w->out, &ch);
	sbuf_release(&cfg);
	return ret;
}

/* Measure cell i: warm-up by time and count, then samples until a stop rule fires. */
static int measure_cell(struct wk *w, size_t i)
{
	const struct measure_settings *ms = &w->spec->measure;
	int64_t t0 = util_now_ns();
	int64_t warm_n = 0;
	struct sample one;
	while (warm_n < ms->warmup_count || (double)(util_now_ns() - t0) < ms->warmup_s * 1e9) {
		if (take_samples(w, i, 1, &one))
			return -1;
		warm_n++;
		if (warm_n >= ms->max_samples && (double)(util_now_ns() - t0) > ms->max_time_s * 1e9)
			break; /* a cell slower than the whole budget: stop warming */
	}
	int64_t warm_ns = util_now_ns() - t0;

	size_t cap = (size_t)ms->max_samples;
	struct sample *smp = xmalloc(cap * sizeof(*smp));
	int64_t *sample = xmalloc(cap * sizeof(*sample));
	double *x = xmalloc(cap * sizeof(*x)), *work = xmalloc(cap * sizeof(*work));
	const char *stop = "max-samples";
	double relse = NAN;
	size_t n = 0, next_check = (size_t)ms->min_samples;
	int64_t s0 = util_now_ns();
	int ret = -1;
	while (n < cap) {
		if (take_samples(w, i, 1, &smp[n]))
			goto done;
		sample[n] = smp[n].ns;
		n++;
		if (n >= next_check) {
			struct stats_summary s;
			stats_from_ns(sample, n, x);
			stats_summarize(x, 1, n, work, &s);
			relse = stats_median_rel_se(&s);
			/* re-check after each 5% more samples: O(n log n) per check stays cheap */
			next_check = n + (n / 20 > 0 ? n / 20 : 1);
			if (isfinite(relse) && relse <= ms->target_rel_precision) {
				stop = "precision";
				break;
			}
		}
		if (n >= (size_t)ms->min_samples &&
		    (double)(util_now_ns() - s0) >= ms->max_time_s * 1e9) {
			stop = "max-time";
			break;
		}
	}
	if (n >= 4) {
		struct stats_summary s;
		stats_from_ns(sample, n, x);
		stats_summarize(x, 1, n, work, &s);
		relse = stats_median_rel_se(&s);
	}
	if (proto_samples(&w->out, (int64_t)i, 0, smp, n))
		goto done;
	struct rec_measure m = { .cell = (int64_t)i, .nsamples = (int64_t)n, .stop = (char *)stop,
				 .warmup_n = warm_n, .warmup_ns = warm_ns, .rel_precision = relse };
	ret = proto_measure(&w->out, &m);
done:
	free(smp);
	free(sample);
	free(x);
	free(work);
	return ret;
}

static void inject_fault(struct wk *w)
{
	switch (w->spec->fault) {
	case FAULT_NONE:
		return;
	case FAULT_CRASH:
		fflush(w->out.f);
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		return;
	case FAULT_HANG:
		fflush(w->out.f);
		for (;;)
			pause();
	case FAULT_EXIT:
		fflush(w->out.f);
		fprintf(stderr, "fault injected: exiting with status 3\n");
		_exit(3);
	case FAULT_BAD_RECORD:
		proto_garbage(&w->out);
		return;
	}
}

static int emit_cells(struct wk *w)
{
	for (size_t i = 0; i < w->bops->ncells(w->b); i++) {
		const struct cell *c = w->bops->cell(w->b, i);
		struct rec_cell rc = { .name = c->name, .kind = c->kind == CELL_E2E ? "e2e" : "op",
				       .workload = c->workload, .op = c->op, .shape = c->shape,
				       .count = c->count, .flops = c->flops };
		if (proto_cell(&w->out, (int64_t)i, &rc))
			return -1;
	}
	return 0;
}

int worker_main(const struct worker_args *a)
{
	struct unitspec *spec = NULL;
	struct wk w = { .a = a, .verdict = REC_STATUS_OK };
	char *cause = NULL;
	int ret = 1;
	int64_t t_start = util_now_ns(), t_tuned = 0, t_checked = 0, t_measured = 0;

	/* A unit must not outlive its scheduler (kill -9 of the harness). */
	pid_t parent = getppid();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		return 1;
	if (proto_out_open(&w.out, a->record_fd))
		return 1;
	if (unitspec_read(a->spec, &spec))
		goto done;
	if (spec->timing == TIMING_PROCESS) {
		/* a command mode the harness times itself: its own done record, or none */
		ret = timeworker_run(spec, &w.out) ? 1 : 0;
		if (!ret)
			goto closed;
		goto done;
	}
	w.spec = spec;
	w.tuner = tuner_find(spec->tuner);
	w.bops = backend_find(spec->backend);
	if (!w.tuner || !w.bops) {
		error("'%s': unknown %s '%s'", a->spec, w.tuner ? "backend" : "tuner",
		      w.tuner ? spec->backend : spec->tuner);
		goto done;
	}
	if (proto_hello(&w.out, spec->mode, spec->unit, spec->backend))
		goto done;
	inject_fault(&w);

	struct backend_ctx ctx = { .cache_dir = spec->cache_dir, .kernel_dir = backend_kernel_dir(),
				   .threads = spec->measure.threads, .seed = spec->seed,
				   .unit = spec->unit };
	w.b = w.bops->open(&ctx, &cause);
	if (!w.b) {
		error("cannot open the '%s' backend: %s", spec->backend, cause);
		goto done;
	}
	size_t added = 0;
	for (size_t k = 0; k < spec->nworkloads; k++) {
		const struct workload *wl = &spec->workloads[k];
		if (spec->workload && strcmp(wl->name, spec->workload))
			continue;
		if (w.bops->add_workload(w.b, wl, &cause)) {
			error("workload '%s': %s", wl->name, cause);
			goto done;
		}
		added++;
	}
	if (!added) {
		error("'%s': no workload to run%s%s%s on backend '%s'", a->spec,
		      spec->workload ? " (it names workload '" : "",
		      spec->workload ? spec->workload : "", spec->workload ? "')" : "", spec->backend);
		goto done;
	}
	if (spec->lut) {
		/* the lookup table: one that cannot be read is kept as the table's error, and the
		 * tuner falls back to the heuristic, saying why */
		w.lut = xcalloc(1, sizeof(*w.lut));
		lut_read(spec->lut, spec->lut, w.lut);
	}
	struct sbuf info;
	sbuf_init(&info);
	w.bops->describe(w.b, &info);
	int r = proto_info(&w.out, info.buf);
	sbuf_release(&info);
	if (!r && w.lut) {
		/* the lookup table's provenance: the run folder's copy, and its SHA-256 */
		char *lut = xasprintf("lut_table=%s\nlut_sha256=%s\nlut_entries=%zu\n",
				      w.lut->path, w.lut->sha256, w.lut->n);
		r = proto_info(&w.out, lut);
		free(lut);
	}
	if (!r && spec->ntrain) {
		/* model-topk's training data (the run folder's copies) and its provenance; a
		 * file that cannot be read leaves the tuner without a model, which it says */
		struct sbuf prov;
		sbuf_init(&prov);
		w.train = xcalloc(1, sizeof(*w.train));
		for (size_t k = 0; k < spec->ntrain && !w.train->error; k++)
			if (rec_train_read(spec->train[k], w.train))
				w.train->error = xasprintf("cannot read '%s'", spec->train[k]);
		for (size_t k = 0; k < w.train->nfiles; k++)
			sbuf_addf(&prov, "model_train_file=%s\nmodel_train_sha256=%s\n"
				  "model_train_trials=%zu\n", w.train->files[k], w.train->sha256[k],
				  w.train->ntrials[k]);
		if (w.train->error)
			sbuf_addf(&prov, "model_train_error=%s\n", w.train->error);
		r = proto_info(&w.out, prov.buf);
		sbuf_release(&prov);
	}
	if (r || emit_cells(&w))
		goto done;

	/* Tuning: every op cell, in declared order, their plans compiled ahead together. */
	size_t ncells = w.bops->ncells(w.b);
	int64_t t0 = util_now_ns();
	plan_unit(&w);
	for (size_t i = 0; i < ncells && !strcmp(w.verdict, REC_STATUS_OK); i++)
		if (w.bops->cell(w.b, i)->kind == CELL_OP && tune_one(&w, i))
			goto done;
	if (w.planned) /* the unit's plans are over: what was not started is not needed */
		w.bops->prepare_ahead(w.b, 0, NULL, 0);
	t_tuned = util_now_ns();
	w.setup.tuning_ns = t_tuned - t0;

	/* e2e cells run the forward built from the op cells' chosen configs. */
	for (size_t i = 0; i < ncells && !strcmp(w.verdict, REC_STATUS_OK); i++) {
		if (w.bops->cell(w.b, i)->kind != CELL_E2E)
			continue;
		struct prepare_result res = { 0 };
		if (w.bops->prepare(w.b, i, NULL, &res, &cause)) {
			error("cell '%s': %s", w.bops->cell(w.b, i)->name, cause);
			goto done;
		}
		if (res.status != PREPARE_OK)
			set_verdict(&w, REC_STATUS_INCORRECT,
				    xasprintf("cell '%s': %s", w.bops->cell(w.b, i)->name,
					      res.detail ? res.detail : "failed its check"));
		prepare_result_release(&res);
	}

	/* The core's speed for host code, just before and just after the timed regions (never
	 * inside them): a slow process's core, or its code (sysinfo.h)? */
	t_checked = util_now_ns();
	struct sysinfo_spin spin0, spin1;
	sysinfo_spin(SPIN_REPS, &spin0);
	/* and its page faults over the timed regions (all its threads', the driver's too): a
	 * library that maps and unmaps memory on every call pays for it there */
	struct rusage ru0, ru1;
	int ru_ok = !getrusage(RUSAGE_SELF, &ru0);
	int64_t t_measure0 = util_now_ns();

	/* Measurement. */
	for (size_t i = 0; i < ncells && !strcmp(w.verdict, REC_STATUS_OK); i++)
		if (measure_cell(&w, i))
			goto done;
	t_measured = util_now_ns();
	ru_ok = ru_ok && !getrusage(RUSAGE_SELF, &ru1);
	sysinfo_spin(SPIN_REPS, &spin1);

	/* Where the unit's own time went, for the overhead accounting (docs/BENCHMARKS.md). */
	char *phases = xasprintf("phase_start_ns=%" PRId64 "\nphase_tune_ns=%" PRId64
				 "\nphase_e2e_check_ns=%" PRId64 "\nphase_measure_ns=%" PRId64 "\n",
				 t0 - t_start, t_tuned - t0, t_checked - t_tuned,
				 t_measured - t_measure0);
	r = proto_info(&w.out, phases);
	free(phases);
	if (!r) {
		char *spin = xasprintf("host_spin_ns_before=%lld\nhost_spin_cpu_before=%d\n"
				       "host_spin_ns_after=%lld\nhost_spin_cpu_after=%d\n",
				       spin0.ns, spin0.cpu, spin1.ns, spin1.cpu);
		r = proto_info(&w.out, spin);
		free(spin);
	}
	if (!r && ru_ok) {
		char *faults = xasprintf("host_measure_minor_faults=%ld\n"
					 "host_measure_major_faults=%ld\n",
					 ru1.ru_minflt - ru0.ru_minflt, ru1.ru_majflt - ru0.ru_majflt);
		r = proto_info(&w.out, faults);
		free(faults);
	}
	if (!r)
		r = numa_note(&w.out, spin0.cpu, spin1.cpu);
	if (!r && w.setup.duels) {
		char *duels = xasprintf("accept_duels=%" PRId64 "\naccept_duels_won=%" PRId64
					"\naccept_duel_ns=%" PRId64 "\n", w.setup.duels,
					w.setup.duels_won, w.setup.duel_ns);
		r = proto_info(&w.out, duels);
		free(duels);
	}
	if (r)
		goto done;
	if (w.bops->describe_end) {
		struct sbuf end;
		sbuf_init(&end);
		w.bops->describe_end(w.b, &end);
		r = end.len ? proto_info(&w.out, end.buf) : 0;
		sbuf_release(&end);
		if (r)
			goto done;
	}

	struct backend_counters bc = { 0 };
	w.bops->counters(w.b, &bc);
	/* Search overhead: the rest of the tuning phase (proposing, checking each config against
	 * the float64 reference, bookkeeping). */
	int64_t search = w.setup.tuning_ns - w.setup.compile_ns - w.setup.bench_ns;
	struct rec_unit u = { .compile_ns = bc.compile_ns, .tune_ns = w.setup.bench_ns,
			      .search_ns = search > 0 ? search : 0, .compiles = bc.compiles,
			      .cache_hits = bc.cache_hits, .benchmarks = w.setup.benchmarks,
			      .expects_work = w.tuner->flags != 0 };
	if (proto_setup(&w.out, &u))
		goto done;
	if (proto_done(&w.out, w.verdict, w.message ? w.message : ""))
		goto done;
	ret = 0;
done:
	if (ret && w.out.f)
		proto_done(&w.out, "failed", cause ? cause : "the worker failed; see its stderr log");
closed:
	free(cause);
	free(w.message);
	if (w.b)
		w.bops->close(w.b);
	if (proto_out_close(&w.out))
		ret = 1;
	if (w.train)
		tuner_train_release(w.train);
	free(w.train);
	if (w.lut)
		tuner_lut_release(w.lut);
	free(w.lut);
	unitspec_free(spec);
	return ret;
}
