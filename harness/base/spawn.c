/* spawn.c: the one place that starts processes: fork + execve with built argv and env */
#include "config.h"
#include "harness/base/spawn.h"
#include "harness/base/sysinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* glibc >= 2.34 declares close_range() in <unistd.h> and, with it, CLOSE_RANGE_UNSHARE. */
#if defined(__GLIBC__) && defined(CLOSE_RANGE_UNSHARE)
#define HAVE_CLOSE_RANGE_FN 1
#endif

/* What the child sends back on the exec-error pipe: with a sandbox, first what held of it
 * (STAGE_REPORT); then, when it cannot exec, why.  STAGE_SANDBOX: its namespaces were
 * unusable (the user namespace's id maps refused), try fewer. */
enum child_stage { STAGE_EXEC, STAGE_CHDIR, STAGE_SETUP, STAGE_SANDBOX, STAGE_REPORT };
struct child_err {
	int stage;
	int err;
	unsigned held;
	int why[SANDBOX_NSTEPS];
};

/* The namespaces a sandboxed child is cloned with, most first; a level the kernel refuses
 * (errno in level_err) is not tried again by this process. */
static const int ns_levels[] = { CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID,
				 CLONE_NEWNS | CLONE_NEWPID, 0 };
static int ns_level;
static int level_err[ARRAY_SIZE(ns_levels)];

/* Everything the child needs, prepared in the parent so the child never allocates. */
struct child_plan {
	const char *path;                /* resolved program */
	char *const *argv;
	char *const *envp;
	const char *dir;
	int fd_in, fd_out, fd_err, fd_rec; /* sources for fds 0..3 (> 3), -1: leave as is */
	int err_fd;                      /* write end of the exec-error pipe (> 3, CLOEXEC) */
	int first_closed;                /* close every fd from here up, but err_fd */
	long open_max;                   /* loop bound when close_range() is unavailable */
	int new_pgroup;
	pid_t die_with;                  /* > 0: SIGKILL when this process (the parent) dies */
	const struct sandbox_plan *sbp;  /* NULL: no sandbox */
	int ns_flags;                    /* the namespaces it was cloned into */
	int relay_fd;                    /* its PID namespace's init's end of the relay pipe
					  * (> 3, CLOEXEC), or -1 */
	int note_sched;                  /* the init reads the program's CPU moves (spawn.h) */
};

void spawn_init(struct spawn *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->pid = -1;
	sp->in_fd = sp->out_fd = -1;
	sp->rec_fd = -1;
	sp->relay_fd = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
		*fd = -1;
	}
}

/* Move fd above 3 (close-on-exec), so that the child's dup2() onto 0..3 can never
 * overwrite a descriptor it still has to copy.  Returns the new fd or -1 (errno set);
 * the old descriptor is closed either way. */
static int fd_above3(int fd)
{
	if (fd < 0 || fd > 3)
		return fd;
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 4);
	close_fd(&fd);
	return nfd;
}

static int open_high(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	fd = fd_above3(fd);
	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	return fd;
}

/* pipe2(O_CLOEXEC) with both ends above 3. */
static int pipe_high(int p[2])
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return error_errno("cannot create a pipe");
	p[0] = fd_above3(p[0]);
	p[1] = fd_above3(p[1]);
	if (p[0] < 0 || p[1] < 0) {
		error_errno("cannot create a pipe");
		close_fd(&p[0]);
		close_fd(&p[1]);
		return -1;
	}
	return 0;
}

/* Copy a NULL-terminated vector of borrowed strings into a new array of pointers (the
 * strings are not copied); NULL gives an empty vector. */
static char **vec_dup(const char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	char **out = xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = (char *)v[i];
	return out;
}

/* Report what the child sent back through the exec-error pipe. */
static void report_child_err(const struct spawn *sp, const struct child_err *e)
{
	const char *prog = sp->argv[0];
	switch (e->stage) {
	case STAGE_EXEC:
		error("cannot run '%s': %s", prog, strerror(e->err));
		break;
	case STAGE_CHDIR:
		error("cannot run '%s': cannot change to directory '%s': %s", prog,
		      sp->dir, strerror(e->err));
		break;
	default:
		error("cannot run '%s': cannot set up the child: %s", prog, strerror(e->err));
		break;
	}
}

/* The child after fork: async-signal-safe calls only (no malloc, no stdio), then execve.
 * Any failure goes back to the parent through cp->err_fd as a struct child_err. */
static void child_send(const struct child_plan *cp, const struct child_err *e)
{
	ssize_t n;
	do
		n = write(cp->err_fd, e, sizeof(*e));
	while (n < 0 && errno == EINTR);
}

static void __attribute__((noreturn)) child_fail(const struct child_plan *cp, int stage)
{
	struct child_err e = { .stage = stage, .err = errno };
	child_send(cp, &e);
	_exit(127);
}

/* Did the parent die before PR_SET_PDEATHSIG took hold?  In a PID namespace of its own
 * the child's parent is outside it (getppid() is 0): there, the parent is gone when no
 * one holds the exec-error pipe's read end (the child closed its copy in close_from). */
static int parent_gone(const struct child_plan *cp)
{
	if (!(cp->ns_flags & CLONE_NEWPID))
		return getppid() != cp->die_with;
	struct pollfd pf = { .fd = cp->err_fd, .events = POLLOUT };
	return poll(&pf, 1, 0) == 1 && (pf.revents & POLLERR);
}

static void close_from(const struct child_plan *cp)
{
	int lo = cp->first_closed, skip = cp->err_fd;
#ifdef HAVE_CLOSE_RANGE_FN
	/* err_fd is above 3 and lo is 3 or 4: [lo, err_fd) may be empty, never inverted. */
	int ok = 1;
	if (skip > lo && close_range((unsigned)lo, (unsigned)skip - 1, 0) < 0)
		ok = 0;
	if (ok && close_range((unsigned)skip + 1, ~0U, 0) == 0)
		return;
	/* ENOSYS on kernels before 5.9: fall through to the loop. */
#endif
	for (long fd = lo; fd < cp->open_max; fd++)
		if (fd != skip)
			close((int)fd);
}

/* What a PID namespace's init sends back once the program it ran has ended: its wait
 * status and, read before it was reaped, its CPU moves and last CPU (spawn_status). */
struct relay {
	int status;
	long long migrations;
	int last_cpu;
};

/* The init of a sandboxed child's PID namespace: it keeps nothing of the child's but the
 * relay pipe, reaps what is left to it, and once the program (unit) has ended sends its
 * status through the pipe and exits, which kills whatever still runs in the namespace.
 * own_proc: /proc is the namespace's, where unit's pid means the same. */
static void __attribute__((noreturn)) init_wait(const struct child_plan *cp, pid_t unit,
						int own_proc)
{
	int keep = cp->relay_fd; /* > 3 */
#ifdef HAVE_CLOSE_RANGE_FN
	if (close_range(0, (unsigned)keep - 1, 0) < 0 || close_range((unsigned)keep + 1, ~0U, 0) < 0)
#endif
		for (long fd = 0; fd < cp->open_max; fd++)
			if (fd != keep)
				close((int)fd);
	struct relay r = { .status = 127 << 8, .migrations = -1, .last_cpu = -1 };
	/* every signal is blocked here (spawn_start): the ones a unit may be sent are taken
	 * with sigwaitinfo and passed on to its process group, as if sent to it */
	static const int passed[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < ARRAY_SIZE(passed); i++)
		sigaddset(&set, passed[i]);
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR)
			break; /* no child left: cannot happen while the unit lives */
		if (si.si_pid > 0) {
			if (si.si_pid == unit && own_proc && cp->note_sched)
				sysinfo_proc_sched(unit, &r.migrations, &r.last_cpu);
			int st = 0;
			while (waitpid(si.si_pid, &st, 0) < 0 && errno == EINTR)
				;
			if (si.si_pid == unit) {
				r.status = st;
				break;
			}
			continue;
		}
		int sig = sigwaitinfo(&set, &si);
		if (sig > 0 && sig != SIGCHLD)
			kill(cp->new_pgroup ? -unit : unit, sig);
	}
	ssize_t n;
	do
		n = write(cp->relay_fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	_exit(0);
}

static void __attribute__((noreturn)) child_exec(const struct child_plan *cp)
{
	/* Handlers and ignored signals of the parent must not leak into the child; all
	 * signals are still blocked here (spawn_start blocked them before fork). */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL); /* fails harmlessly for reserved numbers */

	/* die with the parent; it may have died already (checked below, once the pipes
	 * are in place) */
	if (cp->die_with > 0 && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		child_fail(cp, STAGE_SETUP);
	struct child_err rep = { .stage = STAGE_REPORT };
	if (cp->sbp && sandbox_enter(cp->sbp, cp->ns_flags, &rep.held, rep.why) < 0)
		child_fail(cp, STAGE_SANDBOX);
	if (cp->new_pgroup && setpgid(0, 0) < 0)
		child_fail(cp, STAGE_SETUP);
	if (cp->ns_flags & CLONE_NEWPID) {
		/* This process is its PID namespace's init, which the kernel shields from
		 * signals it has no handler for: it stays as init (init_wait) and the program
		 * runs as its child, leading a process group of its own, where its signals
		 * behave as anywhere. */
		pid_t unit = (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL, NULL,
					    NULL); /* not fork(): this process is a raw clone
						    * of a parent that may have threads, and
						    * glibc's fork would take their locks */
		if (unit < 0)
			child_fail(cp, STAGE_SETUP);
		if (unit > 0)
			init_wait(cp, unit, rep.held & (1u << SANDBOX_PROC));
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
		    (cp->new_pgroup && setpgid(0, 0) < 0))
			child_fail(cp, STAGE_SETUP);
	}

	/* Sources are all above 3, so no dup2 clobbers a later one; dup2 clears CLOEXEC. */
	const int src[4] = { cp->fd_in, cp->fd_out, cp->fd_err, cp->fd_rec };
	for (int fd = 0; fd < 4; fd++)
		if (src[fd] >= 0 && dup2(src[fd], fd) < 0)
			child_fail(cp, STAGE_SETUP);
	for (int fd = 1, fl; fd <= 2; fd++) /* inherit_stdout, _stderr: ours kept over exec */
		if (src[fd] < 0 && (fl = fcntl(fd, F_GETFD)) >= 0 && (fl & FD_CLOEXEC))
			fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
	close_from(cp);
	if (cp->die_with > 0 && parent_gone(cp))
		_exit(127);
	if (cp->sbp)
		child_send(cp, &rep);

	if (cp->dir && chdir(cp->dir) < 0)
		child_fail(cp, STAGE_CHDIR);

	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	execve(cp->path, cp->argv, cp->envp);
	child_fail(cp, STAGE_EXEC);
}

/* fork(), or with a sandbox clone() into the most namespaces the kernel grants (ns_levels;
 * a refusal is remembered).  The child runs child_exec and never returns. */
static pid_t new_child(struct child_plan *cp)
{
	for (;;) {
		cp->ns_flags = cp->sbp ? ns_levels[ns_level] : 0;
		pid_t pid = cp->ns_flags ? (pid_t)syscall(SYS_clone,
							  (unsigned long)cp->ns_flags | SIGCHLD,
							  NULL, NULL, NULL, NULL)
					 : fork();
		if (pid == 0)
			child_exec(cp);
		if (pid > 0 || !cp->ns_flags)
			return pid;
		if (errno != EPERM && errno != EINVAL && errno != ENOSPC && errno != EUSERS &&
		    errno != ENOSYS && errno != EACCES)
			return -1;
		level_err[ns_level++] = errno;
	}
}

/* One message from the child's exec-error pipe: 1 read, 0 at EOF (it exec'd). */
static int read_child_err(int fd, struct child_err *ce)
{
	size_t got = 0;
	while (got < sizeof(*ce)) {
		ssize_t n = read(fd, (char *)ce + got, sizeof(*ce) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got == sizeof(*ce);
}

/* What held of the sandbox, from the child's report; a step of a namespace the kernel
 * refused to make did not hold, for the reason it gave. */
static void note_sandbox(struct sandbox *sb, int ns_flags, const struct child_err *ce)
{
	sb->held = ce->held;
	memcpy(sb->why, ce->why, sizeof(sb->why));
	if (!(ns_flags & CLONE_NEWUSER))
		sb->why[SANDBOX_USER] = level_err[0];
	if (!(ns_flags & CLONE_NEWPID)) {
		sb->why[SANDBOX_PID] = level_err[1];
		sb->why[SANDBOX_MOUNT] = level_err[1];
		sb->why[SANDBOX_PROC] = level_err[1];
	}
}

/* Start the child (see spawn.h).  The fds for the child are opened here, before fork, so
 * that a bad path is reported by the parent; every fd we keep is close-on-exec.  Returns
 * only after the child has exec'd (or failed to), so a started child is already in its
 * own process group when new_pgroup is set. */
/* posix_spawn (glibc: clone with CLONE_VM | CLONE_VFORK), for a child that needs none of
 * what only our own child code does (spawn.h, light): the parent's address space is not
 * copied, so the start costs the same however large this process is (a fork of a process
 * with the CUDA libraries mapped costs milliseconds, which a process's timing would
 * carry).  Standard output ours, standard error to stderr_path (truncated), descriptors
 * above 2 closed, default signal dispositions, an empty signal mask, dir as its folder. */
static int start_light(struct spawn *sp, const char *path, char **argv, char **envp)
{
	if (sp->sandbox || sp->pipe_stdin || sp->capture_stdout || sp->record_pipe ||
	    sp->new_pgroup || sp->die_with_parent || sp->note_sched || !sp->inherit_stdout)
		return error("internal: a light spawn of '%s' asks for more than it can do", path);
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (!sp->inherit_stderr)
		posix_spawn_file_actions_addopen(&fa, 2, sp->stderr_path ? sp->stderr_path :
						 "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (sp->dir)
		posix_spawn_file_actions_addchdir_np(&fa, sp->dir);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	int err = posix_spawn(&sp->pid, path, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (err) {
		sp->pid = -1;
		errno = err;
		return error_errno("cannot run '%s'%s%s", sp->argv[0], sp->dir ? " in " : "",
				   sp->dir ? sp->dir : "");
	}
	return 0;
}

int spawn_start(struct spawn *sp)
{
	int ret = -1;
	char *path = NULL;
	char **argv = NULL, **envp = NULL;
	int fd_in = -1, fd_out = -1, fd_err = -1;
	int out_pipe[2] = { -1, -1 }, rec_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 };
	int relay_pipe[2] = { -1, -1 }, in_pipe[2] = { -1, -1 };
	int masked = 0, retry = 0;
	sigset_t all, old;

	sp->pid = -1;
	sp->in_fd = sp->out_fd = -1;
	sp->rec_fd = -1;
	sp->relay_fd = -1;
	sp->reaped = 0;
	if (!sp->argv || !sp->argv[0])
		return error("cannot run an empty command");

	path = spawn_find_program(sp->argv[0], sp->env);
	if (!path) {
		error("cannot run '%s': %s", sp->argv[0], strerror(errno));
		goto done;
	}
	argv = vec_dup(sp->argv);
	envp = vec_dup(sp->env); /* NULL env: empty, never ours */
	if (sp->light) {
		ret = start_light(sp, path, argv, envp);
		goto done;
	}

	if (sp->pipe_stdin ? pipe_high(in_pipe) < 0
			   : (fd_in = open_high(sp->stdin_path ? sp->stdin_path : "/dev/null",
						O_RDONLY)) < 0)
		goto done;
	if (sp->capture_stdout && !sp->inherit_stdout) {
		if (pipe_high(out_pipe) < 0)
			goto done;
	} else if (!sp->inherit_stdout &&
		   (fd_out = open_high(sp->stdout_path ? sp->stdout_path : "/dev/null",
				       O_WRONLY | O_CREAT | O_TRUNC)) < 0) {
		goto done;
	}
	if (!sp->inherit_stderr) {
		if (sp->stderr_path && !sp->capture_stdout && !sp->inherit_stdout && sp->stdout_path &&
		    !strcmp(sp->stderr_path, sp->stdout_path)) {
			/* One file for both: share the open file, as 2>&1 does. */
			fd_err = fcntl(fd_out, F_DUPFD_CLOEXEC, 4);
			if (fd_err < 0) {
				error_errno("cannot open '%s'", sp->stderr_path);
				goto done;
			}
		} else if ((fd_err = open_high(sp->stderr_path ? sp->stderr_path : "/dev/null",
					       O_WRONLY | O_CREAT | O_TRUNC)) < 0) {
			goto done;
		}
	}
	if (sp->record_pipe && pipe_high(rec_pipe) < 0)
		goto done;
	if (pipe_high(err_pipe) < 0)
		goto done;

	struct sandbox_plan sbp;
	if (sp->sandbox && (sandbox_prepare(sp->sandbox, &sbp) || pipe_high(relay_pipe)))
		goto done;
	struct child_plan cp = {
		.path = path,
		.argv = argv,
		.envp = envp,
		.dir = sp->dir,
		.fd_in = sp->pipe_stdin ? in_pipe[0] : fd_in,
		.fd_out = sp->capture_stdout && !sp->inherit_stdout ? out_pipe[1] : fd_out,
		.fd_err = fd_err,
		.fd_rec = rec_pipe[1],
		.err_fd = err_pipe[1],
		.first_closed = sp->record_pipe ? 4 : 3,
		.open_max = sysconf(_SC_OPEN_MAX),
		.new_pgroup = sp->new_pgroup,
		.die_with = sp->die_with_parent ? getpid() : 0,
		.sbp = sp->sandbox ? &sbp : NULL,
		.relay_fd = relay_pipe[1],
		.note_sched = sp->note_sched,
	};
	if (cp.open_max < 0)
		cp.open_max = 1024;

	/* Block every signal across fork so that no handler of ours runs in the child
	 * before it has reset the dispositions; the child unblocks just before exec. */
	sigfillset(&all);
	if (pthread_sigmask(SIG_SETMASK, &all, &old) == 0)
		masked = 1;
	pid_t pid = new_child(&cp);
	int fork_errno = errno;
	if (masked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		errno = fork_errno;
		error_errno("cannot fork to run '%s'", sp->argv[0]);
		goto done;
	}

	/* Parent: drop the child's ends, then wait for exec (EOF) or its error, after what
	 * held of its sandbox. */
	close_fd(&err_pipe[1]);
	close_fd(&in_pipe[0]);
	close_fd(&out_pipe[1]);
	close_fd(&rec_pipe[1]);
	close_fd(&relay_pipe[1]);
	if (!(cp.ns_flags & CLONE_NEWPID))
		close_fd(&relay_pipe[0]); /* no init to relay */
	struct child_err ce;
	int got;
	while ((got = read_child_err(err_pipe[0], &ce)) && ce.stage == STAGE_REPORT)
		note_sandbox(sp->sandbox, cp.ns_flags, &ce);
	if (got) {
		int status;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (ce.stage == STAGE_SANDBOX && ns_level + 1 < (int)ARRAY_SIZE(ns_levels)) {
			/* namespaces made but unusable: from scratch with fewer */
			level_err[ns_level++] = ce.err;
			retry = 1;
			goto done;
		}
		report_child_err(sp, &ce);
		goto done;
	}

	sp->pid = pid;
	sp->in_fd = in_pipe[1];
	sp->out_fd = out_pipe[0];
	in_pipe[1] = out_pipe[0] = -1;
	sp->rec_fd = rec_pipe[0];
	rec_pipe[0] = -1;
	sp->relay_fd = relay_pipe[0];
	relay_pipe[0] = -1;
	ret = 0;
done:
	close_fd(&relay_pipe[0]);
	close_fd(&relay_pipe[1]);
	close_fd(&err_pipe[0]);
	close_fd(&err_pipe[1]);
	close_fd(&rec_pipe[0]);
	close_fd(&rec_pipe[1]);
	close_fd(&out_pipe[0]);
	close_fd(&out_pipe[1]);
	close_fd(&in_pipe[0]);
	close_fd(&in_pipe[1]);
	close_fd(&fd_err);
	close_fd(&fd_out);
	close_fd(&fd_in);
	free(envp);
	free(argv);
	free(path);
	return retry ? spawn_start(sp) : ret;
}

static void fill_status(int status, const struct rusage *ru, struct spawn_status *st)
{
	memset(st, 0, sizeof(*st));
	st->user_ns = ru ? ru->ru_utime.tv_sec * 1000000000LL + ru->ru_utime.tv_usec * 1000LL : -1;
	st->sys_ns = ru ? ru->ru_stime.tv_sec * 1000000000LL + ru->ru_stime.tv_usec * 1000LL : -1;
	st->cpu_ns = ru ? st->user_ns + st->sys_ns : -1;
	st->maxrss_kb = ru ? ru->ru_maxrss : -1;
	st->vcsw = ru ? ru->ru_nvcsw : -1;
	st->ivcsw = ru ? ru->ru_nivcsw : -1;
	st->minflt = ru ? ru->ru_minflt : -1;
	st->majflt = ru ? ru->ru_majflt : -1;
	st->migrations = -1;
	st->last_cpu = -1;
	if (WIFEXITED(status)) {
		st->exited = 1;
		st->code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		st->signaled = 1;
		st->sig = WTERMSIG(status);
		st->code = 128 + st->sig;
	}
}

/* wait4() with the given options, retried on EINTR.  1 reaped, 0 still running, -1. */
static int reap(struct spawn *sp, struct spawn_status *st, int options)
{
	if (sp->pid <= 0)
		return error("no child to wait for");
	if (sp->reaped)
		return error("child %ld was already waited for", (long)sp->pid);
	int status;
	struct rusage ru;
	pid_t r;
	/* Asked to (note_sched), read what the scheduler says of the child once it has exited
	 * and before it is reaped: a zombie's /proc/PID/stat and sched still hold its last
	 * CPU and its moves, for every child whenever it ends (waitid with WNOWAIT leaves it
	 * waitable).  Nothing is read while it runs. */
	long long migrations = -1;
	int last_cpu = -1;
	/* A PID namespace's init reads its program's numbers itself (init_wait); its own
	 * would be the init's, not the program's. */
	if (sp->note_sched && sp->relay_fd < 0) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		int w;
		while ((w = waitid(P_PID, (id_t)sp->pid, &si,
				   WEXITED | WNOWAIT | (options & WNOHANG))) < 0 && errno == EINTR)
			;
		if (w < 0)
			return error_errno("cannot wait for child %ld ('%s')", (long)sp->pid,
					   sp->argv && sp->argv[0] ? sp->argv[0] : "?");
		if (si.si_pid == 0)
			return 0; /* WNOHANG: still running */
		sysinfo_proc_sched(sp->pid, &migrations, &last_cpu);
	}
	while ((r = wait4(sp->pid, &status, options, &ru)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return error_errno("cannot wait for child %ld ('%s')", (long)sp->pid,
				   sp->argv && sp->argv[0] ? sp->argv[0] : "?");
	if (r == 0)
		return 0;
	sp->reaped = 1;
	/* A PID namespace's init relays the program's own status (once it has ended: it
	 * exits right after; nothing comes when it was killed) */
	struct relay rl;
	ssize_t n = 0;
	if (sp->relay_fd >= 0)
		while ((n = read(sp->relay_fd, &rl, sizeof(rl))) < 0 && errno == EINTR)
			;
	close_fd(&sp->relay_fd);
	if (n == (ssize_t)sizeof(rl)) {
		status = rl.status;
		migrations = rl.migrations;
		last_cpu = rl.last_cpu;
	}
	fill_status(status, &ru, st);
	st->migrations = migrations;
	st->last_cpu = last_cpu;
	return 1;
}

int spawn_wait(struct spawn *sp, struct spawn_status *st)
{
	return reap(sp, st, 0) < 0 ? -1 : 0;
}

int spawn_poll(struct spawn *sp, struct spawn_status *st)
{
	return reap(sp, st, WNOHANG);
}

/* Signal the child's process group (the child alone without new_pgroup).  A group may
 * outlive its leader (a grandchild left running), and the kernel does not hand its id to a
 * new process while any member lives, so with new_pgroup the signal is still sent after the
 * child was reaped: that is how a caller clears stragglers.  Without a group, a reaped
 * child's pid may already be someone else's, so nothing is sent.  A group or child that
 * has already gone (ESRCH) is not an error. */
int spawn_kill_group(struct spawn *sp, int sig)
{
	if (sp->pid <= 0 || (sp->reaped && !sp->new_pgroup))
		return 0;
	pid_t target = sp->new_pgroup ? -sp->pid : sp->pid;
	if (kill(target, sig) < 0 && errno != ESRCH)
		return error_errno("cannot send signal %d to child %ld", sig, (long)sp->pid);
	return 0;
}

/* Close the pipes still open.  It reaps nothing: a started child must be waited for
 * (spawn_wait, or spawn_poll until it returns 1) or it stays a zombie. */
void spawn_release(struct spawn *sp)
{
	close_fd(&sp->in_fd);
	close_fd(&sp->out_fd);
	close_fd(&sp->rec_fd);
	close_fd(&sp->relay_fd);
}

/* Start, read stdout to EOF into *out, wait.  A record pipe cannot be drained here (the
 * child could block on it while we block on stdout), so asking for one is a bug. */
int spawn_run(struct spawn *sp, struct sbuf *out, struct spawn_status *st)
{
	if (sp->record_pipe)
		die("spawn_run: a record pipe needs spawn_start and a reader");
	if (out)
		sp->capture_stdout = 1;
	if (spawn_start(sp) < 0)
		return -1;
	int ret = 0;
	if (sp->out_fd >= 0) {
		char buf[8192];
		for (;;) {
			ssize_t n = read(sp->out_fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				ret = error_errno("cannot read the output of '%s'", sp->argv[0]);
				break;
			}
			if (n == 0)
				break;
			if (out)
				sbuf_add(out, buf, (size_t)n);
		}
		close_fd(&sp->out_fd);
	}
	if (spawn_wait(sp, st) < 0)
		ret = -1;
	return ret;
}

int spawn_call(int (*fn)(void *arg, int fd), void *arg, size_t cap, struct sbuf *out,
	       struct spawn_status *st)
{
	int fds[2];
	memset(st, 0, sizeof(*st)); /* filled once it ends */
	if (pipe(fds) < 0)
		return error_errno("cannot make a pipe");
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return error_errno("cannot fork");
	}
	if (pid == 0) {
		/* a crash here is the answer, not a finding: die of it quietly, whatever
		 * handlers the parent had (a sanitizer's, a fuzzer's) */
		static const int deadly[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
		for (size_t i = 0; i < ARRAY_SIZE(deadly); i++)
			signal(deadly[i], SIG_DFL);
		close(fds[0]);
		_exit(fn(arg, fds[1]));
	}
	close(fds[1]);
	char buf[4096];
	ssize_t n;
	while ((n = read(fds[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		sbuf_add(out, buf, (size_t)n);
		if (out->len > cap) { /* keep the last cap bytes */
			memmove(out->buf, out->buf + out->len - cap, cap);
			out->len = cap;
			out->buf[cap] = '\0';
		}
	}
	close(fds[0]);
	int ws = 0;
	struct rusage ru;
	while (wait4(pid, &ws, 0, &ru) < 0)
		if (errno != EINTR)
			return error_errno("cannot wait for process %ld", (long)pid);
	fill_status(ws, &ru, st);
	return 0;
}

