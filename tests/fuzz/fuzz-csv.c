/* fuzz-csv.c: CSV import (libcsv reader, every column rule), into memory only */
#include "config.h"

#include <stdlib.h>

#include "harness/record/csvimport.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csvimport *imp = NULL;
	struct csvimport_opts o = { .unit = NULL, .name = "fuzz" };
	if (!csvimport_parse("fuzz.csv", (const char *)data, size, &o, &imp))
		csvimport_free(imp);
	/* the same bytes with a default unit, so files without a 'unit' column go further */
	imp = NULL;
	o.unit = "us";
	if (!csvimport_parse("fuzz.csv", (const char *)data, size, &o, &imp))
		csvimport_free(imp);
	return 0;
}
