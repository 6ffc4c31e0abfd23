/* fuzz-experiment.c: the experiment parser (TOML bridge, schema walker, every range check) */
#include "config.h"

#include <stdlib.h>

#include "harness/config/experiment.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct experiment *e = NULL;
	char *cause = NULL;
	if (!experiment_parse_flags("fuzz.toml", (const char *)data, size, EXPERIMENT_NO_FILE_CHECKS,
				    &e, &cause))
		experiment_free(e);
	free(cause);
	return 0;
}
