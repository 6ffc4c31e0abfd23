/* test-kernels.c: config spaces, the tuners (vendor, heuristic, exhaustive), the backend
 * table and the CPU backend: model cells against torchvision's shapes, the kernel cache,
 * compile errors, incorrect kernels, e2e forwards and timing */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/config/experiment.h"
#include "harness/base/util.h"
#include "kernels/backend.h"
#include "kernels/catalog.h"
#include "kernels/space.h"
#include "kernels/tune.h"
#include "kernels/tuner.h"
#include "tests/unit/testutil.h"

/* ---- a synthetic space: A in {1, 2, 3}, B in {10, 20}, (3, 20) excluded ----------------- */

static int toy_valid(const struct space *s, const struct config *c, const char **why)
{
	if (!(c->val[0] == 3 && c->val[1] == 20))
		return 1;
	if (why)
		*why = "A=3 with B=20 is not allowed";
	return 0;
}

static void toy_heuristic(const struct space *s, struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->val[0] = 2;
	c->val[1] = 20;
}

static void toy_space(struct space *s, int has_vendor)
{
	memset(s, 0, sizeof(*s));
	s->op = "toy";
	s->nfields = 2;
	static const int64_t a[] = { 1, 2, 3 }, b[] = { 10, 20 };
	s->fields[0].name = "A";
	s->fields[0].values = a;
	s->fields[0].nvalues = 3;
	s->fields[1].name = "B";
	s->fields[1].values = b;
	s->fields[1].nvalues = 2;
	s->has_vendor = has_vendor;
	s->valid = toy_valid;
	s->heuristic = toy_heuristic;
}

static struct config point(int64_t a, int64_t b)
{
	struct config c;
	memset(&c, 0, sizeof(c));
	c.val[0] = a;
	c.val[1] = b;
	return c;
}

static struct config vendor_point(void)
{
	struct config c;
	memset(&c, 0, sizeof(c));
	c.vendor = 1;
	return c;
}

static char *fmt(const struct space *s, const struct config *c)
{
	struct sbuf sb;
	sbuf_init(&sb);
	config_format(s, c, &sb);
	return sbuf_detach(&sb);
}

START_TEST(test_space_grid)
{
	struct space s;
	struct config c;
	toy_space(&s, 1);
	ck_assert_uint_eq(space_grid_size(&s), 6);
	ck_assert_int_eq(space_grid_point(&s, 0, &c), 0);
	ck_assert(!c.vendor && c.val[0] == 1 && c.val[1] == 10);
	ck_assert_int_eq(space_grid_point(&s, 1, &c), 0);
	ck_assert(c.val[0] == 1 && c.val[1] == 20); /* last field fastest */
	ck_assert_int_eq(space_grid_point(&s, 5, &c), 0);
	ck_assert(c.val[0] == 3 && c.val[1] == 20);
	ck_assert_int_eq(space_grid_point(&s, 6, &c), -1);

	c = point(3, 20);
	ck_assert_int_eq(space_contains(&s, &c), 0); /* the constraint */
	c = point(2, 20);
	ck_assert_int_eq(space_contains(&s, &c), 1);
	c = point(4, 10);
	ck_assert_int_eq(space_contains(&s, &c), 0); /* not a value */
	c = vendor_point();
	ck_assert_int_eq(space_contains(&s, &c), 1);
	s.has_vendor = 0;
	ck_assert_int_eq(space_contains(&s, &c), 0);

	struct space empty;
	memset(&empty, 0, sizeof(empty));
	empty.op = "none";
	empty.has_vendor = 1;
	ck_assert_uint_eq(space_grid_size(&empty), 0);
	ck_assert_int_eq(space_grid_point(&empty, 0, &c), -1);
}
END_TEST

/* space_walk: the grid's points in space_grid_point's order without a division a point; a
 * 3-field grid carries over two fields; space_check_grid is the constraint alone. */
START_TEST(test_space_walk)
{
	static const int64_t a[] = { 1, 2, 3 }, b[] = { 10, 20 }, d[] = { 5, 6, 7, 8 };
	struct space s;
	memset(&s, 0, sizeof(s));
	s.op = "walk";
	space_add_field(&s, "A", a, 3);
	space_add_field(&s, "B", b, 2);
	space_add_field(&s, "D", d, 4);
	struct space_walk w;
	struct config c, g;
	size_t k, n = 0;
	space_walk_init(&s, &w);
	memset(&c, 0xff, sizeof(c)); /* every field past nfields must come back zero */
	while (!space_walk_next(&s, &w, &c, &k)) {
		ck_assert_uint_eq(k, n);
		ck_assert_int_eq(space_grid_point(&s, k, &g), 0);
		ck_assert_mem_eq(&c, &g, sizeof(c));
		ck_assert_int_eq(space_check_grid(&s, &c, NULL), 1);
		n++;
	}
	ck_assert_uint_eq(n, 24);
	ck_assert_int_eq(space_walk_next(&s, &w, &c, &k), -1); /* past the last */
	struct space t;
	toy_space(&t, 1);
	c = point(3, 20);
	ck_assert_int_eq(space_check_grid(&t, &c, NULL), 0); /* the toy's constraint */
}
END_TEST

/* The tile helpers every backend's space uses: redundancy against a dimension and the
 * heuristic's pick, on the values {16, 32, 64, 128}. */
START_TEST(test_space_tile_helpers)
{
	static const int64_t v[] = { 16, 32, 64, 128 };
	struct space s;
	memset(&s, 0, sizeof(s));
	space_add_field(&s, "BM", v, 4);
	space_add_field(&s, "BN", v, 2);
	ck_assert_uint_eq(s.nfields, 2);
	ck_assert_str_eq(s.fields[0].name, "BM");
	ck_assert_uint_eq(s.fields[1].nvalues, 2);
	ck_assert_int_eq(s.fields[1].values[1], 32);
	const struct space_field *f = &s.fields[0];
	ck_assert_int_eq(space_field_redundant(f, 16, 20), 0);  /* the smallest never is */
	ck_assert_int_eq(space_field_redundant(f, 32, 20), 0);  /* 16 does not cover 20 */
	ck_assert_int_eq(space_field_redundant(f, 64, 20), 1);  /* 32 covers 20 */
	ck_assert_int_eq(space_field_redundant(f, 128, 200), 0);
	ck_assert_int_eq(space_field_pick(f, 64, 1000), 64);    /* the wanted value */
	ck_assert_int_eq(space_field_pick(f, 100, 1000), 64);   /* largest <= want */
	ck_assert_int_eq(space_field_pick(f, 8, 1000), 16);     /* below every value */
	ck_assert_int_eq(space_field_pick(f, 128, 20), 32);     /* lowered to cover 20 */
	ck_assert_int_eq(space_field_redundant(f, space_field_pick(f, 128, 3), 3), 0);
}
END_TEST

/* The ResNets both backends build, their argument checks, and the block scratch slots. */
START_TEST(test_catalog_resnet)
{
	char *cause = NULL;
	const struct catalog_resnet *r = catalog_resnet("resnet50", 32, 224, &cause);
	ck_assert_ptr_nonnull(r);
	ck_assert(r->bottleneck && r->blocks[0] == 3 && r->blocks[2] == 6 && r->blocks[3] == 3);
	r = catalog_resnet("resnet18", 1, 1, &cause);
	ck_assert(r && !r->bottleneck && r->blocks[1] == 2);
	ck_assert_ptr_null(catalog_resnet("vgg16", 1, 224, &cause));
	ck_assert_str_eq(cause, "unknown model 'vgg16' (models: resnet18, resnet50)");
	free(cause);
	ck_assert_ptr_null(catalog_resnet("resnet18", 0, 224, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "out of range"));
	free(cause);
	ck_assert_ptr_null(catalog_resnet("resnet18", 1, 65537, &cause));
	free(cause);
	for (size_t i = 0; catalog_models[i]; i++)
		ck_assert_ptr_nonnull(catalog_resnet(catalog_models[i], 1, 32, &cause));
	unsigned used = 1u << 1;
	ck_assert_int_eq(catalog_free_slot(&used, 4), 0);
	ck_assert_int_eq(catalog_free_slot(&used, 4), 2);
	ck_assert_int_eq(catalog_free_slot(&used, 4), 3);
	ck_assert_uint_eq(used, 0xf);
}
END_TEST

/* backend_env_dir: the variable's folder (made when missing) or the fallback; a folder
 * that cannot be made is an error naming the variable, the path and the reason. */
START_TEST(test_backend_env_dir)
{
	char *out = NULL, *cause = NULL, *dir = testutil_path("shared");
	unsetenv("HARNESS_TEST_DIR");
	ck_assert_int_eq(backend_env_dir("HARNESS_TEST_DIR", 0700, "/fallback", &out, &cause), 0);
	ck_assert_str_eq(out, "/fallback");
	free(out);
	setenv("HARNESS_TEST_DIR", dir, 1);
	for (int twice = 0; twice < 2; twice++) { /* made, then found */
		ck_assert_int_eq(backend_env_dir("HARNESS_TEST_DIR", 0700, "/fallback", &out, &cause),
				 0);
		ck_assert_str_eq(out, dir);
		free(out);
	}
	struct stat st;
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	char *deep = testutil_path("no/such/parent");
	setenv("HARNESS_TEST_DIR", deep, 1);
	ck_assert_int_eq(backend_env_dir("HARNESS_TEST_DIR", 0700, "/fallback", &out, &cause), -1);
	ck_assert_ptr_null(out);
	char *want = xasprintf("cannot create HARNESS_TEST_DIR '%s': No such file or directory",
			       deep);
	ck_assert_str_eq(cause, want);
	unsetenv("HARNESS_TEST_DIR");
	free(want);
	free(cause);
	free(deep);
	free(dir);
}
END_TEST

START_TEST(test_config_format_parse)
{
	struct space s;
	struct config c, back;
	char *cause = NULL;
	toy_space(&s, 1);

	for (size_t i = 0; i < space_grid_size(&s); i++) {
		ck_assert_int_eq(space_grid_point(&s, i, &c), 0);
		if (!space_contains(&s, &c))
			continue;
		char *text = fmt(&s, &c);
		ck_assert_int_eq(config_parse(&s, text, &back, &cause), 0);
		ck_assert(config_equal(&s, &c, &back));
		free(text);
	}
	c = point(2, 10);
	char *text = fmt(&s, &c);
	ck_assert_str_eq(text, "A=2,B=10");
	free(text);
	c = vendor_point();
	text = fmt(&s, &c);
	ck_assert_str_eq(text, "vendor");
	ck_assert_int_eq(config_parse(&s, text, &back, &cause), 0);
	ck_assert(back.vendor);
	free(text);

	/* any order */
	ck_assert_int_eq(config_parse(&s, "B=20,A=1", &back, &cause), 0);
	c = point(1, 20);
	ck_assert(config_equal(&s, &c, &back));
	ck_assert(!config_equal(&s, &c, &(struct config){ .vendor = 1 }));

	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "A=1", "field 'B' is missing" },
		{ "A=1,B=10,A=2", "field 'A' given twice" },
		{ "A=1,C=10", "unknown field 'C' (fields: A, B)" },
		{ "A=5,B=10", "'5' is not a value of field 'A' (values: 1, 2, 3)" },
		{ "A=x,B=10", "'x' is not a value of field 'A' (values: 1, 2, 3)" },
		{ "A=3,B=20", "'A=3,B=20' is excluded by the 'toy' constraint for this shape" },
		{ "garbage", "'garbage' is not NAME=VALUE" },
		{ "", "'' is not NAME=VALUE" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cause = NULL;
		ck_assert_int_eq(config_parse(&s, bad[i].text, &back, &cause), -1);
		ck_assert_ptr_nonnull(cause);
		ck_assert_str_eq(cause, bad[i].want);
		free(cause);
	}
	s.has_vendor = 0;
	ck_assert_int_eq(config_parse(&s, "vendor", &back, &cause), -1);
	ck_assert_str_eq(cause, "'vendor' is not a point of the 'toy' space (no vendor path)");
	free(cause);

	/* an optional field (one added after texts were written, conv.cu's CLUSTER): a text
	 * without it takes its first value; with it, any listed value; the text always
	 * carries it */
	s.fields[1].optional = 1;
	ck_assert_int_eq(config_parse(&s, "A=2", &back, &cause), 0);
	c = point(2, 10);
	ck_assert(config_equal(&s, &c, &back));
	ck_assert_int_eq(config_parse(&s, "A=2,B=20", &back, &cause), 0);
	ck_assert_int_eq(back.val[1], 20);
	text = fmt(&s, &c);
	ck_assert_str_eq(text, "A=2,B=10");
	free(text);
	ck_assert_int_eq(config_parse(&s, "B=10", &back, &cause), -1);
	ck_assert_str_eq(cause, "field 'A' is missing");
	free(cause);
}
END_TEST

/* ---- tuners ---------------------------------------------------------------------------- */

static struct tuner_option opts[4];

/* A tuner's options given as key, type, value at line 7 + i, column 3 (no spaces). */
static struct tuner_check make_mode(const char *tuner, size_t n, const char *const *keys,
				    const enum tuner_option_type *types, const int64_t *vals)
{
	struct tuner_check m;
	memset(&m, 0, sizeof(m));
	memset(opts, 0, sizeof(opts));
	for (size_t i = 0; i < n; i++) {
		opts[i].key = (char *)keys[i];
		opts[i].type = types[i];
		opts[i].i = vals[i];
		opts[i].f = (double)vals[i];
		opts[i].s = (char *)"s";
		opts[i].line = 7 + (int)i;
		opts[i].col = 3;
	}
	m.options = opts;
	m.noptions = n;
	return m;
}

/* alloc with m's options for space s; never NULL here. */
static struct tuner *alloc_of(const struct tuner_ops *t, const struct space *s,
			      const struct tuner_check *m, uint64_t seed)
{
	struct tuner_cell id = { .name = "toy/toy:n=1", .op = "toy", .shape = "n=1" };
	struct tuner_args a = { .space = s, .cell = &id, .options = m->options,
				.noptions = m->noptions, .seed = seed };
	char *cause = NULL;
	struct tuner *tu = t->alloc(&a, &cause);
	ck_assert_ptr_nonnull(tu);
	ck_assert_ptr_null(cause);
	return tu;
}

static void expect_option_error(const char *tuner, const char *key, enum tuner_option_type type,
				int64_t val, const char *want)
{
	const struct tuner_ops *t = tuner_find(tuner);
	struct tuner_check m = make_mode(tuner, 1, &key, &type, &val);
	char *cause = NULL;
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(t->check_options(&m, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, want);
	free(cause);
}

/* A measurement for the toy space: the median is 100 + 10 A - B / 10, so (3, 10) is the
 * slowest and (1, 20) the fastest; vendor 125. */
static double toy_median(const struct config *c)
{
	return c->vendor ? 125.0 : 100.0 + 10.0 * (double)c->val[0] - (double)c->val[1] / 10.0;
}

START_TEST(test_tuner_table)
{
	ck_assert_ptr_nonnull(tuner_find("vendor"));
	ck_assert_ptr_nonnull(tuner_find("heuristic"));
	ck_assert_ptr_nonnull(tuner_find("exhaustive"));
	ck_assert_ptr_null(tuner_find("exhaustiv"));
	size_t n = 0;
	while (tuner_table[n])
		n++;
	ck_assert_uint_eq(n, 16);
	ck_assert_uint_eq(tuner_find("external")->flags, TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("abduction")->flags, TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("simulated-annealing")->flags,
			  TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("genetic-algorithm")->flags,
			  TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("pso")->flags, TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("differential-evolution")->flags,
			  TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("bayes-opt")->flags, TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("model-topk")->flags, TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("lut")->flags, TUNER_COMPILES);
	ck_assert_uint_eq(tuner_find("random")->flags, TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("coordinate-descent")->flags,
			  TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("beam")->flags, TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("vendor")->flags, 0);
	ck_assert_uint_eq(tuner_find("vendor-benchmarked")->flags, TUNER_BENCHMARKS);
	ck_assert_uint_eq(tuner_find("heuristic")->flags, TUNER_COMPILES);
	ck_assert_uint_eq(tuner_find("exhaustive")->flags, TUNER_COMPILES | TUNER_BENCHMARKS);
	ck_assert_str_eq(trial_status_name(TRIAL_OK), "ok");
	ck_assert_str_eq(trial_status_name(TRIAL_COMPILE_ERROR), "compile-error");
	ck_assert_str_eq(trial_status_name(TRIAL_INCORRECT), "incorrect");
	ck_assert_str_eq(trial_status_name(TRIAL_FAILED), "failed");
}
END_TEST

START_TEST(test_tuner_vendor)
{
	const struct tuner_ops *t = tuner_find("vendor");
	struct space s;
	struct config c;
	struct tuner_check m = make_mode("vendor", 0, NULL, NULL, NULL);
	char *cause = NULL;

	toy_space(&s, 1);
	ck_assert_int_eq(t->check_options(&m, &cause), 0);
	struct tuner *tu = alloc_of(t, &s, &m, 42);
	ck_assert_int_eq(t->next(tu, &c), 1);
	ck_assert(c.vendor);
	ck_assert_int_eq(t->next(tu, &c), 0);
	ck_assert_int_eq(t->best(tu, &c), 0);
	ck_assert(c.vendor);
	t->free(tu);

	/* a broken vendor path is never chosen */
	tu = alloc_of(t, &s, &m, 42);
	ck_assert_int_eq(t->next(tu, &c), 1);
	t->observe(tu, &c, &(struct trial_result){ .status = TRIAL_FAILED, .median_ns = NAN });
	ck_assert_int_eq(t->best(tu, &c), -1);
	t->free(tu);

	/* no vendor path: nothing to propose */
	s.has_vendor = 0;
	tu = alloc_of(t, &s, &m, 42);
	ck_assert_int_eq(t->next(tu, &c), 0);
	ck_assert_int_eq(t->best(tu, &c), -1);
	t->free(tu);

	expect_option_error("vendor", "max_configs", TUNER_OPT_INT, 3,
			    "7:3: tuner 'vendor' takes no options (got 'max_configs')");
}
END_TEST

/* vendor-benchmarked: every vendor candidate, in order; the fastest correct one; a broken
 * one never; -1 when none worked. */
START_TEST(test_tuner_vendor_benchmarked)
{
	const struct tuner_ops *t = tuner_find("vendor-benchmarked");
	struct space s;
	struct config c;
	struct tuner_check m = make_mode("vendor-benchmarked", 0, NULL, NULL, NULL);
	char *cause = NULL;
	struct sample smp = SAMPLE_INIT;
	static const double med[] = { 30.0, 10.0, 5.0 };

	toy_space(&s, 1);
	s.nvendors = 3;
	for (size_t k = 0; k < 3; k++) {
		s.vendors[k].nparams = 1;
		s.vendors[k].params[0] = (struct vendor_param){ "algo", (int64_t)(10 + k) };
	}
	ck_assert_int_eq(t->check_options(&m, &cause), 0);
	struct tuner *tu = alloc_of(t, &s, &m, 42);
	for (size_t k = 0; k < 3; k++) {
		ck_assert_int_eq(t->next(tu, &c), 1);
		ck_assert(c.vendor);
		ck_assert_uint_eq(c.vendor_idx, k);
		/* the fastest (the third) is incorrect: never chosen */
		t->observe(tu, &c, &(struct trial_result){ .status = k == 2 ? TRIAL_INCORRECT
										: TRIAL_OK,
							  .samples = &smp, .nsamples = 1,
							  .median_ns = med[k] });
	}
	ck_assert_int_eq(t->next(tu, &c), 0);
	ck_assert_int_eq(t->best(tu, &c), 0);
	ck_assert(c.vendor && c.vendor_idx == 1);
	char *f = fmt(&s, &c);
	ck_assert_str_eq(f, "vendor:algo=11");
	free(f);
	t->free(tu);

	s.has_vendor = 0;
	tu = alloc_of(t, &s, &m, 42);
	ck_assert_int_eq(t->next(tu, &c), 0);
	ck_assert_int_eq(t->best(tu, &c), -1);
	t->free(tu);
	expect_option_error("vendor-benchmarked", "max_configs", TUNER_OPT_INT, 3,
			    "7:3: tuner 'vendor-benchmarked' takes no options (got 'max_configs')");
}
END_TEST

START_TEST(test_tuner_heuristic)
{
	const struct tuner_ops *t = tuner_find("heuristic");
	struct space s;
	struct config c;
	struct tuner_check m = make_mode("heuristic", 0, NULL, NULL, NULL);

	toy_space(&s, 1);
	struct tuner *tu = alloc_of(t, &s, &m, 1);
	ck_assert_int_eq(t->next(tu, &c), 1);
	struct config want = point(2, 20);
	ck_assert(config_equal(&s, &c, &want));
	ck_assert_int_eq(t->next(tu, &c), 0);
	t->observe(tu, &want, &(struct trial_result){ .status = TRIAL_OK, .median_ns = NAN });
	ck_assert_int_eq(t->best(tu, &c), 0);
	ck_assert(config_equal(&s, &c, &want));
	t->free(tu);

	/* a pick that did not compile is not chosen */
	tu = alloc_of(t, &s, &m, 1);
	ck_assert_int_eq(t->next(tu, &c), 1);
	t->observe(tu, &c, &(struct trial_result){ .status = TRIAL_COMPILE_ERROR });
	ck_assert_int_eq(t->best(tu, &c), -1);
	t->free(tu);

	/* without a rule (or with one outside the space) the first valid grid point */
	s.heuristic = NULL;
	tu = alloc_of(t, &s, &m, 1);
	ck_assert_int_eq(t->next(tu, &c), 1);
	want = point(1, 10);
	ck_assert(config_equal(&s, &c, &want));
	t->free(tu);

	expect_option_error("heuristic", "seed", TUNER_OPT_INT, 3,
			    "7:3: tuner 'heuristic' takes no options (got 'seed')");
}
END_TEST

/* Run tuner t on the toy space, answering each proposal from toy_median (the point
 * `incorrect`, when given, reports TRIAL_INCORRECT); returns the number of proposals. */
static size_t drive(const struct tuner_ops *t, struct tuner *tu, const struct space *s,
		    const struct config *incorrect, struct config *seen, size_t max)
{
	struct config c;
	size_t n = 0;
	while (t->next(tu, &c)) {
		ck_assert(space_contains(s, &c));
		ck_assert_uint_lt(n, max);
		seen[n++] = c;
		struct trial_result r = { .status = TRIAL_OK, .nsamples = 5,
					  .median_ns = toy_median(&c) };
		if (incorrect && config_equal(s, &c, incorrect))
			r.status = TRIAL_INCORRECT;
		t->observe(tu, &c, &r);
	}
	return n;
}

START_TEST(test_tuner_exhaustive)
{
	const struct tuner_ops *t = tuner_find("exhaustive");
	struct space s;
	struct config c, seen[16];
	struct tuner_check m = make_mode("exhaustive", 0, NULL, NULL, NULL);
	char *cause = NULL;

	toy_space(&s, 1);
	ck_assert_int_eq(t->check_options(&m, &cause), 0);
	struct tuner *tu = alloc_of(t, &s, &m, 7);
	size_t n = drive(t, tu, &s, NULL, seen, 16);
	ck_assert_uint_eq(n, 6); /* vendor + the 5 valid grid points */
	ck_assert(seen[0].vendor);
	for (size_t i = 1; i < n; i++)
		for (size_t j = 0; j < i; j++)
			ck_assert(!config_equal(&s, &seen[i], &seen[j]));
	ck_assert_int_eq(t->best(tu, &c), 0);
	struct config fastest = point(1, 20);
	ck_assert(config_equal(&s, &c, &fastest));
	t->free(tu);

	/* the fastest point is incorrect: the next fastest wins, never the incorrect one */
	tu = alloc_of(t, &s, &m, 7);
	drive(t, tu, &s, &fastest, seen, 16);
	ck_assert_int_eq(t->best(tu, &c), 0);
	struct config second = point(1, 10);
	ck_assert(config_equal(&s, &c, &second));
	t->free(tu);

	/* max_configs and include_vendor */
	const char *keys[] = { "max_configs", "include_vendor" };
	const enum tuner_option_type types[] = { TUNER_OPT_INT, TUNER_OPT_BOOL };
	const int64_t vals[] = { 3, 0 };
	m = make_mode("exhaustive", 2, keys, types, vals);
	ck_assert_int_eq(t->check_options(&m, &cause), 0);
	tu = alloc_of(t, &s, &m, 7);
	n = drive(t, tu, &s, NULL, seen, 16);
	ck_assert_uint_eq(n, 3);
	ck_assert(!seen[0].vendor);
	ck_assert_int_eq(t->best(tu, &c), 0);
	ck_assert(config_equal(&s, &c, &fastest)); /* (1,10), (1,20), (2,10) */
	t->free(tu);

	/* nothing usable: no best */
	m = make_mode("exhaustive", 0, NULL, NULL, NULL);
	tu = alloc_of(t, &s, &m, 7);
	while (t->next(tu, &c))
		t->observe(tu, &c, &(struct trial_result){ .status = TRIAL_COMPILE_ERROR,
							   .median_ns = NAN });
	ck_assert_int_eq(t->best(tu, &c), -1);
	t->free(tu);

	expect_option_error("exhaustive", "max_configs", TUNER_OPT_INT, 0,
			    "7:3: 'max_configs' must be an integer >= 1");
	expect_option_error("exhaustive", "max_configs", TUNER_OPT_FLOAT, 2,
			    "7:3: 'max_configs' must be an integer >= 1");
	expect_option_error("exhaustive", "include_vendor", TUNER_OPT_INT, 1,
			    "7:3: 'include_vendor' must be a boolean");
	expect_option_error("exhaustive", "max_config", TUNER_OPT_INT, 1,
			    "7:3: unknown option 'max_config' for tuner 'exhaustive' "
			    "(did you mean 'max_configs'?)");
	expect_option_error("exhaustive", "zzzzzzzzzzzz", TUNER_OPT_INT, 1,
			    "7:3: unknown option 'zzzzzzzzzzzz' for tuner 'exhaustive' "
			    "(options: 'include_vendor', 'max_configs', 'field_values')");
}
END_TEST

/* Equal medians: the first proposal keeps the lead. */
START_TEST(test_tuner_exhaustive_ties)
{
	const struct tuner_ops *t = tuner_find("exhaustive");
	struct space s;
	struct config c;
	struct tuner_check m = make_mode("exhaustive", 0, NULL, NULL, NULL);
	toy_space(&s, 0);
	struct tuner *tu = alloc_of(t, &s, &m, 7);
	struct config first;
	int have = 0;
	while (t->next(tu, &c)) {
		if (!have) {
			first = c;
			have = 1;
		}
		t->observe(tu, &c, &(struct trial_result){ .status = TRIAL_OK, .nsamples = 3,
							   .median_ns = 50.0 });
	}
	ck_assert_int_eq(t->best(tu, &c), 0);
	ck_assert(config_equal(&s, &c, &first));
	t->free(tu);
}
END_TEST

/* ---- field-naming options, vendor parameters, the tuning driver ------------------------ */

START_TEST(test_field_option)
{
	struct space a, b;
	toy_space(&a, 1);
	toy_space(&b, 0);
	b.fields[1].name = "C";
	const struct space *sp[] = { &a, &b };
	struct tuner_option items[3] = {
		{ .type = TUNER_OPT_STRING, .s = (char *)"B", .line = 4, .col = 18 },
		{ .type = TUNER_OPT_STRING, .s = (char *)"C", .line = 4, .col = 23 },
		{ .type = TUNER_OPT_STRING, .s = (char *)"Q", .line = 4, .col = 28 },
	};
	struct tuner_option order = { .key = (char *)"field_order", .type = TUNER_OPT_LIST,
				      .items = items, .nitems = 2, .line = 4, .col = 3 };
	struct tuner_check c = { .options = &order, .noptions = 1, .spaces = sp, .nspaces = 2 };
	char *cause = NULL;
	ck_assert_int_eq(tuner_check_field_option(&order, &c, &cause), 0);
	order.nitems = 3; /* 'Q' is no field of either space */
	ck_assert_int_eq(tuner_check_field_option(&order, &c, &cause), -1);
	ck_assert_str_eq(cause, "4:28: 'field_order': unknown field 'Q' (did you mean 'A'?)");
	free(cause);
	items[2].s = (char *)"BLOCK_XYZ";
	ck_assert_int_eq(tuner_check_field_option(&order, &c, &cause), -1);
	ck_assert_str_eq(cause, "4:28: 'field_order': unknown field 'BLOCK_XYZ' (fields: 'A', "
				"'B', 'C')");
	free(cause);
	items[2].s = (char *)"B"; /* given twice */
	ck_assert_int_eq(tuner_check_field_option(&order, &c, &cause), -1);
	ck_assert_str_eq(cause, "4:28: 'field_order': field 'B' given twice (first at 4:18)");
	free(cause);
	/* spaces unknown: names are not checked */
	items[2].s = (char *)"Q";
	c.nspaces = 0;
	ck_assert_int_eq(tuner_check_field_option(&order, &c, &cause), 0);
	c.nspaces = 2;
	/* a table keyed by field name (per-field limits) */
	struct tuner_option lim[1] = {
		{ .key = (char *)"BK", .type = TUNER_OPT_INT, .i = 64, .line = 5, .col = 18 } };
	struct tuner_option limits = { .key = (char *)"field_limits", .type = TUNER_OPT_TABLE,
				       .items = lim, .nitems = 1, .line = 5, .col = 3 };
	ck_assert_int_eq(tuner_check_field_option(&limits, &c, &cause), -1);
	ck_assert_str_eq(cause, "5:18: 'field_limits': unknown field 'BK' (did you mean 'B'?)");
	free(cause);
	lim[0].key = (char *)"A";
	ck_assert_int_eq(tuner_check_field_option(&limits, &c, &cause), 0);
	/* a scalar or a list of non-strings is refused */
	struct tuner_option n = { .key = (char *)"field_order", .type = TUNER_OPT_INT,
				  .line = 6, .col = 3 };
	ck_assert_int_eq(tuner_check_field_option(&n, &c, &cause), -1);
	ck_assert_str_eq(cause, "6:3: 'field_order' must be a list of field names or a table "
				"keyed by field name, not an integer");
	free(cause);
	items[0].type = TUNER_OPT_INT;
	ck_assert_int_eq(tuner_check_field_option(&order, &c, &cause), -1);
	ck_assert_str_eq(cause, "4:18: 'field_order': element 1 must be a field name (a string), "
				"not an integer");
	free(cause);
}
END_TEST

START_TEST(test_vendor_params)
{
	struct space s;
	struct config c;
	struct sbuf sb;
	char *cause = NULL;
	toy_space(&s, 1);
	ck_assert_uint_eq(space_nvendors(&s), 1);
	s.nvendors = 2;
	s.vendors[0].nparams = 1;
	s.vendors[0].params[0] = (struct vendor_param){ "algo", 6 };
	s.vendors[1].nparams = 2;
	s.vendors[1].params[0] = (struct vendor_param){ "algo", 11 };
	s.vendors[1].params[1] = (struct vendor_param){ "split", 2 };
	ck_assert_uint_eq(space_nvendors(&s), 2);
	sbuf_init(&sb);
	space_vendor_point(&s, 1, &c);
	config_format(&s, &c, &sb);
	ck_assert_str_eq(sb.buf, "vendor:algo=11,split=2");
	sbuf_release(&sb);
	struct config back;
	ck_assert_int_eq(config_parse(&s, "vendor:algo=11,split=2", &back, &cause), 0);
	ck_assert(back.vendor && back.vendor_idx == 1 && config_equal(&s, &back, &c));
	ck_assert_int_eq(config_parse(&s, "vendor:algo=6", &back, &cause), 0);
	ck_assert(!config_equal(&s, &back, &c));
	/* bare "vendor" is the library's own choice, candidate 0, whatever its parameters */
	ck_assert_int_eq(config_parse(&s, "vendor", &back, &cause), 0);
	ck_assert(back.vendor && back.vendor_idx == 0);
	ck_assert_int_eq(config_parse(&s, "vendor:", &back, &cause), -1);
	free(cause);
	ck_assert_int_eq(config_parse(&s, "vendor:algo=7", &back, &cause), -1);
	ck_assert_str_eq(cause, "'vendor:algo=7' is not a vendor candidate of the 'toy' space "
				"(candidates: vendor:algo=6, vendor:algo=11,split=2)");
	free(cause);
	const char *why = NULL;
	struct config bad = point(3, 20);
	ck_assert_int_eq(space_check(&s, &bad, &why), 0);
	ck_assert_str_eq(why, "A=3 with B=20 is not allowed");
	/* the exhaustive tuner proposes every vendor candidate first */
	const struct tuner_ops *t = tuner_find("exhaustive");
	struct tuner_check m = make_mode("exhaustive", 0, NULL, NULL, NULL);
	struct tuner *tu = alloc_of(t, &s, &m, 7);
	ck_assert_int_eq(t->next(tu, &c), 1);
	ck_assert(c.vendor && c.vendor_idx == 0);
	ck_assert_int_eq(t->next(tu, &c), 1);
	ck_assert(c.vendor && c.vendor_idx == 1);
	ck_assert_int_eq(t->next(tu, &c), 1);
	ck_assert(!c.vendor);
	t->free(tu);
}
END_TEST

/* A replay measurer: answers from toy_median with three samples around it, as a recorded
 * trial would, and counts what the driver recorded. */
struct replay {
	const struct space *s;
	const struct config *incorrect;
	int recorded;
	double last_median;
	struct config ahead[16];  /* what the driver announced ahead, in order */
	size_t nahead, ahead_calls;
	size_t ntried;
	struct config tried[16];
};

static void replay_ahead(void *ctx, const struct config *c, size_t n)
{
	struct replay *r = ctx;
	r->ahead_calls++;
	for (size_t i = 0; i < n && r->nahead < 16; i++)
		r->ahead[r->nahead++] = c[i];
}

static int replay_trial(void *ctx, const struct config *c, int64_t n, struct tune_trial *out,
			char **cause)
{
	struct replay *r = ctx;
	if (r->ntried < 16)
		r->tried[r->ntried++] = *c;
	out->status = r->incorrect && config_equal(r->s, c, r->incorrect) ? TRIAL_INCORRECT
									   : TRIAL_OK;
	if (out->status != TRIAL_OK || n <= 0)
		return 0;
	out->samples = xcalloc((size_t)n, sizeof(*out->samples));
	for (int64_t k = 0; k < n; k++) {
		out->samples[k] = (struct sample)SAMPLE_INIT;
		out->samples[k].ns = (int64_t)toy_median(c) + (k % 3) - 1;
	}
	out->nsamples = (size_t)n;
	return 0;
}

static int replay_record(void *ctx, const struct config *c, const struct tune_trial *t,
			 double median_ns, char **cause)
{
	struct replay *r = ctx;
	r->recorded++;
	r->last_median = median_ns;
	return 0;
}

static int failing_trial(void *ctx, const struct config *c, int64_t n, struct tune_trial *out,
			 char **cause)
{
	*cause = xstrdup("the device went away");
	return -1;
}

START_TEST(test_tune_driver)
{
	struct space s;
	toy_space(&s, 1);
	struct tuner_check m = make_mode("exhaustive", 0, NULL, NULL, NULL);
	struct tuner_cell id = { .name = "toy/toy:n=1", .op = "toy", .shape = "n=1" };
	struct tuner_args a = { .space = &s, .cell = &id, .seed = 7 };
	struct replay r = { .s = &s };
	struct tune_measurer meas = { .ctx = &r, .trial = replay_trial, .record = replay_record };
	struct tune_result res;
	char *cause = NULL;
	(void)m;

	/* exhaustive: the same choice as driving the tuner by hand (test_tuner_exhaustive) */
	ck_assert_int_eq(tune_cell(tuner_find("exhaustive"), &a, 3, &meas, &res, &cause), 0);
	struct config fastest = point(1, 20);
	ck_assert(config_equal(&s, &res.best, &fastest));
	ck_assert_int_eq(res.reason, TUNE_TUNED);
	ck_assert_str_eq(tune_reason_name(res.reason), "tuned");
	ck_assert_int_eq(res.ntrials, 6);
	ck_assert_int_eq(res.benchmarks, 6);
	ck_assert_int_eq(r.recorded, 6);
	ck_assert_double_eq_tol(r.last_median, toy_median(&(struct config){ .val = { 3, 10 } }),
				1e-9);
	ck_assert_uint_eq(r.ahead_calls, 0); /* a measurer without ahead() is not told */

	/* with ahead(): exhaustive's plan, announced once before the first trial, is exactly
	 * the proposals then measured; the end of the search is announced as an empty plan */
	meas.ahead = replay_ahead;
	r.ntried = 0;
	ck_assert_int_eq(tune_cell(tuner_find("exhaustive"), &a, 3, &meas, &res, &cause), 0);
	ck_assert_uint_eq(r.ahead_calls, 2);
	ck_assert_uint_eq(r.nahead, 6);
	ck_assert_uint_eq(r.ntried, 6);
	for (size_t i = 0; i < 6; i++)
		ck_assert(config_equal(&s, &r.ahead[i], &r.tried[i]));
	ck_assert(config_equal(&s, &res.best, &fastest));
	/* the heuristic's plan is its one pick, the config then tried */
	r.ntried = 0;
	ck_assert_int_eq(tune_cell(tuner_find("heuristic"), &a, 3, &meas, &res, &cause), 0);
	ck_assert_uint_eq(r.ahead_calls, 4);
	ck_assert_uint_eq(r.nahead, 7);
	ck_assert_uint_eq(r.ntried, 1);
	ck_assert(config_equal(&s, &r.ahead[6], &r.tried[0]));
	/* a budget clips the plan: tune_plan (the worker's plan of a whole unit) and the
	 * driver's announcement alike; a tuner without a plan (random) has none */
	struct config plan[8];
	ck_assert_uint_eq(tune_plan(tuner_find("exhaustive"), &a, plan, 8), 6);
	ck_assert(config_equal(&s, &plan[0], &r.ahead[0]));
	a.budget_trials = 2;
	ck_assert_uint_eq(tune_plan(tuner_find("exhaustive"), &a, plan, 8), 2);
	r.nahead = 0;
	ck_assert_int_eq(tune_cell(tuner_find("exhaustive"), &a, 3, &meas, &res, &cause), 0);
	ck_assert_uint_eq(r.nahead, 2);
	ck_assert_int_eq(res.ntrials, 2);
	a.budget_trials = 0;
	ck_assert_uint_eq(tune_plan(tuner_find("random"), &a, plan, 8), 0);
	meas.ahead = NULL;

	/* heuristic: compiled and checked, never timed */
	r.recorded = 0;
	ck_assert_int_eq(tune_cell(tuner_find("heuristic"), &a, 3, &meas, &res, &cause), 0);
	ck_assert_int_eq(res.reason, TUNE_RULE);
	ck_assert_int_eq(res.benchmarks, 0);
	ck_assert(isnan(r.last_median));

	/* the heuristic's pick is incorrect: the vendor fallback */
	struct config pick = point(2, 20);
	r.incorrect = &pick;
	ck_assert_int_eq(tune_cell(tuner_find("heuristic"), &a, 3, &meas, &res, &cause), 0);
	ck_assert_int_eq(res.reason, TUNE_FALLBACK_VENDOR);
	ck_assert(res.best.vendor);
	/* ... and without a vendor path nothing is chosen */
	s.has_vendor = 0;
	ck_assert_int_eq(tune_cell(tuner_find("heuristic"), &a, 3, &meas, &res, &cause), 0);
	ck_assert_int_eq(res.reason, TUNE_NONE);
	ck_assert_int_eq(res.ntrials, 1);

	/* a measurer failure stops tuning with its cause */
	meas.trial = failing_trial;
	ck_assert_int_eq(tune_cell(tuner_find("heuristic"), &a, 3, &meas, &res, &cause), -1);
	ck_assert_str_eq(cause, "the device went away");
	free(cause);

	/* the median the tuners see */
	struct sample sm[3] = { SAMPLE_INIT, SAMPLE_INIT, SAMPLE_INIT };
	sm[0].ns = 30;
	sm[1].ns = 10;
	sm[2].ns = 20;
	ck_assert_double_eq_tol(tune_median_ns(sm, 3), 20.0, 1e-12);
	ck_assert(isnan(tune_median_ns(sm, 0)));
}
END_TEST

/* ---- the CPU backend ------------------------------------------------------------------- */

static char scratch[PATH_MAX];
static char *cache_dir;
static const char *kernel_dir;

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(scratch, sizeof(scratch), "%s/test-kernels.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	cache_dir = xasprintf("%s/cache", scratch);
	ck_assert_int_eq(mkdir(cache_dir, 0700), 0);
	/* make check exports HARNESS_KERNEL_DIR=$abs_top_srcdir/kernels */
	kernel_dir = backend_kernel_dir();
}

static void teardown(void)
{
	unsetenv("HARNESS_KERNEL_CC");
	unsetenv("HARNESS_KERNEL_CFLAGS");
	util_rm_rf(scratch);
	free(cache_dir);
	cache_dir = NULL;
}

static struct backend *open_cpu(const char *kdir)
{
	const struct backend_ops *ops = backend_find("cpu");
	struct backend_ctx ctx = { .cache_dir = cache_dir, .kernel_dir = kdir, .threads = 1,
				   .seed = 20240611 };
	char *cause = NULL;
	struct backend *b = ops->open(&ctx, &cause);
	ck_assert_msg(b != NULL, "open: %s", cause ? cause : "?");
	return b;
}

static void add_model(struct backend *b, const char *model, int64_t batch, int64_t res)
{
	struct workload w;
	char *cause = NULL;
	memset(&w, 0, sizeof(w));
	w.name = (char *)model;
	w.kind = WORKLOAD_MODEL;
	w.model = (char *)model;
	w.batch = batch;
	w.resolution = res;
	w.dtype = (char *)"float32";
	int r = backend_find("cpu")->add_workload(b, &w, &cause);
	ck_assert_msg(r == 0, "add_workload: %s", cause ? cause : "?");
}

/* Add an op workload; returns its cell index. */
static size_t add_op(struct backend *b, const char *op, const char *const *names,
		     const int64_t *vals, size_t n, int64_t batch)
{
	struct workload w;
	struct shape_dim dims[8];
	char *cause = NULL;
	memset(&w, 0, sizeof(w));
	w.name = (char *)op;
	w.kind = WORKLOAD_OP;
	w.op = (char *)op;
	w.batch = batch;
	w.resolution = 224;
	w.dtype = (char *)"float32";
	for (size_t i = 0; i < n; i++) {
		dims[i].name = (char *)names[i];
		dims[i].value = vals[i];
	}
	w.shape = dims;
	w.nshape = n;
	const struct backend_ops *ops = backend_find("cpu");
	size_t before = ops->ncells(b);
	int r = ops->add_workload(b, &w, &cause);
	ck_assert_msg(r == 0, "add_workload %s: %s", op, cause ? cause : "?");
	ck_assert_uint_eq(ops->ncells(b), before + 1);
	return before;
}

static const char *const sgemm_names[] = { "m", "n", "k" };
static const char *const conv_names[] = { "c", "h", "w", "k", "r", "stride", "pad" };
static const char *const pool_names[] = { "c", "h", "w", "r", "stride", "pad" };
static const char *const reduce_names[] = { "rows", "cols" };
static const char *const br_names[] = { "c", "hw" };

/* Index of the cell named name, or -1. */
static long find_cell(struct backend *b, const char *name)
{
	const struct backend_ops *ops = backend_find("cpu");
	for (size_t i = 0; i < ops->ncells(b); i++)
		if (!strcmp(ops->cell(b, i)->name, name))
			return (long)i;
	return -1;
}

static int64_t count_of(struct backend *b, const char *name)
{
	long i = find_cell(b, name);
	ck_assert_msg(i >= 0, "no cell '%s'", name);
	return backend_find("cpu")->cell(b, (size_t)i)->count;
}

/* Cells of op in workload w: how many distinct, and their total count. */
static void tally(struct backend *b, const char *op, size_t *distinct, int64_t *total)
{
	const struct backend_ops *ops = backend_find("cpu");
	*distinct = 0;
	*total = 0;
	for (size_t i = 0; i < ops->ncells(b); i++) {
		const struct cell *c = ops->cell(b, i);
		if (!strcmp(c->op, op)) {
			(*distinct)++;
			*total += c->count;
		}
	}
}

static enum prepare_status prepare(struct backend *b, size_t i, const struct config *c,
				   struct prepare_result *res)
{
	char *cause = NULL;
	int r = backend_find("cpu")->prepare(b, i, c, res, &cause);
	ck_assert_msg(r == 0, "prepare: %s", cause ? cause : "?");
	return res->status;
}

START_TEST(test_backend_table)
{
	const struct backend_ops *ops = backend_find("cpu");
	char *why = NULL;
	ck_assert_ptr_nonnull(ops);
	ck_assert_str_eq(ops->name, "cpu");
	ck_assert_int_eq(ops->available(&why), 1);
	ck_assert_ptr_null(backend_find("tpu"));
	ck_assert_ptr_eq(backend_registry[0].ops, ops);

	const char *dir = backend_kernel_dir();
	char *tmpl = xasprintf("%s/cpu/templates/sgemm.c", dir);
	ck_assert_msg(access(tmpl, R_OK) == 0, "no template at '%s'", tmpl);
	free(tmpl);

	struct prepare_result r = { .detail = xstrdup("x") };
	prepare_result_release(&r);
	ck_assert_ptr_null(r.detail);
}
END_TEST

/* ResNet-18 at 32x32: conv1 -> 16, maxpool -> 8, layers at 8, 4, 2, 1. */
START_TEST(test_resnet18_cells)
{
	struct backend *b = open_cpu(kernel_dir);
	const struct backend_ops *ops = backend_find("cpu");
	size_t d;
	int64_t total;

	add_model(b, "resnet18", 1, 32);
	ck_assert_uint_eq(ops->ncells(b), 20);
	tally(b, "conv2d", &d, &total);
	ck_assert_uint_eq(d, 11);
	ck_assert_int_eq(total, 20); /* 1 + 16 + 3 downsample */
	tally(b, "bias_relu", &d, &total);
	ck_assert_uint_eq(d, 5);
	ck_assert_int_eq(total, 17);
	tally(b, "maxpool", &d, &total);
	ck_assert(d == 1 && total == 1);
	tally(b, "reduce", &d, &total);
	ck_assert(d == 1 && total == 1);
	tally(b, "sgemm", &d, &total);
	ck_assert(d == 1 && total == 1);

	ck_assert_int_eq(count_of(b, "resnet18/conv2d:c=3,h=32,w=32,k=64,r=7,stride=2,pad=3"), 1);
	ck_assert_int_eq(count_of(b, "resnet18/maxpool:c=64,h=16,w=16,r=3,stride=2,pad=1"), 1);
	ck_assert_int_eq(count_of(b, "resnet18/conv2d:c=64,h=8,w=8,k=64,r=3,stride=1,pad=1"), 4);
	ck_assert_int_eq(count_of(b, "resnet18/conv2d:c=64,h=8,w=8,k=128,r=3,stride=2,pad=1"), 1);
	ck_assert_int_eq(count_of(b, "resnet18/conv2d:c=64,h=8,w=8,k=128,r=1,stride=2,pad=0"), 1);
	ck_assert_int_eq(count_of(b, "resnet18/conv2d:c=128,h=4,w=4,k=128,r=3,stride=1,pad=1"), 3);
	ck_assert_int_eq(count_of(b, "resnet18/conv2d:c=512,h=1,w=1,k=512,r=3,stride=1,pad=1"), 3);
	ck_assert_int_eq(count_of(b, "resnet18/conv2d:c=256,h=2,w=2,k=512,r=1,stride=2,pad=0"), 1);
	ck_assert_int_eq(count_of(b, "resnet18/bias_relu:c=64,hw=256"), 1);
	ck_assert_int_eq(count_of(b, "resnet18/bias_relu:c=512,hw=1"), 4);
	ck_assert_int_eq(count_of(b, "resnet18/reduce:rows=512,cols=1"), 1);
	ck_assert_int_eq(count_of(b, "resnet18/sgemm:m=1,n=1000,k=512"), 1);

	const struct cell *e2e = ops->cell(b, ops->ncells(b) - 1);
	ck_assert_str_eq(e2e->name, "resnet18/e2e");
	ck_assert_int_eq(e2e->kind, CELL_E2E);
	ck_assert_str_eq(e2e->shape, "batch=1,resolution=32");
	ck_assert_ptr_null(ops->space(b, ops->ncells(b) - 1));
	ck_assert(e2e->flops > 0);

	/* every op cell's heuristic pick lies in its space */
	for (size_t i = 0; i + 1 < ops->ncells(b); i++) {
		const struct space *s = ops->space(b, i);
		struct config c;
		ck_assert_ptr_nonnull(s);
		ck_assert(s->has_vendor);
		s->heuristic(s, &c);
		ck_assert_msg(space_contains(s, &c), "heuristic outside the space of %s",
			      ops->cell(b, i)->name);
	}
	ops->close(b);
}
END_TEST

/* ResNet-50 at 64x64 and batch 2: conv1 -> 32, maxpool -> 16, layers at 16, 8, 4, 2. */
START_TEST(test_resnet50_cells)
{
	struct backend *b = open_cpu(kernel_dir);
	const struct backend_ops *ops = backend_find("cpu");
	size_t d;
	int64_t total;

	add_model(b, "resnet50", 2, 64);
	tally(b, "conv2d", &d, &total);
	ck_assert_int_eq(total, 53); /* 1 + 16 x 3 + 4 downsample */
	tally(b, "bias_relu", &d, &total);
	ck_assert_int_eq(total, 49);
	ck_assert_int_eq(count_of(b, "resnet50/conv2d:c=3,h=64,w=64,k=64,r=7,stride=2,pad=3"), 1);
	ck_assert_int_eq(count_of(b, "resnet50/conv2d:c=64,h=16,w=16,k=64,r=1,stride=1,pad=0"), 1);
	ck_assert_int_eq(count_of(b, "resnet50/conv2d:c=256,h=16,w=16,k=64,r=1,stride=1,pad=0"), 2);
	ck_assert_int_eq(count_of(b, "resnet50/conv2d:c=64,h=16,w=16,k=256,r=1,stride=1,pad=0"), 4);
	ck_assert_int_eq(count_of(b, "resnet50/conv2d:c=128,h=16,w=16,k=128,r=3,stride=2,pad=1"), 1);
	ck_assert_int_eq(count_of(b, "resnet50/conv2d:c=1024,h=4,w=4,k=2048,r=1,stride=2,pad=0"), 1);
	ck_assert_int_eq(count_of(b, "resnet50/conv2d:c=512,h=2,w=2,k=2048,r=1,stride=1,pad=0"), 3);
	ck_assert_int_eq(count_of(b, "resnet50/reduce:rows=4096,cols=4"), 1);
	ck_assert_int_eq(count_of(b, "resnet50/sgemm:m=2,n=1000,k=2048"), 1);
	ck_assert_int_eq(find_cell(b, "resnet50/e2e"), (long)ops->ncells(b) - 1);
	for (size_t i = 0; i + 1 < ops->ncells(b); i++) {
		const struct space *s = ops->space(b, i);
		struct config c;
		s->heuristic(s, &c);
		ck_assert_msg(space_contains(s, &c), "heuristic outside the space of %s",
			      ops->cell(b, i)->name);
	}
	ops->close(b);
}
END_TEST

START_TEST(test_add_workload_errors)
{
	struct backend *b = open_cpu(kernel_dir);
	const struct backend_ops *ops = backend_find("cpu");
	struct workload w;
	char *cause = NULL;

	memset(&w, 0, sizeof(w));
	w.name = (char *)"net";
	w.kind = WORKLOAD_MODEL;
	w.model = (char *)"vgg16";
	w.batch = 1;
	w.resolution = 32;
	ck_assert_int_eq(ops->add_workload(b, &w, &cause), -1);
	ck_assert_str_eq(cause, "unknown model 'vgg16' (models: resnet18, resnet50)");
	free(cause);

	w.model = (char *)"resnet18";
	w.dtype = (char *)"float16";
	ck_assert_int_eq(ops->add_workload(b, &w, &cause), -1);
	ck_assert_str_eq(cause, "workload 'net': dtype 'float16' is not supported by the cpu "
				"backend (float32 only)");
	free(cause);

	w.dtype = NULL;
	ck_assert_int_eq(ops->add_workload(b, &w, &cause), 0);
	ck_assert_int_eq(ops->add_workload(b, &w, &cause), -1);
	ck_assert_str_eq(cause, "workload 'net' is given twice");
	free(cause);

	struct shape_dim dims[] = { { (char *)"c", 4 }, { (char *)"h", 8 }, { (char *)"w", 8 },
				    { (char *)"r", 3 }, { (char *)"stride", 1 },
				    { (char *)"pad", 2 } };
	memset(&w, 0, sizeof(w));
	w.name = (char *)"pool";
	w.kind = WORKLOAD_OP;
	w.op = (char *)"maxpool";
	w.batch = 1;
	w.shape = dims;
	w.nshape = ARRAY_SIZE(dims);
	ck_assert_int_eq(ops->add_workload(b, &w, &cause), -1);
	ck_assert_str_eq(cause, "workload 'pool': maxpool pad 2 is more than half the window 3");
	free(cause);

	dims[5].value = 1;
	dims[3].value = 11;
	ck_assert_int_eq(ops->add_workload(b, &w, &cause), -1);
	ck_assert_str_eq(cause, "workload 'pool': maxpool window 11 does not fit a 8x8 input "
				"with padding 1");
	free(cause);

	w.nshape = 5;
	ck_assert_int_eq(ops->add_workload(b, &w, &cause), -1);
	ck_assert_str_eq(cause, "workload 'pool': maxpool shape needs field 'pad'");
	free(cause);

	dims[0].value = 0;
	dims[3].value = 3;
	w.nshape = ARRAY_SIZE(dims);
	ck_assert_int_eq(ops->add_workload(b, &w, &cause), -1);
	ck_assert_str_eq(cause, "workload 'pool': maxpool shape field 'c' = 0 is out of range "
				"(1 to 16777216)");
	free(cause);
	ops->close(b);
}
END_TEST

/* Files in the cache dir whose names start with prefix and end with suffix. */
static int count_files(const char *prefix, const char *suffix)
{
	DIR *d = opendir(cache_dir);
	struct dirent *e;
	int n = 0;
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), sl = strlen(suffix);
		if (!strncmp(e->d_name, prefix, strlen(prefix)) && len > sl &&
		    !strcmp(e->d_name + len - sl, suffix))
			n++;
	}
	closedir(d);
	return n;
}

/* Cold compile, in-process reuse, then a hit from the cache directory after reopening. */
START_TEST(test_kernel_cache)
{
	const struct backend_ops *ops = backend_find("cpu");
	const int64_t shape[] = { 37, 45, 29 };
	struct prepare_result res;
	struct backend_counters k;
	struct config c1, c2;
	char *cause = NULL;

	struct backend *b = open_cpu(kernel_dir);
	size_t i = add_op(b, "sgemm", sgemm_names, shape, 3, 1);
	const struct space *s = ops->space(b, i);
	ck_assert_int_eq(config_parse(s, "BM=16,BN=32,BK=32,UNROLL=4", &c1, &cause), 0);
	ck_assert_int_eq(config_parse(s, "BM=64,BN=32,BK=32,UNROLL=2", &c2, &cause), 0);
	/* n = 45: BN = 128 covers it, so 512 is redundant; k = 29: BK = 32 covers it */
	ck_assert_int_eq(config_parse(s, "BM=16,BN=512,BK=32,UNROLL=4", &c2, &cause), -1);
	ck_assert_str_eq(cause, "'BM=16,BN=512,BK=32,UNROLL=4' is excluded by the 'sgemm' "
				"constraint for this shape");
	free(cause);
	ck_assert_int_eq(config_parse(s, "BM=16,BN=128,BK=256,UNROLL=4", &c2, &cause), -1);
	free(cause);
	ck_assert_int_eq(config_parse(s, "BM=64,BN=32,BK=32,UNROLL=2", &c2, &cause), 0);
	size_t valid = 0;
	for (size_t g = 0; g < space_grid_size(s); g++) {
		struct config p;
		ck_assert_int_eq(space_grid_point(s, g, &p), 0);
		valid += (size_t)space_contains(s, &p);
	}
	ck_assert_uint_eq(valid, 2 * 2 * 1 * 3);

	ck_assert_int_eq(prepare(b, i, &c1, &res), PREPARE_OK);
	ck_assert_int_eq(res.cache_hit, 0);
	ck_assert(res.compile_ns > 0);
	ck_assert(res.check_ns > 0);
	ck_assert(res.max_rel_err <= 2.0 * 29 / 16777216.0);
	prepare_result_release(&res);
	ops->counters(b, &k);
	ck_assert_int_eq(k.compiles, 1);
	ck_assert_int_eq(k.cache_hits, 0);
	ck_assert(k.compile_ns > 0);
	ck_assert_int_eq(count_files("sgemm-", ".so"), 1);

	ck_assert_int_eq(prepare(b, i, &c1, &res), PREPARE_OK); /* loaded already */
	ck_assert_int_eq(res.cache_hit, 1);
	ck_assert_int_eq(res.compile_ns, 0);
	ck_assert_int_eq(prepare(b, i, &c2, &res), PREPARE_OK);
	ck_assert_int_eq(res.cache_hit, 0);
	ops->counters(b, &k);
	ck_assert_int_eq(k.compiles, 2);
	ck_assert_int_eq(k.cache_hits, 0);
	ops->close(b);

	b = open_cpu(kernel_dir);
	i = add_op(b, "sgemm", sgemm_names, shape, 3, 1);
	ck_assert_int_eq(prepare(b, i, &c1, &res), PREPARE_OK);
	ck_assert_int_eq(res.cache_hit, 1);
	ck_assert_int_eq(res.compile_ns, 0);
	ops->counters(b, &k);
	ck_assert_int_eq(k.compiles, 0);
	ck_assert_int_eq(k.cache_hits, 1);
	ck_assert_int_eq(k.compile_ns, 0);
	ck_assert_int_eq(count_files("sgemm-", ".so"), 2);
	ck_assert_int_eq(count_files("sgemm-", ".log"), 0); /* empty logs are removed */

	/* the .so name is <template>-<64 hex digits>.so */
	DIR *d = opendir(cache_dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		ck_assert_uint_eq(strlen(e->d_name), strlen("sgemm-") + 64 + strlen(".so"));
		ck_assert_uint_eq(strspn(e->d_name + 6, "0123456789abcdef"), 64);
	}
	closedir(d);
	ops->close(b);
}
END_TEST

/* Every point of every op's space, and the vendor path, passes the float64 check on
 * shapes with ragged edges, padding and strides. */
START_TEST(test_every_config_correct)
{
	const struct backend_ops *ops = backend_find("cpu");
	struct backend *b = open_cpu(kernel_dir);
	const int64_t sg[] = { 67, 131, 259 }, cv[] = { 5, 11, 9, 17, 3, 2, 1 };
	const int64_t pl[] = { 3, 9, 11, 3, 2, 1 }, rd[] = { 13, 37 }, br[] = { 6, 21 };
	size_t cells[] = {
		add_op(b, "sgemm", sgemm_names, sg, 3, 1),
		add_op(b, "conv2d", conv_names, cv, 7, 2),
		add_op(b, "maxpool", pool_names, pl, 6, 2),
		add_op(b, "reduce", reduce_names, rd, 2, 1),
		add_op(b, "bias_relu", br_names, br, 2, 3),
	};
	for (size_t j = 0; j < ARRAY_SIZE(cells); j++) {
		const struct space *s = ops->space(b, cells[j]);
		struct prepare_result res;
		struct config c = vendor_point();
		size_t tried = 0;
		ck_assert_int_eq(prepare(b, cells[j], &c, &res), PREPARE_OK);
		for (size_t g = 0; g < space_grid_size(s); g++) {
			ck_assert_int_eq(space_grid_point(s, g, &c), 0);
			if (!space_contains(s, &c))
				continue;
			enum prepare_status st = prepare(b, cells[j], &c, &res);
			ck_assert_msg(st == PREPARE_OK, "%s: %s", ops->cell(b, cells[j])->name,
				      res.detail ? res.detail : "?");
			tried++;
		}
		ck_assert_uint_gt(tried, 0);
		struct sample ns = SAMPLE_INIT;
		char *cause = NULL;
		ck_assert_int_eq(ops->sample(b, cells[j], 0, &ns, &cause), 0);
		ck_assert(ns.ns > 0);
	}
	ops->close(b);
}
END_TEST

/* A copy of the templates with a broken sgemm.c. */
static char *broken_kernel_dir(void)
{
	char *dir = xasprintf("%s/kdir", scratch);
	char *tdir = xasprintf("%s/cpu/templates", dir);
	static const char *const files[] = { "kernel.h", "maxpool.c", "reduce.c", "bias_relu.c" };
	ck_assert_int_eq(util_mkdir_p(tdir, 0700), 0);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *src = xasprintf("%s/cpu/templates/%s", kernel_dir, files[i]);
		char *dst = xasprintf("%s/%s", tdir, files[i]);
		char *data;
		size_t len;
		ck_assert_int_eq(util_read_file(src, &data, &len), 0);
		ck_assert_int_eq(util_write_file(dst, data, len, 0600), 0);
		free(data);
		free(src);
		free(dst);
	}
	char *sg = xasprintf("%s/sgemm.c", tdir);
	const char *bad = "#include \"kernel.h\"\nvoid harness_sgemm(void) { this is not C; }\n";
	ck_assert_int_eq(util_write_file(sg, bad, strlen(bad), 0600), 0);
	free(sg);
	free(tdir);
	return dir;
}

START_TEST(test_compile_error)
{
	const struct backend_ops *ops = backend_find("cpu");
	const int64_t shape[] = { 8, 8, 8 };
	struct prepare_result res;
	struct backend_counters k;
	struct config c;
	char *kdir = broken_kernel_dir();

	struct backend *b = open_cpu(kdir);
	size_t i = add_op(b, "sgemm", sgemm_names, shape, 3, 1);
	ops->space(b, i)->heuristic(ops->space(b, i), &c);
	ck_assert_int_eq(prepare(b, i, &c, &res), PREPARE_COMPILE_ERROR);
	ck_assert_ptr_nonnull(res.detail);
	ck_assert_msg(strstr(res.detail, "exited with status") && strstr(res.detail, "error"),
		      "detail: %s", res.detail);
	prepare_result_release(&res);
	ops->counters(b, &k);
	ck_assert_int_eq(k.compiles, 1);
	ck_assert_int_eq(count_files("sgemm-", ".so"), 0);
	ck_assert_int_eq(count_files("sgemm-", ".log"), 1); /* the compiler's stderr is kept */

	struct sample ns = SAMPLE_INIT;
	char *cause = NULL;
	ck_assert_int_eq(ops->sample(b, i, 0, &ns, &cause), -1);
	ck_assert_str_eq(cause, "cell 'sgemm/sgemm:m=8,n=8,k=8' has no current config");
	free(cause);
	c = vendor_point(); /* the vendor path does not compile */
	ck_assert_int_eq(prepare(b, i, &c, &res), PREPARE_OK);
	ops->close(b);
	free(kdir);

	/* a compiler that does not exist */
	setenv("HARNESS_KERNEL_CC", "/nonexistent/harness-cc", 1);
	b = open_cpu(kernel_dir);
	i = add_op(b, "sgemm", sgemm_names, shape, 3, 1);
	ops->space(b, i)->heuristic(ops->space(b, i), &c);
	ck_assert_int_eq(prepare(b, i, &c, &res), PREPARE_COMPILE_ERROR);
	ck_assert_str_eq(res.detail, "cannot run the kernel compiler '/nonexistent/harness-cc'");
	prepare_result_release(&res);
	struct sbuf sb;
	sbuf_init(&sb);
	ops->describe(b, &sb);
	ck_assert_ptr_nonnull(strstr(sb.buf, "compiler=/nonexistent/harness-cc\n"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "compiler_version=unavailable\n"));
	sbuf_release(&sb);
	ops->close(b);
	unsetenv("HARNESS_KERNEL_CC");

	/* a kernel dir without templates fails at open */
	struct backend_ctx ctx = { .cache_dir = cache_dir, .kernel_dir = scratch, .seed = 1 };
	ck_assert_ptr_null(ops->open(&ctx, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "cannot read kernel template"));
	free(cause);
}
END_TEST

/* HARNESS_TEST_CORRUPT=1 makes the sgemm template drop its last k term. */
START_TEST(test_incorrect_detected)
{
	const struct backend_ops *ops = backend_find("cpu");
	const int64_t shape[] = { 19, 23, 64 }, cv[] = { 4, 6, 6, 8, 3, 1, 1 };
	struct prepare_result res;
	struct config c;
	char *cause = NULL;

	setenv("HARNESS_KERNEL_CFLAGS", "-DHARNESS_TEST_CORRUPT=1", 1);
	struct backend *b = open_cpu(kernel_dir);
	size_t i = add_op(b, "sgemm", sgemm_names, shape, 3, 1);
	size_t j = add_op(b, "conv2d", conv_names, cv, 7, 1);
	ops->space(b, i)->heuristic(ops->space(b, i), &c);
	ck_assert_int_eq(prepare(b, i, &c, &res), PREPARE_INCORRECT);
	ck_assert_ptr_nonnull(res.detail);
	ck_assert_ptr_nonnull(strstr(res.detail, "over the tolerance"));
	ck_assert(res.max_rel_err > 64.0 / 16777216.0);
	prepare_result_release(&res);
	struct sample ns = SAMPLE_INIT;
	ck_assert_int_eq(ops->sample(b, i, 0, &ns, &cause), -1);
	free(cause);
	ops->space(b, j)->heuristic(ops->space(b, j), &c);
	ck_assert_int_eq(prepare(b, j, &c, &res), PREPARE_INCORRECT);
	prepare_result_release(&res);

	c = vendor_point();
	ck_assert_int_eq(prepare(b, i, &c, &res), PREPARE_OK);
	ck_assert(res.max_rel_err <= 64.0 / 16777216.0);

	struct sbuf sb;
	sbuf_init(&sb);
	ops->describe(b, &sb);
	ck_assert_ptr_nonnull(strstr(sb.buf, "cflags=-std=c11 -O3 -fPIC -shared "
					     "-DHARNESS_TEST_CORRUPT=1\n"));
	sbuf_release(&sb);
	ops->close(b);
}
END_TEST

START_TEST(test_e2e_resnet18)
{
	const struct backend_ops *ops = backend_find("cpu");
	struct prepare_result res;
	struct config c;
	char *cause = NULL;
	struct sample ns = SAMPLE_INIT;

	struct backend *b = open_cpu(kernel_dir);
	add_model(b, "resnet18", 1, 32);
	size_t n = ops->ncells(b), e2e = n - 1;

	ck_assert_int_eq(ops->prepare(b, e2e, NULL, &res, &cause), -1);
	ck_assert_str_eq(cause, "cell 'resnet18/e2e' needs every op cell prepared: "
				"'resnet18/conv2d:c=3,h=32,w=32,k=64,r=7,stride=2,pad=3' has no "
				"current config");
	free(cause);
	ck_assert_int_eq(ops->sample(b, e2e, 0, &ns, &cause), -1);
	free(cause);

	/* the vendor path everywhere */
	c = vendor_point();
	for (size_t i = 0; i < e2e; i++)
		ck_assert_int_eq(prepare(b, i, &c, &res), PREPARE_OK);
	ck_assert_int_eq(prepare(b, e2e, NULL, &res), PREPARE_OK);
	ck_assert_int_eq(ops->sample(b, e2e, 0, &ns, &cause), 0);
	ck_assert(ns.ns > 0);
	ck_assert_int_eq(ops->sample(b, e2e, 1, &ns, &cause), 0);
	ck_assert(ns.ns > 0);
	ck_assert_int_eq(ops->sample(b, 0, 1, &ns, &cause), 0);
	ck_assert(ns.ns > 0);

	/* the heuristic configs everywhere: compiled kernels in the forward */
	for (size_t i = 0; i < e2e; i++) {
		ops->space(b, i)->heuristic(ops->space(b, i), &c);
		ck_assert_int_eq(prepare(b, i, &c, &res), PREPARE_OK);
	}
	ck_assert_int_eq(prepare(b, e2e, NULL, &res), PREPARE_OK);
	ck_assert_int_eq(ops->sample(b, e2e, 0, &ns, &cause), 0);
	ck_assert(ns.ns > 0);
	struct backend_counters k;
	ops->counters(b, &k);
	ck_assert(k.compiles >= 4); /* at least one kernel per template */

	/* a config given to the e2e cell, or none to an op cell, is a caller error */
	ck_assert_int_eq(ops->prepare(b, e2e, &c, &res, &cause), -1);
	free(cause);
	ck_assert_int_eq(ops->prepare(b, 0, NULL, &res, &cause), -1);
	free(cause);
	ops->close(b);
}
END_TEST

START_TEST(test_describe)
{
	const struct backend_ops *ops = backend_find("cpu");
	struct backend *b = open_cpu(kernel_dir);
	struct sbuf sb;
	sbuf_init(&sb);
	ops->describe(b, &sb);
	static const char *const keys[] = {
		"backend=cpu\n", "kernel_dir=", "compiler=", "compiler_path=", "compiler_version=",
		"cflags=-std=c11 -O3 -fPIC -shared\n", "openblas_config=", "openblas_threads=1\n",
		"llc_bytes=", "template_sgemm.c_sha256=", "template_kernel.h_sha256=",
	};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		ck_assert_msg(strstr(sb.buf, keys[i]), "no '%s' in:\n%s", keys[i], sb.buf);
	ck_assert(sb.len && sb.buf[sb.len - 1] == '\n');
	sbuf_release(&sb);
	ops->close(b);
}
END_TEST

/* A sample covering several launches counts as one execution's time: a tuner must not see
 * a config batched 4 to a sample as 4x slower than one timed alone (the CUDA backend sizes
 * the batch per config). */
START_TEST(test_median_per_execution)
{
	struct sample a[3] = { SAMPLE_INIT, SAMPLE_INIT, SAMPLE_INIT };
	struct sample b[3] = { SAMPLE_INIT, SAMPLE_INIT, SAMPLE_INIT };
	for (int i = 0; i < 3; i++) {
		a[i].ns = 10000 + i;
		b[i].ns = 4 * (9000 + i);
		b[i].launches = 4;
	}
	ck_assert(fabs(tune_median_ns(a, 3) - 10001) < 1e-9);
	ck_assert(fabs(tune_median_ns(b, 3) - 9001) < 1e-9);
	ck_assert_int_eq(sample_exec_ns(10, 4), 3); /* rounded to the ns: 2.5 -> 3 */
	ck_assert_int_eq(sample_exec_ns(7, 1), 7);
	ck_assert_int_eq(sample_exec_ns(7, 0), 7);
}
END_TEST

static Suite *kernels_suite(void)
{
	Suite *s = suite_create("kernels");
	TCase *tc = tcase_create("space");
	tcase_add_test(tc, test_space_grid);
	tcase_add_test(tc, test_space_walk);
	tcase_add_test(tc, test_space_tile_helpers);
	tcase_add_test(tc, test_catalog_resnet);
	tcase_add_test(tc, test_backend_env_dir);
	tcase_add_test(tc, test_config_format_parse);
	suite_add_tcase(s, tc);

	tc = tcase_create("tuner");
	tcase_add_test(tc, test_tuner_table);
	tcase_add_test(tc, test_median_per_execution);
	tcase_add_test(tc, test_tuner_vendor);
	tcase_add_test(tc, test_tuner_vendor_benchmarked);
	tcase_add_test(tc, test_tuner_heuristic);
	tcase_add_test(tc, test_tuner_exhaustive);
	tcase_add_test(tc, test_tuner_exhaustive_ties);
	tcase_add_test(tc, test_field_option);
	tcase_add_test(tc, test_vendor_params);
	tcase_add_test(tc, test_tune_driver);
	suite_add_tcase(s, tc);

	tc = tcase_create("cpu");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_backend_table);
	tcase_add_test(tc, test_resnet18_cells);
	tcase_add_test(tc, test_resnet50_cells);
	tcase_add_test(tc, test_add_workload_errors);
	tcase_add_test(tc, test_kernel_cache);
	tcase_add_test(tc, test_every_config_correct);
	tcase_add_test(tc, test_compile_error);
	tcase_add_test(tc, test_incorrect_detected);
	tcase_add_test(tc, test_e2e_resnet18);
	tcase_add_test(tc, test_describe);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(kernels_suite());
}
