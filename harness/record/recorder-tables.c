/* recorder-tables.c: the results file's tables: one field list per table drives the memory and
 * file compound types; create, append, read, trim and scrub */
#include "config.h"
#include "harness/record/recorder-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/util.h"

/* ---- tables: one field list drives the memory and the file compound types ---------- */

static const struct field plan_fields[] = {
	F(rec_plan, id, K_I64),
	F(rec_plan, mode, K_STR),
	F(rec_plan, repeat, K_I64),
	F(rec_plan, block, K_I64),
	F(rec_plan, position, K_I64),
	F(rec_plan, warm, K_FLAG),
	F(rec_plan, warm_of, K_I64),
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

static const struct field choice_fields[] = {
	F(choice_row, unit, K_I64),
	FN(choice_row, "cell", c.cell, K_I64),
	FN(choice_row, "config", c.config, K_STR),
	FN(choice_row, "reason", c.reason, K_STR),
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

static const struct field sample_fields[] = {
	F(sample_row, unit, K_I32),
	F(sample_row, cell, K_I32),
	F(sample_row, index, K_I64),
	F(sample_row, ns, K_I64),
	F(sample_row, clock_mhz, K_F64),
	FN(sample_row, "throttle", throttle, K_FLAG),
	F(sample_row, launches, K_I64),
};

static const struct field sample_v1_fields[] = {
	F(sample_row_v1, unit, K_I32),
	F(sample_row_v1, cell, K_I32),
	F(sample_row_v1, index, K_I64),
	F(sample_row_v1, ns, K_I64),
};

static const struct field sample_extra_fields[] = {
	F(sample_extra_row, unit, K_I32),
	F(sample_extra_row, clock_mhz, K_F64),
	F(sample_extra_row, throttle, K_FLAG),
	F(sample_extra_row, launches, K_I64),
};

static const struct field trial_sample_fields[] = {
	F(trial_sample_row, unit, K_I64),
	FN(trial_sample_row, "trial", s.trial, K_I64),
	FN(trial_sample_row, "index", s.index, K_I64),
	FN(trial_sample_row, "ns", s.ns, K_I64),
	FN(trial_sample_row, "clock_mhz", s.clock_mhz, K_F64),
	FN(trial_sample_row, "throttle", s.throttle, K_FLAG),
	FN(trial_sample_row, "launches", s.launches, K_I64),
};

static const struct field space_fields[] = {
	F(space_row, unit, K_I64),
	FN(space_row, "cell", s.cell, K_I64),
	FN(space_row, "grid", s.grid, K_I64),
	FN(space_row, "nvalid", s.nvalid, K_I64),
};

static const struct field space_value_fields[] = {
	F(space_value_row, unit, K_I64),
	FN(space_value_row, "cell", v.cell, K_I64),
	FN(space_value_row, "field", v.field, K_I32),
	{ "name", K_FIX, offsetof(struct space_value_row, v.name), REC_NAME_MAX },
	FN(space_value_row, "value", v.value, K_I64),
};

static const struct field space_vendor_fields[] = {
	F(space_vendor_row, unit, K_I64),
	FN(space_vendor_row, "cell", v.cell, K_I64),
	FN(space_vendor_row, "candidate", v.candidate, K_I32),
	{ "config", K_FIX, offsetof(struct space_vendor_row, v.config), REC_TEXT_MAX },
};

static const struct field space_invalid_fields[] = {
	F(space_invalid_row, unit, K_I64),
	FN(space_invalid_row, "cell", v.cell, K_I64),
	FN(space_invalid_row, "point", v.point, K_I64),
	{ "why", K_FIX, offsetof(struct space_invalid_row, v.why), REC_TEXT_MAX },
};

static const struct field unit_ref_fields[] = {
	F(unit_ref, unit, K_I64),
};

static const struct field sample_span_fields[] = {
	F(sample_span, sample_first, K_I64),
	F(sample_span, sample_count, K_I64),
};

const struct table rec_t_plan = TABLE("/plan", 0, rec_plan, plan_fields, 256, 0);
const struct table rec_t_units = TABLE("/units", 1, unit_row, unit_fields, 64, 0);
const struct table rec_t_cells = TABLE("/cells", 2, rec_cell, cell_fields, 64, 0);
const struct table rec_t_trials = TABLE("/trials", 3, trial_row, trial_fields, 1024, 0);
const struct table rec_t_choices = TABLE("/choices", 4, choice_row, choice_fields, 256, 0);
const struct table rec_t_measures = TABLE("/measures", 5, measure_row, measure_fields, 256, 0);
const struct table rec_t_samples = TABLE("/samples", 6, sample_row, sample_fields,
					    SAMPLES_CHUNK, SAMPLES_DEFLATE);
/* Not a dataset: the layout for reading the unit column of any child table. */
const struct table rec_t_unit_ref = TABLE(NULL, 7, unit_ref, unit_ref_fields, 0, 0);
/* Not a dataset: the layout for reading where a unit's samples are. */
const struct table rec_t_sample_span = TABLE(NULL, 8, sample_span, sample_span_fields, 0, 0);
const struct table rec_t_sample_v1 = TABLE(NULL, 9, sample_row_v1, sample_v1_fields, 0, 0);
const struct table rec_t_sample_extra = TABLE(NULL, 10, sample_extra_row, sample_extra_fields,
					      0, 0);
const struct table rec_t_trial_samples = TABLE("/trial_samples", 11, trial_sample_row,
					       trial_sample_fields, 1024, SAMPLES_DEFLATE);
const struct table rec_t_spaces = TABLE("/spaces", 12, space_row, space_fields, 256, 0);
const struct table rec_t_space_values = TABLE("/space_values", 13, space_value_row,
					      space_value_fields, 1024, SAMPLES_DEFLATE);
const struct table rec_t_space_vendors = TABLE("/space_vendors", 14, space_vendor_row,
					       space_vendor_fields, 256, SAMPLES_DEFLATE);
const struct table rec_t_space_invalid = TABLE("/space_invalid", 15, space_invalid_row,
					       space_invalid_fields, 1024, SAMPLES_DEFLATE);
#define NSLOTS 16

const struct table *const rec_all_tables[REC_NTABLES] = {
	&rec_t_plan, &rec_t_units, &rec_t_cells, &rec_t_trials, &rec_t_choices, &rec_t_measures, &rec_t_samples,
	&rec_t_trial_samples, &rec_t_spaces, &rec_t_space_values, &rec_t_space_vendors,
	&rec_t_space_invalid,
};

/* Build the compound type for a table's fields: in memory (native types at the given
 * offsets, size row_size) or in the file (fixed little-endian types, packed).
 * Returns the type, or -1 (HDF5 error stack set). */
static hid_t make_type(const struct table *tb, int file)
{
	hid_t str = rec_h5_str_type();
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
			case K_FIX: size += tb->fields[k].size; break;
			}
		}
	}
	hid_t t = H5Tcreate(H5T_COMPOUND, size);
	size_t off = 0;
	for (size_t k = 0; t >= 0 && k < tb->nfields; k++) {
		hid_t ft = -1, fix = -1;
		switch (tb->fields[k].kind) {
		case K_I64: ft = file ? H5T_STD_I64LE : H5T_NATIVE_INT64; break;
		case K_I32: ft = file ? H5T_STD_I32LE : H5T_NATIVE_INT32; break;
		case K_FLAG: ft = file ? H5T_STD_I8LE : H5T_NATIVE_INT; break;
		case K_F64: ft = file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE; break;
		case K_STR: ft = str; break;
		case K_FIX:
			/* the same fixed, NUL-terminated string type in memory and in the file */
			fix = H5Tcopy(H5T_C_S1);
			if (fix >= 0 && (H5Tset_size(fix, tb->fields[k].size) < 0 ||
					 H5Tset_strpad(fix, H5T_STR_NULLTERM) < 0 ||
					 H5Tset_cset(fix, H5T_CSET_UTF8) < 0)) {
				H5Tclose(fix);
				fix = -1;
			}
			ft = fix;
			break;
		}
		if (ft < 0 || H5Tinsert(t, tb->fields[k].name, file ? off : tb->fields[k].offset, ft) < 0) {
			H5Tclose(t);
			t = -1;
		}
		off += ft >= 0 ? H5Tget_size(ft) : 0;
		if (fix >= 0)
			H5Tclose(fix);
	}
	H5Tclose(str);
	return t;
}

/* The table's memory or file type, built once per process and kept (the caller does
 * not close it); -1 on failure. */
hid_t rec_table_type(const struct table *tb, int file)
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
int rec_table_create(hid_t file, const char *path, const struct table *tb)
{
	hid_t ftype = -1, space = -1, dcpl = -1, d = -1;
	int rc = -1;
	hsize_t zero = 0, unlimited = H5S_UNLIMITED;

	ftype = rec_table_type(tb, 1);
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
	rc = rec_h5_error(path, "cannot create %s", tb->name);
done:
	rec_h5_close(d);
	rec_h5_close(dcpl);
	rec_h5_close(space);
	return rc;
}

/* Open a table's dataset; reports and returns -1 on failure. */
hid_t rec_table_open(hid_t file, const char *path, const struct table *tb)
{
	hid_t d = H5Dopen2(file, tb->name, H5P_DEFAULT);
	if (d < 0)
		rec_h5_error(path, "cannot open %s", tb->name);
	return d;
}

/* Rows in the open table d, or -1 reported. */
int rec_table_rows(hid_t d, const char *path, const struct table *tb, hsize_t *n)
{
	hid_t space = H5Dget_space(d);
	int rc = 0;
	if (space < 0 || H5Sget_simple_extent_ndims(space) != 1 ||
	    H5Sget_simple_extent_dims(space, n, NULL) < 0)
		rc = rec_h5_error(path, "cannot read the size of %s", tb->name);
	rec_h5_close(space);
	return rc;
}

/* Append n memory rows (laid out as tb describes) to the open table d; *first gets the
 * index of the first new row when first != NULL.  Reports and returns -1 on failure. */
int rec_table_append(hid_t d, const char *path, const struct table *tb, const void *rows,
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
	mtype = rec_table_type(tb, 0);
	mspace = H5Screate_simple(1, &count, NULL);
	dxpl = rec_h5_dxpl(n, tb->row_size, 0);
	if (mtype < 0 || mspace < 0 || dxpl < 0 || H5Dwrite(d, mtype, mspace, fspace, dxpl, rows) < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	rc = rec_h5_error(path, "cannot append to %s", tb->name);
done:
	rec_h5_close(dxpl);
	rec_h5_close(mspace);
	rec_h5_close(fspace);
	return rc;
}

/* Read rows [first, first+n) of the open table d into rows, laid out as layout describes
 * (its fields are a subset of the table's; strings are xmalloc'ed, or NULL).  Reports
 * and returns -1 on failure. */
int rec_table_read(hid_t d, const char *path, const struct table *tb,
		      const struct table *layout, hsize_t first, hsize_t n, void *rows)
{
	hid_t mtype, fspace = -1, mspace = -1, dxpl = -1;
	int rc = -1;

	if (n == 0)
		return 0;
	fspace = H5Dget_space(d);
	if (fspace < 0 || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &first, NULL, &n, NULL) < 0)
		goto fail;
	mtype = rec_table_type(layout, 0);
	mspace = H5Screate_simple(1, &n, NULL);
	dxpl = rec_h5_dxpl(n, layout->row_size, 1);
	if (mtype < 0 || mspace < 0 || dxpl < 0 || H5Dread(d, mtype, mspace, fspace, dxpl, rows) < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	rc = rec_h5_error(path, "cannot read %s", tb->name);
done:
	rec_h5_close(dxpl);
	rec_h5_close(mspace);
	rec_h5_close(fspace);
	return rc;
}

/* Point every NULL string field of n rows at "" (writing) or at a new "" (reading), so
 * the file never holds a null string and readers never get NULL. */
void rec_rows_fill_strings(const struct table *tb, void *rows, size_t n, int alloc)
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
void rec_free_rows(const struct table *tb, void *rows, size_t n)
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
	hid_t d = rec_table_open(file, path, tb);
	int rc = -1;
	if (d < 0 || rec_table_rows(d, path, tb, &n) < 0)
		goto done;
	keep = n;
	if (limit >= 0 && (hsize_t)limit < n)
		keep = (hsize_t)limit;
	struct unit_ref buf[1024];
	while (limit < 0 && keep > 0) {
		hsize_t k = keep < ARRAY_SIZE(buf) ? keep : ARRAY_SIZE(buf);
		if (rec_table_read(d, path, tb, &rec_t_unit_ref, keep - k, k, buf) < 0)
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
			rec_h5_error(path, "cannot trim %s", tb->name);
			goto done;
		}
		warning("'%s': dropped %llu rows of %s left by an interrupted write", path,
			(unsigned long long)(n - keep), tb->name);
	}
	rc = 0;
done:
	rec_h5_close(d);
	return rc;
}

/* Rows in the named table of file, or -1 reported. */
int rec_table_count(hid_t file, const char *path, const struct table *tb, hsize_t *n)
{
	hid_t d = rec_table_open(file, path, tb);
	int rc = d < 0 ? -1 : rec_table_rows(d, path, tb, n);
	rec_h5_close(d);
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
	hid_t d = rec_table_open(file, path, tb);
	int rc = -1;
	if (d < 0 || rec_table_rows(d, path, tb, &n) < 0)
		goto done;
	big = n + SCRUB_ROWS;
	if (H5Dset_extent(d, &big) < 0 || H5Dset_extent(d, &n) < 0) {
		rec_h5_error(path, "cannot clear the rows past the end of %s", tb->name);
		goto done;
	}
	rc = 0;
done:
	rec_h5_close(d);
	return rc;
}

/* Make the tables agree with /units after an append that was cut off, and clear what it
 * left past their ends. */
int rec_trim_all(hid_t file, const char *path)
{
	hsize_t nunits;
	struct sample_span last = { 0, 0 };
	hid_t d = rec_table_open(file, path, &rec_t_units);
	int rc = d < 0 ? -1 : rec_table_rows(d, path, &rec_t_units, &nunits);
	if (rc == 0 && nunits > 0)
		rc = rec_table_read(d, path, &rec_t_units, &rec_t_sample_span, nunits - 1, 1, &last);
	rec_h5_close(d);
	if (rc < 0)
		return -1;
	const struct table *const child[] = { &rec_t_trials, &rec_t_choices, &rec_t_measures,
					      &rec_t_trial_samples, &rec_t_spaces,
					      &rec_t_space_values, &rec_t_space_vendors,
					      &rec_t_space_invalid };
	for (size_t k = 0; k < ARRAY_SIZE(child); k++)
		if (table_trim(file, path, child[k], (int64_t)nunits, -1) < 0)
			return -1;
	/* Samples end exactly where the last unit's end. */
	if (table_trim(file, path, &rec_t_samples, (int64_t)nunits,
		       last.sample_first + last.sample_count) < 0)
		return -1;
	for (size_t k = 0; k < REC_NTABLES; k++)
		if (rec_all_tables[k] != &rec_t_plan && table_scrub(file, path, rec_all_tables[k]) < 0)
			return -1;
	return 0;
}
