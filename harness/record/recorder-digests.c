/* recorder-digests.c: journal/digests, the SHA-256 of every journal unit file the harness
 * wrote, and the checks against it (recorder-int.h; docs/results-format.md, "The journal") */
#include "config.h"
#include "harness/record/recorder-int.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/util.h"

#define DIGESTS_FILE "digests"

/* journal/digests: one line "NNNN SHA256" per unit file, appended by the harness just
 * before it writes the file (the SHA-256 of the file's bytes).  Assembly and --resume
 * check every unit file against it: a unit file copied over another, or rewritten (by a
 * unit: the code under test runs as the same user), no longer matches.  A journal from
 * before the digests (no file) is read as before.  The last line for an id counts (a unit
 * whose write did not complete runs again and is digested again). */
static int digest_append(const char *dir, int64_t id, const char *hex)
{
	char *path = xasprintf("%s/%s", dir, DIGESTS_FILE);
	char line[96];
	/* a leading line break too: a line torn by a crash never runs into this one */
	int n = snprintf(line, sizeof(line), "\n%04" PRId64 " %s\n", id, hex), rc = -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, (size_t)n) != n || fsync(fd) < 0)
		error_errno("cannot write '%s'", path);
	else
		rc = 0;
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}

int rec_digest_before(void *ctx, const void *data, size_t len)
{
	const struct rec_digest_ctx *c = ctx;
	char hex[65];
	util_sha256_hex(data, len, hex);
	return digest_append(c->dir, c->id, hex);
}

char **rec_digests_load(const char *dir, size_t nplan)
{
	char *path = xasprintf("%s/%s", dir, DIGESTS_FILE), *text = NULL;
	struct stat st;
	/* nothing there: a journal from before the digests; something there that is not a
	 * regular file (a FIFO would block for ever) is refused by util_read_file, and reads
	 * as digests that match no unit file */
	if (lstat(path, &st) < 0) {
		free(path);
		return NULL;
	}
	char **d = xcalloc(nplan ? nplan : 1, sizeof(*d));
	if (util_read_file(path, &text, NULL)) {
		free(path);
		return d;
	}
	free(path);
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		long long id;
		char hex[80];
		if (sscanf(line, "%lld %79s", &id, hex) == 2 && id >= 0 && (size_t)id < nplan &&
		    strlen(hex) == 64) {
			free(d[id]);
			d[id] = xstrdup(hex); /* the last line for an id counts: a unit run again */
		}
	}
	free(text);
	return d;
}

void rec_digests_free(char **d, size_t nplan)
{
	for (size_t i = 0; d && i < nplan; i++)
		free(d[i]);
	free(d);
}

int rec_digest_check(char **d, int64_t id, const char *path, const char **why)
{
	char hex[65];
	if (!d)
		return 0;
	if (!d[id]) {
		*why = "the harness recorded no digest for it (it did not write this file)";
		return -1;
	}
	if (util_sha256_file(path, hex) < 0) {
		*why = "its bytes cannot be read";
		return -1;
	}
	if (strcmp(hex, d[id])) {
		*why = "its bytes differ from what the harness wrote (SHA-256 recorded in "
		       "journal/digests): changed after it was recorded";
		return -1;
	}
	return 0;
}
