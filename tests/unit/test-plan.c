/* test-plan.c: block orders reproduce from the seed; abba and sequential patterns; warm
 * probes follow their cold unit; unit_scope = "workload"; a mode's `workloads`; the
 * scheduler's cache-leak rule and unit environment */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/plan.h"
#include "harness/run/unit.h"
#include "harness/config/unitenv.h"
#include "harness/run/unitspec.h"
#include "harness/base/util.h"
#include "tests/unit/testutil.h"

static struct mode modes[4];
static struct experiment xp;

static void setup(void)
{
	static char *names[] = { "default", "heuristic", "exhaustive", "aa" };
	memset(&xp, 0, sizeof(xp));
	memset(modes, 0, sizeof(modes));
	for (int i = 0; i < 4; i++)
		modes[i].name = names[i];
	xp.modes = modes;
	xp.nmodes = 4;
	xp.repeats = 7;
	xp.seed = 20261121;
	xp.order = ORDER_RANDOMIZED;
}

static char *orders(const struct rec_plan *p, size_t n)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(&sb, "%s%s%s", i && p[i].block != p[i - 1].block ? "|" : i ? "," : "",
			  p[i].mode, p[i].warm ? "+w" : "");
	return sbuf_detach(&sb);
}

START_TEST(randomized_reproduces_from_seed)
{
	struct rec_plan *a, *b;
	size_t na, nb;
	ck_assert_int_eq(plan_build(&xp, NULL, &a, &na), 0);
	ck_assert_int_eq(plan_build(&xp, NULL, &b, &nb), 0);
	ck_assert_uint_eq(na, 28);
	char *sa = orders(a, na), *sb = orders(b, nb);
	ck_assert_str_eq(sa, sb);
	/* every block holds every mode exactly once, positions 0..3, ids in order */
	for (size_t i = 0; i < na; i++) {
		ck_assert_int_eq(a[i].id, (int64_t)i);
		ck_assert_int_eq(a[i].block, (int64_t)(i / 4));
		ck_assert_int_eq(a[i].repeat, a[i].block);
		ck_assert_int_eq(a[i].position, (int64_t)(i % 4));
	}
	for (int64_t blk = 0; blk < 7; blk++)
		for (int m = 0; m < 4; m++) {
			int seen = 0;
			for (size_t i = 0; i < na; i++)
				seen += a[i].block == blk && !strcmp(a[i].mode, modes[m].name);
			ck_assert_int_eq(seen, 1);
		}
	/* a different seed gives a different order (7 blocks of 4! orders: collision odds tiny) */
	xp.seed = 99173;
	struct rec_plan *c;
	size_t nc;
	ck_assert_int_eq(plan_build(&xp, NULL, &c, &nc), 0);
	char *sc = orders(c, nc);
	ck_assert_str_ne(sa, sc);
	/* and randomized is not just the declared order every time */
	int declared = 1;
	for (size_t i = 0; i < na; i++)
		declared &= !strcmp(a[i].mode, modes[i % 4].name);
	ck_assert(!declared);
	free(sa);
	free(sb);
	free(sc);
	rec_plan_free(a, na);
	rec_plan_free(b, nb);
	rec_plan_free(c, nc);
}
END_TEST

/* The unit-scope tests' experiment: xp with 3 modes, 4 repeats and workloads wl, "r18",
 * "r50" and "gpu-only" (only_on cuda). */
static void three_workloads(struct workload wl[3])
{
	memset(wl, 0, 3 * sizeof(*wl));
	wl[0].name = "r18";
	wl[1].name = "r50";
	wl[2].name = "gpu-only";
	wl[2].backend = "cuda";
	xp.workloads = wl;
	xp.nworkloads = 3;
	xp.nmodes = 3;
	xp.repeats = 4;
}

/* unit_scope = "workload": a block holds one cold unit per (mode, workload its backend
 * runs), each once, in an order from the seed; a warm probe follows its cold unit with the
 * same workload; a workload for another backend gets no unit of that mode, and a mode with
 * no workload for its backend keeps one unit of every workload (the worker says why). */
START_TEST(workload_scope_units)
{
	struct workload wl[3];
	three_workloads(wl);
	xp.unit_scope = UNIT_SCOPE_WORKLOAD;
	modes[2].warm_probe = 1;
	const char *backends[] = { "cpu", "cpu", "cuda" };
	struct rec_plan *p;
	size_t n;
	ck_assert_int_eq(plan_build(&xp, backends, &p, &n), 0);
	/* cpu modes: r18, r50; the cuda mode: all three, each with a warm probe */
	ck_assert_uint_eq(n, 4 * (2 + 2 + 3 * 2));
	const char *want[][2] = { { "default", "r18" },	    { "default", "r50" },
				  { "heuristic", "r18" },   { "heuristic", "r50" },
				  { "exhaustive", "r18" },  { "exhaustive", "r50" },
				  { "exhaustive", "gpu-only" } };
	for (int64_t blk = 0; blk < 4; blk++)
		for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
			int cold = 0;
			for (size_t i = 0; i < n; i++)
				cold += p[i].block == blk && !p[i].warm &&
					!strcmp(p[i].mode, want[k][0]) &&
					!strcmp(p[i].workload, want[k][1]);
			ck_assert_msg(cold == 1, "block %lld: %s/%s %d times", (long long)blk,
				      want[k][0], want[k][1], cold);
		}
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(p[i].id, (int64_t)i);
		ck_assert_int_eq(p[i].position, (int64_t)(i % 10));
		ck_assert_ptr_nonnull(p[i].workload);
		ck_assert(strcmp(p[i].workload, "gpu-only") || !strcmp(p[i].mode, "exhaustive"));
		if (p[i].warm) {
			ck_assert_int_eq(p[i].warm_of, p[i - 1].id);
			ck_assert_str_eq(p[i].workload, p[i - 1].workload);
			ck_assert_str_eq(p[i - 1].mode, "exhaustive");
		}
	}
	/* randomized over the (mode, workload) units, reproducibly */
	struct rec_plan *q;
	size_t nq;
	ck_assert_int_eq(plan_build(&xp, backends, &q, &nq), 0);
	int declared = 1;
	for (size_t i = 0; i < n; i++) {
		ck_assert_str_eq(p[i].mode, q[i].mode);
		ck_assert_str_eq(p[i].workload, q[i].workload);
		declared &= !strcmp(p[i].mode, p[i % 10].mode) && !strcmp(p[i].workload,
									   p[i % 10].workload);
	}
	ck_assert(!declared);
	rec_plan_free(q, nq);
	rec_plan_free(p, n);
	/* no backends given: every workload for every mode */
	ck_assert_int_eq(plan_build(&xp, NULL, &p, &n), 0);
	ck_assert_uint_eq(n, 4 * (3 + 3 + 3 * 2));
	rec_plan_free(p, n);
}
END_TEST

/* A mode's `workloads`: under unit_scope = "workload" it has units of those workloads only,
 * less those for another backend than its own (a workload's only_on); under "mode" the plan
 * is the one without them (the unit runs its workloads: the worker's and the unit
 * specification's business, checked here through unitspec_json). */
START_TEST(mode_workloads_units)
{
	struct workload wl[3];
	three_workloads(wl);
	for (size_t i = 0; i < 3; i++)
		wl[i].dtype = "float32";
	xp.unit_scope = UNIT_SCOPE_MODE;
	modes[2].warm_probe = 1;
	struct rec_plan *all, *p;
	size_t nall, n;
	ck_assert_int_eq(plan_build(&xp, NULL, &all, &nall), 0);
	char *heuristic_r50[] = { "r50" }, *exhaustive_gpu_r18[] = { "gpu-only", "r18" };
	modes[1].workloads = heuristic_r50;
	modes[1].nworkloads = 1;
	modes[2].workloads = exhaustive_gpu_r18;
	modes[2].nworkloads = 2;
	ck_assert_int_eq(plan_build(&xp, NULL, &p, &n), 0);
	char *sa = orders(all, nall), *sp = orders(p, n);
	ck_assert_str_eq(sa, sp); /* unit_scope = "mode": the same plan, unit for unit */
	free(sa);
	free(sp);
	for (size_t i = 0; i < n; i++)
		ck_assert_ptr_null(p[i].workload);
	rec_plan_free(all, nall);
	rec_plan_free(p, n);

	xp.unit_scope = UNIT_SCOPE_WORKLOAD;
	const char *backends[] = { "cpu", "cpu", "cpu" };
	ck_assert_int_eq(plan_build(&xp, backends, &p, &n), 0);
	/* default: r18, r50; heuristic: r50; exhaustive: r18 (gpu-only is cuda's), + warm */
	ck_assert_uint_eq(n, 4 * (2 + 1 + 2));
	const char *want[][2] = { { "default", "r18" }, { "default", "r50" },
				  { "heuristic", "r50" }, { "exhaustive", "r18" } };
	for (size_t i = 0; i < n; i++) {
		int found = 0;
		for (size_t k = 0; k < ARRAY_SIZE(want); k++)
			found |= !strcmp(p[i].mode, want[k][0]) && !strcmp(p[i].workload, want[k][1]);
		ck_assert_msg(found, "unit %zu: %s/%s is not in the plan", i, p[i].mode,
			      p[i].workload);
		ck_assert_int_eq(p[i].position, (int64_t)(i % 5));
	}
	rec_plan_free(p, n);
	/* on cuda, exhaustive has both of its workloads */
	backends[2] = "cuda";
	ck_assert_int_eq(plan_build(&xp, backends, &p, &n), 0);
	ck_assert_uint_eq(n, 4 * (2 + 1 + 2 * 2));
	rec_plan_free(p, n);
	/* no backends given: each mode's workloads */
	ck_assert_int_eq(plan_build(&xp, NULL, &p, &n), 0);
	ck_assert_uint_eq(n, 4 * (3 + 1 + 2 * 2));
	rec_plan_free(p, n);

	/* an external unit's specification lists the mode's workloads (those for "command") */
	wl[2].backend = NULL;
	struct unitspec_unit u = { .id = 3, .backend = "command", .cache_dir = "/nonexistent",
				   .timeout_s = 60 };
	char *js = unitspec_json(&xp, &modes[2], &u);
	ck_assert_ptr_nonnull(strstr(js, "\"name\": \"r18\""));
	ck_assert_ptr_nonnull(strstr(js, "\"name\": \"gpu-only\""));
	ck_assert_ptr_null(strstr(js, "\"name\": \"r50\""));
	free(js);
	wl[2].backend = "cuda";
	js = unitspec_json(&xp, &modes[2], &u);
	ck_assert_ptr_nonnull(strstr(js, "\"name\": \"r18\""));
	ck_assert_ptr_null(strstr(js, "\"name\": \"gpu-only\""));
	free(js);
	js = unitspec_json(&xp, &modes[0], &u);
	ck_assert_ptr_nonnull(strstr(js, "\"name\": \"r50\""));
	free(js);
	modes[1].workloads = modes[2].workloads = NULL;
	modes[1].nworkloads = modes[2].nworkloads = 0;
}
END_TEST

START_TEST(abba_alternates)
{
	xp.order = ORDER_ABBA;
	xp.nmodes = 2;
	xp.repeats = 4;
	struct rec_plan *p;
	size_t n;
	ck_assert_int_eq(plan_build(&xp, NULL, &p, &n), 0);
	char *s = orders(p, n);
	ck_assert_str_eq(s, "default,heuristic|heuristic,default|default,heuristic|heuristic,default");
	free(s);
	rec_plan_free(p, n);
}
END_TEST

START_TEST(sequential_is_declared_order)
{
	xp.order = ORDER_SEQUENTIAL;
	xp.nmodes = 3;
	xp.repeats = 2;
	struct rec_plan *p;
	size_t n;
	ck_assert_int_eq(plan_build(&xp, NULL, &p, &n), 0);
	char *s = orders(p, n);
	ck_assert_str_eq(s, "default,heuristic,exhaustive|default,heuristic,exhaustive");
	free(s);
	rec_plan_free(p, n);
}
END_TEST

START_TEST(warm_probe_follows_cold)
{
	modes[2].warm_probe = 1;
	xp.repeats = 3;
	struct rec_plan *p;
	size_t n;
	ck_assert_int_eq(plan_build(&xp, NULL, &p, &n), 0);
	ck_assert_uint_eq(n, 15);
	/* the default unit_scope's plan is the one the harness built before unit_scope existed
	 * (this string is that implementation's output), so a run recorded then still resumes
	 * and a seed still gives the same order */
	char *s = orders(p, n);
	ck_assert_str_eq(s, "heuristic,default,aa,exhaustive,exhaustive+w|exhaustive,exhaustive+w,aa,"
			    "heuristic,default|default,aa,exhaustive,exhaustive+w,heuristic");
	free(s);
	int warm = 0;
	for (size_t i = 0; i < n; i++) {
		ck_assert_ptr_null(p[i].workload); /* every workload: unit_scope = "mode" */
		if (!p[i].warm) {
			ck_assert_int_eq(p[i].warm_of, -1);
			continue;
		}
		warm++;
		ck_assert_str_eq(p[i].mode, "exhaustive");
		ck_assert_uint_gt(i, 0);
		ck_assert_int_eq(p[i].warm_of, p[i - 1].id);
		ck_assert_str_eq(p[i - 1].mode, "exhaustive");
		ck_assert_int_eq(p[i - 1].warm, 0);
		ck_assert_int_eq(p[i].block, p[i - 1].block);
		ck_assert_int_eq(p[i].position, p[i - 1].position + 1);
	}
	ck_assert_int_eq(warm, 3);
	rec_plan_free(p, n);
}
END_TEST

/* The cache-leak rule (unit.h), on every combination that matters. */
START_TEST(cache_leak_rule)
{
	struct rec_unit u = { .status = "ok", .expects_work = 1, .compiles = 0, .benchmarks = 0 };
	ck_assert_int_eq(unit_is_cache_leak(&u), 1);  /* cold, should have worked, did nothing */
	u.warm = 1;
	ck_assert_int_eq(unit_is_cache_leak(&u), 0);  /* a warm probe is meant to hit */
	u.warm = 0;
	u.compiles = 3;
	ck_assert_int_eq(unit_is_cache_leak(&u), 0);
	u.compiles = 0;
	u.benchmarks = 17;
	ck_assert_int_eq(unit_is_cache_leak(&u), 0);
	u.benchmarks = 0;
	u.expects_work = 0;                            /* the vendor tuner never compiles */
	ck_assert_int_eq(unit_is_cache_leak(&u), 0);
	u.expects_work = 1;
	u.status = "crashed";                          /* a crash is its own finding */
	ck_assert_int_eq(unit_is_cache_leak(&u), 0);
}
END_TEST

/* The environment a unit gets: allowlisted, caches in its directory, experiment additions. */
START_TEST(unit_environment)
{
	setenv("PLANTED_SECRET", "x", 1);
	setenv("MY_PASSED", "2.385", 1);
	char *pass[] = { "MY_PASSED" };
	struct env_var set[] = { { "EXTRA", "on" } };
	xp.env_pass = pass;
	xp.nenv_pass = 1;
	xp.env_set = set;
	xp.nenv_set = 1;
	xp.measure.threads = 3;
	struct mode beam = { .name = "beam" };
	struct unitenv_unit u = { .id = 7, .backend = "cpu", .cache_dir = "/tmp/c/u0007-abc",
				  .spec = "/tmp/c/u0007-abc/harness-unit-0007.json", .record_fd = 3 };
	char **env = unitenv_env(&xp, &beam, &u);
	struct sbuf all;
	sbuf_init(&all);
	for (char **e = env; *e; e++)
		sbuf_addf(&all, "%s\n", *e);
	ck_assert_ptr_null(strstr(all.buf, "PLANTED_SECRET"));
	ck_assert_ptr_nonnull(strstr(all.buf, "\nMY_PASSED=2.385\n"));
	ck_assert_ptr_nonnull(strstr(all.buf, "\nEXTRA=on\n"));
	ck_assert_ptr_nonnull(strstr(all.buf, "HOME=/tmp/c/u0007-abc\n"));
	ck_assert_ptr_nonnull(strstr(all.buf, "TMPDIR=/tmp/c/u0007-abc/tmp\n"));
	ck_assert_ptr_nonnull(strstr(all.buf, "TRITON_CACHE_DIR=/tmp/c/u0007-abc/triton\n"));
	ck_assert_ptr_nonnull(strstr(all.buf, "OPENBLAS_NUM_THREADS=3\n"));
	ck_assert_ptr_nonnull(strstr(all.buf, "HARNESS_UNIT=7\n"));
	ck_assert_ptr_nonnull(strstr(all.buf, "HARNESS_MODE=beam\n"));
	ck_assert_ptr_nonnull(strstr(all.buf, "HARNESS_RECORD_FD=3\n"));
	ck_assert_ptr_nonnull(strstr(all.buf, "PATH="));
	sbuf_release(&all);
	unitenv_free(env);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("plan");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, randomized_reproduces_from_seed);
	tcase_add_test(tc, workload_scope_units);
	tcase_add_test(tc, mode_workloads_units);
	tcase_add_test(tc, abba_alternates);
	tcase_add_test(tc, sequential_is_declared_order);
	tcase_add_test(tc, warm_probe_follows_cold);
	tcase_add_test(tc, cache_leak_rule);
	tcase_add_test(tc, unit_environment);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
