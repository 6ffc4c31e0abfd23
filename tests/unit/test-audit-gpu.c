/* test-audit-gpu.c: the audit's GPU checks on results recorded on an H100
 * (tests/data/cuda/gpu-aa-h100.h5: a short experiments/gpu-aa.toml, 20 units, in which the
 * GPU warmed by 12 C and power-capped 1.1% of one mode's samples; gpu-aa-h100-replay.h5: the
 * full-length one after graph replay, power-capped on the 4096^3 GEMM) and on a CPU results
 * file (no GPU checks).  Needs no GPU. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/analysis/audit-gpu.h"
#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "tests/unit/testutil.h"

static const struct audit_check *find(const struct audit *a, const char *id)
{
	for (size_t i = 0; i < a->nchecks; i++)
		if (!strcmp(a->checks[i].id, id))
			return &a->checks[i];
	return NULL;
}

static void show(const struct audit *a)
{
	for (size_t i = 0; i < a->nchecks; i++) {
		printf("%s %s: %s\n", audit_status_name(a->checks[i].status), a->checks[i].id,
		       a->checks[i].summary);
		for (size_t e = 0; e < a->checks[i].nevidence; e++)
			printf("  %s\n", a->checks[i].evidence[e]);
	}
}

static char *data_path(const char *name)
{
	const char *top = getenv("top_srcdir");
	return xasprintf("%s/tests/data/%s", top ? top : HARNESS_ABS_SRCDIR, name);
}

/* An empty audit of a run with this backend (gpu-op-timing and gpu-settings are the CUDA
 * backend's only). */
static struct audit *audit_for(const char *backend)
{
	struct audit *a = xcalloc(1, sizeof(*a));
	a->backend = xstrdup(backend);
	return a;
}

/* The baseline of the next audit_rewritten (NULL: none; the settings check then compares
 * with the first unit). */
static const char *rewrite_baseline;

START_TEST(test_h100_run)
{
	struct audit *a = audit_for("cuda");
	char *p = data_path("cuda/gpu-aa-h100.h5");
	ck_assert_int_eq(audit_gpu_checks(a, p), 0);
	show(a);
	ck_assert_uint_eq(a->nchecks, 7);
	/* recorded before graph replay: how the op cells were timed is not said */
	ck_assert_int_eq(find(a, "gpu-op-timing")->status, AUDIT_WARN);
	ck_assert_ptr_nonnull(strstr(find(a, "gpu-op-timing")->summary, "not recorded"));
	ck_assert_int_eq(find(a, "gpu-clocks")->status, AUDIT_PASS);
	ck_assert_ptr_nonnull(strstr(find(a, "gpu-clocks")->summary, "1980"));
	ck_assert_int_eq(find(a, "gpu-identity")->status, AUDIT_PASS);
	ck_assert_int_eq(find(a, "gpu-exclusive")->status, AUDIT_PASS);
	/* 48 C in unit 0, 60 C in unit 17 */
	const struct audit_check *t = find(a, "gpu-temperature");
	ck_assert_int_eq(t->status, AUDIT_WARN);
	ck_assert_ptr_nonnull(strstr(t->summary, "drifted by 12 C"));
	ck_assert_uint_eq(t->nunits, 2);
	/* mode 'a': 71 of 6455 samples power-capped (4096^3 GEMM), over the 1% tolerance */
	t = find(a, "gpu-throttle");
	ck_assert_int_eq(t->status, AUDIT_WARN);
	ck_assert_uint_eq(t->nmodes, 1);
	ck_assert_str_eq(t->modes[0], "a");
	ck_assert_ptr_nonnull(strstr(t->evidence[0], "71 of 6455"));
	/* written before the samples kept NVML's reason bits: the check cannot name the cap */
	ck_assert_ptr_null(strstr(t->evidence[0], "power cap"));
	ck_assert_ptr_nonnull(strstr(t->summary, "which one was not recorded"));
	audit_free(a);
	free(p);
}
END_TEST

/* The start of every rewrite: h5py (or exit 77), the data file copied, the copy open as f. */
#define PY_OPEN_COPY                                                                       \
	"import sys, shutil\n"                                                             \
	"try:\n"                                                                           \
	"    import h5py, numpy as np\n"                                                    \
	"except ImportError:\n"                                                             \
	"    sys.exit(77)\n"                                                                \
	"shutil.copyfile(sys.argv[1], sys.argv[2])\n"                                      \
	"f = h5py.File(sys.argv[2], 'r+')\n"

/* The same file with a clock_reasons column added (h5py), as the CUDA backend now writes
 * it: each throttled sample power-capped (0x4), the first also in hardware slowdown (0x8);
 * the check names the caps with their counts. */
static const char py_add_reasons[] =
	PY_OPEN_COPY
	"s = f['samples'][:]\n"
	"dt = np.dtype(s.dtype.descr + [('clock_reasons', '<i8')])\n"
	"t = np.zeros(len(s), dt)\n"
	"for n in s.dtype.names: t[n] = s[n]\n"
	"thr = np.flatnonzero(s['throttle'] == 1)\n"
	"t['clock_reasons'][thr] = 0x4\n"
	"t['clock_reasons'][thr[0]] = 0x4 | 0x8\n"
	"t['clock_reasons'][s['throttle'] == -1] = -1\n"
	"del f['samples']\n"
	"f.create_dataset('samples', data=t, maxshape=(None,), chunks=True)\n"
	"f.close()\n";

/* The audit's GPU checks on a copy of data file src that /usr/bin/python3 rewrote with
 * script (h5py), into *out; 0 when python3 or h5py is missing (said on stderr: the check is
 * skipped), else 1. */
static int audit_rewritten(const char *src, const char *script, const char *what,
			   const char *backend, struct audit **out)
{
	char *from = data_path(src), *dst = testutil_path("rewritten.h5");
	struct spawn sp;
	struct spawn_status st;
	int ran = 0;
	*out = NULL;
	if (access("/usr/bin/python3", X_OK)) {
		fprintf(stderr, "test-audit-gpu: no /usr/bin/python3; %s check skipped\n", what);
		goto out;
	}
	spawn_init(&sp);
	sp.argv = (const char *const[]){ "/usr/bin/python3", "-c", script, from, dst, NULL };
	sp.env = (const char *const[]){ "LC_ALL=C", "PATH=/usr/bin:/bin", NULL };
	sp.inherit_stderr = 1;
	int rc = spawn_run(&sp, NULL, &st);
	spawn_release(&sp);
	ck_assert_int_eq(rc, 0);
	if (st.code == 77) {
		fprintf(stderr, "test-audit-gpu: no h5py for /usr/bin/python3; %s check skipped\n",
			what);
		goto out;
	}
	ck_assert_int_eq(st.code, 0);
	*out = audit_for(backend);
	if (rewrite_baseline)
		(*out)->baseline = xstrdup(rewrite_baseline);
	ck_assert_int_eq(audit_gpu_checks(*out, dst), 0);
	show(*out);
	ran = 1;
out:
	free(from);
	free(dst);
	return ran;
}

START_TEST(test_h100_reasons)
{
	struct audit *a;
	if (!audit_rewritten("cuda/gpu-aa-h100.h5", py_add_reasons, "reasons", "cuda", &a))
		return;
	const struct audit_check *t = find(a, "gpu-throttle");
	ck_assert_int_eq(t->status, AUDIT_WARN);
	ck_assert_ptr_nonnull(strstr(t->evidence[0],
				     "71 of 6455 samples throttled (1.10%): sw power cap on 71, "
				     "hw slowdown on 1"));
	ck_assert_ptr_nonnull(strstr(t->summary, "(sw power cap on 71, hw slowdown on 1)"));
	audit_free(a);
}
END_TEST

/* The full-length gpu-aa.toml on an H100 after graph replay (tests/data/cuda/
 * gpu-aa-h100-replay.h5, docs/BENCHMARKS.md): every config graph-timed; the 4096^3 GEMM
 * power-capped on 1973 samples, named as the software power cap. */
START_TEST(test_h100_replay_run)
{
	struct audit *a = audit_for("cuda");
	char *p = data_path("cuda/gpu-aa-h100-replay.h5");
	ck_assert_int_eq(audit_gpu_checks(a, p), 0);
	show(a);
	ck_assert_uint_eq(a->nchecks, 7);
	/* recorded before the backend's settings were */
	ck_assert_int_eq(find(a, "gpu-settings")->status, AUDIT_WARN);
	ck_assert_ptr_nonnull(strstr(find(a, "gpu-settings")->summary, "not evaluated"));
	const struct audit_check *t = find(a, "gpu-op-timing");
	ck_assert_int_eq(t->status, AUDIT_PASS);
	ck_assert_ptr_nonnull(strstr(t->summary, "in 20 unit(s) was timed by CUDA-graph replay"));
	t = find(a, "gpu-throttle");
	ck_assert_int_eq(t->status, AUDIT_WARN);
	ck_assert_ptr_nonnull(strstr(t->summary, "sw power cap on 1973"));
	audit_free(a);
	free(p);
}
END_TEST

/* A rewrite of the units' info: the start (the copy open, u its units, info the column as
 * a list of str) and the end (the list info written back as the column). */
#define PY_READ_INFO                                                                       \
	PY_OPEN_COPY                                                                       \
	"u = f['units'][:]\n"                                                              \
	"info = [x.decode() for x in u['info']]\n"

#define PY_WRITE_INFO                                                                      \
	"dt = np.dtype([(n, u.dtype[n] if n != 'info' else 'S%d' % (max(map(len, info)) + 1))" \
	" for n in u.dtype.names])\n"                                                          \
	"t = np.zeros(len(u), dt)\n"                                                           \
	"for n in u.dtype.names: t[n] = u[n] if n != 'info' else [x.encode() for x in info]\n" \
	"del f['units']\n"                                                                      \
	"f.create_dataset('units', data=t, maxshape=(None,), chunks=True)\n"                   \
	"f.close()\n"

/* The same file with two units' info changed (h5py): one timed on the stream on purpose, one
 * with 2 configs on the stream after a failed capture; both are named, with the reason. */
static const char py_stream[] =
	PY_READ_INFO
	"info[0] = info[0].replace('op_timing=graph', 'op_timing=stream (HARNESS_CUDA_OP_TIMING)')\n"
	"info[1] = info[1].replace('op_timing_stream_configs=0', 'op_timing_stream_configs=2')"
	" + 'op_timing_fallback=g/gemm: the launches cannot be captured into a CUDA graph: x\\n'\n"
	PY_WRITE_INFO;

START_TEST(test_op_timing_stream)
{
	struct audit *a;
	if (!audit_rewritten("cuda/gpu-aa-h100-replay.h5", py_stream, "op-timing", "cuda", &a))
		return;
	const struct audit_check *t = find(a, "gpu-op-timing");
	ck_assert_int_eq(t->status, AUDIT_WARN);
	ck_assert_uint_eq(t->nunits, 2);
	ck_assert_ptr_nonnull(strstr(t->summary, "2 of 20 unit(s) timed op cells on the stream (1 on "
					       "purpose, 1 after a failed capture)"));
	ck_assert_uint_eq(t->nevidence, 2);
	ck_assert_ptr_nonnull(strstr(t->evidence[0], "on purpose"));
	ck_assert_ptr_nonnull(strstr(t->evidence[1], "2 of "));
	ck_assert_ptr_nonnull(strstr(t->evidence[1], "g/gemm: the launches cannot be captured"));
	audit_free(a);
}
END_TEST

/* The same file with the backend's settings recorded in every unit: all alike, then mode
 * 'b' on cuDNN's graph API (as a [modes.environment] knob would run it). */
#define PY_SETTINGS(b_api)                                                                 \
	PY_READ_INFO                                                                       \
	"modes = [x.decode() for x in u['mode']]\n"                                        \
	"info = [x + 'cudnn_api=%s\\nconv_im2col=1\\nplacement=random pad=%d MiB\\n'"       \
	" % ('" b_api "' if m == 'b' else 'legacy', 2 * i) for i, (x, m) in"                   \
	" enumerate(zip(info, modes))]\n"                                                   \
	PY_WRITE_INFO
static const char py_settings_same[] = PY_SETTINGS("legacy");
static const char py_settings_b[] = PY_SETTINGS("graph");
/* mode 'b' with conv.cu's gather kept (HARNESS_CUDA_CONV_TMA_ONLY=0, an A/B's other arm) */
static const char py_settings_tma[] =
	PY_READ_INFO "modes = [x.decode() for x in u['mode']]\n"
		     "info = [x + 'cudnn_api=legacy\\nconv_tma_only=%d\\nplacement=random\\n'"
		     " % (0 if m == 'b' else 1) for x, m in zip(info, modes)]\n" PY_WRITE_INFO;

START_TEST(test_settings)
{
	struct audit *a;
	rewrite_baseline = "a";
	int ran = audit_rewritten("cuda/gpu-aa-h100-replay.h5", py_settings_same, "settings",
				  "cuda", &a);
	rewrite_baseline = NULL;
	if (!ran)
		return;
	/* the pad differs by unit and is not a setting: its first word is */
	const struct audit_check *t = find(a, "gpu-settings");
	ck_assert_int_eq(t->status, AUDIT_PASS);
	ck_assert_str_eq(t->summary, "every unit of every mode ran with cudnn_api=legacy, "
				     "conv_im2col=1, placement=random (20 unit(s))");
	audit_free(a);

	rewrite_baseline = "a";
	ran = audit_rewritten("cuda/gpu-aa-h100-replay.h5", py_settings_b, "settings", "cuda", &a);
	rewrite_baseline = NULL;
	ck_assert_int_eq(ran, 1);
	t = find(a, "gpu-settings");
	ck_assert_int_eq(t->status, AUDIT_WARN);
	ck_assert_ptr_nonnull(strstr(t->summary, "1 mode/settings pair(s) differ from the "
					       "baseline's (cudnn_api=legacy, conv_im2col=1, "
					       "placement=random)"));
	ck_assert_uint_eq(t->nevidence, 1);
	ck_assert_str_eq(t->evidence[0], "'b': 10 unit(s) ran with cudnn_api=graph, conv_im2col=1, "
					 "placement=random, where the baseline ran with "
					 "cudnn_api=legacy, conv_im2col=1, placement=random (unit 1 "
					 "first)");
	ck_assert_uint_eq(t->nmodes, 1);
	ck_assert_str_eq(t->modes[0], "b");
	audit_free(a);

	rewrite_baseline = "a";
	ran = audit_rewritten("cuda/gpu-aa-h100-replay.h5", py_settings_tma, "settings", "cuda",
			      &a);
	rewrite_baseline = NULL;
	ck_assert_int_eq(ran, 1);
	t = find(a, "gpu-settings");
	ck_assert_int_eq(t->status, AUDIT_WARN);
	ck_assert_uint_eq(t->nevidence, 1);
	ck_assert_str_eq(t->evidence[0], "'b': 10 unit(s) ran with cudnn_api=legacy, "
					 "conv_tma_only=0, placement=random, where the baseline "
					 "ran with cudnn_api=legacy, conv_tma_only=1, "
					 "placement=random (unit 1 first)");
	audit_free(a);
}
END_TEST

/* As an external worker's run (backend 'command') records it: every unit's GPU state as
 * the torch worker writes it, but unit 0's GPU named by the worker's earlier key (gpu_uuid,
 * a bare UUID: read as GPU-<uuid>, so its block stays on one GPU), and another GPU, named
 * the same way, for the first unit of the next block.  The GPU checks run without
 * gpu-op-timing (the CUDA backend's); gpu-identity names that block's two GPUs once, with
 * each one's unit count and first unit. */
static const char py_worker[] =
	PY_READ_INFO
	"import re\n"
	"uuid = re.search('gpu_open_gpu_uuid=GPU-(\\S+)', info[0]).group(1)\n"
	"info[0] = re.sub('gpu_open_gpu_uuid=\\S+\\n', '', info[0]) + 'gpu_uuid=' + uuid + '\\n'\n"
	"j = min(i for i in range(len(u)) if u['block'][i] != u['block'][0])\n"
	"info[j] = re.sub('gpu_open_gpu_uuid=\\S+\\n', '', info[j]) + 'gpu_uuid=other\\n'\n"
	PY_WRITE_INFO;

START_TEST(test_worker_run)
{
	struct audit *a;
	if (!audit_rewritten("cuda/gpu-aa-h100-replay.h5", py_worker, "worker", "command", &a))
		return;
	ck_assert_uint_eq(a->nchecks, 5);
	ck_assert_ptr_null(find(a, "gpu-op-timing"));
	const struct audit_check *t = find(a, "gpu-identity");
	ck_assert_int_eq(t->status, AUDIT_FAIL);
	ck_assert_uint_eq(t->nevidence, 1);
	ck_assert_uint_eq(t->nunits, 2);
	ck_assert_ptr_nonnull(strstr(t->summary, "1 block(s) ran on more than one GPU"));
	ck_assert_ptr_nonnull(strstr(t->evidence[0], "1 unit(s) on GPU-other"));
	ck_assert_ptr_null(strstr(t->evidence[0], "(unit 0 first)"));
	audit_free(a);
}
END_TEST

/* The H100 file with the units of odd blocks moved to a second, 20 C cooler GPU: the
 * temperature check judges each GPU on its own (12 C on the warm one, as in test_h100_run;
 * 10 C on the cool one), not the 31 C between the cool card's starts and the warm card's
 * ends (until 2026-11-26 it did). */
static const char py_two_cards[] =
	PY_READ_INFO
	"import re\n"
	"for i in range(len(u)):\n"
	"    if u['block'][i] % 2:\n"
	"        s = re.sub('_gpu_uuid=\\S+', '_gpu_uuid=GPU-cool', info[i])\n"
	"        info[i] = re.sub('(temperature_c=)(\\d+)',\n"
	"                         lambda m: m.group(1) + str(int(m.group(2)) - 20), s)\n"
	PY_WRITE_INFO;

START_TEST(test_two_cards_temperature)
{
	struct audit *a;
	if (!audit_rewritten("cuda/gpu-aa-h100.h5", py_two_cards, "two cards", "cuda", &a))
		return;
	const struct audit_check *t = find(a, "gpu-temperature");
	ck_assert_int_eq(t->status, AUDIT_WARN);
	ck_assert_ptr_nonnull(strstr(t->summary, "drifted by 12 C"));
	ck_assert_ptr_nonnull(strstr(t->summary, "one GPU"));
	ck_assert_uint_eq(t->nevidence, 2);
	ck_assert_ptr_nonnull(strstr(t->evidence[1], "GPU-cool: 29 to 39 C"));
	audit_free(a);
}
END_TEST

/* A CPU run has no gpu_open_ lines: no GPU check is added. */
START_TEST(test_cpu_run)
{
	struct audit *a = audit_for("cpu");
	char *p = data_path("v1/v1.h5");
	FILE *f = fopen(p, "rb");
	if (f) {
		fclose(f);
		ck_assert_int_eq(audit_gpu_checks(a, p), 0);
		ck_assert_uint_eq(a->nchecks, 0);
	}
	audit_free(a);
	free(p);
}
END_TEST

START_TEST(test_missing_file)
{
	struct audit *a = audit_for("cuda");
	testutil_stderr_begin();
	ck_assert_int_eq(audit_gpu_checks(a, "/nonexistent/x.h5"), -1);
	free(testutil_stderr_end());
	audit_free(a);
}
END_TEST

int main(void)
{
	testutil_name = "test-audit-gpu";
	Suite *s = suite_create("audit-gpu");
	TCase *tc = tcase_create("audit-gpu");
	tcase_add_checked_fixture(tc, testutil_scratch_setup, testutil_scratch_teardown);
	tcase_add_test(tc, test_h100_run);
	tcase_add_test(tc, test_h100_reasons);
	tcase_add_test(tc, test_h100_replay_run);
	tcase_add_test(tc, test_op_timing_stream);
	tcase_add_test(tc, test_settings);
	tcase_add_test(tc, test_worker_run);
	tcase_add_test(tc, test_two_cards_temperature);
	tcase_add_test(tc, test_cpu_run);
	tcase_add_test(tc, test_missing_file);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
