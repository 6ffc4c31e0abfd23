/* hyp-set.c: the hypothesis files of one evaluation (hypothesis.h): those recorded in a
 * results file, from their recorded bytes, with their pre-registration status, and those
 * attached afterwards (POST-HOC) */
#include "config.h"
#include "harness/analysis/hypothesis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
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

int hyp_set_load(const char *results_path, const struct rec_meta *meta,
		 const char *const *extra, size_t nextra, struct hyp_set **out)
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
		} else {
			e->status = HYP_UNCOMMITTED;
			e->why = xstrdup(hyp_git_state_why(hyp_meta_get(meta, index, "git_state")));
		}
		/* the bytes on disk now, where the file was at run start */
		const char *now = hyp_meta_get(meta, index, "abspath");
		char *text = NULL;
		size_t len = 0;
		FILE *probe = fopen(now ? now : rf->path, "rb");
		if (probe) {
			fclose(probe);
			if (!util_read_file(now ? now : rf->path, &text, &len) &&
			    (len != rf->len || memcmp(text, rf->text, len))) {
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
