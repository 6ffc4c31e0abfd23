/* module.c: the CUDA backend's templates, its cubin cache in the unit's cache directory
 * (keyed by SHA-256 of template, options, NVRTC version and architecture), loaded modules and
 * compiling a cell's plan ahead on every CPU (backend-int.h) */
#include "config.h"
#include "kernels/cuda/backend-int.h"

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

const char *const cu_template_names[CU_NTEMPLATES] = { "gemm.cu", "maxpool.cu", "avgpool.cu",
					       "reduce.cu", "bias_relu.cu",
					       "reference.cu", "conv.cu" };

/* ---- templates, the cubin cache, modules --------------------------------------------- */

static struct cu_template *get_template(struct backend *b, const char *name, char **cause)
{
	for (size_t i = 0; i < ARRAY_SIZE(b->tmpl); i++) {
		struct cu_template *t = &b->tmpl[i];
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
	char *tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
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

static const char *kernel_names(enum cuda_op op, const struct cuda_shape *s, int which)
{
	switch (op) {
	case CU_GEMM: return which ? "gemm_splitk_reduce" : "gemm";
	case CU_MAXPOOL: return which ? NULL : "maxpool_fwd";
	case CU_MAXPOOL_BWD: return which ? NULL : "maxpool_bwd";
	case CU_AVGPOOL: return which ? NULL : "avgpool_global";
	case CU_SUM: return s->dim ? (which ? NULL : "sum_dim1")
				   : (which ? "sum_dim0_finish" : "sum_dim0");
	case CU_CONV:
	case CU_CONV_BIAS:
	case CU_CONV_BIAS_RELU:
	case CU_CONV_BIAS_RELU_ADD: return which ? "conv_splitk_reduce" : "conv";
	default: return which ? NULL : "bias_relu";
	}
}

/* The module of config c for cell: loaded already, from the cache directory (a hit), or
 * compiled now.  A compile or load failure is res->status = PREPARE_COMPILE_ERROR with
 * the NVRTC log in res->detail, *out NULL, 0 returned; -1 with *cause only when the cache
 * cannot be written or the device fails. */
int cu_get_module(struct backend *b, struct cu_cell *cell, const struct config *c,
		      struct cu_module **out, struct prepare_result *res, char **cause)
{
	const struct cuda_shape *s = &cell->sctx.shape;
	char *opts[CUDA_MAX_OPTS];
	size_t nopts = cuda_config_options(&cell->space, c, b->di.arch, opts);
	char hash[65];
	char *cubin_path = NULL, *log_path = NULL, *data = NULL;
	size_t len = 0;
	struct cuda_compile cc = { 0 };
	struct cu_module *m = NULL;
	int ret = -1;

	*out = NULL;
	struct cu_template *t = get_template(b, cuda_op_template(s->op), cause);
	if (!t)
		goto done;
	cuda_cache_key(t->name, t->text, t->len, opts, nopts, cuda_nvrtc_version(), b->di.arch,
		       hash);
	for (size_t i = 0; i < b->nmods; i++) {
		if (!strcmp(b->mods[i]->hash, hash) &&
		    !strcmp(b->mods[i]->kname, kernel_names(s->op, s, 0))) {
			*out = b->mods[i];
			res->cache_hit = 1;
			ret = 0;
			goto done;
		}
	}
	for (size_t i = 0; i < b->nahead; i++) {
		struct cu_ahead *a = &b->ahead[i];
		if (strcmp(a->hash, hash))
			continue;
		res->compile_ns = a->ns;
		a->ns = 0;
		if (!a->ok) {
			res->status = PREPARE_COMPILE_ERROR;
			res->detail = xstrdup(a->detail ? a->detail : "NVRTC failed");
			ret = 0;
			goto done;
		}
		break; /* its cubin is in the cache directory, written by this unit */
	}
	cubin_path = xasprintf("%s/cuda-%.*s-%s.cubin", b->cache_dir,
			       (int)strcspn(t->name, "."), t->name, hash);
	log_path = xasprintf("%s/cuda-%.*s-%s.log", b->cache_dir, (int)strcspn(t->name, "."),
			     t->name, hash);
	if (!access(cubin_path, R_OK) && !util_read_file(cubin_path, &data, &len)) {
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
		res->compile_ns = cc.ns;
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
		XGROW(b->made, b->madecap, b->nmade + 1);
		memcpy(b->made[b->nmade++], hash, sizeof(hash));
		data = cc.cubin;
		len = cc.cubin_len;
		cc.cubin = NULL;
	}
	m = xcalloc(1, sizeof(*m));
	memcpy(m->hash, hash, sizeof(hash));
	m->kname = kernel_names(s->op, s, 0);
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
	for (int k = 0; k < 2; k++) {
		const char *name = kernel_names(s->op, s, k);
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
	XGROW(b->mods, b->modcap, b->nmods + 1);
	b->mods[b->nmods++] = m;
	*out = m;
	ret = 0;
done:
	for (size_t i = 0; i < nopts; i++)
		free(opts[i]);
	cuda_compile_release(&cc);
	free(data);
	free(cubin_path);
	free(log_path);
	return ret;
}

/* Compile configs of cell i before they are prepared, AHEAD_CHUNK at a time, each chunk on
 * a pool of threads (one NVRTC program each, every online CPU): a search is bound by the
 * compiler's throughput, not its latency.  Each compile is counted; the batch's wall time
 * goes to the counters and is shared out among its configs' trials, so compile times add
 * up to the time the unit spent compiling.  The configs are then benchmarked one by one as
 * the tuner proposes them (compile all of a chunk, then benchmark: the GPU does not time
 * kernels while the CPU compiles). */
#define AHEAD_CHUNK 64
static int known_key(const struct backend *b, const char *hash)
{
	for (size_t i = 0; i < b->nahead; i++)
		if (!strcmp(b->ahead[i].hash, hash))
			return 1;
	for (size_t i = 0; i < b->nmade; i++)
		if (!strcmp(b->made[i], hash))
			return 1;
	return 0;
}

void cu_prepare_ahead(struct backend *b, size_t i, const struct config *cs, size_t n)
{
	/* HARNESS_CUDA_COMPILE_AHEAD=0: compile each config when it is prepared instead */
	const char *env = getenv("HARNESS_CUDA_COMPILE_AHEAD");
	if (i >= b->ncells || (env && !strcmp(env, "0")))
		return;
	struct cu_cell *c = b->cells[i];
	char *cause = NULL;
	struct cu_template *t = get_template(b, cuda_op_template(c->sctx.shape.op), &cause);
	if (!t) {
		free(cause); /* prepare() reports it */
		return;
	}
	for (size_t at = 0; at < n; at += AHEAD_CHUNK) {
		size_t m = n - at < AHEAD_CHUNK ? n - at : AHEAD_CHUNK, nj = 0;
		struct cuda_compile jobs[AHEAD_CHUNK];
		char keys[AHEAD_CHUNK][65];
		memset(jobs, 0, sizeof(jobs));
		for (size_t k = at; k < at + m; k++) {
			const struct config *cfg = &cs[k];
			if ((cfg->vendor && c->sctx.shape.op == CU_GEMM) ||
			    !space_contains(&c->space, cfg))
				continue;
			char **opts = xcalloc(CUDA_MAX_OPTS, sizeof(*opts));
			size_t no = cuda_config_options(&c->space, cfg, b->di.arch, opts);
			cuda_cache_key(t->name, t->text, t->len, opts, no, cuda_nvrtc_version(),
				       b->di.arch, keys[nj]);
			char *path = xasprintf("%s/cuda-%.*s-%s.cubin", b->cache_dir,
					       (int)strcspn(t->name, "."), t->name, keys[nj]);
			int skip = known_key(b, keys[nj]) || !access(path, F_OK);
			for (size_t j = 0; j < nj && !skip; j++)
				skip = !strcmp(keys[j], keys[nj]);
			free(path);
			if (skip) {
				for (size_t o = 0; o < no; o++)
					free(opts[o]);
				free(opts);
				continue;
			}
			jobs[nj] = (struct cuda_compile){ .tmpl_name = t->name, .source = t->text,
							  .source_len = t->len, .opts = opts,
							  .nopts = no };
			nj++;
		}
		if (!nj)
			continue;
		int64_t t0 = util_now_ns();
		cuda_compile_many(jobs, nj, 0);
		int64_t wall = util_now_ns() - t0;
		b->compiles += (int64_t)nj;
		b->compile_ns += wall;
		for (size_t j = 0; j < nj; j++) {
			struct cuda_compile *cc = &jobs[j];
			XGROW(b->ahead, b->aheadcap, b->nahead + 1);
			struct cu_ahead *a = &b->ahead[b->nahead++];
			memset(a, 0, sizeof(*a));
			memcpy(a->hash, keys[j], 65);
			a->ns = wall / (int64_t)nj;
			char *base = xasprintf("%s/cuda-%.*s-%s", b->cache_dir,
					       (int)strcspn(t->name, "."), t->name, keys[j]);
			char *cubin = xasprintf("%s.cubin", base), *log = xasprintf("%s.log", base);
			char *why = NULL;
			if (cc->log && write_whole(log, cc->log, strlen(cc->log), &why)) {
				free(why);
				why = NULL;
			}
			if (!cc->ok)
				a->detail = xasprintf("NVRTC could not compile '%s' for %s (log '%s'):\n%s",
						      t->name, b->di.arch, log,
						      cc->log ? cc->log : "(no log)");
			else if (write_whole(cubin, cc->cubin, cc->cubin_len, &why))
				a->detail = why;
			else
				a->ok = 1;
			if (a->ok) {
				XGROW(b->made, b->madecap, b->nmade + 1);
				memcpy(b->made[b->nmade++], keys[j], 65);
			}
			free(base);
			free(cubin);
			free(log);
			for (size_t o = 0; o < cc->nopts; o++)
				free(cc->opts[o]);
			free(cc->opts);
			cuda_compile_release(cc);
		}
	}
}

/* ---- the check's reference kernels ----------------------------------------------------- */

int cu_ref_module(struct backend *b, enum cuda_dtype t, struct cu_refmod **out, char **cause)
{
	static const char *const dtype_macro[] = { "-DDTYPE_FLOAT32", "-DDTYPE_FLOAT16",
						   "-DDTYPE_BFLOAT16" };
	static const char *const names[REF_NKERNELS] = { "ref_gemm", "ref_maxpool",
							 "ref_maxpool_bwd", "ref_avgpool",
							 "ref_sum", "ref_bias_relu", "ref_conv",
							 "ref_error", "ref_fill" };
	struct cu_refmod *r = &b->ref[t];
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
	struct cu_template *tp = get_template(b, "reference.cu", cause);
	if (!tp)
		goto done;
	cuda_cache_key(tp->name, tp->text, tp->len, opts, 3, cuda_nvrtc_version(), b->di.arch, hash);
	path = xasprintf("%s/cuda-reference-%s.cubin", b->cache_dir, hash);
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
