/* backend.c: the backend table, lookup by name, and where the kernel templates live */
#include "config.h"
#include "kernels/backend.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const struct backend_ops backend_cpu;

const struct backend_ops *const backend_table[] = {
	&backend_cpu,
	NULL,
};

const struct backend_ops *backend_find(const char *name)
{
	for (size_t i = 0; backend_table[i]; i++)
		if (!strcmp(backend_table[i]->name, name))
			return backend_table[i];
	return NULL;
}

void prepare_result_release(struct prepare_result *r)
{
	free(r->detail);
	r->detail = NULL;
}

/* 1 when path is dir or lies under it. */
static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* 1 when the running executable is the build tree's harness or a program built there
 * (the unit tests), compared both as configured and with symlinks resolved. */
static int running_from_build_tree(void)
{
	char exe[PATH_MAX], real[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	if (!strcmp(exe, HARNESS_ABS_BUILDDIR "/harness/harness") ||
	    under(exe, HARNESS_ABS_BUILDDIR))
		return 1;
	return realpath(HARNESS_ABS_BUILDDIR, real) && under(exe, real);
}

/* Computed once per process; see backend.h for the order of the rules. */
const char *backend_kernel_dir(void)
{
	static const char *dir;
	if (!dir) {
		const char *env = getenv("HARNESS_KERNEL_DIR");
		if (env && *env)
			dir = xstrdup(env); /* getenv's string may move with setenv */
		else if (running_from_build_tree())
			dir = HARNESS_ABS_SRCDIR "/kernels";
		else
			dir = PKGDATADIR "/kernels";
	}
	return dir;
}
