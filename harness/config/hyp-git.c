/* hyp-git.c: a hypothesis file's git state at one moment (hypothesis.h, "pre-commitment"):
 * git is run through spawn.h, in the file's folder, with a built environment */
#include "config.h"
#include "harness/config/hypothesis.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "harness/base/spawn.h"
#include "harness/base/util.h"

/* ---- pre-commitment: git ----------------------------------------------------------------- */

/* Run git with args in dir; 0 and *out (stdout) when it exits 0, 1 when it exits non-zero,
 * -1 when it could not be run at all (nothing reported: git missing is a recorded state). */
static int run_git(const char *dir, const char *const *args, struct sbuf *out)
{
	const char *argv[16];
	size_t n = 0;
	argv[n++] = "git";
	for (size_t i = 0; args[i] && n < ARRAY_SIZE(argv) - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	/* a built environment: PATH and HOME (for the user's safe.directory) only */
	const char *path = getenv("PATH"), *home = getenv("HOME");
	char *envs[4];
	size_t ne = 0;
	envs[ne++] = xasprintf("PATH=%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
	if (home)
		envs[ne++] = xasprintf("HOME=%s", home);
	envs[ne++] = xstrdup("GIT_OPTIONAL_LOCKS=0");
	envs[ne] = NULL;
	struct spawn sp;
	spawn_init(&sp);
	sp.argv = argv;
	sp.env = (const char *const *)envs;
	sp.dir = dir;
	sbuf_reset(out);
	struct spawn_status st;
	/* spawn_run reports an exec failure; a missing git is a state we record, not an error */
	fflush(stderr);
	int rc = spawn_run(&sp, out, &st);
	spawn_release(&sp);
	for (size_t i = 0; i < ne; i++)
		free(envs[i]);
	if (rc)
		return -1;
	return st.exited && st.code == 0 ? 0 : 1;
}

int hyp_git_blob_id(const char *format, const void *bytes, size_t len, char out[65])
{
	const EVP_MD *md = !strcmp(format, "sha1") ? EVP_sha1() : !strcmp(format, "sha256") ? EVP_sha256() : NULL;
	out[0] = '\0';
	if (!md)
		return -1;
	char head[64];
	int hn = snprintf(head, sizeof(head), "blob %zu", len);
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned dn = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c || !EVP_DigestInit_ex(c, md, NULL) || !EVP_DigestUpdate(c, head, (size_t)hn + 1) ||
	    !EVP_DigestUpdate(c, bytes, len) || !EVP_DigestFinal_ex(c, d, &dn)) {
		EVP_MD_CTX_free(c);
		return -1;
	}
	EVP_MD_CTX_free(c);
	for (unsigned i = 0; i < dn; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	return 0;
}

/* The first line of out, trimmed of its newline (in place). */
static const char *first_line(struct sbuf *out)
{
	char *nl = strchr(out->buf, '\n');
	if (nl)
		*nl = '\0';
	return out->buf;
}

int hyp_git_blob_at(const char *dir, const char *rev, const char *relpath, char **blob)
{
	*blob = NULL;
	struct sbuf out;
	sbuf_init(&out);
	char *spec = xasprintf("%s:%s", rev, relpath);
	const char *a[] = { "rev-parse", "--verify", "--quiet", spec, NULL };
	int rc = run_git(dir, a, &out);
	if (rc == 0 && out.len)
		*blob = xstrdup(first_line(&out));
	else if (rc == 0)
		rc = 1;
	free(spec);
	sbuf_release(&out);
	return rc;
}

int hyp_git_first_commit(const char *dir, const void *bytes, size_t len,
			 struct hyp_git_origin *out)
{
	memset(out, 0, sizeof(*out));
	struct sbuf o;
	sbuf_init(&o);
	const char *a_fmt[] = { "rev-parse", "--show-object-format", NULL };
	int rc = run_git(dir, a_fmt, &o) ? -1 : 0; /* git failed, or dir is in no repository */
	if (rc)
		goto done;
	char blob[65];
	if (hyp_git_blob_id(first_line(&o), bytes, len, blob)) {
		rc = -1;
		goto done;
	}
	out->blob = xstrdup(blob);
	char *find = xasprintf("--find-object=%s", blob);
	/* oldest first: each commit's line "C<TAB>hash<TAB>unix time", then its raw diff lines
	 * ":mode mode old new status<TAB>path" of the paths whose blob is this one */
	const char *a_log[] = { "log", "--branches", "--tags", "--remotes", "--reverse",
				"--format=C%x09%H%x09%ct", "--raw",
				"--no-abbrev", "--no-renames", find, NULL };
	rc = run_git(dir, a_log, &o) ? -1 : 0;
	free(find);
	if (rc)
		goto done;
	rc = 1;
	char *commit = NULL, *when = NULL;
	for (char *l = o.buf; l && *l && rc == 1;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(l, "C\t", 2)) {
			commit = l + 2;
			when = strchr(commit, '\t');
			if (when)
				*when++ = '\0';
		} else if (*l == ':' && commit && when) {
			/* ":100644 100644 OLD NEW A\tpath": the commit added these bytes at path */
			char *tab = strchr(l, '\t');
			char *f[5] = { 0 };
			char *save = NULL, *tok = strtok_r(l + 1, " \t", &save);
			for (int i = 0; i < 5 && tok; i++, tok = strtok_r(NULL, " \t", &save))
				f[i] = tok;
			if (tab && f[3] && !strcmp(f[3], blob) && f[4] && *f[4] != 'D') {
				out->commit = xstrdup(commit);
				out->time = (int64_t)strtoll(when, NULL, 10);
				out->path = xstrdup(tab + 1);
				rc = 0;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
done:
	sbuf_release(&o);
	return rc;
}

void hyp_git_origin_release(struct hyp_git_origin *g)
{
	free(g->blob);
	free(g->commit);
	free(g->path);
	memset(g, 0, sizeof(*g));
}

int hyp_git_reachable(const char *dir, const char *commit)
{
	struct sbuf o;
	sbuf_init(&o);
	char *contains = xasprintf("--contains=%s", commit);
	const char *a[] = { "for-each-ref", "--count=1", "--format=%(refname)", contains,
			    "refs/heads", "refs/tags", "refs/remotes", NULL };
	int rc = run_git(dir, a, &o);
	rc = rc ? -1 : o.len ? 1 : 0;
	free(contains);
	sbuf_release(&o);
	return rc;
}

int hyp_git_anchor_commit(const char *dir, const char *message, char **commit)
{
	struct sbuf o;
	sbuf_init(&o);
	*commit = NULL;
	const char *a_rev[] = { "rev-parse", "--is-inside-work-tree", NULL };
	const char *a_commit[] = { "commit", "--allow-empty", "--only", "--no-verify", "-q", "-m",
				   message, NULL };
	const char *a_head[] = { "rev-parse", "--verify", "HEAD", NULL };
	int rc = run_git(dir, a_rev, &o);
	if (rc < 0) {
		rc = error("cannot run git in '%s'", dir);
	} else if (rc > 0 || strncmp(o.buf, "true", 4)) {
		rc = 1;
	} else if (run_git(dir, a_commit, &o)) {
		rc = error("'%s': git commit of the record digest failed", dir);
	} else if (run_git(dir, a_head, &o) || !o.len) {
		rc = error("'%s': git rev-parse HEAD failed after the commit", dir);
	} else {
		*commit = xstrdup(first_line(&o));
		rc = 0;
	}
	sbuf_release(&o);
	return rc;
}

int hyp_git_anchor_find(const char *dir, const char *needle, char **commit, char **when)
{
	struct sbuf o;
	sbuf_init(&o);
	*commit = *when = NULL;
	char *grep = xasprintf("--grep=%s", needle);
	const char *a[] = { "log", "--branches", "--tags", "--remotes", "--reverse",
			    "--fixed-strings", grep, "--format=%H%x09%cI", NULL };
	int rc = run_git(dir, a, &o) ? -1 : 1;
	if (rc == 1 && o.len) {
		const char *l = first_line(&o);
		const char *tab = strchr(l, '\t');
		if (tab) {
			*commit = xstrndup(l, (size_t)(tab - l));
			*when = xstrdup(tab + 1);
			rc = 0;
		}
	}
	free(grep);
	sbuf_release(&o);
	return rc;
}

/* The state is decided from the bytes themselves, never from git's index flags: the blob id
 * of the recorded bytes is computed here and compared with the blob HEAD holds at the file's
 * path (`git rev-parse HEAD:<path>`), so `git update-index --assume-unchanged` or
 * `--skip-worktree` on an edited file cannot make it look committed.  Commands run, in the
 * file's folder (NAME is its base name):
 *   git rev-parse --is-inside-work-tree --show-prefix --show-object-format
 *                                                  (no: "not-a-repository")
 *   git rev-parse --verify --quiet HEAD:<prefix>NAME   (the committed blob, if any)
 *   git rev-parse --verify --quiet :<prefix>NAME       (the staged blob, if any)
 *   git status --porcelain --ignored -- NAME       (only to name an uncommitted file's state:
 *                                                   "??" untracked, "!!" ignored)
 *   git log -1 --format=%H%x09%cI -- NAME          (the commit that last touched it) */
int hyp_git_capture(const char *path, const char *bytes, size_t len, struct hyp_git *out)
{
	memset(out, 0, sizeof(*out));
	char *abs = realpath(path, NULL);
	if (!abs)
		return error_errno("cannot resolve hypothesis file '%s'", path);
	char *slash = strrchr(abs, '/');
	char *dir = xstrndup(abs, (size_t)(slash - abs) + (slash == abs));
	const char *name = slash + 1;
	struct sbuf o;
	sbuf_init(&o);
	const char *state = "clean";
	char *commit = xstrdup(""), *time = xstrdup(""), *relpath = xstrdup(""),
	     *format = xstrdup(""), *head_blob = NULL, *index_blob = NULL;
	char blob[65] = "";
	const char *a_rev[] = { "rev-parse", "--is-inside-work-tree", "--show-prefix",
				"--show-object-format", NULL };
	const char *a_st[] = { "status", "--porcelain", "--ignored", "--", name, NULL };
	const char *a_log[] = { "log", "-1", "--format=%H%x09%cI", "--", name, NULL };
	int rc = run_git(dir, a_rev, &o);
	if (rc < 0) {
		state = "git-failed";
		goto done;
	}
	if (rc > 0 || strncmp(o.buf, "true\n", 5)) {
		state = "not-a-repository";
		goto done;
	}
	/* three lines: "true", the prefix (may be empty), the object format */
	char *l2 = o.buf + 5, *nl2 = strchr(l2, '\n');
	char *l3 = nl2 ? nl2 + 1 : NULL, *nl3 = l3 ? strchr(l3, '\n') : NULL;
	if (!nl2 || !nl3) {
		state = "git-failed";
		goto done;
	}
	*nl2 = *nl3 = '\0';
	free(relpath);
	free(format);
	relpath = xasprintf("%s%s", l2, name);
	format = xstrdup(l3);
	if (hyp_git_blob_id(format, bytes, len, blob)) {
		state = "git-failed";
		goto done;
	}
	if (hyp_git_blob_at(dir, "HEAD", relpath, &head_blob) < 0 ||
	    hyp_git_blob_at(dir, "", relpath, &index_blob) < 0) {
		state = "git-failed";
		goto done;
	}
	if (head_blob && !strcmp(head_blob, blob)) {
		state = "clean";
	} else if (head_blob) {
		state = index_blob && !strcmp(index_blob, blob) ? "staged" : "modified";
	} else if (run_git(dir, a_st, &o)) {
		state = "git-failed";
	} else if (!strncmp(o.buf, "??", 2)) {
		state = "untracked";
	} else if (!strncmp(o.buf, "!!", 2)) {
		state = "ignored";
	} else {
		state = index_blob && !strcmp(index_blob, blob) ? "staged" : "not-committed";
	}
	if (run_git(dir, a_log, &o) == 0 && o.len) {
		char *tab = strchr(o.buf, '\t');
		first_line(&o);
		if (tab) {
			*tab = '\0';
			free(commit);
			free(time);
			commit = xstrdup(o.buf);
			time = xstrdup(tab + 1);
		}
	}
done:
	out->path = xstrdup(path);
	out->abspath = abs;
	out->commit = commit;
	out->time = time;
	out->relpath = relpath;
	out->object_format = format;
	out->blob = xstrdup(blob);
	out->head_blob = head_blob ? head_blob : xstrdup("");
	out->state = state;
	out->clean = !strcmp(state, "clean");
	free(index_blob);
	sbuf_release(&o);
	free(dir);
	return 0;
}

void hyp_git_release(struct hyp_git *g)
{
	if (!g)
		return;
	free(g->path);
	free(g->abspath);
	free(g->commit);
	free(g->time);
	free(g->relpath);
	free(g->object_format);
	free(g->blob);
	free(g->head_blob);
	memset(g, 0, sizeof(*g));
}

/* Why a git state is not pre-registered, in words. */
const char *hyp_git_state_why(const char *state)
{
	if (!state)
		return "no git state was recorded for it at run start";
	if (!strcmp(state, "modified"))
		return "it had uncommitted changes at run start";
	if (!strcmp(state, "staged"))
		return "it had staged but uncommitted changes at run start";
	if (!strcmp(state, "untracked"))
		return "it was not tracked by git at run start";
	if (!strcmp(state, "ignored"))
		return "it was ignored by git at run start";
	if (!strcmp(state, "not-committed"))
		return "no commit contained it at run start";
	if (!strcmp(state, "not-a-repository"))
		return "it was not in a git repository at run start";
	if (!strcmp(state, "git-failed"))
		return "git could not be run at run start";
	return "its git state at run start was unknown";
}
