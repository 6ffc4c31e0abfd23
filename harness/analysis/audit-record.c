/* audit-record.c: the audit's record check: whether the results file is as the harness wrote
 * it, against the digests it carries (rec_seal_check) and the journal it was assembled from
 * where that is at hand (rec_recheck); docs/audit.md, docs/results-format.md, "Digests" */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "harness/analysis/audit-check.h"
#include "harness/base/util.h"

int audit_record_check(struct audit *au, const char *path)
{
	struct rec_seal s;
	struct rec_recheck j;
	if (rec_seal_check(path, &s))
		return -1;
	if (rec_recheck(path, &j)) {
		rec_seal_release(&s);
		return -1;
	}
	struct audit_check *k = audit_add(au, "record", "record unaltered since it was written "
					  "(digests, journal)");
	int altered = rec_seal_altered(&s);
	if (altered || j.bad) {
		audit_raise(k, AUDIT_FAIL);
		if (s.bad)
			audit_summary(k, "ALTERED: %zu of %zu parts of the record differ from the "
				      "digests the file carries; verdicts on it are not the run's",
				      s.bad, s.parts);
		else if (altered)
			audit_summary(k, "ALTERED: the metadata, recorded files, plan or cells differ "
				      "from the record digest the file carries");
		else
			audit_summary(k, "ALTERED: %zu of %zu units differ from the journal they were "
				      "recorded in", j.bad, j.units);
	} else if (!s.sealed) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "the file carries no digests (from before them, 2026-11-30, or "
			      "removed): an alteration cannot be detected from the file%s",
			      j.matched ? ", only against the journal" : "");
	} else {
		audit_raise(k, AUDIT_PASS);
		audit_summary(k, "%zu parts and the record digest match the digests the file "
			      "carries; %zu of %zu units re-checked against their journal", s.parts,
			      j.matched, j.units);
	}
	for (size_t i = 0; i < s.nshown; i++)
		audit_ev(k, "differs from its digest: %s", s.shown[i]);
	if (s.bad > s.nshown)
		audit_ev(k, "and %zu more parts", s.bad - s.nshown);
	for (size_t i = 0; i < s.nmodes; i++)
		audit_mode(k, s.modes[i]);
	if (j.first_bad)
		audit_ev(k, "differs from its journal: %s", j.first_bad);
	if (j.no_journal)
		audit_ev(k, "%zu units not re-checked against a journal (the first: %s)",
			 j.no_journal, j.first_missing);
	if (*s.record)
		audit_ev(k, "record digest (of the content as it is now): sha256:%s (harness verify "
			 "--anchor DIR or --digest HEX compares it with an anchor)", s.record);
	rec_seal_release(&s);
	rec_recheck_release(&j);
	return 0;
}
