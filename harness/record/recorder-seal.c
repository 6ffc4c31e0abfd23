/* recorder-seal.c: a results file's digests (/digests and the record digest): written with
 * every results file from what the file holds, recomputed and compared by `harness verify`
 * and `harness audit` (recorder.h, rec_seal_*; docs/results-format.md, "Digests") */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "harness/base/util.h"
#include "harness/base/hashindex.h"
#include "harness/record/recorder-int.h"
#include "harness/record/recorder.h"

#define RECORD_ATTR "record_sha256"

/* A row of /digests: one part of the record, the SHA-256 of its rows. */
struct digest_row {
	int64_t unit;   /* row of /units */
	int64_t cell;   /* row of /cells, or -1: the unit's own row of /units */
	char *sha256;   /* 64 lowercase hex digits */
};

static const struct field digest_fields[] = {
	F(digest_row, unit, K_I64),
	F(digest_row, cell, K_I64),
	F(digest_row, sha256, K_STR),
};
static const struct table rec_t_digests = TABLE("/digests", 17, digest_row, digest_fields, 1024,
						 0);

/* The per-unit tables whose rows a (unit, cell) part covers, in the order they are hashed. */
static const struct table *const part_tables[] = {
	&rec_t_trials, &rec_t_choices, &rec_t_measures, &rec_t_samples, &rec_t_trial_samples,
	&rec_t_spaces, &rec_t_space_values, &rec_t_space_vendors, &rec_t_space_invalid,
};

/* ---- the encoding (docs/results-format.md, "Digests") --------------------------------- */

static void h_add(EVP_MD_CTX *c, const void *p, size_t n)
{
	if (!EVP_DigestUpdate(c, p, n))
		die("SHA-256 failed");
}

/* The encoding is built in a buffer (one hash update per row: a sample is 60-odd bytes,
 * and an update per field cost more than the reading). */
static void e_i64(struct sbuf *b, int64_t v)
{
	unsigned char x[8];
	uint64_t u = (uint64_t)v;
	for (int i = 0; i < 8; i++)
		x[i] = (unsigned char)(u >> (8 * i));
	sbuf_add(b, x, 8);
}

/* A string: its byte count (8 bytes, little-endian), then its bytes. */
static void e_bytes(struct sbuf *b, const void *p, size_t n)
{
	e_i64(b, (int64_t)n);
	sbuf_add(b, p, n);
}

static void e_str(struct sbuf *b, const char *s)
{
	e_bytes(b, s ? s : "", s ? strlen(s) : 0);
}

/* Hash what b holds, and empty it. */
static void h_flush(EVP_MD_CTX *c, struct sbuf *b)
{
	h_add(c, b->buf, b->len);
	sbuf_reset(b);
}

static int64_t field_i64(const struct field *f, const void *row)
{
	const char *p = (const char *)row + f->offset;
	switch (f->kind) {
	case K_I64: return *(const int64_t *)p;
	case K_I32: return *(const int32_t *)p;
	case K_FLAG: return *(const int *)p;
	default: return 0;
	}
}

static const struct field *field_named(const struct table *tb, const char *name)
{
	for (size_t k = 0; k < tb->nfields; k++)
		if (!strcmp(tb->fields[k].name, name))
			return &tb->fields[k];
	return NULL;
}

/* How a table's rows are encoded, worked out once per table (not per row): its fields in
 * order with what each is, and its reference fields. */
enum { R_VALUE, R_SKIP, R_TRIAL, R_UNLESS_ABSENT };
struct row_plan {
	const struct table *tb;
	size_t n;
	struct {
		enum field_kind kind;
		size_t off;
		int role;
		int64_t absent; /* R_UNLESS_ABSENT: the value left out */
	} f[REC_MAX_FIELDS];
	const struct field *fu, *fc, *ft; /* unit, cell, trial (NULL: none) */
};

static const struct row_plan *plan_of(const struct table *tb)
{
	static struct row_plan plans[18];
	struct row_plan *p = &plans[tb->slot < ARRAY_SIZE(plans) ? tb->slot : 0];
	if (p->tb == tb)
		return p;
	memset(p, 0, sizeof(*p));
	p->tb = tb;
	p->fu = field_named(tb, "unit");
	p->fc = field_named(tb, "cell");
	p->ft = tb == &rec_t_trial_samples ? field_named(tb, "trial") : NULL;
	for (size_t k = 0; k < tb->nfields; k++) {
		const struct field *f = &tb->fields[k];
		int role = R_VALUE;
		if (tb != &rec_t_units && (f == p->fu || f == p->fc))
			role = R_SKIP;
		else if (f == p->ft)
			role = R_TRIAL;
		else if (f->optional == 2 && f->kind == K_I64)
			role = R_UNLESS_ABSENT;
		p->f[p->n].absent = f->absent;
		p->f[p->n].kind = f->kind;
		p->f[p->n].off = f->offset;
		p->f[p->n++].role = role;
	}
	return p;
}

/* One row: every field of its table in the table's order, but `unit` and `cell` (the part
 * says them), `trial` (given as trial, relative to the unit's first trial) and a field
 * added after files were sealed when it has its default (FD): integers as 8-byte
 * little-endian, floats as their IEEE 754 bits, strings by e_str. */
static void e_row(struct sbuf *b, const struct table *tb, const void *row, int64_t trial)
{
	const struct row_plan *pl = plan_of(tb);
	e_str(b, tb->name);
	for (size_t k = 0; k < pl->n; k++) {
		const char *p = (const char *)row + pl->f[k].off;
		if (pl->f[k].role == R_SKIP)
			continue;
		if (pl->f[k].role == R_TRIAL) {
			e_i64(b, trial);
			continue;
		}
		if (pl->f[k].role == R_UNLESS_ABSENT && *(const int64_t *)p == pl->f[k].absent)
			continue;
		switch (pl->f[k].kind) {
		case K_F64: {
			uint64_t u;
			memcpy(&u, p, 8);
			e_i64(b, (int64_t)u);
			break;
		}
		case K_STR: e_str(b, *(char *const *)p); break;
		case K_FIX: e_str(b, p); break;
		case K_I64: e_i64(b, *(const int64_t *)p); break;
		case K_I32: e_i64(b, *(const int32_t *)p); break;
		case K_FLAG: e_i64(b, *(const int *)p); break;
		}
	}
}

/* ---- the parts -------------------------------------------------------------------------- */

struct part {
	int64_t unit, cell;
	EVP_MD_CTX *c;
	char hex[65];
};

struct parts {
	struct part *p;
	size_t n, cap;
	struct hashindex ix; /* (unit, cell) -> index into p */
};

static uint64_t part_hash(int64_t u, int64_t c)
{
	return hashindex_mix((uint64_t)u * 0x9e3779b97f4a7c15ULL ^ (uint64_t)c);
}

static EVP_MD_CTX *part_get(struct parts *x, int64_t u, int64_t c)
{
	uint64_t h = part_hash(u, c);
	size_t mask = x->ix.cap ? x->ix.cap - 1 : 0;
	for (size_t i = h & mask; x->ix.cap && x->ix.slot[i]; i = (i + 1) & mask) {
		struct part *p = &x->p[x->ix.slot[i] - 1];
		if (x->ix.hash[i] == h && p->unit == u && p->cell == c)
			return p->c;
	}
	XGROW(x->p, x->cap, x->n + 1);
	struct part *p = &x->p[x->n];
	p->unit = u;
	p->cell = c;
	p->hex[0] = '\0';
	p->c = EVP_MD_CTX_new();
	if (!p->c || !EVP_DigestInit_ex(p->c, EVP_sha256(), NULL))
		die("SHA-256 failed");
	hashindex_add(&x->ix, h, x->n++);
	return p->c;
}

static void parts_release(struct parts *x)
{
	for (size_t i = 0; i < x->n; i++)
		EVP_MD_CTX_free(x->p[i].c);
	free(x->p);
	hashindex_release(&x->ix);
	memset(x, 0, sizeof(*x));
}

static int cmp_part(const void *a, const void *b)
{
	const struct part *x = a, *y = b;
	if (x->unit != y->unit)
		return (x->unit > y->unit) - (x->unit < y->unit);
	return (x->cell > y->cell) - (x->cell < y->cell);
}

static void finish_hex(EVP_MD_CTX *c, char hex[65], unsigned char raw[32])
{
	unsigned n = 0;
	if (!EVP_DigestFinal_ex(c, raw, &n) || n != 32)
		die("SHA-256 failed");
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
}

/* Whether table tb is read in chunks: it has no string that could be stored long (and the
 * biggest tables, /samples and /trial_samples, have none), so a chunk reads alone. */
static int streamed(const struct table *tb)
{
	for (size_t k = 0; k < tb->nfields; k++)
		if (tb->fields[k].kind == K_STR)
			return 0;
	return 1;
}

#define SEAL_CHUNK 65536 /* rows of a streamed table read at a time */

/* What the digests are computed from: the file's content, read as any reader reads it;
 * the streamed tables are read while hashing (rows[k] NULL). */
struct content {
	struct rec_meta meta;
	void *rows[ARRAY_SIZE(part_tables)];
	size_t nrows[ARRAY_SIZE(part_tables)];
	struct unit_row *units;
	size_t nunits;
	struct rec_cell *cells;
	size_t ncells;
	struct rec_plan *plan;
	size_t nplan;
};

static void content_release(struct content *t)
{
	rec_meta_release(&t->meta);
	for (size_t k = 0; k < ARRAY_SIZE(part_tables); k++)
		if (t->rows[k])
			rec_free_rows(part_tables[k], t->rows[k], t->nrows[k]);
	if (t->units)
		rec_free_rows(&rec_t_units, t->units, t->nunits);
	rec_cells_free(t->cells, t->ncells);
	rec_plan_free(t->plan, t->nplan);
	memset(t, 0, sizeof(*t));
}

static int content_read(struct rec *r, struct content *t)
{
	memset(t, 0, sizeof(*t));
	rec_meta_init(&t->meta);
	if (rec_read_meta(r, &t->meta) < 0 ||
	    rec_read_all(r, &rec_t_units, (void **)&t->units, &t->nunits) < 0 ||
	    rec_read_all(r, &rec_t_cells, (void **)&t->cells, &t->ncells) < 0 ||
	    rec_read_all(r, &rec_t_plan, (void **)&t->plan, &t->nplan) < 0)
		return -1;
	for (size_t k = 0; k < ARRAY_SIZE(part_tables); k++)
		if (!streamed(part_tables[k]) &&
		    rec_read_all(r, part_tables[k], &t->rows[k], &t->nrows[k]) < 0)
			return -1;
	return 0;
}

/* Where the rows of the per-unit tables go: each to its (unit, cell) part. */
struct feed {
	const char *path;
	const struct content *t;
	struct parts *x;
	struct sbuf b;
	const int64_t *first_trial; /* per unit: its first row of /trials, or -1 */
	const struct rec_trial *trial_rows; /* borrowed: /trials */
	size_t ntrials;
};

/* Row i of table tb into its part.  Reports and returns -1 on a reference out of range. */
static int feed_row(struct feed *fd, const struct table *tb, const char *row, size_t i)
{
	const struct row_plan *pl = plan_of(tb);
	int64_t u = field_i64(pl->fu, row), c = -1, trial = 0;
	if (u < 0 || (size_t)u >= fd->t->nunits)
		return error("'%s': %s row %zu names unit %" PRId64 " of %zu", fd->path, tb->name,
			     i, u, fd->t->nunits);
	if (tb == &rec_t_trial_samples) {
		int64_t tr = field_i64(pl->ft, row);
		if (tr < 0 || (size_t)tr >= fd->ntrials || fd->first_trial[u] < 0 ||
		    tr < fd->first_trial[u])
			return error("'%s': %s row %zu names trial %" PRId64, fd->path, tb->name, i,
				     tr);
		c = fd->trial_rows[tr].cell;
		trial = tr - fd->first_trial[u];
	} else {
		c = field_i64(pl->fc, row);
	}
	if (c < 0 || (size_t)c >= fd->t->ncells)
		return error("'%s': %s row %zu names cell %" PRId64 " of %zu", fd->path, tb->name,
			     i, c, fd->t->ncells);
	e_row(&fd->b, tb, row, trial);
	h_flush(part_get(fd->x, u, c), &fd->b);
	return 0;
}

/* Table tb of r, read SEAL_CHUNK rows at a time, into its parts.  -1 reported. */
static int feed_streamed(struct feed *fd, struct rec *r, const struct table *tb)
{
	size_t count = 0;
	int rc = -1;
	hid_t d = rec_table_open(r, tb);
	if (d < 0 || rec_table_rows(r, d, tb, &count) < 0)
		goto done;
	if (count > r->max_bytes / tb->row_size) {
		error("'%s': cannot read %s: it claims %zu rows, more than the file can hold",
		      r->path, tb->name, count);
		goto done;
	}
	char *buf = xmalloc(SEAL_CHUNK * tb->row_size);
	rc = 0;
	for (size_t first = 0; rc == 0 && first < count; first += SEAL_CHUNK) {
		size_t n = count - first < SEAL_CHUNK ? count - first : SEAL_CHUNK;
		rc = rec_table_read(r, d, tb, tb, first, n, buf);
		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = feed_row(fd, tb, buf + i * tb->row_size, first + i);
	}
	free(buf);
done:
	rec_h5_close(d);
	return rc;
}

/* The parts of t (and the streamed tables of r), sorted by (unit, cell), each with its hex
 * digest; and the record digest.  Reports and returns -1 on a reference out of range or a
 * table that cannot be read. */
static int seal_compute(struct rec *r, const struct content *t, struct parts *x,
			char record[65])
{
	size_t kt = 0;
	for (size_t k = 0; k < ARRAY_SIZE(part_tables); k++)
		if (part_tables[k] == &rec_t_trials)
			kt = k;
	const struct trial_row *trials = t->rows[kt];
	/* each unit's first row of /trials, and each trial's cell */
	int64_t *first_trial = xcalloc(t->nunits + 1, sizeof(*first_trial));
	struct rec_trial *trial_rows = xcalloc(t->nrows[kt] + 1, sizeof(*trial_rows));
	for (size_t u = 0; u <= t->nunits; u++)
		first_trial[u] = -1;
	for (size_t i = t->nrows[kt]; i-- > 0;) {
		trial_rows[i].cell = trials[i].t.cell;
		if (trials[i].unit >= 0 && (size_t)trials[i].unit < t->nunits)
			first_trial[trials[i].unit] = (int64_t)i;
	}
	struct feed fd = { r->path, t, x, { 0 }, first_trial, trial_rows, t->nrows[kt] };
	sbuf_init(&fd.b);
	int rc = -1;
	for (size_t u = 0; u < t->nunits; u++) {
		e_row(&fd.b, &rec_t_units, &t->units[u], 0);
		h_flush(part_get(x, (int64_t)u, -1), &fd.b);
	}
	for (size_t k = 0; k < ARRAY_SIZE(part_tables); k++) {
		const struct table *tb = part_tables[k];
		if (streamed(tb)) {
			if (feed_streamed(&fd, r, tb) < 0)
				goto done;
			continue;
		}
		for (size_t i = 0; i < t->nrows[k]; i++)
			if (feed_row(&fd, tb, (const char *)t->rows[k] + i * tb->row_size, i) < 0)
				goto done;
	}
	if (x->n) /* a run's file before its first unit has no parts, and no array for qsort */
		qsort(x->p, x->n, sizeof(*x->p), cmp_part);
	hashindex_release(&x->ix); /* the order changed: no lookups from here */
	memset(&x->ix, 0, sizeof(x->ix));

	EVP_MD_CTX *rd = EVP_MD_CTX_new();
	if (!rd || !EVP_DigestInit_ex(rd, EVP_sha256(), NULL))
		die("SHA-256 failed");
	struct sbuf *b = &fd.b;
	e_str(b, "harness-record-digest 1");
	for (size_t k = 0; k < t->meta.nkv; k++) {
		e_str(b, "meta");
		e_str(b, t->meta.kv[k].key);
		e_str(b, t->meta.kv[k].value);
		h_flush(rd, b);
	}
	for (size_t k = 0; k < t->meta.nfiles; k++) {
		const struct rec_file *f = &t->meta.files[k];
		e_str(b, "file");
		e_str(b, f->role);
		e_str(b, f->path);
		e_str(b, f->sha256);
		e_bytes(b, f->text ? f->text : "", f->len);
		h_flush(rd, b);
	}
	for (size_t i = 0; i < t->nplan; i++) {
		e_row(b, &rec_t_plan, &t->plan[i], 0);
		h_flush(rd, b);
	}
	for (size_t i = 0; i < t->ncells; i++) {
		e_row(b, &rec_t_cells, &t->cells[i], 0);
		h_flush(rd, b);
	}
	for (size_t i = 0; i < x->n; i++) {
		unsigned char raw[32];
		finish_hex(x->p[i].c, x->p[i].hex, raw);
		e_str(b, "part");
		e_i64(b, x->p[i].unit);
		e_i64(b, x->p[i].cell);
		sbuf_add(b, raw, 32);
		h_flush(rd, b);
	}
	unsigned char raw[32];
	finish_hex(rd, record, raw);
	EVP_MD_CTX_free(rd);
	rc = 0;
done:
	sbuf_release(&fd.b);
	free(trial_rows);
	free(first_trial);
	return rc;
}

/* ---- writing ---------------------------------------------------------------------------- */

int rec_seal_write(hid_t file, const char *path, int compress)
{
	struct rec r = { .path = (char *)path, .file = file, .version = REC_FORMAT_VERSION,
			 .max_bytes = UINT64_MAX / 2, .file_bytes = UINT64_MAX / 2 };
	struct content t;
	struct parts x = { 0 };
	char record[65];
	int rc = -1;
	if (content_read(&r, &t) < 0 || seal_compute(&r, &t, &x, record) < 0)
		goto done;
	struct digest_row *rows = xcalloc(x.n ? x.n : 1, sizeof(*rows));
	for (size_t i = 0; i < x.n; i++)
		rows[i] = (struct digest_row){ x.p[i].unit, x.p[i].cell, x.p[i].hex };
	struct rec_widths w;
	rec_widths_init(&rec_t_digests, &w);
	rec_widths_add(&rec_t_digests, &w, rows, x.n);
	hid_t d = rec_table_make(file, path, &rec_t_digests, &w, x.n, compress);
	rc = d < 0 ? -1 : rec_table_put(d, path, &rec_t_digests, &w, rows, 0, x.n, NULL);
	if (d >= 0 && H5Dclose(d) < 0)
		rc = rec_h5_error(path, "cannot write %s", rec_t_digests.name);
	free(rows);
	if (rc == 0 && rec_attr_set_string(file, RECORD_ATTR, record) < 0)
		rc = rec_h5_error(path, "cannot write the attribute %s", RECORD_ATTR);
done:
	parts_release(&x);
	content_release(&t);
	return rc;
}

/* ---- checking --------------------------------------------------------------------------- */

static void add_bad(struct rec_seal *s, const struct content *t, int64_t unit, int64_t cell,
		    const char *what)
{
	s->bad++;
	if (s->nshown >= REC_SEAL_SHOWN)
		return;
	struct sbuf b;
	sbuf_init(&b);
	if (unit >= 0 && (size_t)unit < t->nunits) {
		const struct rec_unit *u = &t->units[unit].u;
		sbuf_addf(&b, "unit %" PRId64 " (mode '%s', block %" PRId64 "%s)", u->id, u->mode,
			  u->block, u->warm ? ", warm" : "");
	} else {
		sbuf_addf(&b, "unit row %" PRId64, unit);
	}
	if (cell >= 0 && (size_t)cell < t->ncells)
		sbuf_addf(&b, ", cell '%s'", t->cells[cell].name);
	else
		sbuf_adds(&b, ", its row of /units");
	sbuf_addf(&b, ": %s", what);
	s->shown[s->nshown++] = sbuf_detach(&b);
	if (unit >= 0 && (size_t)unit < t->nunits) {
		const char *m = t->units[unit].u.mode;
		int seen = 0;
		for (size_t i = 0; i < s->nmodes && !seen; i++)
			seen = !strcmp(s->modes[i], m);
		if (!seen && s->nmodes < REC_SEAL_SHOWN)
			s->modes[s->nmodes++] = xstrdup(m);
	}
}

int rec_seal_check(const char *path, struct rec_seal *s)
{
	memset(s, 0, sizeof(*s));
	struct rec *r = NULL;
	struct content t;
	struct parts x = { 0 };
	struct digest_row *stored = NULL;
	size_t nstored = 0;
	int rc = -1;
	memset(&t, 0, sizeof(t));
	rec_meta_init(&t.meta);
	if (rec_open(path, 0, &r) < 0)
		goto done;
	if (rec_format_version(r) < 2) {
		rc = 0; /* version 1: from before the digests */
		goto done;
	}
	htri_t e = H5Lexists(r->file, rec_t_digests.name + 1, H5P_DEFAULT);
	H5Eclear2(H5E_DEFAULT);
	if (content_read(r, &t) < 0 || seal_compute(r, &t, &x, s->record) < 0)
		goto done;
	s->parts = x.n;
	if (e <= 0) {
		rc = 0; /* from before the digests (2026-11-30), or they were removed */
		goto done;
	}
	s->sealed = 1;
	hid_t a = H5Aexists(r->file, RECORD_ATTR) > 0 ? H5Aopen(r->file, RECORD_ATTR, H5P_DEFAULT)
						       : -1;
	char *rec_hex = NULL;
	if (a < 0 || rec_attr_get_string(a, 0, &rec_hex) < 0)
		rec_hex = xstrdup("");
	rec_h5_close(a);
	H5Eclear2(H5E_DEFAULT);
	snprintf(s->stored, sizeof(s->stored), "%s", rec_hex);
	free(rec_hex);
	if (rec_read_all(r, &rec_t_digests, (void **)&stored, &nstored) < 0)
		goto done;
	/* both lists sorted by (unit, cell): the writer wrote them so; a reordered table is
	 * an alteration too */
	size_t i = 0, j = 0;
	while (i < x.n || j < nstored) {
		int cmp = i == x.n ? 1 : j == nstored ? -1
				: x.p[i].unit != stored[j].unit
					? (x.p[i].unit > stored[j].unit) - (x.p[i].unit < stored[j].unit)
					: (x.p[i].cell > stored[j].cell) - (x.p[i].cell < stored[j].cell);
		if (cmp < 0) {
			add_bad(s, &t, x.p[i].unit, x.p[i].cell, "rows the recorded digests do not "
				"cover (added after the file was written)");
			i++;
		} else if (cmp > 0) {
			add_bad(s, &t, stored[j].unit, stored[j].cell, "its rows are gone (a recorded "
				"digest covers none)");
			j++;
		} else {
			if (strcmp(x.p[i].hex, stored[j].sha256 ? stored[j].sha256 : ""))
				add_bad(s, &t, x.p[i].unit, x.p[i].cell, "its rows differ from their "
					"recorded SHA-256 (changed after the file was written)");
			i++;
			j++;
		}
	}
	if (strcmp(s->record, s->stored))
		s->record_differs = 1;
	rc = 0;
done:
	if (stored)
		rec_free_rows(&rec_t_digests, stored, nstored);
	parts_release(&x);
	content_release(&t);
	if (r && rec_close(r) < 0)
		rc = -1;
	return rc;
}

void rec_seal_release(struct rec_seal *s)
{
	for (size_t i = 0; i < s->nshown; i++)
		free(s->shown[i]);
	for (size_t i = 0; i < s->nmodes; i++)
		free(s->modes[i]);
	memset(s, 0, sizeof(*s));
}

int rec_seal_altered(const struct rec_seal *s)
{
	return s->sealed && (s->bad || s->record_differs);
}
