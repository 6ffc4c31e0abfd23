/* hyp-git.c: a hypothesis file's git state at one moment (hypothesis.h, "pre-commitment"):
 * git is run through spawn.h, in the file's folder, with a built environment */
#include "config.h"
#include "harness/config/hypothesis.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Commands run, in the file's folder (NAME is its base name):
 *   git rev-parse --is-inside-work-tree            (no: "not-a-repository")
 *   git status --porcelain --ignored -- NAME       ("??" untracked, "!!" ignored, else
 *                                                   "staged" or "modified" when not empty)
 *   git log -1 --format=%H%x09%cI -- NAME          (the commit that last touched it) */
int hyp_git_capture(const char *path, struct hyp_git *out)
{
	memset(out, 0, sizeof(*out));
	char *abs = realpath(path, NULL);
	if (!abs)
		return error_errno("cannot resolve hypothesis file '%s'", path);
	char *slash = strrchr(abs, '/');
	char *dir = xstrndup(abs, (size_t)(slash - abs) + (slash == abs));
	const char *name = slash + 1;
	struct sbuf out_buf;
	sbuf_init(&out_buf);
	const char *state = "clean";
	char *commit = xstrdup(""), *time = xstrdup("");
	const char *a_rev[] = { "rev-parse", "--is-inside-work-tree", NULL };
	const char *a_st[] = { "status", "--porcelain", "--ignored", "--", name, NULL };
	const char *a_log[] = { "log", "-1", "--format=%H%x09%cI", "--", name, NULL };
	int rc = run_git(dir, a_rev, &out_buf);
	if (rc < 0) {
		state = "git-failed";
	} else if (rc > 0 || strncmp(out_buf.buf, "true", 4)) {
		state = "not-a-repository";
	} else if (run_git(dir, a_st, &out_buf)) {
		state = "git-failed";
	} else {
		if (!strncmp(out_buf.buf, "??", 2))
			state = "untracked";
		else if (!strncmp(out_buf.buf, "!!", 2))
			state = "ignored";
		else if (out_buf.len >= 2 && out_buf.buf[1] != ' ')
			state = "modified";     /* changes in the worktree */
		else if (out_buf.len)
			state = "staged";       /* changes in the index only */
		if (run_git(dir, a_log, &out_buf) == 0 && out_buf.len) {
			char *tab = strchr(out_buf.buf, '\t');
			char *nl = strchr(out_buf.buf, '\n');
			if (nl)
				*nl = '\0';
			if (tab) {
				*tab = '\0';
				free(commit);
				free(time);
				commit = xstrdup(out_buf.buf);
				time = xstrdup(tab + 1);
			}
		}
		if (!strcmp(state, "clean") && !*commit)
			state = "not-committed";
	}
	out->path = xstrdup(path);
	out->abspath = abs;
	out->commit = commit;
	out->time = time;
	out->state = state;
	out->clean = !strcmp(state, "clean");
	sbuf_release(&out_buf);
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
