/* spawn.h: the one place that starts processes (fork + exec, never a shell).
 *
 * Lifecycle, like git's child_process:
 *   1. spawn_init(&sp); fill argv, env, dir and the redirections;
 *   2. spawn_start(&sp) forks and execs; argv and envp are built before fork, the child
 *      only calls async-signal-safe functions, closes descriptors above 2 (and 3 when a
 *      record pipe is asked for) and execs; an exec failure comes back through a
 *      close-on-exec pipe and spawn_start reports it and returns -1;
 *   3. read the pipes you asked for; spawn_wait() / spawn_poll() reap the child and fill
 *      struct spawn_status; spawn_kill_group() signals its process group;
 *   4. spawn_release(&sp) closes what is still open.
 * spawn_run() does 2 and 3 for a child whose output goes to files or is captured whole.
 * With a sandbox (sandbox.h) the child is cloned into new namespaces; with a PID namespace it
 * stays there as init and the program runs as its child (passing on SIGTERM, SIGINT, SIGHUP,
 * SIGQUIT, SIGUSR1, SIGUSR2 to its process group, relaying its status to spawn_wait/poll):
 * spawn's pid is the init's, and everything in the namespace dies when it ends.
 * Nothing else in the program calls fork, exec*, system or popen. */
#ifndef HARNESS_SPAWN_H
#define HARNESS_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "harness/base/sandbox.h"
#include "harness/base/util.h"

struct spawn_status {
	int exited;    /* 1: exited normally with code */
	int code;      /* exit code, or 128 + signal when killed by one */
	int signaled;  /* 1: ended by signal sig */
	int sig;
	int64_t cpu_ns; /* user + system CPU time of the child and of the descendants it
			 * waited for (wait4's rusage); -1: not known */
	int64_t user_ns, sys_ns; /* the same, user and system apart; -1: not known */
	long maxrss_kb;       /* the largest resident set of the child or of a descendant it
			       * waited for (rusage ru_maxrss, KiB); -1: not known */
	int64_t vcsw, ivcsw;  /* their voluntary and involuntary context switches (rusage);
			       * -1: not known */
	int64_t minflt, majflt; /* their minor and major page faults (rusage); -1: not known */
	long long migrations; /* the child's main thread's moves between CPUs, and the CPU it */
	int last_cpu;         /* last ran on, read from /proc while it is a zombie, before it
			       * is reaped, when note_sched is set (sysinfo_proc_sched); -1
			       * otherwise, or where /proc cannot tell */
};

struct spawn {
	/* Inputs (borrowed; must stay valid until spawn_start returns). */
	const char *const *argv;  /* argv[0] is run as given: a path, or searched in PATH when
	                             it has no '/' (PATH of env, else of the parent) */
	const char *const *env;   /* NULL-terminated "NAME=value"; NULL means an EMPTY env */
	const char *dir;          /* working directory or NULL */
	const char *stdin_path;   /* NULL: /dev/null */
	int pipe_stdin;           /* 1: a pipe (stdin_path ignored); write it to in_fd */
	const char *stdout_path;  /* NULL with capture_stdout == 0: /dev/null; else file (truncated) */
	const char *stderr_path;
	int capture_stdout;       /* 1: a pipe; read it from out_fd */
	int inherit_stderr;       /* 1: the child writes to our stderr (stderr_path ignored) */
	int inherit_stdout;       /* 1: the child writes to our stdout (stdout_path and
	                             capture_stdout ignored) */
	int record_pipe;          /* 1: the child's fd 3 is the write end of a pipe; read rec_fd */
	int new_pgroup;           /* 1: the child leads its own process group */
	int die_with_parent;      /* 1: the child is killed (SIGKILL) when this process dies,
	                             however it dies (PR_SET_PDEATHSIG; the caller must spawn
	                             from the thread that lives as long as the process) */
	struct sandbox *sandbox;  /* NULL, or the namespaces to run it in (sandbox.h; borrowed):
	                             spawn_start fills its held and why */
	int light;                /* 1: started by posix_spawn, the parent's memory not
	                             copied (a start that costs the same for a large parent:
	                             process timing); only argv, env, dir, stderr_path or
	                             inherit_stderr, with inherit_stdout set and nothing else */
	int note_sched;           /* 1: spawn_poll and spawn_wait read the child's CPU moves
	                             and last CPU (spawn_status) once it has exited, before
	                             they reap it (nothing is read while it works) */

	/* Outputs. */
	pid_t pid;
	int in_fd;                /* -1 unless pipe_stdin: the write end (close-on-exec) */
	int out_fd;               /* -1 unless capture_stdout */
	int rec_fd;               /* -1 unless record_pipe */
	int relay_fd;             /* with a PID namespace, its init's pipe: the status of the
	                             program it ran (read when it is reaped), else -1 */
	int reaped;
};

/* Resolve a program the way spawn_start() will run it: a name without '/' is searched in
 * env's PATH (the parent's when env has none), and a relative result is made absolute.
 * A new heap path, or NULL with errno set (ENOENT, EACCES).  Nothing is reported. */
char *spawn_find_program(const char *prog, const char *const *env);
/* The first line of path when it is a script ("#!/usr/bin/env bash": an interpreter runs it,
 * as a version manager's shim is run), control characters made blanks; heap, or NULL when
 * it is not one (a binary) or cannot be read. */
char *spawn_script_line(const char *path);

void spawn_init(struct spawn *sp);
int spawn_start(struct spawn *sp);
/* Blocking wait; 0 and *st, or -1 reported. */
int spawn_wait(struct spawn *sp, struct spawn_status *st);
/* Non-blocking: 1 and *st when the child has ended, 0 when still running, -1 reported. */
int spawn_poll(struct spawn *sp, struct spawn_status *st);
/* Send sig to the child's process group (or to the child when it has none). */
int spawn_kill_group(struct spawn *sp, int sig);
void spawn_release(struct spawn *sp);
/* Start, collect stdout into *out (when out != NULL; capture_stdout is set for you), wait.
 * Returns 0 and *st, or -1 reported. */
int spawn_run(struct spawn *sp, struct sbuf *out, struct spawn_status *st);
/* Call fn(arg, fd) in a forked child (no exec) that then _exits with fn's return value, for
 * work that might crash the process (a library reading a damaged file): fd is a pipe to the
 * parent, whose bytes go into *out (sbuf; what came last is kept when more than cap bytes
 * come).  Returns 0 and *st once the child has ended (exited or killed), -1 reported when
 * no child could be made. */
int spawn_call(int (*fn)(void *arg, int fd), void *arg, size_t cap, struct sbuf *out,
	       struct spawn_status *st);

#endif
