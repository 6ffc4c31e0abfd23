/* catalog.h: the ops and models every backend knows by name, with the shape fields each
 * op needs.  The experiment validator checks workloads against this; backends implement it. */
#ifndef HARNESS_CATALOG_H
#define HARNESS_CATALOG_H

#include <stddef.h>

struct op_info {
	const char *name;                 /* "sgemm", "conv2d", "maxpool", "reduce", "bias_relu" */
	const char *const *shape_fields;  /* required shape keys, NULL-terminated */
	const char *summary;              /* one line for docs and messages */
};

/* NULL when unknown. */
const struct op_info *catalog_op(const char *name);
extern const struct op_info catalog_ops[];
extern const size_t catalog_nops;
/* Known model names ("resnet18", "resnet50"), NULL-terminated. */
extern const char *const catalog_models[];
int catalog_model_known(const char *name);

#endif
