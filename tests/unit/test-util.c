/* test-util.c: util.h helpers and stats/summary.c */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/util.h"
#include "stats/stats.h"
#include "tests/unit/testutil.h"

START_TEST(sha256_known_vectors)
{
	char hex[65];
	util_sha256_hex("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	util_sha256_hex("", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

START_TEST(parse_numbers)
{
	int64_t i;
	double d;
	uint64_t u;
	ck_assert_int_eq(parse_i64("-42", -100, 100, &i), 0);
	ck_assert_int_eq(i, -42);
	ck_assert_int_eq(parse_i64("101", -100, 100, &i), -1);
	ck_assert_int_eq(parse_i64("12x", 0, 100, &i), -1);
	ck_assert_int_eq(parse_i64("", 0, 100, &i), -1);
	ck_assert_int_eq(parse_i64("99999999999999999999", 0, INT64_MAX, &i), -1);
	ck_assert_int_eq(parse_u64("18446744073709551615", &u), 0);
	ck_assert(u == UINT64_MAX);
	ck_assert_int_eq(parse_u64("-1", &u), -1);
	ck_assert_int_eq(parse_double("2.385", 0, 10, &d), 0);
	ck_assert_double_eq_tol(d, 2.385, 1e-15);
	ck_assert_int_eq(parse_double("nan", -1e9, 1e9, &d), -1);
	ck_assert_int_eq(parse_double("inf", -1e9, 1e308, &d), -1);
	ck_assert_int_eq(parse_double("10.5", 0, 10, &d), -1);
}
END_TEST

START_TEST(sbuf_and_json)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (int k = 0; k < 1000; k++)
		sbuf_addf(&sb, "%d,", k);
	ck_assert_uint_eq(strlen(sb.buf), sb.len);
	ck_assert(!strncmp(sb.buf + sb.len - 4, "999,", 4));
	sbuf_reset(&sb);
	sbuf_add_json_string(&sb, "a\"b\\c\nd\te\x01");
	ck_assert_str_eq(sb.buf, "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
	char *s = sbuf_detach(&sb);
	free(s);
}
END_TEST

START_TEST(edit_distance)
{
	ck_assert_uint_eq(util_edit_distance("repeats", "repeets"), 1);
	ck_assert_uint_eq(util_edit_distance("seed", "sede"), 2);
	ck_assert_uint_eq(util_edit_distance("", "abc"), 3);
	ck_assert_uint_eq(util_edit_distance("kitten", "sitting"), 3);
}
END_TEST

/* The recorder's UTC form both ways; 1795727290 is Python's calendar.timegm of the same. */
START_TEST(utc_format_and_parse)
{
	char s[32], r[32];
	ck_assert_int_eq(util_utc_parse("2026-11-26T21:08:10Z"), 1795727290);
	util_utc_format(1795727290, s);
	ck_assert_str_eq(s, "2026-11-26T21:08:10Z");
	util_utc_now(s); /* now, back and forth */
	util_utc_format(util_utc_parse(s), r);
	ck_assert_str_eq(r, s);
	ck_assert_int_gt(util_utc_parse(s), 1795727290);
	ck_assert_int_eq(util_utc_parse("2026-11-26 21:08:10"), -1);
	ck_assert_int_eq(util_utc_parse("2026-11-26T21:08:10Z trailing"), -1);
	ck_assert_int_eq(util_utc_parse(NULL), -1);
}
END_TEST

START_TEST(files_and_dirs)
{
	char tmpl[] = "/tmp/test-util.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	char *deep = xasprintf("%s/a/b/c", tmpl);
	ck_assert_int_eq(util_mkdir_p(deep, 0700), 0);
	ck_assert_int_eq(util_dir_is_empty(deep), 1);
	char *f = xasprintf("%s/x.txt", deep);
	ck_assert_int_eq(util_write_file(f, "hello\0world", 11, 0600), 0);
	ck_assert_int_eq(util_dir_is_empty(deep), 0);
	char *data;
	size_t len;
	ck_assert_int_eq(util_read_file(f, &data, &len), 0);
	ck_assert_uint_eq(len, 11);
	ck_assert(!memcmp(data, "hello\0world", 11));
	free(data);
	ck_assert_int_eq(util_read_file("/nonexistent/harness", &data, &len), -1);
	/* a file's SHA-256, read in 64 KiB chunks: one of 200000 bytes spans four reads */
	char hex[65], want[65];
	size_t big = 200000;
	char *bytes = xmalloc(big);
	for (size_t i = 0; i < big; i++)
		bytes[i] = (char)(i * 131 % 251);
	ck_assert_int_eq(util_write_file(f, bytes, big, 0600), 0);
	util_sha256_hex(bytes, big, want);
	ck_assert_int_eq(util_sha256_file(f, hex), 0);
	ck_assert_str_eq(hex, want);
	free(bytes);
	errno = 0;
	ck_assert_int_eq(util_sha256_file("/nonexistent/harness", hex), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(util_sha256_file(deep, hex), -1); /* a directory */
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(util_rm_rf(tmpl), 0);
	ck_assert_int_eq(access(tmpl, F_OK), -1);
	free(deep);
	free(f);
}
END_TEST

/* Inputs are regular files of bounded size, opened without blocking: a FIFO with no writer,
 * a device, a directory, a /proc pseudo-file and a file over the limit are refused at once. */
START_TEST(read_input_refuses_non_files)
{
	char tmpl[] = "/tmp/test-util.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	char *fifo = xasprintf("%s/fifo", tmpl);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	char *data = NULL;
	size_t len = 0;
	ck_assert_int_eq(util_read_input(fifo, UTIL_INPUT_MAX, &data, &len), -1); /* no hang */
	ck_assert_int_eq(util_read_input("/dev/zero", UTIL_INPUT_MAX, &data, &len), -1);
	ck_assert_int_eq(util_read_input(tmpl, UTIL_INPUT_MAX, &data, &len), -1);
	ck_assert_int_eq(util_read_input("/proc/self/environ", UTIL_INPUT_MAX, &data, &len), -1);
	char *f = xasprintf("%s/big", tmpl);
	ck_assert_int_eq(util_write_file(f, "0123456789", 10, 0600), 0);
	ck_assert_int_eq(util_read_input(f, 9, &data, &len), -1);
	ck_assert_ptr_null(data);
	ck_assert_int_eq(util_read_input(f, 10, &data, &len), 0);
	ck_assert_uint_eq(len, 10);
	ck_assert_str_eq(data, "0123456789");
	free(data);
	ck_assert_int_eq(util_rm_rf(tmpl), 0);
	free(fifo);
	free(f);
}
END_TEST

/* UTF-8 validation against RFC 3629's table: overlong forms, surrogates, code points above
 * U+10FFFF and truncated sequences are refused at the offset of their first byte. */
START_TEST(utf8_validation)
{
	size_t bad = 99;
	ck_assert(util_utf8_valid("plain ascii", 11, &bad));
	ck_assert(util_utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, &bad));
	ck_assert(!util_utf8_valid("ab\xc0\xaf", 4, &bad)); /* overlong '/' */
	ck_assert_uint_eq(bad, 2);
	ck_assert(!util_utf8_valid("x\xed\xa0\x80", 4, &bad)); /* U+D800, a surrogate */
	ck_assert_uint_eq(bad, 1);
	ck_assert(!util_utf8_valid("\xf4\x90\x80\x80", 4, &bad)); /* above U+10FFFF */
	ck_assert_uint_eq(bad, 0);
	ck_assert(!util_utf8_valid("abc\xe2\x82", 5, &bad)); /* truncated */
	ck_assert_uint_eq(bad, 3);
	ck_assert(!util_utf8_valid("\xff", 1, &bad));
	ck_assert(!util_utf8_valid("a\x80", 2, &bad)); /* a lone continuation byte */
	ck_assert_uint_eq(bad, 1);
	ck_assert_uint_eq(util_utf8_column("caf\xc3\xa9,\xff", 6), 6);
}
END_TEST

/* Writers repair instead of dropping: each byte that starts no valid sequence becomes
 * U+FFFD, valid text around it is kept, valid strings come back as NULL (use as is). */
START_TEST(utf8_sanitize)
{
	ck_assert_ptr_null(util_utf8_sanitize("caf\xc3\xa9"));
	ck_assert_ptr_null(util_utf8_sanitize(""));
	char *t = util_utf8_sanitize("be\xffm");
	ck_assert_str_eq(t, "be\xef\xbf\xbdm");
	free(t);
	t = util_utf8_sanitize("\xc0\xaf/\xc3\xa9\xe2\x82"); /* overlong, valid, truncated */
	ck_assert_str_eq(t, "\xef\xbf\xbd\xef\xbf\xbd/\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
	ck_assert(util_utf8_valid(t, strlen(t), NULL));
	free(t);
}
END_TEST

/* Durations convert with saturation: 1e10 s (issue 9's recipe) must not wrap negative. */
START_TEST(seconds_saturate)
{
	ck_assert_int_eq(util_s_to_ns(1.5), 1500000000);
	ck_assert_int_eq(util_s_to_ns(0), 0);
	ck_assert_int_eq(util_s_to_ns(-3), 0);
	ck_assert_int_eq(util_s_to_ns(NAN), 0);
	ck_assert_int_eq(util_s_to_ns(1e10), INT64_MAX);
	ck_assert_int_eq(util_s_to_ns(INFINITY), INT64_MAX);
	ck_assert(util_s_to_ns(9.2e9) > 0);
}
END_TEST

/* A clock plus an estimate saturates (issue 51, finding 5: an estimate near INT64_MAX
 * wrapped negative, and every unit "fit" --max-time). */
START_TEST(add_saturates)
{
	ck_assert_int_eq(util_add_sat(1500000000, 2385), 1500002385);
	ck_assert_int_eq(util_add_sat(-7, 3), -4);
	ck_assert_int_eq(util_add_sat(INT64_MAX - 5, 6), INT64_MAX);
	ck_assert_int_eq(util_add_sat(INT64_MAX, INT64_MAX), INT64_MAX);
	ck_assert_int_eq(util_add_sat((int64_t)1 << 62, (int64_t)1 << 62), INT64_MAX);
	ck_assert_int_eq(util_add_sat(INT64_MIN + 2, -3), INT64_MIN);
	ck_assert_int_eq(util_add_sat(INT64_MAX, INT64_MIN), -1);
}
END_TEST

/* Quartiles: linear interpolation (Hyndman-Fan 7), the values numpy.percentile and R's
 * quantile(type = 7) give for these inputs. */
START_TEST(summary_quartiles)
{
	double x[] = { 7.1, 2.385, 9.75, 3.3, 4.0 };
	double w[5];
	struct stats_summary s;
	stats_summarize(x, 1, 5, w, &s);
	ck_assert_double_eq_tol(s.median, 4.0, 1e-12);
	ck_assert_double_eq_tol(s.q1, 3.3, 1e-12);
	ck_assert_double_eq_tol(s.q3, 7.1, 1e-12);
	ck_assert_double_eq_tol(s.min, 2.385, 1e-12);
	ck_assert_double_eq_tol(s.max, 9.75, 1e-12);
	double y[] = { 1.5, 0, 8.125, 0, 2.25, 0, 3.0, 0 }; /* stride 2 */
	stats_summarize(y, 2, 4, w, &s);
	ck_assert_double_eq_tol(s.median, 2.625, 1e-12);
	ck_assert_double_eq_tol(s.q1, 2.0625, 1e-12);
	ck_assert_double_eq_tol(s.q3, 4.28125, 1e-12);
	ck_assert_double_eq_tol(s.iqr, 4.28125 - 2.0625, 1e-12);
	/* the input is untouched */
	ck_assert_double_eq(x[0], 7.1);
	/* standard error of the median: 1.2533 * (IQR/1.349) / sqrt(n) / median */
	double rel = stats_median_rel_se(&s);
	ck_assert_double_eq_tol(rel, 1.2533 * (2.21875 / 1.349) / 2.0 / 2.625, 1e-12);
	stats_summarize(x, 1, 0, w, &s);
	ck_assert(isnan(s.median));
	ck_assert(isnan(stats_median_rel_se(&s)));
}
END_TEST

/* Per-cell medians of one unit: samples bucketed by cell, out-of-range cells ignored. */
START_TEST(cell_medians)
{
	const int64_t cell[] = { 2, 0, 2, 0, 0, 7, 2, 2, -1 };
	const int64_t ns[] = { 9101, 2385, 9133, 2411, 2390, 1, 9077, 9200, 5 };
	double med[4];
	stats_cell_medians(cell, ns, 9, 4, med);
	ck_assert_double_eq_tol(med[0], 2390.0, 1e-9);          /* 2385 2390 2411 */
	ck_assert_double_eq_tol(med[2], (9101.0 + 9133.0) / 2, 1e-9); /* 9077 9101 9133 9200 */
	ck_assert(isnan(med[1]) && isnan(med[3]));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");
	tcase_add_test(tc, sha256_known_vectors);
	tcase_add_test(tc, parse_numbers);
	tcase_add_test(tc, sbuf_and_json);
	tcase_add_test(tc, edit_distance);
	tcase_add_test(tc, utc_format_and_parse);
	tcase_add_test(tc, files_and_dirs);
	tcase_add_test(tc, read_input_refuses_non_files);
	tcase_add_test(tc, utf8_validation);
	tcase_add_test(tc, utf8_sanitize);
	tcase_add_test(tc, seconds_saturate);
	tcase_add_test(tc, add_saturates);
	tcase_add_test(tc, summary_quartiles);
	tcase_add_test(tc, cell_medians);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
