/* nvrtc-compile.c: compile every CUDA template x config with NVRTC for sm_80 and sm_90a and
 * report failures; needs NVRTC only, no GPU.
 *
 * usage: nvrtc-compile TEMPLATE_DIR [ARCH...]   (default archs: sm_80 sm_90a)
 * $KC_ONLY, when set, keeps only the templates whose file name contains it.
 * $KC_CUBIN_DIR, when set, gets each cubin as FILE-INDEX-ARCH.cubin (INDEX: the config's
 * place in kc_check_configs) and its defines as FILE-INDEX-ARCH.defines, for
 * tests/gpu/sass-compare.sh.
 * exit: 0 all compiled, 1 a compile failed, 2 usage or unreadable template. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvrtc-common.h"

/* res's cubin into $KC_CUBIN_DIR (nothing when it is unset); -1 when it cannot be written. */
static int save_cubin(size_t i, const char *arch, const struct kc_result *res)
{
	const char *dir = getenv("KC_CUBIN_DIR");
	char path[4096];
	FILE *f;
	int ok;

	if (!dir || !*dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s-%02zu-%s.cubin", dir, kc_check_configs[i].file, i, arch);
	f = fopen(path, "wb");
	ok = f && fwrite(res->cubin, 1, res->cubin_size, f) == res->cubin_size;
	if (f && fclose(f) != 0)
		ok = 0;
	/* and its defines beside it, FILE-INDEX-ARCH.defines */
	if (ok) {
		snprintf(path + strlen(path) - strlen("cubin"), strlen("defines") + 1, "defines");
		f = fopen(path, "w");
		ok = f && fprintf(f, "%s\n", kc_check_configs[i].defines) > 0;
		if (f && fclose(f) != 0)
			ok = 0;
	}
	if (!ok)
		fprintf(stderr, "nvrtc-compile: cannot write '%s'\n", path);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char *const default_archs[] = {"sm_80", "sm_90a"};
	const char *const *archs = default_archs;
	int narch = 2, failed = 0, a, threads;
	const char **sources;
	struct kc_result *res;
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout, "usage: nvrtc-compile TEMPLATE_DIR [ARCH...]\n");
		return argc < 2 ? 2 : 0;
	}
	if (argc > 2) {
		archs = (const char *const *)argv + 2;
		narch = argc - 2;
	}
	sources = calloc(kc_check_nconfigs, sizeof(*sources));
	res = calloc(kc_check_nconfigs, sizeof(*res));
	if (!sources || !res)
		abort();
	for (i = 0; i < kc_check_nconfigs; ++i) {
		const char *only = getenv("KC_ONLY");
		char path[4096];
		char *text;
		if (only && !strstr(kc_check_configs[i].file, only)) {
			sources[i] = NULL;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", argv[1], kc_check_configs[i].file);
		if (kc_read_file(path, &text) != 0)
			return 2;
		sources[i] = text;
	}
	threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
	for (a = 0; a < narch; ++a) {
		double t0 = kc_now();
		kc_compile_many(kc_check_configs, sources, kc_check_nconfigs, archs[a], threads, res);
		for (i = 0; i < kc_check_nconfigs; ++i) {
			if (!sources[i] || res[i].skipped)
				continue;
			printf("%-4s %-7s %-13s %-70s %.2fs\n", res[i].ok ? "ok" : "FAIL", archs[a],
			       kc_check_configs[i].file, kc_check_configs[i].defines, res[i].seconds);
			if (!res[i].ok) {
				failed++;
				printf("%s\n", res[i].log ? res[i].log : "(no log)");
			} else if (res[i].log && strstr(res[i].log, "warning")) {
				printf("%s\n", res[i].log);
			}
			if (res[i].ok && save_cubin(i, archs[a], &res[i]))
				failed++;
			kc_result_release(&res[i]);
		}
		printf("%s: %zu configs in %.1fs\n", archs[a], kc_check_nconfigs, kc_now() - t0);
	}
	for (i = 0; i < kc_check_nconfigs; ++i)
		free((char *)sources[i]);
	free(sources);
	free(res);
	printf("%d failed\n", failed);
	if (fflush(stdout) != 0 || ferror(stdout))
		return 2;
	return failed ? 1 : 0;
}
