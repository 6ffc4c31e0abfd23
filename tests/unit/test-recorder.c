/* test-recorder.c: unit tests for recorder.h (round trips of every field, cell mapping by
 * name, resume, error paths, trimming after a cut-off append, crash safety under SIGKILL,
 * and reading the file with h5dump and the system Python's h5py when they are installed) */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "harness/record/recorder.h"
#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "tests/unit/testutil.h"


/* The verbatim texts: newlines, quotes, tabs, backslashes, UTF-8 and other high bytes,
 * control characters; never a NUL. */
static const char text_experiment[] =
	"# resnet \"tiny\"\n[experiment]\nname = 'x'\tseed = 20240611\r\n"
	"path = \"C:\\\\temp\\\\a b\"\nnote = \"caf\xc3\xa9 \xe2\x88\x9a" "2 \x01\x7f\xff\xfe\"\n\n";
static const char text_hypothesis[] =
	"H1: beam < exhaustive' by >= 7.5%\n\"falsified if\" CI > 1\n";

static void fill_meta(struct rec_meta *m)
{
	rec_meta_init(m);
	rec_meta_set(m, "harness_version", "0.3.7-rc2");
	rec_meta_set(m, "experiment_name", "resnet \"small\"");
	rec_meta_set(m, "seed", "9182736455");
	rec_meta_set(m, "status", "starting");
	rec_meta_set(m, "unit_env", "{\"PATH\":\"/usr/bin\",\n\"X\":\"caf\xc3\xa9\"}");
	rec_meta_set(m, "end_utc", "");
	rec_meta_set(m, "status", "running"); /* replaces, keeps position */
	rec_meta_add_file(m, "experiment", "experiments/resnet.toml", text_experiment,
			  sizeof(text_experiment) - 1);
	rec_meta_add_file(m, "hypothesis", "hypotheses/h1.toml", text_hypothesis,
			  sizeof(text_hypothesis) - 1);
	rec_meta_add_file(m, "hypothesis", "hypotheses/empty.toml", "", 0);
}

#define NPLAN 7

static void fill_plan(struct rec_plan *p)
{
	static char *modes[] = { "vendor", "beam-4", "coord \"descent\"" };
	for (int i = 0; i < NPLAN; i++) {
		p[i].id = i;
		p[i].mode = modes[i % 3];
		p[i].repeat = 3 * i + 11;
		p[i].block = 5 * i + 13;
		p[i].position = 7 * i + 17;
		p[i].warm = i % 2;
		p[i].warm_of = i % 2 ? i - 1 : -1;
	}
}

/* A unit with high-entropy values derived from k; cells named by names (n of them). */
static void make_unit(struct rec_unit_data *u, int64_t id, int k, const char *const *names,
		      size_t ncells, size_t nsamples)
{
	rec_unit_data_init(u);
	struct rec_unit *x = &u->unit;
	x->id = id;
	x->mode = xasprintf("mode-%d \"q\"", k);
	x->repeat = 31 + k;
	x->block = 37 + k;
	x->position = 41 + k;
	x->warm = k % 2;
	x->pid = 123457 + k;
	x->cache_dir = xasprintf("results/r/cache/u%04d-Ab3xQ9", k);
	x->cache_dir_empty = 1 - k % 2;
	x->status = xstrdup(k % 3 ? REC_STATUS_OK : REC_STATUS_CRASHED);
	x->exit_code = 128 + 9 + k;
	x->signal = 9 + k;
	x->compile_ns = 1234567891LL + k;
	x->tune_ns = 2345678912LL + k;
	x->search_ns = 3456789123LL + k;
	x->compiles = 43 + k;
	x->cache_hits = 47 + k;
	x->benchmarks = 53 + k;
	x->expects_work = 1;
	x->cache_leak = k % 2;
	x->start_utc = xstrdup("2024-06-11T12:34:56Z");
	x->end_utc = xstrdup("2024-06-11T12:35:07Z");
	x->wall_ns = 11000000007LL + k;
	x->stdout_log = xasprintf("r/logs/u%04d.out", k);
	x->stderr_log = xasprintf("r/logs/u%04d.err", k);
	x->argv_json = xstrdup("[\"/usr/bin/harness\",\"worker\",\"--unit\",\"3\"]");
	x->env_json = xstrdup("{\"PATH\":\"/usr/bin\",\"TMPDIR\":\"/x y\"}");
	x->message = k % 3 ? xstrdup("") : xasprintf("killed by signal %d\n(core dumped)", 9 + k);
	u->info = xasprintf("cpu_model=Xeon %d\nblas=openblas 0.3.21\n", k);

	u->ncells = ncells;
	u->cells = xcalloc(ncells, sizeof(*u->cells));
	for (size_t c = 0; c < ncells; c++) {
		u->cells[c].name = xstrdup(names[c]);
		u->cells[c].kind = xstrdup(c % 2 ? "e2e" : "op");
		u->cells[c].workload = xasprintf("resnet%zu", 18 + c);
		u->cells[c].op = xasprintf("conv%zu", c);
		u->cells[c].shape = xasprintf("%zux%zux3x3", 64 + c, 128 + c);
		u->cells[c].count = 59 + (int64_t)c;
		u->cells[c].flops = 2.385e9 * (double)(c + 1);
	}
	u->ntrials = 3;
	u->trials = xcalloc(3, sizeof(*u->trials));
	for (size_t t = 0; t < 3; t++) {
		u->trials[t].cell = (int64_t)((t + (size_t)k) % ncells);
		u->trials[t].config = xasprintf("{\"tile\":%zu,\"unroll\":%d}", (size_t)8 << t, k);
		u->trials[t].status = xstrdup(t == 2 ? "compile-error" : "ok");
		u->trials[t].cache_hit = (int)(t % 2);
		u->trials[t].compile_ns = 71234567 + (int64_t)t;
		u->trials[t].nsamples = 61 + (int64_t)t;
		u->trials[t].median_ns = 12345.678 + (double)t;
		u->trials[t].min_ns = 11111.125 + (double)t;
		u->trials[t].max_ns = 99999.5 + (double)t;
		u->trials[t].bench_ns = 5432109876LL + (int64_t)t;
	}
	u->nchoices = ncells;
	u->choices = xcalloc(ncells, sizeof(*u->choices));
	u->nmeasures = ncells;
	u->measures = xcalloc(ncells, sizeof(*u->measures));
	for (size_t c = 0; c < ncells; c++) {
		u->choices[c].cell = (int64_t)c;
		u->choices[c].config = xasprintf("{\"tile\":%zu}", 16 + c);
		u->choices[c].reason = xstrdup(c ? "tuned" : "vendor");
		u->measures[c].cell = (int64_t)c;
		u->measures[c].nsamples = 67 + (int64_t)c;
		u->measures[c].stop = xstrdup(c % 2 ? "max-time" : "precision");
		u->measures[c].warmup_n = 71 + (int64_t)c;
		u->measures[c].warmup_ns = 7300000 + (int64_t)c;
		u->measures[c].rel_precision = 0.0123 + 0.001 * (double)c;
	}
	u->nsamples = nsamples;
	u->sample_cell = xcalloc(nsamples ? nsamples : 1, sizeof(int64_t));
	u->sample_index = xcalloc(nsamples ? nsamples : 1, sizeof(int64_t));
	u->sample_ns = xcalloc(nsamples ? nsamples : 1, sizeof(int64_t));
	for (size_t i = 0; i < nsamples; i++) {
		u->sample_cell[i] = (int64_t)(i % ncells);
		u->sample_index[i] = (int64_t)(i / ncells);
		u->sample_ns[i] = 1000003 * (int64_t)(k + 1) + (int64_t)((i * 7919) % 100003);
	}
}

static void check_unit(const struct rec_unit *got, const struct rec_unit *want)
{
	ck_assert_int_eq(got->id, want->id);
	ck_assert_str_eq(got->mode, want->mode);
	ck_assert_int_eq(got->repeat, want->repeat);
	ck_assert_int_eq(got->block, want->block);
	ck_assert_int_eq(got->position, want->position);
	ck_assert_int_eq(got->warm, want->warm);
	ck_assert_int_eq(got->pid, want->pid);
	ck_assert_str_eq(got->cache_dir, want->cache_dir);
	ck_assert_int_eq(got->cache_dir_empty, want->cache_dir_empty);
	ck_assert_str_eq(got->status, want->status);
	ck_assert_int_eq(got->exit_code, want->exit_code);
	ck_assert_int_eq(got->signal, want->signal);
	ck_assert_int_eq(got->compile_ns, want->compile_ns);
	ck_assert_int_eq(got->tune_ns, want->tune_ns);
	ck_assert_int_eq(got->search_ns, want->search_ns);
	ck_assert_int_eq(got->compiles, want->compiles);
	ck_assert_int_eq(got->cache_hits, want->cache_hits);
	ck_assert_int_eq(got->benchmarks, want->benchmarks);
	ck_assert_int_eq(got->expects_work, want->expects_work);
	ck_assert_int_eq(got->cache_leak, want->cache_leak);
	ck_assert_str_eq(got->start_utc, want->start_utc);
	ck_assert_str_eq(got->end_utc, want->end_utc);
	ck_assert_int_eq(got->wall_ns, want->wall_ns);
	ck_assert_str_eq(got->stdout_log, want->stdout_log);
	ck_assert_str_eq(got->stderr_log, want->stderr_log);
	ck_assert_str_eq(got->argv_json, want->argv_json);
	ck_assert_str_eq(got->env_json, want->env_json);
	ck_assert_str_eq(got->message, want->message);
}

/* Create path with fill_meta and fill_plan. */
static struct rec *create_run(const char *path)
{
	struct rec_meta m;
	struct rec_plan plan[NPLAN];
	struct rec *r = NULL;
	fill_meta(&m);
	fill_plan(plan);
	ck_assert_int_eq(rec_create(path, &m, plan, NPLAN, &r), 0);
	ck_assert_ptr_nonnull(r);
	rec_meta_release(&m);
	return r;
}

/* Direct HDF5 access, to check rows the API does not read back. */
struct raw_sample {
	int32_t unit, cell;
	int64_t index, ns;
};

static size_t raw_samples(const char *path, struct raw_sample **out)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_int_ge(f, 0);
	hid_t d = H5Dopen2(f, "/samples", H5P_DEFAULT);
	ck_assert_int_ge(d, 0);
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct raw_sample));
	H5Tinsert(t, "unit", offsetof(struct raw_sample, unit), H5T_NATIVE_INT32);
	H5Tinsert(t, "cell", offsetof(struct raw_sample, cell), H5T_NATIVE_INT32);
	H5Tinsert(t, "index", offsetof(struct raw_sample, index), H5T_NATIVE_INT64);
	H5Tinsert(t, "ns", offsetof(struct raw_sample, ns), H5T_NATIVE_INT64);
	hid_t s = H5Dget_space(d);
	hssize_t n = H5Sget_simple_extent_npoints(s);
	*out = xcalloc(n ? (size_t)n : 1, sizeof(**out));
	if (n)
		ck_assert_int_ge(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out), 0);
	H5Sclose(s);
	H5Tclose(t);
	H5Dclose(d);
	H5Fclose(f);
	return (size_t)n;
}

/* Read one int64 column of a table. */
static size_t raw_column(const char *path, const char *table, const char *field, int64_t **out)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ck_assert_int_ge(f, 0);
	hid_t d = H5Dopen2(f, table, H5P_DEFAULT);
	ck_assert_int_ge(d, 0);
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(int64_t));
	H5Tinsert(t, field, 0, H5T_NATIVE_INT64);
	hid_t s = H5Dget_space(d);
	hssize_t n = H5Sget_simple_extent_npoints(s);
	*out = xcalloc(n ? (size_t)n : 1, sizeof(int64_t));
	if (n)
		ck_assert_int_ge(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out), 0);
	H5Sclose(s);
	H5Tclose(t);
	H5Dclose(d);
	H5Fclose(f);
	return (size_t)n;
}

static const char *const names_a[] = { "conv1 3x3", "gemm \"big\"", "resnet18 e2e" };
static const char *const names_b[] = { "pool", "resnet18 e2e", "conv1 3x3", "bias_relu" };

START_TEST(roundtrip_every_field)
{
	char *path = testutil_path("run.h5");
	struct rec *r = create_run(path);
	struct rec_unit_data u0, u1;
	make_unit(&u0, 4, 5, names_a, 3, 1001);
	make_unit(&u1, 2, 6, names_a, 3, 0); /* a unit without samples */
	ck_assert_int_eq(rec_append_unit(r, &u0), 0);
	ck_assert_int_eq(rec_append_unit(r, &u1), 0);
	ck_assert_int_eq(rec_close(r), 0);

	ck_assert_int_eq(rec_open(path, 0, &r), 0);
	struct rec_meta m, want;
	fill_meta(&want);
	ck_assert_int_eq(rec_read_meta(r, &m), 0);
	ck_assert_uint_eq(m.nkv, want.nkv);
	for (size_t k = 0; k < want.nkv; k++) { /* same keys, same order */
		ck_assert_str_eq(m.kv[k].key, want.kv[k].key);
		ck_assert_str_eq(m.kv[k].value, want.kv[k].value);
	}
	ck_assert_str_eq(rec_meta_get(&m, "status"), "running");
	ck_assert_ptr_null(rec_meta_get(&m, "no-such-key"));
	ck_assert_uint_eq(m.nfiles, 3);
	for (size_t k = 0; k < 3; k++) {
		ck_assert_str_eq(m.files[k].role, want.files[k].role);
		ck_assert_str_eq(m.files[k].path, want.files[k].path);
		ck_assert_str_eq(m.files[k].sha256, want.files[k].sha256);
		ck_assert_uint_eq(m.files[k].len, want.files[k].len);
		ck_assert(!memcmp(m.files[k].text, want.files[k].text, want.files[k].len));
		ck_assert_int_eq(m.files[k].text[m.files[k].len], '\0');
	}
	char hex[65];
	util_sha256_hex(text_experiment, sizeof(text_experiment) - 1, hex);
	ck_assert_str_eq(m.files[0].sha256, hex);
	rec_meta_release(&m);
	rec_meta_release(&want);

	struct rec_plan *plan, wplan[NPLAN];
	size_t n;
	fill_plan(wplan);
	ck_assert_int_eq(rec_read_plan(r, &plan, &n), 0);
	ck_assert_uint_eq(n, NPLAN);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(plan[i].id, wplan[i].id);
		ck_assert_str_eq(plan[i].mode, wplan[i].mode);
		ck_assert_int_eq(plan[i].repeat, wplan[i].repeat);
		ck_assert_int_eq(plan[i].block, wplan[i].block);
		ck_assert_int_eq(plan[i].position, wplan[i].position);
		ck_assert_int_eq(plan[i].warm, wplan[i].warm);
		ck_assert_int_eq(plan[i].warm_of, wplan[i].warm_of);
	}
	rec_plan_free(plan, n);

	struct rec_unit *units;
	ck_assert_int_eq(rec_read_units(r, &units, &n), 0);
	ck_assert_uint_eq(n, 2);
	check_unit(&units[0], &u0.unit); /* in written order, not id order */
	check_unit(&units[1], &u1.unit);
	rec_units_free(units, n);

	struct rec_cell *cells;
	ck_assert_int_eq(rec_read_cells(r, &cells, &n), 0);
	ck_assert_uint_eq(n, 3);
	for (size_t c = 0; c < 3; c++) {
		ck_assert_str_eq(cells[c].name, u0.cells[c].name);
		ck_assert_str_eq(cells[c].kind, u0.cells[c].kind);
		ck_assert_str_eq(cells[c].workload, u0.cells[c].workload);
		ck_assert_str_eq(cells[c].op, u0.cells[c].op);
		ck_assert_str_eq(cells[c].shape, u0.cells[c].shape);
		ck_assert_int_eq(cells[c].count, u0.cells[c].count);
		ck_assert_double_eq_tol(cells[c].flops, u0.cells[c].flops, 1e-6);
	}
	rec_cells_free(cells, n);

	int64_t ns;
	ck_assert_int_eq(rec_count_samples(r, &ns), 0);
	ck_assert_int_eq(ns, 1001);
	ck_assert_int_eq(rec_close(r), 0);

	struct raw_sample *s;
	ck_assert_uint_eq(raw_samples(path, &s), 1001);
	for (size_t i = 0; i < 1001; i++) {
		ck_assert_int_eq(s[i].unit, 0); /* row of /units */
		ck_assert_int_eq(s[i].cell, u0.sample_cell[i]);
		ck_assert_int_eq(s[i].index, u0.sample_index[i]);
		ck_assert_int_eq(s[i].ns, u0.sample_ns[i]);
	}
	free(s);
	int64_t *col;
	ck_assert_uint_eq(raw_column(path, "/units", "sample_first", &col), 2);
	ck_assert_int_eq(col[0], 0);
	ck_assert_int_eq(col[1], 1001);
	free(col);
	ck_assert_uint_eq(raw_column(path, "/units", "sample_count", &col), 2);
	ck_assert_int_eq(col[0], 1001);
	ck_assert_int_eq(col[1], 0);
	free(col);
	ck_assert_uint_eq(raw_column(path, "/trials", "unit", &col), 6);
	ck_assert_int_eq(col[2], 0);
	ck_assert_int_eq(col[3], 1);
	free(col);
	ck_assert_uint_eq(raw_column(path, "/trials", "bench_ns", &col), 6);
	ck_assert_int_eq(col[4], u1.trials[1].bench_ns);
	free(col);
	ck_assert_uint_eq(raw_column(path, "/measures", "warmup_n", &col), 6);
	ck_assert_int_eq(col[5], u1.measures[2].warmup_n);
	free(col);
	ck_assert_uint_eq(raw_column(path, "/choices", "cell", &col), 6);
	ck_assert_int_eq(col[4], 1);
	free(col);

	rec_unit_data_release(&u0);
	rec_unit_data_release(&u1);
	free(path);
}
END_TEST

START_TEST(cells_are_mapped_by_name)
{
	char *path = testutil_path("cells.h5");
	struct rec *r = create_run(path);
	struct rec_unit_data a, b;
	make_unit(&a, 0, 1, names_a, 3, 30);
	make_unit(&b, 1, 2, names_b, 4, 40);
	ck_assert_int_eq(rec_append_unit(r, &a), 0);
	ck_assert_int_eq(rec_append_unit(r, &b), 0);

	/* The run's cells: a's three, then b's two new names, in first-seen order. */
	struct rec_cell *cells;
	size_t n;
	ck_assert_int_eq(rec_read_cells(r, &cells, &n), 0);
	ck_assert_uint_eq(n, 5);
	const char *want[] = { "conv1 3x3", "gemm \"big\"", "resnet18 e2e", "pool", "bias_relu" };
	for (size_t c = 0; c < n; c++)
		ck_assert_str_eq(cells[c].name, want[c]);
	rec_cells_free(cells, n);
	ck_assert_int_eq(rec_close(r), 0);

	/* b's local cells 0..3 are run cells 3, 2, 0, 4. */
	const int64_t map_b[] = { 3, 2, 0, 4 };
	struct raw_sample *s;
	ck_assert_uint_eq(raw_samples(path, &s), 70);
	for (size_t i = 0; i < 30; i++)
		ck_assert_int_eq(s[i].cell, a.sample_cell[i]);
	for (size_t i = 0; i < 40; i++) {
		ck_assert_int_eq(s[30 + i].unit, 1);
		ck_assert_int_eq(s[30 + i].cell, map_b[b.sample_cell[i]]);
		ck_assert_int_eq(s[30 + i].ns, b.sample_ns[i]);
	}
	free(s);
	int64_t *col;
	ck_assert_uint_eq(raw_column(path, "/trials", "cell", &col), 6);
	for (size_t t = 0; t < 3; t++)
		ck_assert_int_eq(col[3 + t], map_b[b.trials[t].cell]);
	free(col);
	ck_assert_uint_eq(raw_column(path, "/measures", "cell", &col), 7);
	for (size_t c = 0; c < 4; c++)
		ck_assert_int_eq(col[3 + c], map_b[c]);
	free(col);
	rec_unit_data_release(&a);
	rec_unit_data_release(&b);
	free(path);
}
END_TEST

START_TEST(resume_appends_more)
{
	char *path = testutil_path("resume.h5");
	struct rec *r = create_run(path);
	struct rec_unit_data a, b;
	make_unit(&a, 3, 7, names_a, 3, 77);
	make_unit(&b, 5, 8, names_b, 4, 99);
	ck_assert_int_eq(rec_append_unit(r, &a), 0);
	ck_assert_int_eq(rec_close(r), 0);

	ck_assert_int_eq(rec_open(path, 1, &r), 0);
	struct rec_unit *units;
	size_t n;
	ck_assert_int_eq(rec_read_units(r, &units, &n), 0);
	ck_assert_uint_eq(n, 1);
	rec_units_free(units, n);
	ck_assert_int_eq(rec_append_unit(r, &b), 0);
	ck_assert_int_eq(rec_set_meta(r, "status", "complete"), 0);
	ck_assert_int_eq(rec_set_meta(r, "end_utc", "2024-06-11T13:00:01Z"), 0);
	ck_assert_int_eq(rec_set_meta(r, "new_key", "line 1\nline \"2\""), 0);
	ck_assert_int_eq(rec_close(r), 0);

	ck_assert_int_eq(rec_open(path, 0, &r), 0);
	ck_assert_int_eq(rec_read_units(r, &units, &n), 0);
	ck_assert_uint_eq(n, 2);
	check_unit(&units[0], &a.unit);
	check_unit(&units[1], &b.unit);
	rec_units_free(units, n);
	int64_t ns;
	ck_assert_int_eq(rec_count_samples(r, &ns), 0);
	ck_assert_int_eq(ns, 77 + 99);
	struct rec_meta m;
	ck_assert_int_eq(rec_read_meta(r, &m), 0);
	ck_assert_str_eq(rec_meta_get(&m, "status"), "complete");
	ck_assert_str_eq(rec_meta_get(&m, "end_utc"), "2024-06-11T13:00:01Z");
	ck_assert_str_eq(rec_meta_get(&m, "new_key"), "line 1\nline \"2\"");
	ck_assert_str_eq(m.kv[m.nkv - 1].key, "new_key");
	ck_assert_str_eq(m.kv[0].key, "harness_version");
	rec_meta_release(&m);
	/* A reader cannot write. */
	testutil_stderr_begin();
	ck_assert_int_eq(rec_append_unit(r, &a), -1);
	char *err = testutil_stderr_end();
	ck_assert_ptr_nonnull(strstr(err, "read-only"));
	free(err);
	ck_assert_int_eq(rec_close(r), 0);
	rec_unit_data_release(&a);
	rec_unit_data_release(&b);
	free(path);
}
END_TEST

START_TEST(null_strings_read_back_empty)
{
	char *path = testutil_path("null.h5");
	struct rec_meta m;
	rec_meta_init(&m);
	struct rec *r = NULL;
	ck_assert_int_eq(rec_create(path, &m, NULL, 0, &r), 0);
	struct rec_unit_data u;
	rec_unit_data_init(&u);
	u.unit.id = 0;
	u.unit.exit_code = -3;
	ck_assert_int_eq(rec_append_unit(r, &u), 0);
	ck_assert_int_eq(rec_close(r), 0);
	ck_assert_int_eq(rec_open(path, 0, &r), 0);
	struct rec_unit *units;
	size_t n;
	ck_assert_int_eq(rec_read_units(r, &units, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(units[0].mode, "");
	ck_assert_str_eq(units[0].message, "");
	ck_assert_int_eq(units[0].exit_code, -3);
	rec_units_free(units, n);
	struct rec_plan *plan;
	ck_assert_int_eq(rec_read_plan(r, &plan, &n), 0);
	ck_assert_uint_eq(n, 0);
	rec_plan_free(plan, n);
	ck_assert_int_eq(rec_read_meta(r, &m), 0);
	ck_assert_uint_eq(m.nkv, 0);
	ck_assert_uint_eq(m.nfiles, 0);
	rec_meta_release(&m);
	ck_assert_int_eq(rec_close(r), 0);
	ck_assert_int_eq(rec_close(NULL), 0);
	free(path);
}
END_TEST

/* Runs f(arg) with stderr captured; checks it fails and that the message names the file
 * and contains want. */
#define EXPECT_FAIL(call, path, want)                                             \
	do {                                                                      \
		testutil_stderr_begin();                                                   \
		ck_assert_int_eq((call), -1);                                     \
		char *err_ = testutil_stderr_end();                                        \
		char *q_ = xasprintf("harness: '%s': ", (path));                  \
		ck_assert_msg(strstr(err_, q_), "message '%s' lacks '%s'", err_, q_); \
		ck_assert_msg(strstr(err_, (want)), "message '%s' lacks '%s'", err_, (want)); \
		free(q_);                                                         \
		free(err_);                                                       \
	} while (0)

START_TEST(error_paths)
{
	struct rec *r = NULL;
	char *missing = testutil_path("missing.h5");
	EXPECT_FAIL(rec_open(missing, 0, &r), missing, "No such file");
	EXPECT_FAIL(rec_open(missing, 1, &r), missing, "No such file");
	ck_assert_ptr_null(r);

	char *text = testutil_path("notes.h5");
	ck_assert_int_eq(util_write_file(text, "not hdf5\n", 9, 0644), 0);
	EXPECT_FAIL(rec_open(text, 0, &r), text, "not an HDF5 file");
	EXPECT_FAIL(rec_open(text, 1, &r), text, "not an HDF5 file");

	/* An HDF5 file from elsewhere. */
	char *other = testutil_path("other.h5");
	hid_t f = H5Fcreate(other, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
	ck_assert_int_ge(f, 0);
	H5Fclose(f);
	EXPECT_FAIL(rec_open(other, 0, &r), other, "not a harness results file");

	/* Ours, with a version from the future. */
	char *future = testutil_path("future.h5");
	r = create_run(future);
	ck_assert_int_eq(rec_close(r), 0);
	f = H5Fopen(future, H5F_ACC_RDWR, H5P_DEFAULT);
	hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
	int three = 3;
	ck_assert_int_ge(H5Awrite(a, H5T_NATIVE_INT, &three), 0);
	H5Aclose(a);
	H5Fclose(f);
	EXPECT_FAIL(rec_open(future, 0, &r), future, "format version 3 is not supported");
	EXPECT_FAIL(rec_open(future, 1, &r), future, "format version 3 is not supported");

	/* rec_create never overwrites. */
	struct rec_meta m;
	rec_meta_init(&m);
	EXPECT_FAIL(rec_create(text, &m, NULL, 0, &r), text, "already exists");
	char *nodir = testutil_path("no/such/dir/run.h5");
	EXPECT_FAIL(rec_create(nodir, &m, NULL, 0, &r), nodir, "cannot create");

	/* A unit whose records name a cell it does not have is refused whole. */
	char *good = testutil_path("good.h5");
	ck_assert_int_eq(rec_create(good, &m, NULL, 0, &r), 0);
	struct rec_unit_data u;
	make_unit(&u, 0, 3, names_a, 3, 50);
	u.sample_cell[17] = 3;
	EXPECT_FAIL(rec_append_unit(r, &u), good, "sample 17 names cell 3 of 3");
	u.sample_cell[17] = 0;
	u.trials[1].cell = -1;
	EXPECT_FAIL(rec_append_unit(r, &u), good, "trial 1 names cell -1");
	u.trials[1].cell = 2;
	ck_assert_int_eq(rec_append_unit(r, &u), 0);
	int64_t ns;
	ck_assert_int_eq(rec_count_samples(r, &ns), 0);
	ck_assert_int_eq(ns, 50);
	/* A second writer is refused while the first holds the file. */
	struct rec *r2 = NULL;
	EXPECT_FAIL(rec_open(good, 1, &r2), good, "being written by another process");
	/* ... but a reader is welcome. */
	ck_assert_int_eq(rec_open(good, 0, &r2), 0);
	ck_assert_int_eq(rec_close(r2), 0);
	ck_assert_int_eq(rec_close(r), 0);
	rec_unit_data_release(&u);
	rec_meta_release(&m);
	free(missing);
	free(text);
	free(other);
	free(future);
	free(nodir);
	free(good);
}
END_TEST

/* Rows past the last unit (an append cut off after some tables were written) are trimmed
 * when the file is opened for writing, so they are never attributed to the next unit. */
START_TEST(trims_rows_of_a_cut_off_append)
{
	char *path = testutil_path("trim.h5");
	struct rec *r = create_run(path);
	struct rec_unit_data u;
	make_unit(&u, 0, 4, names_a, 3, 500);
	ck_assert_int_eq(rec_append_unit(r, &u), 0);
	ck_assert_int_eq(rec_close(r), 0);

	/* Forge the leftovers: 123 samples and 2 trials of the unit that would be row 1. */
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	ck_assert_int_ge(f, 0);
	const char *tables[] = { "/samples", "/trials" };
	const hsize_t extra[] = { 123, 2 };
	for (size_t k = 0; k < 2; k++) {
		hid_t d = H5Dopen2(f, tables[k], H5P_DEFAULT);
		hid_t s = H5Dget_space(d);
		hsize_t n0;
		H5Sget_simple_extent_dims(s, &n0, NULL);
		H5Sclose(s);
		hsize_t n1 = n0 + extra[k];
		ck_assert_int_ge(H5Dset_extent(d, &n1), 0);
		s = H5Dget_space(d);
		H5Sselect_hyperslab(s, H5S_SELECT_SET, &n0, NULL, &extra[k], NULL);
		int64_t ones[123];
		for (size_t i = 0; i < 123; i++)
			ones[i] = 1;
		hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(int64_t));
		H5Tinsert(t, "unit", 0, H5T_NATIVE_INT64);
		hid_t ms = H5Screate_simple(1, &extra[k], NULL);
		ck_assert_int_ge(H5Dwrite(d, t, ms, s, H5P_DEFAULT, ones), 0);
		H5Sclose(ms);
		H5Tclose(t);
		H5Sclose(s);
		H5Dclose(d);
	}
	H5Fclose(f);

	testutil_stderr_begin();
	ck_assert_int_eq(rec_open(path, 1, &r), 0);
	char *err = testutil_stderr_end();
	ck_assert_ptr_nonnull(strstr(err, "dropped 123 rows of /samples"));
	ck_assert_ptr_nonnull(strstr(err, "dropped 2 rows of /trials"));
	free(err);
	int64_t ns;
	ck_assert_int_eq(rec_count_samples(r, &ns), 0);
	ck_assert_int_eq(ns, 500);
	ck_assert_int_eq(rec_append_unit(r, &u), 0);
	ck_assert_int_eq(rec_close(r), 0);
	struct raw_sample *s;
	ck_assert_uint_eq(raw_samples(path, &s), 1000);
	for (size_t i = 500; i < 1000; i++) {
		ck_assert_int_eq(s[i].unit, 1);
		ck_assert_int_eq(s[i].ns, u.sample_ns[i - 500]);
	}
	free(s);
	int64_t *col;
	ck_assert_uint_eq(raw_column(path, "/trials", "unit", &col), 6);
	free(col);
	rec_unit_data_release(&u);
	free(path);
}
END_TEST

/* A writer killed with SIGKILL between units: the file opens, holds every appended unit,
 * and can be resumed.  While the writer lives, readers see every finished unit and a
 * second writer is refused. */
START_TEST(survives_sigkill_between_units)
{
	char *path = testutil_path("crash.h5");
	struct rec *r = create_run(path);
	ck_assert_int_eq(rec_close(r), 0);
	int sync[2];
	ck_assert_int_eq(pipe(sync), 0);

	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sync[0]);
		struct rec *w = NULL;
		if (rec_open(path, 1, &w) < 0)
			_exit(3);
		for (int k = 0; k < 5; k++) {
			struct rec_unit_data u;
			make_unit(&u, k, 10 + k, k % 2 ? names_b : names_a, k % 2 ? 4 : 3,
				  2000 + 100 * (size_t)k);
			if (rec_append_unit(w, &u) < 0)
				_exit(4);
			rec_unit_data_release(&u);
		}
		if (write(sync[1], "5", 1) != 1)
			_exit(5);
		pause(); /* holding the file open for writing, as a scheduler waits on a unit */
		_exit(6);
	}
	close(sync[1]);
	char c;
	ck_assert_int_eq(read(sync[0], &c, 1), 1);
	close(sync[0]);

	struct rec *r2 = NULL;
	EXPECT_FAIL(rec_open(path, 1, &r2), path, "being written by another process");
	ck_assert_int_eq(rec_open(path, 0, &r2), 0);
	struct rec_unit *units;
	size_t n;
	ck_assert_int_eq(rec_read_units(r2, &units, &n), 0);
	ck_assert_uint_eq(n, 5);
	rec_units_free(units, n);
	ck_assert_int_eq(rec_close(r2), 0);

	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

	ck_assert_int_eq(rec_open(path, 1, &r), 0);
	ck_assert_int_eq(rec_read_units(r, &units, &n), 0);
	ck_assert_uint_eq(n, 5);
	for (size_t i = 0; i < n; i++) {
		struct rec_unit_data want;
		make_unit(&want, (int64_t)i, 10 + (int)i, names_a, 3, 0);
		check_unit(&units[i], &want.unit);
		rec_unit_data_release(&want);
	}
	rec_units_free(units, n);
	int64_t ns;
	ck_assert_int_eq(rec_count_samples(r, &ns), 0);
	ck_assert_int_eq(ns, 2000 + 2100 + 2200 + 2300 + 2400);
	struct rec_unit_data u;
	make_unit(&u, 5, 15, names_a, 3, 10);
	ck_assert_int_eq(rec_append_unit(r, &u), 0);
	rec_unit_data_release(&u);
	ck_assert_int_eq(rec_read_units(r, &units, &n), 0);
	ck_assert_uint_eq(n, 6);
	rec_units_free(units, n);
	ck_assert_int_eq(rec_close(r), 0);

	/* A child that kills itself right after an append. */
	char *path2 = testutil_path("crash2.h5");
	r = create_run(path2);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (int k = 0; k < 3; k++) {
			struct rec_unit_data v;
			make_unit(&v, k, k, names_a, 3, 4096 + 7);
			if (rec_append_unit(r, &v) < 0)
				_exit(4);
			rec_unit_data_release(&v);
		}
		raise(SIGKILL);
		_exit(6);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* The parent's own handle is still the writer: rec_close must work too. */
	ck_assert_int_eq(rec_close(r), 0);
	ck_assert_int_eq(rec_open(path2, 0, &r), 0);
	ck_assert_int_eq(rec_count_samples(r, &ns), 0);
	ck_assert_int_eq(ns, 3 * (4096 + 7));
	ck_assert_int_eq(rec_close(r), 0);
	free(path2);
	free(path);
}
END_TEST

/* Run argv, returning its exit code; -1 when it could not be started. */
static int run_tool(const char *const *argv, struct sbuf *out)
{
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = argv;
	sp.env = (const char *const[]){ "LC_ALL=C", "PATH=/usr/bin:/bin", NULL };
	sp.inherit_stderr = 1;
	int rc = spawn_run(&sp, out, &st);
	spawn_release(&sp);
	return rc < 0 ? -1 : st.code;
}

/* The python side of file_reads_without_the_harness: exit 77 when h5py is missing. */
static const char py_check[] =
	"import sys\n"
	"try:\n"
	"    import h5py, numpy as np\n"
	"except ImportError:\n"
	"    sys.exit(77)\n"
	"f = h5py.File(sys.argv[1], 'r')\n"
	"assert int(f.attrs['harness_results']) == 1\n"
	"assert int(f.attrs['format_version']) == 2\n"
	"run = f['run']\n"
	"assert run.attrs['status'] == 'running', run.attrs['status']\n"
	"assert run.attrs['experiment_name'] == 'resnet \"small\"'\n"
	"assert run.attrs['unit_env'].endswith('caf\\u00e9\"}')\n"
	"exp = run['files/000']\n"
	"assert exp.attrs['role'] == 'experiment' and exp.attrs['path'] == 'experiments/resnet.toml'\n"
	"text = exp[()]\n"
	"import hashlib\n"
	"assert hashlib.sha256(text).hexdigest() == exp.attrs['sha256']\n"
	"assert run['files/002'][()] == b''\n"
	"s = f['samples'][:]\n"
	"assert s.dtype.names == ('unit', 'cell', 'index', 'ns', 'clock_mhz', 'throttle', 'launches'), s.dtype.names\n"
	"assert len(s) == 1001 + 40\n"
	"u = f['units'][:]\n"
	"assert len(u) == 2 and list(u['id']) == [4, 1]\n"
	"assert u['mode'][0].decode() == 'mode-5 \"q\"'\n"
	"assert u['compile_ns'][0] == 1234567896\n"
	"first, count = u['sample_first'][1], u['sample_count'][1]\n"
	"mine = s[first:first + count]\n"
	"assert (mine['unit'] == 1).all()\n"
	"cells = f['cells'][:]\n"
	"names = [c.decode() for c in cells['name']]\n"
	"assert names == ['conv1 3x3', 'gemm \"big\"', 'resnet18 e2e', 'pool', 'bias_relu'], names\n"
	"assert names[mine['cell'][0]] == 'pool'\n"
	"p = f['plan'][:]\n"
	"assert len(p) == 7 and p['warm_of'][3] == 2\n"
	"t = f['trials'][:]\n"
	"assert abs(t['median_ns'][0] - 12345.678) < 1e-9\n"
	"assert len(f['choices']) == 7 and len(f['measures']) == 7\n"
	"print('h5py ok', int(s['ns'].sum()))\n";

START_TEST(file_reads_without_the_harness)
{
	char *path = testutil_path("open.h5");
	struct rec *r = create_run(path);
	struct rec_unit_data a, b;
	make_unit(&a, 4, 5, names_a, 3, 1001);
	make_unit(&b, 1, 2, names_b, 4, 40);
	ck_assert_int_eq(rec_append_unit(r, &a), 0);
	ck_assert_int_eq(rec_append_unit(r, &b), 0);
	/* Still open for writing: outside readers must manage anyway. */

	int64_t sum = 0;
	for (size_t i = 0; i < a.nsamples; i++)
		sum += a.sample_ns[i];
	for (size_t i = 0; i < b.nsamples; i++)
		sum += b.sample_ns[i];

	struct sbuf out;
	sbuf_init(&out);
	if (access("/usr/bin/h5dump", X_OK) == 0) {
		int rc = run_tool((const char *const[]){ "/usr/bin/h5dump", "-H", path, NULL }, &out);
		ck_assert_int_eq(rc, 0);
		ck_assert_ptr_nonnull(strstr(out.buf, "DATASET \"samples\""));
		sbuf_reset(&out);
		rc = run_tool((const char *const[]){ "/usr/bin/h5dump", "-d", "/run/files/001",
						     path, NULL }, &out);
		ck_assert_int_eq(rc, 0);
		ck_assert_ptr_nonnull(strstr(out.buf, "beam < exhaustive"));
		sbuf_reset(&out);
	} else {
		fprintf(stderr, "test-recorder: no /usr/bin/h5dump; h5dump check skipped\n");
	}
	if (access("/usr/bin/python3", X_OK) == 0) {
		int rc = run_tool((const char *const[]){ "/usr/bin/python3", "-c", py_check, path,
						     NULL }, &out);
		if (rc == 77) {
			fprintf(stderr, "test-recorder: no h5py for /usr/bin/python3; check skipped\n");
		} else {
			ck_assert_int_eq(rc, 0);
			char *want = xasprintf("h5py ok %lld\n", (long long)sum);
			ck_assert_str_eq(out.buf, want);
			free(want);
		}
	} else {
		fprintf(stderr, "test-recorder: no /usr/bin/python3; h5py check skipped\n");
	}
	sbuf_release(&out);
	ck_assert_int_eq(rec_close(r), 0);
	rec_unit_data_release(&a);
	rec_unit_data_release(&b);
	free(path);
}
END_TEST

START_TEST(meta_helpers)
{
	struct rec_meta m;
	rec_meta_init(&m);
	ck_assert_ptr_null(rec_meta_get(&m, "a"));
	rec_meta_set(&m, "a", "1.25");
	rec_meta_set(&m, "b", "x");
	rec_meta_set(&m, "a", "7.5");
	ck_assert_uint_eq(m.nkv, 2);
	ck_assert_str_eq(rec_meta_get(&m, "a"), "7.5");
	ck_assert_str_eq(m.kv[0].key, "a");
	rec_meta_add_file(&m, "experiment", "e.toml", "abc", 3);
	ck_assert_str_eq(m.files[0].sha256,
			 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ck_assert_str_eq(m.files[0].text, "abc");
	ck_assert_uint_eq(m.files[0].len, 3);
	rec_meta_release(&m);
	ck_assert_uint_eq(m.nkv, 0);
	ck_assert_ptr_null(m.kv);
	struct rec_unit_data u;
	make_unit(&u, 1, 2, names_b, 4, 10);
	rec_unit_data_release(&u);
	ck_assert_ptr_null(u.cells);
	ck_assert_uint_eq(u.nsamples, 0);
	rec_unit_data_release(&u); /* releasing twice is harmless */
}
END_TEST

int main(void)
{
	testutil_name = "test-recorder";
	Suite *s = suite_create("recorder");
	TCase *tc = tcase_create("recorder");
	tcase_add_checked_fixture(tc, testutil_scratch_setup, testutil_scratch_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, meta_helpers);
	tcase_add_test(tc, roundtrip_every_field);
	tcase_add_test(tc, cells_are_mapped_by_name);
	tcase_add_test(tc, resume_appends_more);
	tcase_add_test(tc, null_strings_read_back_empty);
	tcase_add_test(tc, error_paths);
	tcase_add_test(tc, trims_rows_of_a_cut_off_append);
	tcase_add_test(tc, survives_sigkill_between_units);
	tcase_add_test(tc, file_reads_without_the_harness);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
