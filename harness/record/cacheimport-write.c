/* cacheimport-write.c: an imported tuning cache (cacheimport.c) checked and written as a
 * results file: one unit that measured every configuration of one op cell, its space listed
 * (docs/import-format.md, "Tuning caches") */
#include "config.h"
#include "harness/record/cacheimport.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/git-version.h"
#include "harness/base/util.h"
#include "kernels/space.h"

static const struct ci *sort_ci; /* the import qsort orders (the import is one thread) */

static size_t ord(const struct ci *c, size_t e, size_t f)
{
	return c->fields[f].order[c->ids[e * c->nfields + f]];
}

/* Grid order: the fields' ordinals, first field slowest. */
static int by_grid(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	for (size_t f = 0; f < sort_ci->nfields; f++) {
		size_t oa = ord(sort_ci, a, f), ob = ord(sort_ci, b, f);
		if (oa != ob)
			return oa < ob ? -1 : 1;
	}
	return 0;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static double median_sorted(const int64_t *v, size_t n)
{
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

static void config_text(const struct ci *c, size_t e, struct sbuf *sb)
{
	for (size_t f = 0; f < c->nfields; f++) {
		const struct ci_field *fd = &c->fields[f];
		size_t o = ord(c, e, f);
		if (fd->kind == SPACE_INT)
			sbuf_addf(sb, "%s%s=%" PRId64, f ? "," : "", fd->name, fd->value[o]);
		else
			sbuf_addf(sb, "%s%s=%s", f ? "," : "", fd->name, fd->label[o]);
	}
}

/* The stored objective against the samples, and the first sample against the rest. */
static void checks(const struct ci *c, const struct cacheimport_opts *o,
		   struct cacheimport_summary *sum)
{
	double tol = o->tolerance > 0 ? o->tolerance : 0.01;
	int64_t *v = xcalloc(1, sizeof(*v));
	size_t vcap = 1;
	for (size_t e = 0; e < c->nentries; e++) {
		const struct ci_entry *x = &c->entries[e];
		if (strcmp(x->status, "ok") || x->n < 2)
			continue;
		XGROW(v, vcap, x->n);
		memcpy(v, c->samples + x->first, x->n * sizeof(*v));
		double mean = 0;
		for (size_t k = 0; k < x->n; k++)
			mean += (double)v[k] / (double)x->n;
		if (isfinite(x->stored_ns) && mean > 0) {
			qsort(v, x->n, sizeof(*v), cmp_i64);
			double med = median_sorted(v, x->n);
			double rel = fabs(x->stored_ns - mean) / mean;
			sum->stored_checked++;
			sum->stored_off += rel > tol;
			sum->stored_mean += rel <= tol;
			sum->stored_median += fabs(x->stored_ns - med) / med <= tol;
			if (rel > sum->stored_worst)
				sum->stored_worst = rel;
			memcpy(v, c->samples + x->first, x->n * sizeof(*v));
		}
		if (x->n >= 5) {
			/* the first sample the largest, and 5% over the rest's median */
			int64_t first = v[0];
			qsort(v + 1, x->n - 1, sizeof(*v), cmp_i64);
			sum->first_checked++;
			sum->first_expected += 1.0 / (double)x->n;
			sum->first_high += first > v[x->n - 1] &&
					   (double)first > 1.05 * median_sorted(v + 1, x->n - 1);
		}
	}
	free(v);
}

/* The one unit's records. */
static void build_unit(const struct ci *c, const size_t *by, const char *mode,
		       const struct cacheimport_opts *o, const char *workload,
		       struct rec_unit_data *d, struct cacheimport_summary *sum)
{
	rec_unit_data_init(d);
	d->unit = (struct rec_unit){
		.id = 0, .mode = xstrdup(mode), .cache_dir = xstrdup(""),
		.status = xstrdup(REC_STATUS_OK), .start_utc = xstrdup(""), .end_utc = xstrdup(""),
		.stdout_log = xstrdup(""), .stderr_log = xstrdup(""), .argv_json = xstrdup("[]"),
		.env_json = xstrdup("{}"), .message = xstrdup(""), .slot = -1,
		.device = xstrdup(c->device ? c->device : o->device ? o->device : ""),
		.cpus = xstrdup(""), .workload = xstrdup(""), .expects_work = 1,
	};
	const char *kernel = c->kernel ? c->kernel : o->kernel ? o->kernel : "kernel";
	const char *shape = c->problem ? c->problem : "";
	d->cells = xcalloc(1, sizeof(*d->cells));
	d->ncells = d->cells_cap = 1;
	d->cells[0] = (struct rec_cell){
		.name = *shape ? xasprintf("%s/%s:%s", workload, kernel, shape)
			       : xasprintf("%s/%s", workload, kernel),
		.kind = xstrdup("op"), .workload = xstrdup(workload), .op = xstrdup(kernel),
		.shape = xstrdup(shape), .count = 1,
	};
	d->trials = xcalloc(c->nentries, sizeof(*d->trials));
	d->ntrials = d->trials_cap = c->nentries;
	d->tsamples = xcalloc(c->nsamples + 1, sizeof(*d->tsamples));
	d->tsamples_cap = c->nsamples + 1;
	int64_t *v = xcalloc(1, sizeof(*v));
	size_t vcap = 1, best = SIZE_MAX;
	double best_ns = INFINITY;
	for (size_t i = 0; i < c->nentries; i++) {
		const struct ci_entry *x = &c->entries[by[i]];
		struct rec_trial *t = &d->trials[i];
		struct sbuf sb;
		sbuf_init(&sb);
		config_text(c, by[i], &sb);
		t->config = sbuf_detach(&sb);
		t->status = xstrdup(x->status);
		t->compile_ns = x->compile_ns > 0 ? x->compile_ns : 0;
		t->bench_ns = x->bench_ns > 0 ? x->bench_ns : 0;
		t->nsamples = (int64_t)x->n;
		t->source_ns = isfinite(x->stored_ns) && x->stored_ns > 0 ? x->stored_ns : -1;
		t->verify_ns = x->verify_ns;
		t->overhead_ns = x->overhead_ns;
		t->median_ns = t->min_ns = t->max_ns = NAN;
		if (x->n) {
			XGROW(v, vcap, x->n);
			memcpy(v, c->samples + x->first, x->n * sizeof(*v));
			qsort(v, x->n, sizeof(*v), cmp_i64);
			t->median_ns = median_sorted(v, x->n);
			t->min_ns = (double)v[0];
			t->max_ns = (double)v[x->n - 1];
		}
		for (size_t k = 0; k < x->n; k++)
			d->tsamples[d->ntsamples++] = (struct rec_trial_sample){
				.trial = (int64_t)i, .index = (int64_t)k,
				.ns = c->samples[x->first + k], .clock_mhz = NAN, .throttle = -1,
				.launches = 1, .clock_reasons = -1,
			};
		d->unit.compile_ns += t->compile_ns;
		d->unit.compiles += x->compile_ns >= 0;
		d->unit.benchmarks += x->n > 0;
		sum->ok += !strcmp(x->status, "ok");
		sum->compile_failed += !strcmp(x->status, "compile-error");
		sum->runtime_failed += !strcmp(x->status, "failed");
		sum->invalid += !strcmp(x->status, "invalid");
		sum->incorrect += !strcmp(x->status, "incorrect");
		if (!strcmp(x->status, "ok") && x->n && t->median_ns < best_ns) {
			best_ns = t->median_ns;
			best = i;
		}
	}
	free(v);
	if (best != SIZE_MAX) {
		d->choices = xcalloc(1, sizeof(*d->choices));
		d->nchoices = d->choices_cap = 1;
		d->choices[0] = (struct rec_choice){ .cell = 0, .config = xstrdup(d->trials[best].config),
						     .reason = xstrdup("tuned") };
		sum->best_ns = best_ns;
		sum->best_config = xstrdup(d->trials[best].config);
	}
	/* the space: every field's values, listed valid points (the trials) */
	double grid = 1;
	size_t nv = 0;
	for (size_t f = 0; f < c->nfields; f++) {
		grid *= (double)c->fields[f].n;
		nv += c->fields[f].n;
	}
	d->spaces = xcalloc(1, sizeof(*d->spaces));
	d->nspaces = d->spaces_cap = 1;
	d->spaces[0] = (struct rec_space){ .cell = 0, .grid = grid < 9.2e18 ? (int64_t)grid : -1,
					   .nvalid = (int64_t)c->nentries, .listed = 1 };
	if (grid < 9.2e18)
		snprintf(sum->grid, sizeof(sum->grid), "%" PRId64, (int64_t)grid);
	else
		snprintf(sum->grid, sizeof(sum->grid), "about %.3g", grid);
	d->svalues = xcalloc(nv + 1, sizeof(*d->svalues));
	d->svalues_cap = nv + 1;
	for (size_t f = 0; f < c->nfields; f++) {
		const struct ci_field *fd = &c->fields[f];
		for (size_t k = 0; k < fd->n; k++) {
			struct rec_space_value *sv = &d->svalues[d->nsvalues++];
			sv->field = (int32_t)f;
			snprintf(sv->name, sizeof(sv->name), "%s", fd->name);
			sv->value = fd->value[k];
			sv->kind = fd->kind;
			snprintf(sv->label, sizeof(sv->label), "%s", fd->label[k]);
		}
	}
}

struct one_unit {
	const struct rec_unit_data *d;
};

static int one_get(void *ctx, size_t i, int headers, struct rec_unit_data *scratch,
		   const struct rec_unit_data **out)
{
	(void)i;
	(void)headers;
	(void)scratch;
	*out = ((struct one_unit *)ctx)->d;
	return 0;
}

/* A workload name from the file's name: its base name up to the first '.'. */
static char *name_of(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strcspn(b, ".");
	return n ? xstrndup(b, n) : xstrdup("cache");
}

int ci_write(struct ci *c, const struct cacheimport_opts *o, const char *out,
	     struct cacheimport_summary *sum)
{
	const char *mode = o->format == CACHE_T4 ? "t4" : "kernel-tuner";
	size_t *by = xcalloc(c->nentries, sizeof(*by));
	for (size_t f = 0; f < c->nfields; f++)
		if (strlen(c->fields[f].name) >= REC_NAME_MAX || !c->fields[f].n) {
			error("'%s': parameter '%s': %s", c->path, c->fields[f].name,
			      c->fields[f].n ? "a name longer than the results file's 31 bytes"
					     : "no values");
			free(by);
			return 2;
		}
	for (size_t e = 0; e < c->nentries; e++)
		by[e] = e;
	sort_ci = c;
	qsort(by, c->nentries, sizeof(*by), by_grid);
	for (size_t e = 1; e < c->nentries; e++)
		if (!by_grid(&by[e - 1], &by[e])) {
			size_t a = c->entries[by[e - 1]].line, b = c->entries[by[e]].line;
			error("'%s':%zu: the configuration of line %zu again", c->path,
			      a > b ? a : b, a < b ? a : b);
			free(by);
			return 2;
		}
	checks(c, o, sum);
	sum->configs = c->nentries;
	sum->fields = c->nfields;
	sum->samples = c->nsamples;

	char *workload = o->name ? xstrdup(o->name) : name_of(c->path);
	struct rec_unit_data d;
	build_unit(c, by, mode, o, workload, &d, sum);
	free(by);

	struct rec_meta meta;
	char t[32], num[64];
	rec_meta_init(&meta);
	util_utc_now(t);
	rec_meta_set(&meta, "harness_version", PACKAGE_VERSION);
	rec_meta_set(&meta, "git_commit", HARNESS_GIT_COMMIT);
	rec_meta_set(&meta, "git_dirty", HARNESS_GIT_DIRTY ? "1" : "0");
	rec_meta_set(&meta, "experiment_name", workload);
	rec_meta_set(&meta, "source", mode);
	rec_meta_set(&meta, "source_path", c->path);
	rec_meta_set(&meta, "source_sha256", c->sha256);
	if (c->format_version)
		rec_meta_set(&meta, "source_schema_version", c->format_version);
	snprintf(num, sizeof(num), "%zu", c->nentries);
	rec_meta_set(&meta, "source_rows", num);
	rec_meta_set(&meta, "source_unit", c->time_unit ? c->time_unit : "milliseconds");
	rec_meta_set(&meta, "source_objective", c->objective ? c->objective : "time");
	rec_meta_set(&meta, "device", d.unit.device);
	rec_meta_set(&meta, "kernel_name", d.cells[0].op);
	rec_meta_set(&meta, "problem_size", d.cells[0].shape);
	rec_meta_set(&meta, "imported_utc", t);
	rec_meta_set(&meta, "baseline", mode);
	rec_meta_set(&meta, "backend", "imported");
	rec_meta_set(&meta, "status", "complete");
	snprintf(num, sizeof(num), "%zu of %zu", sum->stored_off, sum->stored_checked);
	rec_meta_set(&meta, "check_stored_time", num);
	snprintf(num, sizeof(num), "%zu of %zu (at most %.1f by chance)", sum->first_high,
		 sum->first_checked, sum->first_expected);
	rec_meta_set(&meta, "check_first_sample", num);
	struct rec_plan plan = { .id = 0, .mode = (char *)mode, .warm_of = -1,
				 .workload = (char *)"" };
	struct one_unit ou = { &d };
	struct rec_unit_source src = { .n = 1, .get = one_get, .ctx = &ou };
	int ret = rec_write_results(out, 1, &meta, &plan, 1, &src) ? 1 : 0;
	rec_meta_release(&meta);
	rec_unit_data_release(&d);
	free(workload);
	return ret;
}
