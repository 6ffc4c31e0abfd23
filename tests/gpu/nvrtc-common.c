/* nvrtc-common.c: NVRTC compiles of the CUDA templates (see nvrtc-common.h). */
#define _GNU_SOURCE /* memmem */
#include "nvrtc-common.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nvrtc.h>

double kc_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The whole file at path, NUL-terminated (heap), or NULL (reported). */
static char *read_raw(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f) {
		fprintf(stderr, "kernel-check: cannot open '%s': %s\n", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "kernel-check: cannot size '%s'\n", path);
		goto done;
	}
	buf = malloc((size_t)n + 1);
	if (!buf)
		abort();
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "kernel-check: cannot read '%s'\n", path);
		free(buf);
		buf = NULL;
		goto done;
	}
	buf[n] = '\0';
done:
	fclose(f);
	return buf;
}

/* A template as the backend hands it to NVRTC (kernels/cuda/nvrtc.c, cuda_template_read):
 * each line that starts with #include "H" (H a plain file name) becomes the file H of the
 * same folder, read the same way, each header once, so NVRTC needs no include path. */
struct splice {
	const char *dir; /* with its trailing '/', or "" */
	char *seen[16];
	size_t nseen;
	char *out;
	size_t len, cap;
};

static void splice_add(struct splice *sp, const char *p, size_t n)
{
	if (sp->len + n + 1 > sp->cap) {
		sp->cap = 2 * (sp->len + n + 1);
		sp->out = realloc(sp->out, sp->cap);
		if (!sp->out)
			abort();
	}
	memcpy(sp->out + sp->len, p, n);
	sp->len += n;
	sp->out[sp->len] = '\0';
}

static int splice_text(struct splice *sp, const char *name, const char *p)
{
	static const char pre[] = "#include \"";
	int line;
	for (line = 1; *p; line++) {
		const char *eol = strchr(p, '\n'), *q = p + sizeof(pre) - 1;
		size_t n = eol ? (size_t)(eol + 1 - p) : strlen(p), i;
		char path[4096], *h, *text;
		int rc;
		if (strncmp(p, pre, sizeof(pre) - 1) != 0) {
			splice_add(sp, p, n);
			p += n;
			continue;
		}
		while (isalnum((unsigned char)*q) || *q == '_' || *q == '-' || *q == '.')
			q++;
		if (q == p + sizeof(pre) - 1 || *q != '"' || p[sizeof(pre) - 1] == '.') {
			splice_add(sp, p, n); /* not a plain file name: NVRTC's to judge */
			p += n;
			continue;
		}
		h = strndup(p + sizeof(pre) - 1, (size_t)(q - p) - (sizeof(pre) - 1));
		if (!h)
			abort();
		p += n;
		for (i = 0; i < sp->nseen && strcmp(sp->seen[i], h) != 0; i++)
			;
		if (i < sp->nseen) { /* spliced already */
			free(h);
			continue;
		}
		if (sp->nseen == sizeof(sp->seen) / sizeof(sp->seen[0])) {
			fprintf(stderr, "kernel-check: '%s':%d: too many headers\n", name, line);
			free(h);
			return -1;
		}
		sp->seen[sp->nseen++] = h;
		snprintf(path, sizeof(path), "%s%s", sp->dir, h);
		text = read_raw(path);
		if (!text) {
			fprintf(stderr, "kernel-check: '%s':%d: cannot include '%s'\n", name, line,
				path);
			return -1;
		}
		rc = splice_text(sp, h, text);
		free(text);
		if (rc)
			return -1;
		if (sp->len && sp->out[sp->len - 1] != '\n')
			splice_add(sp, "\n", 1);
	}
	return 0;
}

int kc_read_file(const char *path, char **text)
{
	struct splice sp = {0};
	const char *slash = strrchr(path, '/');
	char dir[4096], *raw = read_raw(path);
	size_t i;
	int ret = -1;

	if (!raw)
		return -1;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 0, path);
	sp.dir = dir;
	splice_add(&sp, "", 0);
	if (splice_text(&sp, path, raw) == 0) {
		*text = sp.out;
		sp.out = NULL;
		ret = 0;
	}
	for (i = 0; i < sp.nseen; i++)
		free(sp.seen[i]);
	free(sp.out);
	free(raw);
	return ret;
}

static char *xstrdup(const char *s)
{
	char *r = strdup(s);
	if (!r)
		abort();
	return r;
}

void kc_compile(const char *source, const char *name, const char *arch, const char *defines,
		struct kc_result *res)
{
	nvrtcProgram prog = NULL;
	char *defs = xstrdup(defines), *save = NULL, *tok;
	const char *opts[64];
	char archopt[64];
	int nopt = 0;
	size_t n;
	nvrtcResult rc;
	double t0 = kc_now();

	memset(res, 0, sizeof(*res));
	snprintf(archopt, sizeof(archopt), "--gpu-architecture=%s", arch);
	opts[nopt++] = archopt;
	opts[nopt++] = "-std=c++17";
	for (tok = strtok_r(defs, " ", &save); tok && nopt < 64; tok = strtok_r(NULL, " ", &save))
		opts[nopt++] = tok;
	/* KC_NVRTC_OPTS: options for every compile, after the config's (e.g.
	 * --Ofast-compile=min, to time what HARNESS_CUDA_FAST_COMPILE does) */
	char *extra = getenv("KC_NVRTC_OPTS") ? xstrdup(getenv("KC_NVRTC_OPTS")) : NULL;
	save = NULL;
	for (tok = extra ? strtok_r(extra, " ", &save) : NULL; tok && nopt < 64;
	     tok = strtok_r(NULL, " ", &save))
		opts[nopt++] = tok;

	rc = nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL);
	if (rc != NVRTC_SUCCESS) {
		res->log = xstrdup(nvrtcGetErrorString(rc));
		goto done;
	}
	rc = nvrtcCompileProgram(prog, nopt, opts);
	if (nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 1) {
		res->log = malloc(n);
		if (!res->log)
			abort();
		nvrtcGetProgramLog(prog, res->log);
	}
	if (rc != NVRTC_SUCCESS) {
		if (!res->log)
			res->log = xstrdup(nvrtcGetErrorString(rc));
		goto done;
	}
	if (nvrtcGetCUBINSize(prog, &n) != NVRTC_SUCCESS || n == 0)
		goto done;
	res->cubin = malloc(n);
	if (!res->cubin)
		abort();
	if (nvrtcGetCUBIN(prog, res->cubin) != NVRTC_SUCCESS) {
		free(res->cubin);
		res->cubin = NULL;
		goto done;
	}
	res->cubin_size = n;
	res->ok = 1;
	{ /* a template that compiled to nothing (say, an empty file) is a failure */
		static const char *const entries[] = {"gemm", "maxpool_fwd", "avgpool_global",
						      "sum_dim1", "bias_relu", "ref_gemm",
						      "conv_splitk_reduce"};
		size_t e;
		int found = 0;
		for (e = 0; e < sizeof(entries) / sizeof(entries[0]); ++e)
			if (memmem(res->cubin, n, entries[e], strlen(entries[e])))
				found = 1;
		if (!found) {
			res->ok = 0;
			free(res->log);
			res->log = xstrdup("no kernel entry point in the cubin");
		}
	}
done:
	if (prog)
		nvrtcDestroyProgram(&prog);
	free(defs);
	free(extra);
	res->seconds = kc_now() - t0;
}

void kc_result_release(struct kc_result *res)
{
	free(res->cubin);
	free(res->log);
	memset(res, 0, sizeof(*res));
}

struct pool {
	const struct kc_config *configs;
	const char *const *sources;
	size_t n, next;
	const char *arch;
	struct kc_result *results;
	pthread_mutex_t lock;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i;
		pthread_mutex_lock(&p->lock);
		i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		if (!p->sources[i]) /* filtered out */
			continue;
		if (p->configs[i].arch_only && strcmp(p->configs[i].arch_only, p->arch) != 0) {
			memset(&p->results[i], 0, sizeof(p->results[i]));
			p->results[i].skipped = 1;
			continue;
		}
		kc_compile(p->sources[i], p->configs[i].file, p->arch, p->configs[i].defines,
			   &p->results[i]);
	}
}

void kc_compile_many(const struct kc_config *configs, const char *const *sources, size_t n,
		     const char *arch, int threads, struct kc_result *results)
{
	struct pool p = {configs, sources, n, 0, arch, results, PTHREAD_MUTEX_INITIALIZER};
	pthread_t tid[64];
	int i, started = 0;

	if (threads < 1)
		threads = 1;
	if (threads > 64)
		threads = 64;
	for (i = 0; i < threads; ++i)
		if (pthread_create(&tid[i], NULL, pool_worker, &p) == 0)
			started++;
	if (started == 0)
		pool_worker(&p);
	for (i = 0; i < started; ++i)
		pthread_join(tid[i], NULL);
}

#define F16 "-DDTYPE_FLOAT16"
#define BF16 "-DDTYPE_BFLOAT16"
#define F32 "-DDTYPE_FLOAT32"

const struct kc_config kc_check_configs[] = {
	{"gemm.cu", F16 " -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=3"},
	{"gemm.cu", F16 " -DBLOCK_M=128 -DBLOCK_N=256 -DBLOCK_K=32 -DWARPS=8 -DSTAGES=3"},
	{"gemm.cu", F16 " -DBLOCK_M=256 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=8 -DSTAGES=3"},
	{"gemm.cu", F16 " -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=4 -DSPLIT_K=4"},
	{"gemm.cu", F16 " -DBLOCK_M=32 -DBLOCK_N=32 -DBLOCK_K=16 -DWARPS=1 -DSTAGES=2 -DGROUP_M=1"},
	{"gemm.cu", BF16 " -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=3"},
	{"gemm.cu", BF16 " -DBLOCK_M=128 -DBLOCK_N=256 -DBLOCK_K=64 -DWARPS=8 -DSTAGES=3"},
	{"gemm.cu", BF16 " -DBLOCK_M=64 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=4 -DSPLIT_K=2"},
	{"gemm.cu", F32 " -DTF32=1 -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=8 -DSTAGES=3"},
	{"gemm.cu", F32 " -DTF32=1 -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=16 -DWARPS=4 -DSTAGES=3 -DSPLIT_K=3"},
	{"gemm.cu", F32 " -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=16 -DWARPS=4 -DSTAGES=2"},
	{"gemm.cu", F32 " -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=16 -DWARPS=8 -DSTAGES=3 -DSPLIT_K=2"},
	{"gemm.cu", F16 " -DWGMMA=1 -DBLOCK_M=128 -DBLOCK_N=256 -DBLOCK_K=64 -DWARPS=8 -DSTAGES=4", "sm_90a"},
	{"gemm.cu", F16 " -DWGMMA=1 -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=4 -DSTAGES=4 -DSPLIT_K=2", "sm_90a"},
	{"gemm.cu", F16 " -DWGMMA=1 -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=64 -DWARPS=4 -DSTAGES=3 -DGROUP_M=1", "sm_90a"},
	{"gemm.cu", BF16 " -DWGMMA=1 -DBLOCK_M=128 -DBLOCK_N=256 -DBLOCK_K=64 -DWARPS=8 -DSTAGES=4", "sm_90a"},
	{"gemm.cu", BF16 " -DWGMMA=1 -DBLOCK_M=256 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=8 -DSTAGES=3", "sm_90a"},
	{"gemm.cu", F16 " -DWGMMA=1 -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=128 -DWARPS=4 -DSTAGES=2", "sm_90a"},
	{"gemm.cu", BF16 " -DWGMMA=1 -DBLOCK_M=256 -DBLOCK_N=64 -DBLOCK_K=128 -DWARPS=8 -DSTAGES=2 -DSPLIT_K=2", "sm_90a"},
	{"gemm.cu", F32 " -DTF32=1 -DWGMMA=1 -DBLOCK_M=128 -DBLOCK_N=256 -DBLOCK_K=32 -DWARPS=8 -DSTAGES=4", "sm_90a"},
	{"gemm.cu", F32 " -DTF32=1 -DWGMMA=1 -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=64 -DWARPS=4 -DSTAGES=3 -DSPLIT_K=3", "sm_90a"},
	{"maxpool.cu", F16 " -DBLOCK=256 -DVEC=8"},
	{"maxpool.cu", BF16 " -DBLOCK=128 -DVEC=4"},
	{"maxpool.cu", F32 " -DBLOCK=256 -DVEC=4"},
	{"avgpool.cu", F16 " -DBLOCK=256 -DVEC=8 -DROWS=8"},
	{"avgpool.cu", BF16 " -DBLOCK=256 -DVEC=8 -DROWS=4"},
	{"avgpool.cu", F32 " -DBLOCK=256 -DVEC=4 -DROWS=8"},
	{"reduce.cu", F16 " -DBLOCK=256 -DVEC=8 -DROWS=8"},
	{"reduce.cu", BF16 " -DBLOCK=512 -DVEC=8 -DROWS=16"},
	{"reduce.cu", F32 " -DBLOCK=256 -DVEC=4 -DROWS=8"},
	{"bias_relu.cu", F16 " -DBLOCK=256 -DVEC=8 -DRESIDUAL=1"},
	{"bias_relu.cu", BF16 " -DBLOCK=256 -DVEC=8 -DRESIDUAL=0"},
	{"bias_relu.cu", F32 " -DBLOCK=256 -DVEC=4 -DRESIDUAL=1"},
	{"maxpool.cu", F16 " -DBLOCK=64 -DVEC=2"},
	{"maxpool.cu", F32 " -DBLOCK=512 -DVEC=1"},
	{"maxpool.cu", F16 " -DBLOCK=256 -DVEC=8 -DBWD_OW=2"},
	{"maxpool.cu", F32 " -DBLOCK=128 -DVEC=4 -DBWD_OW=4"},
	{"maxpool.cu", F16 " -DBLOCK=128 -DVEC=8 -DFWD_OW=2 -DFWD_OH=2 -DBWD_MIN_THREADS=1280"},
	{"maxpool.cu", BF16 " -DBLOCK=256 -DVEC=4 -DFWD_OW=4"},
	{"maxpool.cu", F32 " -DBLOCK=128 -DVEC=2 -DFWD_OW=3"},
	{"avgpool.cu", F16 " -DBLOCK=128 -DVEC=8 -DROWS=4 -DINFLIGHT=4"},
	{"reduce.cu", BF16 " -DBLOCK=256 -DVEC=4 -DROWS=8 -DINFLIGHT=2"},
	{"reference.cu", F16},
	{"reference.cu", BF16},
	{"reference.cu", F32},
	{"conv.cu", F16 " -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=3"},
	{"conv.cu", F16 " -DBLOCK_M=128 -DBLOCK_N=64 -DBLOCK_K=64 -DWARPS=8 -DSTAGES=4"},
	{"conv.cu", F16 " -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=3 -DSPLIT_K=4"},
	{"conv.cu", F16 " -DBLOCK_M=16 -DBLOCK_N=16 -DBLOCK_K=128 -DWARPS=1 -DSTAGES=2 -DGROUP_M=1"},
	{"conv.cu", BF16 " -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=3"},
	{"conv.cu", BF16 " -DBLOCK_M=256 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=8 -DSTAGES=3 -DSPLIT_K=2"},
	{"conv.cu", F32 " -DTF32=1 -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=8 -DSTAGES=3"},
	{"conv.cu", F32 " -DTF32=1 -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=16 -DWARPS=4 -DSTAGES=3 -DSPLIT_K=3"},
	{"conv.cu", F32 " -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=16 -DWARPS=4 -DSTAGES=2"},
	{"conv.cu", F32 " -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=16 -DWARPS=8 -DSTAGES=3 -DSPLIT_K=2"},
	/* the wgmma path: the depth a macro (WG_RT_STAGES 0, as gemm.cu's), then the launch's */
	{"conv.cu", F16 " -DWGMMA=1 -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=4 -DSTAGES=4", "sm_90a"},
	{"conv.cu", F16 " -DWGMMA=1 -DWG_RT_STAGES=1 -DBLOCK_M=128 -DBLOCK_N=256 -DBLOCK_K=64 -DWARPS=8 -DSPLIT_K=2", "sm_90a"},
	{"conv.cu", BF16 " -DWGMMA=1 -DWG_RT_STAGES=1 -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=128 -DWARPS=4 -DGROUP_M=1", "sm_90a"},
	{"conv.cu", F32 " -DTF32=1 -DWGMMA=1 -DWG_RT_STAGES=1 -DBLOCK_M=128 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=8", "sm_90a"},
	/* stream-K (wgmma.cuh): 1 and 2 consumer warpgroups, the TMA and the gather paths */
	{"conv.cu", F16 " -DWGMMA=1 -DWG_RT_STAGES=1 -DBLOCK_M=64 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=4 -DSTREAM_K=1", "sm_90a"},
	{"conv.cu", BF16 " -DWGMMA=1 -DWG_RT_STAGES=1 -DBLOCK_M=128 -DBLOCK_N=256 -DBLOCK_K=64 -DWARPS=8 -DSTREAM_K=1", "sm_90a"},
	{"conv.cu", F32 " -DTF32=1 -DWGMMA=1 -DWG_RT_STAGES=1 -DBLOCK_M=128 -DBLOCK_N=64 -DBLOCK_K=32 -DWARPS=8 -DSTREAM_K=1", "sm_90a"},
	/* the residual by TMA (WG_RES: a residual op's modules), 16-bit runs and TF32 pairs */
	{"conv.cu", F16 " -DWGMMA=1 -DWG_RES=1 -DBLOCK_M=192 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=12 -DSTAGES=3", "sm_90a"},
	{"conv.cu", F32 " -DTF32=1 -DWGMMA=1 -DWG_RT_STAGES=1 -DWG_RES=1 -DBLOCK_M=64 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=4 -DSTREAM_K=1", "sm_90a"},
	/* the 7x7 layers' configs (STAGES 8 there: the launch's depth, WG_RT_STAGES) */
	{"conv.cu", F16 " -DWGMMA=1 -DWG_RT_STAGES=1 -DBLOCK_M=64 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=4", "sm_90a"},
	{"conv.cu", F32 " -DTF32=1 -DWGMMA=1 -DWG_RT_STAGES=1 -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=32 -DWARPS=4 -DSTREAM_K=1", "sm_90a"},
	/* three consumer warpgroups: 192-row tiles (WARPS 12), gather, TMA and stream-K */
	{"conv.cu", F16 " -DWGMMA=1 -DBLOCK_M=192 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=12 -DSTAGES=4", "sm_90a"},
	{"conv.cu", BF16 " -DWGMMA=1 -DBLOCK_M=192 -DBLOCK_N=64 -DBLOCK_K=64 -DWARPS=12 -DSTAGES=3 -DSPLIT_K=2", "sm_90a"},
	{"conv.cu", F32 " -DTF32=1 -DWGMMA=1 -DBLOCK_M=192 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=12 -DSTAGES=4 -DSTREAM_K=1", "sm_90a"},
	{"gemm.cu", F16 " -DWGMMA=1 -DBLOCK_M=192 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=12 -DSTAGES=4", "sm_90a"},
	/* TMA-only (WG_TMA_ONLY: X by its map, no gather): one, two and three consumer
	 * warpgroups, the residual's code, stream-K, split-K */
	{"conv.cu", F16 " -DWGMMA=1 -DWG_TMA_ONLY=1 -DWG_RT_STAGES=1 -DBLOCK_M=64 -DBLOCK_N=64 -DBLOCK_K=64 -DWARPS=4", "sm_90a"},
	{"conv.cu", F16 " -DWGMMA=1 -DWG_TMA_ONLY=1 -DWG_RT_STAGES=1 -DWG_RES=1 -DBLOCK_M=128 -DBLOCK_N=256 -DBLOCK_K=64 -DWARPS=8 -DSTREAM_K=1", "sm_90a"},
	{"conv.cu", BF16 " -DWGMMA=1 -DWG_TMA_ONLY=1 -DWG_RES=1 -DBLOCK_M=192 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=12 -DSTAGES=4", "sm_90a"},
	{"conv.cu", F32 " -DTF32=1 -DWGMMA=1 -DWG_TMA_ONLY=1 -DWG_RT_STAGES=1 -DWG_RES=1 -DBLOCK_M=64 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=4 -DSPLIT_K=2", "sm_90a"},
	/* BLOCK_N 112 (the epilogue's short second half): TMA-only 16-bit with stream-K, TF32
	 * pairs, three consumer warpgroups, and a residual op's module (no WG_RES: RES_TMA needs
	 * whole 128-byte atoms) */
	{"conv.cu", F16 " -DWGMMA=1 -DWG_TMA_ONLY=1 -DWG_RT_STAGES=1 -DBLOCK_M=64 -DBLOCK_N=112 -DBLOCK_K=64 -DWARPS=4 -DSTREAM_K=1", "sm_90a"},
	{"conv.cu", F32 " -DTF32=1 -DWGMMA=1 -DWG_RT_STAGES=1 -DBLOCK_M=128 -DBLOCK_N=112 -DBLOCK_K=32 -DWARPS=8", "sm_90a"},
	{"conv.cu", BF16 " -DWGMMA=1 -DBLOCK_M=192 -DBLOCK_N=112 -DBLOCK_K=64 -DWARPS=12 -DSTAGES=4", "sm_90a"},
	/* SWAP_AB (wgmma.cuh: BLOCK_M as wgmma's n, 64 of BLOCK_N a consumer warpgroup): the
	 * instruction widths it adds (96, 192) and the partial last half of 112 */
	{"conv.cu", F16 " -DWGMMA=1 -DWG_TMA_ONLY=1 -DWG_RT_STAGES=1 -DSWAP_AB=1 -DBLOCK_M=96 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=8", "sm_90a"},
	{"conv.cu", BF16 " -DWGMMA=1 -DWG_TMA_ONLY=1 -DWG_RT_STAGES=1 -DSWAP_AB=1 -DBLOCK_M=112 -DBLOCK_N=64 -DBLOCK_K=128 -DWARPS=4", "sm_90a"},
	{"conv.cu", F16 " -DWGMMA=1 -DWG_TMA_ONLY=1 -DWG_RT_STAGES=1 -DSWAP_AB=1 -DBLOCK_M=192 -DBLOCK_N=64 -DBLOCK_K=128 -DWARPS=4", "sm_90a"},
	{"conv.cu", F16 " -DWGMMA=1 -DWG_TMA_ONLY=1 -DWG_RT_STAGES=1 -DSWAP_AB=1 -DBLOCK_M=256 -DBLOCK_N=128 -DBLOCK_K=64 -DWARPS=8", "sm_90a"},
	/* the stage depths and warp counts the lists above leave out, per dtype */
	{"gemm.cu", BF16 " -DBLOCK_M=64 -DBLOCK_N=32 -DBLOCK_K=32 -DWARPS=2 -DSTAGES=2"},
	{"gemm.cu", F32 " -DTF32=1 -DBLOCK_M=128 -DBLOCK_N=64 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=4"},
	{"gemm.cu", F32 " -DBLOCK_M=64 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=4 -DSPLIT_K=2"},
	{"conv.cu", BF16 " -DBLOCK_M=64 -DBLOCK_N=32 -DBLOCK_K=32 -DWARPS=2 -DSTAGES=2"},
	{"conv.cu", F32 " -DTF32=1 -DBLOCK_M=128 -DBLOCK_N=64 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=4"},
	{"conv.cu", F32 " -DBLOCK_M=64 -DBLOCK_N=128 -DBLOCK_K=32 -DWARPS=4 -DSTAGES=4 -DSPLIT_K=2"},
};
const size_t kc_check_nconfigs = sizeof(kc_check_configs) / sizeof(kc_check_configs[0]);
