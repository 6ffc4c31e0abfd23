/* catalog.h: the ops and models every backend knows by name, with the shape fields each
 * op needs.  The experiment validator checks workloads against this; backends implement it. */
#ifndef HARNESS_CATALOG_H
#define HARNESS_CATALOG_H

#include <stddef.h>
#include <stdint.h>

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

/* torchvision's ResNets (torchvision/models/resnet.py), which every backend builds: the
 * number of BasicBlocks or Bottlenecks in each of the four stages. */
struct catalog_resnet {
	const char *name;
	int blocks[4];
	int bottleneck;                   /* Bottleneck (v1.5, stride on the 3x3) or BasicBlock */
};
/* The ResNet called name, after checking batch and resolution (1 to 65536); NULL with
 * *cause (heap) when the name is unknown or a size out of range. */
const struct catalog_resnet *catalog_resnet(const char *name, int64_t batch,
					    int64_t resolution, char **cause);
/* The lowest of nslots activation slots not yet in *used, added to it (a block's
 * scratch slots; 0 when every slot is used, which the builders' slot counts rule out). */
int catalog_free_slot(unsigned *used, int nslots);

#endif
