/* fuzz-results.c: the results-file reader (HDF5) on damaged files: open, then read every
 * table and every unit's samples, as show, report and audit do. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness/base/util.h"
#include "harness/record/recorder.h"
#include "tests/fuzz/fuzz.h"

static void read_all(struct rec *r)
{
	struct rec_meta m;
	rec_meta_init(&m);
	if (!rec_read_meta(r, &m))
		rec_meta_release(&m);
	struct rec_plan *plan = NULL;
	size_t n = 0;
	if (!rec_read_plan(r, &plan, &n))
		rec_plan_free(plan, n);
	struct rec_cell *cells = NULL;
	if (!rec_read_cells(r, &cells, &n))
		rec_cells_free(cells, n);
	int64_t *unit = NULL;
	struct rec_choice *ch = NULL;
	if (!rec_read_choices(r, &unit, &ch, &n))
		rec_choices_free(unit, ch, n);
	struct rec_trial *tr = NULL;
	if (!rec_read_trials(r, &unit, &tr, &n))
		rec_trials_free(unit, tr, n);
	int64_t ns = 0;
	rec_count_samples(r, &ns);
	struct rec_unit *units = NULL;
	size_t nu = 0;
	if (rec_read_units(r, &units, &nu))
		return;
	for (size_t i = 0; i < nu; i++) {
		int64_t *cell = NULL, *t = NULL;
		if (!rec_read_unit_samples(r, i, &cell, &t, &n)) {
			free(cell);
			free(t);
		}
	}
	rec_units_free(units, nu);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/harness-fuzz-XXXXXX.h5";
	int fd = mkstemps(path, 3);
	if (fd < 0)
		return 0;
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
	struct rec *r = NULL;
	if (!rec_open(path, 0, &r)) {
		read_all(r);
		rec_close(r);
	}
	unlink(path);
	return 0;
}
