/* hyp-set.c: the hypothesis files of one evaluation (hypothesis.h): those recorded in a
 * results file, from their recorded bytes, with their pre-registration status, and those
 * attached afterwards (POST-HOC) */
#include "config.h"
#include "harness/analysis/hyp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/util.h"
#include "harness/config/hypothesis.h"
#include "harness/record/prereg.h"

static const char *const status_names[] = { "PRE-REGISTERED", "UNCOMMITTED", "MODIFIED",
					    "POST-HOC" };

const char *hyp_status_name(enum hyp_status s)
{
	return (unsigned)s < ARRAY_SIZE(status_names) ? status_names[s] : "?";
}

/* ---- the set of files ---------------------------------------------------------------- */

void hyp_set_free(struct hyp_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		hyp_file_free(s->e[i].file);
		free(s->e[i].why);
	}
	free(s->e);
	free(s);
}

static int add_parsed(struct hyp_set *s, const char *path, const char *text, size_t len,
		      const char *what)
{
	struct hyp_file *f = NULL;
	char *cause = NULL;
	if (hyp_file_parse(path, text, len, &f, &cause)) {
		error("%s%s", cause, what);
		free(cause);
		return -1;
	}
	s->e = xrealloc(s->e, (s->n + 1) * sizeof(*s->e));
	memset(&s->e[s->n], 0, sizeof(s->e[s->n]));
	s->e[s->n++].file = f;
	return 0;
}

/* A file recorded as pre-registered keeps that status only if the recorded blob ids agree
 * with the recorded bytes, and, where the repository is at hand, the recorded commit still
 * holds exactly those bytes at the recorded path, on a branch or tag (a commit outside the
 * history, made aside with any date, is UNCOMMITTED).  Otherwise it becomes MODIFIED (judged
 * as exploratory), with the reason.  Files recorded before blob ids were kept are left as they
 * were, and say so. */
static void recheck_blob(const struct rec_meta *meta, size_t index, const struct rec_file *rf,
			 struct hyp_entry *e)
{
	const char *format = hyp_meta_get(meta, index, "git_object_format");
	const char *blob = hyp_meta_get(meta, index, "git_blob");
	const char *head = hyp_meta_get(meta, index, "git_head_blob");
	const char *commit = hyp_meta_get(meta, index, "git_commit");
	const char *rel = hyp_meta_get(meta, index, "git_relpath");
	const char *abs = hyp_meta_get(meta, index, "abspath");
	char *why = NULL;
	if (!format || !blob || !head || !rel) {
		why = xasprintf("%s; recorded before blob ids were kept, so not re-checked", e->why);
		goto done;
	}
	char mine[65];
	if (hyp_git_blob_id(format, rf->text, rf->len, mine) || strcmp(mine, blob) ||
	    strcmp(blob, head)) {
		e->status = HYP_MODIFIED;
		why = xasprintf("the recorded git blob ids (%.12s at HEAD) do not match the recorded "
				"bytes (%.12s): the results file was altered after the run",
				head, *mine ? mine : "?");
		goto done;
	}
	if (!abs || !commit || !*commit) {
		why = xstrdup(e->why);
		goto done;
	}
	const char *slash = strrchr(abs, '/');
	char *dir = slash ? xstrndup(abs, (size_t)(slash - abs) + (slash == abs)) : xstrdup(".");
	char *now = NULL;
	int rc = hyp_git_blob_at(dir, commit, rel, &now), reach = 1;
	if (rc == 0 && strcmp(now, blob)) {
		e->status = HYP_MODIFIED;
		why = xasprintf("commit %.12s holds blob %.12s at '%s', not the recorded bytes' %.12s",
				commit, now, rel, blob);
	} else if (rc == 0 && (reach = hyp_git_reachable(dir, commit)) != 1) {
		/* a commit on no branch or tag (made aside, with any date it likes) fixes
		 * nothing in the repository's history */
		e->status = HYP_UNCOMMITTED;
		why = xasprintf("commit %.12s holds the recorded bytes, but %s: a commit "
				"outside the history fixed nothing before the run", commit,
				reach == 0 ? "no branch or tag of its repository contains it"
					   : "git cannot say whether a branch or tag contains it");
	} else if (rc == 0) {
		why = xasprintf("%s; the recorded bytes are the blob commit %.12s holds, on a "
				"branch or tag (checked now)", e->why, commit);
	} else {
		why = xasprintf("%s; commit %.12s is not in a repository at hand, so not re-checked",
				e->why, commit);
	}
	free(now);
	free(dir);
done:
	free(e->why);
	e->why = why;
}

/* A file not committed where the run started (a bundle, a copy) is PRE-REGISTERED after
 * all when repo holds its recorded bytes in a commit older than the run's start: the
 * claims were fixed in that history before the data existed.  Otherwise it stays
 * UNCOMMITTED, and the reason says what repo holds. */
static void lookup_in_repo(const struct rec_meta *meta, const struct rec_file *rf,
			   const char *repo, struct hyp_entry *e)
{
	struct hyp_git_origin g;
	int rc = hyp_git_first_commit(repo, rf->text, rf->len, &g);
	const char *started = rec_meta_get(meta, "start_utc");
	int64_t start = util_utc_parse(started);
	char *why = NULL;
	if (rc < 0) {
		why = xasprintf("%s; '%s' is no git repository that could be read", e->why, repo);
	} else if (rc > 0) {
		why = xasprintf("%s; no commit of '%s' holds its bytes (blob %.12s)", e->why, repo,
				g.blob);
	} else if (start < 0) {
		why = xasprintf("%s; commit %.12s of '%s' holds its bytes at '%s', but the run "
				"records no start time to compare with", e->why, g.commit, repo, g.path);
	} else {
		char at[32];
		util_utc_format(g.time, at);
		if (g.time <= start) {
			e->status = HYP_PREREGISTERED;
			why = xasprintf("not committed where the run started (%s), but commit %.12s "
					"of '%s' put these bytes (blob %.12s) at '%s' on %s, before "
					"the run started (%s)", e->why, g.commit, repo, g.blob, g.path,
					at, started);
		} else {
			why = xasprintf("%s; commit %.12s of '%s' first holds its bytes at '%s' on %s, "
					"after the run started (%s)", e->why, g.commit, repo, g.path, at,
					started);
		}
	}
	hyp_git_origin_release(&g);
	free(e->why);
	e->why = why;
}

int hyp_set_load(const char *results_path, const struct rec_meta *meta,
		 const char *const *extra, size_t nextra, const char *repo, struct hyp_set **out)
{
	struct hyp_set *s = xcalloc(1, sizeof(*s));
	*out = NULL;
	size_t index = 0;
	for (size_t i = 0; i < meta->nfiles; i++) {
		const struct rec_file *rf = &meta->files[i];
		if (strcmp(rf->role, "hypothesis"))
			continue;
		char *what = xasprintf(" (as recorded in '%s')", results_path);
		int rc = add_parsed(s, rf->path, rf->text, rf->len, what);
		free(what);
		if (rc) {
			hyp_set_free(s);
			return -1;
		}
		struct hyp_entry *e = &s->e[s->n - 1];
		e->recorded = 1;
		const char *clean = hyp_meta_get(meta, index, "git_clean");
		const char *commit = hyp_meta_get(meta, index, "git_commit");
		const char *when = hyp_meta_get(meta, index, "git_time");
		if (clean && !strcmp(clean, "1")) {
			e->status = HYP_PREREGISTERED;
			e->why = xasprintf("committed and clean at run start (commit %.12s, %s)",
					   commit ? commit : "?", when ? when : "?");
			recheck_blob(meta, index, rf, e);
		} else {
			e->status = HYP_UNCOMMITTED;
			e->why = xstrdup(hyp_git_state_why(hyp_meta_get(meta, index, "git_state")));
			if (repo)
				lookup_in_repo(meta, rf, repo, e);
		}
		/* the recorded bytes must be the bytes whose hash was recorded */
		if (strcmp(rf->sha256, e->file->sha256)) {
			free(e->why);
			e->why = xasprintf("the recorded bytes hash to sha256 %.12s, not to the "
					   "recorded %.12s: the results file was altered after the run",
					   e->file->sha256, rf->sha256);
			e->status = HYP_MODIFIED;
		}
		/* the bytes on disk now, where the file was at run start: nothing there is no
		 * finding; something that is not a regular file (a FIFO, which would block a
		 * reader for ever) is refused by util_read_file, never opened for a blocking read */
		const char *now = hyp_meta_get(meta, index, "abspath");
		char *text = NULL;
		size_t len = 0;
		struct stat st;
		const char *where = now ? now : rf->path;
		if (e->status != HYP_MODIFIED && stat(where, &st) == 0) {
			if (util_read_file(where, &text, &len)) { /* reported */
				hyp_set_free(s);
				return -1;
			}
			if (len != rf->len || memcmp(text, rf->text, len)) {
				char sha[65];
				util_sha256_hex(text, len, sha);
				free(e->why);
				e->why = xasprintf("the file on disk (sha256 %.12s) differs from the "
						   "bytes recorded at run start (sha256 %.12s)", sha,
						   e->file->sha256);
				e->status = HYP_MODIFIED;
			}
			free(text);
		}
		index++;
	}
	for (size_t i = 0; i < nextra; i++) {
		char *text = NULL;
		size_t len = 0;
		if (util_read_file(extra[i], &text, &len)) {
			hyp_set_free(s);
			return -1;
		}
		char sha[65];
		util_sha256_hex(text, len, sha);
		int seen = 0;
		for (size_t k = 0; k < s->n && !seen; k++)
			seen = !strcmp(s->e[k].file->sha256, sha);
		int rc = seen ? 0 : add_parsed(s, extra[i], text, len, "");
		free(text);
		if (rc) {
			hyp_set_free(s);
			return -1;
		}
		if (!seen) {
			s->e[s->n - 1].status = HYP_POSTHOC;
			s->e[s->n - 1].why = xasprintf("not recorded in '%s': attached after the run",
						      results_path);
		}
	}
	*out = s;
	return 0;
}
