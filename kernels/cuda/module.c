/* module.c: the CUDA backend's templates, its cubin cache in the unit's cache directory
 * (keyed by SHA-256 of template, options, NVRTC version and architecture), loaded modules and
 * compiling a cell's plan ahead on a pool of threads, overlapped with benchmarking
 * (compile.h) */
#include "config.h"
#include "kernels/cuda/device.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

const char *const cuda_template_names[CUDA_NTEMPLATES] = { "gemm.cu", "maxpool.cu", "avgpool.cu",
					       "reduce.cu", "bias_relu.cu",
					       "reference.cu", "conv.cu" };

/* ---- templates, the cubin cache, modules --------------------------------------------- */

static struct cuda_template *get_template(struct backend *b, const char *name, char **cause)
{
	for (size_t i = 0; i < ARRAY_SIZE(b->tmpl); i++) {
		struct cuda_template *t = &b->tmpl[i];
		if (strcmp(t->name, name))
			continue;
		if (!t->text) {
			char *dir = xasprintf("%s/cuda/templates", b->kernel_dir);
			int rc = cuda_template_read(dir, name, &t->text, &t->len, cause);
			free(dir);
			if (rc)
				return NULL;
			util_sha256_hex(t->text, t->len, t->sha256);
		}
		return t;
	}
	*cause = xasprintf("no CUDA template '%s'", name);
	return NULL;
}

/* Write data to path through a temporary name, so a cubin in the cache is always whole. */
static int write_whole(const char *path, const void *data, size_t len, char **cause)
{
	static unsigned seq; /* the queue's threads write too */
	char *tmp = xasprintf("%s.tmp%ld.%u", path, (long)getpid(),
			      __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	FILE *f = fopen(tmp, "wb");
	int ret = -1;
	if (!f) {
		*cause = xasprintf("cannot write '%s': %s", tmp, strerror(errno));
		goto done;
	}
	size_t w = fwrite(data, 1, len, f);
	if (fclose(f) || w != len) {
		*cause = xasprintf("cannot write '%s'", tmp);
		unlink(tmp);
		goto done;
	}
	if (rename(tmp, path)) {
		*cause = xasprintf("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		unlink(tmp);
		goto done;
	}
	ret = 0;
done:
	free(tmp);
	return ret;
}

/* The kernels a module of config cfg for shape s has (which 0: the main one, 1: the second,
 * 2: the pre-pass, or NULL): a vendor conv point's module is conv.cu's epilogue alone
 * (EPILOGUE_ONLY). */
static const char *kernel_names(const struct cuda_shape *s, const struct config *cfg, int which)
{
	if (cfg->vendor && cuda_conv_is(s->op))
		return which ? NULL : "conv_epilogue";
	if (which == 2)
		return cuda_conv_is(s->op) ? "conv_s2d" : NULL;
	switch (s->op) {
	case CUDA_GEMM: return which ? "gemm_splitk_reduce" : "gemm";
	case CUDA_MAXPOOL: return which ? NULL : "maxpool_fwd";
	case CUDA_MAXPOOL_BWD: return which ? NULL : "maxpool_bwd";
	case CUDA_AVGPOOL: return which ? NULL : "avgpool_global";
	case CUDA_SUM: return s->dim ? (which ? NULL : "sum_dim1")
				   : (which ? "sum_dim0_finish" : "sum_dim0");
	case CUDA_CONV:
	case CUDA_CONV_BIAS:
	case CUDA_CONV_BIAS_RELU:
	case CUDA_CONV_BIAS_RELU_ADD: return which ? "conv_splitk_reduce" : "conv";
	default: return which ? NULL : "bias_relu";
	}
}

/* A config compiled ahead that trials still owe something: NULL when none. */
static struct cuda_ahead *ahead_find(struct backend *b, const char *hash)
{
	for (size_t i = 0; i < b->nahead; i++)
		if (!strcmp(b->ahead[i].hash, hash))
			return &b->ahead[i];
	return NULL;
}

static void add_made(struct backend *b, const char *hash)
{
	XGROW(b->made, b->madecap, b->nmade + 1);
	memcpy(b->made[b->nmade++], hash, 65);
}

/* The NVRTC options of config c (cuda_config_options), plus --Ofast-compile=LEVEL when
 * HARNESS_CUDA_FAST_COMPILE asks for it (cuda_open): the level is part of the cache key. */
static size_t config_options(const struct backend *b, const struct space *sp,
			     const struct config *c, char **opts)
{
	size_t n = cuda_config_options(sp, c, b->di.arch, opts);
	if (b->fast_compile && n < CUDA_MAX_OPTS)
		opts[n++] = xasprintf("--Ofast-compile=%s", b->fast_compile);
	return n;
}

/* The module of config c for cell: loaded already, compiled ahead (waiting for exactly its
 * compile when it is queued and not done), from the cache directory (a hit), or compiled
 * now.  A compile or load failure is res->status = PREPARE_COMPILE_ERROR with the NVRTC log
 * in res->detail, *out NULL, 0 returned; -1 with *cause only when the cache cannot be
 * written or the device fails.  res->compile_ns: this prepare's own compile, or its wait
 * for the queue, plus (chunked) its share of the batch. */
int cuda_get_module(struct backend *b, struct cuda_cell *cell, const struct config *c,
		      struct cuda_module **out, struct prepare_result *res, char **cause)
{
	const struct cuda_shape *s = &cell->sctx.shape;
	char *opts[CUDA_MAX_OPTS];
	size_t nopts = config_options(b, &cell->space, c, opts);
	char hash[65];
	char *cubin_path = NULL, *log_path = NULL, *data = NULL, *detail = NULL;
	size_t len = 0;
	struct cuda_compile cc = { 0 };
	struct cuda_module *m = NULL;
	int ret = -1;

	*out = NULL;
	struct cuda_template *t = get_template(b, cuda_op_template(s->op), cause);
	if (!t)
		goto done;
	cuda_cache_key(t->name, t->text, t->len, opts, nopts, cuda_nvrtc_version(), b->di.arch,
		       hash);
	for (size_t i = 0; i < b->nmods; i++) {
		if (!strcmp(b->mods[i]->hash, hash) &&
		    !strcmp(b->mods[i]->kname, kernel_names(s, c, 0))) {
			*out = b->mods[i];
			res->cache_hit = 1;
			ret = 0;
			goto done;
		}
	}
	cubin_path = xasprintf("%s/cuda-%.*s-%s.cubin", b->cache_dir,
			       (int)strcspn(t->name, "."), t->name, hash);
	log_path = xasprintf("%s/cuda-%.*s-%s.log", b->cache_dir, (int)strcspn(t->name, "."),
			     t->name, hash);
	struct cuda_ahead *a = ahead_find(b, hash);
	if (a) {
		res->compile_ns = a->ns;
		a->ns = 0;
		if (a->detail) {
			res->status = PREPARE_COMPILE_ERROR;
			res->detail = xstrdup(a->detail);
			ret = 0;
			goto done;
		}
		*a = b->ahead[--b->nahead]; /* a share, now charged */
	}
	int64_t waited = 0;
	if (b->cq && cuda_cq_take(b->cq, hash, &cc, &detail, &waited)) {
		/* compiled ahead (counted by the queue); the wait is this trial's compile time */
		res->compile_ns += waited;
		b->compile_ns += waited;
		if (!cc.ok || detail) {
			XGROW(b->ahead, b->aheadcap, b->nahead + 1);
			a = &b->ahead[b->nahead++];
			memcpy(a->hash, hash, sizeof(hash));
			a->ns = 0;
			a->detail = detail ? detail : xstrdup("NVRTC failed");
			detail = NULL;
			res->status = PREPARE_COMPILE_ERROR;
			res->detail = xstrdup(a->detail);
			ret = 0;
			goto done;
		}
		add_made(b, hash);
		data = cc.cubin;
		len = cc.cubin_len;
		cc.cubin = NULL;
	} else if (!access(cubin_path, R_OK) && !util_read_file(cubin_path, &data, &len)) {
		/* a cubin this unit compiled for another op (maxpool for maxpool_bwd) is not a
		 * hit from a cache: the audit's cold-start check counts hits */
		int own = 0;
		for (size_t i = 0; i < b->nmade && !own; i++)
			own = !strcmp(b->made[i], hash);
		res->cache_hit = !own;
		b->cache_hits += !own;
	} else {
		cc.tmpl_name = t->name;
		cc.source = t->text;
		cc.source_len = t->len;
		cc.opts = opts;
		cc.nopts = nopts;
		cuda_compile_run(&cc);
		b->compiles++;
		b->compile_ns += cc.ns;
		res->compile_ns += cc.ns;
		if (cc.log && write_whole(log_path, cc.log, strlen(cc.log), cause))
			goto done;
		if (!cc.ok) {
			res->status = PREPARE_COMPILE_ERROR;
			res->detail = xasprintf("NVRTC could not compile '%s' for %s (log '%s'):\n%s",
						t->name, b->di.arch, log_path,
						cc.log ? cc.log : "(no log)");
			ret = 0;
			goto done;
		}
		if (write_whole(cubin_path, cc.cubin, cc.cubin_len, cause))
			goto done;
		add_made(b, hash);
		data = cc.cubin;
		len = cc.cubin_len;
		cc.cubin = NULL;
	}
	m = xcalloc(1, sizeof(*m));
	memcpy(m->hash, hash, sizeof(hash));
	m->kname = kernel_names(s, c, 0);
	m->tmpl = t->name;
	char *why = NULL;
	if (CUDA_CHECK(RT, cudaLibraryLoadData(&m->lib, data, NULL, NULL, 0, NULL, NULL, 0), &why)) {
		res->status = PREPARE_COMPILE_ERROR;
		res->detail = xasprintf("cannot load cubin '%s': %s", cubin_path, why);
		free(why);
		free(m);
		m = NULL;
		ret = 0;
		goto done;
	}
	for (int k = 0; k < 3; k++) {
		const char *name = kernel_names(s, c, k);
		if (name && CUDA_CHECK(RT, cudaLibraryGetKernel(&m->k[k], m->lib, name), &why)) {
			res->status = PREPARE_COMPILE_ERROR;
			res->detail = xasprintf("cubin '%s' has no kernel '%s': %s", cubin_path, name,
						why);
			free(why);
			cudaLibraryUnload(m->lib);
			free(m);
			m = NULL;
			ret = 0;
			goto done;
		}
	}
	void *sym;
	size_t sym_bytes;
	m->pdl = cudaLibraryGetGlobal(&sym, &sym_bytes, m->lib, "harness_wg_pdl") == cudaSuccess;
	(void)cudaGetLastError(); /* (a module without it: not an error) */
	XGROW(b->mods, b->modcap, b->nmods + 1);
	b->mods[b->nmods++] = m;
	*out = m;
	ret = 0;
done:
	for (size_t i = 0; i < nopts; i++)
		free(opts[i]);
	cuda_compile_release(&cc);
	free(detail);
	free(data);
	free(cubin_path);
	free(log_path);
	return ret;
}

/* ---- compiling ahead ------------------------------------------------------------------- */

/* The tuner's plan (exhaustive: every config it will propose, in order) goes on a queue
 * compiled by a pool of threads, one NVRTC program each (nvrtc.c).  Overlapped (the
 * default): prepare_ahead returns at once and the GPU benchmarks each config as soon as it
 * is compiled, while the pool compiles the next ones, at most a window ahead of the last one
 * taken (so a tuner stopped by its budget leaves few compiled in vain); the pool has one
 * thread less than the CPUs, the one left for the thread that launches and times kernels.
 * Chunked: prepare_ahead compiles the whole plan (pool and caller) and returns when done.
 * Time (docs/kernels.md): a trial's compile_ns is the wall time its prepare() waited for
 * the queue (0 when its config was compiled already) plus, chunked, its share of the batch's
 * wall time; the unit's compile_ns is the sum of those waits and batches and of prepare()'s
 * own compiles, so it is the time the unit spent blocked on the compiler.  The compiler's
 * own wall time, most of it hidden behind benchmarking, is reported apart by describe_end.
 * cuda_ahead_init also reads HARNESS_CUDA_FAST_COMPILE, the configs' compile level. */

int cuda_ahead_init(struct backend *b, char **cause)
{
	const char *mode = getenv("HARNESS_CUDA_COMPILE_AHEAD");
	const char *thr = getenv("HARNESS_CUDA_COMPILE_THREADS");
	if (!mode || !*mode || !strcmp(mode, "1") || !strcmp(mode, "overlapped")) {
		b->ahead_mode = CUDA_AHEAD_OVERLAPPED;
	} else if (!strcmp(mode, "chunked")) {
		b->ahead_mode = CUDA_AHEAD_CHUNKED;
	} else if (!strcmp(mode, "0") || !strcmp(mode, "off")) {
		b->ahead_mode = CUDA_AHEAD_OFF;
	} else {
		*cause = xasprintf("HARNESS_CUDA_COMPILE_AHEAD='%s': expected overlapped (or 1), "
				   "chunked, or off (or 0)", mode);
		return -1;
	}
	/* NVRTC's --Ofast-compile for every config's module, not the reference's (docs/kernels.md,
	 * "Compile time": a third slower kernels for 40% less compile time) */
	const char *fast = getenv("HARNESS_CUDA_FAST_COMPILE");
	if (fast && *fast && strcmp(fast, "0")) {
		static const char *const levels[] = { "min", "mid", "max" };
		for (size_t i = 0; i < ARRAY_SIZE(levels) && !b->fast_compile; i++)
			if (!strcmp(fast, levels[i]))
				b->fast_compile = levels[i];
		if (!b->fast_compile) {
			*cause = xasprintf("HARNESS_CUDA_FAST_COMPILE='%s': expected 0, min, mid or max",
					   fast);
			return -1;
		}
	}
	int cpus = cuda_compile_cpus();
	/* overlapped: one CPU left to the thread that times; chunked: the caller compiles too */
	b->ahead_threads = cpus > 1 ? cpus - 1 : 1;
	if (thr && *thr) {
		char *end = NULL;
		long v = strtol(thr, &end, 10);
		if (*end || v < 1 || v > 256) {
			*cause = xasprintf("HARNESS_CUDA_COMPILE_THREADS='%s': expected an integer "
					   "from 1 to 256", thr);
			return -1;
		}
		b->ahead_threads = (int)v;
	}
	b->ahead_window = b->ahead_mode == CUDA_AHEAD_OVERLAPPED ? 2 * (size_t)b->ahead_threads : 0;
	if (b->ahead_window && b->ahead_window < 4)
		b->ahead_window = 4;
	return 0;
}

void cuda_ahead_describe(const struct backend *b, struct sbuf *out)
{
	static const char *const names[] = { "overlapped", "chunked", "off" };
	sbuf_addf(out, "compile_ahead=%s\n", names[b->ahead_mode]);
	if (b->ahead_mode != CUDA_AHEAD_OFF)
		sbuf_addf(out, "compile_ahead_threads=%d\ncompile_ahead_window=%zu\n",
			  b->ahead_threads, b->ahead_window);
}

/* The queue's done hook, on the thread that compiled: the log and the cubin into the cache
 * directory; why the result cannot be used (heap), or NULL. */
static char *ahead_done(void *ctx, const char *key, const struct cuda_compile *cc)
{
	const struct backend *b = ctx;
	const char *name = cc->tmpl_name;
	char *base = xasprintf("%s/cuda-%.*s-%s", b->cache_dir, (int)strcspn(name, "."), name,
			       key);
	char *cubin = xasprintf("%s.cubin", base), *log = xasprintf("%s.log", base);
	char *why = NULL;
	if (cc->log && write_whole(log, cc->log, strlen(cc->log), &why)) {
		free(why); /* the log is a courtesy; the cubin is what counts */
		why = NULL;
	}
	if (!cc->ok)
		why = xasprintf("NVRTC could not compile '%s' for %s (log '%s'):\n%s", name,
				b->di.arch, log, cc->log ? cc->log : "(no log)");
	else
		write_whole(cubin, cc->cubin, cc->cubin_len, &why);
	free(base);
	free(cubin);
	free(log);
	return why;
}

static int known_key(struct backend *b, const char *hash)
{
	if (ahead_find(b, hash) || (b->cq && cuda_cq_has(b->cq, hash)))
		return 1;
	for (size_t i = 0; i < b->nmade; i++)
		if (!strcmp(b->made[i], hash))
			return 1;
	return 0;
}

void cuda_prepare_ahead(struct backend *b, size_t i, const struct config *cs, size_t n)
{
	if (!cs || !n) {
		/* every plan is over: the configs not started are not needed, and the ones under
		 * way finish now, so that no compile shares the host with a measured cell */
		if (b->cq)
			cuda_cq_drain(b->cq);
		return;
	}
	if (i >= b->ncells || b->ahead_mode == CUDA_AHEAD_OFF)
		return;
	struct cuda_cell *c = b->cells[i];
	char *cause = NULL;
	struct cuda_template *t = get_template(b, cuda_op_template(c->sctx.shape.op), &cause);
	if (!t) {
		free(cause); /* prepare() reports it */
		return;
	}
	if (!b->cq) {
		b->cq = cuda_cq_open(b->ahead_threads, b->ahead_window, ahead_done, b, &cause);
		if (!b->cq) {
			fprintf(stderr, "compiling ahead: %s; each config is compiled when prepared\n",
				cause);
			free(cause);
			return;
		}
	}
	char (*keys)[65] = xmalloc((n ? n : 1) * sizeof(*keys));
	size_t nq = 0;
	for (size_t k = 0; k < n; k++) {
		const struct config *cfg = &cs[k];
		if ((cfg->vendor && c->sctx.shape.op == CUDA_GEMM) || !space_contains(&c->space, cfg))
			continue;
		char **opts = xcalloc(CUDA_MAX_OPTS, sizeof(*opts));
		size_t no = config_options(b, &c->space, cfg, opts);
		cuda_cache_key(t->name, t->text, t->len, opts, no, cuda_nvrtc_version(), b->di.arch,
			       keys[nq]);
		char *path = xasprintf("%s/cuda-%.*s-%s.cubin", b->cache_dir,
				       (int)strcspn(t->name, "."), t->name, keys[nq]);
		int skip = known_key(b, keys[nq]) || !access(path, F_OK);
		free(path);
		struct cuda_compile job = { .tmpl_name = t->name, .source = t->text,
					    .source_len = t->len, .opts = opts, .nopts = no };
		if (skip) {
			for (size_t o = 0; o < no; o++)
				free(opts[o]);
			free(opts);
		} else if (!cuda_cq_add(b->cq, keys[nq], &job)) {
			nq++;
		}
	}
	if (b->ahead_mode == CUDA_AHEAD_CHUNKED && nq) {
		/* all of it now; the wall time shared out among the configs' trials, the first
		 * one taking the remainder, so the shares add up to it exactly */
		int64_t wall = cuda_cq_wait_all(b->cq);
		b->compile_ns += wall;
		for (size_t j = 0; j < nq; j++) {
			XGROW(b->ahead, b->aheadcap, b->nahead + 1);
			struct cuda_ahead *a = &b->ahead[b->nahead++];
			memcpy(a->hash, keys[j], 65);
			a->ns = wall / (int64_t)nq + (j ? 0 : wall % (int64_t)nq);
			a->detail = NULL;
		}
	}
	free(keys);
}

void cuda_ahead_finish(const struct backend *b)
{
	if (b->cq)
		cuda_cq_stop(b->cq);
}

void cuda_ahead_describe_end(const struct backend *b, struct sbuf *out)
{
	struct cuda_cq_stats st;
	if (!b->cq)
		return;
	cuda_ahead_finish(b);
	cuda_cq_stats(b->cq, &st);
	int64_t hidden = st.busy_ns - st.waited_ns;
	sbuf_addf(out, "cuda_compile_ahead_queued=%" PRId64 "\ncuda_compile_ahead_compiled=%" PRId64
		  "\ncuda_compile_ahead_cancelled=%" PRId64 "\ncuda_compile_ahead_taken=%" PRId64
		  "\ncuda_compile_ahead_wall_ns=%" PRId64 "\ncuda_compile_ahead_waited_ns=%" PRId64
		  "\ncuda_compile_ahead_hidden_ns=%" PRId64 "\ncuda_compile_ahead_stop_ns=%" PRId64
		  "\n", st.added, st.compiled, st.cancelled, st.taken, st.busy_ns, st.waited_ns,
		  hidden > 0 ? hidden : 0, st.stop_ns);
}

void cuda_compile_counters(const struct backend *b, struct backend_counters *out)
{
	struct cuda_cq_stats st = { 0 };
	if (b->cq) {
		cuda_ahead_finish(b);
		cuda_cq_stats(b->cq, &st);
	}
	out->compiles = b->compiles + st.compiled;
	out->cache_hits = b->cache_hits;
	out->compile_ns = b->compile_ns;
}

void cuda_ahead_close(struct backend *b)
{
	cuda_cq_close(b->cq); /* first: its threads read the templates and the cache directory */
	b->cq = NULL;
	for (size_t i = 0; i < b->nahead; i++)
		free(b->ahead[i].detail);
	free(b->ahead);
	b->ahead = NULL;
	b->nahead = b->aheadcap = 0;
}

/* ---- the check's reference kernels ----------------------------------------------------- */

int cuda_ref_module(struct backend *b, enum cuda_dtype t, struct cuda_refmod **out, char **cause)
{
	static const char *const dtype_macro[] = { "-DDTYPE_FLOAT32", "-DDTYPE_FLOAT16",
						   "-DDTYPE_BFLOAT16" };
	static const char *const names[REF_NKERNELS] = { "ref_gemm", "ref_maxpool",
							 "ref_maxpool_bwd", "ref_avgpool",
							 "ref_sum", "ref_bias_relu", "ref_conv",
							 "ref_error", "ref_fill" };
	struct cuda_refmod *r = &b->ref[t];
	char *opts[3], hash[65];
	char *path = NULL, *data = NULL;
	size_t len = 0;
	struct cuda_compile cc = { 0 };
	int ret = -1;

	*out = r;
	if (r->loaded)
		return 0;
	opts[0] = xasprintf("--gpu-architecture=%s", b->di.arch);
	opts[1] = xstrdup("-std=c++17");
	opts[2] = xstrdup(dtype_macro[t]);
	struct cuda_template *tp = get_template(b, "reference.cu", cause);
	if (!tp)
		goto done;
	cuda_cache_key(tp->name, tp->text, tp->len, opts, 3, cuda_nvrtc_version(), b->di.arch, hash);
	path = xasprintf("%s/cuda-reference-%s.cubin", b->check_dir, hash);
	if (access(path, R_OK) || util_read_file(path, &data, &len)) {
		cc.tmpl_name = tp->name;
		cc.source = tp->text;
		cc.source_len = tp->len;
		cc.opts = opts;
		cc.nopts = 3;
		cuda_compile_run(&cc);
		b->ref_compile_ns += cc.ns;
		if (!cc.ok) {
			*cause = xasprintf("NVRTC could not compile the check's reference '%s' for %s:\n%s",
					   tp->name, b->di.arch, cc.log ? cc.log : "(no log)");
			goto done;
		}
		if (write_whole(path, cc.cubin, cc.cubin_len, cause))
			goto done;
		data = cc.cubin;
		len = cc.cubin_len;
		cc.cubin = NULL;
	}
	if (CUDA_CHECK(RT, cudaLibraryLoadData(&r->lib, data, NULL, NULL, 0, NULL, NULL, 0), cause))
		goto done;
	for (int k = 0; k < REF_NKERNELS; k++)
		if (CUDA_CHECK(RT, cudaLibraryGetKernel(&r->k[k], r->lib, names[k]), cause)) {
			cudaLibraryUnload(r->lib);
			goto done;
		}
	r->loaded = 1;
	ret = 0;
done:
	for (int i = 0; i < 3; i++)
		free(opts[i]);
	cuda_compile_release(&cc);
	free(data);
	free(path);
	return ret;
}
