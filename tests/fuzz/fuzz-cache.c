/* fuzz-cache.c: the tuning-cache reader (jsonscan's piecewise walk, each entry to jansson,
 * the fields' kinds and orders) on the same bytes as a Kernel Tuner cache and as a T4 file,
 * gzip or not (zlib reads both); nothing written */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness/record/cacheimport.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/harness-fuzz-cache.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		unlink(path);
		return 0;
	}
	fwrite(data, 1, size, f);
	fclose(f);
	for (int fmt = CACHE_KERNEL_TUNER; fmt <= CACHE_T4; fmt++) {
		struct ci c;
		ci_read(path, (enum cacheimport_format)fmt, &c);
		ci_release(&c);
	}
	unlink(path);
	return 0;
}
