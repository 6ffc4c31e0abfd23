/* nvrtc-common.h: compiling the CUDA templates with NVRTC, shared by the GPU check and the
 * compile-only check; also the list of configs both go through. */
#ifndef NVRTC_COMMON_H
#define NVRTC_COMMON_H

#include <stddef.h>

/* One template x config: the file under kernels/cuda/templates/ and its -D options, space
 * separated ("-DDTYPE_FLOAT16 -DBLOCK_M=128 ..."). */
struct kc_config {
	const char *file;
	const char *defines;
	const char *arch_only; /* NULL, or the one target it needs ("sm_90a" for WGMMA=1) */
};

/* A compiled config. cubin and log are heap strings owned by the struct (kc_result_release
 * frees them); ok is 1 when NVRTC produced a cubin, seconds the compile's wall time. */
struct kc_result {
	int ok;
	int skipped; /* kc_compile_many: the config needs another arch; not compiled */
	char *cubin;
	size_t cubin_size;
	char *log;
	double seconds;
};

/* Read a whole file into a NUL-terminated heap buffer (*text, caller frees). Reports and
 * returns -1 on failure. */
int kc_read_file(const char *path, char **text);

/* Compile `source` (named `name` in messages) for `arch` ("sm_90a", "sm_80") with the
 * config's defines and -lineinfo off, -std=c++17. Never fails hard: res->ok says whether a
 * cubin came out, res->log holds NVRTC's log (or why NVRTC could not be called). */
void kc_compile(const char *source, const char *name, const char *arch, const char *defines,
		struct kc_result *res);
void kc_result_release(struct kc_result *res);

/* Compile n configs for arch on `threads` threads (NVRTC is thread-safe); results[i] for
 * configs[i]. sources[i] is the text of configs[i].file. */
void kc_compile_many(const struct kc_config *configs, const char *const *sources, size_t n,
		     const char *arch, int threads, struct kc_result *results);

/* The configs the compile check covers (every template, every dtype, a spread of tiles). */
extern const struct kc_config kc_check_configs[];
extern const size_t kc_check_nconfigs;

double kc_now(void);

#endif
