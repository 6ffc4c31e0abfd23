/* recorder-rundir.c: a new run's folder appears whole: staged as RUNDIR.start-XXXXXX
 * (locked, with a note of the command that started it), filled, journal included, then
 * renamed into place; what a start killed before the rename left is promoted or removed
 * (recorder.h; docs/results-format.md, "The run folder") */
#include "config.h"
#include "harness/record/recorder-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/util.h"

#define LOCK_FILE "lock"
#define COMMAND_FILE "start-command"
#define STAGE_SUFFIX ".start-"

/* Take the writer's lock of folder dir (dir/lock, made when missing).  The lock fd, or -1
 * reported (another process holds it, or it cannot be opened). */
static int dir_lock(const char *dir)
{
	char *lock = xasprintf("%s/%s", dir, LOCK_FILE);
	int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		error_errno("cannot open '%s'", lock);
	else if (rec_writer_lock(fd, dir) < 0) {
		close(fd);
		fd = -1;
	}
	free(lock);
	return fd;
}

/* Append word to sb, single-quoted for a POSIX shell unless it needs no quoting. */
static void add_shell_word(struct sbuf *sb, const char *w)
{
	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			    "_-./=:,+@%") == strlen(w)) {
		sbuf_adds(sb, w);
		return;
	}
	sbuf_adds(sb, "'");
	for (; *w; w++)
		if (*w == '\'')
			sbuf_adds(sb, "'\\''");
		else
			sbuf_add(sb, w, 1);
	sbuf_adds(sb, "'");
}

int rec_run_dir_stage(const char *rundir, const char *const *argv, char **stage, int *fd)
{
	*stage = xasprintf("%s" STAGE_SUFFIX "XXXXXX", rundir);
	*fd = -1;
	if (!mkdtemp(*stage)) {
		error_errno("cannot create '%s'", *stage);
		free(*stage);
		*stage = NULL;
		return -1;
	}
	chmod(*stage, 0755);
	if ((*fd = dir_lock(*stage)) < 0)
		goto undo;
	/* the command line, to name it when this start is found killed (one line: the
	 * folder it ran in, then the words); none known, none noted */
	if (!argv || !argv[0])
		return 0;
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "cd ");
	char *cwd = getcwd(NULL, 0);
	add_shell_word(&sb, cwd ? cwd : ".");
	free(cwd);
	sbuf_adds(&sb, " &&");
	for (size_t i = 0; argv && argv[i]; i++) {
		sbuf_adds(&sb, " ");
		add_shell_word(&sb, argv[i]);
	}
	sbuf_adds(&sb, "\n");
	char *path = xasprintf("%s/%s", *stage, COMMAND_FILE);
	int rc = util_write_file(path, sb.buf, sb.len, 0444);
	free(path);
	sbuf_release(&sb);
	if (rc == 0)
		return 0;
undo:
	util_rm_rf(*stage);
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	free(*stage);
	*stage = NULL;
	return -1;
}

/* fsync folder dir (where it can be). */
static void sync_dir(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	if (fsync(dfd) < 0 && errno != EINVAL && errno != EROFS)
		error_errno("cannot write '%s' (fsync of the folder)", dir);
	close(dfd);
}

/* The folder that holds path ("." for a bare name).  Heap. */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
}

int rec_run_dir_commit(const char *stage, const char *rundir)
{
	char *cmd = xasprintf("%s/%s", stage, COMMAND_FILE);
	unlink(cmd);
	free(cmd);
	/* rename(2) puts a folder in place of an empty one: refuse any that exists */
	if (access(rundir, F_OK) == 0)
		return error("'%s' already exists; not overwriting a run", rundir);
	if (rename(stage, rundir) < 0) {
		if (errno == EEXIST || errno == ENOTEMPTY)
			return error("'%s' already exists; not overwriting a run", rundir);
		return error_errno("cannot rename '%s' to '%s'", stage, rundir);
	}
	char *parent = parent_of(rundir);
	sync_dir(parent);
	free(parent);
	return 0;
}

/* The command line a staged folder records (its start-command's line), or NULL.  Heap. */
static char *stage_command(const char *stage)
{
	char *path = xasprintf("%s/%s", stage, COMMAND_FILE), *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	free(path);
	if (!f)
		return NULL;
	char buf[8192];
	if (fgets(buf, sizeof(buf), f) && strchr(buf, '\n')) {
		buf[strcspn(buf, "\n")] = '\0';
		text = xstrdup(buf);
		len = strlen(text);
	}
	fclose(f);
	if (text && !len) {
		free(text);
		text = NULL;
	}
	return text;
}

int rec_run_dir_leftovers(const char *rundir, int promote, int *promoted, char **command)
{
	char *parent = parent_of(rundir);
	const char *base = strrchr(rundir, '/') ? strrchr(rundir, '/') + 1 : rundir;
	char *prefix = xasprintf("%s" STAGE_SUFFIX, base);
	DIR *d = opendir(parent);
	int rc = 0;
	*promoted = 0;
	*command = NULL;
	if (!d) {
		free(prefix);
		free(parent);
		return 0; /* no folder, no leftovers: rundir's own checks say the rest */
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t pl = strlen(prefix);
		if (strncmp(e->d_name, prefix, pl) || strlen(e->d_name) != pl + 6)
			continue;
		char *stage = !strcmp(parent, ".") ? xstrdup(e->d_name)
						   : xasprintf("%s/%s", parent, e->d_name);
		struct stat st;
		if (lstat(stage, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(stage);
			continue;
		}
		int fd = dir_lock(stage); /* reported when a start is under way there */
		if (fd < 0) {
			free(stage);
			rc = -1;
			continue;
		}
		char *jrun = xasprintf("%s/journal/run.h5", stage);
		int whole = access(jrun, F_OK) == 0;
		free(jrun);
		if (promote && whole && !*promoted) {
			/* its start made everything but the rename: finish it */
			int c = rec_run_dir_commit(stage, rundir);
			close(fd);
			if (c < 0)
				rc = -1;
			else
				warning("'%s': a start of this run killed before its last step; now "
					"'%s'", stage, rundir);
			*promoted = c == 0;
			free(stage);
			continue;
		}
		char *cmd = stage_command(stage);
		int rm = util_rm_rf(stage);
		close(fd);
		if (rm < 0) {
			rc = -1;
			free(cmd);
		} else {
			warning("'%s': removed, left by a start of this run killed before its "
				"journal was in place (nothing was recorded there)", stage);
			if (cmd) {
				free(*command);
				*command = cmd;
			}
		}
		free(stage);
	}
	closedir(d);
	free(prefix);
	free(parent);
	return rc;
}
