/* check.c: the CUDA backend's one adapter for library statuses (STYLE.md item 9): every
 * CUDA runtime, NVRTC, cuBLAS(Lt), cuDNN and NVML status goes through CUDA_CHECK to
 * cuda_fail(), so one breakpoint catches them all */
#include "config.h"
#include "kernels/cuda/ops.h"

#include <stdio.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nvrtc.h>

static const char *const lib_names[] = {
	[CUDA_LIB_RT] = "CUDA runtime",
	[CUDA_LIB_NVRTC] = "NVRTC",
	[CUDA_LIB_CUBLAS] = "cuBLAS",
	[CUDA_LIB_CUDNN] = "cuDNN",
	[CUDA_LIB_NVML] = "NVML",
};

const char *cuda_status_string(enum cuda_lib lib, int status)
{
	static __thread char buf[160];
	switch (lib) {
	case CUDA_LIB_RT:
		snprintf(buf, sizeof(buf), "%s: %s", cudaGetErrorName((cudaError_t)status),
			 cudaGetErrorString((cudaError_t)status));
		return buf;
	case CUDA_LIB_NVRTC:
		return nvrtcGetErrorString((nvrtcResult)status);
	case CUDA_LIB_CUBLAS:
		return cublasLtGetStatusString((cublasStatus_t)status);
	case CUDA_LIB_CUDNN:
		return cudnnGetErrorString((cudnnStatus_t)status);
	case CUDA_LIB_NVML:
		break;
	}
	/* NVML's names come through its own nvmlErrorString, which state.c looks up; the
	 * number is what is left here */
	snprintf(buf, sizeof(buf), "status %d", status);
	return buf;
}

int cuda_fail(enum cuda_lib lib, int status, const char *expr, const char *file, int line,
	      char **cause)
{
	if (cause && !*cause)
		*cause = xasprintf("%s call '%s' failed at %s:%d: %s (%d)", lib_names[lib], expr,
				   file, line, cuda_status_string(lib, status), status);
	return -1;
}
