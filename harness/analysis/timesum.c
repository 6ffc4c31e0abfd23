/* timesum.c: the answer at the end of `harness time` (see timesum.h) */
#include "config.h"
#include "harness/analysis/timesum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/record/recorder.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of the units' info values of key for mode (ok units), NAN when none. */
static double info_median(const struct rec_unit *u, char **infos, size_t n, const char *mode,
			  const char *key)
{
	double *v = xcalloc(n, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		char buf[64];
		if (strcmp(u[i].mode, mode) || strcmp(u[i].status, REC_STATUS_OK) || !infos[i])
			continue;
		const char *s = rec_info_get(infos[i], key, buf, sizeof(buf));
		char *end;
		double x = strtod(s, &end);
		if (*s && !*end && isfinite(x))
			v[k++] = x;
	}
	double m = NAN;
	if (k) {
		qsort(v, k, sizeof(*v), cmp_double);
		m = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	return m;
}

int timesum_build(const char *path, const struct report *r, struct timesum **out)
{
	const struct analysis *a = r->a;
	long cell = analysis_cell(a, TIMESUM_CELL);
	*out = NULL;
	if (cell < 0)
		return error("'%s': no cell '%s' (not a run of modes with timing = \"process\")",
			     path, TIMESUM_CELL);
	struct rec *f = NULL;
	struct rec_unit *u = NULL;
	char **infos = NULL;
	size_t nu = 0, ni = 0;
	int bad = rec_open(path, 0, &f) || rec_read_units(f, &u, &nu) ||
		  rec_read_unit_infos(f, &infos, &ni);
	bad |= rec_close(f) < 0;
	if (!bad && ni != nu)
		bad = error("'%s': %zu units but %zu unit infos", path, nu, ni);
	if (bad) {
		rec_units_free(u, nu);
		for (size_t i = 0; infos && i < ni; i++)
			free(infos[i]);
		free(infos);
		return -1;
	}
	struct timesum *s = xcalloc(1, sizeof(*s));
	s->path = path;
	s->conf = r->o.conf;
	s->nmodes = a->nmodes;
	s->modes = xcalloc(a->nmodes ? a->nmodes : 1, sizeof(*s->modes));
	for (size_t m = 0; m < a->nmodes; m++) {
		struct timesum_mode *x = &s->modes[m];
		const struct rep_summary *sum = &r->sum[m * a->ncells + (size_t)cell];
		x->name = a->modes[m];
		x->baseline = m == r->baseline;
		x->units = sum->n;
		x->wall_ns = sum->n ? sum->s.median : NAN;
		x->user_ns = info_median(u, infos, nu, x->name, "process_user_ns_median");
		x->sys_ns = info_median(u, infos, nu, x->name, "process_sys_ns_median");
		x->ratio = x->lo = x->hi = NAN;
		x->verdict = VERDICT_INCONCLUSIVE;
		x->note = x->baseline ? "" : "no comparison";
		for (size_t k = 0; k < r->ncmp; k++) {
			const struct rep_cmp *c = &r->cmp[k];
			if (c->mode != m || c->cell != (size_t)cell)
				continue;
			x->compared = c->ok;
			x->note = c->ok ? "" : c->note;
			x->ratio = c->c.ratio;
			x->lo = c->c.lo;
			x->hi = c->c.hi;
			x->verdict = c->ok ? c->c.verdict : VERDICT_INCONCLUSIVE;
		}
	}
	rec_units_free(u, nu);
	for (size_t i = 0; i < ni; i++)
		free(infos[i]);
	free(infos);
	*out = s;
	return 0;
}

void timesum_free(struct timesum *s)
{
	if (!s)
		return;
	free(s->modes);
	free(s);
}
