/* recorder-append.c: writing one finished unit (all its rows) and run metadata */
#include "config.h"
#include "harness/record/recorder-int.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/util.h"

/* ---- appending ----------------------------------------------------------------------- */

/* Bring the writer's copy of the run's cell names up to date with /cells (d, open). */
static int sync_cell_names(struct rec *r, hid_t d)
{
	hsize_t rows;
	if (rec_table_rows(d, r->path, &rec_t_cells, &rows) < 0)
		return -1;
	if (rows == r->ncells)
		return 0;
	struct rec_cell *cells = xcalloc(rows ? rows : 1, sizeof(*cells));
	if (rec_table_read(d, r->path, &rec_t_cells, &rec_t_cells, 0, rows, cells) < 0) {
		rec_cells_free(cells, rows);
		return -1;
	}
	rec_rows_fill_strings(&rec_t_cells, cells, rows, 1);
	rec_free_names(r->cell_names, r->ncells);
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
	for (size_t i = 0; i < u->ntsamples; i++)
		if (u->tsamples[i].trial < 0 || (size_t)u->tsamples[i].trial >= u->ntrials)
			return error("'%s': unit %lld: trial sample %zu names trial %lld of %zu",
				     r->path, id, i, (long long)u->tsamples[i].trial, u->ntrials);
	for (size_t i = 0; i < u->nspaces; i++)
		if (u->spaces[i].cell < 0 || u->spaces[i].cell >= nc)
			return error("'%s': unit %lld: space %zu names cell %lld of %zu", r->path, id,
				     i, (long long)u->spaces[i].cell, u->ncells);
	for (size_t i = 0; i < u->nsvalues; i++)
		if (u->svalues[i].cell < 0 || u->svalues[i].cell >= nc)
			return error("'%s': unit %lld: space value %zu names cell %lld", r->path, id,
				     i, (long long)u->svalues[i].cell);
	for (size_t i = 0; i < u->nsvendors; i++)
		if (u->svendors[i].cell < 0 || u->svendors[i].cell >= nc)
			return error("'%s': unit %lld: vendor candidate %zu names cell %lld", r->path,
				     id, i, (long long)u->svendors[i].cell);
	for (size_t i = 0; i < u->nsinvalid; i++)
		if (u->sinvalid[i].cell < 0 || u->sinvalid[i].cell >= nc)
			return error("'%s': unit %lld: invalid point %zu names cell %lld", r->path, id,
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
static int64_t trials_first; /* set by append_rows before the trial samples are filled */

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
	rec_rows_fill_strings(tb, rows, n, 0);
	int r = rec_table_append(d, path, tb, rows, n, NULL) < 0 ? -1 : 0;
	free(rows);
	return r;
}

/* Write the unit's rows; the file is open.  map gets the run-wide index of each local
 * cell (ncells long). */
static int append_rows(struct rec *r, const struct rec_unit_data *u, int64_t *map)
{
	enum { CELLS, TRIALS, CHOICES, MEASURES, SAMPLES, TSAMPLES, SPACES, SVALUES, SVENDORS,
	       SINVALID, UNITS, NT };
	const struct table *const tabs[NT] = { &rec_t_cells, &rec_t_trials, &rec_t_choices,
					       &rec_t_measures, &rec_t_samples,
					       &rec_t_trial_samples, &rec_t_spaces,
					       &rec_t_space_values, &rec_t_space_vendors,
					       &rec_t_space_invalid, &rec_t_units };
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
		if ((d[k] = rec_table_open(r->file, path, tabs[k])) < 0)
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
	rec_rows_fill_strings(&rec_t_cells, newcells, nnew, 0);
	if (rec_table_append(d[CELLS], path, &rec_t_cells, newcells, nnew, NULL) < 0)
		goto done;
	XGROW(r->cell_names, r->cells_cap, r->ncells + nnew);
	for (size_t k = 0; k < nnew; k++)
		r->cell_names[r->ncells++] = xstrdup(newcells[k].name);

	if (rec_table_rows(d[UNITS], path, &rec_t_units, &nunits) < 0)
		goto done;
	int64_t unit = (int64_t)nunits;

	/* Trials, choices, measures: the row of /units this unit will have, remapped cells. */
	hsize_t tfirst;
	if (rec_table_rows(d[TRIALS], path, &rec_t_trials, &tfirst) < 0)
		goto done;
	trials_first = (int64_t)tfirst;
	if (append_unit_rows(d[TRIALS], path, &rec_t_trials, u->ntrials, sizeof(struct trial_row),
			     fill_trial, u, unit, map) ||
	    append_unit_rows(d[CHOICES], path, &rec_t_choices, u->nchoices, sizeof(struct choice_row),
			     fill_choice, u, unit, map) ||
	    append_unit_rows(d[MEASURES], path, &rec_t_measures, u->nmeasures,
			     sizeof(struct measure_row), fill_measure, u, unit, map) ||
	    append_unit_rows(d[TSAMPLES], path, &rec_t_trial_samples, u->ntsamples,
			     sizeof(struct trial_sample_row), fill_trial_sample, u, unit, map) ||
	    append_unit_rows(d[SPACES], path, &rec_t_spaces, u->nspaces, sizeof(struct space_row),
			     fill_space, u, unit, map) ||
	    append_unit_rows(d[SVALUES], path, &rec_t_space_values, u->nsvalues,
			     sizeof(struct space_value_row), fill_space_value, u, unit, map) ||
	    append_unit_rows(d[SVENDORS], path, &rec_t_space_vendors, u->nsvendors,
			     sizeof(struct space_vendor_row), fill_space_vendor, u, unit, map) ||
	    append_unit_rows(d[SINVALID], path, &rec_t_space_invalid, u->nsinvalid,
			     sizeof(struct space_invalid_row), fill_space_invalid, u, unit, map))
		goto done;

	/* Samples. */
	struct sample_row *s = rows = xmalloc((u->nsamples ? u->nsamples : 1) * sizeof(*s));
	for (size_t i = 0; i < u->nsamples; i++) {
		s[i].unit = (int32_t)unit;
		s[i].cell = (int32_t)map[u->sample_cell[i]];
		s[i].index = u->sample_index[i];
		s[i].ns = u->sample_ns[i];
		s[i].clock_mhz = u->sample_clock_mhz ? u->sample_clock_mhz[i] : NAN;
		s[i].throttle = u->sample_throttle ? u->sample_throttle[i] : -1;
		s[i].launches = u->sample_launches ? u->sample_launches[i] : 1;
	}
	if (rec_table_append(d[SAMPLES], path, &rec_t_samples, rows, u->nsamples, &sample_first) < 0)
		goto done;

	/* The unit row last: a unit in /units has all its rows. */
	struct unit_row ur;
	ur.u = u->unit;
	ur.sample_first = (int64_t)sample_first;
	ur.sample_count = (int64_t)u->nsamples;
	ur.info = u->info;
	rec_rows_fill_strings(&rec_t_units, &ur, 1, 0);
	if (rec_table_append(d[UNITS], path, &rec_t_units, &ur, 1, NULL) < 0)
		goto done;
	rc = 0;
done:
	/* Closing a dataset writes its cached chunks: a failure there is a failure too. */
	for (size_t k = NT; k-- > 0;)
		if (d[k] >= 0 && H5Dclose(d[k]) < 0 && rc == 0)
			rc = rec_h5_error(path, "cannot write %s", tabs[k]->name);
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
	rec_signals_hold(&old);
	if (rec_enter(r) < 0)
		goto done;
	if (r->dirty && rec_trim_all(r->file, r->path) < 0)
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
	rec_signals_restore(&old);
	return rc;
}

int rec_set_meta(struct rec *r, const char *key, const char *value)
{
	sigset_t old;
	int rc = -1;
	hid_t run = -1;

	if (!r->writable)
		return error("'%s': opened read-only", r->path);
	rec_signals_hold(&old);
	if (rec_enter(r) < 0)
		goto done;
	run = H5Gopen2(r->file, "/run", H5P_DEFAULT);
	if (run < 0 || rec_attr_set_string(run, key, value ? value : "") < 0)
		rec_h5_error(r->path, "cannot write /run attribute '%s'", key);
	else
		rc = 0;
	rec_h5_close(run);
	if (rec_leave(r, 1) < 0)
		rc = -1;
done:
	rec_signals_restore(&old);
	return rc;
}
