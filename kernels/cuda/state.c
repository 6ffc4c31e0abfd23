/* state.c: what the CUDA backend records about the machine: the device's state through NVML
 * (dlopen'ed at run time, never linked; read only, never a setting changed), the CUDA
 * libraries this process actually loaded (dl_iterate_phdr) and their versions */
#include "config.h"
#include "kernels/cuda/device.h"

#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nvrtc.h>

/* ---- NVML ------------------------------------------------------------------------------ */

/* NVML's ABI, as nvml.h declares it (the header is not needed to build). */
typedef struct nvml_device *nvml_dev;
struct nvml_process { /* nvmlProcessInfo_t (v2/v3) */
	unsigned int pid;
	unsigned long long used_memory;
	unsigned int gpu_instance, compute_instance;
};
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_REASON_IDLE 0x1ULL

struct cuda_nvml {
	void *lib;
	nvml_dev dev;
	int (*shutdown)(void);
	const char *(*error_string)(int);
	int (*clock)(nvml_dev, int, unsigned *);
	int (*max_clock)(nvml_dev, int, unsigned *);
	int (*reasons)(nvml_dev, unsigned long long *);
	int (*name)(nvml_dev, char *, unsigned);
	int (*uuid)(nvml_dev, char *, unsigned);
	int (*temperature)(nvml_dev, int, unsigned *);
	int (*power)(nvml_dev, unsigned *);
	int (*power_limit)(nvml_dev, unsigned *);
	int (*ecc_mode)(nvml_dev, int *, int *);
	int (*ecc_errors)(nvml_dev, int, int, unsigned long long *);
	int (*persistence)(nvml_dev, int *);
	int (*compute_mode)(nvml_dev, int *);
	int (*mig_mode)(nvml_dev, unsigned *, unsigned *);
	int (*processes)(nvml_dev, unsigned *, struct nvml_process *);
	int (*driver)(char *, unsigned);
};

static void *sym(void *lib, const char *a, const char *b)
{
	void *p = dlsym(lib, a);
	return p || !b ? p : dlsym(lib, b);
}

struct cuda_nvml *cuda_nvml_open(const char *pci_bus_id, char **why)
{
	struct cuda_nvml *n = xcalloc(1, sizeof(*n));
	int (*init)(void);
	int (*by_pci)(const char *, nvml_dev *);
	int rc;

	n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		const char *e = dlerror();
		*why = xasprintf("NVML is not available (cannot load 'libnvidia-ml.so.1': %s); no "
				 "per-sample clocks, throttle flags or device state",
				 e ? e : "unknown error");
		goto fail;
	}
	*(void **)&init = sym(n->lib, "nvmlInit_v2", "nvmlInit");
	*(void **)&by_pci = sym(n->lib, "nvmlDeviceGetHandleByPciBusId_v2",
				"nvmlDeviceGetHandleByPciBusId");
	*(void **)&n->shutdown = sym(n->lib, "nvmlShutdown", NULL);
	*(void **)&n->error_string = sym(n->lib, "nvmlErrorString", NULL);
	*(void **)&n->clock = sym(n->lib, "nvmlDeviceGetClockInfo", NULL);
	*(void **)&n->max_clock = sym(n->lib, "nvmlDeviceGetMaxClockInfo", NULL);
	*(void **)&n->reasons = sym(n->lib, "nvmlDeviceGetCurrentClocksEventReasons",
				    "nvmlDeviceGetCurrentClocksThrottleReasons");
	*(void **)&n->name = sym(n->lib, "nvmlDeviceGetName", NULL);
	*(void **)&n->uuid = sym(n->lib, "nvmlDeviceGetUUID", NULL);
	*(void **)&n->temperature = sym(n->lib, "nvmlDeviceGetTemperature", NULL);
	*(void **)&n->power = sym(n->lib, "nvmlDeviceGetPowerUsage", NULL);
	*(void **)&n->power_limit = sym(n->lib, "nvmlDeviceGetEnforcedPowerLimit", NULL);
	*(void **)&n->ecc_mode = sym(n->lib, "nvmlDeviceGetEccMode", NULL);
	*(void **)&n->ecc_errors = sym(n->lib, "nvmlDeviceGetTotalEccErrors", NULL);
	*(void **)&n->persistence = sym(n->lib, "nvmlDeviceGetPersistenceMode", NULL);
	*(void **)&n->compute_mode = sym(n->lib, "nvmlDeviceGetComputeMode", NULL);
	*(void **)&n->mig_mode = sym(n->lib, "nvmlDeviceGetMigMode", NULL);
	*(void **)&n->processes = sym(n->lib, "nvmlDeviceGetComputeRunningProcesses_v3",
				      "nvmlDeviceGetComputeRunningProcesses_v2");
	*(void **)&n->driver = sym(n->lib, "nvmlSystemGetDriverVersion", NULL);
	if (!init || !by_pci || !n->shutdown || !n->clock) {
		*why = xstrdup("NVML ('libnvidia-ml.so.1') lacks nvmlInit_v2 or "
			       "nvmlDeviceGetHandleByPciBusId_v2");
		goto fail;
	}
	rc = init();
	if (rc) {
		*why = xasprintf("NVML cannot start: %s",
				 n->error_string ? n->error_string(rc) : "unknown error");
		goto fail;
	}
	rc = by_pci(pci_bus_id, &n->dev);
	if (rc) {
		*why = xasprintf("NVML does not know the device at PCI bus id '%s': %s", pci_bus_id,
				 n->error_string ? n->error_string(rc) : "unknown error");
		n->shutdown();
		goto fail;
	}
	return n;
fail:
	if (n->lib)
		dlclose(n->lib);
	free(n);
	return NULL;
}

void cuda_nvml_close(struct cuda_nvml *n)
{
	if (!n)
		return;
	n->shutdown();
	dlclose(n->lib);
	free(n);
}

void cuda_nvml_sample(struct cuda_nvml *n, double *mhz, int *throttle, int64_t *reasons)
{
	unsigned clk = 0;
	unsigned long long r = 0;
	*mhz = NAN;
	*throttle = -1;
	*reasons = -1;
	if (!n)
		return;
	if (!n->clock(n->dev, NVML_CLOCK_SM, &clk))
		*mhz = clk;
	if (n->reasons && !n->reasons(n->dev, &r)) {
		*throttle = (r & ~NVML_REASON_IDLE) != 0;
		*reasons = (int64_t)(r & INT64_MAX);
	}
}

/* One line per field; a field NVML cannot give is "unavailable" (never left out, so the
 * audit can tell "not read" from "fine"). */
void cuda_nvml_state(struct cuda_nvml *n, const char *prefix, struct sbuf *out)
{
	char s[256];
	unsigned u = 0, v = 0;
	int a = 0, b = 0;
	unsigned long long r = 0;
	const char *na = "unavailable";

	if (!n) {
		sbuf_addf(out, "%snvml=unavailable\n", prefix);
		return;
	}
	if (n->name && !n->name(n->dev, s, sizeof(s)))
		sbuf_addf(out, "%sgpu_name=%s\n", prefix, s);
	if (n->uuid && !n->uuid(n->dev, s, sizeof(s)))
		sbuf_addf(out, "%sgpu_uuid=%s\n", prefix, s);
	if (n->driver && !n->driver(s, sizeof(s)))
		sbuf_addf(out, "%sdriver=%s\n", prefix, s);
	if (!n->clock(n->dev, NVML_CLOCK_SM, &u))
		sbuf_addf(out, "%ssm_clock_mhz=%u\n", prefix, u);
	else
		sbuf_addf(out, "%ssm_clock_mhz=%s\n", prefix, na);
	if (!n->clock(n->dev, NVML_CLOCK_MEM, &u))
		sbuf_addf(out, "%smem_clock_mhz=%u\n", prefix, u);
	if (n->max_clock && !n->max_clock(n->dev, NVML_CLOCK_SM, &u))
		sbuf_addf(out, "%ssm_clock_max_mhz=%u\n", prefix, u);
	if (n->temperature && !n->temperature(n->dev, 0, &u))
		sbuf_addf(out, "%stemperature_c=%u\n", prefix, u);
	else
		sbuf_addf(out, "%stemperature_c=%s\n", prefix, na);
	if (n->power && !n->power(n->dev, &u))
		sbuf_addf(out, "%spower_w=%.3f\n", prefix, u / 1000.0);
	if (n->power_limit && !n->power_limit(n->dev, &u))
		sbuf_addf(out, "%spower_limit_w=%.3f\n", prefix, u / 1000.0);
	if (n->reasons && !n->reasons(n->dev, &r))
		sbuf_addf(out, "%sclock_event_reasons=0x%llx\n", prefix, r);
	if (n->ecc_mode && !n->ecc_mode(n->dev, &a, &b))
		sbuf_addf(out, "%secc_mode=%d\n", prefix, a);
	else
		sbuf_addf(out, "%secc_mode=%s\n", prefix, na);
	if (n->ecc_errors && !n->ecc_errors(n->dev, 0, 1, &r))
		sbuf_addf(out, "%secc_corrected_total=%llu\n", prefix, r);
	if (n->ecc_errors && !n->ecc_errors(n->dev, 1, 1, &r))
		sbuf_addf(out, "%secc_uncorrected_total=%llu\n", prefix, r);
	if (n->persistence && !n->persistence(n->dev, &a))
		sbuf_addf(out, "%spersistence_mode=%d\n", prefix, a);
	if (n->compute_mode && !n->compute_mode(n->dev, &a))
		sbuf_addf(out, "%scompute_mode=%d\n", prefix, a);
	if (n->mig_mode && !n->mig_mode(n->dev, &u, &v))
		sbuf_addf(out, "%smig_mode=%u\n", prefix, u);
	else
		sbuf_addf(out, "%smig_mode=%s\n", prefix, na);
	if (n->processes) {
		struct nvml_process p[64];
		unsigned cnt = ARRAY_SIZE(p);
		if (!n->processes(n->dev, &cnt, p)) {
			unsigned others = 0;
			sbuf_addf(out, "%sother_processes=", prefix);
			for (unsigned i = 0; i < cnt && i < ARRAY_SIZE(p); i++) {
				if (p[i].pid == (unsigned)getpid())
					continue;
				sbuf_addf(out, "%s%u", others++ ? "," : "", p[i].pid);
			}
			sbuf_addf(out, "\n%sother_process_count=%u\n", prefix, others);
		} else {
			sbuf_addf(out, "%sother_process_count=%s\n", prefix, na);
		}
	}
}

/* ---- libraries and versions ------------------------------------------------------------ */

static const char *const lib_prefixes[] = {
	"libcudart.so", "libnvrtc.so", "libnvrtc-builtins", "libcublasLt.so", "libcublas.so",
	"libcudnn", "libcuda.so", "libnvidia-ml.so", NULL
};

static int add_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	struct sbuf *out = data;
	const char *path = info->dlpi_name;
	if (!path || !*path)
		return 0;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; lib_prefixes[i]; i++) {
		if (strncmp(base, lib_prefixes[i], strlen(lib_prefixes[i])))
			continue;
		char *real = realpath(path, NULL);
		sbuf_addf(out, "cuda_lib_%.*s=%s\n", (int)strcspn(base, "."), base,
			  real ? real : path);
		free(real);
		break;
	}
	return 0;
}

void cuda_loaded_libraries(struct sbuf *out)
{
	dl_iterate_phdr(add_lib, out);
}

static void add_version(struct sbuf *out, const char *key, int v)
{
	if (v > 0)
		sbuf_addf(out, "%s=%d.%d\n", key, v / 1000, v % 1000 / 10);
	else
		sbuf_addf(out, "%s=none\n", key);
}

void cuda_versions(struct sbuf *out)
{
	int v = 0;
	if (CUDA_CHECK(CUDA_LIB_RT, cudaRuntimeGetVersion(&v), NULL))
		v = 0;
	add_version(out, "cuda_runtime", v);
	v = 0;
	if (CUDA_CHECK(CUDA_LIB_RT, cudaDriverGetVersion(&v), NULL))
		v = 0;
	add_version(out, "cuda_driver_api", v);
	sbuf_addf(out, "nvrtc=%s\n", cuda_nvrtc_version());
	size_t lt = cublasLtGetVersion();
	sbuf_addf(out, "cublaslt=%zu.%zu.%zu\n", lt / 10000, lt % 10000 / 100, lt % 100);
	size_t dn = cudnnGetVersion();
	sbuf_addf(out, "cudnn=%zu.%zu.%zu\n", dn / 10000, dn % 10000 / 100, dn % 100);
}

int cuda_versions_check(char **cause)
{
	int rt = 0;
	if (CUDA_CHECK(CUDA_LIB_RT, cudaRuntimeGetVersion(&rt), cause))
		return -1;
	size_t lt = cublasLtGetCudartVersion(), dn = cudnnGetCudartVersion();
	if (lt && (int)(lt / 1000) != rt / 1000) {
		*cause = xasprintf("cuBLASLt %zu was built for CUDA %zu.%zu but the CUDA runtime "
				   "loaded is %d.%d", cublasLtGetVersion(), lt / 1000,
				   lt % 1000 / 10, rt / 1000, rt % 1000 / 10);
		return -1;
	}
	if (dn && (int)(dn / 1000) != rt / 1000) {
		*cause = xasprintf("cuDNN %zu was built for CUDA %zu.%zu but the CUDA runtime "
				   "loaded is %d.%d", cudnnGetVersion(), dn / 1000, dn % 1000 / 10,
				   rt / 1000, rt % 1000 / 10);
		return -1;
	}
	return 0;
}
