/* recorder-long.c: strings too long for their table (/long_strings, /long_bytes): a string of
 * REC_STR_INLINE bytes or more is cut in its table's row (at a UTF-8 character boundary) and
 * stored whole here, so that one long value (a unit's info, a message) cannot widen every
 * row of its table (docs/results-format.md, "Long strings") */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/record/recorder-int.h"

#define LONG_BYTES "/long_bytes"

/* A row of /long_strings: where a long string lives. */
struct long_row {
	char *table;    /* its table's dataset, "/units" */
	int64_t row;    /* its row there */
	char *field;    /* its field */
	int64_t first;  /* its bytes in /long_bytes: [first, first + bytes) */
	int64_t bytes;
};

static const struct field long_fields[] = {
	F(long_row, table, K_STR),
	F(long_row, row, K_I64),
	F(long_row, field, K_STR),
	F(long_row, first, K_I64),
	F(long_row, bytes, K_I64),
};
const struct table rec_t_long_strings = TABLE("/long_strings", 16, long_row, long_fields, 256, 0);

void rec_spill_note(struct rec_spill *sp, const struct table *tb, const void *rows,
		    size_t first, size_t n)
{
	if (!sp || tb == &rec_t_long_strings)
		return;
	for (size_t k = 0; k < tb->nfields; k++) {
		if (tb->fields[k].kind != K_STR)
			continue;
		for (size_t i = 0; i < n; i++) {
			const char *s = *(char *const *)((const char *)rows + i * tb->row_size +
							  tb->fields[k].offset);
			size_t len = s ? strlen(s) : 0;
			if (len + 1 <= REC_STR_INLINE)
				continue;
			XGROW(sp->rows, sp->cap, sp->n + 1);
			struct long_row *lr = &sp->rows[sp->n++];
			lr->table = xstrdup(tb->name);
			lr->row = (int64_t)(first + i);
			lr->field = xstrdup(tb->fields[k].name);
			lr->first = (int64_t)sp->bytes.len;
			lr->bytes = (int64_t)len;
			sbuf_add(&sp->bytes, s, len);
		}
	}
}

void rec_spill_release(struct rec_spill *sp)
{
	for (size_t i = 0; i < sp->n; i++) {
		free(sp->rows[i].table);
		free(sp->rows[i].field);
	}
	free(sp->rows);
	sbuf_release(&sp->bytes);
	memset(sp, 0, sizeof(*sp));
}

int rec_spill_write(hid_t file, const char *path, const struct rec_spill *sp, int compress)
{
	if (!sp->n)
		return 0;
	struct rec_widths w;
	rec_widths_init(&rec_t_long_strings, &w);
	rec_widths_add(&rec_t_long_strings, &w, sp->rows, sp->n);
	hid_t d = rec_table_make(file, path, &rec_t_long_strings, &w, sp->n, compress);
	int rc = d < 0 ? -1 : rec_table_put(d, path, &rec_t_long_strings, &w, sp->rows, 0, sp->n,
					    NULL);
	if (d >= 0 && H5Dclose(d) < 0)
		rc = rec_h5_error(path, "cannot write %s", rec_t_long_strings.name);
	if (rc < 0)
		return -1;
	hsize_t dims = sp->bytes.len, chunk = sp->bytes.len < (1u << 20) ? sp->bytes.len : 1u << 20;
	hid_t space = H5Screate_simple(1, &dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
	d = -1;
	if (space < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
	    (compress && H5Pset_deflate(dcpl, 6) < 0) || H5Pset_fletcher32(dcpl) < 0 ||
	    (d = H5Dcreate2(file, LONG_BYTES, H5T_STD_U8LE, space, H5P_DEFAULT, dcpl,
			    H5P_DEFAULT)) < 0 ||
	    H5Dwrite(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, sp->bytes.buf) < 0)
		rc = rec_h5_error(path, "cannot write %s", LONG_BYTES);
	if (d >= 0 && H5Dclose(d) < 0 && rc == 0)
		rc = rec_h5_error(path, "cannot write %s", LONG_BYTES);
	rec_h5_close(dcpl);
	rec_h5_close(space);
	return rc;
}

/* Bytes [first, first + n) of /long_bytes as a heap string (d open; size its length). */
static char *long_read(hid_t d, hsize_t size, int64_t first, int64_t n)
{
	if (first < 0 || n < 0 || (hsize_t)first > size || (hsize_t)n > size - (hsize_t)first)
		return NULL;
	char *s = xmalloc((size_t)n + 1);
	hsize_t start = (hsize_t)first, count = (hsize_t)n;
	hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &count, NULL);
	int ok = n == 0 ||
		 (fs >= 0 && ms >= 0 &&
		  H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
		  H5Dread(d, H5T_NATIVE_UINT8, ms, fs, H5P_DEFAULT, s) >= 0);
	rec_h5_close(ms);
	rec_h5_close(fs);
	if (!ok) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	return s;
}

int rec_spill_apply(struct rec *r, const struct table *tb, void *rows, size_t n)
{
	if (tb == &rec_t_long_strings || !tb->name)
		return 0;
	htri_t e = H5Lexists(r->file, rec_t_long_strings.name + 1, H5P_DEFAULT);
	if (e <= 0)
		return e < 0 ? rec_h5_error(r->path, "cannot read %s", rec_t_long_strings.name) : 0;
	struct long_row *lr = NULL;
	size_t nl = 0;
	hid_t d = -1, space = -1;
	int rc = -1;
	if (rec_read_all(r, &rec_t_long_strings, (void **)&lr, &nl) < 0)
		return -1;
	hsize_t size = 0;
	if ((d = H5Dopen2(r->file, LONG_BYTES, H5P_DEFAULT)) < 0 ||
	    (space = H5Dget_space(d)) < 0 || H5Sget_simple_extent_ndims(space) != 1 ||
	    H5Sget_simple_extent_dims(space, &size, NULL) < 0) {
		rec_h5_error(r->path, "cannot read %s", LONG_BYTES);
		goto done;
	}
	for (size_t i = 0; i < nl; i++) {
		if (strcmp(lr[i].table, tb->name))
			continue;
		size_t k = 0;
		while (k < tb->nfields &&
		       (tb->fields[k].kind != K_STR || strcmp(tb->fields[k].name, lr[i].field)))
			k++;
		char *s = NULL;
		if (k == tb->nfields || lr[i].row < 0 || (uint64_t)lr[i].row >= n ||
		    (uint64_t)lr[i].bytes > r->max_bytes ||
		    !(s = long_read(d, size, lr[i].first, lr[i].bytes))) {
			error("'%s': damaged: %s row %zu names no string of %s, or bytes outside %s",
			      r->path, rec_t_long_strings.name, i, tb->name, LONG_BYTES);
			goto done;
		}
		char **f = (char **)((char *)rows + (size_t)lr[i].row * tb->row_size +
				     tb->fields[k].offset);
		free(*f);
		*f = s;
	}
	rc = 0;
done:
	rec_h5_close(space);
	rec_h5_close(d);
	rec_free_rows(&rec_t_long_strings, lr, nl);
	return rc;
}
