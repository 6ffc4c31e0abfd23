/* experiment-workloads.c: the [[workloads]] of an experiment file: a model or one op at one
 * shape, its dtype and sizes (experiment-int.h) */
#include "config.h"
#include "harness/config/experiment.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/util.h"
#include "harness/config/experiment-int.h"
#include "harness/config/toml-bridge.h"
#include "harness/config/tomlcheck.h"
#include "kernels/backend.h"
#include "kernels/catalog.h"
#include "kernels/tuner.h"

static const char *const workload_keys[] = {
	"name", "model", "op", "shape", "batch", "resolution", "dtype", "tf32",
	"only_on", NULL
};
/* The dtypes a workload may name; which backend has which is the backend's to say. */
static const char *const dtype_names[] = { "float32", "float16", "bfloat16", NULL };

/* ---- [[workloads]] ---------------------------------------------------------------------- */

static size_t count_fields(const struct op_info *op)
{
	size_t n = 0;
	while (op->shape_fields[n])
		n++;
	return n;
}

/* shape = { ... } of an op workload: every field of the op, no other, each an integer
 * >= 1 (pad and dim >= 0).  Stored in the catalog's field order. */
static int parse_shape(struct tc_parser *p, const struct tc_field *f, const struct op_info *op,
		       struct workload *w)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	size_t nf = count_fields(op);
	w->shape = xcalloc(nf, sizeof(*w->shape));
	w->nshape = nf;
	for (size_t k = 0; k < nf; k++) {
		w->shape[k].name = xstrdup(op->shape_fields[k]);
		w->shape[k].value = -1; /* not given yet */
	}
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		struct tc_field g = tc_field_at(f->v, i);
		size_t k = 0;
		while (k < nf && strcmp(op->shape_fields[k], g.key))
			k++;
		if (k == nf) {
			const char *s = tc_suggest(g.key, op->shape_fields);
			if (s)
				return tc_fail(p, g.key_pos, "unknown shape field '%s' for op '%s' "
					    "(did you mean '%s'?)", g.key, op->name, s);
			char *list = tc_join(op->shape_fields);
			tc_fail(p, g.key_pos, "unknown shape field '%s' for op '%s' (it takes %s)",
			     g.key, op->name, list);
			free(list);
			return -1;
		}
		/* pad and dim (the axis a sum runs over) may be 0; every size is >= 1 */
		int zero = !strcmp(g.key, "pad") || !strcmp(g.key, "dim");
		if (exp_get_int(p, &g, zero ? 0 : 1, MAX_SHAPE_DIM, &w->shape[k].value))
			return -1;
	}
	for (size_t k = 0; k < nf; k++)
		if (w->shape[k].value < 0)
			return tc_fail(p, f->pos, "missing shape field '%s' for op '%s'",
				    w->shape[k].name, op->name);
	return 0;
}

/* A model the catalog does not know is only for command modes (their worker builds it). */
int exp_check_models(struct tc_parser *p, const struct experiment *e)
{
	if (p->flags & EXPERIMENT_PAST_RUN)
		return 0;
	for (size_t i = 0; i < e->nworkloads; i++) {
		const struct workload *w = &e->workloads[i];
		if (w->kind != WORKLOAD_MODEL || catalog_model_known(w->model))
			continue;
		size_t ncommand = 0;
		for (size_t m = 0; m < e->nmodes; m++)
			ncommand += e->modes[m].command != NULL;
		for (size_t m = 0; m < e->nmodes; m++) {
			if (e->modes[m].command || !mode_has_workload(&e->modes[m], w->name))
				continue;
			struct tb_pos at = { w->model_line, w->model_col };
			char *list = tc_join(catalog_models);
			if (ncommand)
				tc_fail(p, at, "unknown model '%s' (known models: %s; a command mode's "
					"worker may run others, but mode '%s' is not a command mode)",
					w->model, list, e->modes[m].name);
			else
				tc_fail(p, at, "unknown model '%s' (known models: %s)", w->model, list);
			free(list);
			return -1;
		}
	}
	return 0;
}

static int parse_model_name(struct tc_parser *p, const struct tc_field *f, struct workload *w)
{
	if (exp_get_string(p, f, &w->model))
		return -1;
	w->model_line = f->pos.line;
	w->model_col = f->pos.col;
	if (catalog_model_known(w->model) || (p->flags & EXPERIMENT_PAST_RUN))
		return 0;
	/* Another name is a command mode's business (a torchvision model for the torch
	 * worker): exp_check_models refuses it once the modes are known, unless every mode
	 * runs a command.  It must still be a plain name. */
	int plain = *w->model != 0;
	for (const char *c = w->model; *c; c++)
		plain &= isalnum((unsigned char)*c) || *c == '_' || *c == '-' || *c == '.';
	if (plain)
		return 0;
	char *list = tc_join(catalog_models);
	tc_fail(p, f->pos, "unknown model '%s' (known models: %s)", w->model, list);
	free(list);
	return -1;
}

static int parse_op_name(struct tc_parser *p, const struct tc_field *f, struct workload *w)
{
	if (exp_get_string(p, f, &w->op))
		return -1;
	if (catalog_op(w->op) || (p->flags & EXPERIMENT_PAST_RUN))
		return 0;
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; i < catalog_nops; i++)
		sbuf_addf(&sb, "%s%s", i ? ", " : "", catalog_ops[i].name);
	tc_fail(p, f->pos, "unknown op '%s' (known ops: %s)", w->op, sb.buf);
	sbuf_release(&sb);
	return -1;
}

/* One [[workloads]] table.  *name_pos gets where its name is written (the table itself
 * when the name is the default), for duplicate-name messages. */
static int parse_workload(struct tc_parser *p, const struct tb_node *t, struct workload *w,
			  struct tb_pos *name_pos)
{
	struct tb_pos tpos = tb_node_pos(t);
	w->line = tpos.line;
	w->col = tpos.col;
	w->batch = DEFAULT_BATCH;
	w->resolution = DEFAULT_RESOLUTION;
	*name_pos = tpos;

	/* model and op decide what the other keys may be, wherever they are written */
	size_t imodel = 0, iop = 0;
	const struct tb_node *model = tb_node_get(t, "model", &imodel);
	const struct tb_node *op = tb_node_get(t, "op", &iop);
	const struct op_info *info = NULL;
	if (op && tb_node_kind(op) == TB_STRING)
		info = catalog_op(tb_node_string(op, NULL));

	for (size_t i = 0; i < tb_node_len(t); i++) {
		struct tc_field g = tc_field_at(t, i);
		int r;
		if (!strcmp(g.key, "name")) {
			r = exp_get_name(p, &g, &w->name);
			*name_pos = g.pos;
		} else if (!strcmp(g.key, "model")) {
			if (op && iop < i)
				return tc_fail(p, g.key_pos,
					    "workload has both 'op' and 'model' (give one)");
			w->kind = WORKLOAD_MODEL;
			r = parse_model_name(p, &g, w);
		} else if (!strcmp(g.key, "op")) {
			if (model && imodel < i)
				return tc_fail(p, g.key_pos,
					    "workload has both 'model' and 'op' (give one)");
			w->kind = WORKLOAD_OP;
			r = parse_op_name(p, &g, w);
		} else if (!strcmp(g.key, "shape")) {
			if (!op)
				return tc_fail(p, g.key_pos, "'shape' is only for op workloads");
			/* with an unknown op, the op's own error is the one to report */
			r = info ? parse_shape(p, &g, info, w) : 0;
		} else if (!strcmp(g.key, "batch")) {
			r = exp_get_int(p, &g, 1, MAX_BATCH, &w->batch);
		} else if (!strcmp(g.key, "resolution")) {
			if (op)
				return tc_fail(p, g.key_pos,
					    "'resolution' is only for model workloads");
			r = exp_get_int(p, &g, MIN_RESOLUTION, MAX_RESOLUTION, &w->resolution);
		} else if (!strcmp(g.key, "dtype")) {
			r = exp_get_string(p, &g, &w->dtype);
			int known = 0;
			for (size_t k = 0; !r && dtype_names[k]; k++)
				known |= !strcmp(w->dtype, dtype_names[k]);
			if (!r && !known) {
				char *list = tc_join(dtype_names);
				r = tc_fail(p, g.pos, "unsupported dtype '%s' (dtypes: %s)", w->dtype,
					    list);
				free(list);
			}
		} else if (!strcmp(g.key, "tf32")) {
			r = exp_get_bool(p, &g, &w->tf32);
		} else if (!strcmp(g.key, "only_on")) {
			r = exp_get_only_on(p, &g, &w->backend);
		} else {
			r = tc_unknown_key(p, &g, workload_keys, " in [[workloads]]");
		}
		if (r)
			return -1;
	}
	if (!model && !op)
		return tc_fail(p, tpos, "workload needs 'model' or 'op'");
	if (op && !w->shape && info) {
		char *list = tc_join(info->shape_fields);
		tc_fail(p, tpos, "missing required key 'shape' (op '%s' takes %s)", w->op, list);
		free(list);
		return -1;
	}
	if (!w->name)
		w->name = xstrdup(model ? w->model : w->op);
	if (!w->dtype)
		w->dtype = xstrdup(DEFAULT_DTYPE);
	if (w->tf32 && strcmp(w->dtype, "float32"))
		return tc_fail(p, tpos, "'tf32 = true' is for float32 workloads (dtype is '%s')",
			       w->dtype);
	return 0;
}

int exp_parse_workloads(struct tc_parser *p, const struct tc_field *f, struct experiment *e)
{
	if (exp_want_table_array(p, f))
		return -1;
	size_t n = tb_node_len(f->v);
	e->workloads = xcalloc(n, sizeof(*e->workloads));
	e->nworkloads = n;
	struct tb_pos *name_pos = xcalloc(n, sizeof(*name_pos));
	/* the names seen, by FNV-1a hash (open addressing, linear probing; slot: index + 1, 0
	 * empty; at most half full), so that a duplicate is found in O(1), not by comparing
	 * with every earlier workload (50,000 workloads took half a minute) */
	size_t cap = 64;
	while (cap < 2 * n)
		cap *= 2;
	size_t *slot = xcalloc(cap, sizeof(*slot));
	int ret = -1;
	for (size_t i = 0; i < n; i++) {
		struct workload *w = &e->workloads[i];
		if (parse_workload(p, tb_node_at(f->v, i), w, &name_pos[i]))
			goto done;
		uint64_t h = 0xcbf29ce484222325ULL;
		for (const char *c = w->name; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
		size_t k = h & (cap - 1);
		for (; slot[k]; k = (k + 1) & (cap - 1)) {
			size_t j = slot[k] - 1;
			if (!strcmp(e->workloads[j].name, w->name)) {
				tc_fail(p, name_pos[i],
				     "duplicate workload name '%s' (first at line %d)", w->name,
				     name_pos[j].line);
				goto done;
			}
		}
		slot[k] = i + 1;
	}
	ret = 0;
done:
	free(slot);
	free(name_pos);
	return ret;
}
