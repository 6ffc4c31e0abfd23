/* recorder-int.h: what the recorder's files share (not for use outside harness/record/):
 * the open file, the table descriptions that drive the HDF5 compound types, and the HDF5
 * adapter.  The public interface is recorder.h. */
#ifndef HARNESS_RECORDER_INT_H
#define HARNESS_RECORDER_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "harness/base/util.h"
#include "harness/record/recorder.h"

/*
 * How files are written (docs/results-format.md, docs/reliability.md).
 *
 * HDF5 never writes to disk.  Every file the recorder writes (a journal file, a results
 * file, an import) is built in memory with HDF5's core driver (no backing store); its image
 * is then written by rec_write_atomic() (util_write_atomic with signals held): a temporary file beside the target (O_CREAT |
 * O_EXCL | O_NOFOLLOW), every byte written, fsync, rename into place, fsync of the folder.
 * An I/O failure is therefore ours: reported once with the file and errno, the temporary
 * removed, nothing else changed.  Nothing is appended in place, so a kill -9 or a full disk
 * can lose only the file being written, never one written before.
 *
 * Layout version 2 holds no variable-length data: strings are fixed-length, sized to the
 * longest value in their dataset (or attribute); the metadata is the library's latest format
 * (checksummed); every table is chunked with Fletcher32.  Readers check each dataset's
 * class, rank, size and field types before reading and reject variable-length strings in a
 * version 2 file, so a damaged file is an error naming the file and the dataset.  Version 1
 * files (variable-length strings) are still read; damaged ones are not covered.
 */
#define ROOT_ID_ATTR "harness_results"
#define ROOT_VERSION_ATTR "format_version"
#define ROOT_JOURNAL_ATTR "journal"  /* journal files: "run" or "unit" */
#define FILES_GROUP "/run/files"

/* Rows per chunk of /samples (82 KiB before compression). */
#define SAMPLES_CHUNK 2048
#define SAMPLES_DEFLATE 1

/* Bounds a reader puts on what a file may claim (a damaged or hostile file must not make
 * it allocate without limit). */
#define REC_STR_MAX ((size_t)64 << 20)  /* one string (a recorded file's bytes included) */
#define REC_INFLATE_MAX 1100            /* deflate cannot expand data more than ~1032x */

struct rec {
	char *path;
	hid_t file;   /* open read-only */
	int version;  /* the file's format_version (REC_FORMAT_OLDEST .. REC_FORMAT_VERSION) */
	uint64_t max_bytes; /* the most bytes of table data the file can hold (see rec_open) */
	uint64_t file_bytes; /* its size: the most an uncompressed table can hold */
};

enum field_kind {
	K_I64,  /* int64_t in memory, 64-bit little-endian integer in the file */
	K_I32,  /* int32_t, 32-bit integer */
	K_FLAG, /* int in memory, 8-bit integer (0/1) in the file */
	K_F64,  /* double, IEEE 754 binary64 */
	K_STR,  /* char * in memory; a fixed-length UTF-8 string as wide as the longest value in
		 * the file (variable-length in version 1 files) */
	K_FIX   /* char[size], fixed-length NUL-terminated UTF-8 string of that size */
};

struct field {
	const char *name;
	enum field_kind kind;
	size_t offset; /* in the memory row */
	size_t size;   /* K_FIX: bytes of the char array (0 otherwise) */
	int optional;  /* reading: a file without the field gives `absent` (integers) or ""
			* (strings): a column added after files were written (FO); 2: added
			* after files were sealed (FD): a row's digest has it only when it is
			* not `absent`, so files sealed before it verify as they did */
	int64_t absent;
};

#define REC_MAX_FIELDS 40

struct table {
	const char *name;  /* dataset path */
	unsigned slot;     /* index into rec_table_type()'s cache */
	const struct field *fields;
	size_t nfields;
	size_t row_size;   /* sizeof the memory row */
	hsize_t chunk;     /* rows per chunk */
	int deflate;       /* 0, or the deflate level (with shuffle) */
};

/* A table's row as stored: each field's width (K_STR: the longest value + 1) and offset in
 * a packed row.  rec_widths_* fill it; the same widths give the memory and file types. */
struct rec_widths {
	size_t w[REC_MAX_FIELDS];
	unsigned char ascii[REC_MAX_FIELDS]; /* reading: the file's string is ASCII, not UTF-8 */
};

#define F(row, member, kind) { #member, kind, offsetof(struct row, member), 0, 0, 0 }
#define FN(row, name, member, kind) { name, kind, offsetof(struct row, member), 0, 0, 0 }
#define FO(row, name, member, kind, absent) \
	{ name, kind, offsetof(struct row, member), 0, 1, absent }
#define FD(row, name, member, kind, absent) \
	{ name, kind, offsetof(struct row, member), 0, 2, absent }
#define TABLE(path, slot, row, fields, chunk, deflate) \
	{ path, slot, fields, ARRAY_SIZE(fields), sizeof(struct row), chunk, deflate }

/* A row of /units: the unit, plus what locates its samples and the backend notes. */
struct unit_row {
	struct rec_unit u;
	int64_t sample_first, sample_count;
	char *info;
};

struct trial_row {
	int64_t unit;
	struct rec_trial t;
};

struct choice_row {
	int64_t unit;
	struct rec_choice c;
};

struct measure_row {
	int64_t unit;
	struct rec_measure m;
};

/* A row of /samples (layout 2: with the optional GPU columns). */
struct sample_row {
	int32_t unit;
	int32_t cell;
	int64_t index;
	int64_t ns;
	double clock_mhz;
	int throttle;
	int64_t launches;
	int64_t clock_reasons; /* optional column (files before it read -1) */
};

/* What reading a unit's timings needs: the columns every layout has, and the launches a
 * sample covers (layout 2; 1 where the file has no such column). */
struct sample_row_v1 {
	int32_t unit;
	int32_t cell;
	int64_t index;
	int64_t ns;
	int64_t launches;
};

/* The optional columns alone (layout 2). */
struct sample_extra_row {
	int32_t unit;
	double clock_mhz;
	int throttle;
	int64_t launches;
	int64_t clock_reasons;
};

/* Rows of layout 2's per-unit tables: the unit's row of /units, then the payload. */
struct trial_sample_row {
	int64_t unit;
	struct rec_trial_sample s;
};
struct space_row {
	int64_t unit;
	struct rec_space s;
};
struct space_value_row {
	int64_t unit;
	struct rec_space_value v;
};
struct space_vendor_row {
	int64_t unit;
	struct rec_space_vendor v;
};
struct space_invalid_row {
	int64_t unit;
	struct rec_space_invalid v;
};

/* The one-field row used to find rows past the last unit. */
struct unit_ref {
	int64_t unit;
};

/* The two fields of /units that locate a unit's samples. */
struct sample_span {
	int64_t sample_first, sample_count;
};

/* The datasets (rec_all_tables lists them, REC_NTABLES long: the first REC_NTABLES_V1 are
 * the ones a version 1 file has) and the read layouts that are not datasets. */
extern const struct table rec_t_plan, rec_t_units, rec_t_cells, rec_t_trials, rec_t_choices,
	rec_t_measures, rec_t_samples, rec_t_unit_ref, rec_t_sample_span, rec_t_sample_v1,
	rec_t_sample_extra, rec_t_trial_samples, rec_t_spaces, rec_t_space_values,
	rec_t_space_vendors, rec_t_space_invalid;
#define REC_NTABLES 12
#define REC_NTABLES_V1 7
/* The number of datasets a file of this version has. */
#define REC_NTABLES_OF(version) ((version) >= 2 ? REC_NTABLES : REC_NTABLES_V1)
extern const struct table *const rec_all_tables[REC_NTABLES];

/* ---- the HDF5 adapter, attributes, signals, locks and atomic writes (recorder-h5.c) */
void rec_h5_init(void);
__attribute__((format(printf, 2, 3)))
int rec_h5_error(const char *path, const char *fmt, ...);
void rec_h5_close(hid_t id);
hid_t rec_h5_str_type(void);
hid_t rec_h5_fixed_str(size_t size);
hid_t rec_h5_fapl_read(void);
/* An in-memory file's buffer (recorder-h5.c): HDF5 hands it over when the file closes. */
struct rec_image {
	void *buf;   /* heap, or NULL */
	size_t cap;  /* its allocated size */
	/* called with the finished image before it is written (NULL: none); non-zero stops
	 * the write (reported by it) */
	int (*before)(void *ctx, const void *data, size_t len);
	void *ctx;
};
hid_t rec_h5_image_create(const char *path, struct rec_image *im);
int rec_h5_image_write(hid_t file, struct rec_image *im, const char *path, int excl);
int rec_write_atomic(const char *path, const void *data, size_t len, int excl);
int rec_attr_set_string(hid_t obj, const char *name, const char *value);
int rec_attr_get_string(hid_t a, int allow_vlen, char **out);
int rec_attr_set_int(hid_t obj, const char *name, int value);
int rec_attr_get_int(hid_t obj, const char *name, long long *value);
void rec_signals_hold(sigset_t *old);
void rec_signals_restore(const sigset_t *old);
int rec_writer_lock(int fd, const char *path);

/* ---- long strings (recorder-long.c) */
/* A string of this many bytes or more (its NUL included) is cut in its table's row, at a
 * UTF-8 character boundary, and stored whole in /long_strings and /long_bytes. */
#define REC_STR_INLINE 65536
struct long_row;
struct rec_spill {
	struct long_row *rows;
	size_t n, cap;
	struct sbuf bytes;       /* init with sbuf_init */
};
extern const struct table rec_t_long_strings;
/* Note rows [first, first + n) of tb's string values that are too long (sp NULL: none). */
void rec_spill_note(struct rec_spill *sp, const struct table *tb, const void *rows,
		    size_t first, size_t n);
/* Write /long_strings and /long_bytes when sp noted any.  Reports and returns -1. */
int rec_spill_write(hid_t file, const char *path, const struct rec_spill *sp, int compress);
void rec_spill_release(struct rec_spill *sp);
/* Put the whole of each long string of tb's n memory rows (as read) in place of its cut
 * (nothing when the file has no /long_strings).  Reports and returns -1 (damage). */
int rec_spill_apply(struct rec *r, const struct table *tb, void *rows, size_t n);

/* ---- tables (recorder-tables.c) */
void rec_widths_init(const struct table *tb, struct rec_widths *w);
void rec_widths_add(const struct table *tb, struct rec_widths *w, const void *rows, size_t n);
void rec_widths_max(const struct table *tb, struct rec_widths *w, const struct rec_widths *o);
hid_t rec_table_make(hid_t file, const char *path, const struct table *tb,
		     const struct rec_widths *w, size_t nrows, int compress);
int rec_table_put(hid_t d, const char *path, const struct table *tb, const struct rec_widths *w,
		  const void *rows, size_t first, size_t n, struct rec_spill *sp);
hid_t rec_table_open(struct rec *r, const struct table *tb);
int rec_table_rows(struct rec *r, hid_t d, const struct table *tb, size_t *n);
int rec_table_read(struct rec *r, hid_t d, const struct table *tb, const struct table *layout,
		   size_t first, size_t n, void *rows);
void rec_rows_fill_strings(const struct table *tb, void *rows, size_t n, int alloc);
void rec_free_rows(const struct table *tb, void *rows, size_t n);
int rec_table_count(struct rec *r, const struct table *tb, size_t *n);

/* ---- writing (recorder-write.c) */
int rec_build_file(const char *path, int excl, const char *journal, const struct rec_meta *meta,
		   const struct rec_plan *plan, size_t nplan, const struct rec_unit_source *src);
/* The same, calling before(ctx, image, len) with the finished file's bytes just before
 * they are written (the journal records a unit file's digest first). */
int rec_build_file_hook(const char *path, int excl, const char *journal,
			const struct rec_meta *meta, const struct rec_plan *plan, size_t nplan,
			const struct rec_unit_source *src,
			int (*before)(void *ctx, const void *data, size_t len), void *ctx);

/* ---- the record's digests (recorder-seal.c) */
/* Compute the digests of the results file open (writable, in memory) as file from what it
 * holds, and write them into it: /digests and the root attribute record_sha256.  Reports
 * and returns -1. */
int rec_seal_write(hid_t file, const char *path, int compress);

/* ---- journal/digests (recorder-digests.c) */
/* The journal folder dir and a unit id: rec_digest_before appends the SHA-256 of the bytes
 * about to be written as that unit's file (rec_build_file_hook's before; reported, -1). */
struct rec_digest_ctx {
	const char *dir;
	int64_t id;
};
int rec_digest_before(void *ctx, const void *data, size_t len);
/* The digests of journal folder dir per plan id (nplan; NULL where none; the last line for
 * an id counts), or NULL when it has none (a journal from before them).  rec_digests_free. */
char **rec_digests_load(const char *dir, size_t nplan);
void rec_digests_free(char **d, size_t nplan);
/* 0 when path's bytes have unit id's digest in d (or d is NULL), else -1 and the reason in
 * *why (static text; nothing reported). */
int rec_digest_check(char **d, int64_t id, const char *path, const char **why);

/* ---- reading (recorder-read.c) */
void rec_meta_push(struct rec_meta *m, char *key, char *value);
int rec_read_all(struct rec *r, const struct table *tb, void **rows, size_t *n);
void rec_unit_strings_free(struct rec_unit *u);
void rec_trials_free_rows(struct rec_trial *t, size_t n);
void rec_choices_free_rows(struct rec_choice *c, size_t n);
void rec_free_names(char **names, size_t n);

#endif
