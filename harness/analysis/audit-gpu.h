/* audit-gpu.h: the audit's GPU checks (docs/audit.md "GPU checks"): per-sample SM clocks
 * that differ between modes, throttled samples, temperature drift across the run, another
 * process on the GPU, a different GPU (UUID) between units of one block.  They read what
 * the CUDA backend and external workers record (docs/record-protocol.md, "GPU state"):
 * each sample's clock_mhz and throttle, each unit's info lines (gpu_open_* and
 * gpu_close_*); how op cells were timed (gpu-op-timing) for the CUDA backend only. */
#ifndef HARNESS_AUDIT_GPU_H
#define HARNESS_AUDIT_GPU_H

#include "harness/analysis/audit.h"

/* Tolerances (recorded in each check's evidence). */
#define AUDIT_GPU_CLOCK_TOL 0.02      /* modes' median SM clocks within 2% of the highest */
#define AUDIT_GPU_THROTTLE_TOL 0.01   /* at most 1% of a mode's samples throttled */
#define AUDIT_GPU_TEMP_TOL 10.0       /* degrees C between the coolest and hottest unit */

/* Append the GPU checks for the results file at path to au (nothing when no unit ran on
 * a GPU: no unit info has gpu_open_ lines).  Reports and returns -1 when the file cannot
 * be read. */
int audit_gpu_checks(struct audit *au, const char *path);
/* 1 when some unit of the results file at path recorded a GPU's state (gpu_open_ lines),
 * 0 when none did, -1 reported when the file cannot be read. */
int audit_gpu_recorded(const char *path);

#endif
