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

/* Computed once per process; see backend.h for the order of the rules. */
const char *backend_kernel_dir(void)
{
	static char *dir;
	if (!dir)
		dir = util_data_dir("HARNESS_KERNEL_DIR", "kernels");
	return dir;
}
