/* spawn-path.c: how a program name becomes the file spawn_start() runs (spawn.h,
 * spawn_find_program): execvp()'s search, done in the parent against the child's PATH */
#include "config.h"
#include "harness/base/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* PATH used when neither the child's env nor our own environment has one (as execvp). */
#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

static const char *env_lookup(const char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (; env && *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/* A relative program path made absolute against our working directory, so that it names
 * the same file after the child's chdir(dir).  Takes cand; NULL with errno set. */
static char *absolute(char *cand)
{
	if (cand[0] == '/')
		return cand;
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd))) {
		int err = errno;
		free(cand);
		errno = err;
		return NULL;
	}
	const char *rel = cand;
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	char *abs = xasprintf("%s/%s", strcmp(cwd, "/") ? cwd : "", rel);
	free(cand);
	return abs;
}

/* Resolve argv[0] the way execvp() would, but in the parent and against the child's PATH
 * (the parent's when env has none).  A relative result ("./prog", or found through a
 * relative PATH entry) is taken relative to our working directory, not the child's dir.
 * Returns a heap path or NULL with errno set. */
char *spawn_find_program(const char *prog, const char *const *env)
{
	if (strchr(prog, '/'))
		return absolute(xstrdup(prog));
	const char *path = env_lookup(env, "PATH");
	if (!path)
		path = getenv("PATH");
	if (!path)
		path = DEFAULT_PATH;
	int err = ENOENT;
	if (!*prog)
		goto fail;
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		char *cand = end == p ? xasprintf("./%s", prog)
				      : xasprintf("%.*s/%s", (int)(end - p), p, prog);
		struct stat st;
		if (!stat(cand, &st) && S_ISREG(st.st_mode)) {
			if (!access(cand, X_OK))
				return absolute(cand);
			err = EACCES;
		}
		free(cand);
		if (!*end)
			break;
		p = end;
	}
fail:
	errno = err;
	return NULL;
}


char *spawn_script_line(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char buf[256];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf) - 1)) < 0 && errno == EINTR)
		;
	close(fd);
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	for (char *c = buf; *c; c++) /* one printable line: it goes into a unit's info */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	return xstrdup(buf);
}
