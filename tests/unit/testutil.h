/* testutil.h: what every Check unit test shares: a scratch directory per test (mkdtemp in
 * $TMPDIR, removed afterwards) and the suite runner that turns failures into the exit code. */
#ifndef HARNESS_TESTUTIL_H
#define HARNESS_TESTUTIL_H

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/util.h"

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
