/* audit-spin.c: the audit's op-spin check: did the op cells' samples time the device, or
 * also the host?  A worker that queues an op behind a GPU spin (the torch worker: each op
 * cell's sample starts behind torch.cuda._sleep, docs/torch-worker.md, "Timing") times the
 * device's work only when the host has queued the op before the spin ends; a sample whose
 * host time outlasts the spin is late, and its events timed host work too.  It reads what a
 * unit records in its info (docs/record-protocol.md, "Op-cell spin notes"):
 *
 *   spin.CELL=busy_cycles=N spin_us=... host_us_p50=... host_us_max=... late=L of S
 *
 * one line per op cell, and, from workers that spun a fixed time and kept no host time,
 * `op_sample_busy_cycles=N` with no spin lines.  Files whose units record neither have no
 * such check. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/audit-check.h"
#include "harness/base/util.h"

/* A unit-cell whose late share exceeds this WARNs: its samples' spread holds host time. */
#define SPIN_LATE_WARN 0.10
/* At or above this, FAIL: as many samples timed host work as did not, so the median may. */
#define SPIN_LATE_FAIL 0.50

/* One unit-cell's spin note: its cell (heap) and late count of its samples. */
struct spin_note {
	char *cell;
	size_t late, samples;
};

/* The spin notes of one unit's info, appended to *n (grown as needed).  A spin line that
 * cannot be read (no "late=L of S") counts as none. */
static void read_notes(const char *info, struct spin_note **n, size_t *nn, size_t *cap)
{
	static const char key[] = "spin.";
	for (const char *l = info; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		char *line = xstrndup(l, len);
		const char *late = strstr(line, " late=");
		/* The cell ends at the '=' that starts the note's first field (KEY=VALUE): the
		 * second-to-last '=' of the line's first word. */
		char *sp = strchr(line, ' ');
		size_t l_late = 0, l_samples = 0;
		if (!strncmp(line, key, sizeof(key) - 1) && late && sp &&
		    sscanf(late, " late=%zu of %zu", &l_late, &l_samples) == 2 && l_samples) {
			*sp = '\0';
			char *last = strrchr(line, '=');
			char *cell_end = NULL;
			if (last) {
				*last = '\0';
				cell_end = strrchr(line, '=');
			}
			if (cell_end && cell_end > line + sizeof(key) - 1) {
				if (*nn == *cap) {
					*cap = *cap ? 2 * *cap : 16;
					*n = xrealloc(*n, *cap * sizeof(**n));
				}
				(*n)[(*nn)++] = (struct spin_note){
					.cell = xstrndup(line + sizeof(key) - 1,
							 (size_t)(cell_end - line) - (sizeof(key) - 1)),
					.late = l_late > l_samples ? l_samples : l_late,
					.samples = l_samples};
			}
		}
		free(line);
		l = end ? end + 1 : NULL;
	}
}

int audit_spin_check(struct audit *au, const struct ctx *c, const char *path)
{
	struct rec_unit *u = NULL;
	char **info = NULL;
	size_t nu = 0;

	if (audit_read_infos(path, &u, &info, &nu))
		return -1;
	/* Per unit: its notes are notes[first[i] .. first[i + 1]). */
	struct spin_note *notes = NULL;
	size_t nn = 0, cap = 0, fixed_units = 0, noted_units = 0;
	size_t *first = xcalloc(nu + 1, sizeof(*first));
	/* [unit]: the fixed spin's cycles of a unit that recorded no notes (NaN: none) */
	double *fixed = xcalloc(nu + 1, sizeof(*fixed));
	/* A fixed spin counts only in units that measured an op cell (their choices say). */
	char *has_op = xcalloc(nu + 1, 1);
	for (size_t i = 0; i < c->nch; i++) {
		int64_t ur = c->ch_unit[i], cell = c->ch[i].cell;
		if (ur >= 0 && (size_t)ur < nu && cell >= 0 && (size_t)cell < c->ncells &&
		    !strcmp(c->cells[cell].kind, "op"))
			has_op[ur] = 1;
	}
	for (size_t i = 0; i < nu; i++) {
		first[i] = nn;
		read_notes(info[i], &notes, &nn, &cap);
		fixed[i] = nn == first[i] && has_op[i] ? audit_info_num(info[i], "op_sample_busy_cycles")
						       : NAN;
		noted_units += nn > first[i];
		fixed_units += !isnan(fixed[i]);
	}
	first[nu] = nn;
	if (!noted_units && !fixed_units)
		goto done;

	struct audit_check *k = audit_add(au, "op-spin",
					  "op-cell samples timed the device, not the host");
	size_t fail_cells = 0, warn_cells = 0;
	for (size_t i = 0; i < nu; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(u[j].mode, u[i].mode) && first[j + 1] > first[j];
		if (seen || first[i + 1] == first[i])
			continue;
		size_t units = 0, cells = 0, late = 0, samples = 0, over_warn = 0, over_fail = 0;
		double worst = -1;
		size_t worst_at = 0;
		int64_t worst_unit = -1;
		for (size_t j = i; j < nu; j++) {
			if (strcmp(u[j].mode, u[i].mode) || first[j + 1] == first[j])
				continue;
			units++;
			int flagged = 0;
			for (size_t x = first[j]; x < first[j + 1]; x++) {
				double share = (double)notes[x].late / (double)notes[x].samples;
				cells++;
				late += notes[x].late;
				samples += notes[x].samples;
				if (share >= SPIN_LATE_FAIL)
					over_fail++;
				else if (share > SPIN_LATE_WARN)
					over_warn++;
				if (share > SPIN_LATE_WARN) {
					audit_cell(k, notes[x].cell);
					flagged = 1;
				}
				if (share > worst) {
					worst = share;
					worst_at = x;
					worst_unit = u[j].id;
				}
			}
			if (flagged)
				audit_unit(k, u[j].id);
		}
		fail_cells += over_fail;
		warn_cells += over_warn;
		if (over_fail || over_warn)
			audit_mode(k, u[i].mode);
		audit_ev(k, "'%s': %zu of %zu op samples late (%.1f%%) over %zu unit-cell%s of %zu "
			    "unit%s; unit-cells late in %.0f%% or more of their samples: %zu, in "
			    "%.0f-%.0f%%: %zu; the most: '%s' in unit %lld, %zu of %zu",
			 u[i].mode, late, samples, samples ? 100.0 * (double)late / (double)samples : 0.0,
			 cells, cells == 1 ? "" : "s", units, units == 1 ? "" : "s",
			 100 * SPIN_LATE_FAIL, over_fail, 100 * SPIN_LATE_WARN, 100 * SPIN_LATE_FAIL,
			 over_warn, notes[worst_at].cell, (long long)worst_unit, notes[worst_at].late,
			 notes[worst_at].samples);
	}
	if (fixed_units) {
		/* the first such unit's spin, for the evidence */
		double cycles = NAN;
		for (size_t i = 0; i < nu && isnan(cycles); i++)
			cycles = fixed[i];
		audit_ev(k, "%zu unit%s timed op cells behind a fixed spin (%.0f cycles) and recorded "
			    "no sample's host time: whether their samples timed host work cannot be "
			    "told from the file (docs/torch-worker.md, \"Timing\")",
			 fixed_units, fixed_units == 1 ? "" : "s", cycles);
		for (size_t i = 0; i < nu; i++)
			if (!isnan(fixed[i]))
				audit_unit(k, u[i].id);
	}
	if (fail_cells) {
		audit_raise(k, AUDIT_FAIL);
		audit_summary(k, "%zu unit-cell%s late in %.0f%% or more of %s samples: %s median "
				 "may be host time, not the device's", fail_cells,
			      fail_cells == 1 ? " was" : "s were", 100 * SPIN_LATE_FAIL,
			      fail_cells == 1 ? "its" : "their", fail_cells == 1 ? "its" : "their");
	} else if (warn_cells) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "%zu unit-cell%s late in more than %.0f%% of %s samples: %s spread "
				 "holds host time (%s medians are still the device's)", warn_cells,
			      warn_cells == 1 ? " was" : "s were", 100 * SPIN_LATE_WARN,
			      warn_cells == 1 ? "its" : "their", warn_cells == 1 ? "its" : "their",
			      warn_cells == 1 ? "its" : "their");
	} else if (fixed_units) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "%zu unit%s recorded no host time for %s op samples (a fixed spin): "
				 "their op cells may time host work",
			      fixed_units, fixed_units == 1 ? "" : "s",
			      fixed_units == 1 ? "its" : "their");
	} else {
		audit_summary(k, "every op cell of %zu unit%s was late in at most %.0f%% of its "
				 "samples", noted_units, noted_units == 1 ? "" : "s",
			      100 * SPIN_LATE_WARN);
	}
done:
	for (size_t x = 0; x < nn; x++)
		free(notes[x].cell);
	free(notes);
	free(first);
	free(fixed);
	free(has_op);
	audit_infos_free(u, info, nu, nu);
	return 0;
}
