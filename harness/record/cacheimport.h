/* cacheimport.h: the field's brute-forced tuning data into a results file (docs/import-format.md,
 * "Tuning caches"): a Kernel Tuner cache file (JSON, or gzip-compressed JSON) or a T4 results
 * file (the AutoTuning Association's schema), read in pieces (jsonscan.h), checked, and
 * written as one unit that measured every configuration of one op cell, its space listed,
 * so `harness replay` can re-score tuners on it. */
#ifndef HARNESS_CACHEIMPORT_H
#define HARNESS_CACHEIMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "harness/record/recorder.h"

enum cacheimport_format { CACHE_KERNEL_TUNER, CACHE_T4 };

struct cacheimport_opts {
	enum cacheimport_format format;
	const char *name;       /* the workload's name; NULL: the file's name without its
				 * extensions ("A4000" of A4000.json.gz) */
	const char *kernel;     /* the kernel's name where the file has none (T4); NULL: "kernel" */
	const char *device;     /* the device where the file names none (T4); NULL: "" */
	double tolerance;       /* the stored-time check's relative tolerance (0.01) */
};

/* What an import found, for the caller's summary and the checks' warnings. */
struct cacheimport_summary {
	size_t configs, ok, compile_failed, runtime_failed, invalid, incorrect;
	size_t fields, samples;
	char grid[32];          /* the grid's size as text ("16896"; "over 9.2e18") */
	/* the checks (docs/import-format.md): stored objective against the samples, first
	 * sample left in */
	size_t stored_checked, stored_off, stored_mean, stored_median;
	double stored_worst;    /* the largest relative difference from the samples' mean */
	size_t first_checked, first_high;
	double first_expected;  /* first samples expected to be the largest by chance */
	double best_ns;         /* the fastest ok configuration's median */
	char *best_config;      /* heap */
};

/* Read path, check it, and write the results file out (never overwriting it; atomically).
 * 0 and *sum (release it with cacheimport_summary_release either way); else reported: 2
 * when the input is bad (path:line:col; nothing written), 1 when out could not be written. */
int cacheimport(const char *path, const struct cacheimport_opts *o, const char *out,
		struct cacheimport_summary *sum);
void cacheimport_summary_release(struct cacheimport_summary *sum);

/* ---- between cacheimport.c (reading) and cacheimport-write.c (checks, the results file) */

/* One field: its distinct values as the source wrote them, then its kind and order. */
struct ci_field {
	char *name;
	int kind;               /* enum space_kind, decided when the file has been read */
	size_t n;               /* distinct values */
	char **text;            /* each value's text: the number or string ("32", "0.5") */
	char *type;             /* each value's JSON type: 'i' integer, 'r' real, 's' other */
	size_t *order;          /* discovery index -> ordinal (position in ascending order,
				 * or the declared order of a string field) */
	int64_t *value;         /* ordinal -> the recorded value (the integer, or the ordinal) */
	char **label;           /* ordinal -> its label ("" for an int field) */
	size_t *hash;           /* open addressing over text, + 1 (0 empty) */
	size_t hcap;
	int declared;           /* the file declared its values (Kernel Tuner's tune_params) */
};

/* One configuration's measurement. */
struct ci_entry {
	size_t first, n;        /* its samples in the sample array */
	const char *status;     /* a trial status: "ok", "compile-error", "failed", "invalid",
				 * "incorrect" (static) */
	int64_t compile_ns, bench_ns, verify_ns; /* -1: not given */
	int64_t overhead_ns;    /* framework + strategy time; -1: neither given */
	double stored_ns;       /* the objective value the source stored; NaN: none */
	size_t line;            /* where it was in the source */
};

struct ci {
	const char *path;
	struct ci_field *fields;
	size_t nfields;
	uint16_t *ids;          /* entries x nfields discovery indices */
	struct ci_entry *entries;
	size_t nentries, cap;
	int64_t *samples;
	size_t nsamples, scap;
	char *device, *kernel, *problem, *objective, *format_version, *sha256, *time_unit;
};

/* Read and check path as fmt into *c (ci_release it either way): 0, or -1 reported
 * (path:line:col).  The whole reading side, nothing written (the fuzz target's). */
int ci_read(const char *path, enum cacheimport_format fmt, struct ci *c);
void ci_release(struct ci *c);
/* The checks and the results file (cacheimport-write.c).  0; 1, out not written; 2, a bad
 * input (the same configuration twice, a parameter name too long); both reported. */
int ci_write(struct ci *c, const struct cacheimport_opts *o, const char *out,
	     struct cacheimport_summary *sum);

#endif
