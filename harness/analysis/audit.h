/* audit.h: `harness audit`: the checks a reviewer of a null (or positive) result should
 * demand of a run, each PASS, WARN or FAIL with its evidence (docs/audit.md).  Built on the
 * analysis and the report (analysis.h, report.h), which compute every statistic; the audit
 * reads the tables they do not use (/units, /choices, /cells) through the recorder and only
 * applies the documented rules to what those give.  Writing an audit is the output
 * layer's (harness/output/write.h, audit_write). */
#ifndef HARNESS_AUDIT_H
#define HARNESS_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "harness/analysis/report.h"
#include "harness/base/hashindex.h"

enum audit_status { AUDIT_PASS = 0, AUDIT_WARN, AUDIT_FAIL };

const char *audit_status_name(enum audit_status s); /* "PASS", "WARN", "FAIL" */

/* One check.  Every string and array is owned by the check (audit_free frees them). */
struct audit_check {
	const char *id;            /* stable key, e.g. "cache-isolation" (static) */
	const char *title;         /* static */
	enum audit_status status;  /* the worst finding */
	char *summary;             /* one line */
	char **evidence;           /* lines with the numbers and names behind the status */
	size_t nevidence, evidence_cap;
	char **modes;              /* the modes its WARN/FAIL findings name */
	size_t nmodes, modes_cap;
	char **cells;              /* the cells they name */
	size_t ncells, cells_cap;
	struct hashindex cells_ix; /* cells[0 .. cells_indexed) by name (audit_cell) */
	size_t cells_indexed;
	int64_t *units;            /* the units they name (plan ids) */
	size_t nunits, units_cap;
};

struct audit {
	char *path;
	char *experiment_name, *backend;
	size_t blocks;
	char *baseline;
	double alpha, margin;
	const char *margin_source;     /* static, from the report */
	struct audit_check *checks;
	size_t nchecks;
	size_t counts[3];              /* by enum audit_status */
};

/* Run every check on an analysis and the report the caller built from it (both borrowed;
 * the results file at an->path is read for /units, /cells and /choices; checks that
 * compare two modes other than the baseline build their own reports with rep's options).
 * Returns 0 and a heap *out the caller frees with audit_free, or reports and returns -1
 * (the results file cannot be read); failed checks are findings, not errors. */
int audit_build(const struct analysis *an, const struct report *rep, struct audit **out);
void audit_free(struct audit *a);
/* The worst status over the checks. */
enum audit_status audit_worst(const struct audit *a);
/* 1 when check k FAILs and its failure means a mode did not measure what it names: a cold
 * unit that took kernels from a cache or did none of the work its tuner (or a command
 * mode's `expects`) must do (cache-isolation), a tuner that fell back (tuner-fallback),
 * another backend than the one asked for (backend).  harness run exits 4 when one does
 * (docs/audit.md).  Not identity: two modes that chose the same configs with timings alike
 * may be two tuners that agree, or an A/B of a setting without effect, as well as one that
 * did nothing; the file cannot tell which was meant, so it is a finding the answer shows. */
int audit_check_mismeasures(const struct audit_check *k);
/* How many of a's checks mismeasure (audit_check_mismeasures). */
size_t audit_mismeasures(const struct audit *a);

#endif
