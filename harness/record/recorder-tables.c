/* recorder-tables.c: the results file's tables: one field list per table drives the memory and
 * file compound types; packed rows of fixed-length strings, written and read with checks */
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
	FO(rec_plan, "workload", workload, K_STR, 0),
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
	FO(unit_row, "slot", u.slot, K_I64, -1),
	FO(unit_row, "device", u.device, K_STR, 0),
	FO(unit_row, "cpus", u.cpus, K_STR, 0),
	FO(unit_row, "workload", u.workload, K_STR, 0),
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
	FO(trial_row, "source_ns", t.source_ns, K_F64, -1),
	FO(trial_row, "verify_ns", t.verify_ns, K_I64, -1),
	FO(trial_row, "overhead_ns", t.overhead_ns, K_I64, -1),
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
	FO(sample_row, "clock_reasons", clock_reasons, K_I64, -1),
};

static const struct field sample_v1_fields[] = {
	F(sample_row_v1, unit, K_I32),
	F(sample_row_v1, cell, K_I32),
	F(sample_row_v1, index, K_I64),
	F(sample_row_v1, ns, K_I64),
	FO(sample_row_v1, "launches", launches, K_I64, 1),
};

static const struct field sample_extra_fields[] = {
	F(sample_extra_row, unit, K_I32),
	F(sample_extra_row, clock_mhz, K_F64),
	F(sample_extra_row, throttle, K_FLAG),
	F(sample_extra_row, launches, K_I64),
	FO(sample_extra_row, "clock_reasons", clock_reasons, K_I64, -1),
};

static const struct field trial_sample_fields[] = {
	F(trial_sample_row, unit, K_I64),
	FN(trial_sample_row, "trial", s.trial, K_I64),
	FN(trial_sample_row, "index", s.index, K_I64),
	FN(trial_sample_row, "ns", s.ns, K_I64),
	FN(trial_sample_row, "clock_mhz", s.clock_mhz, K_F64),
	FN(trial_sample_row, "throttle", s.throttle, K_FLAG),
	FN(trial_sample_row, "launches", s.launches, K_I64),
	FO(trial_sample_row, "clock_reasons", s.clock_reasons, K_I64, -1),
};

static const struct field space_fields[] = {
	F(space_row, unit, K_I64),
	FN(space_row, "cell", s.cell, K_I64),
	FN(space_row, "grid", s.grid, K_I64),
	FN(space_row, "nvalid", s.nvalid, K_I64),
	FO(space_row, "listed", s.listed, K_I64, 0),
};

static const struct field space_value_fields[] = {
	F(space_value_row, unit, K_I64),
	FN(space_value_row, "cell", v.cell, K_I64),
	FN(space_value_row, "field", v.field, K_I32),
	{ "name", K_FIX, offsetof(struct space_value_row, v.name), REC_NAME_MAX, 0, 0 },
	FN(space_value_row, "value", v.value, K_I64),
	FO(space_value_row, "kind", v.kind, K_I32, 0),
	{ "label", K_FIX, offsetof(struct space_value_row, v.label), REC_TEXT_MAX, 1, 0 },
};

static const struct field space_vendor_fields[] = {
	F(space_vendor_row, unit, K_I64),
	FN(space_vendor_row, "cell", v.cell, K_I64),
	FN(space_vendor_row, "candidate", v.candidate, K_I32),
	{ "config", K_FIX, offsetof(struct space_vendor_row, v.config), REC_TEXT_MAX, 0, 0 },
};

static const struct field space_invalid_fields[] = {
	F(space_invalid_row, unit, K_I64),
	FN(space_invalid_row, "cell", v.cell, K_I64),
	FN(space_invalid_row, "point", v.point, K_I64),
	{ "why", K_FIX, offsetof(struct space_invalid_row, v.why), REC_TEXT_MAX, 0, 0 },
	FD(space_invalid_row, "count", v.count, K_I64, 1),
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
#define NSLOTS 18

const struct table *const rec_all_tables[REC_NTABLES] = {
	&rec_t_plan, &rec_t_units, &rec_t_cells, &rec_t_trials, &rec_t_choices, &rec_t_measures, &rec_t_samples,
	&rec_t_trial_samples, &rec_t_spaces, &rec_t_space_values, &rec_t_space_vendors,
	&rec_t_space_invalid,
};

/* ---- widths and packed rows -------------------------------------------------------- */

/* The stored width of each field: fixed types their size, strings 1 until rows widen them. */
void rec_widths_init(const struct table *tb, struct rec_widths *w)
{
	memset(w->ascii, 0, sizeof(w->ascii));
	for (size_t k = 0; k < tb->nfields; k++) {
		switch (tb->fields[k].kind) {
		case K_I64: case K_F64: w->w[k] = 8; break;
		case K_I32: w->w[k] = 4; break;
		case K_FLAG: w->w[k] = 1; break;
		case K_STR: w->w[k] = 1; break;
		case K_FIX: w->w[k] = tb->fields[k].size; break;
		}
	}
}

/* Widen w's string fields to hold every string of n memory rows (and its NUL). */
void rec_widths_add(const struct table *tb, struct rec_widths *w, const void *rows, size_t n)
{
	for (size_t k = 0; k < tb->nfields; k++) {
		if (tb->fields[k].kind != K_STR)
			continue;
		for (size_t i = 0; i < n; i++) {
			const char *s = *(char *const *)((const char *)rows + i * tb->row_size +
							  tb->fields[k].offset);
			size_t l = s ? strnlen(s, REC_STR_INLINE) + 1 : 1;
			if (l > REC_STR_INLINE)
				l = REC_STR_INLINE; /* the rest in /long_strings */
			if (l > w->w[k])
				w->w[k] = l;
		}
	}
}

/* w = the wider of w and o, field by field. */
void rec_widths_max(const struct table *tb, struct rec_widths *w, const struct rec_widths *o)
{
	for (size_t k = 0; k < tb->nfields; k++)
		if (o->w[k] > w->w[k])
			w->w[k] = o->w[k];
}

/* The packed compound type of tb's fields at widths w: native types (file == 0) or the
 * file's little-endian ones (file != 0), fields back to back, vlen[k] marking string fields
 * to read as variable-length (version 1 files; NULL: none).  *row gets the packed row size.
 * Returns the type (the caller closes it) or -1 (HDF5 error stack set). */
static hid_t packed_type(const struct table *tb, const struct rec_widths *w, const int *vlen,
			 int file, size_t *row)
{
	size_t size = 0;
	for (size_t k = 0; k < tb->nfields; k++)
		size += vlen && vlen[k] < 0 ? 0 : vlen && vlen[k] ? sizeof(char *) : w->w[k];
	*row = size;
	hid_t t = H5Tcreate(H5T_COMPOUND, size ? size : 1);
	size_t off = 0;
	for (size_t k = 0; t >= 0 && k < tb->nfields; k++) {
		hid_t ft = -1, own = -1;
		if (vlen && vlen[k] < 0)
			continue; /* an optional field the file lacks */
		switch (tb->fields[k].kind) {
		case K_I64: ft = file ? H5T_STD_I64LE : H5T_NATIVE_INT64; break;
		case K_I32: ft = file ? H5T_STD_I32LE : H5T_NATIVE_INT32; break;
		case K_FLAG: ft = file ? H5T_STD_I8LE : H5T_NATIVE_INT8; break;
		case K_F64: ft = file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE; break;
		case K_STR: case K_FIX:
			ft = own = vlen && vlen[k] ? rec_h5_str_type() : rec_h5_fixed_str(w->w[k]);
			/* HDF5 converts no string between character sets: read as stored */
			if (own >= 0 && w->ascii[k] && H5Tset_cset(own, H5T_CSET_ASCII) < 0)
				ft = -1;
			break;
		}
		if (ft < 0 || H5Tinsert(t, tb->fields[k].name, off, ft) < 0) {
			H5Tclose(t);
			t = -1;
		}
		off += vlen && vlen[k] ? sizeof(char *) : w->w[k];
		if (own >= 0)
			H5Tclose(own);
	}
	return t;
}

/* Pack n memory rows into buf (n packed rows of widths w, zeroed by the caller). */
static void pack_rows(const struct table *tb, const struct rec_widths *w, const void *rows,
		      size_t n, size_t row, char *buf)
{
	for (size_t i = 0; i < n; i++) {
		const char *src = (const char *)rows + i * tb->row_size;
		char *dst = buf + i * row;
		for (size_t k = 0; k < tb->nfields; k++) {
			const char *f = src + tb->fields[k].offset;
			switch (tb->fields[k].kind) {
			case K_I64: case K_F64: memcpy(dst, f, 8); break;
			case K_I32: memcpy(dst, f, 4); break;
			case K_FLAG: { int v; memcpy(&v, f, sizeof(v)); *dst = (char)(int8_t)v; break; }
			case K_STR: {
				const char *s = *(char *const *)f;
				size_t len = s ? strnlen(s, w->w[k] - 1) : 0;
				/* cut (a long string): not inside a UTF-8 character */
				while (len && s[len] && ((unsigned char)s[len] & 0xC0) == 0x80)
					len--;
				if (s)
					memcpy(dst, s, len);
				break;
			}
			case K_FIX: memcpy(dst, f, strnlen(f, w->w[k] - 1)); break;
			}
			dst += w->w[k];
		}
	}
}

/* Unpack n packed rows (of widths w; vlen as for packed_type) into memory rows laid out as
 * tb says: strings become heap strings (never NULL). */
static void unpack_rows(const struct table *tb, const struct rec_widths *w, const int *vlen,
			const char *buf, size_t n, size_t row, void *rows)
{
	for (size_t i = 0; i < n; i++) {
		const char *src = buf + i * row;
		char *dst = (char *)rows + i * tb->row_size;
		for (size_t k = 0; k < tb->nfields; k++) {
			char *f = dst + tb->fields[k].offset;
			if (vlen[k] < 0) { /* an optional field the file lacks */
				int64_t a = tb->fields[k].absent;
				int flag = (int)a;
				int32_t a32 = (int32_t)a;
				double ad = (double)a;
				switch (tb->fields[k].kind) {
				case K_I64: memcpy(f, &a, 8); break;
				case K_F64: memcpy(f, &ad, 8); break;
				case K_I32: memcpy(f, &a32, 4); break;
				case K_FLAG: memcpy(f, &flag, sizeof(flag)); break;
				case K_STR: *(char **)f = xstrdup(""); break;
				case K_FIX: memset(f, 0, tb->fields[k].size); break;
				}
				continue;
			}
			size_t width = vlen[k] ? sizeof(char *) : w->w[k];
			switch (tb->fields[k].kind) {
			case K_I64: case K_F64: memcpy(f, src, 8); break;
			case K_I32: memcpy(f, src, 4); break;
			case K_FLAG: { int v = (int8_t)*src; memcpy(f, &v, sizeof(v)); break; }
			case K_STR:
				if (vlen[k]) {
					char *s;
					memcpy(&s, src, sizeof(s));
					*(char **)f = s ? s : xstrdup("");
				} else {
					*(char **)f = xstrndup(src, width);
				}
				break;
			case K_FIX: {
				size_t cap = tb->fields[k].size;
				memset(f, 0, cap);
				if (!vlen[k])
					memcpy(f, src, strnlen(src, width < cap - 1 ? width : cap - 1));
				break;
			}
			}
			src += width;
		}
	}
}

/* ---- writing tables (into an in-memory file) ----------------------------------------- */

/* Create tb's dataset in file with nrows rows at widths w: chunked, Fletcher32 (and
 * shuffle + deflate where tb says, unless compress is 0).  Returns it (the caller closes
 * it), or reports and -1. */
hid_t rec_table_make(hid_t file, const char *path, const struct table *tb,
		     const struct rec_widths *w, size_t nrows, int compress)
{
	hid_t ftype = -1, space = -1, dcpl = -1, d = -1;
	size_t row;
	hsize_t dims = nrows, unlimited = H5S_UNLIMITED, chunk = tb->chunk ? tb->chunk : 64;

	ftype = packed_type(tb, w, NULL, 1, &row);
	/* no larger than the table (a chunk is stored whole), about 1 MiB at most */
	if (chunk > nrows)
		chunk = nrows ? nrows : 1;
	while (chunk > 1 && chunk * row > ((hsize_t)1 << 20))
		chunk /= 2;
	space = H5Screate_simple(1, &dims, &unlimited);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (ftype < 0 || space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
	    (compress && tb->deflate &&
	     (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, tb->deflate) < 0)) ||
	    H5Pset_fletcher32(dcpl) < 0 ||
	    (d = H5Dcreate2(file, tb->name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
		rec_h5_error(path, "cannot create %s", tb->name);
	rec_h5_close(dcpl);
	rec_h5_close(space);
	rec_h5_close(ftype);
	return d;
}

/* Write n memory rows into rows [first, first + n) of d (made by rec_table_make with widths
 * w); strings too long for a row are noted in sp (rec_spill_note).  Reports and returns -1. */
int rec_table_put(hid_t d, const char *path, const struct table *tb, const struct rec_widths *w,
		  const void *rows, size_t first, size_t n, struct rec_spill *sp)
{
	hid_t mtype = -1, fspace = -1, mspace = -1;
	char *buf = NULL;
	size_t row;
	hsize_t start = first, count = n;
	int rc = -1;

	if (n == 0)
		return 0;
	mtype = packed_type(tb, w, NULL, 0, &row);
	if (mtype < 0)
		goto done;
	buf = xcalloc(n, row);
	pack_rows(tb, w, rows, n, row, buf);
	rec_spill_note(sp, tb, rows, first, n);
	fspace = H5Dget_space(d);
	mspace = H5Screate_simple(1, &count, NULL);
	if (fspace < 0 || mspace < 0 ||
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
	    H5Dwrite(d, mtype, mspace, fspace, H5P_DEFAULT, buf) < 0)
		goto done;
	rc = 0;
done:
	if (rc < 0)
		rec_h5_error(path, "cannot write %s", tb->name);
	free(buf);
	rec_h5_close(mspace);
	rec_h5_close(fspace);
	rec_h5_close(mtype);
	return rc;
}

/* ---- reading tables ---------------------------------------------------------------- */

/* Open a table's dataset of r; reports and returns -1 on failure. */
hid_t rec_table_open(struct rec *r, const struct table *tb)
{
	hid_t d = H5Dopen2(r->file, tb->name, H5P_DEFAULT);
	if (d < 0)
		rec_h5_error(r->path, "cannot open %s", tb->name);
	return d;
}

/* The most bytes of data the open dataset d can hold: the file's size, unless a filter
 * compresses it (deflate, szip, ...: then what rec_open allows for inflation).  Shuffle and
 * Fletcher32 keep the size.  A damaged table that claims millions of rows is refused before
 * anything is allocated for them (a 242 KB file once claimed 266 MB that way). */
static uint64_t data_bound(struct rec *r, hid_t d)
{
	hid_t dcpl = H5Dget_create_plist(d);
	int nf = dcpl < 0 ? -1 : H5Pget_nfilters(dcpl);
	uint64_t bound = nf < 0 ? r->max_bytes : r->file_bytes;
	for (int i = 0; i < nf; i++) {
		unsigned flags = 0;
		size_t nelem = 0;
		H5Z_filter_t f = H5Pget_filter2(dcpl, (unsigned)i, &flags, &nelem, NULL, 0, NULL,
						NULL);
		if (f != H5Z_FILTER_SHUFFLE && f != H5Z_FILTER_FLETCHER32)
			bound = r->max_bytes;
	}
	rec_h5_close(dcpl);
	return bound;
}

/* Rows in the open table d: a one-dimensional dataset.  Reports and returns -1. */
int rec_table_rows(struct rec *r, hid_t d, const struct table *tb, size_t *n)
{
	hid_t space = H5Dget_space(d), ftype = H5Dget_type(d);
	hsize_t dims = 0;
	size_t fsize = ftype < 0 ? 0 : H5Tget_size(ftype);
	int rc = -1;
	*n = 0;
	if (space < 0 || H5Sget_simple_extent_ndims(space) != 1 ||
	    H5Sget_simple_extent_dims(space, &dims, NULL) < 0)
		rec_h5_error(r->path, "cannot read %s: not a one-dimensional table", tb->name);
	else if (dims > r->max_bytes || (fsize && dims > data_bound(r, d) / fsize))
		error("'%s': cannot read %s: it claims %llu rows, more than the file can hold", r->path, tb->name,
		      (unsigned long long)dims);
	else {
		*n = (size_t)dims;
		rc = 0;
	}
	rec_h5_close(ftype);
	rec_h5_close(space);
	return rc;
}

/* The stored widths of layout's fields in the dataset type ftype, after checking that each
 * is there with the class its kind needs (integers, floats, strings; a string
 * variable-length only in a version 1 file: vlen[k] set).  Reports and returns -1. */
static int stored_widths(struct rec *r, hid_t ftype, const struct table *tb,
			 const struct table *layout, struct rec_widths *w, int *vlen)
{
	if (H5Tget_class(ftype) != H5T_COMPOUND)
		return error("'%s': cannot read %s: not a table (its type is not compound)", r->path, tb->name);
	for (size_t k = 0; k < layout->nfields; k++) {
		const struct field *f = &layout->fields[k];
		int idx = H5Tget_member_index(ftype, f->name);
		hid_t mt = idx >= 0 ? H5Tget_member_type(ftype, (unsigned)idx) : -1;
		if (mt < 0 && f->optional) {
			H5Eclear2(H5E_DEFAULT);
			vlen[k] = -1; /* absent: unpack_rows fills the default */
			continue;
		}
		if (mt < 0) {
			H5Eclear2(H5E_DEFAULT);
			return error("'%s': cannot read %s: no field '%s'", r->path, tb->name, f->name);
		}
		H5T_class_t cls = H5Tget_class(mt);
		size_t size = H5Tget_size(mt);
		htri_t isv = cls == H5T_STRING ? H5Tis_variable_str(mt) : 0;
		if (cls == H5T_STRING)
			w->ascii[k] = H5Tget_cset(mt) == H5T_CSET_ASCII;
		H5Tclose(mt);
		const char *want = NULL;
		vlen[k] = 0;
		switch (f->kind) {
		case K_I64: case K_I32: case K_FLAG:
			if (cls != H5T_INTEGER || size < 1 || size > 8)
				want = "an integer";
			break;
		case K_F64:
			if (cls != H5T_FLOAT || (size != 4 && size != 8))
				want = "a floating-point number";
			break;
		case K_STR: case K_FIX:
			if (cls != H5T_STRING || isv < 0)
				want = "a string";
			else if (isv > 0 && (r->version >= 2 || f->kind == K_FIX))
				want = "a fixed-length string";
			else if (isv > 0)
				vlen[k] = 1;
			else if (size < 1 || size > REC_STR_MAX)
				want = "a string of sane length";
			else
				w->w[k] = size;
			break;
		}
		if (want)
			return error("'%s': cannot read %s: field '%s' is not %s", r->path, tb->name, f->name, want);
	}
	return 0;
}

/* A variable-length string (version 1) can be no longer than the file that holds it (its
 * global heap is not compressed): a damaged length is refused (NULL: libhdf5's read fails)
 * before it is allocated.  info: the file's struct rec. */
static void *h5_vlen_alloc(size_t n, void *info)
{
	const struct rec *r = info;
	if (r && n > r->file_bytes + 1)
		return NULL;
	return xmalloc(n);
}

static void h5_vlen_free(void *p, void *info)
{
	(void)info;
	free(p);
}

/* Read rows [first, first+n) of the open table d into rows, laid out as layout describes
 * (its fields a subset of the table's, matched by name; strings heap, never NULL), after
 * checking the dataset's rank, size and field types.  Reports and returns -1 on failure
 * (rows then hold no strings). */
int rec_table_read(struct rec *r, hid_t d, const struct table *tb, const struct table *layout,
		   size_t first, size_t n, void *rows)
{
	hid_t ftype = -1, mtype = -1, fspace = -1, mspace = -1, dxpl = -1;
	struct rec_widths w;
	int vlen[REC_MAX_FIELDS];
	size_t total, row;
	char *buf = NULL;
	int rc = -1, any_vlen = 0;
	hsize_t start = first, count = n;

	if (n == 0)
		return 0;
	memset(rows, 0, n * layout->row_size);
	if (rec_table_rows(r, d, tb, &total) < 0)
		return -1;
	if (first > total || n > total - first)
		return error("'%s': cannot read %s: rows %zu to %zu asked for, the table has %zu", r->path,
			     tb->name, first, first + n, total);
	rec_widths_init(layout, &w);
	ftype = H5Dget_type(d);
	if (ftype < 0) {
		rec_h5_error(r->path, "cannot read the type of %s", tb->name);
		goto done;
	}
	if (stored_widths(r, ftype, tb, layout, &w, vlen) < 0)
		goto done;
	for (size_t k = 0; k < layout->nfields; k++)
		any_vlen |= vlen[k] > 0;
	mtype = packed_type(layout, &w, vlen, 0, &row);
	if (mtype < 0 || row == 0 || n > r->max_bytes / row) {
		if (mtype >= 0)
			error("'%s': cannot read %s: %zu rows of %zu bytes are more than the file can hold",
			      r->path, tb->name, n, row);
		else
			rec_h5_error(r->path, "cannot read %s", tb->name);
		goto done;
	}
	buf = xcalloc(n, row);
	fspace = H5Dget_space(d);
	mspace = H5Screate_simple(1, &count, NULL);
	dxpl = H5Pcreate(H5P_DATASET_XFER);
	if (fspace < 0 || mspace < 0 || dxpl < 0 ||
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
	    (any_vlen && H5Pset_vlen_mem_manager(dxpl, h5_vlen_alloc, r, h5_vlen_free, NULL) < 0) ||
	    H5Dread(d, mtype, mspace, fspace, dxpl, buf) < 0) {
		rec_h5_error(r->path, "cannot read %s", tb->name);
		goto done;
	}
	unpack_rows(layout, &w, vlen, buf, n, row, rows);
	rc = 0;
done:
	free(buf);
	rec_h5_close(dxpl);
	rec_h5_close(mspace);
	rec_h5_close(fspace);
	rec_h5_close(mtype);
	rec_h5_close(ftype);
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

/* Rows in the named table of r, or -1 reported. */
int rec_table_count(struct rec *r, const struct table *tb, size_t *n)
{
	hid_t d = rec_table_open(r, tb);
	int rc = d < 0 ? -1 : rec_table_rows(r, d, tb, n);
	rec_h5_close(d);
	return rc;
}
