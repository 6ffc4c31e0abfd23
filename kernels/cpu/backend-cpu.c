/* backend-cpu.c: the "cpu" backend: workloads to cells, prepare (compile or load a config,
 * run it once, check it against float64), timed samples, provenance (docs/kernels.md) */
#include "config.h"
#include "kernels/cpu/cpu.h"

#include <cblas.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/sysinfo.h"

/* Last-level cache size when sysfs does not say. */
#define DEFAULT_LLC_BYTES ((size_t)32 << 20)

struct cpu_cell {
	struct cell pub;
	/* op cells */
	struct cpu_shape shape;
	struct space space;              /* ctx points at shape */
	int has_impl;                    /* a config is current */
	const struct cpu_kernel *kernel; /* the current implementation; NULL: vendor */
	float *x, *w, *y, *work;         /* allocated and filled at the first prepare */
	struct cpu_ref ref;
	int has_ref;
	/* e2e cells */
	struct cpu_model *model;
	int model_ready;                 /* model data allocated and filled */
	int e2e_ok;                      /* the last prepare succeeded */
};

struct backend {
	char *cache_dir;
	char *kernel_dir;
	uint64_t seed;
	int64_t threads;                 /* OpenBLAS threads set at open (0: its default) */
	struct cpu_jit *jit;
	gsl_rng *rng;
	struct cpu_cell **cells;
	size_t ncells, cap;
	size_t llc_bytes;
	const char *llc_source;          /* "sysfs" or "default" */
	unsigned char *flush;            /* 2 x llc_bytes, allocated at the first flush */
	size_t flush_len;
	volatile unsigned char sink;
};

/* ---- helpers --------------------------------------------------------------------------- */

/* splitmix64 finaliser (Steele et al. 2014): spreads a seed over all bits. */
static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Each cell's data depends on the run's seed and the cell's name only, never on the order
 * in which cells are prepared. */
static void seed_rng(struct backend *b, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	gsl_rng_set(b->rng, (unsigned long)(mix64(b->seed ^ h) & 0xffffffffUL));
}

static float *uniform_buf(gsl_rng *rng, size_t n)
{
	float *p = xmalloc((n ? n : 1) * sizeof(*p));
	for (size_t i = 0; i < n; i++)
		p[i] = (float)(2.0 * gsl_rng_uniform(rng) - 1.0);
	return p;
}

/* The last-level cache from sysfs (sysinfo.h), else DEFAULT_LLC_BYTES. */
static void detect_llc(struct backend *b)
{
	long llc = sysinfo_llc_bytes();
	b->llc_bytes = llc > 0 ? (size_t)llc : DEFAULT_LLC_BYTES;
	b->llc_source = llc > 0 ? "sysfs" : "default";
}

/* Write and read every cache line of a buffer twice the last-level cache, so the timed
 * call starts with caches holding none of its data. */
static void flush_caches(struct backend *b)
{
	if (!b->flush) {
		b->flush_len = 2 * b->llc_bytes;
		b->flush = xmalloc(b->flush_len);
		memset(b->flush, 1, b->flush_len);
	}
	unsigned char acc = 0;
	for (size_t i = 0; i < b->flush_len; i += 64) {
		b->flush[i]++;
		acc ^= b->flush[i];
	}
	b->sink = acc;
}

static struct cpu_cell *new_cell(struct backend *b, enum cell_kind kind, const char *workload,
				 const char *op, const char *shape)
{
	struct cpu_cell *c = xcalloc(1, sizeof(*c));
	c->pub.kind = kind;
	c->pub.workload = xstrdup(workload);
	c->pub.op = xstrdup(op);
	c->pub.shape = xstrdup(shape);
	c->pub.name = kind == CELL_E2E ? xasprintf("%s/e2e", workload)
				       : xasprintf("%s/%s:%s", workload, op, shape);
	c->pub.count = 1;
	XGROW(b->cells, b->cap, b->ncells + 1);
	b->cells[b->ncells++] = c;
	return c;
}

static void free_cell(struct cpu_cell *c)
{
	free(c->pub.name);
	free(c->pub.workload);
	free(c->pub.op);
	free(c->pub.shape);
	free(c->x);
	free(c->w);
	free(c->y);
	free(c->work);
	cpu_ref_release(&c->ref);
	cpu_model_free(c->model);
	free(c);
}

static int name_taken(const struct backend *b, const char *name)
{
	for (size_t i = 0; i < b->ncells; i++)
		if (!strcmp(b->cells[i]->pub.name, name))
			return 1;
	return 0;
}

/* ---- backend_ops ----------------------------------------------------------------------- */

static int cpu_available(char **why)
{
	return 1;
}

static void cpu_close(struct backend *b);

/* OpenBLAS's thread count is process-wide: set here from [measure] threads (>= 1; 0
 * leaves OpenBLAS's default) and reported by describe(). */
static struct backend *cpu_open(const struct backend_ctx *ctx, char **cause)
{
	struct backend *b = xcalloc(1, sizeof(*b));
	/* HARNESS_KERNEL_CACHE_DIR: a kernel cache shared across units, as frameworks offer
	 * (TORCHINDUCTOR_CACHE_DIR set to one folder for every run).  When set, compiled kernels
	 * are written to and looked up in that directory (created when missing; its parent must exist) instead of the
	 * unit's fresh cache dir.  It defeats the harness's cache isolation on purpose: it is
	 * the real way to plant a cache leak for `harness audit` to catch (docs/audit.md).  The
	 * unit's recorded cache_dir stays its own; the variable shows in its recorded env. */
	if (backend_env_dir("HARNESS_KERNEL_CACHE_DIR", 0777, ctx->cache_dir, &b->cache_dir,
			    cause))
		goto fail;
	b->kernel_dir = xstrdup(ctx->kernel_dir ? ctx->kernel_dir : backend_kernel_dir());
	b->seed = ctx->seed;
	if (cpu_vendor_init(cause))
		goto fail;
	b->jit = cpu_jit_alloc(b->cache_dir, b->kernel_dir, cause);
	if (!b->jit)
		goto fail;
	b->rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!b->rng) {
		*cause = xstrdup("cannot allocate the GSL random number generator");
		goto fail;
	}
	b->threads = ctx->threads;
	if (b->threads >= 1)
		openblas_set_num_threads((int)b->threads);
	detect_llc(b);
	return b;
fail:
	cpu_close(b);
	return NULL;
}

/* A model: one cell per distinct (op, shape) with count = occurrences, then the e2e cell.
 * Each forward step points at its cell's current kernel. */
static int add_model(struct backend *b, const struct workload *w, char **cause)
{
	struct cpu_model *m = NULL;
	struct sbuf shape;
	size_t first = b->ncells;

	if (cpu_model_build(w->model, w->batch, w->resolution, &m, cause))
		return -1;
	sbuf_init(&shape);
	for (size_t i = 0; i < m->nsteps; i++) {
		struct cpu_step *st = &m->steps[i];
		if (st->kind != CPU_STEP_OP)
			continue;
		sbuf_reset(&shape);
		cpu_shape_format(&st->shape, &shape);
		const char *op = cpu_op_name(st->shape.op);
		size_t c = first;
		while (c < b->ncells && (strcmp(b->cells[c]->pub.op, op) ||
					 strcmp(b->cells[c]->pub.shape, shape.buf)))
			c++;
		if (c == b->ncells) {
			struct cpu_cell *cell = new_cell(b, CELL_OP, w->name, op, shape.buf);
			cell->shape = st->shape;
			cell->pub.count = 0;
			cell->pub.flops = cpu_shape_flops(&cell->shape);
			cpu_space_init(&cell->space, &cell->shape);
		}
		b->cells[c]->pub.count++;
		st->cell = c;
		st->kernel = &b->cells[c]->kernel;
	}
	sbuf_reset(&shape);
	sbuf_addf(&shape, "batch=%" PRId64 ",resolution=%" PRId64, w->batch, w->resolution);
	struct cpu_cell *e2e = new_cell(b, CELL_E2E, w->name, "e2e", shape.buf);
	e2e->model = m;
	e2e->pub.flops = cpu_model_flops(m);
	sbuf_release(&shape);
	return 0;
}

/* float32 only, no TF32; models and ops the catalog and cpu_shape_from_workload know. */
static int cpu_supports(const struct workload *w, char **why)
{
	const char *name = w->name ? w->name : (w->model ? w->model : w->op);
	if (w->dtype && strcmp(w->dtype, "float32")) {
		*why = xasprintf("workload '%s': dtype '%s' is not supported by the cpu backend "
				 "(float32 only)", name, w->dtype);
		return 0;
	}
	if (w->tf32) {
		*why = xasprintf("workload '%s': 'tf32 = true' needs tensor cores (cuda backend)",
				 name);
		return 0;
	}
	if (w->kind == WORKLOAD_OP) {
		struct cpu_shape s;
		char *e = NULL;
		if (cpu_shape_from_workload(&s, w, &e)) {
			*why = xasprintf("workload '%s': %s", name, e);
			free(e);
			return 0;
		}
	}
	return 1;
}

static int cpu_add_workload(struct backend *b, const struct workload *w, char **cause)
{
	const char *name = w->name ? w->name : (w->model ? w->model : w->op);
	if (!cpu_supports(w, cause))
		return -1;
	for (size_t i = 0; i < b->ncells; i++) {
		if (!strcmp(b->cells[i]->pub.workload, name)) {
			*cause = xasprintf("workload '%s' is given twice", name);
			return -1;
		}
	}
	if (w->kind == WORKLOAD_MODEL) {
		struct workload named = *w;
		named.name = (char *)name;
		return add_model(b, &named, cause);
	}

	struct cpu_shape s;
	struct sbuf shape;
	char *why = NULL;
	if (cpu_shape_from_workload(&s, w, &why)) {
		*cause = xasprintf("workload '%s': %s", name, why);
		free(why);
		return -1;
	}
	sbuf_init(&shape);
	cpu_shape_format(&s, &shape);
	char *cell_name = xasprintf("%s/%s:%s", name, w->op, shape.buf);
	int taken = name_taken(b, cell_name);
	free(cell_name);
	if (taken) {
		*cause = xasprintf("workload '%s': cell '%s/%s:%s' exists already", name, name,
				   w->op, shape.buf);
		sbuf_release(&shape);
		return -1;
	}
	struct cpu_cell *cell = new_cell(b, CELL_OP, name, w->op, shape.buf);
	sbuf_release(&shape);
	cell->shape = s;
	cell->pub.flops = cpu_shape_flops(&s);
	cpu_space_init(&cell->space, &cell->shape);
	return 0;
}

static size_t cpu_ncells(const struct backend *b)
{
	return b->ncells;
}

static const struct cell *cpu_cell(const struct backend *b, size_t i)
{
	return i < b->ncells ? &b->cells[i]->pub : NULL;
}

static const struct space *cpu_space(const struct backend *b, size_t i)
{
	if (i >= b->ncells || b->cells[i]->pub.kind != CELL_OP)
		return NULL;
	return &b->cells[i]->space;
}

/* Inputs uniform(-1, 1) from the cell's seed; outputs zeroed. */
static void alloc_op_data(struct backend *b, struct cpu_cell *c)
{
	struct cpu_sizes z;
	cpu_shape_sizes(&c->shape, &z);
	seed_rng(b, c->pub.name);
	c->x = uniform_buf(b->rng, z.x);
	c->w = uniform_buf(b->rng, z.w);
	c->y = xcalloc(z.y ? z.y : 1, sizeof(float));
	c->work = z.work ? xcalloc(z.work, sizeof(float)) : NULL;
}

/* The e2e cell's steps, each checked to have a current config. */
static int e2e_ready(const struct backend *b, const struct cpu_cell *e, char **cause)
{
	for (size_t i = 0; i < e->model->nsteps; i++) {
		const struct cpu_step *st = &e->model->steps[i];
		if (st->kind == CPU_STEP_OP && !b->cells[st->cell]->has_impl) {
			*cause = xasprintf("cell '%s' needs every op cell prepared: '%s' has no "
					   "current config", e->pub.name, b->cells[st->cell]->pub.name);
			return -1;
		}
	}
	return 0;
}

/* The whole forward with each op cell's current config; its check is that the logits
 * are finite (each op was checked against float64 when its config was prepared). */
static int prepare_e2e(struct backend *b, struct cpu_cell *e, struct prepare_result *res,
		       char **cause)
{
	e->e2e_ok = 0;
	if (e2e_ready(b, e, cause))
		return -1;
	if (!e->model_ready) {
		seed_rng(b, e->pub.name);
		cpu_model_init_data(e->model, b->rng);
		e->model_ready = 1;
	}
	int64_t t0 = util_now_ns();
	cpu_model_forward(e->model);
	const float *out = e->model->slots[e->model->out_slot];
	size_t bad = e->model->nout;
	for (size_t i = 0; i < e->model->nout && bad == e->model->nout; i++)
		if (!isfinite(out[i]))
			bad = i;
	res->check_ns = util_now_ns() - t0;
	if (bad < e->model->nout) {
		res->status = PREPARE_INCORRECT;
		res->max_rel_err = INFINITY;
		res->detail = xasprintf("the forward's output %zu of %zu is not finite (%g)", bad,
					e->model->nout, (double)out[bad]);
		return 0;
	}
	e->e2e_ok = 1;
	return 0;
}

static int cpu_prepare(struct backend *b, size_t i, const struct config *cfg,
		       struct prepare_result *res, char **cause)
{
	memset(res, 0, sizeof(*res));
	res->status = PREPARE_OK;
	if (i >= b->ncells) {
		*cause = xasprintf("no cell %zu (there are %zu)", i, b->ncells);
		return -1;
	}
	struct cpu_cell *c = b->cells[i];
	if (c->pub.kind == CELL_E2E) {
		if (cfg) {
			*cause = xasprintf("cell '%s' takes no config", c->pub.name);
			return -1;
		}
		return prepare_e2e(b, c, res, cause);
	}
	if (!cfg || !space_contains(&c->space, cfg)) {
		struct sbuf sb;
		sbuf_init(&sb);
		if (cfg)
			config_format(&c->space, cfg, &sb);
		*cause = xasprintf("config '%s' is not a point of cell '%s''s space",
				   cfg ? sb.buf : "(none)", c->pub.name);
		sbuf_release(&sb);
		return -1;
	}

	const struct cpu_kernel *k = NULL;
	c->has_impl = 0;
	c->kernel = NULL;
	if (!c->x)
		alloc_op_data(b, c);
	if (!cfg->vendor) {
		if (cpu_jit_get(b->jit, cpu_op_template(c->shape.op), &c->space, cfg, &k, res,
				cause))
			return -1;
		if (res->status != PREPARE_OK)
			return 0;
	}

	int64_t t0 = util_now_ns();
	cpu_op_run(&c->shape, k, c->x, c->w, c->y, c->work);
	if (!c->has_ref) {
		cpu_ref_compute(&c->shape, c->x, c->w, &c->ref);
		c->has_ref = 1;
	}
	size_t worst;
	res->max_rel_err = cpu_ref_error(&c->ref, c->y, &worst);
	res->check_ns = util_now_ns() - t0;
	if (!(res->max_rel_err <= c->ref.tol)) {
		res->status = PREPARE_INCORRECT;
		res->detail = xasprintf("output %zu is off by %.3g relative to its scale, over the "
					"tolerance %.3g (gamma_%" PRId64 " for float32)", worst,
					res->max_rel_err, c->ref.tol, c->ref.len);
		return 0;
	}
	c->has_impl = 1;
	c->kernel = k;
	return 0;
}

/* The CPU has no clock reading or throttle flag to give: out keeps SAMPLE_INIT's. */
static int cpu_sample(struct backend *b, size_t i, int flush, struct sample *out, char **cause)
{
	if (i >= b->ncells) {
		*cause = xasprintf("no cell %zu (there are %zu)", i, b->ncells);
		return -1;
	}
	struct cpu_cell *c = b->cells[i];
	if (c->pub.kind == CELL_E2E) {
		if (!c->e2e_ok) {
			*cause = xasprintf("cell '%s' was not prepared", c->pub.name);
			return -1;
		}
		if (e2e_ready(b, c, cause))
			return -1;
	} else if (!c->has_impl) {
		*cause = xasprintf("cell '%s' has no current config", c->pub.name);
		return -1;
	}
	if (flush)
		flush_caches(b);
	int64_t t0 = util_now_ns();
	if (c->pub.kind == CELL_E2E)
		cpu_model_forward(c->model);
	else
		cpu_op_run(&c->shape, c->kernel, c->x, c->w, c->y, c->work);
	out->ns = util_now_ns() - t0;
	out->launches = 1;
	return 0;
}

/* An op's space without a shape: cpu_space_init's fields and vendor candidate. */
static int cpu_op_space(const char *op, struct space *out)
{
	static struct cpu_shape shapes[CPU_NOPS];
	int k = cpu_op_from_name(op);
	if (k < 0)
		return -1;
	shapes[k].op = (enum cpu_op)k;
	cpu_space_init(out, &shapes[k]);
	out->valid = NULL;
	out->heuristic = NULL;
	out->ctx = NULL;
	return 0;
}

static void cpu_counters(const struct backend *b, struct backend_counters *out)
{
	cpu_jit_counters(b->jit, out);
}

static void cpu_describe(const struct backend *b, struct sbuf *out)
{
	sbuf_adds(out, "backend=cpu\n");
	sbuf_addf(out, "kernel_dir=%s\n", b->kernel_dir);
	cpu_jit_describe(b->jit, out);
	const char *cfg = openblas_get_config();
	const char *core = openblas_get_corename();
	sbuf_addf(out, "openblas_config=%s\n", cfg ? cfg : "unknown");
	sbuf_addf(out, "openblas_core=%s\n", core ? core : "unknown");
	sbuf_addf(out, "openblas_library=%s\n", cpu_vendor_library());
	sbuf_addf(out, "openblas_threads=%d\n", openblas_get_num_threads());
	sbuf_adds(out, "kernel_threads=1\n");
	sbuf_addf(out, "llc_bytes=%zu\n", b->llc_bytes);
	sbuf_addf(out, "llc_source=%s\n", b->llc_source);
	sbuf_addf(out, "flush_bytes=%zu\n", 2 * b->llc_bytes);
	sbuf_adds(out, "tolerance=gamma_n = n u / (1 - n u), u = 2^-24, n = accumulation "
		       "length; relative to sum |a b|\n");
}

/* At the end of the unit: each prepared e2e cell's forward itemised (models.c), so the
 * report can name the time outside the op cells. */
static void cpu_describe_end(const struct backend *b, struct sbuf *out)
{
	for (size_t i = 0; i < b->ncells; i++) {
		struct cpu_cell *c = b->cells[i];
		if (c->pub.kind == CELL_E2E && c->e2e_ok && c->model_ready)
			cpu_model_describe_parts(c->model, c->pub.name, 5, out);
	}
}

/* The OpenBLAS this process loaded, for the run's metadata (key "openblas"). */
static void cpu_describe_build(struct sbuf *out)
{
	const char *cfg = openblas_get_config();
	char *copy = xstrdup(cfg ? cfg : "");
	char *s = copy, *e = copy + strlen(copy);
	while (isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	sbuf_addf(out, "openblas=%s\n", *s ? s : "unknown");
	free(copy);
}

static void cpu_close(struct backend *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->ncells; i++)
		free_cell(b->cells[i]);
	free(b->cells);
	cpu_jit_free(b->jit);
	if (b->rng)
		gsl_rng_free(b->rng);
	free(b->flush);
	free(b->cache_dir);
	free(b->kernel_dir);
	free(b);
}

const struct backend_ops backend_cpu = {
	.name = "cpu",
	.available = cpu_available,
	.open = cpu_open,
	.supports = cpu_supports,
	.add_workload = cpu_add_workload,
	.ncells = cpu_ncells,
	.cell = cpu_cell,
	.space = cpu_space,
	.op_space = cpu_op_space,
	.prepare = cpu_prepare,
	.sample = cpu_sample,
	.counters = cpu_counters,
	.describe = cpu_describe,
	.describe_end = cpu_describe_end,
	.describe_build = cpu_describe_build,
	.close = cpu_close,
};
