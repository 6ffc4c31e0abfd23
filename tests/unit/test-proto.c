/* test-proto.c: the unit record protocol: what the worker writes, the scheduler reads back
 * exactly; every malformed stream is a protocol error naming the line */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/record/proto.h"
#include "harness/base/util.h"
#include "tests/unit/testutil.h"

/* Write records with the writer side into a temporary file, return its bytes. */
static char *written(void (*fill)(struct proto_out *), size_t *len)
{
	char path[] = "/tmp/test-proto.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	struct proto_out o;
	ck_assert_int_eq(proto_out_open(&o, dup(fd)), 0);
	fill(&o);
	ck_assert_int_eq(proto_out_close(&o), 0);
	close(fd);
	char *data;
	ck_assert_int_eq(util_read_file(path, &data, len), 0);
	unlink(path);
	return data;
}

static void fill_full(struct proto_out *o)
{
	struct rec_cell c0 = { "resnet18/conv2d:c=64", "op", "resnet18", "conv2d", "c=64,h=16", 3, 2.385e7 };
	struct rec_cell c1 = { "resnet18/e2e", "e2e", "resnet18", "e2e", "batch=1,resolution=32", 1, 0 };
	ck_assert_int_eq(proto_hello(o, "exhaustive", 17, "cpu"), 0);
	ck_assert_int_eq(proto_info(o, "compiler=cc \"quoted\"\nthreads=1\n"), 0);
	ck_assert_int_eq(proto_cell(o, 0, &c0), 0);
	ck_assert_int_eq(proto_cell(o, 1, &c1), 0);
	struct rec_trial t = { .cell = 0, .config = "BM=32,BN=64", .status = "ok", .cache_hit = 1,
			       .compile_ns = 0, .nsamples = 5, .median_ns = 12345.5,
			       .min_ns = 12001, .max_ns = 13999, .bench_ns = 98765 };
	struct sample ts[5] = { SAMPLE_INIT, SAMPLE_INIT, SAMPLE_INIT, SAMPLE_INIT, SAMPLE_INIT };
	for (int i = 0; i < 5; i++)
		ts[i].ns = 12001 + 499 * i;
	ts[2].clock_mhz = 1980.5; /* one sample with a clock reading: the column appears */
	ck_assert_int_eq(proto_trial(o, &t, ts, 5), 0);
	struct rec_trial t2 = { .cell = 0, .config = "BM=128,BN=64", .status = "incorrect",
				.compile_ns = 187654321, .median_ns = NAN, .min_ns = NAN, .max_ns = NAN };
	ck_assert_int_eq(proto_trial(o, &t2, NULL, 0), 0);
	struct rec_space sp = { .cell = 0, .grid = 6, .nvalid = 2 };
	struct rec_space_value sv[3] = { { .field = 0, .name = "A", .value = 1 },
					 { .field = 0, .name = "A", .value = 2 },
					 { .field = 1, .name = "B", .value = 10 } };
	struct rec_space_vendor vd[2] = { { .candidate = 0, .config = "vendor:algo=6" },
					  { .candidate = 1, .config = "vendor:algo=11" } };
	/* a point alone, and a run of three points for one reason */
	struct rec_space_invalid inv[2] = { { .point = 5, .why = "A=3 with B=20", .count = 1 },
					    { .point = 1, .why = "B over 10", .count = 3 } };
	ck_assert_int_eq(proto_space(o, &sp, sv, 3, vd, 2, inv, 2), 0);
	struct rec_choice ch = { 0, "BM=32,BN=64", "tuned" };
	ck_assert_int_eq(proto_choice(o, &ch), 0);
	static struct sample ns[10000];
	for (int i = 0; i < 10000; i++) {
		ns[i] = (struct sample)SAMPLE_INIT;
		ns[i].ns = 1000003 + 7919 * i;
	}
	ns[1].throttle = 1;
	ns[1].launches = 10;
	ns[1].clock_reasons = 0x4 | 0x8; /* sw power cap and hw slowdown */
	ns[2].clock_reasons = 0;
	ck_assert_int_eq(proto_samples(o, 0, 0, ns, 10000), 0); /* spans 3 lines */
	ck_assert_int_eq(proto_samples(o, 1, 0, ns, 3), 0);
	struct rec_measure m = { 0, 10000, "max-samples", 3, 4567, 0.0123 };
	ck_assert_int_eq(proto_measure(o, &m), 0);
	struct rec_unit u = { .compile_ns = 11, .tune_ns = 22, .search_ns = 33, .compiles = 4,
			      .cache_hits = 5, .benchmarks = 6, .expects_work = 1 };
	ck_assert_int_eq(proto_setup(o, &u), 0);
	ck_assert_int_eq(proto_done(o, "ok", ""), 0);
}

static void check_full(struct rec_unit_data *u, struct proto_in *in)
{
	ck_assert_ptr_null(in->error);
	ck_assert(in->saw_hello && in->saw_done);
	ck_assert_str_eq(in->done_status, "ok");
	ck_assert_str_eq(u->info, "compiler=cc \"quoted\"\nthreads=1\n");
	ck_assert_uint_eq(u->ncells, 2);
	ck_assert_str_eq(u->cells[0].name, "resnet18/conv2d:c=64");
	ck_assert_int_eq(u->cells[0].count, 3);
	ck_assert_double_eq_tol(u->cells[0].flops, 2.385e7, 1e-3);
	ck_assert_str_eq(u->cells[1].kind, "e2e");
	ck_assert_uint_eq(u->ntrials, 2);
	ck_assert_str_eq(u->trials[0].config, "BM=32,BN=64");
	ck_assert_int_eq(u->trials[0].cache_hit, 1);
	ck_assert_double_eq_tol(u->trials[0].median_ns, 12345.5, 1e-9);
	ck_assert(isnan(u->trials[1].median_ns));
	ck_assert_str_eq(u->trials[1].status, "incorrect");
	ck_assert_int_eq(u->trials[1].compile_ns, 187654321);
	ck_assert_uint_eq(u->nchoices, 1);
	ck_assert_str_eq(u->choices[0].reason, "tuned");
	ck_assert_uint_eq(u->nsamples, 10003);
	ck_assert_int_eq(u->sample_ns[9999], 1000003 + 7919 * 9999);
	ck_assert_int_eq(u->sample_index[9999], 9999);
	ck_assert_int_eq(u->sample_cell[10001], 1);
	ck_assert_int_eq(u->sample_index[10002], 2);
	ck_assert_uint_eq(u->nmeasures, 1);
	ck_assert_str_eq(u->measures[0].stop, "max-samples");
	ck_assert_double_eq_tol(u->measures[0].rel_precision, 0.0123, 1e-12);
	ck_assert_int_eq(u->unit.benchmarks, 6);
	ck_assert_int_eq(u->unit.expects_work, 1);
	/* protocol 2: trial samples, the optional sample columns, the space */
	ck_assert_uint_eq(u->ntsamples, 5);
	ck_assert_int_eq(u->tsamples[4].trial, 0);
	ck_assert_int_eq(u->tsamples[4].ns, 12001 + 499 * 4);
	ck_assert_double_eq_tol(u->tsamples[2].clock_mhz, 1980.5, 1e-9);
	ck_assert(isnan(u->tsamples[1].clock_mhz));
	ck_assert_int_eq(u->tsamples[1].throttle, -1);
	ck_assert_int_eq(u->tsamples[1].launches, 1);
	ck_assert_ptr_null(u->sample_clock_mhz);
	ck_assert_ptr_nonnull(u->sample_throttle);
	ck_assert_ptr_nonnull(u->sample_launches);
	ck_assert_int_eq(u->sample_throttle[1], 1);
	ck_assert_int_eq(u->sample_launches[1], 10);
	ck_assert_int_eq(u->sample_throttle[2], -1);
	ck_assert_int_eq(u->sample_launches[10000], 1);
	ck_assert_int_eq(u->sample_launches[10001], 10);
	ck_assert_ptr_nonnull(u->sample_clock_reasons);
	ck_assert_int_eq(u->sample_clock_reasons[0], -1);
	ck_assert_int_eq(u->sample_clock_reasons[1], 0xc);
	ck_assert_int_eq(u->sample_clock_reasons[2], 0);
	ck_assert_int_eq(u->sample_clock_reasons[10001], 0xc);
	ck_assert_int_eq(u->tsamples[1].clock_reasons, -1);
	ck_assert_uint_eq(u->nspaces, 1);
	ck_assert_int_eq(u->spaces[0].grid, 6);
	ck_assert_int_eq(u->spaces[0].nvalid, 2);
	ck_assert_uint_eq(u->nsvalues, 3);
	ck_assert_str_eq(u->svalues[2].name, "B");
	ck_assert_int_eq(u->svalues[2].field, 1);
	ck_assert_uint_eq(u->nsvendors, 2);
	ck_assert_str_eq(u->svendors[1].config, "vendor:algo=11");
	ck_assert_uint_eq(u->nsinvalid, 2);
	ck_assert_int_eq(u->sinvalid[0].point, 5);
	ck_assert_int_eq(u->sinvalid[0].count, 1);
	ck_assert_str_eq(u->sinvalid[0].why, "A=3 with B=20");
	ck_assert_int_eq(u->sinvalid[1].point, 1);
	ck_assert_int_eq(u->sinvalid[1].count, 3);
	ck_assert_str_eq(u->sinvalid[1].why, "B over 10");
}

START_TEST(round_trip_whole)
{
	size_t len;
	char *data = written(fill_full, &len);
	struct rec_unit_data u;
	rec_unit_data_init(&u);
	struct proto_in in;
	proto_in_init(&in, &u);
	ck_assert_int_eq(proto_in_feed(&in, data, len), 0);
	ck_assert_int_eq(proto_in_end(&in), 0);
	check_full(&u, &in);
	proto_in_release(&in);
	rec_unit_data_release(&u);
	free(data);
}
END_TEST

START_TEST(round_trip_byte_by_byte)
{
	size_t len;
	char *data = written(fill_full, &len);
	struct rec_unit_data u;
	rec_unit_data_init(&u);
	struct proto_in in;
	proto_in_init(&in, &u);
	/* odd-sized pieces, as a pipe may deliver them */
	for (size_t at = 0; at < len;) {
		size_t n = (at * 7 + 13) % 977 + 1;
		if (n > len - at)
			n = len - at;
		ck_assert_int_eq(proto_in_feed(&in, data + at, n), 0);
		at += n;
	}
	ck_assert_int_eq(proto_in_end(&in), 0);
	check_full(&u, &in);
	proto_in_release(&in);
	rec_unit_data_release(&u);
	free(data);
}
END_TEST

/* Each malformed stream, and the error it must give. */
static const struct {
	const char *stream;
	const char *error;
} bad[] = {
	{ "garbage\n", "record line 1: not JSON" },
	{ "{\"type\":\"cell\"}\n", "record line 1: the first record must be 'hello'" },
	{ "{\"type\":\"hello\",\"protocol\":3,\"pid\":1}\n", "record line 1: protocol version 3 is not one of 1 to 2" },
	{ "{\"type\":\"hello\",\"protocol\":2,\"pid\":1}\n{\"type\":\"cell\",\"id\":0,\"name\":\"a\",\"kind\":\"op\",\"workload\":\"w\",\"op\":\"o\",\"shape\":\"s\",\"count\":1,\"flops\":0}\n{\"type\":\"samples\",\"cell\":0,\"first\":0,\"ns\":[1,2],\"launches\":[1]}\n",
	  "record line 3: 'launches' must be an array as long as 'ns' (2)" },
	{ "{\"type\":\"hello\",\"protocol\":2,\"pid\":1}\n{\"type\":\"cell\",\"id\":0,\"name\":\"a\",\"kind\":\"op\",\"workload\":\"w\",\"op\":\"o\",\"shape\":\"s\",\"count\":1,\"flops\":0}\n{\"type\":\"samples\",\"cell\":0,\"first\":0,\"ns\":[1],\"throttle\":[2]}\n",
	  "record line 3: 'throttle'[0] must be -1, 0 or 1" },
	{ "{\"type\":\"hello\",\"protocol\":2,\"pid\":1}\n{\"type\":\"cell\",\"id\":0,\"name\":\"a\",\"kind\":\"op\",\"workload\":\"w\",\"op\":\"o\",\"shape\":\"s\",\"count\":1,\"flops\":0}\n{\"type\":\"samples\",\"cell\":0,\"first\":0,\"ns\":[1],\"clock_reasons\":[-2]}\n",
	  "record line 3: 'clock_reasons'[0] must be a bitmask (an integer >= 0) or -1" },
	{ "{\"type\":\"hello\",\"protocol\":1,\"pid\":1}\n{\"type\":\"bogus\"}\n",
	  "record line 2: unknown record type 'bogus'" },
	{ "{\"type\":\"hello\",\"protocol\":1,\"pid\":1}\n{\"type\":\"samples\",\"cell\":0,\"first\":0,\"ns\":[1]}\n",
	  "record line 2: cell 0 was not declared" },
	{ "{\"type\":\"hello\",\"protocol\":1,\"pid\":1}\n"
	  "{\"type\":\"cell\",\"id\":0,\"name\":\"a\",\"kind\":\"op\",\"workload\":\"w\",\"op\":\"o\",\"shape\":\"s\",\"count\":1,\"flops\":0}\n"
	  "{\"type\":\"samples\",\"cell\":0,\"first\":0,\"ns\":[1,-5]}\n",
	  "record line 3: sample 1 of cell 0 is not a non-negative integer" },
	{ "{\"type\":\"hello\",\"protocol\":1,\"pid\":1}\n"
	  "{\"type\":\"cell\",\"id\":0,\"name\":\"a\",\"kind\":\"xx\",\"workload\":\"w\",\"op\":\"o\",\"shape\":\"s\",\"count\":1,\"flops\":0}\n",
	  "record line 2: cell kind 'xx' must be 'op' or 'e2e'" },
	{ "{\"type\":\"hello\",\"protocol\":1,\"pid\":1}\n{\"type\":\"done\",\"status\":\"ok\",\"message\":\"\"}\n{\"type\":\"info\",\"text\":\"x\"}\n",
	  "record line 3: record 'info' after 'done'" },
	{ "{\"type\":\"hello\",\"protocol\":1,\"pid\":1}\n{\"type\":\"setup\",\"compile_ns\":\"x\"}\n",
	  "record line 2: 'compile_ns' must be an integer" },
	/* a run of excluded points must lie in the grid and count one point or more */
	{ "{\"type\":\"hello\",\"protocol\":2,\"pid\":1}\n"
	  "{\"type\":\"cell\",\"id\":0,\"name\":\"a\",\"kind\":\"op\",\"workload\":\"w\",\"op\":\"o\",\"shape\":\"s\",\"count\":1,\"flops\":0}\n"
	  "{\"type\":\"space\",\"cell\":0,\"grid\":6,\"valid\":2,\"fields\":[],\"vendors\":[],\"invalid\":[[4,\"x\",3]]}\n",
	  "record line 3: space invalid point 0: points 4 to 6 are not in the grid of 6" },
	{ "{\"type\":\"hello\",\"protocol\":2,\"pid\":1}\n"
	  "{\"type\":\"cell\",\"id\":0,\"name\":\"a\",\"kind\":\"op\",\"workload\":\"w\",\"op\":\"o\",\"shape\":\"s\",\"count\":1,\"flops\":0}\n"
	  "{\"type\":\"space\",\"cell\":0,\"grid\":6,\"valid\":2,\"fields\":[],\"vendors\":[],\"invalid\":[[1,\"x\",0]]}\n",
	  "record line 3: space invalid point 0: its count 0 is not 1 or more" },
	{ "{\"type\":\"hello\",\"protocol\":2,\"pid\":1}\n"
	  "{\"type\":\"cell\",\"id\":0,\"name\":\"a\",\"kind\":\"op\",\"workload\":\"w\",\"op\":\"o\",\"shape\":\"s\",\"count\":1,\"flops\":0}\n"
	  "{\"type\":\"space\",\"cell\":0,\"grid\":6,\"valid\":2,\"fields\":[],\"vendors\":[],\"invalid\":[[1,\"x\",\"2\"]]}\n",
	  "record line 3: space invalid point 0 must be [point, \"why\"] or [point, \"why\", count]" },
};

START_TEST(malformed_streams)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct rec_unit_data u;
		rec_unit_data_init(&u);
		struct proto_in in;
		proto_in_init(&in, &u);
		int r = proto_in_feed(&in, bad[i].stream, strlen(bad[i].stream));
		if (!r)
			r = proto_in_end(&in);
		ck_assert_msg(r == -1, "stream %zu accepted", i);
		ck_assert_ptr_nonnull(in.error);
		ck_assert_msg(!strncmp(in.error, bad[i].error, strlen(bad[i].error)),
			      "stream %zu: got '%s', wanted '%s'", i, in.error, bad[i].error);
		proto_in_release(&in);
		rec_unit_data_release(&u);
	}
}
END_TEST

START_TEST(truncated_stream)
{
	struct rec_unit_data u;
	rec_unit_data_init(&u);
	struct proto_in in;
	proto_in_init(&in, &u);
	const char *s = "{\"type\":\"hello\",\"protocol\":1,\"pid\":1}\n{\"type\":\"inf";
	ck_assert_int_eq(proto_in_feed(&in, s, strlen(s)), 0);
	ck_assert_int_eq(proto_in_end(&in), -1);
	ck_assert_str_eq(in.error, "record line 1: the stream ended inside a record");
	proto_in_release(&in);
	rec_unit_data_release(&u);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("proto");
	tcase_add_test(tc, round_trip_whole);
	tcase_add_test(tc, round_trip_byte_by_byte);
	tcase_add_test(tc, malformed_streams);
	tcase_add_test(tc, truncated_stream);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
