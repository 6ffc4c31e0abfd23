/* prereg.c: hypothesis files' git state as run metadata, hypothesis_<n>_* (prereg.h) */
#include "config.h"
#include "harness/record/prereg.h"

#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/config/hypothesis.h"

static void meta_setf(struct rec_meta *m, size_t index, const char *key, const char *value)
{
	char *k = xasprintf("hypothesis_%zu_%s", index, key);
	rec_meta_set(m, k, value);
	free(k);
}

const char *hyp_meta_get(const struct rec_meta *m, size_t index, const char *key)
{
	char *k = xasprintf("hypothesis_%zu_%s", index, key);
	const char *v = rec_meta_get(m, k);
	free(k);
	return v;
}

int hyp_capture_git(const char *path, const char *bytes, size_t len, struct rec_meta *meta,
		    size_t index)
{
	struct hyp_git g;
	if (hyp_git_capture(path, bytes, len, &g))
		return -1;
	meta_setf(meta, index, "path", g.path);
	meta_setf(meta, index, "abspath", g.abspath);
	meta_setf(meta, index, "git_commit", g.commit);
	meta_setf(meta, index, "git_time", g.time);
	meta_setf(meta, index, "git_relpath", g.relpath);
	meta_setf(meta, index, "git_object_format", g.object_format);
	meta_setf(meta, index, "git_blob", g.blob);
	meta_setf(meta, index, "git_head_blob", g.head_blob);
	meta_setf(meta, index, "git_state", g.state);
	meta_setf(meta, index, "git_clean", g.clean ? "1" : "0");
	hyp_git_release(&g);
	return 0;
}

int hyp_require_preregistered(const struct rec_meta *meta)
{
	int bad = 0;
	for (size_t i = 0;; i++) {
		const char *path = hyp_meta_get(meta, i, "path");
		if (!path)
			break;
		const char *clean = hyp_meta_get(meta, i, "git_clean");
		if (clean && !strcmp(clean, "1"))
			continue;
		error("hypothesis file '%s' is not pre-registered: %s (commit it, or run without "
		      "--require-preregistered)", path, hyp_git_state_why(hyp_meta_get(meta, i, "git_state")));
		bad = 1;
	}
	return bad ? -1 : 0;
}
