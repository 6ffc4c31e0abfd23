/* csvimport.c: raw timings from a CSV file (libcsv) into memory, checked row by row
 * (csvimport-write.c writes them out as a results file; hashindex.c is the index
 * the reader files modes, cells and units in) */
#include "config.h"
#include "harness/record/csvimport.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csv.h>

#include "harness/base/util.h"
#include "harness/base/hashindex.h"
#include "harness/record/exportset.h"

/* The columns a file may have (docs/import-format.md).  'repeat' and 'block' both land in
 * COL_BLOCK, which remembers the name the header used: 'block' says units of the same
 * number were run together and are paired, 'repeat' only numbers each mode's units. */
enum col { COL_CELL, COL_MODE, COL_BLOCK, COL_VALUE, COL_UNIT, COL_SETUP, COL_BASELINE, COL_KIND,
	   COL_COUNT, NCOLS };

static const struct {
	const char *name;
	enum col col;
} known_cols[] = {
	{ "cell", COL_CELL },   { "mode", COL_MODE },   { "block", COL_BLOCK },
	{ "repeat", COL_BLOCK }, { "value", COL_VALUE }, { "unit", COL_UNIT },
	{ "setup", COL_SETUP }, { "baseline", COL_BASELINE }, { "kind", COL_KIND },
	{ "count", COL_COUNT },
};

static const struct {
	const char *name;
	int64_t ns;
} time_units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };

int64_t csvimport_unit_ns(const char *unit)
{
	for (size_t i = 0; unit && i < ARRAY_SIZE(time_units); i++)
		if (!strcmp(unit, time_units[i].name))
			return time_units[i].ns;
	return 0;
}

/* ---- the reader: libcsv's callbacks assemble rows, take_row() checks and files them ------ */

struct reader {
	struct csvimport *imp;
	int64_t opt_unit_ns;     /* from opts->unit, or 0 */
	const char *opt_unit;
	struct csv_parser parser;
	/* the row being assembled: fields NUL-separated in buf, starting at off[i] */
	struct sbuf buf;
	size_t *off;
	size_t nfields, off_cap;
	size_t line;             /* the physical line now being fed to the parser, 1-based */
	size_t row_line;         /* the line the row being assembled started on */
	int need_start;          /* 1: the next non-blank line starts a row */
	int failed;              /* an error was reported: ignore further callbacks */
	int have_header;
	size_t ncols;            /* the header's columns */
	int col[NCOLS];          /* field index of each known column, or -1 */
	const char *colname[NCOLS]; /* the name the header used ('block' or 'repeat') */
	size_t baseline_line;    /* the row that made a mode the baseline, or 0 */
	int unit_used[ARRAY_SIZE(time_units)]; /* order of first use, 1-based; 0: unused */
	int nunits_used;
	struct hashindex mode_ix, cell_ix, unit_ix;
	size_t modes_cap, cells_cap, units_cap; /* of imp's arrays (grown by doubling) */
	/* the bytes as they come (feed_bytes): a line not yet ended, where its end was last
	 * looked for, the hash and size of everything fed, and the copy kept for the results
	 * file while the file is at most CSVIMPORT_KEEP_MAX */
	struct sbuf pend;
	size_t scan;
	struct util_sha256 *h;
	uint64_t fed;
	struct sbuf keep;
	int keeping;
};

/* Report an error in the current row's column c: "'path':LINE: column 'NAME': ...". */
static int row_error(struct reader *r, enum col c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int row_error(struct reader *r, enum col c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	error("'%s':%zu: column '%s': %s", r->imp->path, r->row_line, r->colname[c], msg);
	free(msg);
	r->failed = 1;
	return -1;
}

/* Report an error about the current row (or the header) as a whole. */
static int line_error(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int line_error(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	error("'%s':%zu: %s", r->imp->path, r->row_line, msg);
	free(msg);
	r->failed = 1;
	return -1;
}

/* The current row's field in column c, or NULL when the file has no such column. */
static const char *field(const struct reader *r, enum col c)
{
	return r->col[c] < 0 ? NULL : r->buf.buf + r->off[r->col[c]];
}

/* libcsv's field callback: append the field to the row being assembled. */
static void on_field(void *s, size_t len, void *data)
{
	struct reader *r = data;
	if (r->failed)
		return;
	XGROW(r->off, r->off_cap, r->nfields + 1);
	r->off[r->nfields++] = r->buf.len;
	sbuf_add(&r->buf, s ? s : "", s ? len : 0);
	sbuf_add(&r->buf, "", 1); /* the NUL that ends this field */
}

/* The header: map each column to a known one; every required column present once. */
static int take_header(struct reader *r)
{
	for (size_t c = 0; c < NCOLS; c++)
		r->col[c] = -1;
	for (size_t i = 0; i < ARRAY_SIZE(known_cols); i++)
		if (!r->colname[known_cols[i].col])
			r->colname[known_cols[i].col] = known_cols[i].name;
	r->ncols = r->nfields;
	for (size_t i = 0; i < r->nfields; i++) {
		const char *name = r->buf.buf + r->off[i];
		size_t k;
		if (!*name)
			return line_error(r, "column %zu has no name", i + 1);
		for (k = 0; k < ARRAY_SIZE(known_cols) && strcmp(known_cols[k].name, name); k++)
			;
		if (k == ARRAY_SIZE(known_cols)) {
			struct sbuf known;
			const char *best = NULL;
			size_t bestd = 3;
			sbuf_init(&known);
			for (k = 0; k < ARRAY_SIZE(known_cols); k++) {
				size_t d = util_edit_distance(name, known_cols[k].name);
				if (d < bestd) {
					bestd = d;
					best = known_cols[k].name;
				}
				sbuf_addf(&known, "%s%s", k ? ", " : "", known_cols[k].name);
			}
			if (best)
				line_error(r, "unknown column '%s' (did you mean '%s'?); known columns: %s",
					   name, best, known.buf);
			else
				line_error(r, "unknown column '%s'; known columns: %s", name, known.buf);
			sbuf_release(&known);
			return -1;
		}
		enum col c = known_cols[k].col;
		if (r->col[c] >= 0) {
			const char *prev = r->buf.buf + r->off[r->col[c]];
			if (strcmp(prev, name))
				return line_error(r, "columns '%s' and '%s' are synonyms; give one of them",
						  prev, name);
			return line_error(r, "column '%s' appears twice", name);
		}
		r->col[c] = (int)i;
		r->colname[c] = known_cols[k].name;
	}
	static const enum col required[] = { COL_CELL, COL_MODE, COL_BLOCK, COL_VALUE };
	for (size_t i = 0; i < ARRAY_SIZE(required); i++) {
		enum col c = required[i];
		if (r->col[c] >= 0)
			continue;
		if (c == COL_BLOCK)
			return line_error(r, "missing column 'block' (or its synonym 'repeat')");
		return line_error(r, "missing column '%s'", r->colname[c]);
	}
	r->imp->paired = !strcmp(r->colname[COL_BLOCK], "block");
	if (r->col[COL_UNIT] < 0 && !r->opt_unit)
		return line_error(r, "no column 'unit' and no --unit: say which time unit the "
				  "values are in (ns, us, ms or s)");
	if (r->col[COL_UNIT] >= 0 && r->opt_unit)
		return line_error(r, "both a column 'unit' and --unit '%s' give the time unit; give "
				  "one of the two", r->opt_unit);
	r->have_header = 1;
	return 0;
}

/* 1 when s is a plain decimal number as docs/import-format.md defines it: an optional '-',
 * digits with an optional fraction (or a fraction alone), an optional exponent
 * (38.5, .5, 3.85e1, -2).  strtod also takes hexadecimal (0x10, 0x1p3), "inf", "nan",
 * a leading '+' and leading blanks: none of those is a decimal value, so they are refused
 * rather than silently read. */
static int is_decimal(const char *s)
{
	size_t digits = 0;
	if (*s == '-')
		s++;
	for (; '0' <= *s && *s <= '9'; s++)
		digits++;
	if (*s == '.')
		for (s++; '0' <= *s && *s <= '9'; s++)
			digits++;
	if (!digits)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!('0' <= *s && *s <= '9'))
			return 0;
		while ('0' <= *s && *s <= '9')
			s++;
	}
	return *s == '\0';
}

/* 1 when s is digits only (a block or repeat number: no sign, no blanks, no hex). */
static int is_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!('0' <= *s && *s <= '9'))
			return 0;
	return 1;
}

/* A time in column c, given in the unit named unit (scale ns each), as integer ns rounded
 * to the nearest (halfway cases away from zero, llround).  Samples must be positive and
 * not round to 0 ns; setup times may be 0. */
static int take_time(struct reader *r, enum col c, const char *unit, int64_t scale, int positive,
		     int64_t *ns)
{
	const char *s = field(r, c);
	char *end;
	if (!*s)
		return row_error(r, c, "empty");
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end)
		return row_error(r, c, "'%s' is not a number", s);
	if (isnan(v) || (isinf(v) && errno != ERANGE)) /* "nan", "inf": not an overflow */
		return row_error(r, c, "'%s' is not finite", s);
	if (!is_decimal(s))
		return row_error(r, c, "'%s' is not a decimal number (digits, an optional fraction "
				 "and exponent: 38.5, 3.85e1)", s);
	if (positive && !(v > 0))
		return row_error(r, c, "'%s' is not positive", s);
	if (v < 0)
		return row_error(r, c, "'%s' is negative", s);
	double x = v * (double)scale;
	if (!(x < 0x1p63))
		return row_error(r, c, "'%s' %s is too large (2^63 ns or more)", s, unit);
	*ns = llround(x);
	if (positive && *ns == 0)
		return row_error(r, c, "'%s' %s rounds to 0 ns", s, unit);
	return 0;
}

/* The mode named name: its index, added when new. */
static size_t take_mode(struct reader *r, const char *name)
{
	struct csvimport *imp = r->imp;
	uint64_t h = hashindex_str(name, HASHINDEX_SEED);
	for (size_t i = r->mode_ix.cap ? h & (r->mode_ix.cap - 1) : 0; r->mode_ix.cap;
	     i = (i + 1) & (r->mode_ix.cap - 1)) {
		size_t s = r->mode_ix.slot[i];
		if (!s)
			break;
		if (r->mode_ix.hash[i] == h && !strcmp(imp->modes[s - 1], name))
			return s - 1;
	}
	XGROW(imp->modes, r->modes_cap, imp->nmodes + 1);
	imp->modes[imp->nmodes] = xstrdup(name);
	hashindex_add(&r->mode_ix, h, imp->nmodes);
	return imp->nmodes++;
}

/* The cell named name: its index, added when new, or -1 (reported) when its kind
 * contradicts an earlier row's. */
static int64_t take_cell(struct reader *r, const char *name, const char *kind)
{
	struct csvimport *imp = r->imp;
	uint64_t h = hashindex_str(name, HASHINDEX_SEED);
	for (size_t i = r->cell_ix.cap ? h & (r->cell_ix.cap - 1) : 0; r->cell_ix.cap;
	     i = (i + 1) & (r->cell_ix.cap - 1)) {
		size_t s = r->cell_ix.slot[i];
		if (!s)
			break;
		if (r->cell_ix.hash[i] != h || strcmp(imp->cells[s - 1].name, name))
			continue;
		const struct csvimport_cell *cell = &imp->cells[s - 1];
		if (strcmp(cell->kind, kind))
			return row_error(r, COL_KIND, "cell '%s' is %s here but %s on line %zu", name,
					 kind, cell->kind, cell->line);
		return (int64_t)(s - 1);
	}
	XGROW(imp->cells, r->cells_cap, imp->ncells + 1);
	imp->cells[imp->ncells] = (struct csvimport_cell){ .name = xstrdup(name), .kind = kind,
							   .line = r->row_line, .count = 1 };
	hashindex_add(&r->cell_ix, h, imp->ncells);
	return (int64_t)imp->ncells++;
}

/* The row's 'count' (occurrences of the cell in one forward of its workload), when the file
 * has the column and the row gives one: a positive integer in decimal digits, the same on
 * every row of the cell that gives one (docs/import-format.md). */
static int take_count(struct reader *r, struct csvimport_cell *cell)
{
	const char *s = field(r, COL_COUNT);
	int64_t n;
	if (!s || !*s)
		return 0;
	if (!is_digits(s) || parse_i64(s, 1, INT64_MAX, &n))
		return row_error(r, COL_COUNT, "'%s' is not a positive integer (occurrences of the "
				 "cell in one forward)", s);
	if (cell->count_line && cell->count != n)
		return row_error(r, COL_COUNT, "%" PRId64 " differs from %" PRId64 " on line %zu "
				 "(cell '%s': one count per cell)", n, cell->count,
				 cell->count_line, cell->name);
	cell->count = n;
	if (!cell->count_line)
		cell->count_line = r->row_line;
	return 0;
}

/* The unit (mode, block): its index, added when new. */
static size_t take_unit(struct reader *r, size_t mode, int64_t block, int64_t setup_ns)
{
	struct csvimport *imp = r->imp;
	uint64_t h = hashindex_mix(hashindex_mix(mode) ^ (uint64_t)block);
	for (size_t i = r->unit_ix.cap ? h & (r->unit_ix.cap - 1) : 0; r->unit_ix.cap;
	     i = (i + 1) & (r->unit_ix.cap - 1)) {
		size_t s = r->unit_ix.slot[i];
		if (!s)
			break;
		const struct csvimport_unit *u = &imp->units[s - 1];
		if (r->unit_ix.hash[i] == h && u->mode == mode && u->block == block)
			return s - 1;
	}
	XGROW(imp->units, r->units_cap, imp->nunits + 1);
	imp->units[imp->nunits] = (struct csvimport_unit){
		.mode = mode, .block = block, .setup_ns = setup_ns, .line = r->row_line
	};
	hashindex_add(&r->unit_ix, h, imp->nunits);
	return imp->nunits++;
}

/* A data row: check every field, then file its sample under its unit and cell. */
static int take_row(struct reader *r)
{
	struct csvimport *imp = r->imp;
	if (r->nfields != r->ncols)
		return line_error(r, "%zu field%s, but the header has %zu column%s", r->nfields,
				  r->nfields == 1 ? "" : "s", r->ncols, r->ncols == 1 ? "" : "s");
	const char *cell = field(r, COL_CELL), *mode = field(r, COL_MODE);
	if (!*cell)
		return row_error(r, COL_CELL, "empty");
	if (!*mode)
		return row_error(r, COL_MODE, "empty");
	int64_t block;
	if (!*field(r, COL_BLOCK))
		return row_error(r, COL_BLOCK, "empty");
	if (!is_digits(field(r, COL_BLOCK)) || parse_i64(field(r, COL_BLOCK), 0, INT64_MAX, &block))
		return row_error(r, COL_BLOCK, "'%s' is not a non-negative integer",
				 field(r, COL_BLOCK));

	const char *unit = r->opt_unit;
	int64_t scale = r->opt_unit_ns;
	if (r->col[COL_UNIT] >= 0) {
		unit = field(r, COL_UNIT);
		scale = csvimport_unit_ns(unit);
		if (!*unit)
			return row_error(r, COL_UNIT, "empty");
		if (!scale)
			return row_error(r, COL_UNIT, "'%s' is not a time unit (ns, us, ms or s)", unit);
	}
	for (size_t k = 0; k < ARRAY_SIZE(time_units); k++)
		if (scale == time_units[k].ns && !r->unit_used[k])
			r->unit_used[k] = ++r->nunits_used;

	int64_t ns, setup_ns = 0;
	if (take_time(r, COL_VALUE, unit, scale, 1, &ns))
		return -1;
	if (r->col[COL_SETUP] >= 0 && take_time(r, COL_SETUP, unit, scale, 0, &setup_ns))
		return -1;

	const char *kind = strlen(cell) >= 4 && !strcmp(cell + strlen(cell) - 4, "/e2e") ? "e2e"
											   : "op";
	const char *k = field(r, COL_KIND);
	if (k && !strcmp(k, "op"))
		kind = "op";
	else if (k && !strcmp(k, "e2e"))
		kind = "e2e";
	else if (k && *k)
		return row_error(r, COL_KIND, "'%s' is not op or e2e", k);

	int is_baseline = 0;
	const char *b = field(r, COL_BASELINE);
	if (b && !strcasecmp(b, "true"))
		is_baseline = 1;
	else if (b && *b && strcasecmp(b, "false"))
		return row_error(r, COL_BASELINE, "'%s' is not true or false", b);

	size_t m = take_mode(r, mode);
	if (is_baseline && r->baseline_line && imp->baseline != m)
		return row_error(r, COL_BASELINE, "mode '%s' cannot be the baseline too: line %zu made "
				 "mode '%s' the baseline", mode, r->baseline_line,
				 imp->modes[imp->baseline]);
	if (is_baseline && !r->baseline_line) {
		imp->baseline = m;
		r->baseline_line = r->row_line;
	}
	int64_t c = take_cell(r, cell, kind);
	if (c < 0 || take_count(r, &imp->cells[c]))
		return -1;
	size_t ui = take_unit(r, m, block, setup_ns);
	struct csvimport_unit *u = &imp->units[ui];
	if (u->setup_ns != setup_ns)
		return row_error(r, COL_SETUP, "%" PRId64 " ns differs from %" PRId64 " ns on line "
				 "%zu (mode '%s', block %" PRId64 ": one setup time per unit)",
				 setup_ns, u->setup_ns, u->line, mode, block);
	size_t cap = u->samples_cap;
	XGROW(u->sample_cell, u->samples_cap, u->nsamples + 1);
	if (u->samples_cap != cap)
		u->sample_ns = xrealloc(u->sample_ns, u->samples_cap * sizeof(*u->sample_ns));
	u->sample_cell[u->nsamples] = c;
	u->sample_ns[u->nsamples] = ns;
	u->nsamples++;
	imp->nrows++;
	return 0;
}

/* libcsv's end-of-row callback: the first row is the header, every later one data. */
static void on_row(int term, void *data)
{
	struct reader *r = data;
	if (!r->failed) {
		if (!r->have_header)
			take_header(r);
		else
			take_row(r);
	}
	r->nfields = 0;
	sbuf_reset(&r->buf);
	r->need_start = 1;
}

/* 1 when the line holds nothing libcsv would turn into a row (blanks and line ends). */
static int blank_line(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return 0;
	return 1;
}

struct block_id {
	int64_t block;
	size_t id;
};

/* qsort order for set_positions: by block, then by unit id. */
static int cmp_block_id(const void *a, const void *b)
{
	const struct block_id *x = a, *y = b;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Position of each unit within its block: order of first appearance there. */
static void set_positions(struct csvimport *imp)
{
	struct block_id *ord = xmalloc((imp->nunits ? imp->nunits : 1) * sizeof(*ord));
	for (size_t i = 0; i < imp->nunits; i++)
		ord[i] = (struct block_id){ imp->units[i].block, i };
	qsort(ord, imp->nunits, sizeof(*ord), cmp_block_id);
	for (size_t i = 0; i < imp->nunits; i++)
		imp->units[ord[i].id].position =
			i && ord[i - 1].block == ord[i].block ? imp->units[ord[i - 1].id].position + 1
							      : 0;
	free(ord);
}

/* One physical line (with its line end) to libcsv, so that every callback knows its line:
 * checked first for NUL bytes and UTF-8 (names become HDF5 strings and report rows: JSON,
 * HTML), refused at the line and character column of the first bad byte.  A UTF-8 byte
 * order mark (spreadsheets write one) at the start of the file is not part of the first
 * name.  0, or -1 reported. */
static int take_line(struct reader *r, const char *s, size_t n)
{
	const char *path = r->imp->path;
	r->line++;
	if (r->line == 1 && n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) {
		s += 3;
		n -= 3;
	}
	if (memchr(s, '\0', n))
		return error("'%s':%zu: a NUL byte (not a text file?)", path, r->line);
	size_t bad;
	if (!util_utf8_valid(s, n, &bad))
		return error("'%s':%zu:%zu: not valid UTF-8 (byte 0x%02x): the file must be UTF-8 "
			     "text", path, r->line, util_utf8_column(s, bad), (unsigned char)s[bad]);
	if (r->need_start && !blank_line(s, n)) {
		r->row_line = r->line;
		r->need_start = 0;
	}
	size_t got = csv_parse(&r->parser, s, n, on_field, on_row, r);
	if (r->failed)
		return -1;
	if (got != n) {
		if (csv_error(&r->parser) != CSV_EPARSE)
			die("libcsv: %s", csv_strerror(csv_error(&r->parser)));
		/* Strict mode stops at the offending byte: a quote inside an unquoted field, or
		 * something other than a delimiter after a closing quote. */
		if (s[got] == '"')
			return error("'%s':%zu:%zu: a quote inside an unquoted field (quote the whole "
				     "field and double the quote: \"a \"\"b\"\"\")", path, r->line,
				     got + 1);
		return error("'%s':%zu:%zu: text after the closing quote of a field", path, r->line,
			     got + 1);
	}
	return 0;
}

/* n more bytes of the file (final: the last, n may be 0): hashed, kept while the file is
 * small enough, and every line they complete (ended by LF, CR LF or a lone CR; the last
 * line may have no end) taken.  What is held is the line not yet ended, never the file: a
 * line longer than UTIL_INPUT_MAX is refused.  0, or -1 reported. */
static int feed_bytes(struct reader *r, const char *buf, size_t n, int final)
{
	util_sha256_add(r->h, buf, n);
	r->fed += n;
	if (r->keeping && r->fed <= CSVIMPORT_KEEP_MAX) {
		sbuf_add(&r->keep, buf, n);
	} else if (r->keeping) {
		r->keeping = 0;
		sbuf_release(&r->keep);
		sbuf_init(&r->keep);
	}
	sbuf_add(&r->pend, buf, n);
	const char *t = r->pend.buf;
	size_t len = r->pend.len, pos = 0, end = r->scan;
	while (pos < len && !r->failed) {
		while (end < len && t[end] != '\n' && t[end] != '\r')
			end++;
		if (end == len && !final)
			break; /* not ended yet */
		if (end < len && t[end] == '\r') {
			if (end + 1 == len && !final)
				break; /* a CR LF, or a lone CR? the next bytes say */
			if (end + 1 < len && t[end + 1] == '\n')
				end++;
		}
		if (end < len)
			end++;
		if (take_line(r, t + pos, end - pos))
			return -1;
		pos = end;
	}
	if (len - pos > UTIL_INPUT_MAX)
		return error("'%s':%zu: a line longer than %zu bytes", r->imp->path, r->line + 1,
			     UTIL_INPUT_MAX);
	memmove(r->pend.buf, r->pend.buf + pos, len - pos);
	r->pend.len = len - pos;
	r->pend.buf[r->pend.len] = '\0';
	r->scan = end - pos;
	if (!final)
		return 0;
	if (csv_fini(&r->parser, on_field, on_row, r) != 0) {
		if (csv_error(&r->parser) != CSV_EPARSE)
			die("libcsv: %s", csv_strerror(csv_error(&r->parser)));
		return error("'%s':%zu: a quoted field is never closed", r->imp->path, r->row_line);
	}
	return r->failed ? -1 : 0;
}

/* The base name of path without its extension ("data/x.csv" -> "x"). */
static char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	const char *dot = strrchr(b, '.');
	return dot && dot != b ? xstrndup(b, (size_t)(dot - b)) : xstrdup(b);
}

/* Start reading into a new import of path (r zeroed first).  0, or -1 reported. */
static int reader_start(struct reader *r, const char *path, const struct csvimport_opts *opts)
{
	memset(r, 0, sizeof(*r));
	struct csvimport *imp = xcalloc(1, sizeof(*imp));
	imp->path = xstrdup(path);
	imp->name = opts && opts->name ? xstrdup(opts->name) : base_name(path);
	r->imp = imp;
	r->need_start = 1;
	r->keeping = 1;
	sbuf_init(&r->buf);
	sbuf_init(&r->pend);
	sbuf_init(&r->keep);
	r->h = util_sha256_begin();
	if (csv_init(&r->parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL))
		die("libcsv: cannot initialise the parser");
	if (opts && opts->unit) {
		r->opt_unit = opts->unit;
		r->opt_unit_ns = csvimport_unit_ns(opts->unit);
		if (!r->opt_unit_ns)
			return error("--unit '%s' is not a time unit (ns, us, ms or s)", opts->unit);
		imp->unit_from_option = 1;
	}
	return 0;
}

/* After the last bytes: the checks on the whole file, its hash, size and kept copy into
 * the import; 0 (*out the import), or -1 reported. */
static int reader_finish(struct reader *r, struct csvimport **out)
{
	struct csvimport *imp = r->imp;
	util_sha256_end(r->h, imp->sha256);
	r->h = NULL;
	imp->len = r->fed;
	if (!r->have_header)
		return error("'%s': empty file (no header row)", imp->path);
	if (!imp->nrows)
		return error("'%s': a header but no data rows", imp->path);
	set_positions(imp);
	struct sbuf seen;
	sbuf_init(&seen);
	for (int n = 1; n <= r->nunits_used; n++)
		for (size_t k = 0; k < ARRAY_SIZE(time_units); k++)
			if (r->unit_used[k] == n)
				sbuf_addf(&seen, "%s%s", seen.len ? "," : "", time_units[k].name);
	imp->units_seen = sbuf_detach(&seen);
	if (r->keeping) {
		imp->text = sbuf_detach(&r->keep);
		sbuf_init(&r->keep);
	}
	*out = imp;
	r->imp = NULL;
	return 0;
}

static void reader_release(struct reader *r)
{
	csv_free(&r->parser);
	sbuf_release(&r->buf);
	sbuf_release(&r->pend);
	sbuf_release(&r->keep);
	if (r->h)
		util_sha256_end(r->h, NULL);
	free(r->off);
	hashindex_release(&r->mode_ix);
	hashindex_release(&r->cell_ix);
	hashindex_release(&r->unit_ix);
	csvimport_free(r->imp);
}

int csvimport_parse(const char *path, const char *text, size_t len,
		    const struct csvimport_opts *opts, struct csvimport **out)
{
	struct reader r;
	int rc = -1;
	*out = NULL;
	if (reader_start(&r, path, opts) == 0 && feed_bytes(&r, text, len, 1) == 0 &&
	    reader_finish(&r, out) == 0)
		rc = 0;
	reader_release(&r);
	return rc;
}

int csvimport_read(const char *path, const struct csvimport_opts *opts, struct csvimport **out)
{
	struct reader r;
	struct stat st;
	char *buf = NULL;
	int rc = -1;
	*out = NULL;
	/* O_NONBLOCK: opening a FIFO with no writer must not hang; the type check then refuses
	 * it.  O_NOCTTY: a terminal named as input must not become ours. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	if (fstat(fd, &st) < 0) {
		error_errno("cannot stat '%s'", path);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error("'%s' is not a regular file (%s)", path, util_file_kind(st.st_mode));
		goto done;
	}
	/* an export's set (a folder with a manifest) is read only as its manifest says */
	char want[65];
	if (exportset_check_import(path, want))
		goto done;
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (reader_start(&r, path, opts))
		goto release;
	/* in pieces: what is held is the data (the samples), not the file */
	enum { PIECE = 1 << 20 };
	buf = xmalloc(PIECE);
	for (;;) {
		ssize_t n = read(fd, buf, PIECE);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error_errno("cannot read '%s'", path);
			goto release;
		}
		if (feed_bytes(&r, buf, (size_t)n, n == 0))
			goto release;
		if (n == 0)
			break;
	}
	/* a file that yields other than the size fstat reported (a /proc or /sys pseudo-file
	 * reports size 0, or the file changed while read) is refused rather than trusted */
	if (r.fed != (uint64_t)st.st_size) {
		error("'%s' changed size while it was read, or is not a plain file (%jd bytes "
		      "reported, %" PRIu64 " read)", path, (intmax_t)st.st_size, r.fed);
		goto release;
	}
	if (reader_finish(&r, out))
		goto release;
	if (*want && strcmp(want, (*out)->sha256)) {
		error("'%s' changed while it was read (its SHA-256 is no longer the one its "
		      "manifest lists)", path);
		csvimport_free(*out);
		*out = NULL;
		goto release;
	}
	rc = 0;
release:
	reader_release(&r);
done:
	free(buf);
	close(fd);
	return rc;
}

void csvimport_free(struct csvimport *imp)
{
	if (!imp)
		return;
	for (size_t i = 0; i < imp->nmodes; i++)
		free(imp->modes[i]);
	for (size_t i = 0; i < imp->ncells; i++)
		free(imp->cells[i].name);
	for (size_t i = 0; i < imp->nunits; i++) {
		free(imp->units[i].sample_cell);
		free(imp->units[i].sample_ns);
	}
	free(imp->modes);
	free(imp->cells);
	free(imp->units);
	free(imp->units_seen);
	free(imp->name);
	free(imp->text);
	free(imp->path);
	free(imp);
}
