/* testutil.h: what every Check unit test shares: a scratch directory per test (mkdtemp in
 * $TMPDIR, removed afterwards) and the suite runner that turns failures into the exit code. */
#ifndef HARNESS_TESTUTIL_H
#define HARNESS_TESTUTIL_H

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness/base/util.h"

/* The current test's scratch directory (set by testutil_scratch_setup). */
static char testutil_scratch[PATH_MAX];
static const char *testutil_name = "test";

/* Checked fixture: Check forks each test, so this runs in the test's own process. */
static inline void testutil_scratch_setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(testutil_scratch, sizeof(testutil_scratch), "%s/%s.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp", testutil_name);
	ck_assert_ptr_nonnull(mkdtemp(testutil_scratch));
}

static inline void testutil_scratch_teardown(void)
{
	util_rm_rf(testutil_scratch);
}

/* A heap path inside the scratch directory; the caller frees it. */
static inline char *testutil_path(const char *name)
{
	return xasprintf("%s/%s", testutil_scratch, name);
}

/* Our stderr goes to a file between testutil_stderr_begin() and testutil_stderr_end(), so
 * messages can be checked.  testutil_stderr_end() returns what was written (heap). */
static int testutil_saved_stderr = -1;
static char *testutil_stderr_file;

static inline void testutil_stderr_begin(void)
{
	free(testutil_stderr_file);
	testutil_stderr_file = testutil_path("stderr.txt");
	fflush(stderr);
	testutil_saved_stderr = dup(2);
	int fd = open(testutil_stderr_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	dup2(fd, 2);
	close(fd);
}

static inline char *testutil_stderr_end(void)
{
	fflush(stderr);
	dup2(testutil_saved_stderr, 2);
	close(testutil_saved_stderr);
	char *data;
	size_t len;
	ck_assert_int_eq(util_read_file(testutil_stderr_file, &data, &len), 0);
	free(testutil_stderr_file);
	testutil_stderr_file = NULL;
	return data;
}

/* Run the suite (freed here); the exit status is the verdict. */
static inline int testutil_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
