/* fuzz-hypothesis.c: the hypothesis-file parser (schema, criteria and their expressions) */
#include "config.h"

#include <stdlib.h>

#include "harness/analysis/hyp.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hyp_file *f = NULL;
	char *cause = NULL;
	if (!hyp_file_parse("fuzz.toml", (const char *)data, size, &f, &cause))
		hyp_file_free(f);
	free(cause);
	return 0;
}
