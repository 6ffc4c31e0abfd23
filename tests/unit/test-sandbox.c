/* test-sandbox.c: unit tests for sandbox.h through spawn.h: a sandboxed child's status is
 * its program's (exit code, a signal it sends itself, a signal sent to it), what held is
 * reported, and each step that held does what it says.  The steps the kernel grants
 * differ by machine (a chroot, a container, an unprivileged user): each check is made
 * where its step held, and the report must agree with what the child saw. */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/base/sandbox.h"
#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "tests/unit/testutil.h"

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const char *const sh_env[] = { "PATH=/usr/bin:/bin", NULL };

/* Run sh -c script sandboxed in protect (writable: protect/w and protect/s), as the scheduler
 * does (its own group, dies with us); *sb gets what held.  Returns its status. */
static struct spawn_status run_in(struct sandbox *sb, const char *script, int term_after_ms)
{
	char *protect = testutil_path("p"), *w = testutil_path("p/w"), *sh = testutil_path("p/s");
	mkdir(protect, 0755);
	mkdir(w, 0700);
	mkdir(sh, 0700);
	memset(sb, 0, sizeof(*sb));
	sb->protect = protect;
	sb->writable = w;
	sb->shared = sh;
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sh", "-c", script);
	sp.env = sh_env;
	sp.dir = w;
	sp.new_pgroup = 1;
	sp.die_with_parent = 1;
	sp.note_sched = 1;
	sp.sandbox = sb;
	ck_assert_int_eq(spawn_start(&sp), 0);
	if (term_after_ms) {
		usleep((useconds_t)term_after_ms * 1000);
		ck_assert_int_eq(spawn_kill_group(&sp, SIGTERM), 0);
	}
	ck_assert_int_eq(spawn_wait(&sp, &st), 0);
	spawn_kill_group(&sp, SIGKILL);
	spawn_release(&sp);
	free(protect);
	free(w);
	free(sh);
	return st;
}

static int held(const struct sandbox *sb, int step)
{
	return (sb->held & (1u << step)) != 0;
}

START_TEST(test_status_is_the_programs)
{
	struct sandbox sb;
	struct spawn_status st = run_in(&sb, "exit 3", 0);
	ck_assert(st.exited && st.code == 3);
	/* a signal it sends itself kills it, as outside: its namespace's init is not it */
	st = run_in(&sb, "kill -SEGV $$", 0);
	ck_assert(st.signaled && st.sig == SIGSEGV && st.code == 128 + SIGSEGV);
	/* SIGTERM to its group reaches it (passed on by the init) */
	st = run_in(&sb, "sleep 30", 300);
	ck_assert(st.signaled && st.sig == SIGTERM);
	/* where the unit had its own /proc, its init read its last CPU before reaping it */
	st = run_in(&sb, "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", 0);
	ck_assert(st.exited && st.code == 0);
	if (held(&sb, SANDBOX_PID) && held(&sb, SANDBOX_PROC))
		ck_assert_int_ge(st.last_cpu, 0);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
}
END_TEST

START_TEST(test_steps_do_what_they_say)
{
	struct sandbox sb;
	char *script = xasprintf(
		": > %s/p/w/mine || exit 10; (: > %s/p/s/ours) || exit 11; "
		"if (: > %s/p/theirs) 2>/dev/null; then m=0; else m=1; fi; "
		"n=$(ls /proc | grep -c '^[0-9]'); "
		"c=$(awk '/^CapEff/ {print $2}' /proc/self/status); "
		"echo \"$m $n $$ $c\" > %s/p/w/seen",
		testutil_scratch, testutil_scratch, testutil_scratch, testutil_scratch);
	struct spawn_status st = run_in(&sb, script, 0);
	ck_assert_msg(st.exited && st.code == 0, "status %d", st.code);
	char *seen_path = testutil_path("p/w/seen"), *seen;
	size_t len;
	ck_assert_int_eq(util_read_file(seen_path, &seen, &len), 0);
	int ro, nproc, pid;
	char caps[32] = "";
	ck_assert_int_ge(sscanf(seen, "%d %d %d %31s", &ro, &nproc, &pid, caps), 3);
	/* the report agrees with what the child saw */
	ck_assert_int_eq(ro, held(&sb, SANDBOX_MOUNT));
	if (held(&sb, SANDBOX_PID))
		ck_assert_int_eq(pid, 2); /* its init is 1 */
	if (held(&sb, SANDBOX_PROC))
		ck_assert_int_le(nproc, 8); /* init, sh, its subshell, ls, grep: none of ours */
	if (held(&sb, SANDBOX_CAPS))
		ck_assert_msg(strspn(caps, "0") == strlen(caps), "CapEff %s", caps);
	/* a step that did not hold says why */
	for (int i = 0; i < SANDBOX_NSTEPS; i++)
		if (!held(&sb, i))
			ck_assert_int_ne(sb.why[i], 0);
	char *h = sandbox_held(&sb), *r = sandbox_refused(&sb);
	ck_assert(*h && (sb.held == (1u << SANDBOX_NSTEPS) - 1) == (*r == '\0'));
	free(h);
	free(r);
	free(seen);
	free(seen_path);
	free(script);
}
END_TEST

START_TEST(test_orphans_die)
{
	struct sandbox sb;
	char *marker = testutil_path("orphan");
	char *script = xasprintf("setsid sh -c 'sleep 1; : > %s' </dev/null >/dev/null 2>&1 &"
				 " exit 0", marker);
	struct spawn_status st = run_in(&sb, script, 0);
	ck_assert(st.exited && st.code == 0);
	sleep(2);
	struct stat sst;
	/* in a PID namespace the orphan died with the unit and never wrote its file */
	if (held(&sb, SANDBOX_PID))
		ck_assert_int_ne(stat(marker, &sst), 0);
	free(script);
	free(marker);
}
END_TEST

static Suite *sandbox_suite(void)
{
	Suite *s = suite_create("sandbox");
	TCase *tc = tcase_create("sandbox");
	tcase_add_checked_fixture(tc, testutil_scratch_setup, testutil_scratch_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_status_is_the_programs);
	tcase_add_test(tc, test_steps_do_what_they_say);
	tcase_add_test(tc, test_orphans_die);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	testutil_name = "test-sandbox";
	return testutil_run(sandbox_suite());
}
