/* recorder-write.c: writing a whole results file (or journal file) in memory from a list of
 * units, and its atomic write to disk (docs/results-format.md) */
#include "config.h"
#include "harness/record/recorder-int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"

/* Check that every cell reference of the unit data is in range. */
static int check_unit_data(const char *path, const struct rec_unit_data *u)
{
	long long id = (long long)u->unit.id;
	int64_t nc = (int64_t)u->ncells;
	for (size_t i = 0; i < u->ntrials; i++)
		if (u->trials[i].cell < 0 || u->trials[i].cell >= nc)
			return error("'%s': unit %lld: trial %zu names cell %lld of %zu", path,
				     id, i, (long long)u->trials[i].cell, u->ncells);
	for (size_t i = 0; i < u->nchoices; i++)
		if (u->choices[i].cell < 0 || u->choices[i].cell >= nc)
			return error("'%s': unit %lld: choice %zu names cell %lld of %zu", path,
				     id, i, (long long)u->choices[i].cell, u->ncells);
	for (size_t i = 0; i < u->nmeasures; i++)
		if (u->measures[i].cell < 0 || u->measures[i].cell >= nc)
			return error("'%s': unit %lld: measure %zu names cell %lld of %zu", path,
				     id, i, (long long)u->measures[i].cell, u->ncells);
	for (size_t i = 0; u->sample_cell && i < u->nsamples; i++)
		if (u->sample_cell[i] < 0 || u->sample_cell[i] >= nc)
			return error("'%s': unit %lld: sample %zu names cell %lld of %zu", path,
				     id, i, (long long)u->sample_cell[i], u->ncells);
	for (size_t i = 0; i < u->ncells; i++)
		if (!u->cells[i].name)
			return error("'%s': unit %lld: cell %zu has no name", path, id, i);
	for (size_t i = 0; u->tsamples && i < u->ntsamples; i++)
		if (u->tsamples[i].trial < 0 || (size_t)u->tsamples[i].trial >= u->ntrials)
			return error("'%s': unit %lld: trial sample %zu names trial %lld of %zu",
				     path, id, i, (long long)u->tsamples[i].trial, u->ntrials);
	for (size_t i = 0; i < u->nspaces; i++)
		if (u->spaces[i].cell < 0 || u->spaces[i].cell >= nc)
			return error("'%s': unit %lld: space %zu names cell %lld of %zu", path, id,
				     i, (long long)u->spaces[i].cell, u->ncells);
	for (size_t i = 0; i < u->nsvalues; i++)
		if (u->svalues[i].cell < 0 || u->svalues[i].cell >= nc)
			return error("'%s': unit %lld: space value %zu names cell %lld", path, id,
				     i, (long long)u->svalues[i].cell);
	for (size_t i = 0; i < u->nsvendors; i++)
		if (u->svendors[i].cell < 0 || u->svendors[i].cell >= nc)
			return error("'%s': unit %lld: vendor candidate %zu names cell %lld", path,
				     id, i, (long long)u->svendors[i].cell);
	for (size_t i = 0; i < u->nsinvalid; i++)
		if (u->sinvalid[i].cell < 0 || u->sinvalid[i].cell >= nc)
			return error("'%s': unit %lld: invalid point %zu names cell %lld", path, id,
				     i, (long long)u->sinvalid[i].cell);
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

/* Layout 2's rows: trial samples point at rows of /trials (first: the unit's first), the
 * space rows at run-wide cells. */
static int64_t trials_first; /* set before the trial samples are filled */

static void fill_trial_sample(void *row, size_t i, const struct rec_unit_data *u, int64_t unit,
			      const int64_t *map)
{
	struct trial_sample_row *t = row;
	t->unit = unit;
	t->s = u->tsamples[i];
	t->s.trial = trials_first + u->tsamples[i].trial;
}

static void fill_space(void *row, size_t i, const struct rec_unit_data *u, int64_t unit,
		       const int64_t *map)
{
	struct space_row *t = row;
	t->unit = unit;
	t->s = u->spaces[i];
	t->s.cell = map[u->spaces[i].cell];
}

static void fill_space_value(void *row, size_t i, const struct rec_unit_data *u, int64_t unit,
			     const int64_t *map)
{
	struct space_value_row *t = row;
	t->unit = unit;
	t->v = u->svalues[i];
	t->v.cell = map[u->svalues[i].cell];
}

static void fill_space_vendor(void *row, size_t i, const struct rec_unit_data *u, int64_t unit,
			      const int64_t *map)
{
	struct space_vendor_row *t = row;
	t->unit = unit;
	t->v = u->svendors[i];
	t->v.cell = map[u->svendors[i].cell];
}

static void fill_space_invalid(void *row, size_t i, const struct rec_unit_data *u, int64_t unit,
			       const int64_t *map)
{
	struct space_invalid_row *t = row;
	t->unit = unit;
	t->v = u->sinvalid[i];
	t->v.cell = map[u->sinvalid[i].cell];
}

/* ---- the run-wide cell table: names to rows ------------------------------------------- */

struct cell_index {
	struct rec_cell *cells; /* run-wide, in first-seen order (strings owned) */
	size_t n, cap;
	size_t *slot;           /* open addressing: row + 1, or 0 */
	size_t nslots;          /* a power of two */
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void cell_index_grow(struct cell_index *x)
{
	size_t ns = x->nslots ? x->nslots * 2 : 1024;
	size_t *slot = xcalloc(ns, sizeof(*slot));
	for (size_t i = 0; i < x->n; i++) {
		size_t h = (size_t)name_hash(x->cells[i].name) & (ns - 1);
		while (slot[h])
			h = (h + 1) & (ns - 1);
		slot[h] = i + 1;
	}
	free(x->slot);
	x->slot = slot;
	x->nslots = ns;
}

/* The run-wide row of cell c, added (copied) when its name is new. */
static int64_t cell_index_get(struct cell_index *x, const struct rec_cell *c)
{
	if (2 * (x->n + 1) > x->nslots)
		cell_index_grow(x);
	size_t h = (size_t)name_hash(c->name) & (x->nslots - 1);
	while (x->slot[h]) {
		if (!strcmp(x->cells[x->slot[h] - 1].name, c->name))
			return (int64_t)(x->slot[h] - 1);
		h = (h + 1) & (x->nslots - 1);
	}
	XGROW(x->cells, x->cap, x->n + 1);
	struct rec_cell *n = &x->cells[x->n];
	n->name = xstrdup(c->name);
	n->kind = xstrdup(c->kind ? c->kind : "");
	n->workload = xstrdup(c->workload ? c->workload : "");
	n->op = xstrdup(c->op ? c->op : "");
	n->shape = xstrdup(c->shape ? c->shape : "");
	n->count = c->count;
	n->flops = c->flops;
	x->slot[h] = ++x->n;
	return (int64_t)(x->n - 1);
}

static void cell_index_release(struct cell_index *x)
{
	rec_cells_free(x->cells, x->n);
	free(x->slot);
	memset(x, 0, sizeof(*x));
}

/* ---- building a file ------------------------------------------------------------------ */

/* The per-unit tables, in the order they are filled. */
enum { T_UNITS, T_TRIALS, T_CHOICES, T_MEASURES, T_SAMPLES, T_TSAMPLES, T_SPACES, T_SVALUES,
       T_SVENDORS, T_SINVALID, T_N };

static const struct table *const unit_tables[T_N] = {
	&rec_t_units, &rec_t_trials, &rec_t_choices, &rec_t_measures, &rec_t_samples,
	&rec_t_trial_samples, &rec_t_spaces, &rec_t_space_values, &rec_t_space_vendors,
	&rec_t_space_invalid,
};

/* Everything a file's tables need to be made: rows and widths per table. */
struct build {
	const char *path;
	struct cell_index cells;
	struct rec_widths w[T_N], wcells;
	size_t rows[T_N];   /* pass 1: totals; pass 2: rows written so far */
	hid_t d[T_N];
	struct rec_spill spill; /* the strings too long for their rows (recorder-long.c) */
};

struct fill_spec {
	size_t table;       /* T_* */
	size_t size;        /* sizeof the memory row */
	row_fill_fn fill;
};

static const struct fill_spec fills[] = {
	{ T_TRIALS, sizeof(struct trial_row), fill_trial },
	{ T_CHOICES, sizeof(struct choice_row), fill_choice },
	{ T_MEASURES, sizeof(struct measure_row), fill_measure },
	{ T_TSAMPLES, sizeof(struct trial_sample_row), fill_trial_sample },
	{ T_SPACES, sizeof(struct space_row), fill_space },
	{ T_SVALUES, sizeof(struct space_value_row), fill_space_value },
	{ T_SVENDORS, sizeof(struct space_vendor_row), fill_space_vendor },
	{ T_SINVALID, sizeof(struct space_invalid_row), fill_space_invalid },
};

static size_t unit_count(const struct rec_unit_data *u, size_t table)
{
	switch (table) {
	case T_TRIALS: return u->ntrials;
	case T_CHOICES: return u->nchoices;
	case T_MEASURES: return u->nmeasures;
	case T_TSAMPLES: return u->ntsamples;
	case T_SPACES: return u->nspaces;
	case T_SVALUES: return u->nsvalues;
	case T_SVENDORS: return u->nsvendors;
	case T_SINVALID: return u->nsinvalid;
	case T_SAMPLES: return u->nsamples;
	default: return 1;
	}
}

/* Unit u (row `unit` of /units) in the build: pass 1 (d[] not made yet) widens the tables
 * and counts rows, pass 2 writes them.  Reports and returns -1. */
static int build_unit(struct build *b, const struct rec_unit_data *u, int64_t unit, int pass2)
{
	int64_t *map = xcalloc(u->ncells ? u->ncells : 1, sizeof(*map));
	int rc = -1;
	for (size_t i = 0; i < u->ncells; i++)
		map[i] = cell_index_get(&b->cells, &u->cells[i]);
	trials_first = (int64_t)b->rows[T_TRIALS];
	for (size_t k = 0; k < ARRAY_SIZE(fills); k++) {
		const struct fill_spec *f = &fills[k];
		const struct table *tb = unit_tables[f->table];
		size_t n = unit_count(u, f->table);
		if (!n || (f->table == T_TSAMPLES && !u->tsamples))
			goto count;
		void *rows = xmalloc(n * f->size);
		for (size_t i = 0; i < n; i++)
			f->fill((char *)rows + i * f->size, i, u, unit, map);
		if (pass2) {
			int w = rec_table_put(b->d[f->table], b->path, tb, &b->w[f->table], rows,
					      b->rows[f->table], n, &b->spill);
			free(rows);
			if (w < 0)
				goto done;
		} else {
			rec_widths_add(tb, &b->w[f->table], rows, n);
			free(rows);
		}
	count:
		b->rows[f->table] += n;
	}
	/* samples */
	size_t sample_first = b->rows[T_SAMPLES];
	if (pass2 && u->nsamples) {
		struct sample_row *s = xmalloc(u->nsamples * sizeof(*s));
		for (size_t i = 0; i < u->nsamples; i++) {
			s[i].unit = (int32_t)unit;
			s[i].cell = (int32_t)map[u->sample_cell[i]];
			s[i].index = u->sample_index[i];
			s[i].ns = u->sample_ns[i];
			s[i].clock_mhz = u->sample_clock_mhz ? u->sample_clock_mhz[i] : NAN;
			s[i].throttle = u->sample_throttle ? u->sample_throttle[i] : -1;
			s[i].launches = u->sample_launches ? u->sample_launches[i] : 1;
			s[i].clock_reasons = u->sample_clock_reasons ? u->sample_clock_reasons[i]
								     : -1;
		}
		int w = rec_table_put(b->d[T_SAMPLES], b->path, &rec_t_samples, &b->w[T_SAMPLES], s,
				      sample_first, u->nsamples, NULL);
		free(s);
		if (w < 0)
			goto done;
	}
	b->rows[T_SAMPLES] += u->nsamples;
	/* the unit row */
	struct unit_row ur;
	ur.u = u->unit;
	ur.sample_first = (int64_t)sample_first;
	ur.sample_count = (int64_t)u->nsamples;
	ur.info = u->info;
	rec_rows_fill_strings(&rec_t_units, &ur, 1, 0);
	if (pass2) {
		if (rec_table_put(b->d[T_UNITS], b->path, &rec_t_units, &b->w[T_UNITS], &ur,
				  (size_t)unit, 1, &b->spill) < 0)
			goto done;
	} else {
		rec_widths_add(&rec_t_units, &b->w[T_UNITS], &ur, 1);
	}
	b->rows[T_UNITS]++;
	rc = 0;
done:
	free(map);
	return rc;
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
		rc = rec_h5_error(path, "cannot create /run");
		goto done;
	}
	for (size_t k = 0; meta && k < meta->nkv; k++) {
		if (rec_attr_set_string(run, meta->kv[k].key, meta->kv[k].value) < 0) {
			rc = rec_h5_error(path, "cannot write /run attribute '%s'", meta->kv[k].key);
			goto done;
		}
	}
	for (size_t k = 0; meta && k < meta->nfiles; k++) {
		const struct rec_file *f = &meta->files[k];
		char name[32];
		snprintf(name, sizeof(name), "%03zu", k);
		/* A fixed-length string of exactly the file's bytes (NUL-padded, so an empty
		 * file is one NUL): h5dump prints it, h5py gives the bytes.  Compact (inside the
		 * checksummed object header) when small enough. */
		hid_t t = rec_h5_fixed_str(f->len), space = -1, d = -1, dcpl = -1;
		int ok = t >= 0 && (space = H5Screate(H5S_SCALAR)) >= 0 &&
			 (dcpl = H5Pcreate(H5P_DATASET_CREATE)) >= 0 &&
			 (f->len > 32768 || H5Pset_layout(dcpl, H5D_COMPACT) >= 0) &&
			 (d = H5Dcreate2(files, name, t, space, H5P_DEFAULT, dcpl,
					 H5P_DEFAULT)) >= 0 &&
			 H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, f->len ? f->text : "") >= 0 &&
			 rec_attr_set_string(d, "role", f->role) >= 0 &&
			 rec_attr_set_string(d, "path", f->path) >= 0 &&
			 rec_attr_set_string(d, "sha256", f->sha256) >= 0;
		if (!ok)
			rc = rec_h5_error(path, "cannot write %s/%s ('%s')", FILES_GROUP, name, f->path);
		rec_h5_close(dcpl);
		rec_h5_close(d);
		rec_h5_close(space);
		rec_h5_close(t);
		if (!ok)
			goto done;
	}
	rc = 0;
done:
	rec_h5_close(files);
	rec_h5_close(run);
	rec_h5_close(gcpl);
	return rc;
}

/* Fetch unit i of src (see struct rec_unit_source); *out valid until scratch is released. */
static int source_get(const struct rec_unit_source *src, size_t i, int headers,
		      struct rec_unit_data *scratch, const struct rec_unit_data **out)
{
	*out = NULL;
	rec_unit_data_init(scratch);
	if (src->get(src->ctx, i, headers, scratch, out) < 0)
		return -1;
	if (!*out)
		*out = scratch;
	return 0;
}

int rec_build_file(const char *path, int excl, const char *journal, const struct rec_meta *meta,
		   const struct rec_plan *plan, size_t nplan, const struct rec_unit_source *src)
{
	return rec_build_file_hook(path, excl, journal, meta, plan, nplan, src, NULL, NULL);
}

int rec_build_file_hook(const char *path, int excl, const char *journal,
			const struct rec_meta *meta, const struct rec_plan *plan, size_t nplan,
			const struct rec_unit_source *src,
			int (*before)(void *ctx, const void *data, size_t len), void *ctx)
{
	struct build b;
	struct rec_unit_data scratch;
	const struct rec_unit_data *u;
	hid_t file = -1, dplan = -1;
	struct rec_image im = { NULL, 0, before, ctx };
	int rc = -1;
	size_t nunits = src ? src->n : 0;

	memset(&b, 0, sizeof(b));
	sbuf_init(&b.spill.bytes);
	b.path = path;
	for (size_t k = 0; k < T_N; k++) {
		b.d[k] = -1;
		rec_widths_init(unit_tables[k], &b.w[k]);
	}
	rec_widths_init(&rec_t_cells, &b.wcells);
	rec_unit_data_init(&scratch);

	/* Pass 1: the cells, every table's rows and string widths (samples left out). */
	for (size_t i = 0; i < nunits; i++) {
		int g = source_get(src, i, 1, &scratch, &u);
		if (g == 0 && check_unit_data(path, u) == 0)
			g = build_unit(&b, u, (int64_t)i, 0);
		else
			g = -1;
		rec_unit_data_release(&scratch);
		if (g < 0)
			goto done;
	}
	rec_widths_add(&rec_t_cells, &b.wcells, b.cells.cells, b.cells.n);

	file = rec_h5_image_create(path, &im);
	if (file < 0)
		goto done;
	if (rec_attr_set_int(file, ROOT_ID_ATTR, 1) < 0 ||
	    rec_attr_set_int(file, ROOT_VERSION_ATTR, REC_FORMAT_VERSION) < 0 ||
	    (journal && rec_attr_set_string(file, ROOT_JOURNAL_ATTR, journal) < 0)) {
		rec_h5_error(path, "cannot write the format attributes");
		goto done;
	}
	if (write_meta(file, path, meta) < 0)
		goto done;
	/* the plan */
	struct rec_widths wp;
	struct rec_plan *prow = xcalloc(nplan ? nplan : 1, sizeof(*prow));
	if (nplan)
		memcpy(prow, plan, nplan * sizeof(*prow));
	rec_rows_fill_strings(&rec_t_plan, prow, nplan, 0);
	rec_widths_init(&rec_t_plan, &wp);
	rec_widths_add(&rec_t_plan, &wp, prow, nplan);
	/* Journal unit files are not compressed: they are read back at once and again by
	 * every assembly, where deflate cost more than it saved (docs/BENCHMARKS.md). */
	int compress = !journal || strcmp(journal, "unit");
	dplan = rec_table_make(file, path, &rec_t_plan, &wp, nplan, compress);
	int pw = dplan < 0 ? -1 : rec_table_put(dplan, path, &rec_t_plan, &wp, prow, 0, nplan,
							   &b.spill);
	free(prow);
	if (dplan >= 0 && H5Dclose(dplan) < 0)
		pw = rec_h5_error(path, "cannot write %s", rec_t_plan.name);
	dplan = -1;
	if (pw < 0)
		goto done;
	/* the cells */
	hid_t dc = rec_table_make(file, path, &rec_t_cells, &b.wcells, b.cells.n, compress);
	int cw = dc < 0 ? -1 : rec_table_put(dc, path, &rec_t_cells, &b.wcells, b.cells.cells, 0,
					      b.cells.n, &b.spill);
	rec_h5_close(dc);
	if (cw < 0)
		goto done;
	for (size_t k = 0; k < T_N; k++) {
		b.d[k] = rec_table_make(file, path, unit_tables[k], &b.w[k], b.rows[k], compress);
		if (b.d[k] < 0)
			goto done;
		b.rows[k] = 0;
	}

	/* Pass 2: the rows, one unit at a time. */
	for (size_t i = 0; i < nunits; i++) {
		int g = source_get(src, i, 0, &scratch, &u);
		if (g == 0 && check_unit_data(path, u) == 0)
			g = build_unit(&b, u, (int64_t)i, 1);
		else
			g = -1;
		rec_unit_data_release(&scratch);
		if (g < 0)
			goto done;
	}
	for (size_t k = 0; k < T_N; k++) {
		int c = H5Dclose(b.d[k]);
		b.d[k] = -1;
		if (c < 0) {
			rec_h5_error(path, "cannot write %s", unit_tables[k]->name);
			goto done;
		}
	}
	if (rec_spill_write(file, path, &b.spill, compress) < 0)
		goto done;
	/* a results file's digests, from what it now holds (journal files have their own) */
	if (!journal && rec_seal_write(file, path, compress) < 0)
		goto done;
	rc = rec_h5_image_write(file, &im, path, excl);
	file = -1;
done:
	rec_unit_data_release(&scratch);
	for (size_t k = 0; k < T_N; k++)
		rec_h5_close(b.d[k]);
	rec_h5_close(dplan);
	rec_h5_close(file);
	free(im.buf);
	cell_index_release(&b.cells);
	rec_spill_release(&b.spill);
	return rc;
}

int rec_write_results(const char *path, int excl, const struct rec_meta *meta,
		      const struct rec_plan *plan, size_t nplan, const struct rec_unit_source *src)
{
	return rec_build_file(path, excl, NULL, meta, plan, nplan, src);
}
