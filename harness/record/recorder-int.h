/* recorder-int.h: what the recorder's files share (not for use outside harness/record/):
 * the open file, the table descriptions that drive the HDF5 compound types, and the HDF5
 * adapter.  The public interface is recorder.h. */
#ifndef HARNESS_RECORDER_INT_H
#define HARNESS_RECORDER_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "harness/record/recorder.h"

/*
 * How the file is written.
 *
 * The writer keeps the HDF5 file CLOSED between operations: rec_create, rec_append_unit
 * and rec_set_meta each open it, write, flush, close and fdatasync.  A run spends nearly
 * all its time waiting for units, so nearly all the time the file on disk is a closed,
 * complete HDF5 file that h5py or h5dump can open, and a kill -9 then loses nothing.
 * SIGINT and SIGTERM are held off while a write is under way (about a millisecond).
 *
 * HDF5's own file locking (flock) is turned off for our opens: with it, a researcher
 * holding the file open in h5py during a run would make the next append fail.  Instead
 * the writer holds an open-file-description lock (fcntl F_OFD_SETLK, independent of
 * flock) on the file for as long as its struct rec lives, so two harness processes
 * cannot write one file at once.
 *
 * A unit's rows in the other tables refer to its row of /units, which is written last.
 * When a writer dies INSIDE a write (SIGKILL, power loss), opening the file for writing
 * again repairs what that leaves: the end of allocated space (repair_eoa), rows past the
 * last recorded unit (table_trim) and chunk contents past the tables' ends (table_scrub).
 */
#define ROOT_ID_ATTR "harness_results"
#define ROOT_VERSION_ATTR "format_version"
#define FILES_GROUP "/run/files"

/* Rows per chunk of /samples (48 KiB before compression): the partial last chunk is
 * re-compressed by every append, so smaller is cheaper there; larger costs less per
 * chunk.  2048 measured best (tests/bench/bench-recorder). */
#define SAMPLES_CHUNK 2048
#define SAMPLES_DEFLATE 1

struct rec {
	char *path;
	int writable;
	hid_t file;   /* open file, or -1 (a writer between operations) */
	int lock_fd;  /* the writer's lock on the file, or -1 */
	int dirty;    /* an append failed part-way: trim before the next one */
	int version;  /* the file's format_version (REC_FORMAT_OLDEST .. REC_FORMAT_VERSION) */
	char **cell_names; /* the writer's copy of /cells' names, in row order */
	size_t ncells, cells_cap;
};

enum field_kind {
	K_I64,  /* int64_t in memory, 64-bit little-endian integer in the file */
	K_I32,  /* int32_t, 32-bit integer */
	K_FLAG, /* int in memory, 8-bit integer (0/1) in the file */
	K_F64,  /* double, IEEE 754 binary64 */
	K_STR,  /* char *, variable-length UTF-8 string */
	K_FIX   /* char[size], fixed-length NUL-terminated UTF-8 string (layout 2's new tables) */
};

struct field {
	const char *name;
	enum field_kind kind;
	size_t offset; /* in the memory row */
	size_t size;   /* K_FIX: bytes of the char array (0 otherwise) */
};

struct table {
	const char *name;  /* dataset path */
	unsigned slot;     /* index into rec_table_type()'s cache */
	const struct field *fields;
	size_t nfields;
	size_t row_size;   /* sizeof the memory row */
	hsize_t chunk;     /* rows per chunk */
	int deflate;       /* 0, or the deflate level (with shuffle) */
};

#define F(row, member, kind) { #member, kind, offsetof(struct row, member), 0 }
#define FN(row, name, member, kind) { name, kind, offsetof(struct row, member), 0 }
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
};

/* The columns every layout has: what reading a unit's timings needs. */
struct sample_row_v1 {
	int32_t unit;
	int32_t cell;
	int64_t index;
	int64_t ns;
};

/* The optional columns alone (layout 2). */
struct sample_extra_row {
	int32_t unit;
	double clock_mhz;
	int throttle;
	int64_t launches;
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

/* ---- the HDF5 adapter, attributes, signals and the writer's lock (recorder-h5.c) */
void rec_h5_init(void);
__attribute__((format(printf, 2, 3)))
int rec_h5_error(const char *path, const char *fmt, ...);
hid_t rec_h5_dxpl(size_t n, size_t row_size, int read);
void rec_h5_close(hid_t id);
hid_t rec_h5_str_type(void);
hid_t rec_h5_fapl(void);
int rec_attr_set_string(hid_t obj, const char *name, const char *value);
int rec_attr_get_string(hid_t a, char **out);
int rec_attr_set_int(hid_t obj, const char *name, int value);
int rec_attr_get_int(hid_t obj, const char *name, long long *value);
void rec_signals_hold(sigset_t *old);
void rec_signals_restore(const sigset_t *old);
int rec_writer_lock(int fd, const char *path);

/* ---- tables (recorder-tables.c) */
hid_t rec_table_type(const struct table *tb, int file);
int rec_table_create(hid_t file, const char *path, const struct table *tb);
hid_t rec_table_open(hid_t file, const char *path, const struct table *tb);
int rec_table_rows(hid_t d, const char *path, const struct table *tb, hsize_t *n);
int rec_table_append(hid_t d, const char *path, const struct table *tb, const void *rows, size_t n, hsize_t *first);
int rec_table_read(hid_t d, const char *path, const struct table *tb, const struct table *layout, hsize_t first, hsize_t n, void *rows);
void rec_rows_fill_strings(const struct table *tb, void *rows, size_t n, int alloc);
void rec_free_rows(const struct table *tb, void *rows, size_t n);
int rec_table_count(hid_t file, const char *path, const struct table *tb, hsize_t *n);
int rec_trim_all(hid_t file, const char *path);

/* ---- opening (recorder-open.c) */
int rec_enter(struct rec *r);
int rec_leave(struct rec *r, int wrote);
void rec_free_names(char **names, size_t n);

/* ---- reading (recorder-read.c) */
void rec_meta_push(struct rec_meta *m, char *key, char *value);
int rec_read_all(struct rec *r, const struct table *tb, void **rows, size_t *n);
void rec_unit_strings_free(struct rec_unit *u);
void rec_trials_free_rows(struct rec_trial *t, size_t n);
void rec_choices_free_rows(struct rec_choice *c, size_t n);

#endif
