/* nvrtc.c: compiling the CUDA templates with NVRTC (no device needed), the cubin cache key,
 * and a pool of threads that compiles many configs at once, one NVRTC program each
 * (docs/kernels.md "CUDA kernels") */
#include "config.h"
#include "kernels/cuda/cuda.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nvrtc.h>

const char *cuda_nvrtc_version(void)
{
	static char v[32];
	if (!v[0]) {
		int major = 0, minor = 0;
		if (CUDA_CHECK(CUDA_LIB_NVRTC, nvrtcVersion(&major, &minor), NULL))
			snprintf(v, sizeof(v), "unknown");
		else
			snprintf(v, sizeof(v), "%d.%d", major, minor);
	}
	return v;
}

/* Each input introduced by its name and ended by a NUL, so no two different inputs
 * concatenate alike. */
void cuda_cache_key(const char *tmpl_name, const char *source, size_t len, char *const *opts,
		    size_t nopts, const char *nvrtc_version, const char *arch, char out[65])
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "harness-cuda-kernel-v1");
	sbuf_add(&sb, "", 1);
	sbuf_addf(&sb, "template=%s", tmpl_name);
	sbuf_add(&sb, "", 1);
	sbuf_add(&sb, source, len);
	sbuf_add(&sb, "", 1);
	for (size_t i = 0; i < nopts; i++) {
		sbuf_addf(&sb, "option=%s", opts[i]);
		sbuf_add(&sb, "", 1);
	}
	sbuf_addf(&sb, "nvrtc=%s", nvrtc_version);
	sbuf_add(&sb, "", 1);
	sbuf_addf(&sb, "arch=%s", arch);
	util_sha256_hex(sb.buf, sb.len, out);
	sbuf_release(&sb);
}

/* NVRTC's log of prog (heap), or NULL when it is empty. */
static char *program_log(nvrtcProgram prog)
{
	size_t n = 0;
	if (CUDA_CHECK(CUDA_LIB_NVRTC, nvrtcGetProgramLogSize(prog, &n), NULL) || n <= 1)
		return NULL;
	char *log = xmalloc(n);
	if (CUDA_CHECK(CUDA_LIB_NVRTC, nvrtcGetProgramLog(prog, log), NULL)) {
		free(log);
		return NULL;
	}
	return log;
}

void cuda_compile_run(struct cuda_compile *c)
{
	nvrtcProgram prog = NULL;
	char *cause = NULL, *src = NULL;
	size_t n = 0;
	int64_t t0 = util_now_ns();

	c->ok = 0;
	src = xstrndup(c->source, c->source_len);
	if (CUDA_CHECK(CUDA_LIB_NVRTC, nvrtcCreateProgram(&prog, src, c->tmpl_name, 0, NULL, NULL),
		       &cause)) {
		prog = NULL;
		goto done;
	}
	int rc = CUDA_CHECK(CUDA_LIB_NVRTC,
			    nvrtcCompileProgram(prog, (int)c->nopts, (const char *const *)c->opts),
			    &cause);
	c->log = program_log(prog);
	if (rc)
		goto done;
	if (CUDA_CHECK(CUDA_LIB_NVRTC, nvrtcGetCUBINSize(prog, &n), &cause))
		goto done;
	if (!n) {
		cause = xstrdup("NVRTC produced no cubin (is the architecture a real sm_XX?)");
		goto done;
	}
	c->cubin = xmalloc(n);
	if (CUDA_CHECK(CUDA_LIB_NVRTC, nvrtcGetCUBIN(prog, c->cubin), &cause)) {
		free(c->cubin);
		c->cubin = NULL;
		goto done;
	}
	c->cubin_len = n;
	c->ok = 1;
done:
	if (cause) {
		/* the failed call first, NVRTC's own log after it */
		char *log = c->log;
		c->log = xasprintf("%s%s%s", cause, log ? "\n" : "", log ? log : "");
		free(log);
		free(cause);
	}
	if (prog)
		nvrtcDestroyProgram(&prog);
	free(src);
	c->ns = util_now_ns() - t0;
}

void cuda_compile_release(struct cuda_compile *c)
{
	free(c->cubin);
	free(c->log);
	c->cubin = c->log = NULL;
	c->cubin_len = 0;
	c->ok = 0;
}

struct pool {
	struct cuda_compile *c;
	size_t n, next;
	pthread_mutex_t lock;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		cuda_compile_run(&p->c[i]);
	}
}

void cuda_compile_many(struct cuda_compile *c, size_t n, int threads)
{
	struct pool p = { .c = c, .n = n, .next = 0 };
	pthread_t tid[64];
	int started = 0;

	if (threads <= 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		threads = cpus > 0 ? (int)cpus : 1;
	}
	if (threads > 64)
		threads = 64;
	if ((size_t)threads > n)
		threads = (int)n;
	pthread_mutex_init(&p.lock, NULL);
	for (int i = 0; i < threads; i++)
		if (!pthread_create(&tid[i], NULL, pool_worker, &p))
			started++;
	if (!started)
		pool_worker(&p);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&p.lock);
}

int cuda_template_read(const char *dir, const char *name, char **out, size_t *len, char **cause)
{
	static const char incl[] = "\n#include \"prelude.cuh\"";
	char *path = xasprintf("%s/%s", dir, name), *text = NULL, *pre = NULL;
	size_t n = 0, pn = 0;
	int rc = -1;
	if (util_read_file(path, &text, &n))
		goto done;
	const char *at = strstr(text, incl); /* at the start of a line */
	if (at)
		at++;
	if (!at) {
		*out = text, *len = n;
		text = NULL;
		rc = 0;
		goto done;
	}
	free(path);
	path = xasprintf("%s/prelude.cuh", dir);
	if (util_read_file(path, &pre, &pn))
		goto done;
	const char *eol = strchr(at, '\n');
	size_t tail = eol ? n - (size_t)(eol + 1 - text) : 0;
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_add(&sb, text, (size_t)(at - text));
	sbuf_add(&sb, pre, pn);
	if (eol)
		sbuf_add(&sb, eol + 1, tail);
	*len = sb.len;
	*out = sbuf_detach(&sb);
	rc = 0;
done:
	if (rc)
		*cause = xasprintf("cannot read kernel template '%s'", path);
	free(path);
	free(text);
	free(pre);
	return rc;
}
