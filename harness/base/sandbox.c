/* sandbox.c: the namespaces a unit runs in (see sandbox.h); the clone itself is spawn.c's */
#include "config.h"
#include "harness/base/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness/base/util.h"

static const char *const step_names[SANDBOX_NSTEPS] = { "user", "pid", "mount", "proc",
							"caps" };

const char *sandbox_step_name(int step)
{
	return step >= 0 && step < SANDBOX_NSTEPS ? step_names[step] : "?";
}

char *sandbox_held(const struct sandbox *sb)
{
	struct sbuf s;
	sbuf_init(&s);
	for (int i = 0; i < SANDBOX_NSTEPS; i++)
		if (sb->held & (1u << i))
			sbuf_addf(&s, "%s%s", s.len ? "," : "", step_names[i]);
	if (!s.len)
		sbuf_adds(&s, "none");
	return sbuf_detach(&s);
}

char *sandbox_refused(const struct sandbox *sb)
{
	struct sbuf s;
	sbuf_init(&s);
	for (int i = 0; i < SANDBOX_NSTEPS; i++)
		if (!(sb->held & (1u << i)))
			sbuf_addf(&s, "%s%s (%s)", s.len ? ", " : "", step_names[i],
				  sb->why[i] ? strerror(sb->why[i]) : "not tried");
	return sbuf_detach(&s);
}

void sandbox_hide_self(void)
{
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/* 1 when a line of /proc/self/mountinfo marks its mount shared (an optional field
 * "shared:N" before the " - " separator), 0 when none does or the file cannot be read. */
static int any_shared_mount(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0;
	int shared = 0;
	while (!shared && getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - ");
		if (sep)
			*sep = '\0';
		shared = strstr(line, " shared:") != NULL;
	}
	free(line);
	fclose(f);
	return shared;
}

static int resolve(const char *path, char out[PATH_MAX])
{
	if (!realpath(path, out))
		return error_errno("cannot resolve '%s'", path);
	return 0;
}

int sandbox_prepare(const struct sandbox *sb, struct sandbox_plan *p)
{
	memset(p, 0, sizeof(*p));
	if (resolve(sb->protect, p->protect))
		return -1;
	if (sb->writable) {
		if (resolve(sb->writable, p->writable))
			return -1;
		p->has_writable = 1;
	}
	if (sb->shared) {
		if (resolve(sb->shared, p->shared))
			return -1;
		p->has_shared = 1;
	}
	struct statvfs v;
	if (statvfs(p->protect, &v) < 0)
		return error_errno("cannot read the mount of '%s'", p->protect);
	static const struct {
		unsigned long st, ms;
	} keep[] = { { ST_NOSUID, MS_NOSUID },     { ST_NODEV, MS_NODEV },
		     { ST_NOEXEC, MS_NOEXEC },     { ST_NOATIME, MS_NOATIME },
		     { ST_NODIRATIME, MS_NODIRATIME }, { ST_RELATIME, MS_RELATIME } };
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++)
		if (v.f_flag & keep[i].st)
			p->keep_flags |= keep[i].ms;
	p->propagates = any_shared_mount();
	snprintf(p->uid_map, sizeof(p->uid_map), "%lu %lu 1\n", (unsigned long)geteuid(),
		 (unsigned long)geteuid());
	snprintf(p->gid_map, sizeof(p->gid_map), "%lu %lu 1\n", (unsigned long)getegid(),
		 (unsigned long)getegid());
	return 0;
}

/* From here on: the child, async-signal-safe calls only. */

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = strlen(s);
	ssize_t w = write(fd, s, n);
	int err = errno;
	close(fd);
	if (w != (ssize_t)n) {
		errno = w < 0 ? err : EIO;
		return -1;
	}
	return 0;
}

/* protect read-only but for writable and shared: they are bound onto themselves first, so
 * that the recursive bind of protect carries them as mounts of their own, which stay
 * writable when protect's is made read-only. */
static int protect_mount(const struct sandbox_plan *p)
{
	if (p->has_writable && mount(p->writable, p->writable, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -1;
	if (p->has_shared && mount(p->shared, p->shared, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -1;
	if (mount(p->protect, p->protect, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -1;
	return mount(NULL, p->protect, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | p->keep_flags,
		     NULL);
}

/* Empty the bounding and inheritable sets (and ambient): what it execs gets no
 * capabilities, even as uid 0.  Without CAP_SETPCAP (an unprivileged user outside a user
 * namespace) the bounding set stays, but such a user has none to begin with. */
static int drop_caps(int *err)
{
	int bset_ok = 1;
	for (int c = 0; c < 64; c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0)
			continue;
		if (errno != EINVAL) {
			bset_ok = 0;
			*err = errno;
		}
		break;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) < 0) {
		*err = errno;
		return -1;
	}
	return bset_ok || geteuid() != 0 ? 0 : -1;
}

int sandbox_enter(const struct sandbox_plan *p, int flags, unsigned *held, int *why)
{
	*held = 0;
	if (flags & CLONE_NEWUSER) {
		if ((write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT) ||
		    write_file("/proc/self/uid_map", p->uid_map) < 0 ||
		    write_file("/proc/self/gid_map", p->gid_map) < 0)
			return -1;
		*held |= 1u << SANDBOX_USER;
	}
	if (flags & CLONE_NEWPID)
		*held |= 1u << SANDBOX_PID;
	if (flags & CLONE_NEWNS) {
		/* Nothing mounted here may reach another namespace.  In a chroot "/" is no
		 * mount and cannot be made private: go on only where no mount is shared (a
		 * user namespace's mounts never propagate back). */
		int priv = mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
		int err = errno;
		if (priv < 0 && p->propagates && !(flags & CLONE_NEWUSER)) {
			why[SANDBOX_MOUNT] = err;
			why[SANDBOX_PROC] = err;
		} else {
			if (protect_mount(p) < 0)
				why[SANDBOX_MOUNT] = errno;
			else
				*held |= 1u << SANDBOX_MOUNT;
			if (!(flags & CLONE_NEWPID))
				why[SANDBOX_PROC] = EPERM;
			else if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
				       NULL) < 0)
				why[SANDBOX_PROC] = errno;
			else
				*held |= 1u << SANDBOX_PROC;
		}
	}
	int err = 0;
	if (drop_caps(&err) < 0)
		why[SANDBOX_CAPS] = err ? err : EPERM;
	else
		*held |= 1u << SANDBOX_CAPS;
	return 0;
}
