/* module-count.c: how many NVRTC modules an exhaustive walk of CUDA op cells compiles, and how
 * many it would if some macros were the launch's (the main job's compile time, issue 49: its
 * cold exhaustive units are compile-bound).  Reads cells on stdin, one a line, as a results
 * file names them, with the dtype first:
 *
 *     float16 resnet50-fp16/conv2d_bias_relu:c=64,h=56,w=56,k=64,r=3,stride=1,pad=1
 *     tf32 resnet18-tf32/gemm:m=32,n=1000,k=512
 *
 * ("tf32": float32 on TF32 tensor cores where the op has them, GEMM and convolutions; batch 32
 * unless BATCH says otherwise), builds each
 * cell's space for an H100/H200 (sm_90a, cuda_devinfo_default) with the backend's defaults
 * (conv cells' conv_maps: TMA-only modules where X has a map), and counts the valid configs
 * and the distinct option sets cuda_config_options gives them: the modules.  Each argument
 * is a comma-separated list of option prefixes to leave out (e.g. -DSTREAM_K,-DWG_RES): one
 * more line of counts as if those were the same in every module.  Needs the CUDA build:
 *
 *     make tests/bench/module-count && tests/bench/module-count -DSTREAM_K < cells.txt
 * (tests/cli/module-count.sh checks it). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "kernels/cuda/compile.h"
#include "kernels/cuda/device.h"
#include "kernels/space.h"

struct keys {
	char **v;
	size_t n, cap;
};

static void keys_add(struct keys *k, char *s)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 1024;
		k->v = xrealloc(k->v, k->cap * sizeof(*k->v));
	}
	k->v[k->n++] = s;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t distinct(struct keys *k)
{
	size_t d = 0;
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), cmp);
	for (size_t i = 0; i < k->n; i++)
		d += !i || strcmp(k->v[i], k->v[i - 1]);
	return d;
}

static void keys_release(struct keys *k, int nk)
{
	for (int i = 0; i < nk; i++) {
		for (size_t j = 0; j < k[i].n; j++)
			free(k[i].v[j]);
		free(k[i].v);
	}
	free(k);
}

/* Whether option o starts with one of drop's comma-separated prefixes. */
static int dropped(const char *o, const char *drop)
{
	for (const char *d = drop; d && *d;) {
		const char *e = strchr(d, ',');
		size_t n = e ? (size_t)(e - d) : strlen(d);
		if (n && !strncmp(o, d, n))
			return 1;
		d += n + (e ? 1 : 0);
	}
	return 0;
}

/* The cell of line "DTYPE WORKLOAD/OP:k=v,..." into x; 0, or -1 with *cause. */
static int cell_of(char *line, int64_t batch, struct cuda_space_ctx *x, char **cause)
{
	char *sp = strchr(line, ' '), *slash, *colon;
	if (!sp || !(slash = strchr(sp + 1, '/')) || !(colon = strchr(slash, ':'))) {
		*cause = xasprintf("'%s': want DTYPE WORKLOAD/OP:k=v,...", line);
		return -1;
	}
	*sp = *slash = *colon = '\0';
	/* tf32: TF32 tensor cores where the op has them, plain float32 elsewhere (pooling) */
	int tf32 = !strcmp(line, "tf32") &&
		   (!strncmp(slash + 1, "gemm", 4) || !strncmp(slash + 1, "conv", 4));
	struct workload w;
	memset(&w, 0, sizeof(w));
	w.op = slash + 1;
	w.dtype = strcmp(line, "tf32") ? line : "float32";
	w.tf32 = tf32;
	w.batch = batch;
	char *names[16];
	int64_t vals[16];
	size_t n = 0;
	for (char *kv = strtok(colon + 1, ","); kv && n < 16; kv = strtok(NULL, ",")) {
		char *eq = strchr(kv, '=');
		if (!eq) {
			*cause = xasprintf("'%s': a shape field without '='", kv);
			return -1;
		}
		*eq = '\0';
		names[n] = kv;
		vals[n++] = strtoll(eq + 1, NULL, 10);
	}
	w.shape = xcalloc(n, sizeof(*w.shape));
	w.nshape = n;
	for (size_t i = 0; i < n; i++) {
		w.shape[i].name = names[i];
		w.shape[i].value = vals[i];
	}
	memset(x, 0, sizeof(*x));
	int rc = cuda_shape_from_workload(&x->shape, &w, cause);
	free(w.shape);
	if (rc)
		return -1;
	cuda_devinfo_default(&x->dev);
	/* the backend's defaults: im2col, space-to-depth and TMA-only modules on */
	struct backend b;
	memset(&b, 0, sizeof(b));
	b.conv_im2col = b.conv_s2d = b.conv_tma_only = 1;
	x->conv_maps = cuda_conv_maps(&b, &x->shape);
	return 0;
}

int main(int argc, char **argv)
{
	const char *be = getenv("BATCH");
	int64_t batch = be && *be ? strtoll(be, NULL, 10) : 32;
	int nv = argc; /* variant 0: every option; 1..argc-1: argv[v] left out */
	struct keys *k = xcalloc((size_t)nv, sizeof(*k));
	size_t configs = 0, cells = 0;
	char line[1024];
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line || *line == '#')
			continue;
		struct cuda_space_ctx x;
		struct space sp;
		char *cause = NULL;
		if (cell_of(line, batch, &x, &cause)) {
			fprintf(stderr, "module-count: %s\n", cause);
			free(cause);
			keys_release(k, nv);
			return 2;
		}
		cuda_space_init(&sp, &x);
		cells++;
		struct space_walk w;
		space_walk_init(&sp, &w);
		for (size_t i = 0, n = space_grid_size(&sp); i < n; i++) {
			struct config c;
			const char *why;
			if (space_walk_next(&sp, &w, &c, NULL) || !space_check_grid(&sp, &c, &why))
				continue;
			configs++;
			char *o[CUDA_MAX_OPTS];
			size_t no = cuda_config_options(&sp, &c, "sm_90a", o);
			for (int v = 0; v < nv; v++) {
				struct sbuf s;
				sbuf_init(&s);
				sbuf_addf(&s, "%s|", cuda_op_template(x.shape.op));
				for (size_t j = 0; j < no; j++)
					if (!v || !dropped(o[j], argv[v]))
						sbuf_addf(&s, "%s ", o[j]);
				keys_add(&k[v], sbuf_detach(&s));
			}
			for (size_t j = 0; j < no; j++)
				free(o[j]);
		}
	}
	printf("%zu cells, %zu valid configs, %zu modules\n", cells, configs, distinct(&k[0]));
	for (int v = 1; v < nv; v++)
		printf("without %s: %zu modules\n", argv[v], distinct(&k[v]));
	keys_release(k, nv);
	return 0;
}
