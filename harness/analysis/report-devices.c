/* report-devices.c: the device as a stratum of the report (report.h, struct rep_device), for
 * runs whose units ran on two or more devices: per device the A/A noise floor and the drift,
 * per cell the baseline's level (analysis_device_level, the audit's computation too), and a
 * warning for each pair of devices whose levels differ beyond the noise floor */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/report-int.h"
#include "harness/base/util.h"

void report_devices(struct report *r)
{
	const struct analysis *a = r->a;
	size_t nd = a->ndevices;
	if (nd < 2)
		return;
	r->ndev = nd;
	r->dev = xcalloc(nd, sizeof(*r->dev));
	for (size_t b = 0; b < a->nblocks; b++)
		r->split_blocks += a->block_device[b] == AN_SPLIT;
	for (size_t d = 0; d < nd; d++) {
		struct rep_device *v = &r->dev[d];
		v->name = a->devices[d];
		for (size_t b = 0; b < a->nblocks; b++)
			v->nblocks += a->block_device[b] == (long)d;
		v->aa_floor = xcalloc(r->naa + 1, sizeof(*v->aa_floor));
		for (size_t i = 0; i < r->naa; i++)
			v->aa_floor[i] = report_aa_floor(r, r->aa[i].mode, r->aa[i].of, (long)d,
							 NULL, 0);
		v->drift = xcalloc(a->nmodes, sizeof(*v->drift));
		for (size_t m = 0; m < a->nmodes; m++) {
			report_drift_mode(r, m, (long)d, &v->drift[m]);
			if (v->drift[m].flagged)
				report_warn(r, "mode '%s' drifts with run order on device '%s' (Spearman "
					       "rho %.2f over %zu units, p %.3g)",
					    a->modes[m], v->name, v->drift[m].rho, v->drift[m].n,
					    v->drift[m].p);
		}
		v->level = xcalloc(a->ncells + 1, sizeof(*v->level));
		for (size_t c = 0; c < a->ncells; c++)
			analysis_device_level(a, r->baseline, c, (long)d, &v->level[c]);
	}
	/* One warning per pair of devices, naming the cell where they differ most. */
	for (size_t d1 = 0; d1 < nd; d1++)
		for (size_t d2 = d1 + 1; d2 < nd; d2++) {
			size_t nflag = 0, ncmp = 0, worst = 0;
			for (size_t c = 0; c < a->ncells; c++) {
				double diff, two_se;
				int differ = analysis_levels_differ(&r->dev[d1].level[c],
								    &r->dev[d2].level[c], &diff, &two_se);
				ncmp += !isnan(diff);
				if (!differ)
					continue;
				r->devdiff = xrealloc(r->devdiff, (r->ndevdiff + 1) * sizeof(*r->devdiff));
				r->devdiff[r->ndevdiff++] = (struct rep_devdiff){
					.cell = c, .d1 = d1, .d2 = d2, .diff = diff, .two_se = two_se
				};
				if (!nflag++ || diff > r->devdiff[worst].diff)
					worst = r->ndevdiff - 1;
			}
			if (nflag) {
				const struct rep_devdiff *w = &r->devdiff[worst];
				report_warn(r, "devices '%s' and '%s' differ in the baseline's level beyond "
					       "the noise floor in %zu of %zu cells (most in '%s': %.1f%%, "
					       "2 SE = %.1f%%): keep the device as a stratum (pairs stay "
					       "within a device)",
					    r->dev[d1].name, r->dev[d2].name, nflag, ncmp,
					    a->cells[w->cell].name, 100 * (exp(w->diff) - 1),
					    100 * (exp(w->two_se) - 1));
			}
		}
	if (r->split_blocks)
		report_warn(r, "%zu block%s ran on more than one device: their pairs mix devices "
			       "(harness audit's block-devices check names them)",
			    r->split_blocks, r->split_blocks == 1 ? "" : "s");
}

void report_devices_free(struct report *r)
{
	for (size_t d = 0; d < r->ndev; d++) {
		struct rep_device *v = &r->dev[d];
		free(v->aa_floor);
		for (size_t m = 0; v->drift && m < r->a->nmodes; m++) {
			free(v->drift[m].order);
			free(v->drift[m].level);
		}
		free(v->drift);
		free(v->level);
	}
	free(r->dev);
	free(r->devdiff);
}
