/* nvrtc.c: compiling the CUDA templates with NVRTC (no device needed), the cubin cache key,
 * a pool of threads that compiles many configs at once, one NVRTC program each, and the
 * compile queue that does so in the background (docs/kernels.md "NVRTC and the cubin cache") */
#include "config.h"
#include "kernels/cuda/compile.h"

#include <ctype.h>
#include <pthread.h>
#include <sched.h>
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

int cuda_compile_cpus(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus > 0 ? (int)cpus : 1;
}

/* ---- the compile queue ----------------------------------------------------------------- */

enum cq_state { CQ_PENDING = 0, CQ_RUNNING, CQ_DONE };

struct cq_job {
	char key[65];
	int64_t seq;             /* order added */
	enum cq_state state;
	int claimed;             /* a taker has it */
	struct cuda_compile cc;  /* opts owned until compiled */
	char *detail;            /* the done hook's verdict */
};

struct cuda_cq {
	pthread_mutex_t lock;
	pthread_cond_t work;     /* a job may start: added, the window moved, or stopping */
	pthread_cond_t finished; /* a compile finished */
	struct cq_job **jobs;    /* added and not taken nor cancelled, in order added */
	size_t njobs, cap;
	int64_t seq, base;       /* next seq; the window counts from base */
	size_t window;
	int stopping, stopped;
	pthread_t *tid;
	int nthreads;            /* running (0 once stopped) */
	int pool;                /* started at open; never changes */
	int active;              /* compiles running */
	int64_t busy_t0;
	cuda_cq_done_fn done;
	void *ctx;
	struct cuda_cq_stats st; /* running and pending counted on demand */
};

static void free_opts(struct cuda_compile *c)
{
	for (size_t i = 0; c->opts && i < c->nopts; i++)
		free(c->opts[i]);
	free(c->opts);
	c->opts = NULL;
	c->nopts = 0;
}

/* The first pending job a pool thread may start, or NULL.  Lock held. */
static struct cq_job *cq_next(struct cuda_cq *q)
{
	for (size_t i = 0; i < q->njobs; i++) {
		struct cq_job *j = q->jobs[i];
		if (q->window && j->seq >= q->base + (int64_t)q->window)
			return NULL; /* jobs are in seq order */
		if (j->state == CQ_PENDING)
			return j;
	}
	return NULL;
}

/* Compile j on this thread: entered and left with the lock held, which is released while
 * NVRTC runs. */
static void cq_run(struct cuda_cq *q, struct cq_job *j)
{
	j->state = CQ_RUNNING;
	if (q->active++ == 0)
		q->busy_t0 = util_now_ns();
	pthread_mutex_unlock(&q->lock);
	cuda_compile_run(&j->cc);
	char *detail = q->done ? q->done(q->ctx, j->key, &j->cc) : NULL;
	free_opts(&j->cc);
	pthread_mutex_lock(&q->lock);
	j->detail = detail;
	j->state = CQ_DONE;
	q->st.compiled++;
	q->st.compile_ns += j->cc.ns;
	if (--q->active == 0)
		q->st.busy_ns += util_now_ns() - q->busy_t0;
	pthread_cond_broadcast(&q->finished);
}

static void *cq_worker(void *arg)
{
	struct cuda_cq *q = arg;
	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct cq_job *j = NULL;
		while (!q->stopping && !(j = cq_next(q)))
			pthread_cond_wait(&q->work, &q->lock);
		if (!j)
			break;
		cq_run(q, j);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct cuda_cq *cuda_cq_open(int threads, size_t window, cuda_cq_done_fn done, void *ctx,
			     char **cause)
{
	struct cuda_cq *q = xcalloc(1, sizeof(*q));
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->finished, NULL);
	q->window = window;
	q->done = done;
	q->ctx = ctx;
	q->tid = xcalloc(threads > 0 ? (size_t)threads : 1, sizeof(*q->tid));
	for (int i = 0; i < threads; i++) {
		int rc = pthread_create(&q->tid[q->nthreads], NULL, cq_worker, q);
		if (rc) {
			if (!q->nthreads) {
				*cause = xasprintf("cannot start a compile thread: %s", strerror(rc));
				cuda_cq_close(q);
				return NULL;
			}
			break; /* fewer threads than asked: still a pool */
		}
		q->nthreads++;
	}
	q->pool = q->nthreads;
	return q;
}

static struct cq_job *cq_find(struct cuda_cq *q, const char *key, size_t *at)
{
	for (size_t i = 0; i < q->njobs; i++)
		if (!strcmp(q->jobs[i]->key, key)) {
			if (at)
				*at = i;
			return q->jobs[i];
		}
	return NULL;
}

int cuda_cq_add(struct cuda_cq *q, const char *key, struct cuda_compile *c)
{
	pthread_mutex_lock(&q->lock);
	if (cq_find(q, key, NULL)) {
		pthread_mutex_unlock(&q->lock);
		free_opts(c);
		return 1;
	}
	struct cq_job *j = xcalloc(1, sizeof(*j));
	snprintf(j->key, sizeof(j->key), "%s", key);
	j->seq = q->seq++;
	j->cc = *c;
	j->cc.ok = 0;
	j->cc.cubin = j->cc.log = NULL;
	j->cc.cubin_len = 0;
	j->cc.ns = 0;
	c->opts = NULL;
	c->nopts = 0;
	XGROW(q->jobs, q->cap, q->njobs + 1);
	q->jobs[q->njobs++] = j;
	q->st.added++;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

int cuda_cq_has(struct cuda_cq *q, const char *key)
{
	pthread_mutex_lock(&q->lock);
	int has = cq_find(q, key, NULL) != NULL;
	pthread_mutex_unlock(&q->lock);
	return has;
}

int cuda_cq_take(struct cuda_cq *q, const char *key, struct cuda_compile *out, char **detail,
		 int64_t *waited_ns)
{
	int64_t t0 = util_now_ns(), waited = 0;
	size_t at = 0;

	*waited_ns = 0;
	*detail = NULL;
	pthread_mutex_lock(&q->lock);
	struct cq_job *j = cq_find(q, key, &at);
	if (!j || j->claimed) {
		pthread_mutex_unlock(&q->lock);
		return 0;
	}
	j->claimed = 1;
	if (j->state != CQ_DONE) {
		if (j->state == CQ_PENDING)
			cq_run(q, j); /* no thread has started it: compile it here rather than wait */
		while (j->state != CQ_DONE)
			pthread_cond_wait(&q->finished, &q->lock);
		waited = util_now_ns() - t0;
		q->st.waited_ns += waited;
		cq_find(q, key, &at); /* others may have left the list meanwhile */
	}
	memmove(&q->jobs[at], &q->jobs[at + 1], (q->njobs - at - 1) * sizeof(*q->jobs));
	q->njobs--;
	q->st.taken++;
	if (j->seq + 1 > q->base) {
		q->base = j->seq + 1; /* the window moves on */
		pthread_cond_broadcast(&q->work);
	}
	pthread_mutex_unlock(&q->lock);
	*out = j->cc;
	*detail = j->detail;
	*waited_ns = waited;
	free(j);
	return 1;
}

int64_t cuda_cq_wait_all(struct cuda_cq *q)
{
	int64_t t0 = util_now_ns();
	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct cq_job *todo = NULL;
		int busy = 0;
		for (size_t i = 0; i < q->njobs && !todo; i++) {
			if (q->jobs[i]->state == CQ_PENDING)
				todo = q->jobs[i];
			busy |= q->jobs[i]->state == CQ_RUNNING;
		}
		if (todo)
			cq_run(q, todo); /* help: the window does not bind the one who waits */
		else if (busy)
			pthread_cond_wait(&q->finished, &q->lock);
		else
			break;
	}
	int64_t waited = util_now_ns() - t0;
	q->st.waited_ns += waited;
	pthread_mutex_unlock(&q->lock);
	return waited;
}

/* Drop every pending job.  Lock held. */
static size_t cq_cancel_locked(struct cuda_cq *q)
{
	size_t kept = 0, dropped = 0;
	for (size_t i = 0; i < q->njobs; i++) {
		struct cq_job *j = q->jobs[i];
		if (j->state != CQ_PENDING) {
			q->jobs[kept++] = j;
			continue;
		}
		free_opts(&j->cc);
		free(j);
		dropped++;
	}
	q->njobs = kept;
	q->st.cancelled += (int64_t)dropped;
	q->base = q->seq;
	return dropped;
}

size_t cuda_cq_cancel(struct cuda_cq *q)
{
	pthread_mutex_lock(&q->lock);
	size_t n = cq_cancel_locked(q);
	pthread_mutex_unlock(&q->lock);
	return n;
}

size_t cuda_cq_drain(struct cuda_cq *q)
{
	int64_t t0 = util_now_ns();
	pthread_mutex_lock(&q->lock);
	size_t n = cq_cancel_locked(q);
	int waited = 0;
	while (q->active) {
		pthread_cond_wait(&q->finished, &q->lock);
		waited = 1;
	}
	if (waited)
		q->st.stop_ns += util_now_ns() - t0;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void cuda_cq_stop(struct cuda_cq *q)
{
	int64_t t0 = util_now_ns();
	pthread_mutex_lock(&q->lock);
	if (q->stopped) {
		pthread_mutex_unlock(&q->lock);
		return;
	}
	cq_cancel_locked(q);
	q->stopping = 1;
	pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->lock);
	for (int i = 0; i < q->nthreads; i++)
		pthread_join(q->tid[i], NULL);
	pthread_mutex_lock(&q->lock);
	q->nthreads = 0;
	q->stopped = 1;
	q->st.stop_ns += util_now_ns() - t0;
	pthread_mutex_unlock(&q->lock);
}

void cuda_cq_stats(struct cuda_cq *q, struct cuda_cq_stats *out)
{
	pthread_mutex_lock(&q->lock);
	*out = q->st;
	out->running = out->pending = 0;
	for (size_t i = 0; i < q->njobs; i++) {
		out->running += q->jobs[i]->state == CQ_RUNNING;
		out->pending += q->jobs[i]->state == CQ_PENDING;
	}
	if (q->active)
		out->busy_ns += util_now_ns() - q->busy_t0;
	pthread_mutex_unlock(&q->lock);
}

int cuda_cq_threads(const struct cuda_cq *q)
{
	return q->pool;
}

size_t cuda_cq_window(const struct cuda_cq *q)
{
	return q->window;
}

void cuda_cq_close(struct cuda_cq *q)
{
	if (!q)
		return;
	cuda_cq_stop(q);
	for (size_t i = 0; i < q->njobs; i++) {
		free_opts(&q->jobs[i]->cc);
		cuda_compile_release(&q->jobs[i]->cc);
		free(q->jobs[i]->detail);
		free(q->jobs[i]);
	}
	free(q->jobs);
	free(q->tid);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->finished);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/* The headers spliced into one template so far (each at most once, as #pragma once). */
#define CUDA_MAX_HEADERS 16
struct splice {
	const char *dir;
	const char *top;        /* the template's name, for messages */
	char *seen[CUDA_MAX_HEADERS];
	size_t nseen;
	struct sbuf out;
};

/* NAME when line (len bytes, no newline) is `#include "NAME"` (anything may follow the
 * closing quote) and NAME is a plain file name: letters, digits, '_', '-', '.'; else NULL. */
static char *include_name(const char *line, size_t len)
{
	static const char pre[] = "#include \"";
	if (len < sizeof(pre) || memcmp(line, pre, sizeof(pre) - 1))
		return NULL;
	const char *n = line + sizeof(pre) - 1, *end = line + len, *q = n;
	while (q < end && (isalnum((unsigned char)*q) || *q == '_' || *q == '-' || *q == '.'))
		q++;
	if (q == n || q == end || *q != '"' || *n == '.')
		return NULL;
	return xstrndup(n, (size_t)(q - n));
}

/* Text (len bytes, named name) into sp->out, each include line replaced by its header's
 * spliced text (a header already spliced: by nothing). */
static int splice_text(struct splice *sp, const char *name, const char *text, size_t len,
		       char **cause)
{
	const char *p = text, *end = text + len;
	int ret = -1;
	for (int line = 1; p < end; line++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
		char *h = include_name(p, n), *path = NULL, *htext = NULL;
		size_t hlen = 0, i;
		if (!h) {
			sbuf_add(&sp->out, p, eol ? n + 1 : n);
			p += eol ? n + 1 : n;
			continue;
		}
		p += eol ? n + 1 : n;
		for (i = 0; i < sp->nseen && strcmp(sp->seen[i], h); i++)
			;
		if (i < sp->nseen) {
			free(h);
			continue;
		}
		if (sp->nseen == CUDA_MAX_HEADERS) {
			*cause = xasprintf("kernel template '%s': '%s':%d: more than %d headers",
					   sp->top, name, line, CUDA_MAX_HEADERS);
			free(h);
			goto done;
		}
		sp->seen[sp->nseen++] = h;
		path = xasprintf("%s/%s", sp->dir, h);
		int rc = util_read_file(path, &htext, &hlen);
		if (rc)
			*cause = xasprintf("kernel template '%s': '%s':%d: cannot read '%s'",
					   sp->top, name, line, path);
		else
			rc = splice_text(sp, h, htext, hlen, cause);
		free(path);
		free(htext);
		if (rc)
			goto done;
		if (sp->out.len && sp->out.buf[sp->out.len - 1] != '\n')
			sbuf_add(&sp->out, "\n", 1);
	}
	ret = 0;
done:
	return ret;
}

int cuda_template_read(const char *dir, const char *name, char **out, size_t *len, char **cause)
{
	struct splice sp = { .dir = dir, .top = name };
	char *path = xasprintf("%s/%s", dir, name), *text = NULL;
	size_t n = 0;
	int rc = -1;
	sbuf_init(&sp.out);
	if (util_read_file(path, &text, &n)) {
		*cause = xasprintf("cannot read kernel template '%s'", path);
		goto done;
	}
	if (splice_text(&sp, name, text, n, cause))
		goto done;
	*len = sp.out.len;
	*out = sbuf_detach(&sp.out);
	rc = 0;
done:
	for (size_t i = 0; i < sp.nseen; i++)
		free(sp.seen[i]);
	sbuf_release(&sp.out);
	free(path);
	free(text);
	return rc;
}
