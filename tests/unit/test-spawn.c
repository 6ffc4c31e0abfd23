/* test-spawn.c: unit tests for spawn.h (exit codes, signals, exec errors, PATH, env,
 * redirections, record pipe, descriptor hygiene, process groups, what the scheduler kept of
 * a reaped child) and envcap.h */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/sysinfo.h"
#include "harness/run/envcap.h"
#include "harness/record/recorder.h"
#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "tests/unit/testutil.h"

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

static char *slurp(const char *path)
{
	char *data;
	size_t len;
	ck_assert_int_eq(util_read_file(path, &data, &len), 0);
	return data;
}

/* Run argv with env (and dir), capture stdout; returns the status code. */
static int run_capture(const char *const *argv, const char *const *env, const char *dir,
		       struct sbuf *out)
{
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = argv;
	sp.env = env;
	sp.dir = dir;
	ck_assert_int_eq(spawn_run(&sp, out, &st), 0);
	spawn_release(&sp);
	return st.code;
}

/* Number of open descriptors in this process. */
static int count_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			n++;
	return n;
}

static void no_children_left(void)
{
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}

static const char *const sh_env[] = { "PATH=/usr/bin:/bin", NULL };

START_TEST(test_exit_codes)
{
	static const int codes[] = { 0, 3, 77, 255 };
	for (size_t i = 0; i < ARRAY_SIZE(codes); i++) {
		char *script = xasprintf("exit %d", codes[i]);
		struct spawn sp;
		struct spawn_status st;
		spawn_init(&sp);
		sp.argv = ARGV("/bin/sh", "-c", script);
		ck_assert_int_eq(spawn_run(&sp, NULL, &st), 0);
		ck_assert_int_eq(st.exited, 1);
		ck_assert_int_eq(st.signaled, 0);
		ck_assert_int_eq(st.code, codes[i]);
		ck_assert_int_gt(sp.pid, 0);
		ck_assert_int_eq(sp.reaped, 1);
		spawn_release(&sp);
		free(script);
	}
	no_children_left();
}
END_TEST

START_TEST(test_killed_by_signal)
{
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sh", "-c", "kill -KILL $$");
	ck_assert_int_eq(spawn_run(&sp, NULL, &st), 0);
	ck_assert_int_eq(st.exited, 0);
	ck_assert_int_eq(st.signaled, 1);
	ck_assert_int_eq(st.sig, SIGKILL);
	ck_assert_int_eq(st.code, 128 + SIGKILL);
	spawn_release(&sp);

	/* SIGTERM sent from us while it runs. */
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sleep", "100");
	ck_assert_int_eq(spawn_start(&sp), 0);
	ck_assert_int_eq(spawn_poll(&sp, &st), 0);
	ck_assert_int_eq(spawn_kill_group(&sp, SIGTERM), 0);
	ck_assert_int_eq(spawn_wait(&sp, &st), 0);
	ck_assert_int_eq(st.signaled, 1);
	ck_assert_int_eq(st.sig, SIGTERM);
	ck_assert_int_eq(st.code, 143);
	/* Reaped: no signal may go to a pid that could be someone else's now. */
	ck_assert_int_eq(spawn_kill_group(&sp, SIGTERM), 0);
	spawn_release(&sp);
	no_children_left();
}
END_TEST

START_TEST(test_exec_failure)
{
	int before = count_fds();
	struct spawn sp;
	struct spawn_status st;

	/* A path that does not exist: reported once, -1, no child left behind. */
	spawn_init(&sp);
	sp.argv = ARGV("/nonexistent/prog", "x");
	testutil_stderr_begin();
	ck_assert_int_eq(spawn_start(&sp), -1);
	char *msg = testutil_stderr_end();
	ck_assert_str_eq(msg, "harness: cannot run '/nonexistent/prog': No such file or directory\n");
	free(msg);
	ck_assert_int_eq(sp.pid, -1);
	ck_assert_int_eq(sp.out_fd, -1);
	spawn_release(&sp);

	/* A file that is not executable: execve's EACCES comes back through the pipe. */
	char *noexec = testutil_path("noexec");
	ck_assert_int_eq(util_write_file(noexec, "#!/bin/sh\n", 10, 0644), 0);
	spawn_init(&sp);
	sp.argv = ARGV(noexec);
	testutil_stderr_begin();
	ck_assert_int_eq(spawn_run(&sp, NULL, &st), -1);
	msg = testutil_stderr_end();
	char *want = xasprintf("harness: cannot run '%s': Permission denied\n", noexec);
	ck_assert_str_eq(msg, want);
	free(want);
	free(msg);
	free(noexec);

	/* A name PATH cannot resolve: reported by the parent, nothing forked. */
	spawn_init(&sp);
	sp.argv = ARGV("no-such-program-7f3a");
	sp.env = sh_env;
	testutil_stderr_begin();
	ck_assert_int_eq(spawn_start(&sp), -1);
	msg = testutil_stderr_end();
	ck_assert_str_eq(msg, "harness: cannot run 'no-such-program-7f3a': No such file or directory\n");
	free(msg);

	/* A directory that does not exist. */
	spawn_init(&sp);
	sp.argv = ARGV("/bin/true");
	sp.dir = "/nonexistent/dir";
	testutil_stderr_begin();
	ck_assert_int_eq(spawn_start(&sp), -1);
	msg = testutil_stderr_end();
	ck_assert_str_eq(msg, "harness: cannot run '/bin/true': cannot change to directory "
			      "'/nonexistent/dir': No such file or directory\n");
	free(msg);

	/* An output file that cannot be opened: the parent says so before fork. */
	spawn_init(&sp);
	sp.argv = ARGV("/bin/true");
	sp.stdout_path = "/nonexistent/dir/out";
	testutil_stderr_begin();
	ck_assert_int_eq(spawn_start(&sp), -1);
	msg = testutil_stderr_end();
	ck_assert_str_eq(msg, "harness: cannot open '/nonexistent/dir/out': No such file or directory\n");
	free(msg);

	/* An empty command. */
	spawn_init(&sp);
	sp.argv = (const char *const[]){ NULL };
	testutil_stderr_begin();
	ck_assert_int_eq(spawn_start(&sp), -1);
	msg = testutil_stderr_end();
	ck_assert_str_eq(msg, "harness: cannot run an empty command\n");
	free(msg);

	no_children_left();
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

START_TEST(test_path_lookup)
{
	struct sbuf out;
	sbuf_init(&out);

	/* From the child's PATH. */
	ck_assert_int_eq(run_capture(ARGV("sh", "-c", "exit 5"), sh_env, NULL, &out), 5);

	/* The child's PATH wins over ours; missing directories are skipped. */
	char *bin = testutil_path("bin");
	char *prog = testutil_path("bin/mine");
	ck_assert_int_eq(util_mkdir_p(bin, 0755), 0);
	ck_assert_int_eq(util_write_file(prog, "#!/bin/sh\necho mine $0\n", 23, 0755), 0);
	char *env_path = xasprintf("PATH=/nonexistent:%s:/usr/bin:/bin", bin);
	const char *env[] = { env_path, NULL };
	ck_assert_int_eq(run_capture(ARGV("mine"), env, NULL, &out), 0);
	char *want = xasprintf("mine %s\n", prog); /* $0: the resolved path */
	ck_assert_str_eq(out.buf, want);

	/* Without PATH in env, ours is searched (but not passed on). */
	char *old = xstrdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", bin, 1);
	sbuf_reset(&out);
	ck_assert_int_eq(run_capture(ARGV("mine"), ARGV("X=1"), NULL, &out), 0);
	ck_assert_str_eq(out.buf, want);
	setenv("PATH", old, 1);
	free(old);

	/* A non-executable file on PATH is skipped. */
	char *bin2 = testutil_path("bin2");
	char *shadow = testutil_path("bin2/mine");
	ck_assert_int_eq(util_mkdir_p(bin2, 0755), 0);
	ck_assert_int_eq(util_write_file(shadow, "#!/bin/sh\necho shadow\n", 22, 0644), 0);
	char *env_path2 = xasprintf("PATH=%s:%s", bin2, bin);
	const char *env2[] = { env_path2, NULL };
	sbuf_reset(&out);
	ck_assert_int_eq(run_capture(ARGV("mine"), env2, NULL, &out), 0);
	ck_assert_str_eq(out.buf, want);

	free(want);

	/* Relative program paths, given or found through a relative PATH entry, name files
	 * in our directory even when the child starts elsewhere. */
	char cwd[PATH_MAX], real[PATH_MAX];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_ptr_nonnull(realpath(testutil_scratch, real));
	ck_assert_int_eq(chdir(testutil_scratch), 0);
	want = xasprintf("mine %s/bin/mine\n", real);
	const char *rel_env[] = { "PATH=/nonexistent:bin", NULL };
	sbuf_reset(&out);
	ck_assert_int_eq(run_capture(ARGV("mine"), rel_env, "/", &out), 0);
	ck_assert_str_eq(out.buf, want);
	sbuf_reset(&out);
	ck_assert_int_eq(run_capture(ARGV("./bin/mine"), NULL, "/", &out), 0);
	ck_assert_str_eq(out.buf, want);
	ck_assert_int_eq(chdir(cwd), 0);

	free(want);
	free(env_path2);
	free(shadow);
	free(bin2);
	free(env_path);
	free(prog);
	free(bin);
	sbuf_release(&out);
}
END_TEST

START_TEST(test_env_empty)
{
	/* env == NULL: nothing at all, even though we have an environment. */
	setenv("HARNESS_TEST_LEAK", "1", 1);
	struct sbuf out;
	sbuf_init(&out);
	ck_assert_int_eq(run_capture(ARGV("/usr/bin/env"), NULL, NULL, &out), 0);
	ck_assert_uint_eq(out.len, 0);
	ck_assert_str_eq(out.buf, "");
	sbuf_release(&out);
}
END_TEST

START_TEST(test_env_exact)
{
	setenv("HARNESS_TEST_LEAK", "1", 1);
	struct sbuf out;
	sbuf_init(&out);
	const char *env[] = { "A=1", "B=two words", "LC_ALL=C", "EMPTY=", NULL };
	ck_assert_int_eq(run_capture(ARGV("/usr/bin/env"), env, NULL, &out), 0);
	ck_assert_str_eq(out.buf, "A=1\nB=two words\nLC_ALL=C\nEMPTY=\n");
	sbuf_release(&out);
}
END_TEST

START_TEST(test_redirect_files)
{
	char *o = testutil_path("out.txt"), *e = testutil_path("err.txt");
	char *in = testutil_path("in.txt");
	/* Longer old contents prove truncation. */
	ck_assert_int_eq(util_write_file(o, "old old old old old old\n", 24, 0644), 0);
	ck_assert_int_eq(util_write_file(in, "2.385\n", 6, 0644), 0);

	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sh", "-c", "echo out; echo err >&2; cat");
	sp.stdin_path = in;
	sp.stdout_path = o;
	sp.stderr_path = e;
	ck_assert_int_eq(spawn_run(&sp, NULL, &st), 0);
	ck_assert_int_eq(st.code, 0);
	spawn_release(&sp);
	char *text = slurp(o);
	ck_assert_str_eq(text, "out\n2.385\n");
	free(text);
	text = slurp(e);
	ck_assert_str_eq(text, "err\n");
	free(text);
	struct stat sb;
	ck_assert_int_eq(stat(o, &sb), 0);
	mode_t mask = umask(0);
	umask(mask);
	ck_assert_int_eq(sb.st_mode & 0777, 0644 & ~mask);

	/* Both to one file: one open file, nothing overwritten. */
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sh", "-c", "echo out; echo err >&2; echo out2");
	sp.stdout_path = o;
	sp.stderr_path = o;
	ck_assert_int_eq(spawn_run(&sp, NULL, &st), 0);
	spawn_release(&sp);
	text = slurp(o);
	ck_assert_str_eq(text, "out\nerr\nout2\n");
	free(text);

	/* Defaults: stdin and both outputs are /dev/null (cat ends at once). */
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sh", "-c", "cat; echo lost; echo lost >&2");
	ck_assert_int_eq(spawn_run(&sp, NULL, &st), 0);
	ck_assert_int_eq(st.code, 0);
	spawn_release(&sp);

	free(in);
	free(e);
	free(o);
}
END_TEST

START_TEST(test_record_pipe)
{
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sh", "-c", "echo hello >&3; echo out");
	sp.record_pipe = 1;
	sp.capture_stdout = 1;
	ck_assert_int_eq(spawn_start(&sp), 0);
	ck_assert_int_ge(sp.rec_fd, 0);
	ck_assert_int_ge(sp.out_fd, 0);
	/* Everything the parent keeps is close-on-exec. */
	ck_assert(fcntl(sp.rec_fd, F_GETFD) & FD_CLOEXEC);
	ck_assert(fcntl(sp.out_fd, F_GETFD) & FD_CLOEXEC);

	char buf[64];
	size_t got = 0;
	ssize_t n;
	while ((n = read(sp.rec_fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	ck_assert_str_eq(buf, "hello\n");
	got = 0;
	while ((n = read(sp.out_fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	ck_assert_str_eq(buf, "out\n");
	ck_assert_int_eq(spawn_wait(&sp, &st), 0);
	ck_assert_int_eq(st.code, 0);
	spawn_release(&sp);
	ck_assert_int_eq(sp.rec_fd, -1);
	ck_assert_int_eq(sp.out_fd, -1);

	/* Without record_pipe fd 3 is closed in the child. */
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sh", "-c", "echo hello >&3");
	ck_assert_int_eq(spawn_run(&sp, NULL, &st), 0);
	ck_assert_int_ne(st.code, 0);
	spawn_release(&sp);
}
END_TEST

START_TEST(test_fds_closed)
{
	/* Descriptors the parent leaks without CLOEXEC, low and high. */
	int low = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(low, 3);
	ck_assert_int_eq(dup2(low, 37), 37);
	ck_assert_int_eq(dup2(low, 900), 900);
	int before = count_fds();

	struct sbuf out;
	sbuf_init(&out);
	/* The shell lists its own descriptors through ls (a separate process). */
	ck_assert_int_eq(run_capture(ARGV("/bin/sh", "-c", "ls /proc/$$/fd; exit 0"), sh_env,
				     NULL, &out), 0);
	ck_assert_str_eq(out.buf, "0\n1\n2\n");

	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sh", "-c", "ls /proc/$$/fd; exit 0");
	sp.env = sh_env;
	sp.capture_stdout = 1;
	sp.record_pipe = 1;
	ck_assert_int_eq(spawn_start(&sp), 0);
	sbuf_reset(&out);
	char buf[256];
	ssize_t n;
	while ((n = read(sp.out_fd, buf, sizeof(buf))) > 0)
		sbuf_add(&out, buf, (size_t)n);
	ck_assert_int_eq(spawn_wait(&sp, &st), 0);
	spawn_release(&sp);
	ck_assert_str_eq(out.buf, "0\n1\n2\n3\n");

	/* Nothing leaked in the parent either. */
	ck_assert_int_eq(count_fds(), before);
	sbuf_release(&out);
	close(900);
	close(37);
	close(low);
}
END_TEST

START_TEST(test_low_fds_closed_in_parent)
{
	/* A parent whose stdin is closed: the child's fds must still land in the right
	 * places (pipes created at fd 0 must not be clobbered by dup2). */
	int keep = dup(0);
	close(0);
	struct sbuf out;
	sbuf_init(&out);
	ck_assert_int_eq(run_capture(ARGV("/bin/sh", "-c", "echo ok; cat; ls /proc/$$/fd; exit 0"),
				     sh_env, NULL, &out), 0);
	ck_assert_str_eq(out.buf, "ok\n0\n1\n2\n");
	ck_assert_int_eq(fcntl(0, F_GETFD), -1); /* still closed here */
	dup2(keep, 0);
	close(keep);
	sbuf_release(&out);
}
END_TEST

/* State of pid from /proc/<pid>/stat: 0 when gone or a zombie, 1 while alive. */
static int alive(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

/* Read "<pid>\n" from fd (one byte at a time: a grandchild may keep the pipe open). */
static pid_t read_pid_line(int fd)
{
	char line[32];
	size_t got = 0;
	while (got < sizeof(line) - 1) {
		ck_assert_int_eq(read(fd, line + got, 1), 1);
		if (line[got++] == '\n')
			break;
	}
	line[got - 1] = '\0';
	int64_t v;
	ck_assert_int_eq(parse_i64(line, 1, INT32_MAX, &v), 0);
	return (pid_t)v;
}

START_TEST(test_kill_group)
{
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sh", "-c", "sleep 100 & echo $! >&3; sleep 100");
	sp.env = sh_env;
	sp.record_pipe = 1;
	sp.new_pgroup = 1;
	ck_assert_int_eq(spawn_start(&sp), 0);
	ck_assert_int_eq(getpgid(sp.pid), sp.pid);

	/* The grandchild keeps fd 3 open, so read one line, not to EOF. */
	pid_t gc = read_pid_line(sp.rec_fd);
	ck_assert(alive(gc));
	ck_assert_int_eq(getpgid(gc), sp.pid);

	ck_assert_int_eq(spawn_kill_group(&sp, SIGTERM), 0);
	int64_t deadline = util_now_ns() + 5000000000LL;
	int r;
	while ((r = spawn_poll(&sp, &st)) == 0 && util_now_ns() < deadline)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	ck_assert_int_eq(r, 1);
	ck_assert_int_eq(st.signaled, 1);
	ck_assert_int_eq(st.sig, SIGTERM);
	while (alive(gc) && util_now_ns() < deadline)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	ck_assert(!alive(gc));
	/* The group is gone: signalling it again is not an error. */
	ck_assert_int_eq(spawn_kill_group(&sp, SIGTERM), 0);
	spawn_release(&sp);
}
END_TEST

START_TEST(test_kill_stragglers)
{
	/* The child exits at once and leaves a grandchild in its group; after the child is
	 * reaped, a group kill still reaches the grandchild. */
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = ARGV("/bin/sh", "-c", "sleep 100 & echo $! >&3; exit 4");
	sp.env = sh_env;
	sp.record_pipe = 1;
	sp.new_pgroup = 1;
	ck_assert_int_eq(spawn_start(&sp), 0);
	pid_t gc = read_pid_line(sp.rec_fd);
	ck_assert_int_eq(spawn_wait(&sp, &st), 0);
	ck_assert_int_eq(st.code, 4);
	ck_assert(alive(gc));
	ck_assert_int_eq(spawn_kill_group(&sp, SIGKILL), 0);
	int64_t deadline = util_now_ns() + 5000000000LL;
	while (alive(gc) && util_now_ns() < deadline)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	ck_assert(!alive(gc));
	spawn_release(&sp);

	/* Without a group nothing is sent once the child is reaped. */
	spawn_init(&sp);
	sp.argv = ARGV("/bin/true");
	ck_assert_int_eq(spawn_run(&sp, NULL, &st), 0);
	ck_assert_int_eq(spawn_kill_group(&sp, SIGKILL), 0);
	spawn_release(&sp);
}
END_TEST

START_TEST(test_working_dir)
{
	char real[PATH_MAX];
	ck_assert_ptr_nonnull(realpath(testutil_scratch, real));
	struct sbuf out;
	sbuf_init(&out);
	ck_assert_int_eq(run_capture(ARGV("/bin/pwd"), NULL, testutil_scratch, &out), 0);
	char *want = xasprintf("%s\n", real);
	ck_assert_str_eq(out.buf, want);
	free(want);
	/* Our own directory is unchanged. */
	char cwd[PATH_MAX];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_str_ne(cwd, real);
	sbuf_release(&out);
}
END_TEST

START_TEST(test_signals_reset)
{
	/* The scheduler blocks SIGINT/SIGTERM and may ignore SIGPIPE; its children must not
	 * inherit either. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);

	struct sbuf out;
	sbuf_init(&out);
	ck_assert_int_eq(run_capture(ARGV("/bin/grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"),
				     NULL, NULL, &out), 0);
	/* Signals 32 and 33 are glibc's own (thread cancellation, setxid): sigaction() refuses
	 * them, so a disposition inherited from whoever started the test suite may stay. */
	unsigned long long blk = 1, ign = 1;
	ck_assert_int_eq(sscanf(out.buf, "SigBlk:\t%llx\nSigIgn:\t%llx", &blk, &ign), 2);
	const unsigned long long glibc_reserved = (1ULL << 31) | (1ULL << 32);
	ck_assert_msg((blk & ~glibc_reserved) == 0 && (ign & ~glibc_reserved) == 0,
		      "child signal state: %s", out.buf);

	/* And our own mask is as it was. */
	sigset_t now;
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	ck_assert(sigismember(&now, SIGINT));
	ck_assert(sigismember(&now, SIGTERM));
	ck_assert(!sigismember(&now, SIGUSR1));
	ck_assert_int_eq(sigprocmask(SIG_UNBLOCK, &set, NULL), 0);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sbuf_release(&out);
}
END_TEST

START_TEST(test_wait_errors)
{
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = ARGV("/bin/true");
	ck_assert_int_eq(spawn_run(&sp, NULL, &st), 0);
	ck_assert_int_eq(st.code, 0);
	testutil_stderr_begin();
	ck_assert_int_eq(spawn_wait(&sp, &st), -1);
	char *msg = testutil_stderr_end();
	ck_assert_ptr_nonnull(strstr(msg, "already waited for"));
	free(msg);
	spawn_release(&sp);
	spawn_release(&sp); /* twice is harmless */

	spawn_init(&sp);
	testutil_stderr_begin();
	ck_assert_int_eq(spawn_poll(&sp, &st), -1);
	msg = testutil_stderr_end();
	ck_assert_str_eq(msg, "harness: no child to wait for\n");
	free(msg);
}
END_TEST

START_TEST(test_capture_large)
{
	/* More than a pipe buffer: spawn_run must read while the child writes. */
	struct sbuf out;
	sbuf_init(&out);
	ck_assert_int_eq(run_capture(ARGV("/bin/sh", "-c",
					  "i=0; while [ $i -lt 20000 ]; do echo 2.385; i=$((i+1)); done"),
				     NULL, NULL, &out), 0);
	ck_assert_uint_eq(out.len, 20000 * 6);
	ck_assert_mem_eq(out.buf + out.len - 6, "2.385\n", 6);
	sbuf_release(&out);
}
END_TEST

START_TEST(test_stdin_pipe)
{
	/* pipe_stdin: what the parent writes to in_fd is the child's stdin, and closing in_fd
	 * is its end of file (the external tuner's conversation) */
	struct spawn sp;
	struct spawn_status st;
	char buf[64];
	size_t got = 0;
	spawn_init(&sp);
	sp.argv = ARGV("/bin/cat");
	sp.pipe_stdin = sp.capture_stdout = 1;
	ck_assert_int_eq(spawn_start(&sp), 0);
	ck_assert_int_ge(sp.in_fd, 0);
	ck_assert_int_eq(write(sp.in_fd, "2.385\n", 6), 6);
	close(sp.in_fd);
	sp.in_fd = -1;
	for (ssize_t n; (n = read(sp.out_fd, buf + got, sizeof(buf) - got)) > 0;)
		got += (size_t)n;
	ck_assert_uint_eq(got, 6);
	ck_assert_mem_eq(buf, "2.385\n", 6);
	ck_assert_int_eq(spawn_wait(&sp, &st), 0);
	ck_assert_int_eq(st.exited && st.code == 0, 1);
	spawn_release(&sp);
}
END_TEST

START_TEST(test_envcap)
{
	static const char *const keys[] = {
		"host", "kernel", "cpu_model", "cpu_count", "cpu_threads_per_core", "cpu_governor",
		"cpu_mhz", "llc_bytes", "memory_bytes", "libc", "compiler", "gsl", "hdf5",
		"jansson", "openssl",
	};
	struct rec_meta meta;
	rec_meta_init(&meta);
	envcap_collect(&meta);
	/* the backends' libraries are theirs to describe (describe_build), not envcap's */
	ck_assert_ptr_null(rec_meta_get(&meta, "openblas"));
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = rec_meta_get(&meta, keys[i]);
		ck_assert_msg(v != NULL, "key '%s' missing", keys[i]);
		ck_assert_msg(*v != '\0', "key '%s' empty", keys[i]);
	}
	int64_t n;
	ck_assert_int_eq(parse_i64(rec_meta_get(&meta, "cpu_count"), 1, 1 << 20, &n), 0);
	ck_assert_int_gt(n, 0);
	ck_assert_str_ne(rec_meta_get(&meta, "kernel"), "unknown");
	ck_assert_ptr_nonnull(strstr(rec_meta_get(&meta, "openssl"), "OpenSSL"));
	ck_assert_ptr_nonnull(strchr(rec_meta_get(&meta, "hdf5"), '.'));
	if (strcmp(rec_meta_get(&meta, "memory_bytes"), "unknown")) {
		uint64_t mem;
		ck_assert_int_eq(parse_u64(rec_meta_get(&meta, "memory_bytes"), &mem), 0);
		ck_assert_uint_gt(mem, 1u << 20);
	}
	rec_meta_release(&meta);
	no_children_left(); /* the compiler's --version was reaped */
}
END_TEST

START_TEST(test_llc)
{
	long llc = sysinfo_llc_bytes();
	ck_assert_int_ge(llc, 0);
	if (access("/sys/devices/system/cpu/cpu0/cache/index0/size", R_OK) == 0) {
		ck_assert_int_ge(llc, 4096);
		ck_assert_int_eq(llc % 1024, 0);
	}
}
END_TEST

/* A CPU list's count, and cpu0's SMT threads from it: 1 or more where sysfs says. */
START_TEST(test_cpulist)
{
	ck_assert_int_eq(sysinfo_cpulist_count("0"), 1);
	ck_assert_int_eq(sysinfo_cpulist_count("0,16"), 2);
	ck_assert_int_eq(sysinfo_cpulist_count("0-1"), 2);
	ck_assert_int_eq(sysinfo_cpulist_count("0-3,8,10-11"), 7);
	static const char *const bad[] = { "", "a", "3-1", "1,", ",1", "-1", "1--2", "1-+2",
					   "0-2000000000", "1;2" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(sysinfo_cpulist_count(bad[i]) == -1, "'%s' counted", bad[i]);
	int smt = sysinfo_threads_per_core();
	if (access("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", R_OK) == 0)
		ck_assert(smt >= 1 && smt <= sysconf(_SC_NPROCESSORS_ONLN));
	else
		ck_assert_int_eq(smt, 0);
}
END_TEST

/* The host-speed probe: a positive time under a second, from one try and from five, and
 * this thread's CPU, the one it is pinned to when pinned. */
START_TEST(test_spin)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct sysinfo_spin one, five;
	sysinfo_spin(1, &one);
	sysinfo_spin(5, &five);
	ck_assert_int_gt(one.ns, 0);
	ck_assert_int_gt(five.ns, 0);
	ck_assert_int_lt(five.ns, 1000000000LL);
	ck_assert(one.cpu >= 0 && one.cpu < ncpu);
	ck_assert(five.cpu >= 0 && five.cpu < ncpu);
	/* pinned to one CPU, the probe says that CPU */
	cpu_set_t set, old;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(old), &old), 0);
	int last = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &old))
			last = c;
	CPU_ZERO(&set);
	CPU_SET(last, &set);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
	sysinfo_spin(1, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(old), &old), 0);
	ck_assert_int_eq(one.cpu, last);
}
END_TEST

/* NUMA placement (sysinfo.h): a CPU's node as sysfs lists it (checked against the
 * cpuN/nodeK entry itself), -1 for a CPU that is not there; a PCI device's node, -1 for a
 * malformed or absent bus id; this process's pages by node, more than none where
 * /proc/self/numa_maps can be read, nodes past n left out. */
/* spawn_call: a child's bytes and exit come back; one killed by a signal is reported as
 * such (the v1 reader's probe relies on it); only the last cap bytes are kept. */
static int call_ok(void *arg, int fd)
{
	const char *msg = arg;
	return write(fd, msg, strlen(msg)) == (ssize_t)strlen(msg) ? 5 : 1;
}

static int call_crash(void *arg, int fd)
{
	(void)arg;
	if (write(fd, "a\nreading /units\n", 17) != 17)
		return 1;
	raise(SIGSEGV);
	return 0;
}

START_TEST(test_spawn_call)
{
	struct sbuf out;
	struct spawn_status st;
	sbuf_init(&out);
	ck_assert_int_eq(spawn_call(call_ok, "hello", 4096, &out, &st), 0);
	ck_assert(st.exited && !st.signaled && st.code == 5);
	ck_assert_str_eq(out.buf, "hello");
	sbuf_reset(&out);
	ck_assert_int_eq(spawn_call(call_ok, "0123456789", 4, &out, &st), 0);
	ck_assert_str_eq(out.buf, "6789");
	sbuf_reset(&out);
	ck_assert_int_eq(spawn_call(call_crash, NULL, 4096, &out, &st), 0);
	ck_assert(!st.exited && st.signaled && st.sig == SIGSEGV && st.code == 128 + SIGSEGV);
	ck_assert_str_eq(out.buf, "a\nreading /units\n");
	sbuf_release(&out);
}
END_TEST

START_TEST(test_numa)
{
	int cpu = sched_getcpu();
	ck_assert_int_ge(cpu, 0);
	int node = sysinfo_cpu_node(cpu);
	char path[96];
	if (node >= 0) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/node%d", cpu, node);
		ck_assert_int_eq(access(path, F_OK), 0);
	} else {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/node0", cpu);
		ck_assert_int_ne(access(path, F_OK), 0);
	}
	ck_assert_int_eq(sysinfo_cpu_node(1 << 20), -1);
	ck_assert_int_eq(sysinfo_cpu_node(-1), -1);
	ck_assert_int_eq(sysinfo_pci_node(NULL), -1);
	ck_assert_int_eq(sysinfo_pci_node("not a bus id"), -1);
	ck_assert_int_eq(sysinfo_pci_node("0000:1B:00.0 trailing"), -1);
	ck_assert_int_eq(sysinfo_pci_node("ffff:ff:1f.7"), -1); /* no such device */
	/* every PCI device this machine lists: its numa_node file, read here, by the bus id in
	 * sysfs's spelling, in upper case (CUDA's) and with NVML's 8-digit domain */
	DIR *d = opendir("/sys/bus/pci/devices");
	const struct dirent *e;
	while (d && (e = readdir(d))) {
		unsigned dom, bus, dev, fn;
		char buf[32], id[32], file[320];
		if (sscanf(e->d_name, "%4x:%2x:%2x.%1x", &dom, &bus, &dev, &fn) != 4)
			continue;
		snprintf(file, sizeof(file), "/sys/bus/pci/devices/%s/numa_node", e->d_name);
		int want = -1;
		if (sysinfo_read_small(file, buf, sizeof(buf)) > 0 && atoi(buf) >= 0)
			want = atoi(buf);
		ck_assert_int_eq(sysinfo_pci_node(e->d_name), want);
		snprintf(id, sizeof(id), "%04X:%02X:%02X.%X", dom, bus, dev, fn);
		ck_assert_int_eq(sysinfo_pci_node(id), want);
		snprintf(id, sizeof(id), "%08X:%02X:%02X.%X", dom, bus, dev, fn);
		ck_assert_int_eq(sysinfo_pci_node(id), want);
	}
	if (d)
		closedir(d);
	long long pages[64], one[1];
	int n = sysinfo_numa_pages(pages, 64);
	if (access("/proc/self/numa_maps", R_OK) == 0) {
		ck_assert_int_ge(n, 1);
		long long sum = 0;
		for (int k = 0; k < n; k++) {
			ck_assert_int_ge(pages[k], 0);
			sum += pages[k];
		}
		ck_assert_int_gt(sum, 0);
		int m = sysinfo_numa_pages(one, 1); /* node 0 alone: 1, or 0 with none there */
		ck_assert(m == 0 || m == 1);
		ck_assert_int_ge(one[0], 0); /* (the counts move between reads) */
	} else {
		ck_assert_int_eq(n, -1);
	}
}
END_TEST

/* What the scheduler kept of a reaped child: its context switches (rusage), by spawn_wait
 * and spawn_poll alike, and, read from /proc by spawn_poll before it reaps when note_sched
 * is set, its moves between CPUs and its last CPU (-1, nothing read, from spawn_wait or a
 * poll without it).  The child blocks in wait
 * for its own child (sleep): a voluntary switch. */
START_TEST(test_sched_note)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char buf[4096];
	int sched = sysinfo_read_small("/proc/self/sched", buf, sizeof(buf)) > 0 &&
		    strstr(buf, "se.nr_migrations");
	long long mig;
	int cpu;
	sysinfo_proc_sched(getpid(), &mig, &cpu);
	ck_assert(cpu >= 0 && cpu < ncpu);
	ck_assert(sched ? mig >= 0 : mig == -1);
	/* v 0: spawn_wait with note_sched; 1: spawn_poll without it; 2: with it; 3: with it,
	 * a child that has exited (a zombie) before the first poll: the figures are read from
	 * the zombie, whenever the child ends (issue 52) */
	for (int v = 0; v < 4; v++) {
		int poll = v > 0;
		struct spawn sp;
		struct spawn_status st;
		spawn_init(&sp);
		sp.argv = v == 3 ? ARGV("/bin/sh", "-c", "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done")
				 : ARGV("/bin/sh", "-c", "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; sleep 0.05");
		sp.env = ARGV("PATH=/bin:/usr/bin");
		sp.note_sched = v != 1;
		ck_assert_int_eq(spawn_start(&sp), 0);
		if (v == 3) { /* wait until it is a zombie, without reaping it */
			siginfo_t si;
			memset(&si, 0, sizeof(si));
			ck_assert_int_eq(waitid(P_PID, (id_t)sp.pid, &si, WEXITED | WNOWAIT), 0);
			ck_assert_int_eq(si.si_pid, sp.pid);
		}
		if (poll) {
			int r;
			while ((r = spawn_poll(&sp, &st)) == 0)
				usleep(10000);
			ck_assert_int_eq(r, 1);
		} else {
			ck_assert_int_eq(spawn_wait(&sp, &st), 0);
		}
		spawn_release(&sp);
		ck_assert_int_eq(st.code, 0);
		ck_assert_int_gt(st.cpu_ns, 0);
		ck_assert_int_ge(st.vcsw, v == 3 ? 0 : 1);
		ck_assert_int_ge(st.ivcsw, 0);
		ck_assert_int_ge(st.minflt, 1); /* exec maps the shell's pages in */
		ck_assert_int_ge(st.majflt, 0);
		if (v != 1) {
			ck_assert(st.last_cpu >= 0 && st.last_cpu < ncpu);
			ck_assert(sched ? st.migrations >= 0 : st.migrations == -1);
		} else {
			ck_assert(st.last_cpu == -1 && st.migrations == -1);
		}
	}
}
END_TEST

static Suite *spawn_suite(void)
{
	Suite *s = suite_create("spawn");
	TCase *tc = tcase_create("spawn");
	tcase_add_checked_fixture(tc, testutil_scratch_setup, testutil_scratch_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_exit_codes);
	tcase_add_test(tc, test_killed_by_signal);
	tcase_add_test(tc, test_exec_failure);
	tcase_add_test(tc, test_path_lookup);
	tcase_add_test(tc, test_env_empty);
	tcase_add_test(tc, test_env_exact);
	tcase_add_test(tc, test_redirect_files);
	tcase_add_test(tc, test_record_pipe);
	tcase_add_test(tc, test_fds_closed);
	tcase_add_test(tc, test_low_fds_closed_in_parent);
	tcase_add_test(tc, test_kill_group);
	tcase_add_test(tc, test_kill_stragglers);
	tcase_add_test(tc, test_working_dir);
	tcase_add_test(tc, test_signals_reset);
	tcase_add_test(tc, test_wait_errors);
	tcase_add_test(tc, test_capture_large);
	tcase_add_test(tc, test_stdin_pipe);
	tcase_add_test(tc, test_sched_note);
	tcase_add_test(tc, test_spin);
	tcase_add_test(tc, test_numa);
	tcase_add_test(tc, test_spawn_call);
	suite_add_tcase(s, tc);

	TCase *te = tcase_create("envcap");
	tcase_set_timeout(te, 30);
	tcase_add_test(te, test_envcap);
	tcase_add_test(te, test_llc);
	tcase_add_test(te, test_cpulist);
	suite_add_tcase(s, te);
	return s;
}

int main(void)
{
	testutil_name = "test-spawn";
	return testutil_run(spawn_suite());
}
