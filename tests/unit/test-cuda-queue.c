/* test-cuda-queue.c: the CUDA backend's compile queue (kernels/cuda/nvrtc.c), which compiles
 * a tuner's plan in the background while the GPU benchmarks, with real NVRTC compiles and no
 * GPU: a taker waits for exactly its job (or compiles it when no thread has started it), the
 * window holds the pool back, a new plan drops the old one's jobs not started, stopping
 * mid-queue joins after the compiles under way, compile errors come back with their log, and
 * every count and time adds up.  Also the backend's HARNESS_CUDA_COMPILE_AHEAD and
 * HARNESS_CUDA_COMPILE_THREADS checks.  Skips (77) in a build without CUDA.
 *
 * HARNESS_CQ_BENCH=N (not part of `make check`): compile N configs of gemm.cu for sm_90a one
 * at a time, then on the queue (every CPU), then overlapped with a benchmark simulated by
 * sleeping, and print the throughput (docs/kernels.md "NVRTC and the cubin cache"). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef HAVE_CUDA
int main(void)
{
	printf("SKIP: this build has no CUDA backend (configure --with-cuda)\n");
	return 77;
}
#else

#include <check.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "kernels/backend.h"
#include "kernels/cuda/compile.h"
#include "kernels/space.h"
#include "tests/unit/testutil.h"

/* A small program: kernel f_<v>, or a static_assert failure when v < 0. */
static const char src[] =
	"extern \"C\" __global__ void f(float *x, int n)\n"
	"{\n"
	"  static_assert(V >= 0, \"V must not be negative\");\n"
	"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"  float a = x[i];\n"
	"  #pragma unroll\n"
	"  for (int k = 0; k < 64; k++) a = a * 1.0001f + (float)(V + k);\n"
	"  if (i < n) x[i] = a;\n"
	"}\n";

static struct cuda_compile job(int v)
{
	struct cuda_compile c = { .tmpl_name = "f.cu", .source = src, .source_len = strlen(src) };
	c.opts = xcalloc(2, sizeof(*c.opts));
	c.opts[0] = xstrdup("--gpu-architecture=sm_80");
	c.opts[1] = xasprintf("-DV=%d", v);
	c.nopts = 2;
	return c;
}

static void key_of(int v, char out[65])
{
	snprintf(out, 65, "%064d", v < 0 ? 999 - v : v);
}

/* The done hook: counts its calls and the compile times it saw, and says why a failed
 * compile cannot be used, as module.c's does. */
struct hook {
	pthread_mutex_t lock;
	pthread_t main;
	int64_t calls, ns, off_main;
};

static char *hook_done(void *ctx, const char *key, const struct cuda_compile *c)
{
	struct hook *h = ctx;
	pthread_mutex_lock(&h->lock);
	h->calls++;
	h->ns += c->ns;
	h->off_main += !pthread_equal(pthread_self(), h->main);
	pthread_mutex_unlock(&h->lock);
	return c->ok ? NULL : xasprintf("job %s failed:\n%s", key, c->log ? c->log : "");
}

static void hook_init(struct hook *h)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, NULL);
	h->main = pthread_self();
}

static void add(struct cuda_cq *q, int v)
{
	char key[65];
	struct cuda_compile c = job(v);
	key_of(v, key);
	ck_assert_int_eq(cuda_cq_add(q, key, &c), 0);
	ck_assert_ptr_null(c.opts); /* the queue's now */
}

/* Wait (at most 120 s) until pred holds of the queue's counts. */
static void settle(struct cuda_cq *q, struct cuda_cq_stats *st,
		   int (*pred)(const struct cuda_cq_stats *, int64_t), int64_t arg)
{
	int64_t t0 = util_now_ns();
	for (;;) {
		cuda_cq_stats(q, st);
		if (pred(st, arg))
			return;
		ck_assert_msg(util_now_ns() - t0 < 120 * (int64_t)1000000000,
			      "queue never settled: %lld compiled, %lld running, %lld pending",
			      (long long)st->compiled, (long long)st->running,
			      (long long)st->pending);
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
	}
}

static int idle_with(const struct cuda_cq_stats *st, int64_t compiled)
{
	return st->running == 0 && st->compiled == compiled;
}

static int running_one(const struct cuda_cq_stats *st, int64_t unused)
{
	return st->running > 0;
}

static int compiled_some(const struct cuda_cq_stats *st, int64_t n)
{
	return st->compiled >= n;
}

/* Take v's result: it compiled, the cubin has the kernel; returns the wait. */
static int64_t take_ok(struct cuda_cq *q, int v)
{
	char key[65], *detail = NULL;
	struct cuda_compile out;
	int64_t waited = -1;
	key_of(v, key);
	ck_assert_int_eq(cuda_cq_take(q, key, &out, &detail, &waited), 1);
	ck_assert_msg(out.ok, "%s", out.log ? out.log : "");
	ck_assert_ptr_null(detail);
	ck_assert_uint_gt(out.cubin_len, 0);
	ck_assert_ptr_nonnull(memmem(out.cubin, out.cubin_len, "f", 2));
	ck_assert_int_gt(out.ns, 0);
	ck_assert_int_ge(waited, 0);
	cuda_compile_release(&out);
	ck_assert(!cuda_cq_has(q, key));
	return waited;
}

/* No pool: a pending job is compiled by its taker, on the taker's thread, and only it. */
START_TEST(test_take_pending)
{
	struct hook h;
	char *cause = NULL, key[65], *detail = NULL;
	struct cuda_compile out;
	int64_t waited = -1;
	hook_init(&h);
	struct cuda_cq *q = cuda_cq_open(0, 0, hook_done, &h, &cause);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(cuda_cq_threads(q), 0);
	add(q, 0);
	add(q, 1);
	add(q, 2);
	struct cuda_compile dup = job(1);
	key_of(1, key);
	ck_assert_int_eq(cuda_cq_add(q, key, &dup), 1); /* queued already: not twice */
	ck_assert_ptr_null(dup.opts);
	waited = take_ok(q, 1);
	ck_assert_int_gt(waited, 0); /* it compiled it */
	struct cuda_cq_stats st;
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.added, 3);
	ck_assert_int_eq(st.compiled, 1);
	ck_assert_int_eq(st.taken, 1);
	ck_assert_int_eq(st.pending, 2);
	ck_assert_int_eq(st.waited_ns, waited);
	ck_assert_int_eq(h.calls, 1);
	ck_assert_int_eq(h.off_main, 0);
	key_of(7, key);
	ck_assert_int_eq(cuda_cq_take(q, key, &out, &detail, &waited), 0); /* never queued */
	ck_assert_int_eq(waited, 0);
	key_of(1, key);
	ck_assert_int_eq(cuda_cq_take(q, key, &out, &detail, &waited), 0); /* taken already */
	cuda_cq_stop(q);
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.cancelled, 2);
	ck_assert_int_eq(st.added, st.compiled + st.cancelled);
	ck_assert_int_eq(st.compile_ns, h.ns);
	cuda_cq_close(q);
}
END_TEST

/* A taker of a job a pool thread is compiling waits for exactly that one; the wait lies
 * within the compiler's wall time (plus the wake-up); the hook ran on the pool's thread. */
START_TEST(test_wait_running)
{
	struct hook h;
	char *cause = NULL;
	hook_init(&h);
	struct cuda_cq *q = cuda_cq_open(1, 0, hook_done, &h, &cause);
	ck_assert_ptr_nonnull(q);
	add(q, 3);
	struct cuda_cq_stats st;
	settle(q, &st, running_one, 0);
	int64_t waited = take_ok(q, 3);
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.compiled, 1);
	ck_assert_int_eq(st.waited_ns, waited);
	/* the waiter wakes after the pool's thread has closed the busy period: allow the
	 * wake-up's scheduling latency (over 1 ms seen on a loaded 2-core machine) */
	ck_assert_int_le(waited, st.busy_ns + 50 * 1000000LL);
	ck_assert_int_eq(h.off_main, 1);
	/* a job already compiled costs its taker no wait */
	add(q, 4);
	settle(q, &st, idle_with, 2);
	ck_assert_int_eq(take_ok(q, 4), 0);
	cuda_cq_close(q);
}
END_TEST

/* The window holds the pool at `window` jobs beyond the last taken; taking moves it; a new
 * plan (cancel) drops the jobs not started and the window counts from the next one added. */
START_TEST(test_window_and_cancel)
{
	struct hook h;
	char *cause = NULL;
	struct timespec pause = { 0, 100000000 };
	hook_init(&h);
	struct cuda_cq *q = cuda_cq_open(2, 2, hook_done, &h, &cause);
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq(cuda_cq_window(q), 2);
	for (int v = 10; v < 16; v++)
		add(q, v);
	struct cuda_cq_stats st;
	settle(q, &st, idle_with, 2);
	nanosleep(&pause, NULL);
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.compiled, 2); /* held by the window */
	ck_assert_int_eq(st.pending, 4);
	ck_assert_int_eq(take_ok(q, 10), 0);
	settle(q, &st, idle_with, 3);
	nanosleep(&pause, NULL);
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.compiled, 3);
	ck_assert_uint_eq(cuda_cq_cancel(q), 3); /* 13, 14, 15 */
	char key[65];
	key_of(13, key);
	ck_assert(!cuda_cq_has(q, key));
	key_of(12, key);
	ck_assert(cuda_cq_has(q, key)); /* compiled, still takeable */
	add(q, 16);
	add(q, 17);
	add(q, 18);
	settle(q, &st, idle_with, 5);
	nanosleep(&pause, NULL);
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.compiled, 5); /* 16 and 17 */
	take_ok(q, 11);
	take_ok(q, 12);
	take_ok(q, 16);
	take_ok(q, 17);
	ck_assert_int_gt(take_ok(q, 18), 0);
	cuda_cq_stop(q);
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.added, 9);
	ck_assert_int_eq(st.compiled, 6);
	ck_assert_int_eq(st.cancelled, 3);
	ck_assert_int_eq(st.taken, 6);
	ck_assert_int_eq(h.calls, st.compiled);
	ck_assert_int_eq(st.compile_ns, h.ns);
	cuda_cq_close(q);
}
END_TEST

/* Stopping mid-queue (the tuner stopped early, the unit ends) drops what no thread started
 * and returns as soon as the compiles under way are done; their results stay takeable; a
 * job added after is compiled by its taker. */
START_TEST(test_stop_mid_queue)
{
	struct hook h;
	char *cause = NULL;
	hook_init(&h);
	struct cuda_cq *q = cuda_cq_open(2, 0, hook_done, &h, &cause);
	ck_assert_ptr_nonnull(q);
	for (int v = 20; v < 120; v++)
		add(q, v);
	struct cuda_cq_stats st;
	settle(q, &st, compiled_some, 1);
	int64_t t0 = util_now_ns();
	cuda_cq_stop(q);
	int64_t stop = util_now_ns() - t0;
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.running, 0);
	ck_assert_int_eq(st.pending, 0);
	ck_assert_int_eq(st.added, 100);
	ck_assert_int_eq(st.added, st.compiled + st.cancelled);
	ck_assert_int_ge(st.cancelled, 50);
	ck_assert_int_le(st.stop_ns, stop);
	/* at most the two compiles under way: well under what the rest would take */
	int64_t each = st.compile_ns / st.compiled;
	ck_assert_msg(stop < 4 * each + 1000000000, "stop took %lld ns; a compile %lld ns",
		      (long long)stop, (long long)each);
	cuda_cq_stop(q); /* idempotent */
	take_ok(q, 20);
	char key[65], *detail = NULL;
	struct cuda_compile out;
	int64_t waited = 0;
	key_of(119, key);
	ck_assert_int_eq(cuda_cq_take(q, key, &out, &detail, &waited), 0); /* dropped */
	add(q, 120);
	ck_assert_int_gt(take_ok(q, 120), 0);
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(h.calls, st.compiled);
	ck_assert_int_eq(h.ns, st.compile_ns);
	cuda_cq_close(q); /* frees the results never taken */
}
END_TEST

/* The end of a unit's plans: drain drops the pending jobs, waits for the ones under way (its
 * wait in stop_ns, not in waited_ns, which stays the takers'), keeps the threads for jobs
 * added later; a drain with nothing running waits and counts nothing. */
START_TEST(test_drain)
{
	struct hook h;
	char *cause = NULL;
	hook_init(&h);
	struct cuda_cq *q = cuda_cq_open(2, 0, hook_done, &h, &cause);
	ck_assert_ptr_nonnull(q);
	for (int v = 200; v < 300; v++)
		add(q, v);
	struct cuda_cq_stats st;
	settle(q, &st, running_one, 0);
	ck_assert_uint_ge(cuda_cq_drain(q), 50);
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.running, 0);
	ck_assert_int_eq(st.pending, 0);
	ck_assert_int_eq(st.added, st.compiled + st.cancelled);
	ck_assert_int_eq(st.waited_ns, 0);
	ck_assert_int_gt(st.stop_ns, 0);
	int64_t stop = st.stop_ns;
	ck_assert_uint_eq(cuda_cq_drain(q), 0); /* nothing left: no wait, nothing counted */
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.stop_ns, stop);
	add(q, 300); /* the pool still compiles */
	settle(q, &st, idle_with, st.compiled + 1);
	ck_assert_int_eq(take_ok(q, 300), 0);
	cuda_cq_close(q);
}
END_TEST

/* A compile error comes back as a failed result with its log and the hook's verdict. */
START_TEST(test_compile_error)
{
	struct hook h;
	char *cause = NULL, key[65], *detail = NULL;
	struct cuda_compile out;
	int64_t waited = -1;
	hook_init(&h);
	struct cuda_cq *q = cuda_cq_open(1, 4, hook_done, &h, &cause);
	ck_assert_ptr_nonnull(q);
	add(q, -1);
	key_of(-1, key);
	ck_assert_int_eq(cuda_cq_take(q, key, &out, &detail, &waited), 1);
	ck_assert(!out.ok);
	ck_assert_ptr_nonnull(out.log);
	ck_assert_ptr_nonnull(strstr(out.log, "V must not be negative"));
	ck_assert_ptr_nonnull(detail);
	ck_assert_ptr_nonnull(strstr(detail, "V must not be negative"));
	free(detail);
	cuda_compile_release(&out);
	cuda_cq_close(q);
}
END_TEST

/* wait_all (chunked mode) compiles everything, the caller helping, past the window. */
START_TEST(test_wait_all)
{
	struct hook h;
	char *cause = NULL;
	hook_init(&h);
	struct cuda_cq *q = cuda_cq_open(1, 1, hook_done, &h, &cause);
	ck_assert_ptr_nonnull(q);
	for (int v = 70; v < 76; v++)
		add(q, v);
	int64_t wall = cuda_cq_wait_all(q);
	struct cuda_cq_stats st;
	cuda_cq_stats(q, &st);
	ck_assert_int_eq(st.compiled, 6);
	ck_assert_int_eq(st.pending + st.running, 0);
	ck_assert_int_eq(st.waited_ns, wall);
	for (int v = 70; v < 76; v++)
		ck_assert_int_eq(take_ok(q, v), 0);
	cuda_cq_close(q);
}
END_TEST

/* The backend refuses a mode or a thread count it does not know, naming the variable, before
 * it looks for a device. */
START_TEST(test_ahead_env)
{
	static const char *const bad[][2] = { { "HARNESS_CUDA_COMPILE_AHEAD", "sometimes" },
					      { "HARNESS_CUDA_COMPILE_THREADS", "0" },
					      { "HARNESS_CUDA_COMPILE_THREADS", "4x" } };
	struct backend_ctx ctx = { .cache_dir = "/nonexistent", .kernel_dir = "/nonexistent" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *cause = NULL;
		setenv(bad[i][0], bad[i][1], 1);
		struct backend *b = backend_cuda.open(&ctx, &cause);
		unsetenv(bad[i][0]);
		ck_assert_ptr_null(b);
		ck_assert_ptr_nonnull(cause);
		ck_assert_msg(strstr(cause, bad[i][0]) && strstr(cause, bad[i][1]), "%s", cause);
		free(cause);
	}
}
END_TEST

/* ---- HARNESS_CQ_BENCH ------------------------------------------------------------------ */

static double secs(int64_t ns)
{
	return (double)ns / 1e9;
}

static int bench(size_t n)
{
	struct cuda_space_ctx x;
	struct space sp;
	char *text = NULL, *cause = NULL, *dir;
	size_t len = 0;
	const char *kd = getenv("HARNESS_KERNEL_DIR");
	dir = xasprintf("%s/cuda/templates", kd && *kd ? kd : backend_kernel_dir());
	if (cuda_template_read(dir, "gemm.cu", &text, &len, &cause)) {
		fprintf(stderr, "%s\n", cause);
		return 1;
	}
	memset(&x, 0, sizeof(x));
	cuda_devinfo_default(&x.dev);
	x.shape.op = CUDA_GEMM;
	x.shape.dtype = CUDA_F16;
	x.shape.m = x.shape.n = x.shape.k = 4096;
	x.shape.batch = 1;
	cuda_space_init(&sp, &x);
	/* n of the valid points, evenly spread over the grid */
	size_t grid = space_grid_size(&sp), nvalid = 0, nc = 0;
	struct config *all = xcalloc(grid, sizeof(*all)), *cfg = xcalloc(n, sizeof(*cfg));
	for (size_t i = 0; i < grid; i++)
		if (space_grid_point(&sp, i, &all[nvalid]) == 0 && space_contains(&sp, &all[nvalid]))
			nvalid++;
	nc = n < nvalid ? n : nvalid;
	for (size_t i = 0; i < nc; i++)
		cfg[i] = all[i * nvalid / nc];
	free(all);
	int cpus = cuda_compile_cpus();
	printf("gemm.cu float16 sm_90a: %zu of the %zu valid configs of the 4096^3 space, %d CPUs\n",
	       nc, nvalid, cpus);
	/* serial, then the queue on every CPU (chunked), then overlapped with a benchmark of the
	 * serial mean compile time per config (sleeping, as the CPU does while the GPU times) */
	int64_t serial = 0, chunked = 0, overlapped = 0, bench_each = 0;
	for (int pass = 0; pass < 3; pass++) {
		struct cuda_cq *q = cuda_cq_open(pass == 0 ? 0 : cpus > 1 ? cpus - 1 : 1,
						 pass == 2 ? 2 * (size_t)cpus : 0, NULL, NULL, &cause);
		char (*keys)[65] = xcalloc(nc, sizeof(*keys));
		int64_t t0 = util_now_ns();
		for (size_t i = 0; i < nc; i++) {
			struct cuda_compile c = { .tmpl_name = "gemm.cu", .source = text,
						  .source_len = len };
			c.opts = xcalloc(CUDA_MAX_OPTS, sizeof(*c.opts));
			c.nopts = cuda_config_options(&sp, &cfg[i], "sm_90a", c.opts);
			snprintf(keys[i], 65, "%064zu", i);
			cuda_cq_add(q, keys[i], &c);
		}
		if (pass == 1)
			cuda_cq_wait_all(q);
		for (size_t i = 0; i < nc; i++) {
			struct cuda_compile out;
			char *detail = NULL;
			int64_t waited;
			if (cuda_cq_take(q, keys[i], &out, &detail, &waited) != 1 || !out.ok) {
				fprintf(stderr, "config %zu: %s\n", i, out.log ? out.log : "");
				return 1;
			}
			cuda_compile_release(&out);
			if (pass == 2) {
				struct timespec ts = { bench_each / 1000000000,
						       bench_each % 1000000000 };
				nanosleep(&ts, NULL);
			}
		}
		int64_t wall = util_now_ns() - t0;
		struct cuda_cq_stats st;
		cuda_cq_stats(q, &st);
		if (pass == 0) {
			serial = wall;
			bench_each = wall / (int64_t)nc;
		} else if (pass == 1) {
			chunked = wall;
		} else {
			overlapped = wall;
		}
		printf("%-10s %2d pool threads: %.2f s, %.3f s per config, %.1f configs/s "
		       "(compiles' own time %.2f s, waited %.2f s)\n",
		       pass == 0 ? "serial" : pass == 1 ? "chunked" : "overlapped",
		       cuda_cq_threads(q), secs(wall), secs(wall) / (double)nc,
		       (double)nc / secs(wall), secs(st.compile_ns), secs(st.waited_ns));
		free(keys);
		cuda_cq_close(q);
	}
	printf("pool speed-up over one thread: %.2fx\n", secs(serial) / secs(chunked));
	printf("benchmark simulated: %.3f s per config (%.2f s in all); chunked compile + "
	       "benchmark %.2f s, overlapped %.2f s: saved %.2f s (bound: min(%.2f, %.2f))\n",
	       secs(bench_each), secs(bench_each) * (double)nc,
	       secs(chunked) + secs(bench_each) * (double)nc, secs(overlapped),
	       secs(chunked) + secs(bench_each) * (double)nc - secs(overlapped), secs(chunked),
	       secs(bench_each) * (double)nc);
	free(cfg);
	free(text);
	free(dir);
	return 0;
}

static Suite *queue_suite(void)
{
	Suite *s = suite_create("cuda-queue");
	TCase *tc = tcase_create("queue");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_take_pending);
	tcase_add_test(tc, test_wait_running);
	tcase_add_test(tc, test_window_and_cancel);
	tcase_add_test(tc, test_stop_mid_queue);
	tcase_add_test(tc, test_drain);
	tcase_add_test(tc, test_compile_error);
	tcase_add_test(tc, test_wait_all);
	tcase_add_test(tc, test_ahead_env);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *n = getenv("HARNESS_CQ_BENCH");
	if (n && *n)
		return bench((size_t)strtoul(n, NULL, 10));
	return testutil_run(queue_suite());
}

#endif
