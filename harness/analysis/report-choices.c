/* report-choices.c: where a mode's units chose differently (report.h, struct rep_choice).
 * A mode run again in a fresh process may choose other kernels: a tuner that measures picks
 * among near-equal candidates by noise (Inductor's launch-time autotuning), a heuristic may
 * read the device.  Per mode, with its A/A copies (the same configuration), and cell, the
 * configs its ok cold units chose and the median of each group's unit medians: what the slow
 * units ran that the fast ones did not. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/report-int.h"
#include "harness/base/util.h"

static int row_cmp(const void *x, const void *y)
{
	const struct rep_choice *a = x, *b = y;
	return (a->median_ns > b->median_ns) - (a->median_ns < b->median_ns);
}

/* The mode mode g is an A/A copy of, when that mode is among the analysis's; else -1 (g is
 * no copy, or its original did not run here: it then leads a group of its own). */
static long copy_of(const struct analysis *a, size_t g)
{
	return a->aa_of[g] ? analysis_mode(a, a->aa_of[g]) : -1;
}

/* 1 when mode g belongs to m's group: m itself or an A/A copy of it. */
static int in_group(const struct analysis *a, size_t g, size_t m)
{
	return g == m || copy_of(a, g) == (long)m;
}

/* The unit of mode g in block b chose a config in cell c and has a unit median there. */
static const char *chosen(const struct analysis *a, size_t g, size_t c, size_t b)
{
	const char *cfg = a->choice[(g * a->ncells + c) * a->nblocks + b];
	return cfg && !isnan(an_med(a, g, c, b)) ? cfg : NULL;
}

/* Kernel k's config in a per-kernel detail ("name=config;name=config;..."): a heap copy,
 * NULL when the detail does not name it. */
static char *kernel_config(const char *detail, const char *k, size_t kl)
{
	for (const char *p = detail; p && *p;) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len > kl && !strncmp(p, k, kl) && p[kl] == '=')
			return xstrndup(p + kl + 1, len - kl - 1);
		p = e ? e + 1 : p + len;
	}
	return NULL;
}

/* The ", "-separated parts of config x that config y lacks, joined by ", " (heap): what
 * differs of two Triton configs ("XBLOCK: 1024, num_warps: 4" of "XBLOCK: 1024, num_warps: 4,
 * num_stages: 1" against "XBLOCK: 512, num_warps: 8, num_stages: 1"). */
static char *parts_unlike(const char *x, const char *y)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "");
	size_t yl = strlen(y);
	for (const char *p = x; *p;) {
		const char *e = strstr(p, ", ");
		size_t len = e ? (size_t)(e - p) : strlen(p), found = 0;
		for (const char *q = y; !found && q < y + yl;) {
			const char *f = strstr(q, ", ");
			size_t ql = f ? (size_t)(f - q) : strlen(q);
			found = ql == len && !strncmp(p, q, len);
			q = f ? f + 2 : q + ql;
		}
		if (!found)
			sbuf_addf(&sb, "%s%.*s", sb.len ? ", " : "", (int)len, p);
		p = e ? e + 2 : p + len;
	}
	return sb.buf;
}

/* Append to sb, for each kernel named in `from` whose config in `other` differs (or is
 * absent), "name: from's (fastest: other's)", of two configs the parts that differ (swap:
 * the two the other way round); at most KERNELS_SHOWN kernels, *n counts them all. */
#define KERNELS_SHOWN 6
static void diff_side(struct sbuf *sb, const char *from, const char *other, int swap, size_t *n)
{
	for (const char *p = from; p && *p;) {
		const char *e = strchr(p, ';'), *eq = strchr(p, '=');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (eq && eq < p + len) {
			size_t kl = (size_t)(eq - p);
			char *mine = xstrndup(eq + 1, len - kl - 1), *theirs = kernel_config(other, p, kl);
			if ((swap ? !theirs : !theirs || strcmp(mine, theirs)) &&
			    (*n)++ < KERNELS_SHOWN) {
				char *a = theirs ? parts_unlike(mine, theirs) : xstrdup(mine);
				char *b = theirs ? parts_unlike(theirs, mine) : NULL;
				if (!*a) { /* every part of a is in b: b has more */
					free(a);
					a = xstrdup("-");
				}
				sbuf_addf(sb, "%s%.*s: %s (fastest: %s)", sb->len ? "; " : "", (int)kl,
					  p, swap ? "absent" : a, swap ? a : b && *b ? b : b ? "-" : "absent");
				free(a);
				free(b);
			}
			free(mine);
			free(theirs);
		}
		p = e ? e + 1 : p + len;
	}
}

/* What differs between the fastest config's per-kernel detail and this one's: heap, NULL
 * when either has none or they are the same. */
static char *kernels_differ(const char *fastest, const char *detail)
{
	if (!fastest || !detail)
		return NULL;
	struct sbuf sb;
	sbuf_init(&sb);
	size_t n = 0;
	diff_side(&sb, detail, fastest, 0, &n);
	diff_side(&sb, fastest, detail, 1, &n);
	if (n > KERNELS_SHOWN)
		sbuf_addf(&sb, "; and %zu more", n - KERNELS_SHOWN);
	if (!n) {
		sbuf_release(&sb);
		return NULL;
	}
	return sb.buf;
}

/* The rows of mode m's group in cell c, appended to r->choices when its units chose two
 * configs or more.  v, w: scratch for nmodes * nblocks values each. */
static void cell_rows(struct report *r, size_t m, size_t c, double *v, double *w)
{
	const struct analysis *a = r->a;
	size_t nb = a->nblocks, start = r->nchoices, copies = 0;
	for (size_t g = 0; g < a->nmodes; g++)
		copies += g != m && in_group(a, g, m);
	for (size_t g = 0; g < a->nmodes; g++)
		for (size_t b = 0; in_group(a, g, m) && b < nb; b++) {
			const char *cfg = chosen(a, g, c, b);
			size_t k = start;
			while (cfg && k < r->nchoices && strcmp(r->choices[k].config, cfg))
				k++;
			if (cfg && k == r->nchoices) {
				r->choices = xrealloc(r->choices, (k + 1) * sizeof(*r->choices));
				r->choices[k] = (struct rep_choice){ .mode = m, .cell = c,
								     .with_copies = copies > 0,
								     .config = cfg };
				r->nchoices++;
			}
		}
	if (r->nchoices - start < 2) { /* one config (or none): nothing differs */
		r->nchoices = start;
		return;
	}
	for (size_t k = start; k < r->nchoices; k++) {
		struct rep_choice *q = &r->choices[k];
		q->block = xmalloc(a->nmodes * nb * sizeof(*q->block));
		q->unit_mode = xmalloc(a->nmodes * nb * sizeof(*q->unit_mode));
		for (size_t g = 0; g < a->nmodes; g++)
			for (size_t b = 0; in_group(a, g, m) && b < nb; b++) {
				const char *cfg = chosen(a, g, c, b);
				if (!cfg || strcmp(cfg, q->config))
					continue;
				if (!q->units && a->detail)
					q->detail = a->detail[(g * a->ncells + c) * nb + b];
				v[q->units] = an_med(a, g, c, b);
				q->block[q->units] = a->blocks[b];
				q->unit_mode[q->units++] = g;
			}
		q->median_ns = stats_median(v, 1, q->units, w);
	}
	qsort(r->choices + start, r->nchoices - start, sizeof(*r->choices), row_cmp);
	for (size_t k = start; k < r->nchoices; k++) {
		r->choices[k].ratio = r->choices[k].median_ns / r->choices[start].median_ns;
		if (k > start)
			r->choices[k].differs = kernels_differ(r->choices[start].detail,
							       r->choices[k].detail);
	}
}

void report_choices(struct report *r)
{
	const struct analysis *a = r->a;
	if (!a->choice)
		return;
	size_t n = a->nmodes * a->nblocks + 1;
	double *v = xmalloc(2 * n * sizeof(*v));
	for (size_t m = 0; m < a->nmodes; m++)
		for (size_t c = 0; copy_of(a, m) < 0 && c < a->ncells; c++)
			cell_rows(r, m, c, v, v + n);
	free(v);
}

void report_choices_free(struct report *r)
{
	for (size_t k = 0; k < r->nchoices; k++) {
		free(r->choices[k].block);
		free(r->choices[k].unit_mode);
		free(r->choices[k].differs);
	}
	free(r->choices);
}
