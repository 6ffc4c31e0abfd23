/* replay-inputs.c: runs a fuzz target's LLVMFuzzerTestOneInput over files and folders, without
 * libFuzzer, so `make check` replays the seed corpus and every input that once crashed
 * (tests/fuzz/crashes/<target>/) under the ordinary build and its sanitizers.
 * Usage: fuzz-<target> PATH...   (folders are read one level deep; exit 0 unless a file
 * cannot be read: a crash is a crash) */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/util.h"
#include "tests/fuzz/fuzz.h"

static int one(const char *path, size_t *n)
{
	char *data;
	size_t len;
	if (util_read_input(path, (size_t)1 << 30, &data, &len))
		return -1;
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	(*n)++;
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = 0;
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: cannot stat '%s'\n", argv[i]);
			bad = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= one(argv[i], &n) != 0;
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char *p = xasprintf("%s/%s", argv[i], de->d_name);
			if (!stat(p, &st) && S_ISREG(st.st_mode))
				bad |= one(p, &n) != 0;
			free(p);
		}
		if (d)
			closedir(d);
	}
	printf("replayed %zu inputs\n", n);
	return bad;
}
