/* audit-tuner.c: the audit's tuner-fallback check: did the tuners that answer from something
 * given to them (a lookup table, a trained model) use it, or fall back?  It reads what a
 * unit's worker adds to its info (harness/run/worker.c): a `tuner_note=CELL: NOTE` line per
 * op cell whose tuner said how it chose, followed by `tuner_fallback=CELL` where the tuner
 * says that choice is its fallback (tuner_ops.note's return).  Files whose units record no
 * note (runs of tuners that give none) have no such check. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "harness/analysis/audit-check.h"
#include "harness/base/util.h"

/* Per unit: the notes and fallbacks counted, the first fallback's note line (heap, or NULL). */
struct unit_notes {
	size_t notes, fallbacks;
	char *first;
};

static void count_notes(const char *info, struct unit_notes *n)
{
	static const char note_key[] = "tuner_note=", fb_key[] = "tuner_fallback=";
	const char *last_note = NULL; /* the latest note line: a fallback line follows its note */
	size_t last_len = 0;
	for (const char *l = info; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		if (!strncmp(l, note_key, sizeof(note_key) - 1)) {
			n->notes++;
			last_note = l + sizeof(note_key) - 1;
			last_len = len - (sizeof(note_key) - 1);
		} else if (!strncmp(l, fb_key, sizeof(fb_key) - 1)) {
			n->fallbacks++;
			if (!n->first && last_note)
				n->first = xstrndup(last_note, last_len);
		}
		l = end ? end + 1 : NULL;
	}
}

int audit_tuner_check(struct audit *au, const char *path)
{
	struct rec_unit *u = NULL;
	char **info = NULL;
	size_t nu = 0, noted = 0;

	if (audit_read_infos(path, &u, &info, &nu))
		return -1;
	struct unit_notes *n = xcalloc(nu + 1, sizeof(*n));
	for (size_t i = 0; i < nu; i++) {
		count_notes(info[i], &n[i]);
		noted += n[i].notes > 0;
	}
	if (!noted)
		goto done;

	struct audit_check *k = audit_add(au, "tuner-fallback",
					  "tuners used what they were given (tables, models)");
	size_t modes_most = 0, modes_some = 0, fell_total = 0, notes_total = 0;
	for (size_t i = 0; i < nu; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(u[j].mode, u[i].mode) && n[j].notes;
		if (seen || !n[i].notes)
			continue;
		size_t units = 0, notes = 0, fell = 0;
		const char *first = NULL;
		int64_t first_unit = -1;
		for (size_t j = i; j < nu; j++) {
			if (strcmp(u[j].mode, u[i].mode) || !n[j].notes)
				continue;
			units++;
			notes += n[j].notes;
			fell += n[j].fallbacks;
			if (!first && n[j].first) {
				first = n[j].first;
				first_unit = u[j].id;
			}
		}
		notes_total += notes;
		fell_total += fell;
		if (!fell) {
			audit_ev(k, "'%s': every one of %zu op-cell notes over %zu unit%s used what "
				    "the tuner was given", u[i].mode, notes, units, units == 1 ? "" : "s");
			continue;
		}
		/* most of its cells: the mode's comparisons are mostly of its fallback */
		int most = 2 * fell > notes;
		audit_mode(k, u[i].mode);
		if (most)
			modes_most++;
		else
			modes_some++;
		audit_ev(k, "'%s': %zu of %zu op-cell notes over %zu unit%s fell back%s; the first "
			    "(unit %lld): %.400s", u[i].mode, fell, notes, units, units == 1 ? "" : "s",
			 most ? " (most cells: the mode ran its fallback, not what it names)" : "",
			 (long long)first_unit, first);
		for (size_t j = i; j < nu; j++)
			if (!strcmp(u[j].mode, u[i].mode) && n[j].fallbacks)
				audit_unit(k, u[j].id);
	}
	if (modes_most) {
		audit_raise(k, AUDIT_FAIL);
		audit_summary(k, "%zu mode%s fell back in most of %s op cells: what ran there is the "
				 "fallback (the heuristic), not the table or model the mode names; %zu "
				 "of %zu notes in all fell back", modes_most, modes_most == 1 ? "" : "s",
			      modes_most == 1 ? "its" : "their", fell_total, notes_total);
	} else if (modes_some) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "%zu of %zu op-cell notes fell back (in %zu mode%s): those cells "
				 "ran the fallback, not the table's or model's config", fell_total,
			      notes_total, modes_some, modes_some == 1 ? "" : "s");
	} else {
		audit_summary(k, "every one of %zu op-cell notes used what the tuner was given",
			      notes_total);
	}
done:
	for (size_t i = 0; i < nu; i++)
		free(n[i].first);
	free(n);
	audit_infos_free(u, info, nu, nu);
	return 0;
}
