/* recorder-read.c: reading results files back, and the in-memory helpers for metadata and
 * unit data */
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
#include "kernels/sample.h"

/* ---- reading ------------------------------------------------------------------------- */

/* Append a key/value pair without looking for an existing key (reading). */
void rec_meta_push(struct rec_meta *m, char *key, char *value)
{
	m->kv = xrealloc(m->kv, (m->nkv + 1) * sizeof(*m->kv));
	m->kv[m->nkv].key = key;
	m->kv[m->nkv].value = value;
	m->nkv++;
}

struct meta_iter {
	struct rec_meta *m;
	int allow_vlen;
	char *bad; /* the attribute that could not be read (heap) */
};

static herr_t meta_attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
	struct meta_iter *it = data;
	struct rec_meta *m = it->m;
	(void)info;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	char *value = NULL;
	int rc = a >= 0 ? rec_attr_get_string(a, it->allow_vlen, &value) : -1;
	rec_h5_close(a);
	if (rc < 0) {
		free(it->bad);
		it->bad = xstrdup(name);
		return -1;
	}
	rec_meta_push(m, xstrdup(name), value);
	return 0;
}

/* Read one scalar string dataset of /run/files with its attributes. */
static int read_file_entry(hid_t files, const char *path, int allow_vlen, const char *name,
			   struct rec_file *f)
{
	hid_t d = H5Dopen2(files, name, H5P_DEFAULT), t = -1, a = -1, space = -1, mt = -1;
	int rc = -1;
	memset(f, 0, sizeof(*f));
	if (d < 0 || (t = H5Dget_type(d)) < 0 || H5Tget_class(t) != H5T_STRING ||
	    H5Tis_variable_str(t) != 0 || (space = H5Dget_space(d)) < 0 ||
	    H5Sget_simple_extent_npoints(space) != 1)
		goto fail;
	size_t n = H5Tget_size(t);
	if (n == 0 || n > REC_STR_MAX)
		goto fail;
	f->text = xcalloc(n + 1, 1);
	if ((mt = H5Tcopy(t)) < 0 ||
	    H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, f->text) < 0)
		goto fail;
	f->len = strnlen(f->text, n);
	const char *attrs[] = { "role", "path", "sha256" };
	char **dst[] = { &f->role, &f->path, &f->sha256 };
	for (size_t k = 0; k < ARRAY_SIZE(attrs); k++) {
		a = H5Aopen(d, attrs[k], H5P_DEFAULT);
		if (a < 0 || rec_attr_get_string(a, allow_vlen, dst[k]) < 0)
			goto fail;
		H5Aclose(a);
		a = -1;
	}
	rc = 0;
	goto done;
fail:
	rc = rec_h5_error(path, "cannot read %s/%s (damaged?)", FILES_GROUP, name);
done:
	rec_h5_close(mt);
	rec_h5_close(space);
	rec_h5_close(a);
	rec_h5_close(t);
	rec_h5_close(d);
	return rc;
}

int rec_read_meta(struct rec *r, struct rec_meta *out)
{
	hid_t run = -1, files = -1;
	int rc = -1;

	struct meta_iter it = { .m = out, .allow_vlen = r->version < 2 };
	rec_meta_init(out);
	run = H5Gopen2(r->file, "/run", H5P_DEFAULT);
	if (run < 0) {
		rec_h5_error(r->path, "cannot open /run");
		goto done;
	}
	/* Creation order when the file tracks it (ours do), else by name. */
	hsize_t idx = 0;
	if (H5Aiterate2(run, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, meta_attr_cb, &it) < 0) {
		H5Eclear2(H5E_DEFAULT);
		rec_meta_release(out);
		rec_meta_init(out);
		idx = 0;
		if (!it.bad &&
		    H5Aiterate2(run, H5_INDEX_NAME, H5_ITER_INC, &idx, meta_attr_cb, &it) >= 0)
			goto files;
		if (it.bad)
			error("'%s': /run attribute '%s' is not a string (damaged?)", r->path, it.bad);
		else
			rec_h5_error(r->path, "cannot read the attributes of /run");
		goto done;
	}
files:
	files = H5Gopen2(r->file, FILES_GROUP, H5P_DEFAULT);
	if (files < 0) {
		rec_h5_error(r->path, "cannot open %s", FILES_GROUP);
		goto done;
	}
	for (size_t k = 0;; k++) {
		char name[32];
		snprintf(name, sizeof(name), "%03zu", k);
		htri_t e = H5Lexists(files, name, H5P_DEFAULT);
		if (e < 0) {
			rec_h5_error(r->path, "cannot read %s", FILES_GROUP);
			goto done;
		}
		if (e == 0)
			break;
		out->files = xrealloc(out->files, (out->nfiles + 1) * sizeof(*out->files));
		if (read_file_entry(files, r->path, r->version < 2, name, &out->files[out->nfiles]) < 0) {
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
	free(it.bad);
	rec_h5_close(files);
	rec_h5_close(run);
	if (rc < 0) {
		rec_meta_release(out);
		rec_meta_init(out);
	}
	return rc;
}

/* Read a whole table into a new array of memory rows (strings never NULL). */
int rec_read_all(struct rec *r, const struct table *tb, void **rows, size_t *n)
{
	size_t count = 0;
	hid_t d = -1;
	int rc = -1;
	*rows = NULL;
	*n = 0;
	d = rec_table_open(r, tb);
	if (d < 0 || rec_table_rows(r, d, tb, &count) < 0)
		goto done;
	if (count > r->max_bytes / tb->row_size) {
		error("'%s': cannot read %s: it claims %zu rows, more than the file can hold", r->path, tb->name,
		      count);
		goto done;
	}
	*rows = xcalloc(count ? count : 1, tb->row_size);
	if (rec_table_read(r, d, tb, tb, 0, count, *rows) < 0) {
		free(*rows);
		*rows = NULL;
		goto done;
	}
	rec_rows_fill_strings(tb, *rows, count, 1);
	if (rec_spill_apply(r, tb, *rows, count) < 0) {
		rec_free_rows(tb, *rows, count);
		*rows = NULL;
		goto done;
	}
	*n = count;
	rc = 0;
done:
	rec_h5_close(d);
	return rc;
}

int rec_read_plan(struct rec *r, struct rec_plan **plan, size_t *n)
{
	void *rows;
	if (rec_read_all(r, &rec_t_plan, &rows, n) < 0) {
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
	for (size_t i = 0; i < n; i++) {
		free(plan[i].mode);
		free(plan[i].workload);
	}
	free(plan);
}

int rec_read_units(struct rec *r, struct rec_unit **units, size_t *n)
{
	void *rows;
	*units = NULL;
	if (rec_read_all(r, &rec_t_units, &rows, n) < 0)
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

/* The value of the first "key=" line of info: its start, *len its length; NULL if none. */
static const char *info_find(const char *info, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	for (const char *p = info; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			*len = l - kl - 1;
			return p + kl + 1;
		}
		p = e ? e + 1 : p + l;
	}
	return NULL;
}

const char *rec_info_get(const char *info, const char *key, char *buf, size_t n)
{
	size_t len = 0;
	const char *v = info_find(info, key, &len);
	len = v ? (len < n - 1 ? len : n - 1) : 0;
	memcpy(buf, v ? v : "", len);
	buf[len] = '\0';
	return buf;
}

char *rec_info_dup(const char *info, const char *key)
{
	size_t len = 0;
	const char *v = info_find(info, key, &len);
	return v ? xstrndup(v, len) : NULL;
}

int rec_read_unit_infos(struct rec *r, char ***infos, size_t *n)
{
	void *rows;
	*infos = NULL;
	if (rec_read_all(r, &rec_t_units, &rows, n) < 0)
		return -1;
	struct unit_row *ur = rows;
	char **v = xcalloc(*n ? *n : 1, sizeof(*v));
	for (size_t i = 0; i < *n; i++) {
		v[i] = ur[i].info ? ur[i].info : xstrdup("");
		rec_unit_strings_free(&ur[i].u);
	}
	free(rows);
	*infos = v;
	return 0;
}

void rec_unit_strings_free(struct rec_unit *u)
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
	free(u->device);
	free(u->cpus);
	free(u->workload);
}

void rec_units_free(struct rec_unit *units, size_t n)
{
	if (!units)
		return;
	for (size_t i = 0; i < n; i++)
		rec_unit_strings_free(&units[i]);
	free(units);
}

int rec_read_cells(struct rec *r, struct rec_cell **cells, size_t *n)
{
	void *rows;
	if (rec_read_all(r, &rec_t_cells, &rows, n) < 0) {
		*cells = NULL;
		return -1;
	}
	*cells = rows;
	return 0;
}

void rec_cells_free(struct rec_cell *cells, size_t n)
{
	rec_free_rows(&rec_t_cells, cells, n); /* /cells rows are struct rec_cell */
}

/* Read a per-unit table whose rows are {int64 unit; PAYLOAD}: the unit column and the
 * payloads as two parallel heap arrays (the payloads keep their strings). */
static int read_unit_split(struct rec *r, const struct table *tb, size_t payload_off,
			   size_t payload_size, int64_t **unit, void **payload, size_t *n)
{
	void *rows;
	size_t nunits = 0, nref = 0;
	/* the payload's first field indexes /cells (/trials for a trial sample) */
	const struct table *ref = tb == &rec_t_trial_samples ? &rec_t_trials : &rec_t_cells;
	*unit = NULL;
	*payload = NULL;
	if (rec_table_count(r, &rec_t_units, &nunits) < 0 || rec_table_count(r, ref, &nref) < 0 ||
	    rec_read_all(r, tb, &rows, n) < 0)
		return -1;
	/* Every row's unit is a row of /units and its cell a row of /cells (readers index
	 * with them). */
	for (size_t i = 0; i < *n; i++) {
		int64_t u, c;
		memcpy(&u, (const char *)rows + i * tb->row_size, sizeof(u));
		memcpy(&c, (const char *)rows + i * tb->row_size + payload_off, sizeof(c));
		if (u < 0 || (uint64_t)u >= nunits || c < 0 || (uint64_t)c >= nref) {
			error("'%s': cannot read %s: row %zu names unit row %lld of %zu, %s row %lld of %zu",
			      r->path, tb->name, i, (long long)u, nunits, ref->name, (long long)c,
			      nref);
			rec_free_rows(tb, rows, *n);
			*n = 0;
			return -1;
		}
	}
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
	return read_unit_split(r, &rec_t_choices, offsetof(struct choice_row, c),
			       sizeof(struct rec_choice), unit, (void **)choices, n);
}

int rec_read_trials(struct rec *r, int64_t **unit, struct rec_trial **trials, size_t *n)
{
	return read_unit_split(r, &rec_t_trials, offsetof(struct trial_row, t),
			       sizeof(struct rec_trial), unit, (void **)trials, n);
}

/* Free n trials (or choices) with their strings, and the array. */
void rec_trials_free_rows(struct rec_trial *t, size_t n)
{
	for (size_t i = 0; t && i < n; i++) {
		free(t[i].config);
		free(t[i].status);
	}
	free(t);
}

void rec_choices_free_rows(struct rec_choice *c, size_t n)
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
	rec_trials_free_rows(trials, n);
}

void rec_choices_free(int64_t *unit, struct rec_choice *choices, size_t n)
{
	free(unit);
	rec_choices_free_rows(choices, n);
}

int rec_count_samples(struct rec *r, int64_t *n)
{
	size_t count = 0;
	*n = 0;
	int rc = rec_table_count(r, &rec_t_samples, &count);
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
	rec_meta_push(m, xstrdup(key), xstrdup(value));
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
	u->unit.slot = -1;
}

void rec_unit_data_release(struct rec_unit_data *u)
{
	rec_unit_strings_free(&u->unit);
	rec_cells_free(u->cells, u->ncells);
	rec_trials_free_rows(u->trials, u->ntrials);
	rec_choices_free_rows(u->choices, u->nchoices);
	for (size_t i = 0; i < u->nmeasures; i++)
		free(u->measures[i].stop);
	free(u->measures);
	free(u->sample_cell);
	free(u->sample_index);
	free(u->sample_ns);
	free(u->sample_clock_mhz);
	free(u->sample_throttle);
	free(u->sample_launches);
	free(u->sample_clock_reasons);
	free(u->tsamples);
	free(u->spaces);
	free(u->svalues);
	free(u->svendors);
	free(u->sinvalid);
	free(u->info);
	rec_unit_data_init(u);
}

/* ---- samples, one unit at a time (memory bounded by the largest unit) -------------- */

/* Where the samples of the unit in row unit_row of /units are, checked to lie within
 * /samples.  Reports and returns -1. */
static int unit_span(struct rec *r, size_t unit_row, struct sample_span *span)
{
	hid_t du = -1;
	size_t nunits = 0, nsamples = 0;
	int rc = -1;
	du = rec_table_open(r, &rec_t_units);
	if (du < 0 || rec_table_rows(r, du, &rec_t_units, &nunits) < 0)
		goto done;
	if (unit_row >= nunits) {
		error("'%s': no unit row %zu (the file has %zu)", r->path, unit_row, nunits);
		goto done;
	}
	if (rec_table_read(r, du, &rec_t_units, &rec_t_sample_span, unit_row, 1, span) < 0 ||
	    rec_table_count(r, &rec_t_samples, &nsamples) < 0)
		goto done;
	if (span->sample_first < 0 || span->sample_count < 0 ||
	    (uint64_t)span->sample_first > nsamples ||
	    (uint64_t)span->sample_count > nsamples - (uint64_t)span->sample_first) {
		error("'%s': cannot read /units: row %zu: samples %lld+%lld are not within /samples (%zu rows)",
		      r->path, unit_row, (long long)span->sample_first,
		      (long long)span->sample_count, nsamples);
		goto done;
	}
	rc = 0;
done:
	rec_h5_close(du);
	return rc;
}

int rec_read_unit_samples(struct rec *r, size_t unit_row, int64_t **cell, int64_t **ns,
			  size_t *n)
{
	hid_t ds = -1;
	struct sample_span span;
	struct sample_row_v1 *rows = NULL;
	size_t ncells = 0;
	int rc = -1;
	*cell = *ns = NULL;
	*n = 0;
	if (unit_span(r, unit_row, &span) < 0 || rec_table_count(r, &rec_t_cells, &ncells) < 0)
		goto done;
	ds = rec_table_open(r, &rec_t_samples);
	if (ds < 0)
		goto done;
	size_t count = (size_t)span.sample_count;
	rows = xmalloc((count ? count : 1) * sizeof(*rows));
	if (rec_table_read(r, ds, &rec_t_samples, &rec_t_sample_v1, (size_t)span.sample_first,
			   count, rows) < 0)
		goto done;
	for (size_t i = 0; i < count; i++) {
		if (rows[i].unit < 0 || (size_t)rows[i].unit != unit_row) {
			error("'%s': cannot read /samples: the rows of unit %zu are not where /units says", r->path,
			      unit_row);
			goto done;
		}
		if (rows[i].cell < 0 || (size_t)rows[i].cell >= ncells) {
			error("'%s': cannot read /samples: row %lld names cell %d of %zu", r->path,
			      (long long)span.sample_first + (long long)i, (int)rows[i].cell, ncells);
			goto done;
		}
	}
	*cell = xmalloc((count ? count : 1) * sizeof(**cell));
	*ns = xmalloc((count ? count : 1) * sizeof(**ns));
	for (size_t i = 0; i < count; i++) { /* one execution's time */
		(*cell)[i] = rows[i].cell;
		(*ns)[i] = sample_exec_ns(rows[i].ns, rows[i].launches);
	}
	*n = count;
	rc = 0;
done:
	free(rows);
	rec_h5_close(ds);
	return rc;
}

int rec_read_unit_sample_extras(struct rec *r, size_t unit_row, double **clock_mhz,
				int **throttle, int64_t **launches, int64_t **clock_reasons,
				size_t *n)
{
	hid_t ds = -1;
	struct sample_span span;
	struct sample_extra_row *rows = NULL;
	int rc = -1;
	*clock_mhz = NULL;
	*throttle = NULL;
	*launches = NULL;
	*clock_reasons = NULL;
	*n = 0;
	if (unit_span(r, unit_row, &span) < 0)
		goto done;
	size_t count = (size_t)span.sample_count;
	rows = xmalloc((count ? count : 1) * sizeof(*rows));
	for (size_t i = 0; i < count; i++)
		rows[i] = (struct sample_extra_row){ .clock_mhz = NAN, .throttle = -1, .launches = 1,
						     .clock_reasons = -1 };
	if (r->version >= 2) {
		ds = rec_table_open(r, &rec_t_samples);
		if (ds < 0 || rec_table_read(r, ds, &rec_t_samples, &rec_t_sample_extra,
					     (size_t)span.sample_first, count, rows) < 0)
			goto done;
	}
	*clock_mhz = xmalloc((count ? count : 1) * sizeof(**clock_mhz));
	*throttle = xmalloc((count ? count : 1) * sizeof(**throttle));
	*launches = xmalloc((count ? count : 1) * sizeof(**launches));
	*clock_reasons = xmalloc((count ? count : 1) * sizeof(**clock_reasons));
	for (size_t i = 0; i < count; i++) {
		(*clock_mhz)[i] = rows[i].clock_mhz;
		(*throttle)[i] = rows[i].throttle;
		(*launches)[i] = rows[i].launches;
		(*clock_reasons)[i] = rows[i].clock_reasons;
	}
	*n = count;
	rc = 0;
done:
	free(rows);
	rec_h5_close(ds);
	return rc;
}

/* A layout 2 per-unit table split like read_unit_split; empty in a version 1 file. */
static int read_unit_split_v2(struct rec *r, const struct table *tb, size_t payload_off,
			      size_t payload_size, int64_t **unit, void **payload, size_t *n)
{
	if (r->version < 2) {
		*unit = xcalloc(1, sizeof(**unit));
		*payload = xcalloc(1, payload_size);
		*n = 0;
		return 0;
	}
	return read_unit_split(r, tb, payload_off, payload_size, unit, payload, n);
}

int rec_read_trial_samples(struct rec *r, int64_t **unit, struct rec_trial_sample **s,
			   size_t *n)
{
	return read_unit_split_v2(r, &rec_t_trial_samples, offsetof(struct trial_sample_row, s),
				  sizeof(struct rec_trial_sample), unit, (void **)s, n);
}

int rec_read_spaces(struct rec *r, struct rec_spaces *out)
{
	memset(out, 0, sizeof(*out));
	if (read_unit_split_v2(r, &rec_t_spaces, offsetof(struct space_row, s),
			       sizeof(struct rec_space), &out->space_unit, (void **)&out->spaces,
			       &out->nspaces) ||
	    read_unit_split_v2(r, &rec_t_space_values, offsetof(struct space_value_row, v),
			       sizeof(struct rec_space_value), &out->value_unit,
			       (void **)&out->values, &out->nvalues) ||
	    read_unit_split_v2(r, &rec_t_space_vendors, offsetof(struct space_vendor_row, v),
			       sizeof(struct rec_space_vendor), &out->vendor_unit,
			       (void **)&out->vendors, &out->nvendors) ||
	    read_unit_split_v2(r, &rec_t_space_invalid, offsetof(struct space_invalid_row, v),
			       sizeof(struct rec_space_invalid), &out->invalid_unit,
			       (void **)&out->invalid, &out->ninvalid)) {
		rec_spaces_release(out);
		return -1;
	}
	return 0;
}

void rec_spaces_release(struct rec_spaces *s)
{
	free(s->space_unit);
	free(s->spaces);
	free(s->value_unit);
	free(s->values);
	free(s->vendor_unit);
	free(s->vendors);
	free(s->invalid_unit);
	free(s->invalid);
	memset(s, 0, sizeof(*s));
}

int rec_has_tuning(const char *path)
{
	struct rec *f = NULL;
	struct rec_spaces sp;
	int64_t *tunit = NULL;
	struct rec_trial *trials = NULL;
	size_t ntrials = 0;
	int yes = 0;
	memset(&sp, 0, sizeof(sp));
	if (rec_open(path, 0, &f))
		return 0;
	if (!rec_read_trials(f, &tunit, &trials, &ntrials) && ntrials &&
	    !rec_read_spaces(f, &sp) && sp.nspaces)
		yes = 1;
	rec_spaces_release(&sp);
	rec_trials_free(tunit, trials, ntrials);
	rec_close(f);
	return yes;
}
