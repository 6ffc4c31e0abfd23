/* prereg.h: the pre-registration state of a run's hypothesis files as results-file metadata:
 * the git state (harness/config/hypothesis.h, struct hyp_git) of the n-th attached file,
 * stored as rec_meta keys "hypothesis_<n>_<key>" (docs/hypothesis-format.md).
 *
 * Lifecycle in a run (the scheduler):
 *   1. at run start, for the n-th hypothesis file (0-based, in the order the files are
 *      added to rec_meta with role "hypothesis"), call hyp_capture_git(path, bytes, len, meta, n)
 *      with the very bytes recorded for it, before rec_create();
 *   2. with --require-preregistered, call hyp_require_preregistered(meta) after the
 *      captures and before anything is written: -1 means refuse the run (exit 2).
 * The analysis layer reads the keys back (hyp_meta_get) to give each file its status. */
#ifndef HARNESS_PREREG_H
#define HARNESS_PREREG_H

#include <stddef.h>

#include "harness/record/recorder.h"

/* Capture the git state of the bytes recorded for path (hyp_git_capture) and store it in
 * meta with prefix "hypothesis_<index>_": path (as given), abspath, git_commit ("" when
 * none), git_time ("" when none), git_relpath, git_object_format, git_blob (of the bytes),
 * git_head_blob (HEAD's blob at the path, "" when none), git_state and git_clean ("1" when
 * the state is "clean", else "0").  Reports and returns -1 only when path cannot be
 * resolved. */
int hyp_capture_git(const char *path, const char *bytes, size_t len, struct rec_meta *meta,
		    size_t index);
/* 0 when every hypothesis_<n>_git_clean in meta is "1"; else reports each file that is
 * not ("hypothesis file 'h.toml' is not pre-registered: ...") and returns -1. */
int hyp_require_preregistered(const struct rec_meta *meta);
/* The value of "hypothesis_<index>_<key>" in meta, or NULL (borrowed from meta). */
const char *hyp_meta_get(const struct rec_meta *meta, size_t index, const char *key);

#endif
