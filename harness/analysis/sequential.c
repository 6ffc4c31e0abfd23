/* sequential.c: the looks of a run that adds blocks until decided (sequential.h) */
#include "config.h"
#include "harness/analysis/sequential.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/hyp.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"

int seq_design_read(const struct rec_meta *m, const char *path, struct seq_design *d)
{
	memset(d, 0, sizeof(*d));
	const char *sp = rec_meta_get(m, "sequential");
	if (!sp || !*sp)
		return 0;
	d->on = 1;
	d->alpha = 0.05;
	const char *mx = rec_meta_get(m, "sequential_max_repeats");
	const char *until = rec_meta_get(m, "sequential_until");
	const char *looks = rec_meta_get(m, "sequential_looks");
	const char *tot = rec_meta_get(m, "sequential_alpha_total");
	d->stopped = rec_meta_get(m, "sequential_stopped");
	if (!d->stopped)
		d->stopped = "";
	if (stats_spending_parse(sp, &d->spending) || !mx ||
	    parse_i64(mx, 1, INT32_MAX, &d->max_repeats) || !until ||
	    (strcmp(until, "primary") && strcmp(until, "cells")) ||
	    (tot && *tot && parse_double(tot, 1e-9, 0.5, &d->alpha)))
		return error("'%s': its sequential design (sequential, sequential_max_repeats, "
			     "sequential_until) is damaged", path);
	d->until_cells = !strcmp(until, "cells");
	json_t *j = looks && *looks ? json_loads(looks, 0, NULL) : json_array();
	if (!json_is_array(j)) {
		json_decref(j);
		return error("'%s': its sequential_looks is not a JSON array", path);
	}
	d->nlooks = json_array_size(j);
	d->look_blocks = xcalloc(d->nlooks + 1, sizeof(*d->look_blocks)); /* + 1: never 0 */
	for (size_t i = 0; i < d->nlooks; i++) {
		json_t *b = json_object_get(json_array_get(j, i), "blocks");
		json_int_t v = json_is_integer(b) ? json_integer_value(b) : 0;
		if (v < 1 || v > d->max_repeats || (i && (size_t)v <= d->look_blocks[i - 1])) {
			json_decref(j);
			seq_design_release(d);
			return error("'%s': its sequential_looks is damaged: look %zu's blocks are "
				     "not a count above the last look's and at most %" PRId64, path,
				     i + 1, d->max_repeats);
		}
		d->look_blocks[i] = (size_t)v;
	}
	json_decref(j);
	return 0;
}

void seq_design_release(struct seq_design *d)
{
	free(d->look_blocks);
	d->look_blocks = NULL;
}

/* The recorded units' wall time, seconds (0 when the file cannot tell). */
static double units_seconds(const char *path)
{
	struct rec *f = NULL;
	struct rec_unit *u = NULL;
	size_t n = 0;
	double s = 0;
	if (rec_open(path, 0, &f) == 0 && rec_read_units(f, &u, &n) == 0)
		for (size_t i = 0; i < n; i++)
			s += (double)u[i].wall_ns / 1e9;
	rec_units_free(u, n);
	rec_close(f);
	return s;
}

int seq_look(const char *path, const struct seq_design *d, struct seq_look *out)
{
	struct analysis *a = NULL;
	struct report *r = NULL;
	struct hyp_set *set = NULL;
	struct hyp_eval *e = NULL;
	int ret = -1;
	memset(out, 0, sizeof(*out));
	if (analysis_load(path, &a))
		goto done;
	out->blocks = (int64_t)a->nblocks;
	size_t last = d->nlooks ? d->look_blocks[d->nlooks - 1] : 0;
	out->spent = stats_seq_alpha(d->alpha, last, a->nblocks, (size_t)d->max_repeats,
				     d->spending);
	size_t *looks = xmalloc((d->nlooks + 1) * sizeof(*looks));
	memcpy(looks, d->look_blocks, d->nlooks * sizeof(*looks));
	looks[d->nlooks] = a->nblocks;
	out->alpha = isnan(out->spent) ? NAN
				       : stats_seq_level_t(d->alpha, looks, d->nlooks + 1,
							   (size_t)d->max_repeats, d->spending);
	free(looks);
	if (isnan(out->alpha)) {
		error("'%s': a look after %zu blocks follows one after %zu of at most %" PRId64
		      ": no level to spend", path, a->nblocks, last, d->max_repeats);
		goto done;
	}
	struct report_opts o;
	report_opts_init(&o);
	o.alpha = out->alpha;
	o.alpha_given = 1;
	o.conf = 1 - out->alpha;
	o.alpha_scale = out->alpha / d->alpha;
	if (report_build(a, &o, &r) || hyp_set_load(path, &a->meta, NULL, 0, NULL, &set) ||
	    hyp_evaluate(r, set, &e))
		goto done;
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "");
	for (size_t i = 0; i < e->nr; i++) {
		if (!e->r[i].h->primary)
			continue;
		out->primary++;
		if (e->r[i].verdict != HYP_INCONCLUSIVE)
			out->decided++;
		else
			sbuf_addf(&sb, "%s%s", sb.len ? ", " : "", e->r[i].h->id);
	}
	out->undecided = sbuf_detach(&sb);
	for (size_t i = 0; i < r->ncmp; i++) {
		if (!r->cmp[i].ok || !strcmp(r->cmp[i].family, "aa"))
			continue;
		out->cells++;
		out->cells_decided += r->cmp[i].c.verdict != VERDICT_INCONCLUSIVE;
	}
	out->done = out->decided == out->primary &&
		    (!d->until_cells || out->cells_decided == out->cells);
	out->unit_s = units_seconds(path);
	ret = 0;
done:
	hyp_eval_free(e);
	hyp_set_free(set);
	report_free(r);
	analysis_free(a);
	if (ret)
		seq_look_release(out);
	return ret;
}

void seq_look_release(struct seq_look *l)
{
	free(l->undecided);
	l->undecided = NULL;
}

char *seq_looks_append(const char *looks, const struct seq_look *l)
{
	json_t *j = looks && *looks ? json_loads(looks, 0, NULL) : NULL;
	if (!json_is_array(j)) {
		json_decref(j);
		j = json_array();
	}
	json_array_append_new(j, json_pack("{s:I, s:f, s:f, s:I, s:I, s:I, s:I, s:b, s:f, s:s}",
					   "blocks", (json_int_t)l->blocks, "alpha", l->alpha,
					   "spent", l->spent, "primary",
					   (json_int_t)l->primary, "primary_decided",
					   (json_int_t)l->decided, "cells", (json_int_t)l->cells,
					   "cells_decided", (json_int_t)l->cells_decided, "done",
					   l->done, "unit_s", l->unit_s, "undecided",
					   l->undecided ? l->undecided : ""));
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!s)
		die("out of memory");
	char *out = xstrdup(s);
	free(s);
	return out;
}
