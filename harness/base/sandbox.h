/* sandbox.h: where a unit runs, so that the code under test cannot reach the record
 * (docs/reliability.md, "What a unit can and cannot do").
 *
 * Given a struct sandbox, spawn_start() (spawn.h) starts the child in new namespaces and
 * sets it up before it execs, one step each:
 *   user   a user namespace, its own uid and gid mapped to themselves: the steps below
 *          need no privilege;
 *   pid    a PID namespace whose init is the child: every process it leaves behind, in its
 *          process group or not (setsid), dies when it ends, and it dies with the harness;
 *   mount  a mount namespace of its own in which `protect` (the results folder: the run
 *          folder, its journal, the results file) is read-only, but for `writable` (the
 *          unit's cache folder, inside it);
 *   proc   a /proc of its own PID namespace: the harness's processes (their environment,
 *          their command lines) are not there to read;
 *   caps   no capabilities left (bounding set and inheritable set empty): it cannot undo
 *          the mounts, whatever its uid.
 * Where the kernel refuses a step (no user namespaces in a chroot or in a container, no
 * privilege for a mount namespace without one), the child still runs, with the steps that
 * held; `held` says which and `why` why not.  The harness records that per unit and the
 * audit WARNs (audit-isolation.c). */
#ifndef HARNESS_SANDBOX_H
#define HARNESS_SANDBOX_H

#include <limits.h>

enum sandbox_step { SANDBOX_USER, SANDBOX_PID, SANDBOX_MOUNT, SANDBOX_PROC, SANDBOX_CAPS,
		    SANDBOX_NSTEPS };

struct sandbox {
	const char *protect;       /* a folder the child may read but not write (borrowed) */
	const char *writable;      /* inside it, the folder it may write, or NULL */
	const char *shared;        /* inside it, one more it may write (a run's check folder,
				    * for the harness's own worker), or NULL */
	unsigned held;             /* out: bit 1u << step for each step that held */
	int why[SANDBOX_NSTEPS];   /* out: for each step that did not, its errno (0: not asked) */
};

/* "user", "pid", ... */
const char *sandbox_step_name(int step);
/* For the record, heap: the steps that held, "user,pid,mount,proc,caps" ("none": none);
 * and those that did not, "user (Operation not permitted), ..." ("": none). */
char *sandbox_held(const struct sandbox *sb);
char *sandbox_refused(const struct sandbox *sb);

/* Close this process's /proc files that ptrace's rules guard (environ, mem, maps, fds...) to
 * processes of its user without CAP_SYS_PTRACE, units included (PR_SET_DUMPABLE 0: no
 * core dumps either).  A child's exec opens its own again. */
void sandbox_hide_self(void);

/* For spawn.c.  Everything the child needs, prepared in the parent (the child allocates
 * nothing and calls only async-signal-safe functions). */
struct sandbox_plan {
	char protect[PATH_MAX], writable[PATH_MAX], shared[PATH_MAX]; /* absolute, symlinks
									* resolved */
	int has_writable, has_shared;
	int propagates;            /* some mount propagates to other namespaces (shared:): bind
				    * mounts only where "/" can be made private first */
	unsigned long keep_flags;  /* protect's mount's flags (nosuid, nodev, ...), kept when it
				    * is made read-only: a user namespace may not clear them */
	char uid_map[48], gid_map[48];
};
/* Resolve sb's folders and read what the child will need.  0, or -1 reported. */
int sandbox_prepare(const struct sandbox *sb, struct sandbox_plan *p);
/* In the child, just after clone(flags): the steps flags allow (CLONE_NEWUSER,
 * CLONE_NEWNS, CLONE_NEWPID), then caps; *held and why[] filled.  Returns 0, or -1 with
 * errno when the namespaces cannot be used at all (the user namespace's id maps were
 * refused): the caller tries again with fewer. */
int sandbox_enter(const struct sandbox_plan *p, int flags, unsigned *held, int *why);

#endif
