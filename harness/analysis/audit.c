/* audit.c: `harness audit`'s checks of the design (audit.h, docs/audit.md): identity probes,
 * the backend and cache isolation, then the driver that runs every check (audit-checks.c
 * has the rest; harness/output/audit-write.c writes them) */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_sf_gamma.h>
#include <jansson.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/audit.h"
#include "harness/analysis/audit-gpu.h"
#include "harness/analysis/hyp.h"
#include "harness/analysis/audit-check.h"
#include "harness/record/recorder.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"
#include "harness/config/unitenv.h"
#include "kernels/backend.h"

/* identity's level for "their timings differ" (p adjusted in its family): identical configs
 * time alike, so excusing them takes strong evidence; at the run's 0.05 a planted inactive
 * tuner read WARN in 3 of 60 runs (p 0.010-0.022; docs/audit.md) */
#define IDENTITY_ALPHA 0.001

const char *audit_status_name(enum audit_status s)
{
	return s == AUDIT_FAIL ? "FAIL" : s == AUDIT_WARN ? "WARN" : "PASS";
}

/* ---- building checks ------------------------------------------------------------------ */

struct audit_check *audit_add(struct audit *a, const char *id, const char *title)
{
	a->checks = xrealloc(a->checks, (a->nchecks + 1) * sizeof(*a->checks));
	struct audit_check *k = &a->checks[a->nchecks++];
	memset(k, 0, sizeof(*k));
	k->id = id;
	k->title = title;
	return k;
}

/* Raise the check's status to at least s (findings only ever make it worse). */
void audit_raise(struct audit_check *k, enum audit_status s)
{
	if (s > k->status)
		k->status = s;
}

void audit_summary(struct audit_check *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(k->summary);
	k->summary = xvasprintf(fmt, ap);
	va_end(ap);
}

void audit_ev(struct audit_check *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	XGROW(k->evidence, k->evidence_cap, k->nevidence + 1);
	k->evidence[k->nevidence++] = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Add s to a set of names (no duplicates). */
static void name_add(char ***v, size_t *n, size_t *cap, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return;
	XGROW(*v, *cap, *n + 1);
	(*v)[(*n)++] = xstrdup(s);
}

void audit_mode(struct audit_check *k, const char *m)
{
	name_add(&k->modes, &k->nmodes, &k->modes_cap, m);
}

/* A check may name many cells (every cell of a run with 100,000): their set is kept by a
 * hash index, not by comparing each new name with every earlier one. */
void audit_cell(struct audit_check *k, const char *c)
{
	for (; k->cells_indexed < k->ncells; k->cells_indexed++)
		hashindex_add(&k->cells_ix,
				    hashindex_str(k->cells[k->cells_indexed], HASHINDEX_SEED),
				    k->cells_indexed);
	uint64_t h = hashindex_str(c, HASHINDEX_SEED);
	for (size_t i = k->cells_ix.cap ? h & (k->cells_ix.cap - 1) : 0;
	     k->cells_ix.cap && k->cells_ix.slot[i]; i = (i + 1) & (k->cells_ix.cap - 1))
		if (k->cells_ix.hash[i] == h && !strcmp(k->cells[k->cells_ix.slot[i] - 1], c))
			return;
	XGROW(k->cells, k->cells_cap, k->ncells + 1);
	k->cells[k->ncells++] = xstrdup(c);
}

void audit_unit(struct audit_check *k, int64_t id)
{
	for (size_t i = 0; i < k->nunits; i++)
		if (k->units[i] == id)
			return;
	XGROW(k->units, k->units_cap, k->nunits + 1);
	k->units[k->nunits++] = id;
}

static int is_ok(const struct rec_unit *u)
{
	return u->status && !strcmp(u->status, REC_STATUS_OK);
}

/* The smallest two-sided p a comparison's test can give: the t test, none (0) once it has a
 * CI (2 pairs, or 2 units a side); an exact rank test, all n signs alike for the paired
 * Wilcoxon signed-rank test, 2 / 2^n, complete separation for the Mann-Whitney test of n
 * and n_base units, 2 / C(n + n_base, n).  Ties only raise it. */
static double p_floor(const struct stats_comparison *s)
{
	double p;
	if (s->test != STATS_TEST_RANK)
		return s->ci_short ? 1 : 0;
	if (s->paired)
		p = 2.0 * pow(0.5, (double)s->n);
	else
		p = 2.0 / exp(gsl_sf_lnchoose((unsigned)(s->n + s->n_base), (unsigned)s->n));
	return p > 1 ? 1 : p;
}

/* The smallest p floor over the ok comparisons of a family (1 when none is ok). */
double audit_family_floor(const struct rep_cmp *cmp, size_t n, size_t *nok)
{
	double best = 1;
	*nok = 0;
	for (size_t i = 0; i < n; i++) {
		if (!cmp[i].ok)
			continue;
		(*nok)++;
		double p = p_floor(&cmp[i].c);
		if (p < best)
			best = p;
	}
	return best;
}

static int decisive(enum stats_verdict v)
{
	return v == VERDICT_FASTER || v == VERDICT_SLOWER;
}

/* ---- identity probes ------------------------------------------------------------------ */

/* A report with mode m as the baseline, built once and kept. */
static const struct report *report_against(struct ctx *c, size_t m)
{
	if (m == c->rep->baseline)
		return c->rep;
	if (!c->by_ref[m]) {
		struct report_opts o = c->o;
		o.baseline = c->an->modes[m];
		if (report_build(c->an, &o, &c->by_ref[m]))
			return NULL;
	}
	return c->by_ref[m];
}

/* The comparison of mode x against mode ref in cell (an analysis cell), or NULL: where the
 * report's baseline is ref, at its place (report_cmp_index), else looked for. */
static const struct rep_cmp *find_cmp(const struct report *r, size_t x, size_t ref, size_t cell)
{
	if (ref == r->baseline && x != ref && x < r->a->nmodes && cell < r->a->ncells &&
	    report_cmp_index(r, cell, x) < r->ncmp) {
		const struct rep_cmp *q = &r->cmp[report_cmp_index(r, cell, x)];
		if (q->mode == x && q->ref == ref && q->cell == cell)
			return q;
	}
	for (size_t i = 0; i < r->ncmp; i++)
		if (r->cmp[i].mode == x && r->cmp[i].ref == ref && r->cmp[i].cell == cell)
			return &r->cmp[i];
	return NULL;
}

enum cfg_state { CFG_NONE = 0, CFG_ONE, CFG_MIXED };

/* 1 when no cold ok unit of mode m compiled or benchmarked anything (and it has one). */
static int mode_idle(const struct ctx *c, const char *m)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nunits; i++) {
		const struct rec_unit *u = &c->units[i];
		if (u->warm || !is_ok(u) || strcmp(u->mode, m))
			continue;
		if (u->compiles > 0 || u->benchmarks > 0)
			return 0;
		n++;
	}
	return n > 0;
}

/* Identity probes: two modes whose cold ok units all chose the same config in every op cell
 * and whose timings no cell tells apart (no FASTER or SLOWER between them beyond the cell's
 * noise floor) measure the same thing: FAIL, unless one is declared an A/A copy of the other.  A declared A/A pair that
 * chose different configs FAILs where some differing cell has two units or more on each side
 * and no op cell shows either side's choice varying between its units; otherwise a mode's own
 * variation between processes (a tuner that measures: Inductor's launch-time autotuning
 * picks among near-equal configs) is not ruled out, so it WARNs (undecided). */
static void check_identity(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	struct audit_check *k = audit_add(au, "identity", "identity probes (is the tuner active?)");
	size_t nm = a->nmodes, nc = c->ncells;
	const char **cfg = xcalloc(nm * nc + 1, sizeof(*cfg));
	enum cfg_state *st = xcalloc(nm * nc + 1, sizeof(*st));
	size_t *nu = xcalloc(nm * nc + 1, sizeof(*nu)); /* units that chose, per mode and cell */
	int64_t *last = xcalloc(nm * nc + 1, sizeof(*last)); /* the unit counted last, + 1 */
	size_t nop = 0, used = 0;

	for (size_t i = 0; i < c->nch; i++) {
		int64_t ur = c->ch_unit[i], cell = c->ch[i].cell;
		if (ur < 0 || (size_t)ur >= c->nunits || cell < 0 || (size_t)cell >= nc)
			continue;
		const struct rec_unit *u = &c->units[ur];
		long m = analysis_mode(a, u->mode);
		if (u->warm || !is_ok(u) || m < 0 || !strcmp(c->ch[i].reason, "imported"))
			continue;
		used++;
		size_t s = (size_t)m * nc + (size_t)cell;
		if (last[s] != ur + 1) /* a unit's rows of one cell come together: count it once */
			nu[s]++, last[s] = ur + 1;
		if (st[s] == CFG_NONE) {
			st[s] = CFG_ONE;
			cfg[s] = c->ch[i].config;
		} else if (st[s] == CFG_ONE && strcmp(cfg[s], c->ch[i].config)) {
			st[s] = CFG_MIXED;
		}
	}
	for (size_t j = 0; j < nc; j++)
		nop += !strcmp(c->cells[j].kind, "op");
	if (!used || !nop) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "not evaluated: the file records no chosen configs for op cells%s",
			      imported(c) ? " (imported data)" : "");
		goto done;
	}

	size_t pairs = 0, same = 0, expected = 0, aa_differ = 0, aa_thin = 0;
	for (size_t x = 0; x < nm; x++) {
		for (size_t y = x + 1; y < nm; y++) {
			size_t compared = 0, differ = 0, unknown = 0, thin = 0;
			for (size_t j = 0; j < nc; j++) {
				if (strcmp(c->cells[j].kind, "op"))
					continue;
				enum cfg_state sx = st[x * nc + j], sy = st[y * nc + j];
				if (sx == CFG_NONE || sy == CFG_NONE)
					continue;
				compared++;
				if (sx == CFG_MIXED || sy == CFG_MIXED)
					unknown++;
				else if (strcmp(cfg[x * nc + j], cfg[y * nc + j])) {
					differ++;
					thin += nu[x * nc + j] < 2 || nu[y * nc + j] < 2;
				}
			}
			if (!compared)
				continue;
			pairs++;
			const char *mx = a->modes[x], *my = a->modes[y];
			int aa = (a->aa_of[y] && !strcmp(a->aa_of[y], mx)) ||
				 (a->aa_of[x] && !strcmp(a->aa_of[x], my));
			if (aa && differ) {
				/* an A/A copy runs exactly its original's configuration: where each
				 * side kept one config over two units or more, the two must be the
				 * same; with one unit on a side of every differing cell, or a side
				 * whose choice varies between its units elsewhere, a measuring
				 * tuner's own variation between processes looks the same */
				int undecided = thin == differ || unknown;
				aa_thin += undecided;
				aa_differ += !undecided;
				audit_raise(k, undecided ? AUDIT_WARN : AUDIT_FAIL);
				audit_mode(k, mx);
				audit_mode(k, my);
				if (undecided)
					audit_ev(k, "'%s' and '%s' are declared A/A copies (aa_of) and "
						    "chose different configs in %zu of %zu op cells, %s: a "
						    "tuner that measures (Inductor's launch-time autotuning "
						    "among near-equal configs) picks differently between "
						    "processes, and so would a copy that runs something "
						    "else; more units of each tell them apart",
						 mx, my, differ, compared,
						 unknown ? "and their choices vary between units in other "
							   "cells"
							 : "each from one unit on a side");
				else
					audit_ev(k, "'%s' and '%s' are declared A/A copies (aa_of) but "
						    "chose different configs in %zu of %zu op cells, each "
						    "side keeping one config over its units: they do not "
						    "measure the same thing, so their difference is no "
						    "noise floor",
						 mx, my, differ, compared);
			} else if (aa && unknown) {
				audit_ev(k, "'%s' and '%s' (A/A copies): the chosen configs vary between "
					    "units in %zu of %zu op cells, as a measuring tuner's may",
					 mx, my, unknown, compared);
			}
			if (differ || unknown)
				continue;
			same++;
			if (aa) {
				expected++;
				audit_ev(k, "'%s' and '%s' chose identical configs in all %zu op cells, as "
					    "an A/A copy should (aa_of)", mx, my, compared);
				continue;
			}
			/* the timings, from a report whose baseline is one of the two */
			size_t ref = y == c->rep->baseline ? y : x, other = ref == x ? y : x;
			const struct report *r = report_against(c, ref);
			size_t ncmp = 0, dec = 0;
			for (size_t j = 0; r && j < a->ncells; j++) {
				const struct rep_cmp *q = find_cmp(r, other, ref, j);
				if (!q || !q->ok)
					continue;
				ncmp++;
				/* told apart: detected at IDENTITY_ALPHA (a test without a p: its
				 * verdict), beyond the cell's noise floor (5% with none: two blocks
				 * carry none) */
				double fl = isnan(q->c.floor) ? STATS_FLOOR_MAX : q->c.floor;
				if (decisive(q->c.verdict) && !(q->c.p_adj >= IDENTITY_ALPHA) &&
				    fabs(log(q->c.ratio)) > log1p(fl)) {
					dec++;
					audit_cell(k, a->cells[j].name);
				}
			}
			audit_mode(k, mx);
			audit_mode(k, my);
			if (dec) {
				audit_raise(k, AUDIT_WARN);
				audit_ev(k, "'%s' and '%s' chose identical configs in all %zu op cells, "
					    "yet %zu of %zu cells differ in time (FASTER/SLOWER): the same "
					    "kernels timed differently point at the setup (order, state)",
					 mx, my, compared, dec, ncmp);
			} else {
				audit_raise(k, AUDIT_FAIL);
				if (mode_idle(c, mx) && mode_idle(c, my))
					audit_ev(k, "neither '%s' nor '%s' compiled or benchmarked anything "
						    "in its cold units: both ran the default path", mx, my);
				audit_ev(k, "'%s' and '%s' chose identical configs in all %zu op cells "
					    "(every unit of each agrees) and none of %zu compared cells tells "
					    "their timings apart: one tuner is not active, or both measure "
					    "the same thing; declare aa_of if that is intended",
					 mx, my, compared, ncmp);
				for (size_t j = 0, shown = 0; j < nc && shown < 3; j++)
					if (!strcmp(c->cells[j].kind, "op") && st[x * nc + j] == CFG_ONE) {
						audit_ev(k, "  %s: both '%s'", c->cells[j].name, cfg[x * nc + j]);
						shown++;
					}
			}
		}
	}
	const char *more = aa_thin ? "; more declared A/A pairs chose different configs, "
				     "undecided" : "";
	if (k->status == AUDIT_FAIL && aa_differ && same == expected)
		audit_summary(k, "%zu declared A/A pair(s) chose different configs%s", aa_differ,
			      more);
	else if (k->status == AUDIT_FAIL)
		audit_summary(k, "%zu pair(s) of modes measure identical configs with "
				 "indistinguishable timings and are not declared A/A copies%s%s",
			      same - expected,
			      aa_differ ? "; declared A/A pairs chose different configs" : "", more);
	else if (k->status == AUDIT_WARN && aa_thin && same == expected)
		audit_summary(k, "%zu declared A/A pair(s) chose different configs where a mode's "
				 "own variation between processes is not ruled out: undecided",
			      aa_thin);
	else if (k->status == AUDIT_WARN)
		audit_summary(k, "identical configs, but timings that differ%s", more);
	else
		audit_summary(k, "%zu pair(s) of modes compared over %zu op cells: every pair "
				 "differs in some chosen config%s",
			      pairs, nop, expected ? " (A/A copies excepted, as declared)" : "");
done:
	free(cfg);
	free(st);
	free(nu);
	free(last);
}

/* ---- backend ------------------------------------------------------------------------ */

/* One mode's backend, or the run's when the file predates per-mode backends. */
struct backend_row {
	const char *mode;  /* NULL: the run's single backend */
	const char *req, *ran, *why;
};

/* A named backend not honoured is FAIL; `auto` resolving to a backend other than the first
 * of the registry's auto order (backend_auto_preferred: CUDA) is WARN, with its reason. */
static enum audit_status backend_row_status(const struct backend_row *b)
{
	if (!strcmp(b->req, b->ran))
		return AUDIT_PASS;
	if (!strcmp(b->req, "auto"))
		return strcmp(b->ran, backend_auto_preferred()) ? AUDIT_WARN : AUDIT_PASS;
	return AUDIT_FAIL;
}

/* The backend that ran against the one asked for, per mode (mode_backends) or for the run
 * (older files); see backend_row_status. */
static void check_backend(struct audit *au, struct ctx *c)
{
	struct audit_check *k = audit_add(au, "backend", "backend honoured");
	const char *req = meta(c, "backend_requested"), *ran = meta(c, "backend"),
		   *why = meta(c, "backend_reason");
	if (imported(c) || (!*req && !*ran)) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "not recorded%s: which backend produced these timings is unknown",
			      imported(c) ? " (imported data)" : "");
		if (imported(c))
			audit_ev(k, "imported from '%s'", meta(c, "source_path"));
		return;
	}
	struct backend_row one = { NULL, req, ran, why }, *rows = &one;
	size_t n = 1;
	json_t *mb = *meta(c, "mode_backends") ? json_loads(meta(c, "mode_backends"), 0, NULL)
					       : NULL;
	if (json_is_object(mb) && json_object_size(mb)) {
		const char *key;
		json_t *v;
		rows = xcalloc(json_object_size(mb), sizeof(*rows));
		n = 0;
		json_object_foreach(mb, key, v) {
			const char *r = json_string_value(json_object_get(v, "requested"));
			const char *b = json_string_value(json_object_get(v, "backend"));
			const char *y = json_string_value(json_object_get(v, "reason"));
			rows[n++] = (struct backend_row){ key, r ? r : "", b ? b : "", y ? y : "" };
		}
		/* every mode as the run's: the run-level summary, as before per-mode backends */
		size_t same = 0;
		for (size_t i = 0; i < n; i++)
			same += !strcmp(rows[i].req, req) && !strcmp(rows[i].ran, ran) &&
				!strcmp(rows[i].why, why);
		if (same == n) {
			free(rows);
			rows = &one;
			n = 1;
		}
	}
	if (n == 1 && !rows[0].mode) {
		audit_ev(k, "requested '%s', ran '%s'%s%s", req, ran, *why ? ": " : "", why);
		enum audit_status st = backend_row_status(&one);
		audit_raise(k, st);
		if (st == AUDIT_PASS && !strcmp(req, ran))
			audit_summary(k, "'%s' was asked for and ran", ran);
		else if (st == AUDIT_WARN)
			audit_summary(k, "'auto' resolved to the %s backend (%s)", ran,
				      *why ? why : "no reason recorded");
		else if (st == AUDIT_PASS)
			audit_summary(k, "'auto' resolved to '%s'", ran);
		else
			audit_summary(k, "'%s' was asked for but '%s' ran: every mode measured a "
					 "substitute", req, ran);
	} else {
		size_t nwarn = 0, nfail = 0;
		for (size_t i = 0; i < n; i++) {
			enum audit_status st = backend_row_status(&rows[i]);
			audit_ev(k, "mode '%s': requested '%s', ran '%s'%s%s", rows[i].mode,
				 rows[i].req, rows[i].ran, *rows[i].why ? ": " : "", rows[i].why);
			audit_raise(k, st);
			if (st != AUDIT_PASS)
				audit_mode(k, rows[i].mode);
			nwarn += st == AUDIT_WARN;
			nfail += st == AUDIT_FAIL;
		}
		if (nfail)
			audit_summary(k, "%zu of %zu modes asked for a backend by name and measured a "
					 "substitute", nfail, n);
		else if (nwarn)
			audit_summary(k, "%zu of %zu modes asked for 'auto' and fell back from '%s'",
				      nwarn, n, backend_auto_preferred());
		else
			audit_summary(k, "every one of %zu modes ran on the backend it asked for", n);
	}
	if (rows != &one)
		free(rows);
	json_decref(mb);
}

/* ---- cache isolation ------------------------------------------------------------------ */

static const char *unit_label(const struct rec_unit *u, char *buf, size_t n)
{
	snprintf(buf, n, "unit %lld (%s, repeat %lld)", (long long)u->id, u->mode,
		 (long long)u->repeat);
	return buf;
}

/* A variable that names a cache: one the harness points into every unit's cache directory
 * (unitenv_vars), or any other whose name contains CACHE (HARNESS_KERNEL_CACHE_DIR). */
static int is_cache_var(const char *name)
{
	const struct unit_var *v = unitenv_var(name);
	return (v && v->kind == UNIT_VAR_CACHE) || strstr(name, "CACHE");
}

/* The cache variables of the harness's table (unitenv_vars) that a cold unit's recorded
 * environment holds with a value other than its own cache directory (plus the variable's
 * sub-path): one evidence line each; returns how many. */
static size_t cache_vars_misplaced(struct audit_check *k, const struct rec_unit *u,
				   const char *lb)
{
	if (!u->env_json || !*u->env_json || !u->cache_dir || !*u->cache_dir)
		return 0;
	json_t *env = json_loads(u->env_json, 0, NULL);
	size_t bad = 0;
	for (const struct unit_var *v = unitenv_vars; v->name && json_is_object(env); v++) {
		const char *s = json_string_value(json_object_get(env, v->name));
		if (v->kind != UNIT_VAR_CACHE || !s)
			continue;
		char *want = *v->sub ? xasprintf("%s/%s", u->cache_dir, v->sub) : xstrdup(u->cache_dir);
		if (strcmp(s, want)) {
			audit_ev(k, "%s: %s='%s', not its cache directory's '%s'", lb, v->name, s, want);
			bad++;
		}
		free(want);
	}
	json_decref(env);
	return bad;
}

/* Variables of the cold units' recorded environments that name a cache (is_cache_var) and
 * hold the same non-empty value in two or more cold units: a shared cache. */
static void shared_cache_env(struct audit_check *k, struct ctx *c)
{
	struct kv {
		char *name, *value;
		size_t n;
		int64_t first;
	} *v = NULL;
	size_t nv = 0, cap = 0;
	for (size_t i = 0; i < c->nunits; i++) {
		const struct rec_unit *u = &c->units[i];
		if (u->warm || !u->env_json || !*u->env_json)
			continue;
		json_t *env = json_loads(u->env_json, 0, NULL);
		const char *key;
		json_t *val;
		if (!json_is_object(env)) {
			json_decref(env);
			continue;
		}
		json_object_foreach(env, key, val) {
			const char *s = json_string_value(val);
			if (!s || !*s || !is_cache_var(key))
				continue;
			size_t j;
			for (j = 0; j < nv; j++)
				if (!strcmp(v[j].name, key) && !strcmp(v[j].value, s))
					break;
			if (j == nv) {
				XGROW(v, cap, nv + 1);
				v[nv++] = (struct kv){ xstrdup(key), xstrdup(s), 0, u->id };
			}
			v[j].n++;
		}
		json_decref(env);
	}
	for (size_t j = 0; j < nv; j++) {
		if (v[j].n >= 2) {
			audit_raise(k, AUDIT_FAIL);
			audit_ev(k, "%s='%s' in the environment of %zu cold units (first: unit %lld): "
				    "one cache shared by units that should each start cold",
				 v[j].name, v[j].value, v[j].n, (long long)v[j].first);
		}
		free(v[j].name);
		free(v[j].value);
	}
	free(v);
}

/* Cold units must start with an empty cache of their own and do their tuner's work: FAIL
 * for a unit flagged cache_leak, one that compiled nothing yet took kernels from a cache,
 * a cache directory not empty at start, one shared by cold units, a cache variable of
 * the harness's table pointing elsewhere, or a cache variable shared by cold units; WARN for a cold unit that compiled some kernels and took others
 * from a cache (reuse inside the unit, or a partial leak). */
static void check_cache(struct audit *au, struct ctx *c)
{
	struct audit_check *k = audit_add(au, "cache-isolation", "cache isolation (cold units start cold)");
	char lb[160];
	size_t cold = 0, warm = 0, leaks = 0;
	if (imported(c)) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "not recorded (imported data): whether units started with a fresh "
				 "cache is unknown");
		return;
	}
	for (size_t i = 0; i < c->nunits; i++) {
		const struct rec_unit *u = &c->units[i];
		if (u->warm) {
			warm++;
			continue;
		}
		cold++;
		unit_label(u, lb, sizeof(lb));
		int bad = 0;
		if (u->cache_leak) {
			audit_ev(k, "%s: flagged cache_leak: cold, its tuner expects work, and it "
				    "compiled %lld and benchmarked %lld", lb, (long long)u->compiles,
				 (long long)u->benchmarks);
			bad = 1;
		} else if (is_ok(u) && u->expects_work && u->compiles == 0 && u->cache_hits > 0) {
			audit_ev(k, "%s: cold, compiled 0 kernels and took %lld from a cache (%lld "
				    "benchmarks): its kernels were built by another unit", lb,
				 (long long)u->cache_hits, (long long)u->benchmarks);
			bad = 1;
		} else if (u->cache_hits > 0) {
			audit_raise(k, AUDIT_WARN);
			audit_unit(k, u->id);
			audit_mode(k, u->mode);
			audit_ev(k, "%s: cold, compiled %lld kernels and took %lld from a cache", lb,
				 (long long)u->compiles, (long long)u->cache_hits);
		}
		if (!u->cache_dir_empty) {
			audit_ev(k, "%s: its cache directory '%s' was not empty at start", lb, u->cache_dir);
			bad = 1;
		}
		if (cache_vars_misplaced(k, u, lb))
			bad = 1;
		for (size_t j = 0; j < i; j++) {
			const struct rec_unit *w = &c->units[j];
			if (!w->warm && *u->cache_dir && !strcmp(w->cache_dir, u->cache_dir)) {
				audit_ev(k, "%s: shares its cache directory '%s' with unit %lld", lb,
					 u->cache_dir, (long long)w->id);
				bad = 1;
				break;
			}
		}
		if (bad) {
			leaks++;
			audit_raise(k, AUDIT_FAIL);
			audit_unit(k, u->id);
			audit_mode(k, u->mode);
		}
	}
	size_t before = k->nevidence;
	shared_cache_env(k, c);
	int env_shared = k->nevidence > before;
	if (k->status == AUDIT_FAIL)
		audit_summary(k, "%zu of %zu cold units did not start cold%s", leaks, cold,
			      env_shared ? "; a cache variable is shared across units" : "");
	else if (k->status == AUDIT_WARN)
		audit_summary(k, "cold units took some kernels from a cache");
	else
		audit_summary(k, "%zu cold units: each started with an empty cache of its own and "
				 "did its tuner's work", cold);
	if (warm)
		audit_ev(k, "%zu warm probe(s) reuse a cold unit's cache on purpose (not checked)", warm);
}

/* ---- the audit ------------------------------------------------------------------------ */

static void ctx_release(struct ctx *c)
{
	if (c->by_ref && c->an)
		for (size_t m = 0; m < c->an->nmodes; m++)
			report_free(c->by_ref[m]);
	free(c->by_ref);
	rec_choices_free(c->ch_unit, c->ch, c->nch);
	rec_cells_free(c->cells, c->ncells);
	rec_units_free(c->units, c->nunits);
	hyp_set_free(c->hyps);
}

int audit_build(const struct analysis *an, const struct report *rep, struct audit **out)
{
	const char *path = an->path;
	struct ctx c;
	struct rec *rec = NULL;
	struct audit *au = NULL;
	int rc = -1;
	memset(&c, 0, sizeof(c));
	c.an = an;
	c.rep = rep;
	c.o = rep->o;
	*out = NULL;
	if (rec_open(path, 0, &rec) || rec_read_units(rec, &c.units, &c.nunits) ||
	    rec_read_cells(rec, &c.cells, &c.ncells) ||
	    rec_read_choices(rec, &c.ch_unit, &c.ch, &c.nch))
		goto done;
	if (rec_close(rec)) {
		rec = NULL;
		goto done;
	}
	rec = NULL;
	c.by_ref = xcalloc(c.an->nmodes, sizeof(*c.by_ref));

	au = xcalloc(1, sizeof(*au));
	au->path = xstrdup(path);
	au->experiment_name = xstrdup(meta(&c, "experiment_name"));
	au->backend = xstrdup(meta(&c, "backend"));
	au->blocks = c.an->nblocks;
	au->baseline = xstrdup(c.an->modes[c.rep->baseline]);
	au->alpha = c.rep->o.alpha;
	au->margin = c.rep->margin;
	au->margin_source = c.rep->margin_source;

	c.hyps_bad = hyp_set_load(path, &c.an->meta, NULL, 0, c.rep->o.repo, &c.hyps) != 0;
	if (audit_record_check(au, path))
		goto done;
	check_identity(au, &c);
	check_backend(au, &c);
	check_cache(au, &c);
	audit_baseline(au, &c);
	audit_repeats(au, &c);
	audit_aa(au, &c);
	audit_margin(au, &c);
	int gpu = audit_gpu_recorded(path);
	if (gpu < 0)
		goto done;
	audit_clocks(au, &c, gpu);
	if (audit_gpu_checks(au, path))
		goto done;
	audit_drift(au, &c);
	audit_measure(au, &c);
	audit_devices(au, &c);
	if (audit_host_check(au, path))
		goto done;
	if (audit_isolation_check(au, path))
		goto done;
	if (audit_tuner_check(au, path))
		goto done;
	if (audit_spin_check(au, &c, path))
		goto done;
	audit_failures(au, &c);
	audit_op_e2e(au, &c);
	audit_hypotheses(au, &c);
	for (size_t i = 0; i < au->nchecks; i++)
		au->counts[au->checks[i].status]++;
	*out = au;
	au = NULL;
	rc = 0;
done:
	rec_close(rec);
	audit_free(au);
	ctx_release(&c);
	return rc;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void audit_free(struct audit *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nchecks; i++) {
		struct audit_check *k = &a->checks[i];
		free(k->summary);
		strv_free(k->evidence, k->nevidence);
		strv_free(k->modes, k->nmodes);
		strv_free(k->cells, k->ncells);
		hashindex_release(&k->cells_ix);
		free(k->units);
	}
	free(a->checks);
	free(a->path);
	free(a->experiment_name);
	free(a->backend);
	free(a->baseline);
	free(a);
}

enum audit_status audit_worst(const struct audit *a)
{
	return a->counts[AUDIT_FAIL] ? AUDIT_FAIL : a->counts[AUDIT_WARN] ? AUDIT_WARN : AUDIT_PASS;
}

int audit_check_mismeasures(const struct audit_check *k)
{
	static const char *const ids[] = { "cache-isolation", "tuner-fallback", "backend" };
	if (k->status != AUDIT_FAIL)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
		if (!strcmp(k->id, ids[i]))
			return 1;
	return 0;
}

size_t audit_mismeasures(const struct audit *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->nchecks; i++)
		n += (size_t)audit_check_mismeasures(&a->checks[i]);
	return n;
}
