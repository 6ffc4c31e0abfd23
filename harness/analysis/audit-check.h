/* audit-check.h: what the audit's checks share (audit.c, audit-checks.c); private to the
 * audit, not part of audit.h's interface.  A check adds itself with audit_add() and only
 * ever raises its status; its strings are owned by the audit (audit_free). */
#ifndef HARNESS_AUDIT_CHECK_H
#define HARNESS_AUDIT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/audit.h"
#include "harness/analysis/report.h"
#include "harness/record/recorder.h"

struct hyp_set;

/* What every check reads.  Everything is owned here and released by ctx_release. */
struct ctx {
	const struct analysis *an;    /* borrowed from the caller */
	const struct report *rep;     /* borrowed */
	struct report_opts o;
	struct report **by_ref;       /* [mode]: a report with that mode as baseline, built on demand */
	struct rec_unit *units;       /* rows of /units */
	size_t nunits;
	struct rec_cell *cells;       /* rows of /cells (choices index them) */
	size_t ncells;
	int64_t *ch_unit;             /* rows of /choices */
	struct rec_choice *ch;
	size_t nch;
	struct hyp_set *hyps;         /* the recorded hypothesis files, loaded once (owned) */
	int hyps_bad;                 /* 1: one does not parse (reported when loading) */
};


struct audit_check *audit_add(struct audit *a, const char *id, const char *title);
/* Raise the check's status to at least s (findings only ever make it worse). */
void audit_raise(struct audit_check *k, enum audit_status s);
void audit_summary(struct audit_check *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void audit_ev(struct audit_check *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Name a mode, a cell or a unit in the check's findings (each at most once). */
void audit_mode(struct audit_check *k, const char *m);
void audit_cell(struct audit_check *k, const char *c);
void audit_unit(struct audit_check *k, int64_t id);
/* The smallest p floor over the ok comparisons of a family (1 when none is ok); *nok: how
 * many are ok. */
double audit_family_floor(const struct rep_cmp *cmp, size_t n, size_t *nok);

static inline const char *meta(const struct ctx *c, const char *key)
{
	const char *v = rec_meta_get(&c->an->meta, key);
	return v ? v : "";
}

/* Imported data (harness import) records no backend, caches or configs. */
static inline int imported(const struct ctx *c)
{
	return *meta(c, "source") != '\0';
}

/* The checks of audit-checks.c, in the audit's order after those of audit.c. */
void audit_baseline(struct audit *au, struct ctx *c);
void audit_repeats(struct audit *au, struct ctx *c);
void audit_aa(struct audit *au, struct ctx *c);
void audit_margin(struct audit *au, struct ctx *c);
void audit_clocks(struct audit *au, struct ctx *c, int gpu);
void audit_drift(struct audit *au, struct ctx *c);
void audit_measure(struct audit *au, struct ctx *c);
void audit_failures(struct audit *au, struct ctx *c);
void audit_op_e2e(struct audit *au, struct ctx *c);
void audit_hypotheses(struct audit *au, struct ctx *c);
/* audit-devices.c: units that record a device (--jobs, --gpus, merged shards) only. */
void audit_devices(struct audit *au, struct ctx *c);
/* audit-gpu.c: the units and their info strings of a results file (reported, -1, on a file
 * that cannot be read; nothing to free then), freed by audit_infos_free(u, info, n, n); and
 * one number of a unit's info, NaN when it has none. */
int audit_read_infos(const char *path, struct rec_unit **u, char ***info, size_t *n);
void audit_infos_free(struct rec_unit *u, char **info, size_t nu, size_t ni);
double audit_info_num(const char *info, const char *key);
/* audit-host.c: other work on the host's CPUs while the units ran (units that record it
 * only); -1 when the file cannot be read (reported). */
int audit_host_check(struct audit *au, const char *path);
/* audit-isolation.c: whether the units ran where they could not reach the record (units
 * that record their sandbox only); -1 when the file cannot be read (reported). */
int audit_isolation_check(struct audit *au, const char *path);
/* audit-record.c: the record as the harness wrote it, against its digests and its
 * journal (every file; -1 when the file cannot be read, reported). */
int audit_record_check(struct audit *au, const char *path);
/* audit-tuner.c: tuners that fell back from their table or model (units whose info records
 * tuner notes only); -1 when the file cannot be read (reported). */
int audit_tuner_check(struct audit *au, const char *path);
/* audit-spin.c: op-cell samples late behind their GPU spin (units whose info records spin
 * notes, or a fixed spin, only); -1 when the file cannot be read (reported). */
int audit_spin_check(struct audit *au, const struct ctx *c, const char *path);

#endif
