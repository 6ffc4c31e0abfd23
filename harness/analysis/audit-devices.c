/* audit-devices.c: the audit's device checks for runs whose units ran side by side (harness
 * run --jobs / --gpus, or shards merged from several hosts): every block on one device, and
 * the device as a stratum (the baseline's level per device against the noise floor; the
 * computation is the analysis layer's, analysis_device_level, shared with the report) */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/audit-check.h"
#include "harness/base/util.h"
#include "stats/stats.h"

/* Device checks, only for files whose units record a device. */
void audit_devices(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	size_t nd = a->ndevices;
	if (!nd)
		return;

	/* Every block on one device: its pairs then compare units of one device. */
	struct audit_check *k = audit_add(au, "block-devices", "every block on one device");
	size_t split = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		if (a->block_device[b] != AN_SPLIT)
			continue;
		split++;
		/* per device of the block: its units, and the first of them */
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_adds(&sb, "");
		for (size_t d = 0; d < nd; d++) {
			size_t n = 0;
			int64_t first = -1;
			for (size_t i = 0; i < c->nunits; i++)
				if (c->units[i].block == a->blocks[b] && a->unit_device[i] == (long)d &&
				    n++ == 0)
					first = c->units[i].id;
			if (n)
				sbuf_addf(&sb, "%s %zu unit(s) on '%s' (unit %lld first)",
					  sb.len ? "," : "", n, a->devices[d], (long long)first);
		}
		audit_ev(k, "block %lld is split across devices:%s", (long long)a->blocks[b], sb.buf);
		sbuf_release(&sb);
	}
	if (split) {
		audit_raise(k, AUDIT_FAIL);
		audit_summary(k, "%zu of %zu blocks ran on more than one device: their paired "
				 "ratios mix devices (a block resumed on another slot or machine?)",
			      split, a->nblocks);
	} else {
		audit_summary(k, "each of %zu blocks ran on one device (%zu device%s)", a->nblocks,
			      nd, nd == 1 ? "" : "s");
	}

	/* The device as a stratum: the baseline's level per device (analysis_device_level);
	 * two devices differ beyond the noise floor when their levels differ by more than
	 * twice the standard error of the difference (analysis_levels_differ).  Pairing within
	 * blocks keeps the ratios fair either way; a level difference says the devices are not
	 * alike. */
	if (nd < 2)
		return;
	k = audit_add(au, "devices", "devices alike in level (baseline, per device)");
	size_t m = c->rep->baseline, flagged = 0;
	struct an_level *lev = xcalloc(nd, sizeof(*lev));
	for (size_t ci = 0; ci < a->ncells; ci++) {
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_adds(&sb, "");
		for (size_t d = 0; d < nd; d++) {
			analysis_device_level(a, m, ci, (long)d, &lev[d]);
			if (lev[d].n)
				sbuf_addf(&sb, "%s'%s' %.2f us (n %zu, spread %.1f%%)",
					  sb.len ? "; " : "", a->devices[d], exp(lev[d].level) / 1e3,
					  lev[d].n, 100 * (exp(lev[d].spread) - 1));
		}
		audit_ev(k, "%s: %s", a->cells[ci].name, sb.buf);
		sbuf_release(&sb);
		for (size_t d1 = 0; d1 < nd; d1++)
			for (size_t d2 = d1 + 1; d2 < nd; d2++) {
				double diff, two_se;
				if (!analysis_levels_differ(&lev[d1], &lev[d2], &diff, &two_se))
					continue;
				flagged++;
				audit_cell(k, a->cells[ci].name);
				audit_ev(k, "  '%s' and '%s' differ by %.1f%%, beyond the noise floor "
					    "(2 SE = %.1f%%)", a->devices[d1], a->devices[d2],
					 100 * (exp(diff) - 1), 100 * (exp(two_se) - 1));
			}
	}
	if (flagged) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "the devices differ in level beyond the noise floor in %zu "
				 "comparison%s: keep them as a stratum (pairs stay within a device)",
			      flagged, flagged == 1 ? "" : "s");
	} else {
		audit_summary(k, "%zu devices alike in the baseline's level as far as the noise "
				 "floor tells", nd);
	}
	free(lev);
}
