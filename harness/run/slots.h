/* slots.h: where units run side by side (harness run --jobs N, --gpus LIST).  A slot is a
 * share of the host: an even share of the cores the harness may use (sched_setaffinity)
 * and, with --gpus, one GPU named by its UUID (CUDA_VISIBLE_DEVICES).  The scheduler runs
 * one unit per slot at a time, every unit of a block on one slot in the block's planned
 * order; blocks go to slots as they free up, free slots taken in an order drawn from the
 * experiment's seed (slots_shuffle), so which device gets the first blocks is not fixed. */
#ifndef HARNESS_SLOTS_H
#define HARNESS_SLOTS_H

#include <sched.h> /* cpu_set_t: config.h defines _GNU_SOURCE */
#include <stddef.h>
#include <stdint.h>

struct slot_def {
	char *device;    /* heap: a GPU's UUID ("GPU-..."), or "cpu:LIST" */
	char *cpus;      /* heap: the cores, as a list ("0-3,8") */
	char *gpu_index; /* heap: the GPU's index as nvidia-smi numbers it, or NULL */
	cpu_set_t set;   /* the cores */
};

struct slots {
	struct slot_def *s;  /* heap, n of them */
	size_t n;
	size_t *order;       /* heap: slot indices, the order free slots are taken in */
	int gpus;            /* 1: one slot per GPU */
};

/* N CPU slots, each pinned to an even share (floor(cores / n)) of the cores in the
 * harness's own affinity mask; cores left over are not used.  -1 reported (n larger
 * than the cores), the message starting with what ("--jobs", or "[run] jobs in 'x.toml'"). */
int slots_cpu(int n, const char *what, struct slots *out);
/* One slot per GPU of spec ("all", or indices "0,1,3" as nvidia-smi numbers them), UUIDs
 * from `nvidia-smi --query-gpu=index,uuid`; the cores are split among them as slots_cpu
 * does.  -1 reported (no nvidia-smi, no GPU, an index it does not list, a bad spec). */
int slots_gpus(const char *spec, const char *what, struct slots *out);
/* Draw the order free slots are taken in from seed (GSL MT19937, a shuffle). -1 reported. */
int slots_shuffle(struct slots *sl, uint64_t seed);
/* The slots as JSON for the run metadata: [{"slot":0,"device":...,"cpus":...}, ...] in
 * slot order, and the draw: {"slots": [...], "order": [2,0,1]}.  Heap. */
char *slots_json(const struct slots *sl);
void slots_release(struct slots *sl);

/* "0-3,8" for set.  Heap. */
char *slots_cpulist(const cpu_set_t *set);

#endif
