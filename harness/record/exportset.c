/* exportset.c: a folder of CSV files written as one set and put in place whole, with a
 * manifest of each file's size and SHA-256 written last (exportset.h) */
#include "config.h"
#include "harness/record/exportset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- where the set is built ------------------------------------------------------------- */

/* dir's parent folder and its last component (both heap): "a/b" -> "a", "b"; "b" -> ".". */
static void split_dir(const char *dir, char **parent, char **base)
{
	const char *slash = strrchr(dir, '/');
	if (!slash) {
		*parent = xstrdup(".");
		*base = xstrdup(dir);
	} else {
		*parent = slash == dir ? xstrdup("/") : xstrndup(dir, (size_t)(slash - dir));
		*base = xstrdup(slash + 1);
	}
}

/* Remove the temporary folders of exports to the same target that were stopped (killed, a
 * machine that went down): PARENT/.BASE.export-PID-XXXXXX whose process is gone.  A folder
 * of a process still running (another export, now) is left alone.  Each removal is said. */
static void clean_stale(const char *parent, const char *base)
{
	DIR *d = opendir(parent);
	if (!d)
		return;
	char *prefix = xasprintf(".%s.export-", base);
	size_t plen = strlen(prefix);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, plen))
			continue;
		char *end;
		errno = 0;
		long pid = strtol(e->d_name + plen, &end, 10);
		if (errno || end == e->d_name + plen || *end != '-' || pid <= 0)
			continue;
		if (pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue; /* its export may still be running */
		char *path = xasprintf("%s/%s", parent, e->d_name);
		if (util_rm_rf(path) == 0)
			warning("removed '%s', left by an export that was stopped (process %ld)", path,
				pid);
		free(path);
	}
	closedir(d);
	free(prefix);
}

/* 1 when name is one of names or the manifest. */
static int set_member(const char *name, const char *const *names)
{
	if (!strcmp(name, EXPORTSET_MANIFEST))
		return 1;
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

/* What is at dir now: 0 nothing or an empty folder; 1 an earlier set (every entry one of
 * its files); -1 reported: something else, or (without force) a folder with entries. */
static int check_target(const char *dir, int force, const char *const *names)
{
	struct stat st;
	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return error_errno("cannot check '%s'", dir);
	}
	if (!S_ISDIR(st.st_mode))
		return error("'%s' exists and is not a folder; export writes a folder of CSV files",
			     dir);
	DIR *d = opendir(dir);
	if (!d)
		return error_errno("cannot read '%s'", dir);
	struct dirent *e;
	char *foreign = NULL;
	size_t entries = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		entries++;
		if (!foreign && !set_member(e->d_name, names))
			foreign = xstrdup(e->d_name);
	}
	closedir(d);
	int rc = entries ? 1 : 0;
	if (entries && !force)
		rc = error("'%s' is not empty; export writes its set into a new or empty folder "
			   "(--force replaces an earlier export there whole)", dir);
	else if (foreign)
		rc = error("'%s' holds '%s', which is not a file of an export: --force replaces "
			   "only an earlier export's folder", dir, foreign);
	free(foreign);
	return rc;
}

int exportset_begin(struct exportset *s, const char *dir, int force, const char *const *names)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	s->dir = xstrndup(dir, n);
	char *parent = NULL, *base = NULL;
	int rc = -1;
	split_dir(s->dir, &parent, &base);
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || !strcmp(s->dir, "/")) {
		error("'%s': name the folder to write (its last part may not be '.' or '..')", dir);
		goto done;
	}
	clean_stale(parent, base);
	int t = check_target(s->dir, force, names);
	if (t < 0)
		goto done;
	s->replace = t;
	if (util_mkdir_p(parent, 0755))
		goto done;
	char *tmp = xasprintf("%s/.%s.export-%ld-XXXXXX", parent, base, (long)getpid());
	if (!mkdtemp(tmp)) {
		error_errno("cannot create a temporary folder beside '%s'", s->dir);
		free(tmp);
		goto done;
	}
	chmod(tmp, 0755);
	s->tmp = tmp;
	rc = 0;
done:
	free(parent);
	free(base);
	return rc;
}

/* ---- the files ---------------------------------------------------------------------------- */

/* The stream's writes go straight to write(2) (glibc's own stdio writes cannot be
 * interposed), so that tests can fail them on purpose (tests/stress/writefault.so), and
 * each byte is hashed and counted as written.  As fopencookie(3) asks: the bytes written,
 * fewer (0: none) on an error, kept in s->err. */
static ssize_t set_write(void *cookie, const char *buf, size_t n)
{
	struct exportset *s = cookie;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(s->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			if (!s->err)
				s->err = errno;
			break;
		}
		done += (size_t)w;
	}
	util_sha256_add(s->h, buf, done);
	s->bytes += done;
	return (ssize_t)done;
}

/* Flush, sync and close the file being written; its size and hash join s->files.  Errors
 * name the file where the set is going (DIR/NAME), as the user knows it. */
static int close_file(struct exportset *s)
{
	int rc = 0;
	struct exportset_file *f = &s->files[s->nfiles++];
	char *shown = xasprintf("%s/%s", s->dir, f->name);
	if (fflush(s->f) != 0 || ferror(s->f) || s->err) {
		errno = s->err ? s->err : errno;
		rc = error_errno("cannot write '%s'", shown);
	} else if (fsync(s->fd) != 0) {
		rc = error_errno("cannot write '%s'", shown);
	}
	fclose(s->f);
	s->f = NULL;
	if (close(s->fd) != 0 && rc == 0)
		rc = error_errno("cannot write '%s'", shown);
	s->fd = -1;
	free(shown);
	f->bytes = s->bytes;
	util_sha256_end(s->h, f->sha256);
	s->h = NULL;
	free(s->path);
	s->path = NULL;
	return rc;
}

FILE *exportset_add(struct exportset *s, const char *name)
{
	if (s->f && close_file(s))
		return NULL;
	s->path = xasprintf("%s/%s", s->tmp, name);
	s->fd = open(s->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (s->fd < 0) {
		error_errno("cannot create '%s'", s->path);
		return NULL;
	}
	s->files = xrealloc(s->files, (s->nfiles + 1) * sizeof(*s->files));
	s->files[s->nfiles] = (struct exportset_file){ .name = xstrdup(name) };
	s->err = 0;
	s->bytes = 0;
	s->h = util_sha256_begin();
	cookie_io_functions_t io = { .write = set_write };
	if (!(s->f = fopencookie(s, "w", io))) {
		error_errno("cannot open '%s'", s->path);
		return NULL;
	}
	return s->f;
}

/* fsync a folder so the names in it are on disk (best effort: some file systems refuse). */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int exportset_commit(struct exportset *s)
{
	if (s->f && close_file(s))
		return -1;
	/* the manifest, last: a folder with it holds every file it lists, complete */
	char *mpath = xasprintf("%s/%s", s->tmp, EXPORTSET_MANIFEST);
	struct sbuf m;
	sbuf_init(&m);
	sbuf_adds(&m, "file,bytes,sha256\n");
	for (size_t i = 0; i < s->nfiles; i++)
		sbuf_addf(&m, "%s,%" PRIu64 ",%s\n", s->files[i].name, s->files[i].bytes,
			  s->files[i].sha256);
	int rc = util_write_atomic(mpath, m.buf, m.len, 0644, UTIL_WRITE_EXCL);
	sbuf_release(&m);
	free(mpath);
	if (rc)
		return -1;
	sync_dir(s->tmp);
	char *parent = NULL, *base = NULL;
	split_dir(s->dir, &parent, &base);
	if (!s->replace) {
		/* onto nothing, or onto an empty folder (rename(2) replaces one) */
		if (rename(s->tmp, s->dir) < 0) {
			rc = error_errno("cannot rename '%s' to '%s'", s->tmp, s->dir);
			goto done;
		}
		free(s->tmp);
		s->tmp = NULL;
	} else if (renameat2(AT_FDCWD, s->tmp, AT_FDCWD, s->dir, RENAME_EXCHANGE) == 0) {
		/* the new set is DIR, the old one is at the temporary name: removed below */
	} else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
		/* no exchange here: the old set aside first, then the new one in place (a kill
		 * between the two leaves the old set in a .NAME.export-PID-* folder beside DIR,
		 * which the next export to DIR removes) */
		char *aside = xasprintf("%s/.%s.export-%ld-old", parent, base, (long)getpid());
		if (rename(s->dir, aside) < 0) {
			rc = error_errno("cannot rename '%s' to '%s'", s->dir, aside);
			free(aside);
			goto done;
		}
		if (rename(s->tmp, s->dir) < 0) {
			rc = error_errno("cannot rename '%s' to '%s'", s->tmp, s->dir);
			if (rename(aside, s->dir) < 0)
				error_errno("the earlier export is at '%s'", aside);
			free(aside);
			goto done;
		}
		free(s->tmp);
		s->tmp = aside;
	} else {
		rc = error_errno("cannot exchange '%s' with '%s'", s->tmp, s->dir);
		goto done;
	}
	sync_dir(parent);
	/* what is left at s->tmp is the earlier set: gone now that the new one is in place */
	if (s->tmp && util_rm_rf(s->tmp) == 0) {
		free(s->tmp);
		s->tmp = NULL;
	}
	rc = 0;
done:
	free(parent);
	free(base);
	return rc;
}

void exportset_release(struct exportset *s)
{
	if (s->f)
		fclose(s->f);
	if (s->fd >= 0)
		close(s->fd);
	if (s->h)
		util_sha256_end(s->h, NULL);
	if (s->tmp)
		util_rm_rf(s->tmp);
	exportset_files_free(s->files, s->nfiles);
	free(s->tmp);
	free(s->path);
	free(s->dir);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

/* ---- reading it back ---------------------------------------------------------------------- */

void exportset_files_free(struct exportset_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(files[i].name);
	free(files);
}

/* 1 when s is 64 lowercase hex digits. */
static int is_sha256(const char *s)
{
	size_t i = 0;
	for (; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == 64;
}

int exportset_manifest_read(const char *dir, struct exportset_file **files, size_t *n)
{
	char *path = xasprintf("%s/%s", dir, EXPORTSET_MANIFEST), *text = NULL;
	struct exportset_file *f = NULL;
	size_t nf = 0, len = 0, line = 1;
	int rc = -1;
	*files = NULL;
	*n = 0;
	struct stat st;
	if (lstat(path, &st) < 0 && errno == ENOENT) {
		free(path);
		return 1;
	}
	if (util_read_input(path, (size_t)1 << 20, &text, &len))
		goto done;
	char *save = NULL, *l = strtok_r(text, "\n", &save);
	if (!l || strcmp(l, "file,bytes,sha256")) {
		error("'%s':1: not an export's manifest (its first line is not "
		      "'file,bytes,sha256')", path);
		goto done;
	}
	while ((l = strtok_r(NULL, "\n", &save))) {
		line++;
		char *c1 = strchr(l, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		uint64_t bytes;
		if (c1)
			*c1 = '\0';
		if (c2)
			*c2 = '\0';
		if (!c2 || !*l || strchr(l, '/') || parse_u64(c1 + 1, &bytes) || !is_sha256(c2 + 1)) {
			error("'%s':%zu: not 'file,bytes,sha256' (a plain file name, its size in "
			      "bytes and its SHA-256 in lowercase hex)", path, line);
			goto done;
		}
		f = xrealloc(f, (nf + 1) * sizeof(*f));
		f[nf] = (struct exportset_file){ .name = xstrdup(l), .bytes = bytes };
		memcpy(f[nf++].sha256, c2 + 1, 65);
	}
	*files = f;
	*n = nf;
	f = NULL;
	nf = 0;
	rc = 0;
done:
	exportset_files_free(f, nf);
	free(text);
	free(path);
	return rc;
}

/* 1 when dir/name exists. */
static int exists_in(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct stat st;
	int r = lstat(p, &st) == 0;
	free(p);
	return r;
}

int exportset_check_import(const char *path, char want[65])
{
	want[0] = '\0';
	char *dir = NULL, *base = NULL;
	struct exportset_file *f = NULL;
	size_t nf = 0;
	int rc = -1;
	split_dir(path, &dir, &base);
	int m = exportset_manifest_read(dir, &f, &nf);
	if (m < 0)
		goto done;
	if (m == 1) {
		/* no manifest: refused when the folder looks like an export's */
		if (!strcmp(base, "samples.csv") && exists_in(dir, "units.csv") &&
		    exists_in(dir, "summary.csv")) {
			error("'%s' is an export's set without its %s (an export stopped before it "
			      "finished, or files put together by hand): its files cannot be "
			      "vouched for; export the results file again", dir, EXPORTSET_MANIFEST);
			goto done;
		}
		rc = 0;
		goto done;
	}
	size_t self = nf;
	for (size_t i = 0; i < nf; i++)
		if (!strcmp(f[i].name, base))
			self = i;
	if (self == nf) {
		error("'%s' is not listed in '%s/%s': not a file of that export", path, dir,
		      EXPORTSET_MANIFEST);
		goto done;
	}
	for (size_t i = 0; i < nf; i++) {
		char *p = i == self ? xstrdup(path) : xasprintf("%s/%s", dir, f[i].name), got[65];
		uint64_t size = 0;
		struct stat st;
		int ok = 1;
		if (lstat(p, &st) < 0 || util_sha256_file(p, got) < 0) {
			error_errno("'%s', listed in '%s/%s', cannot be read", p, dir, EXPORTSET_MANIFEST);
			ok = 0;
		} else {
			size = (uint64_t)st.st_size;
		}
		if (ok && size != f[i].bytes) {
			error("'%s' has %" PRIu64 " bytes, but '%s/%s' says %" PRIu64 ": the set was "
			      "changed or mixed with another export's files", p, size, dir,
			      EXPORTSET_MANIFEST, f[i].bytes);
			ok = 0;
		} else if (ok && strcmp(got, f[i].sha256)) {
			error("'%s' has SHA-256 %s, but '%s/%s' says %s: the set was changed or mixed "
			      "with another export's files", p, got, dir, EXPORTSET_MANIFEST,
			      f[i].sha256);
			ok = 0;
		}
		free(p);
		if (!ok)
			goto done;
	}
	memcpy(want, f[self].sha256, 65);
	rc = 0;
done:
	exportset_files_free(f, nf);
	free(dir);
	free(base);
	return rc;
}
