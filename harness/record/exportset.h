/* exportset.h: a folder of CSV files written as one set (`harness export --csv DIR`,
 * docs/export-format.md): built in a new temporary folder beside DIR, its manifest written
 * last, and renamed into place whole; and the manifest's check when the set is read back. */
#ifndef HARNESS_EXPORTSET_H
#define HARNESS_EXPORTSET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/base/util.h"

/* The manifest: CSV with the header `file,bytes,sha256` and one row per other file of the
 * set, in the order written. */
#define EXPORTSET_MANIFEST "manifest.csv"

struct exportset_file {
	char *name;         /* "samples.csv" (heap) */
	uint64_t bytes;
	char sha256[65];
};

/* Lifecycle:
 *   1. exportset_begin() checks DIR (missing, empty, or with force an earlier set: nothing
 *      else), removes the temporary folders that stopped exports left beside it (each named
 *      in a warning), and makes a new one, PARENT/.NAME.export-PID-XXXXXX.
 *   2. exportset_add() opens the next file of the set there; write to the stream it gives,
 *      then exportset_add() the next file or exportset_commit(): each file is flushed,
 *      synced, sized and hashed as it is closed.
 *   3. exportset_commit() writes the manifest last, syncs the folder and puts it in place
 *      as DIR: renamed onto a missing or empty DIR, or exchanged with the earlier set
 *      (renameat2 RENAME_EXCHANGE; where the file system has none, the old set is first
 *      renamed aside) and the old set removed.  Nothing of the new set is visible at DIR
 *      until then.
 *   4. exportset_release() removes the temporary folder when it is still there (any
 *      failure, or no commit) and frees everything.
 * Every function reports its own errors and returns -1 (exportset_add: NULL). */
struct exportset {
	char *dir;          /* the target, as given less trailing slashes (heap) */
	char *tmp;          /* the temporary folder while it exists (heap), else NULL */
	int replace;        /* 1: dir holds an earlier set, replaced whole at the commit */
	struct exportset_file *files; /* closed so far */
	size_t nfiles;
	/* the file being written */
	char *path;         /* tmp/name (heap), or NULL */
	int fd;
	FILE *f;
	int err;            /* the errno of its first failed write, or 0 */
	uint64_t bytes;
	struct util_sha256 *h;
};

/* names: the set's files (NULL-terminated, borrowed); with force an earlier set is
 * replaced, without it any DIR with entries is refused. */
int exportset_begin(struct exportset *s, const char *dir, int force, const char *const *names);
FILE *exportset_add(struct exportset *s, const char *name);
int exportset_commit(struct exportset *s);
void exportset_release(struct exportset *s);

/* Read DIR/manifest.csv into *files (heap; exportset_files_free).  0; 1 (nothing reported)
 * when there is no manifest; -1 reported when it cannot be read or is not a manifest. */
int exportset_manifest_read(const char *dir, struct exportset_file **files, size_t *n);
void exportset_files_free(struct exportset_file *files, size_t n);

/* For `harness import` of path, before it is read: when its folder is an export set (it
 * has a manifest, or path is samples.csv beside units.csv and summary.csv), path must be
 * the manifest's entry of its name, and every file the manifest lists must have the size
 * and hash it says (each is read and hashed here).  0 with want the manifest's SHA-256 of
 * path (the reader checks that what it read is that), or with want "" when the folder is
 * no export; else reported, -1: a set without its manifest, a file the manifest does not
 * list, one that differs from it. */
int exportset_check_import(const char *path, char want[65]);

#endif
