/* csvimport.h: raw timings from a CSV file (docs/import-format.md), in memory and as results */
#ifndef HARNESS_CSVIMPORT_H
#define HARNESS_CSVIMPORT_H

#include <stddef.h>
#include <stdint.h>

/* Lifecycle:
 *   1. csvimport_read() (or csvimport_parse() on bytes already in memory) parses and
 *      validates the whole file; on any error it has reported it (with file, line and
 *      column) and returns -1 with *out NULL: nothing was written anywhere.  The file is
 *      read in pieces, so what is held is its data (16 bytes a sample, and the names), not
 *      the file, at any size; its bytes are kept for the results file only when it is at
 *      most CSVIMPORT_KEEP_MAX long.
 *   2. csvimport_write() writes the results file; it may be called more than once.
 *   3. csvimport_free() releases everything.
 * Nothing in struct csvimport refers to the caller's strings: it owns all it holds. */

struct csvimport_opts {
	const char *unit; /* "ns", "us", "ms" or "s": the unit of every value and setup when
			   * the file has no 'unit' column; NULL: the file must have one */
	const char *name; /* experiment_name to record; NULL: the file's base name without
			   * its extension */
};

struct csvimport_cell {
	char *name;
	const char *kind; /* "op" or "e2e" (static strings) */
	size_t line;      /* the line that first named it */
	int64_t count;    /* occurrences in one forward of its workload (the 'count' column,
			   * one value per cell); 1 when no row gives it */
	size_t count_line; /* the line that gave it, or 0 */
};

/* A unit: all rows with one (mode, block), in file order. */
struct csvimport_unit {
	size_t mode;         /* index into modes */
	int64_t block;
	int64_t position;    /* 0-based order of first appearance within its block */
	int64_t setup_ns;    /* 0 when the file has no 'setup' column */
	size_t line;         /* the line of its first row */
	int64_t *sample_cell; /* parallel arrays, nsamples long: index into cells, and ns */
	int64_t *sample_ns;
	size_t nsamples, samples_cap;
};

struct csvimport {
	char *path;          /* as given */
	char *name;          /* the experiment name to record */
	char *text;          /* the file's bytes (NUL-terminated for convenience), or NULL
			      * when it is longer than CSVIMPORT_KEEP_MAX */
	uint64_t len;        /* the file's size in bytes */
	char sha256[65];
	char *units_seen;    /* the time units the values were given in, comma-separated in
			      * order of first use ("us", or "us,ms" with a 'unit' column) */
	int unit_from_option; /* 1: --unit gave the unit; 0: the 'unit' column did */
	char **modes;        /* in order of first appearance */
	size_t nmodes;
	size_t baseline;     /* index into modes */
	struct csvimport_cell *cells; /* in order of first appearance */
	size_t ncells;
	struct csvimport_unit *units; /* unit i has plan id i: order of first appearance */
	size_t nunits;
	size_t nrows;        /* data rows (= samples) */
	int paired;          /* 1: a 'block' column (units of one block are paired);
			      * 0: a 'repeat' column (repeat numbers pair nothing) */
};

/* The largest file whose bytes an import keeps, to record verbatim in the results file. */
#define CSVIMPORT_KEEP_MAX ((uint64_t)64 << 20)

/* Nanoseconds in one time unit named "ns", "us", "ms" or "s"; 0 for any other name
 * (nothing is reported: the caller knows where the name came from). */
int64_t csvimport_unit_ns(const char *unit);

/* Read the CSV file at path (a regular file, any size) and parse it as csvimport_parse.
 * When path is in an export's set (harness/record/exportset.h), the set's manifest must
 * vouch for it.  Reports and returns -1 when the file cannot be read, is invalid or is
 * refused; on success *out is the caller's to free. */
int csvimport_read(const char *path, const struct csvimport_opts *opts, struct csvimport **out);

/* Parse and validate len bytes of CSV text (copied) that came from path (used in messages
 * and recorded as source_path).  Reports the first error as 'path':LINE: column 'NAME':
 * ... and returns -1 with *out NULL; on success *out is the caller's to free. */
int csvimport_parse(const char *path, const char *text, size_t len,
		    const struct csvimport_opts *opts, struct csvimport **out);

/* Write imp as a complete results file at out_path (docs/import-format.md lists what goes
 * in).  The file is built as out_path.tmpXXXXXX in the same folder and linked into place
 * only when complete; out_path is never overwritten.  On failure (out_path exists, a write
 * fails) it reports, removes the temporary file and returns -1: out_path is as it was.
 * SIGINT and SIGTERM are held off while it writes; one that arrived meanwhile makes it
 * remove the temporary file, report, and let the signal through (returning -1 if the
 * process survives it). */
int csvimport_write(const struct csvimport *imp, const char *out_path);

/* Release imp and everything it holds; NULL is a no-op. */
void csvimport_free(struct csvimport *imp);

#endif
