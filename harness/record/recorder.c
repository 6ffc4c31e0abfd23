/* recorder.c: the results file, HDF5 layout version 1 (docs/results-format.md) */
#include "config.h"
#include "harness/record/recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "harness/base/util.h"

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
	char **cell_names; /* the writer's copy of /cells' names, in row order */
	size_t ncells, cells_cap;
};

/* ---- the HDF5 adapter ----------------------------------------------------------- */

/* Silence HDF5's automatic error stack printing; failures are reported through
 * error() with the innermost HDF5 message as the cause. */
static void h5_init(void)
{
	static int done;
	if (done)
		return;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	done = 1;
}

static herr_t h5_cause_cb(unsigned n, const H5E_error2_t *e, void *data)
{
	char *buf = data;
	if (n == 0 && e->desc)
		snprintf(buf, 256, "%s", e->desc);
	return 0;
}

/* Report "'path': <what>: <innermost HDF5 message>", clear the HDF5 stack, return -1. */
__attribute__((format(printf, 2, 3)))
static int h5_error(const char *path, const char *fmt, ...)
{
	char cause[256] = "";
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5_cause_cb, cause);
	H5Eclear2(H5E_DEFAULT);
	va_list ap;
	va_start(ap, fmt);
	char *what = xvasprintf(fmt, ap);
	va_end(ap);
	if (*cause)
		error("'%s': %s: %s", path, what, cause);
	else
		error("'%s': %s", path, what);
	free(what);
	return -1;
}

static void *h5_vlen_alloc(size_t n, void *info)
{
	return xmalloc(n);
}

static void h5_vlen_free(void *p, void *info)
{
	free(p);
}

/* A transfer property list for moving n rows of row_size bytes.  Its conversion buffer
 * is sized to the transfer (HDF5's default is 1 MiB, zeroed on every H5Dwrite: most of
 * the cost of appending a small unit).  For reads (read != 0), variable-length strings
 * come from xmalloc, so what a read returns can be handed over and freed with free(). */
static hid_t h5_dxpl(size_t n, size_t row_size, int read)
{
	size_t buf = n * row_size * 4;
	buf = buf < 8192 ? 8192 : buf > (1 << 20) ? (1 << 20) : buf;
	hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
	if (dxpl < 0)
		return -1;
	if (H5Pset_buffer(dxpl, buf, NULL, NULL) < 0 ||
	    (read && H5Pset_vlen_mem_manager(dxpl, h5_vlen_alloc, NULL, h5_vlen_free, NULL) < 0)) {
		H5Pclose(dxpl);
		return -1;
	}
	return dxpl;
}

static void h5_close_id(hid_t id)
{
	if (id < 0)
		return;
	switch (H5Iget_type(id)) {
	case H5I_FILE: H5Fclose(id); break;
	case H5I_GROUP: H5Gclose(id); break;
	case H5I_DATATYPE: H5Tclose(id); break;
	case H5I_DATASPACE: H5Sclose(id); break;
	case H5I_DATASET: H5Dclose(id); break;
	case H5I_ATTR: H5Aclose(id); break;
	case H5I_GENPROP_LST: H5Pclose(id); break;
	default: break;
	}
}

/* Variable-length UTF-8 string type (the caller closes it). */
static hid_t h5_str_type(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t < 0)
		return -1;
	if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

/* File access: 1.8-compatible objects (creation-order tracking needs them; any HDF5
 * from 1.8 on reads the file), no flock (see the top of this file), and a close that
 * really closes (and so flushes) even if some object were left open. */
static hid_t h5_fapl(void)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (fapl < 0)
		return -1;
	if (H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 ||
	    H5Pset_file_locking(fapl, 0, 1) < 0 ||
	    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
		H5Pclose(fapl);
		return -1;
	}
	return fapl;
}

/* ---- tables: one field list drives the memory and the file compound types ---------- */

enum field_kind {
	K_I64,  /* int64_t in memory, 64-bit little-endian integer in the file */
	K_I32,  /* int32_t, 32-bit integer */
	K_FLAG, /* int in memory, 8-bit integer (0/1) in the file */
	K_F64,  /* double, IEEE 754 binary64 */
	K_STR   /* char *, variable-length UTF-8 string */
};

struct field {
	const char *name;
	enum field_kind kind;
	size_t offset; /* in the memory row */
};

struct table {
	const char *name;  /* dataset path */
	unsigned slot;     /* index into table_type()'s cache */
	const struct field *fields;
	size_t nfields;
	size_t row_size;   /* sizeof the memory row */
	hsize_t chunk;     /* rows per chunk */
	int deflate;       /* 0, or the deflate level (with shuffle) */
};

#define F(row, member, kind) { #member, kind, offsetof(struct row, member) }
#define FN(row, name, member, kind) { name, kind, offsetof(struct row, member) }
#define TABLE(path, slot, row, fields, chunk, deflate) \
	{ path, slot, fields, ARRAY_SIZE(fields), sizeof(struct row), chunk, deflate }

static const struct field plan_fields[] = {
	F(rec_plan, id, K_I64),
	F(rec_plan, mode, K_STR),
	F(rec_plan, repeat, K_I64),
	F(rec_plan, block, K_I64),
	F(rec_plan, position, K_I64),
	F(rec_plan, warm, K_FLAG),
	F(rec_plan, warm_of, K_I64),
};

/* A row of /units: the unit, plus what locates its samples and the backend notes. */
struct unit_row {
	struct rec_unit u;
	int64_t sample_first, sample_count;
	char *info;
};

static const struct field unit_fields[] = {
	FN(unit_row, "id", u.id, K_I64),
	FN(unit_row, "mode", u.mode, K_STR),
	FN(unit_row, "repeat", u.repeat, K_I64),
	FN(unit_row, "block", u.block, K_I64),
	FN(unit_row, "position", u.position, K_I64),
	FN(unit_row, "warm", u.warm, K_FLAG),
	FN(unit_row, "pid", u.pid, K_I64),
	FN(unit_row, "cache_dir", u.cache_dir, K_STR),
	FN(unit_row, "cache_dir_empty", u.cache_dir_empty, K_FLAG),
	FN(unit_row, "status", u.status, K_STR),
	FN(unit_row, "exit_code", u.exit_code, K_I64),
	FN(unit_row, "signal", u.signal, K_I64),
	FN(unit_row, "compile_ns", u.compile_ns, K_I64),
	FN(unit_row, "tune_ns", u.tune_ns, K_I64),
	FN(unit_row, "search_ns", u.search_ns, K_I64),
	FN(unit_row, "compiles", u.compiles, K_I64),
	FN(unit_row, "cache_hits", u.cache_hits, K_I64),
	FN(unit_row, "benchmarks", u.benchmarks, K_I64),
	FN(unit_row, "expects_work", u.expects_work, K_FLAG),
	FN(unit_row, "cache_leak", u.cache_leak, K_FLAG),
	FN(unit_row, "start_utc", u.start_utc, K_STR),
	FN(unit_row, "end_utc", u.end_utc, K_STR),
	FN(unit_row, "wall_ns", u.wall_ns, K_I64),
	FN(unit_row, "stdout_log", u.stdout_log, K_STR),
	FN(unit_row, "stderr_log", u.stderr_log, K_STR),
	FN(unit_row, "argv_json", u.argv_json, K_STR),
	FN(unit_row, "env_json", u.env_json, K_STR),
	FN(unit_row, "message", u.message, K_STR),
	F(unit_row, sample_first, K_I64),
	F(unit_row, sample_count, K_I64),
	F(unit_row, info, K_STR),
};

static const struct field cell_fields[] = {
	F(rec_cell, name, K_STR),
	F(rec_cell, kind, K_STR),
	F(rec_cell, workload, K_STR),
	F(rec_cell, op, K_STR),
	F(rec_cell, shape, K_STR),
	F(rec_cell, count, K_I64),
	F(rec_cell, flops, K_F64),
};

struct trial_row {
	int64_t unit;
	struct rec_trial t;
};

static const struct field trial_fields[] = {
	F(trial_row, unit, K_I64),
	FN(trial_row, "cell", t.cell, K_I64),
	FN(trial_row, "config", t.config, K_STR),
	FN(trial_row, "status", t.status, K_STR),
	FN(trial_row, "cache_hit", t.cache_hit, K_FLAG),
	FN(trial_row, "compile_ns", t.compile_ns, K_I64),
	FN(trial_row, "nsamples", t.nsamples, K_I64),
	FN(trial_row, "median_ns", t.median_ns, K_F64),
	FN(trial_row, "min_ns", t.min_ns, K_F64),
	FN(trial_row, "max_ns", t.max_ns, K_F64),
	FN(trial_row, "bench_ns", t.bench_ns, K_I64),
};

struct choice_row {
	int64_t unit;
	struct rec_choice c;
};

static const struct field choice_fields[] = {
	F(choice_row, unit, K_I64),
	FN(choice_row, "cell", c.cell, K_I64),
	FN(choice_row, "config", c.config, K_STR),
	FN(choice_row, "reason", c.reason, K_STR),
};

struct measure_row {
	int64_t unit;
	struct rec_measure m;
};

static const struct field measure_fields[] = {
	F(measure_row, unit, K_I64),
	FN(measure_row, "cell", m.cell, K_I64),
	FN(measure_row, "nsamples", m.nsamples, K_I64),
	FN(measure_row, "stop", m.stop, K_STR),
	FN(measure_row, "warmup_n", m.warmup_n, K_I64),
	FN(measure_row, "warmup_ns", m.warmup_ns, K_I64),
	FN(measure_row, "rel_precision", m.rel_precision, K_F64),
};

/* Laid out exactly as in the file, so writing it converts nothing. */
struct sample_row {
	int32_t unit;
	int32_t cell;
	int64_t index;
	int64_t ns;
};

static const struct field sample_fields[] = {
	F(sample_row, unit, K_I32),
	F(sample_row, cell, K_I32),
	F(sample_row, index, K_I64),
	F(sample_row, ns, K_I64),
};

/* The one-field row used to find rows past the last unit. */
struct unit_ref {
	int64_t unit;
};

static const struct field unit_ref_fields[] = {
	F(unit_ref, unit, K_I64),
};

/* The two fields of /units that locate a unit's samples. */
struct sample_span {
	int64_t sample_first, sample_count;
};

static const struct field sample_span_fields[] = {
	F(sample_span, sample_first, K_I64),
	F(sample_span, sample_count, K_I64),
};

static const struct table t_plan = TABLE("/plan", 0, rec_plan, plan_fields, 256, 0);
static const struct table t_units = TABLE("/units", 1, unit_row, unit_fields, 64, 0);
static const struct table t_cells = TABLE("/cells", 2, rec_cell, cell_fields, 64, 0);
static const struct table t_trials = TABLE("/trials", 3, trial_row, trial_fields, 1024, 0);
static const struct table t_choices = TABLE("/choices", 4, choice_row, choice_fields, 256, 0);
static const struct table t_measures = TABLE("/measures", 5, measure_row, measure_fields, 256, 0);
static const struct table t_samples = TABLE("/samples", 6, sample_row, sample_fields,
					    SAMPLES_CHUNK, SAMPLES_DEFLATE);
/* Not a dataset: the layout for reading the unit column of any child table. */
static const struct table t_unit_ref = TABLE(NULL, 7, unit_ref, unit_ref_fields, 0, 0);
/* Not a dataset: the layout for reading where a unit's samples are. */
static const struct table t_sample_span = TABLE(NULL, 8, sample_span, sample_span_fields, 0, 0);
#define NSLOTS 9

static const struct table *const all_tables[] = {
	&t_plan, &t_units, &t_cells, &t_trials, &t_choices, &t_measures, &t_samples,
};

/* Build the compound type for a table's fields: in memory (native types at the given
 * offsets, size row_size) or in the file (fixed little-endian types, packed).
 * Returns the type, or -1 (HDF5 error stack set). */
static hid_t make_type(const struct table *tb, int file)
{
	hid_t str = h5_str_type();
	if (str < 0)
		return -1;
	size_t size = tb->row_size;
	if (file) {
		size = 0;
		for (size_t k = 0; k < tb->nfields; k++) {
			switch (tb->fields[k].kind) {
			case K_I64: case K_F64: size += 8; break;
			case K_I32: size += 4; break;
			case K_FLAG: size += 1; break;
			case K_STR: size += H5Tget_size(str); break;
			}
		}
	}
	hid_t t = H5Tcreate(H5T_COMPOUND, size);
	size_t off = 0;
	for (size_t k = 0; t >= 0 && k < tb->nfields; k++) {
		hid_t ft = -1;
		switch (tb->fields[k].kind) {
		case K_I64: ft = file ? H5T_STD_I64LE : H5T_NATIVE_INT64; break;
		case K_I32: ft = file ? H5T_STD_I32LE : H5T_NATIVE_INT32; break;
		case K_FLAG: ft = file ? H5T_STD_I8LE : H5T_NATIVE_INT; break;
		case K_F64: ft = file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE; break;
		case K_STR: ft = str; break;
		}
		if (H5Tinsert(t, tb->fields[k].name, file ? off : tb->fields[k].offset, ft) < 0) {
			H5Tclose(t);
			t = -1;
		}
		off += H5Tget_size(ft);
	}
	H5Tclose(str);
	return t;
}

/* The table's memory or file type, built once per process and kept (the caller does
 * not close it); -1 on failure. */
static hid_t table_type(const struct table *tb, int file)
{
	static hid_t cache[NSLOTS][2];
	hid_t *t = &cache[tb->slot][!!file];
	if (*t <= 0) {
		hid_t made = make_type(tb, file);
		if (made < 0)
			return -1;
		*t = made;
	}
	return *t;
}

/* Create an empty, extendible, chunked 1-D table. */
static int table_create(hid_t file, const char *path, const struct table *tb)
{
	hid_t ftype = -1, space = -1, dcpl = -1, d = -1;
	int rc = -1;
	hsize_t zero = 0, unlimited = H5S_UNLIMITED;

	ftype = table_type(tb, 1);
	space = H5Screate_simple(1, &zero, &unlimited);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (ftype < 0 || space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &tb->chunk) < 0)
		goto fail;
	if (tb->deflate && (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, tb->deflate) < 0))
		goto fail;
	d = H5Dcreate2(file, tb->name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (d < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	rc = h5_error(path, "cannot create %s", tb->name);
done:
	h5_close_id(d);
	h5_close_id(dcpl);
	h5_close_id(space);
	return rc;
}

/* Open a table's dataset; reports and returns -1 on failure. */
static hid_t table_open(hid_t file, const char *path, const struct table *tb)
{
	hid_t d = H5Dopen2(file, tb->name, H5P_DEFAULT);
	if (d < 0)
		h5_error(path, "cannot open %s", tb->name);
	return d;
}

/* Rows in the open table d, or -1 reported. */
static int table_rows(hid_t d, const char *path, const struct table *tb, hsize_t *n)
{
	hid_t space = H5Dget_space(d);
	int rc = 0;
	if (space < 0 || H5Sget_simple_extent_ndims(space) != 1 ||
	    H5Sget_simple_extent_dims(space, n, NULL) < 0)
		rc = h5_error(path, "cannot read the size of %s", tb->name);
	h5_close_id(space);
	return rc;
}

/* Append n memory rows (laid out as tb describes) to the open table d; *first gets the
 * index of the first new row when first != NULL.  Reports and returns -1 on failure. */
static int table_append(hid_t d, const char *path, const struct table *tb, const void *rows,
			size_t n, hsize_t *first)
{
	hid_t mtype, fspace = -1, mspace = -1, dxpl = -1;
	int rc = -1;
	hsize_t old = 0, count = n, total;

	fspace = H5Dget_space(d);
	if (fspace < 0 || H5Sget_simple_extent_dims(fspace, &old, NULL) < 0)
		goto fail;
	if (first)
		*first = old;
	if (n == 0) {
		rc = 0;
		goto done;
	}
	total = old + count;
	H5Sclose(fspace);
	fspace = -1;
	if (H5Dset_extent(d, &total) < 0 || (fspace = H5Dget_space(d)) < 0 ||
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &old, NULL, &count, NULL) < 0)
		goto fail;
	mtype = table_type(tb, 0);
	mspace = H5Screate_simple(1, &count, NULL);
	dxpl = h5_dxpl(n, tb->row_size, 0);
	if (mtype < 0 || mspace < 0 || dxpl < 0 || H5Dwrite(d, mtype, mspace, fspace, dxpl, rows) < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	rc = h5_error(path, "cannot append to %s", tb->name);
done:
	h5_close_id(dxpl);
	h5_close_id(mspace);
	h5_close_id(fspace);
	return rc;
}

/* Read rows [first, first+n) of the open table d into rows, laid out as layout describes
 * (its fields are a subset of the table's; strings are xmalloc'ed, or NULL).  Reports
 * and returns -1 on failure. */
static int table_read(hid_t d, const char *path, const struct table *tb,
		      const struct table *layout, hsize_t first, hsize_t n, void *rows)
{
	hid_t mtype, fspace = -1, mspace = -1, dxpl = -1;
	int rc = -1;

	if (n == 0)
		return 0;
	fspace = H5Dget_space(d);
	if (fspace < 0 || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &first, NULL, &n, NULL) < 0)
		goto fail;
	mtype = table_type(layout, 0);
	mspace = H5Screate_simple(1, &n, NULL);
	dxpl = h5_dxpl(n, layout->row_size, 1);
	if (mtype < 0 || mspace < 0 || dxpl < 0 || H5Dread(d, mtype, mspace, fspace, dxpl, rows) < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	rc = h5_error(path, "cannot read %s", tb->name);
done:
	h5_close_id(dxpl);
	h5_close_id(mspace);
	h5_close_id(fspace);
	return rc;
}

/* Point every NULL string field of n rows at "" (writing) or at a new "" (reading), so
 * the file never holds a null string and readers never get NULL. */
static void rows_fill_strings(const struct table *tb, void *rows, size_t n, int alloc)
{
	for (size_t i = 0; i < n; i++) {
		char *row = (char *)rows + i * tb->row_size;
		for (size_t k = 0; k < tb->nfields; k++) {
			if (tb->fields[k].kind != K_STR)
				continue;
			char **s = (char **)(row + tb->fields[k].offset);
			if (!*s)
				*s = alloc ? xstrdup("") : (char *)"";
		}
	}
}

/* Free the strings of n rows and the rows. */
static void rec_free_rows(const struct table *tb, void *rows, size_t n)
{
	if (!rows)
		return;
	for (size_t i = 0; i < n; i++) {
		char *row = (char *)rows + i * tb->row_size;
		for (size_t k = 0; k < tb->nfields; k++)
			if (tb->fields[k].kind == K_STR)
				free(*(char **)(row + tb->fields[k].offset));
	}
	free(rows);
}

/* Drop rows whose unit is >= nunits from the tail of a table (rows are in unit order,
 * so such rows can only be the leftovers of an append that was cut off), or, when
 * limit >= 0, every row from limit on. */
static int table_trim(hid_t file, const char *path, const struct table *tb, int64_t nunits,
		      int64_t limit)
{
	hsize_t n, keep;
	hid_t d = table_open(file, path, tb);
	int rc = -1;
	if (d < 0 || table_rows(d, path, tb, &n) < 0)
		goto done;
	keep = n;
	if (limit >= 0 && (hsize_t)limit < n)
		keep = (hsize_t)limit;
	struct unit_ref buf[1024];
	while (limit < 0 && keep > 0) {
		hsize_t k = keep < ARRAY_SIZE(buf) ? keep : ARRAY_SIZE(buf);
		if (table_read(d, path, tb, &t_unit_ref, keep - k, k, buf) < 0)
			goto done;
		hsize_t j = k;
		while (j > 0 && buf[j - 1].unit >= nunits)
			j--;
		keep -= k - j;
		if (j > 0)
			break;
	}
	if (keep < n) {
		if (H5Dset_extent(d, &keep) < 0) {
			h5_error(path, "cannot trim %s", tb->name);
			goto done;
		}
		warning("'%s': dropped %llu rows of %s left by an interrupted write", path,
			(unsigned long long)(n - keep), tb->name);
	}
	rc = 0;
done:
	h5_close_id(d);
	return rc;
}

/* Rows in the named table of file, or -1 reported. */
static int table_count(hid_t file, const char *path, const struct table *tb, hsize_t *n)
{
	hid_t d = table_open(file, path, tb);
	int rc = d < 0 ? -1 : table_rows(d, path, tb, n);
	h5_close_id(d);
	return rc;
}

/* Rows past a table's end can still hold what an interrupted write put in its chunks:
 * growing into them later would make HDF5 free the variable-length strings they seem to
 * hold ("bad global heap collection signature").  Growing the table by SCRUB_ROWS and
 * shrinking it back makes HDF5 delete the chunks past the end and fill the rest of the
 * last chunk with the fill value. */
#define SCRUB_ROWS ((hsize_t)1 << 20)

static int table_scrub(hid_t file, const char *path, const struct table *tb)
{
	hsize_t n, big;
	hid_t d = table_open(file, path, tb);
	int rc = -1;
	if (d < 0 || table_rows(d, path, tb, &n) < 0)
		goto done;
	big = n + SCRUB_ROWS;
	if (H5Dset_extent(d, &big) < 0 || H5Dset_extent(d, &n) < 0) {
		h5_error(path, "cannot clear the rows past the end of %s", tb->name);
		goto done;
	}
	rc = 0;
done:
	h5_close_id(d);
	return rc;
}

/* Make the tables agree with /units after an append that was cut off, and clear what it
 * left past their ends. */
static int trim_all(hid_t file, const char *path)
{
	hsize_t nunits;
	struct sample_span last = { 0, 0 };
	hid_t d = table_open(file, path, &t_units);
	int rc = d < 0 ? -1 : table_rows(d, path, &t_units, &nunits);
	if (rc == 0 && nunits > 0)
		rc = table_read(d, path, &t_units, &t_sample_span, nunits - 1, 1, &last);
	h5_close_id(d);
	if (rc < 0)
		return -1;
	const struct table *const child[] = { &t_trials, &t_choices, &t_measures };
	for (size_t k = 0; k < ARRAY_SIZE(child); k++)
		if (table_trim(file, path, child[k], (int64_t)nunits, -1) < 0)
			return -1;
	/* Samples end exactly where the last unit's end. */
	if (table_trim(file, path, &t_samples, (int64_t)nunits,
		       last.sample_first + last.sample_count) < 0)
		return -1;
	for (size_t k = 0; k < ARRAY_SIZE(all_tables); k++)
		if (all_tables[k] != &t_plan && table_scrub(file, path, all_tables[k]) < 0)
			return -1;
	return 0;
}

/* ---- attributes -------------------------------------------------------------------- */

/* Set a variable-length UTF-8 string attribute on obj, replacing its value in place
 * (so creation order is kept). */
static int attr_set_string(hid_t obj, const char *name, const char *value)
{
	hid_t str = h5_str_type(), space = -1, a = -1;
	int rc = -1;
	htri_t exists = str >= 0 ? H5Aexists(obj, name) : -1;
	if (exists > 0) {
		a = H5Aopen(obj, name, H5P_DEFAULT);
		hid_t old = a >= 0 ? H5Aget_type(a) : -1;
		htri_t vlen = old >= 0 ? H5Tis_variable_str(old) : -1;
		h5_close_id(old);
		if (vlen == 0) { /* written by someone else as a fixed string */
			h5_close_id(a);
			a = -1;
			if (H5Adelete(obj, name) < 0)
				goto done;
			exists = 0;
		}
	}
	if (exists == 0) {
		space = H5Screate(H5S_SCALAR);
		a = space >= 0 ? H5Acreate2(obj, name, str, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
	}
	if (a >= 0 && H5Awrite(a, str, &value) >= 0)
		rc = 0;
done:
	h5_close_id(a);
	h5_close_id(space);
	h5_close_id(str);
	return rc;
}

/* Read a string attribute (variable or fixed length) into a heap string. */
static int attr_get_string(hid_t a, char **out)
{
	hid_t ftype = H5Aget_type(a), mtype = -1;
	int rc = -1;
	*out = NULL;
	if (ftype < 0 || H5Tget_class(ftype) != H5T_STRING)
		goto done;
	htri_t vlen = H5Tis_variable_str(ftype);
	if (vlen > 0) {
		char *s = NULL;
		mtype = h5_str_type();
		if (mtype < 0 || H5Aread(a, mtype, &s) < 0)
			goto done;
		*out = xstrdup(s ? s : "");
		hid_t space = H5Aget_space(a);
		H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, &s);
		H5Sclose(space);
		rc = 0;
	} else if (vlen == 0) {
		size_t n = H5Tget_size(ftype);
		char *s = xcalloc(n + 1, 1);
		mtype = H5Tcopy(ftype);
		if (mtype < 0 || H5Aread(a, mtype, s) < 0) {
			free(s);
			goto done;
		}
		*out = s;
		rc = 0;
	}
done:
	h5_close_id(mtype);
	h5_close_id(ftype);
	return rc;
}

static int attr_set_int(hid_t obj, const char *name, int value)
{
	hid_t space = H5Screate(H5S_SCALAR);
	hid_t a = space >= 0 ? H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT,
					  H5P_DEFAULT) : -1;
	int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &value) >= 0 ? 0 : -1;
	h5_close_id(a);
	h5_close_id(space);
	return rc;
}

/* 1 and *value when obj has an integer attribute name, 0 when it has none, -1 when it
 * has one that is not an integer. */
static int attr_get_int(hid_t obj, const char *name, long long *value)
{
	htri_t e = H5Aexists(obj, name);
	if (e <= 0)
		return e < 0 ? -1 : 0;
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	hid_t t = a >= 0 ? H5Aget_type(a) : -1;
	hid_t space = a >= 0 ? H5Aget_space(a) : -1;
	int rc = -1;
	if (t >= 0 && space >= 0 && H5Tget_class(t) == H5T_INTEGER &&
	    H5Sget_simple_extent_npoints(space) == 1 && H5Aread(a, H5T_NATIVE_LLONG, value) >= 0)
		rc = 1;
	h5_close_id(space);
	h5_close_id(t);
	h5_close_id(a);
	H5Eclear2(H5E_DEFAULT);
	return rc;
}

/* ---- signals and the writer's lock --------------------------------------------------- */

static void signals_hold(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void signals_restore(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* Take the writer's lock on fd; reports and returns -1 when another process holds it. */
static int writer_lock(int fd, const char *path)
{
#ifdef F_OFD_SETLK
	struct flock fl;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		if (errno == EAGAIN || errno == EACCES)
			return error("'%s': is being written by another process", path);
		return error_errno("'%s': cannot lock", path);
	}
#endif
	return 0;
}

/* ---- opening ------------------------------------------------------------------------ */

/* Open the HDF5 file of a writer between operations (no-op when open). */
static int rec_enter(struct rec *r)
{
	if (r->file >= 0)
		return 0;
	hid_t fapl = h5_fapl();
	if (fapl >= 0)
		r->file = H5Fopen(r->path, r->writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
	h5_close_id(fapl);
	if (r->file < 0)
		return h5_error(r->path, "cannot open");
	return 0;
}

/* Flush, close and sync (fdatasync) a writer's file; keep a reader's open. */
static int rec_leave(struct rec *r, int wrote)
{
	int rc = 0;
	if (!r->writable || r->file < 0)
		return 0;
	if (wrote && H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0)
		rc = h5_error(r->path, "cannot flush");
	if (H5Fclose(r->file) < 0 && !rc)
		rc = h5_error(r->path, "cannot close");
	r->file = -1;
	if (wrote && !rc && r->lock_fd >= 0 && fdatasync(r->lock_fd) < 0)
		rc = error_errno("'%s': cannot sync", r->path);
	return rc;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static struct rec *rec_alloc(const char *path, int writable)
{
	struct rec *r = xcalloc(1, sizeof(*r));
	r->path = xstrdup(path);
	r->writable = writable;
	r->file = -1;
	r->lock_fd = -1;
	return r;
}

static void rec_free(struct rec *r)
{
	if (!r)
		return;
	h5_close_id(r->file);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	free_names(r->cell_names, r->ncells);
	free(r->path);
	free(r);
}

/* Check that the open file is a harness results file of a version we read. */
static int check_identity(struct rec *r)
{
	long long id = 0, version = 0;
	int got = attr_get_int(r->file, ROOT_ID_ATTR, &id);
	if (got != 1 || id != 1)
		return error("'%s': not a harness results file (no %s attribute)", r->path,
			     ROOT_ID_ATTR);
	got = attr_get_int(r->file, ROOT_VERSION_ATTR, &version);
	if (got < 0)
		return error("'%s': unreadable %s attribute", r->path, ROOT_VERSION_ATTR);
	if (got == 0)
		return error("'%s': not a harness results file (no %s attribute)", r->path,
			     ROOT_VERSION_ATTR);
	if (version != REC_FORMAT_VERSION)
		return error("'%s': results format version %lld is not supported (this harness "
			     "reads version %d)", r->path, version, REC_FORMAT_VERSION);
	for (size_t k = 0; k < ARRAY_SIZE(all_tables); k++) {
		htri_t e = H5Lexists(r->file, all_tables[k]->name + 1, H5P_DEFAULT);
		if (e <= 0) {
			H5Eclear2(H5E_DEFAULT);
			return error("'%s': not a complete harness results file (no %s)", r->path,
				     all_tables[k]->name);
		}
	}
	return 0;
}

/* A clean close leaves the file exactly as long as HDF5's end of allocated space (EOA).
 * A writer killed inside a write can leave it longer, with metadata that points past the
 * recorded EOA: reads still work but the next allocation fails.  Extending the EOA to the
 * file's length makes those addresses valid again; trim_all() then drops the rows of the
 * write that was cut off. */
static int repair_eoa(struct rec *r)
{
	haddr_t eoa;
	struct stat st;
	if (H5Fget_eoa(r->file, &eoa) < 0)
		return h5_error(r->path, "cannot read the end of allocated space");
	if (fstat(r->lock_fd, &st) < 0)
		return error_errno("'%s': cannot stat", r->path);
	if ((haddr_t)st.st_size <= eoa)
		return 0;
	if (H5Fincrement_filesize(r->file, 0) < 0)
		return h5_error(r->path, "cannot repair the end of allocated space");
	warning("'%s': was left by an interrupted write (%llu bytes past its end); repaired",
		r->path, (unsigned long long)((haddr_t)st.st_size - eoa));
	return 0;
}

/* Write the meta attributes and the verbatim files under /run. */
static int write_meta(hid_t file, const char *path, const struct rec_meta *meta)
{
	hid_t gcpl = -1, run = -1, files = -1;
	int rc = -1;

	gcpl = H5Pcreate(H5P_GROUP_CREATE);
	if (gcpl < 0 ||
	    H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
	    H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
	    (run = H5Gcreate2(file, "/run", H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0 ||
	    (files = H5Gcreate2(file, FILES_GROUP, H5P_DEFAULT, gcpl, H5P_DEFAULT)) < 0) {
		rc = h5_error(path, "cannot create /run");
		goto done;
	}
	for (size_t k = 0; k < meta->nkv; k++) {
		if (attr_set_string(run, meta->kv[k].key, meta->kv[k].value) < 0) {
			rc = h5_error(path, "cannot write /run attribute '%s'", meta->kv[k].key);
			goto done;
		}
	}
	for (size_t k = 0; k < meta->nfiles; k++) {
		const struct rec_file *f = &meta->files[k];
		char name[32];
		snprintf(name, sizeof(name), "%03zu", k);
		/* A fixed-length string of exactly the file's bytes (NUL-padded, so an empty
		 * file is one NUL): h5dump prints it, h5py gives the bytes. */
		hid_t t = H5Tcopy(H5T_C_S1), space = -1, d = -1;
		int ok = t >= 0 && H5Tset_size(t, f->len ? f->len : 1) >= 0 &&
			 H5Tset_strpad(t, H5T_STR_NULLPAD) >= 0 &&
			 H5Tset_cset(t, H5T_CSET_UTF8) >= 0 &&
			 (space = H5Screate(H5S_SCALAR)) >= 0 &&
			 (d = H5Dcreate2(files, name, t, space, H5P_DEFAULT, H5P_DEFAULT,
					 H5P_DEFAULT)) >= 0 &&
			 H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, f->len ? f->text : "") >= 0 &&
			 attr_set_string(d, "role", f->role) >= 0 &&
			 attr_set_string(d, "path", f->path) >= 0 &&
			 attr_set_string(d, "sha256", f->sha256) >= 0;
		if (!ok)
			rc = h5_error(path, "cannot write %s/%s ('%s')", FILES_GROUP, name, f->path);
		h5_close_id(d);
		h5_close_id(space);
		h5_close_id(t);
		if (!ok)
			goto done;
	}
	rc = 0;
done:
	h5_close_id(files);
	h5_close_id(run);
	h5_close_id(gcpl);
	return rc;
}

int rec_create(const char *path, const struct rec_meta *meta, const struct rec_plan *plan,
	       size_t nplan, struct rec **out)
{
	struct rec *r = NULL;
	hid_t fapl = -1;
	sigset_t old;
	int rc = -1;

	*out = NULL;
	h5_init();
	signals_hold(&old);
	r = rec_alloc(path, 1);
	r->lock_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (r->lock_fd < 0) {
		if (errno == EEXIST)
			error("'%s': already exists", path);
		else
			error_errno("'%s': cannot create", path);
		goto done;
	}
	if (writer_lock(r->lock_fd, path) < 0)
		goto fail;
	fapl = h5_fapl();
	if (fapl >= 0)
		r->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	if (r->file < 0) {
		h5_error(path, "cannot create");
		goto fail;
	}
	if (attr_set_int(r->file, ROOT_ID_ATTR, 1) < 0 ||
	    attr_set_int(r->file, ROOT_VERSION_ATTR, REC_FORMAT_VERSION) < 0) {
		h5_error(path, "cannot write the format attributes");
		goto fail;
	}
	if (write_meta(r->file, path, meta) < 0)
		goto fail;
	for (size_t k = 0; k < ARRAY_SIZE(all_tables); k++)
		if (table_create(r->file, path, all_tables[k]) < 0)
			goto fail;
	if (nplan) {
		struct rec_plan *rows = xmalloc(nplan * sizeof(*rows));
		memcpy(rows, plan, nplan * sizeof(*rows));
		rows_fill_strings(&t_plan, rows, nplan, 0);
		hid_t d = table_open(r->file, path, &t_plan);
		int w = d < 0 ? -1 : table_append(d, path, &t_plan, rows, nplan, NULL);
		h5_close_id(d);
		free(rows);
		if (w < 0)
			goto fail;
	}
	if (rec_leave(r, 1) < 0)
		goto fail;
	*out = r;
	r = NULL;
	rc = 0;
	goto done;
fail:
	/* Nothing worth keeping was written: remove the partial file. */
	h5_close_id(r->file);
	r->file = -1;
	unlink(path);
done:
	h5_close_id(fapl);
	rec_free(r);
	signals_restore(&old);
	return rc;
}

int rec_open(const char *path, int writable, struct rec **out)
{
	struct rec *r = NULL;
	struct stat st;
	sigset_t old;
	int rc = -1;

	*out = NULL;
	h5_init();
	if (writable)
		signals_hold(&old);
	r = rec_alloc(path, writable);
	if (writable) {
		r->lock_fd = open(path, O_RDWR | O_CLOEXEC);
		if (r->lock_fd < 0) {
			error_errno("'%s': cannot open", path);
			goto done;
		}
		if (writer_lock(r->lock_fd, path) < 0)
			goto done;
	} else if (stat(path, &st) < 0) {
		error_errno("'%s': cannot open", path);
		goto done;
	}
	htri_t is = H5Fis_hdf5(path);
	if (is <= 0) {
		H5Eclear2(H5E_DEFAULT);
		if (is == 0)
			error("'%s': not an HDF5 file", path);
		else
			error("'%s': cannot read (not a regular, readable file?)", path);
		goto done;
	}
	if (rec_enter(r) < 0 || check_identity(r) < 0)
		goto done;
	if (writable && (repair_eoa(r) < 0 || trim_all(r->file, path) < 0 || rec_leave(r, 1) < 0))
		goto done;
	*out = r;
	r = NULL;
	rc = 0;
done:
	rec_free(r);
	if (writable)
		signals_restore(&old);
	return rc;
}

int rec_close(struct rec *r)
{
	if (!r)
		return 0;
	int rc = 0;
	if (r->file >= 0 && H5Fclose(r->file) < 0)
		rc = h5_error(r->path, "cannot close");
	r->file = -1;
	if (r->lock_fd >= 0 && close(r->lock_fd) < 0 && !rc)
		rc = error_errno("'%s': cannot close", r->path);
	r->lock_fd = -1;
	rec_free(r);
	return rc;
}

/* ---- appending ----------------------------------------------------------------------- */

/* Bring the writer's copy of the run's cell names up to date with /cells (d, open). */
static int sync_cell_names(struct rec *r, hid_t d)
{
	hsize_t rows;
	if (table_rows(d, r->path, &t_cells, &rows) < 0)
		return -1;
	if (rows == r->ncells)
		return 0;
	struct rec_cell *cells = xcalloc(rows ? rows : 1, sizeof(*cells));
	if (table_read(d, r->path, &t_cells, &t_cells, 0, rows, cells) < 0) {
		rec_cells_free(cells, rows);
		return -1;
	}
	rows_fill_strings(&t_cells, cells, rows, 1);
	free_names(r->cell_names, r->ncells);
	r->cell_names = xcalloc(rows ? rows : 1, sizeof(char *));
	r->cells_cap = rows ? rows : 1;
	for (hsize_t i = 0; i < rows; i++) {
		r->cell_names[i] = cells[i].name;
		cells[i].name = NULL;
	}
	r->ncells = rows;
	rec_cells_free(cells, rows);
	return 0;
}

/* Check that every cell reference of the unit data is in range. */
static int check_unit_data(const struct rec *r, const struct rec_unit_data *u)
{
	long long id = (long long)u->unit.id;
	int64_t nc = (int64_t)u->ncells;
	for (size_t i = 0; i < u->ntrials; i++)
		if (u->trials[i].cell < 0 || u->trials[i].cell >= nc)
			return error("'%s': unit %lld: trial %zu names cell %lld of %zu", r->path,
				     id, i, (long long)u->trials[i].cell, u->ncells);
	for (size_t i = 0; i < u->nchoices; i++)
		if (u->choices[i].cell < 0 || u->choices[i].cell >= nc)
			return error("'%s': unit %lld: choice %zu names cell %lld of %zu", r->path,
				     id, i, (long long)u->choices[i].cell, u->ncells);
	for (size_t i = 0; i < u->nmeasures; i++)
		if (u->measures[i].cell < 0 || u->measures[i].cell >= nc)
			return error("'%s': unit %lld: measure %zu names cell %lld of %zu", r->path,
				     id, i, (long long)u->measures[i].cell, u->ncells);
	for (size_t i = 0; i < u->nsamples; i++)
		if (u->sample_cell[i] < 0 || u->sample_cell[i] >= nc)
			return error("'%s': unit %lld: sample %zu names cell %lld of %zu", r->path,
				     id, i, (long long)u->sample_cell[i], u->ncells);
	for (size_t i = 0; i < u->ncells; i++)
		if (!u->cells[i].name)
			return error("'%s': unit %lld: cell %zu has no name", r->path, id, i);
	return 0;
}

/* Row builders for append_unit_rows(): row i of a per-unit table, with the unit's row in
 * /units and the run-wide cell index. */
typedef void (*row_fill_fn)(void *row, size_t i, const struct rec_unit_data *u, int64_t unit,
			    const int64_t *map);

static void fill_trial(void *row, size_t i, const struct rec_unit_data *u, int64_t unit,
		       const int64_t *map)
{
	struct trial_row *t = row;
	t->unit = unit;
	t->t = u->trials[i];
	t->t.cell = map[u->trials[i].cell];
}

static void fill_choice(void *row, size_t i, const struct rec_unit_data *u, int64_t unit,
			const int64_t *map)
{
	struct choice_row *c = row;
	c->unit = unit;
	c->c = u->choices[i];
	c->c.cell = map[u->choices[i].cell];
}

static void fill_measure(void *row, size_t i, const struct rec_unit_data *u, int64_t unit,
			 const int64_t *map)
{
	struct measure_row *m = row;
	m->unit = unit;
	m->m = u->measures[i];
	m->m.cell = map[u->measures[i].cell];
}

/* Build n rows of size bytes with fill and append them to table d; reports, returns -1. */
static int append_unit_rows(hid_t d, const char *path, const struct table *tb, size_t n,
			    size_t size, row_fill_fn fill, const struct rec_unit_data *u,
			    int64_t unit, const int64_t *map)
{
	if (!n)
		return 0;
	void *rows = xmalloc(n * size);
	for (size_t i = 0; i < n; i++)
		fill((char *)rows + i * size, i, u, unit, map);
	rows_fill_strings(tb, rows, n, 0);
	int r = table_append(d, path, tb, rows, n, NULL) < 0 ? -1 : 0;
	free(rows);
	return r;
}

/* Write the unit's rows; the file is open.  map gets the run-wide index of each local
 * cell (ncells long). */
static int append_rows(struct rec *r, const struct rec_unit_data *u, int64_t *map)
{
	enum { CELLS, TRIALS, CHOICES, MEASURES, SAMPLES, UNITS, NT };
	const struct table *const tabs[NT] = { &t_cells, &t_trials, &t_choices, &t_measures,
					       &t_samples, &t_units };
	const char *path = r->path;
	hid_t d[NT];
	struct rec_cell *newcells = NULL;
	size_t nnew = 0;
	void *rows = NULL;
	hsize_t nunits, sample_first;
	int rc = -1;

	for (size_t k = 0; k < NT; k++)
		d[k] = -1;
	for (size_t k = 0; k < NT; k++)
		if ((d[k] = table_open(r->file, path, tabs[k])) < 0)
			goto done;

	/* Cells, by name: existing names keep their index, new names are appended. */
	if (sync_cell_names(r, d[CELLS]) < 0)
		goto done;
	newcells = xcalloc(u->ncells ? u->ncells : 1, sizeof(*newcells));
	for (size_t i = 0; i < u->ncells; i++) {
		const char *name = u->cells[i].name;
		size_t j;
		for (j = 0; j < r->ncells && strcmp(r->cell_names[j], name); j++)
			;
		if (j == r->ncells) {
			size_t k;
			for (k = 0; k < nnew && strcmp(newcells[k].name, name); k++)
				;
			if (k == nnew)
				newcells[nnew++] = u->cells[i];
			map[i] = (int64_t)(r->ncells + k);
		} else {
			map[i] = (int64_t)j;
		}
	}
	rows_fill_strings(&t_cells, newcells, nnew, 0);
	if (table_append(d[CELLS], path, &t_cells, newcells, nnew, NULL) < 0)
		goto done;
	XGROW(r->cell_names, r->cells_cap, r->ncells + nnew);
	for (size_t k = 0; k < nnew; k++)
		r->cell_names[r->ncells++] = xstrdup(newcells[k].name);

	if (table_rows(d[UNITS], path, &t_units, &nunits) < 0)
		goto done;
	int64_t unit = (int64_t)nunits;

	/* Trials, choices, measures: the row of /units this unit will have, remapped cells. */
	if (append_unit_rows(d[TRIALS], path, &t_trials, u->ntrials, sizeof(struct trial_row),
			     fill_trial, u, unit, map) ||
	    append_unit_rows(d[CHOICES], path, &t_choices, u->nchoices, sizeof(struct choice_row),
			     fill_choice, u, unit, map) ||
	    append_unit_rows(d[MEASURES], path, &t_measures, u->nmeasures,
			     sizeof(struct measure_row), fill_measure, u, unit, map))
		goto done;

	/* Samples. */
	struct sample_row *s = rows = xmalloc((u->nsamples ? u->nsamples : 1) * sizeof(*s));
	for (size_t i = 0; i < u->nsamples; i++) {
		s[i].unit = (int32_t)unit;
		s[i].cell = (int32_t)map[u->sample_cell[i]];
		s[i].index = u->sample_index[i];
		s[i].ns = u->sample_ns[i];
	}
	if (table_append(d[SAMPLES], path, &t_samples, rows, u->nsamples, &sample_first) < 0)
		goto done;

	/* The unit row last: a unit in /units has all its rows. */
	struct unit_row ur;
	ur.u = u->unit;
	ur.sample_first = (int64_t)sample_first;
	ur.sample_count = (int64_t)u->nsamples;
	ur.info = u->info;
	rows_fill_strings(&t_units, &ur, 1, 0);
	if (table_append(d[UNITS], path, &t_units, &ur, 1, NULL) < 0)
		goto done;
	rc = 0;
done:
	/* Closing a dataset writes its cached chunks: a failure there is a failure too. */
	for (size_t k = NT; k-- > 0;)
		if (d[k] >= 0 && H5Dclose(d[k]) < 0 && rc == 0)
			rc = h5_error(path, "cannot write %s", tabs[k]->name);
	free(rows);
	free(newcells);
	return rc;
}

int rec_append_unit(struct rec *r, const struct rec_unit_data *u)
{
	sigset_t old;
	int64_t *map = NULL;
	int rc = -1;

	if (!r->writable)
		return error("'%s': opened read-only", r->path);
	if (check_unit_data(r, u) < 0)
		return -1;
	signals_hold(&old);
	if (rec_enter(r) < 0)
		goto done;
	if (r->dirty && trim_all(r->file, r->path) < 0)
		goto leave;
	map = xcalloc(u->ncells ? u->ncells : 1, sizeof(*map));
	if (append_rows(r, u, map) < 0) {
		r->dirty = 1;
		goto leave;
	}
	r->dirty = 0;
	rc = 0;
leave:
	if (rec_leave(r, 1) < 0) {
		r->dirty = 1;
		rc = -1;
	}
done:
	free(map);
	signals_restore(&old);
	return rc;
}

int rec_set_meta(struct rec *r, const char *key, const char *value)
{
	sigset_t old;
	int rc = -1;
	hid_t run = -1;

	if (!r->writable)
		return error("'%s': opened read-only", r->path);
	signals_hold(&old);
	if (rec_enter(r) < 0)
		goto done;
	run = H5Gopen2(r->file, "/run", H5P_DEFAULT);
	if (run < 0 || attr_set_string(run, key, value ? value : "") < 0)
		h5_error(r->path, "cannot write /run attribute '%s'", key);
	else
		rc = 0;
	h5_close_id(run);
	if (rec_leave(r, 1) < 0)
		rc = -1;
done:
	signals_restore(&old);
	return rc;
}

/* ---- reading ------------------------------------------------------------------------- */

/* Append a key/value pair without looking for an existing key (reading). */
static void meta_push(struct rec_meta *m, char *key, char *value)
{
	m->kv = xrealloc(m->kv, (m->nkv + 1) * sizeof(*m->kv));
	m->kv[m->nkv].key = key;
	m->kv[m->nkv].value = value;
	m->nkv++;
}

static herr_t meta_attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
	struct rec_meta *m = data;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	char *value = NULL;
	int rc = a >= 0 ? attr_get_string(a, &value) : -1;
	h5_close_id(a);
	if (rc < 0)
		return -1;
	meta_push(m, xstrdup(name), value);
	return 0;
}

/* Read one scalar string dataset of /run/files with its attributes. */
static int read_file_entry(hid_t files, const char *path, const char *name, struct rec_file *f)
{
	hid_t d = H5Dopen2(files, name, H5P_DEFAULT), t = -1, a = -1;
	int rc = -1;
	memset(f, 0, sizeof(*f));
	if (d < 0 || (t = H5Dget_type(d)) < 0 || H5Tget_class(t) != H5T_STRING ||
	    H5Tis_variable_str(t) != 0)
		goto fail;
	size_t n = H5Tget_size(t);
	f->text = xcalloc(n + 1, 1);
	if (H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, f->text) < 0)
		goto fail;
	f->len = strnlen(f->text, n);
	const char *attrs[] = { "role", "path", "sha256" };
	char **dst[] = { &f->role, &f->path, &f->sha256 };
	for (size_t k = 0; k < ARRAY_SIZE(attrs); k++) {
		a = H5Aopen(d, attrs[k], H5P_DEFAULT);
		if (a < 0 || attr_get_string(a, dst[k]) < 0)
			goto fail;
		H5Aclose(a);
		a = -1;
	}
	rc = 0;
	goto done;
fail:
	rc = h5_error(path, "cannot read %s/%s", FILES_GROUP, name);
done:
	h5_close_id(a);
	h5_close_id(t);
	h5_close_id(d);
	return rc;
}

int rec_read_meta(struct rec *r, struct rec_meta *out)
{
	hid_t run = -1, files = -1;
	int rc = -1;

	rec_meta_init(out);
	if (rec_enter(r) < 0)
		return -1;
	run = H5Gopen2(r->file, "/run", H5P_DEFAULT);
	if (run < 0) {
		h5_error(r->path, "cannot open /run");
		goto done;
	}
	/* Creation order when the file tracks it (ours do), else by name. */
	hsize_t idx = 0;
	if (H5Aiterate2(run, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, meta_attr_cb, out) < 0) {
		rec_meta_release(out);
		rec_meta_init(out);
		idx = 0;
		if (H5Aiterate2(run, H5_INDEX_NAME, H5_ITER_INC, &idx, meta_attr_cb, out) < 0) {
			h5_error(r->path, "cannot read the attributes of /run");
			goto done;
		}
	}
	files = H5Gopen2(r->file, FILES_GROUP, H5P_DEFAULT);
	if (files < 0) {
		h5_error(r->path, "cannot open %s", FILES_GROUP);
		goto done;
	}
	for (size_t k = 0;; k++) {
		char name[32];
		snprintf(name, sizeof(name), "%03zu", k);
		htri_t e = H5Lexists(files, name, H5P_DEFAULT);
		if (e < 0) {
			h5_error(r->path, "cannot read %s", FILES_GROUP);
			goto done;
		}
		if (e == 0)
			break;
		out->files = xrealloc(out->files, (out->nfiles + 1) * sizeof(*out->files));
		if (read_file_entry(files, r->path, name, &out->files[out->nfiles]) < 0) {
			struct rec_file *f = &out->files[out->nfiles];
			free(f->role);
			free(f->path);
			free(f->sha256);
			free(f->text);
			goto done;
		}
		out->nfiles++;
	}
	rc = 0;
done:
	h5_close_id(files);
	h5_close_id(run);
	if (rec_leave(r, 0) < 0)
		rc = -1;
	if (rc < 0) {
		rec_meta_release(out);
		rec_meta_init(out);
	}
	return rc;
}

/* Read a whole table into a new array of memory rows (strings never NULL). */
static int read_all(struct rec *r, const struct table *tb, void **rows, size_t *n)
{
	hsize_t count = 0;
	hid_t d = -1;
	int rc = -1;
	*rows = NULL;
	*n = 0;
	if (rec_enter(r) < 0)
		return -1;
	d = table_open(r->file, r->path, tb);
	if (d < 0 || table_rows(d, r->path, tb, &count) < 0)
		goto done;
	*rows = xcalloc(count ? count : 1, tb->row_size);
	if (table_read(d, r->path, tb, tb, 0, count, *rows) < 0) {
		/* HDF5 frees what it had converted when a read fails part-way. */
		free(*rows);
		*rows = NULL;
		goto done;
	}
	rows_fill_strings(tb, *rows, count, 1);
	*n = count;
	rc = 0;
done:
	h5_close_id(d);
	if (rec_leave(r, 0) < 0 && rc == 0) {
		rec_free_rows(tb, *rows, *n);
		*rows = NULL;
		*n = 0;
		rc = -1;
	}
	return rc;
}

int rec_read_plan(struct rec *r, struct rec_plan **plan, size_t *n)
{
	void *rows;
	if (read_all(r, &t_plan, &rows, n) < 0) {
		*plan = NULL;
		return -1;
	}
	*plan = rows;
	return 0;
}

void rec_plan_free(struct rec_plan *plan, size_t n)
{
	if (!plan)
		return;
	for (size_t i = 0; i < n; i++)
		free(plan[i].mode);
	free(plan);
}

int rec_read_units(struct rec *r, struct rec_unit **units, size_t *n)
{
	void *rows;
	*units = NULL;
	if (read_all(r, &t_units, &rows, n) < 0)
		return -1;
	struct unit_row *ur = rows;
	struct rec_unit *u = xcalloc(*n ? *n : 1, sizeof(*u));
	for (size_t i = 0; i < *n; i++) {
		u[i] = ur[i].u;
		free(ur[i].info);
	}
	free(rows);
	*units = u;
	return 0;
}

static void unit_strings_free(struct rec_unit *u)
{
	free(u->mode);
	free(u->cache_dir);
	free(u->status);
	free(u->start_utc);
	free(u->end_utc);
	free(u->stdout_log);
	free(u->stderr_log);
	free(u->argv_json);
	free(u->env_json);
	free(u->message);
}

void rec_units_free(struct rec_unit *units, size_t n)
{
	if (!units)
		return;
	for (size_t i = 0; i < n; i++)
		unit_strings_free(&units[i]);
	free(units);
}

int rec_read_cells(struct rec *r, struct rec_cell **cells, size_t *n)
{
	void *rows;
	if (read_all(r, &t_cells, &rows, n) < 0) {
		*cells = NULL;
		return -1;
	}
	*cells = rows;
	return 0;
}

void rec_cells_free(struct rec_cell *cells, size_t n)
{
	rec_free_rows(&t_cells, cells, n); /* /cells rows are struct rec_cell */
}

/* Read a per-unit table whose rows are {int64 unit; PAYLOAD}: the unit column and the
 * payloads as two parallel heap arrays (the payloads keep their strings). */
static int read_unit_split(struct rec *r, const struct table *tb, size_t payload_off,
			   size_t payload_size, int64_t **unit, void **payload, size_t *n)
{
	void *rows;
	*unit = NULL;
	*payload = NULL;
	if (read_all(r, tb, &rows, n) < 0)
		return -1;
	*unit = xcalloc(*n ? *n : 1, sizeof(**unit));
	char *out = xcalloc(*n ? *n : 1, payload_size);
	for (size_t i = 0; i < *n; i++) {
		const char *row = (const char *)rows + i * tb->row_size;
		memcpy(&(*unit)[i], row, sizeof(int64_t));
		memcpy(out + i * payload_size, row + payload_off, payload_size);
	}
	free(rows);
	*payload = out;
	return 0;
}

int rec_read_choices(struct rec *r, int64_t **unit, struct rec_choice **choices, size_t *n)
{
	return read_unit_split(r, &t_choices, offsetof(struct choice_row, c),
			       sizeof(struct rec_choice), unit, (void **)choices, n);
}

int rec_read_trials(struct rec *r, int64_t **unit, struct rec_trial **trials, size_t *n)
{
	return read_unit_split(r, &t_trials, offsetof(struct trial_row, t),
			       sizeof(struct rec_trial), unit, (void **)trials, n);
}

/* Free n trials (or choices) with their strings, and the array. */
static void trials_free(struct rec_trial *t, size_t n)
{
	for (size_t i = 0; t && i < n; i++) {
		free(t[i].config);
		free(t[i].status);
	}
	free(t);
}

static void choices_free(struct rec_choice *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].config);
		free(c[i].reason);
	}
	free(c);
}

void rec_trials_free(int64_t *unit, struct rec_trial *trials, size_t n)
{
	free(unit);
	trials_free(trials, n);
}

void rec_choices_free(int64_t *unit, struct rec_choice *choices, size_t n)
{
	free(unit);
	choices_free(choices, n);
}

int rec_count_samples(struct rec *r, int64_t *n)
{
	hsize_t count = 0;
	*n = 0;
	if (rec_enter(r) < 0)
		return -1;
	int rc = table_count(r->file, r->path, &t_samples, &count);
	if (rec_leave(r, 0) < 0)
		rc = -1;
	if (!rc)
		*n = (int64_t)count;
	return rc;
}

/* ---- in-memory helpers --------------------------------------------------------------- */

void rec_meta_init(struct rec_meta *m)
{
	memset(m, 0, sizeof(*m));
}

void rec_meta_release(struct rec_meta *m)
{
	for (size_t k = 0; k < m->nkv; k++) {
		free(m->kv[k].key);
		free(m->kv[k].value);
	}
	free(m->kv);
	for (size_t k = 0; k < m->nfiles; k++) {
		free(m->files[k].role);
		free(m->files[k].path);
		free(m->files[k].sha256);
		free(m->files[k].text);
	}
	free(m->files);
	rec_meta_init(m);
}

void rec_meta_set(struct rec_meta *m, const char *key, const char *value)
{
	for (size_t k = 0; k < m->nkv; k++) {
		if (!strcmp(m->kv[k].key, key)) {
			free(m->kv[k].value);
			m->kv[k].value = xstrdup(value);
			return;
		}
	}
	meta_push(m, xstrdup(key), xstrdup(value));
}

const char *rec_meta_get(const struct rec_meta *m, const char *key)
{
	for (size_t k = 0; k < m->nkv; k++)
		if (!strcmp(m->kv[k].key, key))
			return m->kv[k].value;
	return NULL;
}

void rec_meta_add_file(struct rec_meta *m, const char *role, const char *path,
		       const char *text, size_t len)
{
	char hex[65];
	if (!text)
		text = "";
	util_sha256_hex(text, len, hex);
	m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof(*m->files));
	struct rec_file *f = &m->files[m->nfiles++];
	f->role = xstrdup(role);
	f->path = xstrdup(path);
	f->sha256 = xstrdup(hex);
	/* copied whole: a recorded file may hold NUL bytes (xstrndup would stop at one) */
	f->text = xmalloc(len + 1);
	memcpy(f->text, text, len);
	f->text[len] = '\0';
	f->len = len;
}

void rec_unit_data_init(struct rec_unit_data *u)
{
	memset(u, 0, sizeof(*u));
	u->unit.id = -1;
}

void rec_unit_data_release(struct rec_unit_data *u)
{
	unit_strings_free(&u->unit);
	rec_cells_free(u->cells, u->ncells);
	trials_free(u->trials, u->ntrials);
	choices_free(u->choices, u->nchoices);
	for (size_t i = 0; i < u->nmeasures; i++)
		free(u->measures[i].stop);
	free(u->measures);
	free(u->sample_cell);
	free(u->sample_index);
	free(u->sample_ns);
	free(u->info);
	rec_unit_data_init(u);
}

/* ---- samples, one unit at a time (memory bounded by the largest unit) -------------- */

int rec_read_unit_samples(struct rec *r, size_t unit_row, int64_t **cell, int64_t **ns,
			  size_t *n)
{
	hid_t du = -1, ds = -1;
	hsize_t nunits = 0;
	struct sample_span span;
	struct sample_row *rows = NULL;
	int rc = -1;
	*cell = *ns = NULL;
	*n = 0;
	if (rec_enter(r) < 0)
		return -1;
	du = table_open(r->file, r->path, &t_units);
	if (du < 0 || table_rows(du, r->path, &t_units, &nunits) < 0)
		goto done;
	if (unit_row >= nunits) {
		error("'%s': no unit row %zu (the file has %llu)", r->path, unit_row,
		      (unsigned long long)nunits);
		goto done;
	}
	if (table_read(du, r->path, &t_units, &t_sample_span, unit_row, 1, &span) < 0)
		goto done;
	ds = table_open(r->file, r->path, &t_samples);
	if (ds < 0)
		goto done;
	size_t count = span.sample_count > 0 ? (size_t)span.sample_count : 0;
	rows = xmalloc((count ? count : 1) * sizeof(*rows));
	if (table_read(ds, r->path, &t_samples, &t_samples, (hsize_t)span.sample_first, count,
		       rows) < 0)
		goto done;
	*cell = xmalloc((count ? count : 1) * sizeof(**cell));
	*ns = xmalloc((count ? count : 1) * sizeof(**ns));
	for (size_t i = 0; i < count; i++) {
		if (rows[i].unit != (int32_t)unit_row) {
			error("'%s': sample rows of unit %zu are not where /units says", r->path,
			      unit_row);
			free(*cell);
			free(*ns);
			*cell = *ns = NULL;
			goto done;
		}
		(*cell)[i] = rows[i].cell;
		(*ns)[i] = rows[i].ns;
	}
	*n = count;
	rc = 0;
done:
	free(rows);
	h5_close_id(ds);
	h5_close_id(du);
	if (rec_leave(r, 0) < 0)
		rc = -1;
	return rc;
}
