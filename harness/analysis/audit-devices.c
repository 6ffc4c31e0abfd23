/* audit-devices.c: the audit's device checks for runs whose units ran side by side (harness
 * run --jobs / --gpus, or shards merged from several hosts): every block on one device, and
 * the device as a stratum (the baseline's level per device against the noise floor) */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/audit-check.h"
#include "harness/base/util.h"
#include "stats/stats.h"

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The devices, and each analysed block's device: bdev[b] indexes devs, -1 none recorded,
 * -2 split across devices.  Returns how many devices. */
static size_t block_devices(const struct ctx *c, const char ***devs, long *bdev)
{
	const struct analysis *a = c->an;
	size_t nd = 0;
	*devs = xcalloc(c->nunits + 1, sizeof(**devs));
	for (size_t b = 0; b < a->nblocks; b++)
		bdev[b] = -1;
	for (size_t i = 0; i < c->nunits; i++) {
		const struct rec_unit *u = &c->units[i];
		if (!u->device || !*u->device || !strcmp(u->status, REC_STATUS_SKIPPED))
			continue;
		size_t d = 0;
		while (d < nd && strcmp((*devs)[d], u->device))
			d++;
		if (d == nd)
			(*devs)[nd++] = u->device;
		for (size_t b = 0; b < a->nblocks; b++) {
			if (a->blocks[b] != u->block)
				continue;
			if (bdev[b] == -1)
				bdev[b] = (long)d;
			else if (bdev[b] >= 0 && bdev[b] != (long)d)
				bdev[b] = -2;
		}
	}
	return nd;
}

/* Device checks, only for files whose units record a device. */
void check_devices(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	const char **devs = NULL;
	long *bdev = xcalloc(a->nblocks ? a->nblocks : 1, sizeof(*bdev));
	size_t nd = block_devices(c, &devs, bdev);
	if (!nd)
		goto done;

	/* Every block on one device: its pairs then compare units of one device. */
	struct audit_check *k = check_add(au, "block-devices", "every block on one device");
	size_t split = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		if (bdev[b] != -2)
			continue;
		split++;
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_adds(&sb, "");
		for (size_t i = 0; i < c->nunits; i++) {
			const struct rec_unit *u = &c->units[i];
			if (u->block == a->blocks[b] && u->device && *u->device)
				sbuf_addf(&sb, "%s%s unit %lld on '%s'", sb.len ? "," : "", u->mode,
					  (long long)u->id, u->device);
		}
		check_ev(k, "block %lld is split across devices:%s", (long long)a->blocks[b], sb.buf);
		sbuf_release(&sb);
	}
	if (split) {
		check_raise(k, AUDIT_FAIL);
		check_summary(k, "%zu of %zu blocks ran on more than one device: their paired "
				 "ratios mix devices (a block resumed on another slot?)",
			      split, a->nblocks);
	} else {
		check_summary(k, "each of %zu blocks ran on one device (%zu device%s)", a->nblocks,
			      nd, nd == 1 ? "" : "s");
	}

	/* The device as a stratum: the baseline's level per device.  Per cell and device, the
	 * median and the robust spread (1.4826 MAD) of log unit medians; two devices differ
	 * beyond the noise floor when their levels differ by more than twice the standard
	 * error of the difference, sqrt(s1^2/n1 + s2^2/n2).  Pairing within blocks keeps the
	 * ratios fair either way; a level difference says the devices are not alike. */
	if (nd < 2)
		goto done;
	k = check_add(au, "devices", "devices alike in level (baseline, per device)");
	size_t m = c->rep->baseline, flagged = 0;
	double *v = xcalloc(a->nblocks + 1, sizeof(*v)), *dv = xcalloc(a->nblocks + 1, sizeof(*dv));
	double *lev = xcalloc(nd, sizeof(*lev)), *se2 = xcalloc(nd, sizeof(*se2));
	size_t *cnt = xcalloc(nd, sizeof(*cnt));
	for (size_t ci = 0; ci < a->ncells; ci++) {
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_adds(&sb, "");
		for (size_t d = 0; d < nd; d++) {
			size_t n = 0;
			for (size_t b = 0; b < a->nblocks; b++) {
				double x = an_med(a, m, ci, b);
				if (bdev[b] == (long)d && !isnan(x) && x > 0)
					v[n++] = log(x);
			}
			cnt[d] = n;
			if (!n)
				continue;
			lev[d] = median_of(v, n);
			for (size_t i = 0; i < n; i++)
				dv[i] = fabs(v[i] - lev[d]);
			double s = 1.4826 * median_of(dv, n);
			se2[d] = n > 1 ? s * s / (double)n : NAN;
			sbuf_addf(&sb, "%s'%s' %.2f us (n %zu, spread %.1f%%)", sb.len ? "; " : "",
				  devs[d], exp(lev[d]) / 1e3, n, 100 * (exp(s) - 1));
		}
		check_ev(k, "%s: %s", a->cells[ci].name, sb.buf);
		sbuf_release(&sb);
		for (size_t d1 = 0; d1 < nd; d1++)
			for (size_t d2 = d1 + 1; d2 < nd; d2++) {
				if (cnt[d1] < 2 || cnt[d2] < 2)
					continue;
				double diff = fabs(lev[d1] - lev[d2]), se = sqrt(se2[d1] + se2[d2]);
				if (diff > 2 * se) {
					flagged++;
					check_cell(k, a->cells[ci].name);
					check_ev(k, "  '%s' and '%s' differ by %.1f%%, beyond the noise "
						    "floor (2 SE = %.1f%%)", devs[d1], devs[d2],
						 100 * (exp(diff) - 1), 100 * (exp(2 * se) - 1));
				}
			}
	}
	if (flagged) {
		check_raise(k, AUDIT_WARN);
		check_summary(k, "the devices differ in level beyond the noise floor in %zu "
				 "comparison%s: keep them as a stratum (pairs stay within a device)",
			      flagged, flagged == 1 ? "" : "s");
	} else {
		check_summary(k, "%zu devices alike in the baseline's level as far as the noise "
				 "floor tells", nd);
	}
	free(v);
	free(dv);
	free(lev);
	free(se2);
	free(cnt);
done:
	free(devs);
	free(bdev);
}
