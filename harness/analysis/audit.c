/* audit.c: `harness audit`'s checks (audit.h, docs/audit.md) and their markdown and JSON */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>
#include <jansson.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/audit.h"
#include "harness/analysis/hypothesis.h"
#include "harness/record/recorder.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"
#include "kernels/backend.h"

/* What every check reads.  Everything is owned here and released by ctx_release. */
struct ctx {
	const struct analysis *an;    /* borrowed from the caller */
	const struct report *rep;     /* borrowed */
	struct report_opts o;
	struct report **by_ref;       /* [mode]: a report with that mode as baseline, built on demand */
	struct rec_unit *units;       /* rows of /units */
	size_t nunits;
	struct rec_cell *cells;       /* rows of /cells (choices index them) */
	size_t ncells;
	int64_t *ch_unit;             /* rows of /choices */
	struct rec_choice *ch;
	size_t nch;
};

const char *audit_status_name(enum audit_status s)
{
	return s == AUDIT_FAIL ? "FAIL" : s == AUDIT_WARN ? "WARN" : "PASS";
}

/* ---- building checks ------------------------------------------------------------------ */

static struct audit_check *check_add(struct audit *a, const char *id, const char *title)
{
	a->checks = xrealloc(a->checks, (a->nchecks + 1) * sizeof(*a->checks));
	struct audit_check *k = &a->checks[a->nchecks++];
	memset(k, 0, sizeof(*k));
	k->id = id;
	k->title = title;
	return k;
}

/* Raise the check's status to at least s (findings only ever make it worse). */
static void check_raise(struct audit_check *k, enum audit_status s)
{
	if (s > k->status)
		k->status = s;
}

static void check_summary(struct audit_check *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void check_summary(struct audit_check *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(k->summary);
	k->summary = xvasprintf(fmt, ap);
	va_end(ap);
}

static void check_ev(struct audit_check *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void check_ev(struct audit_check *k, const char *fmt, ...)
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

static void check_mode(struct audit_check *k, const char *m)
{
	name_add(&k->modes, &k->nmodes, &k->modes_cap, m);
}

static void check_cell(struct audit_check *k, const char *c)
{
	name_add(&k->cells, &k->ncells, &k->cells_cap, c);
}

static void check_unit(struct audit_check *k, int64_t id)
{
	for (size_t i = 0; i < k->nunits; i++)
		if (k->units[i] == id)
			return;
	XGROW(k->units, k->units_cap, k->nunits + 1);
	k->units[k->nunits++] = id;
}

static const char *meta(const struct ctx *c, const char *key)
{
	const char *v = rec_meta_get(&c->an->meta, key);
	return v ? v : "";
}

/* Imported data (harness import) records no backend, caches or configs. */
static int imported(const struct ctx *c)
{
	return *meta(c, "source") != '\0';
}

static int is_ok(const struct rec_unit *u)
{
	return u->status && !strcmp(u->status, REC_STATUS_OK);
}

/* The smallest two-sided p an exact rank test can give for one comparison: all n signs
 * alike for the paired Wilcoxon signed-rank test, 2 / 2^n; complete separation for the
 * Mann-Whitney test of n and n_base units, 2 / C(n + n_base, n).  Ties only raise it. */
static double p_floor(const struct stats_comparison *s)
{
	double p;
	if (s->paired)
		p = 2.0 * pow(0.5, (double)s->n);
	else
		p = 2.0 / exp(gsl_sf_lnchoose((unsigned)(s->n + s->n_base), (unsigned)s->n));
	return p > 1 ? 1 : p;
}

/* The smallest p floor over the ok comparisons of a family (1 when none is ok). */
static double family_floor(const struct rep_cmp *cmp, size_t n, size_t *nok)
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

/* The comparison of mode x against mode ref in cell (an analysis cell), or NULL. */
static const struct rep_cmp *find_cmp(const struct report *r, size_t x, size_t ref, size_t cell)
{
	for (size_t i = 0; i < r->ncmp; i++)
		if (r->cmp[i].mode == x && r->cmp[i].ref == ref && r->cmp[i].cell == cell)
			return &r->cmp[i];
	return NULL;
}

enum cfg_state { CFG_NONE = 0, CFG_ONE, CFG_MIXED };

/* Identity probes: two modes whose cold ok units all chose the same config in every op cell
 * and whose timings no cell tells apart (no FASTER or SLOWER between them) measure the same
 * thing: FAIL, unless one is declared an A/A copy of the other. */
static void check_identity(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	struct audit_check *k = check_add(au, "identity", "identity probes (is the tuner active?)");
	size_t nm = a->nmodes, nc = c->ncells;
	const char **cfg = xcalloc(nm * nc + 1, sizeof(*cfg));
	enum cfg_state *st = xcalloc(nm * nc + 1, sizeof(*st));
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
		check_raise(k, AUDIT_WARN);
		check_summary(k, "not evaluated: the file records no chosen configs for op cells%s",
			      imported(c) ? " (imported data)" : "");
		goto done;
	}

	size_t pairs = 0, same = 0, expected = 0;
	for (size_t x = 0; x < nm; x++) {
		for (size_t y = x + 1; y < nm; y++) {
			size_t compared = 0, differ = 0, unknown = 0;
			for (size_t j = 0; j < nc; j++) {
				if (strcmp(c->cells[j].kind, "op"))
					continue;
				enum cfg_state sx = st[x * nc + j], sy = st[y * nc + j];
				if (sx == CFG_NONE || sy == CFG_NONE)
					continue;
				compared++;
				if (sx == CFG_MIXED || sy == CFG_MIXED)
					unknown++;
				else if (strcmp(cfg[x * nc + j], cfg[y * nc + j]))
					differ++;
			}
			if (!compared)
				continue;
			pairs++;
			if (differ || unknown)
				continue;
			same++;
			const char *mx = a->modes[x], *my = a->modes[y];
			int aa = (a->aa_of[y] && !strcmp(a->aa_of[y], mx)) ||
				 (a->aa_of[x] && !strcmp(a->aa_of[x], my));
			if (aa) {
				expected++;
				check_ev(k, "'%s' and '%s' chose identical configs in all %zu op cells, as "
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
				if (decisive(q->c.verdict)) {
					dec++;
					check_cell(k, a->cells[j].name);
				}
			}
			check_mode(k, mx);
			check_mode(k, my);
			if (dec) {
				check_raise(k, AUDIT_WARN);
				check_ev(k, "'%s' and '%s' chose identical configs in all %zu op cells, "
					    "yet %zu of %zu cells differ in time (FASTER/SLOWER): the same "
					    "kernels timed differently point at the setup (order, state)",
					 mx, my, compared, dec, ncmp);
			} else {
				check_raise(k, AUDIT_FAIL);
				check_ev(k, "'%s' and '%s' chose identical configs in all %zu op cells "
					    "(every unit of each agrees) and none of %zu compared cells tells "
					    "their timings apart: one tuner is not active, or both measure "
					    "the same thing; declare aa_of if that is intended",
					 mx, my, compared, ncmp);
				for (size_t j = 0, shown = 0; j < nc && shown < 3; j++)
					if (!strcmp(c->cells[j].kind, "op") && st[x * nc + j] == CFG_ONE) {
						check_ev(k, "  %s: both '%s'", c->cells[j].name, cfg[x * nc + j]);
						shown++;
					}
			}
		}
	}
	if (k->status == AUDIT_FAIL)
		check_summary(k, "%zu pair(s) of modes measure identical configs with "
				 "indistinguishable timings and are not declared A/A copies",
			      same - expected);
	else if (k->status == AUDIT_WARN)
		check_summary(k, "identical configs, but timings that differ");
	else
		check_summary(k, "%zu pair(s) of modes compared over %zu op cells: every pair "
				 "differs in some chosen config%s",
			      pairs, nop, expected ? " (A/A copies excepted, as declared)" : "");
done:
	free(cfg);
	free(st);
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
	struct audit_check *k = check_add(au, "backend", "backend honoured");
	const char *req = meta(c, "backend_requested"), *ran = meta(c, "backend"),
		   *why = meta(c, "backend_reason");
	if (imported(c) || (!*req && !*ran)) {
		check_raise(k, AUDIT_WARN);
		check_summary(k, "not recorded%s: which backend produced these timings is unknown",
			      imported(c) ? " (imported data)" : "");
		if (imported(c))
			check_ev(k, "imported from '%s'", meta(c, "source_path"));
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
		check_ev(k, "requested '%s', ran '%s'%s%s", req, ran, *why ? ": " : "", why);
		enum audit_status st = backend_row_status(&one);
		check_raise(k, st);
		if (st == AUDIT_PASS && !strcmp(req, ran))
			check_summary(k, "'%s' was asked for and ran", ran);
		else if (st == AUDIT_WARN)
			check_summary(k, "'auto' resolved to the %s backend (%s)", ran,
				      *why ? why : "no reason recorded");
		else if (st == AUDIT_PASS)
			check_summary(k, "'auto' resolved to '%s'", ran);
		else
			check_summary(k, "'%s' was asked for but '%s' ran: every mode measured a "
					 "substitute", req, ran);
	} else {
		size_t nwarn = 0, nfail = 0;
		for (size_t i = 0; i < n; i++) {
			enum audit_status st = backend_row_status(&rows[i]);
			check_ev(k, "mode '%s': requested '%s', ran '%s'%s%s", rows[i].mode,
				 rows[i].req, rows[i].ran, *rows[i].why ? ": " : "", rows[i].why);
			check_raise(k, st);
			if (st != AUDIT_PASS)
				check_mode(k, rows[i].mode);
			nwarn += st == AUDIT_WARN;
			nfail += st == AUDIT_FAIL;
		}
		if (nfail)
			check_summary(k, "%zu of %zu modes asked for a backend by name and measured a "
					 "substitute", nfail, n);
		else if (nwarn)
			check_summary(k, "%zu of %zu modes asked for 'auto' and fell back from '%s'",
				      nwarn, n, backend_auto_preferred());
		else
			check_summary(k, "every one of %zu modes ran on the backend it asked for", n);
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
 * (backend_unit_vars), or any other whose name contains CACHE (HARNESS_KERNEL_CACHE_DIR). */
static int is_cache_var(const char *name)
{
	const struct unit_var *v = backend_unit_var(name);
	return (v && v->kind == UNIT_VAR_CACHE) || strstr(name, "CACHE");
}

/* The cache variables of the harness's table (backend_unit_vars) that a cold unit's recorded
 * environment holds with a value other than its own cache directory (plus the variable's
 * sub-path): one evidence line each; returns how many. */
static size_t cache_vars_misplaced(struct audit_check *k, const struct rec_unit *u,
				   const char *lb)
{
	if (!u->env_json || !*u->env_json || !u->cache_dir || !*u->cache_dir)
		return 0;
	json_t *env = json_loads(u->env_json, 0, NULL);
	size_t bad = 0;
	for (const struct unit_var *v = backend_unit_vars; v->name && json_is_object(env); v++) {
		const char *s = json_string_value(json_object_get(env, v->name));
		if (v->kind != UNIT_VAR_CACHE || !s)
			continue;
		char *want = *v->sub ? xasprintf("%s/%s", u->cache_dir, v->sub) : xstrdup(u->cache_dir);
		if (strcmp(s, want)) {
			check_ev(k, "%s: %s='%s', not its cache directory's '%s'", lb, v->name, s, want);
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
			check_raise(k, AUDIT_FAIL);
			check_ev(k, "%s='%s' in the environment of %zu cold units (first: unit %lld): "
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
	struct audit_check *k = check_add(au, "cache-isolation", "cache isolation (cold units start cold)");
	char lb[160];
	size_t cold = 0, warm = 0, leaks = 0;
	if (imported(c)) {
		check_raise(k, AUDIT_WARN);
		check_summary(k, "not recorded (imported data): whether units started with a fresh "
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
			check_ev(k, "%s: flagged cache_leak: cold, its tuner expects work, and it "
				    "compiled %lld and benchmarked %lld", lb, (long long)u->compiles,
				 (long long)u->benchmarks);
			bad = 1;
		} else if (is_ok(u) && u->expects_work && u->compiles == 0 && u->cache_hits > 0) {
			check_ev(k, "%s: cold, compiled 0 kernels and took %lld from a cache (%lld "
				    "benchmarks): its kernels were built by another unit", lb,
				 (long long)u->cache_hits, (long long)u->benchmarks);
			bad = 1;
		} else if (u->cache_hits > 0) {
			check_raise(k, AUDIT_WARN);
			check_unit(k, u->id);
			check_mode(k, u->mode);
			check_ev(k, "%s: cold, compiled %lld kernels and took %lld from a cache", lb,
				 (long long)u->compiles, (long long)u->cache_hits);
		}
		if (!u->cache_dir_empty) {
			check_ev(k, "%s: its cache directory '%s' was not empty at start", lb, u->cache_dir);
			bad = 1;
		}
		if (cache_vars_misplaced(k, u, lb))
			bad = 1;
		for (size_t j = 0; j < i; j++) {
			const struct rec_unit *w = &c->units[j];
			if (!w->warm && *u->cache_dir && !strcmp(w->cache_dir, u->cache_dir)) {
				check_ev(k, "%s: shares its cache directory '%s' with unit %lld", lb,
					 u->cache_dir, (long long)w->id);
				bad = 1;
				break;
			}
		}
		if (bad) {
			leaks++;
			check_raise(k, AUDIT_FAIL);
			check_unit(k, u->id);
			check_mode(k, u->mode);
		}
	}
	size_t before = k->nevidence;
	shared_cache_env(k, c);
	int env_shared = k->nevidence > before;
	if (k->status == AUDIT_FAIL)
		check_summary(k, "%zu of %zu cold units did not start cold%s", leaks, cold,
			      env_shared ? "; a cache variable is shared across units" : "");
	else if (k->status == AUDIT_WARN)
		check_summary(k, "cold units took some kernels from a cache");
	else
		check_summary(k, "%zu cold units: each started with an empty cache of its own and "
				 "did its tuner's work", cold);
	if (warm)
		check_ev(k, "%zu warm probe(s) reuse a cold unit's cache on purpose (not checked)", warm);
}

/* ---- the strongest mode ---------------------------------------------------------------- */

/* WARN when any mode is FASTER than the declared baseline in any cell (e2e cells first);
 * WARN too when no comparison could reach alpha (the question cannot be decided). */
static void check_baseline(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	const struct report *r = c->rep;
	struct audit_check *k = check_add(au, "strongest-baseline", "the baseline is the strongest mode");
	size_t nok, faster = 0;
	double floor = family_floor(r->cmp, r->ncmp, &nok);
	const struct rep_cmp *best = NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < r->ncmp; i++) {
			const struct rep_cmp *x = &r->cmp[i];
			int e2e = !strcmp(a->cells[x->cell].kind, "e2e");
			if (!x->ok || e2e != (pass == 0))
				continue;
			if (!best || x->c.ratio < best->c.ratio)
				best = x;
			if (x->c.verdict != VERDICT_FASTER)
				continue;
			faster++;
			check_raise(k, AUDIT_WARN);
			check_mode(k, a->modes[x->mode]);
			check_cell(k, a->cells[x->cell].name);
			check_ev(k, "'%s' is FASTER than '%s' in %s%s: ratio %.4f, CI [%.4f, %.4f], "
				    "Holm p %.3g", a->modes[x->mode], a->modes[r->baseline],
				 a->cells[x->cell].name, e2e ? " (end to end)" : "", x->c.ratio, x->c.lo,
				 x->c.hi, x->c.p_holm);
		}
	}
	if (faster) {
		struct sbuf sb;
		sbuf_init(&sb);
		for (size_t i = 0; i < k->nmodes; i++)
			sbuf_addf(&sb, "%s'%s'", i ? ", " : "", k->modes[i]);
		check_summary(k, "%s beat%s the baseline '%s' in %zu cell(s): compare against the "
				 "strongest configuration", sb.buf, k->nmodes == 1 ? "s" : "",
			      a->modes[r->baseline], faster);
		sbuf_release(&sb);
	} else if (!nok) {
		check_raise(k, AUDIT_WARN);
		check_summary(k, "not evaluated: no mode could be compared with the baseline '%s'",
			      a->modes[r->baseline]);
	} else if (floor > r->o.alpha) {
		check_raise(k, AUDIT_WARN);
		check_summary(k, "undecidable at this n: no comparison can reach alpha %.3g (smallest "
				 "possible p %.3g)", r->o.alpha, floor);
		if (best)
			check_ev(k, "lowest point estimate: '%s' in %s at %.4f of the baseline",
				 a->modes[best->mode], a->cells[best->cell].name, best->c.ratio);
	} else {
		check_summary(k, "no mode is FASTER than the baseline '%s' in any of %zu comparisons",
			      a->modes[r->baseline], nok);
		if (best)
			check_ev(k, "lowest point estimate: '%s' in %s at %.4f (%s)", a->modes[best->mode],
				 a->cells[best->cell].name, best->c.ratio,
				 stats_verdict_name(best->c.verdict));
	}
}

/* ---- repeats -------------------------------------------------------------------------- */

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Enough repeats?  FAIL when no comparison can reach alpha (the smallest exact p, 2/2^n
 * paired), or when none can survive Holm (m times that floor); WARN when the median minimum
 * detectable effect (80% power) exceeds the equivalence margin. */
static void check_repeats(struct audit *au, struct ctx *c)
{
	const struct report *r = c->rep;
	struct audit_check *k = check_add(au, "repeats", "enough repeats");
	size_t nok;
	double floor = family_floor(r->cmp, r->ncmp, &nok);
	size_t maxn = 0;
	double *mde = xcalloc(r->ncmp + 1, sizeof(*mde)), *need = xcalloc(r->ncmp + 1, sizeof(*need));
	size_t nm = 0, nn = 0;
	for (size_t i = 0; i < r->ncmp; i++) {
		if (!r->cmp[i].ok)
			continue;
		if (r->cmp[i].c.n > maxn)
			maxn = r->cmp[i].c.n;
		if (!isnan(r->cmp[i].c.mde))
			mde[nm++] = r->cmp[i].c.mde;
		if (!isnan(r->cmp[i].c.blocks_needed))
			need[nn++] = r->cmp[i].c.blocks_needed;
	}
	if (!nok) {
		check_raise(k, AUDIT_FAIL);
		check_summary(k, "no comparison with the baseline could be made");
		goto done;
	}
	const char *test = c->an->paired ? "exact two-sided signed-rank p with n pairs is 2/2^n"
					 : "exact two-sided Mann-Whitney p is 2/C(n1+n2, n1)";
	check_ev(k, "%zu comparisons with the baseline, up to %zu %s each; the smallest %s: %.4g",
		 nok, maxn, c->an->paired ? "pairs" : "units", test, floor);
	if (floor > r->o.alpha) {
		check_raise(k, AUDIT_FAIL);
		check_summary(k, "with n = %zu no rank test can reach alpha %.3g (smallest p %.4g): "
				 "nothing can be FASTER or SLOWER", maxn, r->o.alpha, floor);
	} else if ((double)nok * floor > r->o.alpha) {
		check_raise(k, AUDIT_FAIL);
		check_summary(k, "with n = %zu and Holm over %zu comparisons the smallest adjusted p "
				 "is %.4g > alpha %.3g: nothing can be FASTER or SLOWER", maxn, nok,
			      (double)nok * floor, r->o.alpha);
	}
	if (maxn < 6 && c->an->paired)
		check_ev(k, "with n < 6 the distribution-free CI of the median is [min, max] at "
			    "below 95%% coverage");
	if (nm) {
		qsort(mde, nm, sizeof(*mde), dbl_cmp);
		double med = nm % 2 ? mde[nm / 2] : (mde[nm / 2 - 1] + mde[nm / 2]) / 2;
		check_ev(k, "minimum detectable effect at 80%% power: median %.2f%% (range %.2f%% to "
			    "%.2f%%) against the margin +-%.2f%% (%s)", 100 * med, 100 * mde[0],
			 100 * mde[nm - 1], 100 * r->margin, r->margin_source);
		if (nn) {
			qsort(need, nn, sizeof(*need), dbl_cmp);
			check_ev(k, "blocks that would detect the margin: median %.0f, most %.0f",
				 nn % 2 ? need[nn / 2] : (need[nn / 2 - 1] + need[nn / 2]) / 2,
				 need[nn - 1]);
		}
		if (med > r->margin) {
			check_raise(k, AUDIT_WARN);
			if (k->status == AUDIT_WARN)
				check_summary(k, "the median minimum detectable effect %.2f%% exceeds the "
						 "margin %.2f%%: a null result here is INCONCLUSIVE, not SAME",
					      100 * med, 100 * r->margin);
		}
	}
	if (k->status == AUDIT_PASS)
		check_summary(k, "n = %zu can reach alpha (smallest p %.4g) and detect the margin "
				 "+-%.2f%%", maxn, floor, 100 * r->margin);
done:
	free(mde);
	free(need);
}

/* ---- A/A control ---------------------------------------------------------------------- */

/* WARN when there is no A/A control, or when its rate of 0 cannot mean anything (no test
 * can reach alpha); when the false-positive rate exceeds alpha, FAIL if the binomial tail
 * P(X >= fp | cells, alpha) is below alpha (more false positives than chance allows), WARN
 * otherwise; WARN when the margin is tighter than the A/A noise floor. */
static void check_aa(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	const struct report *r = c->rep;
	struct audit_check *k = check_add(au, "aa-control", "A/A control and its false-positive rate");
	if (!r->naa) {
		check_raise(k, AUDIT_WARN);
		check_summary(k, "no A/A control: this design's false-positive rate and noise floor "
				 "are unknown (add a mode with aa_of)");
		return;
	}
	size_t nok;
	double floor = family_floor(r->aacmp, r->naacmp, &nok);
	for (size_t i = 0; i < r->naa; i++) {
		const struct rep_aa *q = &r->aa[i];
		const char *m = a->modes[q->mode], *of = a->modes[q->of];
		double rate = q->cells ? (double)q->false_positives / (double)q->cells : NAN;
		check_ev(k, "'%s' (A/A of '%s'): %zu of %zu cells FASTER/SLOWER (rate %.3f), noise "
			    "floor %.2f%%", m, of, q->false_positives, q->cells, rate,
			 100 * q->noise_floor);
		if (!q->cells) {
			check_raise(k, AUDIT_WARN);
			check_mode(k, m);
			check_ev(k, "  no cell of '%s' could be compared with '%s'", m, of);
		} else if (rate > r->o.alpha) {
			double tail = gsl_cdf_binomial_Q((unsigned)q->false_positives - 1, r->o.alpha,
							 (unsigned)q->cells);
			check_raise(k, tail < r->o.alpha ? AUDIT_FAIL : AUDIT_WARN);
			check_mode(k, m);
			check_ev(k, "  rate above alpha %.3g; P(>= %zu false positives in %zu cells at "
				    "rate alpha) = %.3g%s", r->o.alpha, q->false_positives, q->cells, tail,
				 tail < r->o.alpha ? ": the tests are anti-conservative here" :
						     ": too few cells to call it more than chance");
		} else if (floor > r->o.alpha) {
			check_raise(k, AUDIT_WARN);
			check_ev(k, "  uninformative: at this n no A/A test can reach alpha (smallest p "
				    "%.4g), so a rate of 0 says nothing", floor);
		}
		if (!strcmp(r->margin_source, "option") || !strcmp(r->margin_source, "experiment")) {
			if (!isnan(q->noise_floor) && q->noise_floor > r->margin) {
				check_raise(k, AUDIT_WARN);
				check_ev(k, "  the margin +-%.2f%% (%s) is tighter than the A/A noise floor "
					    "%.2f%%: SAME at this margin is not supported", 100 * r->margin,
					 r->margin_source, 100 * q->noise_floor);
			}
		}
	}
	check_summary(k, k->status == AUDIT_FAIL ? "the A/A control differs from its original "
						  "more often than alpha allows" :
			 k->status == AUDIT_WARN ? "an A/A control is present but its evidence is weak" :
						   "A/A control present; false-positive rate within alpha");
}

/* ---- machine state and drift --------------------------------------------------------- */

/* Clocks, temperature and power across units: no backend of this build records them per
 * unit, so this is WARN with what is known (the run-level CPU frequency and governor). */
static void check_clocks(struct audit *au, struct ctx *c)
{
	struct audit_check *k = check_add(au, "clocks", "clocks, temperature and power across units");
	const char *b = meta(c, "backend");
	check_raise(k, AUDIT_WARN);
	if (imported(c))
		check_summary(k, "not recorded (imported data)");
	else if (!strcmp(b, "cpu"))
		check_summary(k, "not recorded by this backend: the cpu backend records no per-unit "
				 "clock, temperature or power readings, so throttling between units "
				 "cannot be ruled out");
	else
		check_summary(k, "not evaluated: this harness does not read per-unit readings of "
				 "backend '%s'", b);
	if (*meta(c, "cpu_mhz") || *meta(c, "cpu_governor"))
		check_ev(k, "read once at the start of the run: cpu_mhz %s, cpu_governor %s",
			 *meta(c, "cpu_mhz") ? meta(c, "cpu_mhz") : "-",
			 *meta(c, "cpu_governor") ? meta(c, "cpu_governor") : "-");
	const char *g = meta(c, "cpu_governor");
	if (!strcmp(g, "unknown"))
		check_ev(k, "the CPU frequency governor is not known: clocks may ramp between units");
	else if (*g && strcmp(g, "performance"))
		check_ev(k, "the CPU frequency governor is '%s', not 'performance': clocks may "
			    "ramp between units", g);
}

/* Drift with run order (the report's Spearman test per mode): WARN per flagged mode; WARN
 * for sequential order, which ties each mode to a fixed position in every block. */
static void check_drift(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	const struct report *r = c->rep;
	struct audit_check *k = check_add(au, "drift", "drift with run order");
	size_t tested = 0, flagged = 0;
	for (size_t i = 0; i < r->ndrift; i++) {
		const struct rep_drift *d = &r->drift[i];
		if (isnan(d->rho))
			continue;
		tested++;
		if (d->flagged) {
			flagged++;
			check_raise(k, AUDIT_WARN);
			check_mode(k, a->modes[d->mode]);
			check_ev(k, "'%s' drifts with run order: Spearman rho %.2f over %zu units, p %.3g",
				 a->modes[d->mode], d->rho, d->n, d->p);
		}
	}
	const char *order = meta(c, "order");
	if (!strcmp(order, "sequential")) {
		check_raise(k, AUDIT_WARN);
		check_ev(k, "order 'sequential': every block runs the modes in the same order, so "
			    "drift within a block favours the modes that run first (use randomized "
			    "or abba)");
	}
	if (flagged)
		check_summary(k, "%zu of %zu mode(s) drift with run order", flagged, tested);
	else if (!tested) {
		check_raise(k, AUDIT_WARN);
		check_summary(k, "not evaluated: fewer than 3 units per mode");
	} else
		check_summary(k, "no mode drifts with run order (%zu tested at alpha %.3g)%s", tested,
			      r->o.alpha, k->status == AUDIT_WARN ? "; but see the order" : "");
}

/* ---- failed units --------------------------------------------------------------------- */

/* Failed and timed-out units, and whether they fall evenly across modes: Pearson's
 * chi-square test of independence of (ok, not ok) and mode on the 2 x K table of cold
 * units, df = K - 1 (approximate when an expected count is below 5).  PASS with no failed
 * unit; FAIL when a mode has no ok unit or p < alpha; WARN otherwise. */
static void check_failures(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	struct audit_check *k = check_add(au, "failures", "failed and timed-out units");
	size_t K = a->nmodes, tot = 0, bad = 0;
	for (size_t m = 0; m < K; m++) {
		tot += a->units_all[m];
		bad += a->units_all[m] - a->units_ok[m];
	}
	if (!bad) {
		check_summary(k, "all %zu cold units finished ok", tot);
		return;
	}
	for (size_t m = 0; m < K; m++) {
		size_t nb = a->units_all[m] - a->units_ok[m];
		if (!nb)
			continue;
		struct sbuf sb;
		sbuf_init(&sb);
		for (size_t s = 0; s < a->nfailed; s++)
			if (a->failed[s].count[m])
				sbuf_addf(&sb, "%s%zu %s", sb.len ? ", " : "", a->failed[s].count[m],
					  a->failed[s].status);
		check_ev(k, "'%s': %zu of %zu cold units not ok (%s)", a->modes[m], nb,
			 a->units_all[m], sb.buf);
		sbuf_release(&sb);
		check_mode(k, a->modes[m]);
		if (!a->units_ok[m] && a->units_all[m]) {
			check_raise(k, AUDIT_FAIL);
			check_ev(k, "  '%s' has no ok unit: it is missing from every comparison",
				 a->modes[m]);
		}
	}
	double x2 = 0, p = NAN;
	int approx = 0;
	size_t df = 0;
	size_t good = tot - bad;
	for (size_t m = 0; m < K; m++) {
		if (!a->units_all[m])
			continue;
		df++;
		double n = (double)a->units_all[m];
		double eb = n * (double)bad / (double)tot, eg = n * (double)good / (double)tot;
		double ob = (double)(a->units_all[m] - a->units_ok[m]), og = (double)a->units_ok[m];
		approx |= eb < 5 || eg < 5;
		if (eb > 0)
			x2 += (ob - eb) * (ob - eb) / eb;
		if (eg > 0)
			x2 += (og - eg) * (og - eg) / eg;
	}
	if (df >= 2 && good > 0) {
		p = gsl_cdf_chisq_Q(x2, (double)(df - 1));
		check_ev(k, "independence of status and mode: chi-square %.3f, df %zu, p %.3g%s", x2,
			 df - 1, p, approx ? " (approximate: expected counts below 5)" : "");
		if (p < c->o.alpha)
			check_raise(k, AUDIT_FAIL);
	}
	check_raise(k, AUDIT_WARN);
	check_summary(k, "%zu of %zu cold units failed or timed out%s", bad, tot,
		      k->status == AUDIT_FAIL ? ", unevenly across modes: the survivors are a "
						"selected sample" :
						", evenly across modes as far as can be told");
}

/* ---- per-op versus e2e --------------------------------------------------------------- */

/* Kendall tau (from the report) between the modes' per-op and e2e rankings, per workload
 * with an e2e cell: WARN below 0.5 (the report's rule), WARN when nothing can be ranked. */
static void check_op_e2e(struct audit *au, struct ctx *c)
{
	const struct report *r = c->rep;
	struct audit_check *k = check_add(au, "op-vs-e2e", "per-op versus end-to-end agreement");
	size_t ranked = 0, disagree = 0;
	for (size_t i = 0; i < r->ntau; i++) {
		const struct rep_tau *t = &r->tau[i];
		if (isnan(t->tau)) {
			check_ev(k, "'%s': %zu mode(s) with both rankings: too few to rank", t->workload,
				 t->nmodes);
			continue;
		}
		ranked++;
		check_ev(k, "'%s': Kendall tau %.2f over %zu modes (p %.3g)", t->workload, t->tau,
			 t->nmodes, t->p);
		if (t->tau < 0.5) {
			disagree++;
			check_raise(k, AUDIT_WARN);
		}
	}
	if (!r->ntau) {
		check_raise(k, AUDIT_WARN);
		check_summary(k, "not evaluated: no workload has an e2e cell, so per-op results are "
				 "not checked against end to end");
	} else if (!ranked) {
		check_raise(k, AUDIT_WARN);
		check_summary(k, "not evaluated: fewer than 3 modes to rank in every workload");
	} else if (disagree) {
		check_summary(k, "per-op and e2e rankings disagree in %zu of %zu workload(s) "
				 "(tau < 0.5): per-op wins do not compose", disagree, ranked);
	} else {
		check_summary(k, "per-op and e2e rankings agree in %zu workload(s) (tau >= 0.5)", ranked);
	}
}

/* ---- hypotheses ----------------------------------------------------------------------- */

/* Each recorded hypothesis file with its SHA-256, re-hashed from the recorded bytes (FAIL
 * on a mismatch), and its status from hypothesis.h (hyp_set_load: the git state captured
 * at run start and the bytes on disk now): PRE-REGISTERED passes; UNCOMMITTED (not
 * committed and clean at run start: exploratory) and MODIFIED (the file on disk now differs
 * from the recorded bytes) are WARN; no hypothesis file at all is WARN. */
static void check_hypotheses(struct audit *au, struct ctx *c)
{
	const struct rec_meta *m = &c->an->meta;
	struct audit_check *k = check_add(au, "hypotheses", "hypothesis integrity");
	size_t n = 0, bad = 0, prereg = 0;
	for (size_t i = 0; i < m->nfiles; i++) {
		const struct rec_file *f = &m->files[i];
		if (strcmp(f->role, "hypothesis"))
			continue;
		n++;
		char hex[65];
		util_sha256_hex(f->text, f->len, hex);
		int ok = !strcmp(hex, f->sha256);
		check_ev(k, "'%s': sha256 %s, %zu bytes%s", f->path, f->sha256, f->len,
			 ok ? "" : " (the recorded bytes hash differently)");
		if (!ok) {
			bad++;
			check_raise(k, AUDIT_FAIL);
		}
	}
	if (!n) {
		check_raise(k, AUDIT_WARN);
		check_summary(k, "no hypothesis file recorded: nothing was pre-registered");
		return;
	}
	struct hyp_set *set = NULL;
	if (hyp_set_load(c->an->path, m, NULL, 0, &set)) {
		check_raise(k, AUDIT_WARN);
		check_ev(k, "statuses not evaluated: a recorded hypothesis file does not parse");
	} else {
		for (size_t i = 0; i < set->n; i++) {
			const struct hyp_entry *e = &set->e[i];
			check_ev(k, "'%s': %s: %s", e->file->path, hyp_status_name(e->status),
				 e->why ? e->why : "");
			if (e->status == HYP_PREREGISTERED)
				prereg++;
			else
				check_raise(k, AUDIT_WARN);
		}
	}
	if (bad)
		check_summary(k, "%zu of %zu recorded hypothesis file(s) do not match their hash", bad, n);
	else if (!set)
		check_summary(k, "%zu hypothesis file(s) recorded; statuses not evaluated", n);
	else
		check_summary(k, "%zu of %zu hypothesis file(s) PRE-REGISTERED", prereg, n);
	hyp_set_free(set);
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

	check_identity(au, &c);
	check_backend(au, &c);
	check_cache(au, &c);
	check_baseline(au, &c);
	check_repeats(au, &c);
	check_aa(au, &c);
	check_clocks(au, &c);
	check_drift(au, &c);
	check_failures(au, &c);
	check_op_e2e(au, &c);
	check_hypotheses(au, &c);
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

int audit_run(const char *path, const struct report_opts *o, struct audit **out)
{
	struct analysis *an = NULL;
	struct report *rep = NULL;
	int rc = -1;
	*out = NULL;
	if (!analysis_load(path, &an) && !report_build(an, o, &rep))
		rc = audit_build(an, rep, out);
	report_free(rep);
	analysis_free(an);
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

/* ---- writing -------------------------------------------------------------------------- */

static json_t *jnum(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *jstrv(char **v, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_string(v[i]));
	return arr;
}

static json_t *audit_json(const struct audit *a)
{
	json_t *checks = json_array();
	for (size_t i = 0; i < a->nchecks; i++) {
		const struct audit_check *k = &a->checks[i];
		json_t *units = json_array();
		for (size_t u = 0; u < k->nunits; u++)
			json_array_append_new(units, json_integer((json_int_t)k->units[u]));
		json_array_append_new(checks,
				      json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "id", k->id,
						"title", k->title, "status", audit_status_name(k->status),
						"summary", k->summary ? k->summary : "", "evidence",
						jstrv(k->evidence, k->nevidence), "modes",
						jstrv(k->modes, k->nmodes), "cells",
						jstrv(k->cells, k->ncells), "units", units));
	}
	return json_pack("{s:s, s:i, s:{s:s, s:s, s:s, s:I}, s:{s:s, s:f, s:o, s:s}, s:s, "
			 "s:{s:I, s:I, s:I}, s:o}",
			 "format", "harness-audit", "version", 1, "run", "path", a->path,
			 "experiment_name", a->experiment_name, "backend", a->backend, "blocks",
			 (json_int_t)a->blocks, "settings", "baseline", a->baseline, "alpha", a->alpha,
			 "margin", jnum(a->margin), "margin_source", a->margin_source, "result",
			 audit_status_name(audit_worst(a)), "counts", "PASS",
			 (json_int_t)a->counts[AUDIT_PASS], "WARN", (json_int_t)a->counts[AUDIT_WARN],
			 "FAIL", (json_int_t)a->counts[AUDIT_FAIL], "checks", checks);
}

/* Markdown table cells may not hold a bare '|'. */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static void audit_md(const struct audit *a, FILE *f)
{
	fprintf(f, "# Audit of %s\n\n", a->path);
	fprintf(f, "experiment '%s', backend '%s', %zu blocks; baseline '%s', alpha %.3g, margin "
		   "+-%.2f%% (%s)\n\n", a->experiment_name, a->backend, a->blocks, a->baseline,
		a->alpha, 100 * a->margin, a->margin_source);
	fprintf(f, "**%s**: %zu FAIL, %zu WARN, %zu PASS\n\n", audit_status_name(audit_worst(a)),
		a->counts[AUDIT_FAIL], a->counts[AUDIT_WARN], a->counts[AUDIT_PASS]);
	fprintf(f, "| check | status | finding |\n|---|---|---|\n");
	for (size_t i = 0; i < a->nchecks; i++) {
		const struct audit_check *k = &a->checks[i];
		fprintf(f, "| %s | %s%s%s | ", k->title, k->status ? "**" : "",
			audit_status_name(k->status), k->status ? "**" : "");
		md_text(f, k->summary ? k->summary : "");
		fputs(" |\n", f);
	}
	for (size_t i = 0; i < a->nchecks; i++) {
		const struct audit_check *k = &a->checks[i];
		fprintf(f, "\n## %s: %s\n\n%s\n", k->title, audit_status_name(k->status),
			k->summary ? k->summary : "");
		if (k->nevidence)
			fputc('\n', f);
		for (size_t e = 0; e < k->nevidence; e++)
			fprintf(f, "- %s\n", k->evidence[e]);
	}
}

int audit_write(const struct audit *a, enum audit_format fmt, FILE *f)
{
	if (fmt == AUDIT_JSON) {
		json_t *j = audit_json(a);
		int rc = json_dumpf(j, f, JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
		json_decref(j);
		fputc('\n', f);
		if (rc)
			return error("cannot write the JSON audit");
	} else {
		audit_md(a, f);
	}
	return ferror(f) ? error_errno("cannot write the audit") : 0;
}
