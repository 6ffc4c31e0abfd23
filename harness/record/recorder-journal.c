/* recorder-journal.c: a run's write-ahead journal (RUNDIR/journal/: run.h5, one file per
 * finished unit and a running note per unit in progress), reading a unit back and verifying
 * it, and assembling results files from journals (recorder.h; docs/results-format.md, "The
 * journal") */
#include "config.h"
#include "harness/record/recorder-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/util.h"

#define JOURNAL_DIR "journal"
#define RUN_FILE "run.h5"
#define LOCK_FILE "lock"

struct rec_journal {
	char *dir;          /* RUNDIR/journal */
	int lock_fd;
	struct rec_meta meta;
	struct rec_plan *plan;
	size_t nplan;
};

static char *unit_path(const char *dir, int64_t id)
{
	return xasprintf("%s/unit-%04" PRId64 ".h5", dir, id);
}

/* ---- reading one unit back -------------------------------------------------------------- */



/* Read the journal unit file path (its one unit) into u (initialised).  headers: leave the
 * samples and trial samples out (counts only).  Checks that the file is a journal unit file
 * of unit want (-1: any) whose every table reads and every reference is in range, and that
 * the sample rows are the unit's.  Reports and returns -1. */
static int unit_file_read(const char *path, int64_t want, int headers, struct rec_unit_data *u)
{
	struct rec *r = NULL;
	struct unit_row *ur = NULL;
	struct rec_cell *cells = NULL;
	struct measure_row *mr = NULL;
	struct sample_row *sr = NULL;
	int64_t *unit = NULL;
	size_t nur = 0, ncells = 0, nmr = 0, nsr = 0;
	int rc = -1;

	if (rec_open(path, 0, &r) < 0)
		goto done;
	hid_t a = H5Aexists(r->file, ROOT_JOURNAL_ATTR) > 0
			  ? H5Aopen(r->file, ROOT_JOURNAL_ATTR, H5P_DEFAULT) : -1;
	char *kind = NULL;
	int k = a >= 0 ? rec_attr_get_string(a, 0, &kind) : -1;
	rec_h5_close(a);
	H5Eclear2(H5E_DEFAULT);
	if (k < 0 || strcmp(kind, "unit")) {
		free(kind);
		error("'%s': not a journal unit file", path);
		goto done;
	}
	free(kind);
	if (rec_read_all(r, &rec_t_units, (void **)&ur, &nur) < 0)
		goto done;
	if (nur != 1) {
		error("'%s': /units holds %zu rows, not one", path, nur);
		goto done;
	}
	if (want >= 0 && ur[0].u.id != want) {
		error("'%s': holds unit %" PRId64 ", not %" PRId64, path, ur[0].u.id, want);
		goto done;
	}
	if (rec_read_cells(r, &cells, &ncells) < 0)
		goto done;
	u->cells = cells;
	u->ncells = u->cells_cap = ncells;
	cells = NULL;
	if (rec_read_trials(r, &unit, &u->trials, &u->ntrials) < 0)
		goto done;
	free(unit);
	unit = NULL;
	u->trials_cap = u->ntrials;
	if (rec_read_choices(r, &unit, &u->choices, &u->nchoices) < 0)
		goto done;
	free(unit);
	unit = NULL;
	u->choices_cap = u->nchoices;
	if (rec_read_all(r, &rec_t_measures, (void **)&mr, &nmr) < 0)
		goto done;
	u->measures = xcalloc(nmr ? nmr : 1, sizeof(*u->measures));
	for (size_t i = 0; i < nmr; i++) {
		if (mr[i].unit != 0 || mr[i].m.cell < 0 || (size_t)mr[i].m.cell >= ncells) {
			error("'%s': /measures row %zu names unit %" PRId64 ", cell %" PRId64, path, i,
			      mr[i].unit, mr[i].m.cell);
			goto done;
		}
		u->measures[i] = mr[i].m;
		mr[i].m.stop = NULL;
		u->nmeasures = i + 1;
	}
	u->measures_cap = nmr;
	struct rec_spaces sp;
	if (rec_read_spaces(r, &sp) < 0)
		goto done;
	u->spaces = sp.spaces;
	u->nspaces = u->spaces_cap = sp.nspaces;
	u->svalues = sp.values;
	u->nsvalues = u->svalues_cap = sp.nvalues;
	u->svendors = sp.vendors;
	u->nsvendors = u->svendors_cap = sp.nvendors;
	u->sinvalid = sp.invalid;
	u->nsinvalid = u->sinvalid_cap = sp.ninvalid;
	free(sp.space_unit);
	free(sp.value_unit);
	free(sp.vendor_unit);
	free(sp.invalid_unit);
	size_t nsamples = 0, ntsamples = 0;
	if (rec_table_count(r, &rec_t_samples, &nsamples) < 0 ||
	    rec_table_count(r, &rec_t_trial_samples, &ntsamples) < 0)
		goto done;
	if (ur[0].sample_first != 0 || ur[0].sample_count < 0 ||
	    (size_t)ur[0].sample_count != nsamples) {
		error("'%s': /units says %" PRId64 " samples from %" PRId64 ", /samples has %zu",
		      path, ur[0].sample_count, ur[0].sample_first, nsamples);
		goto done;
	}
	if (headers) {
		u->nsamples = nsamples;
		u->ntsamples = ntsamples;
	} else {
		if (rec_read_all(r, &rec_t_samples, (void **)&sr, &nsr) < 0)
			goto done;
		u->sample_cell = xmalloc((nsr ? nsr : 1) * sizeof(int64_t));
		u->sample_index = xmalloc((nsr ? nsr : 1) * sizeof(int64_t));
		u->sample_ns = xmalloc((nsr ? nsr : 1) * sizeof(int64_t));
		u->sample_clock_mhz = xmalloc((nsr ? nsr : 1) * sizeof(double));
		u->sample_throttle = xmalloc((nsr ? nsr : 1) * sizeof(int));
		u->sample_launches = xmalloc((nsr ? nsr : 1) * sizeof(int64_t));
		u->sample_clock_reasons = xmalloc((nsr ? nsr : 1) * sizeof(int64_t));
		u->samples_cap = nsr;
		for (size_t i = 0; i < nsr; i++) {
			if (sr[i].unit != 0 || sr[i].cell < 0 || (size_t)sr[i].cell >= ncells) {
				error("'%s': /samples row %zu names unit %d, cell %d", path, i,
				      (int)sr[i].unit, (int)sr[i].cell);
				goto done;
			}
			u->sample_cell[i] = sr[i].cell;
			u->sample_index[i] = sr[i].index;
			u->sample_ns[i] = sr[i].ns;
			u->sample_clock_mhz[i] = sr[i].clock_mhz;
			u->sample_throttle[i] = sr[i].throttle;
			u->sample_launches[i] = sr[i].launches;
			u->sample_clock_reasons[i] = sr[i].clock_reasons;
		}
		u->nsamples = nsr;
		if (rec_read_trial_samples(r, &unit, &u->tsamples, &u->ntsamples) < 0)
			goto done;
		free(unit);
		unit = NULL;
		u->tsamples_cap = u->ntsamples;
		for (size_t i = 0; i < u->ntsamples; i++) {
			if (u->tsamples[i].trial < 0 || (size_t)u->tsamples[i].trial >= u->ntrials) {
				error("'%s': /trial_samples row %zu names trial %" PRId64, path, i,
				      u->tsamples[i].trial);
				goto done;
			}
		}
	}
	/* the unit row last: its strings move into u */
	rec_unit_strings_free(&u->unit);
	u->unit = ur[0].u;
	free(u->info);
	u->info = ur[0].info;
	memset(&ur[0], 0, sizeof(ur[0]));
	rc = 0;
done:
	if (mr)
		rec_free_rows(&rec_t_measures, mr, nmr);
	free(sr);
	free(unit);
	if (ur)
		rec_free_rows(&rec_t_units, ur, nur);
	rec_cells_free(cells, ncells);
	rec_close(r);
	return rc;
}

/* The checks a verified unit passes beyond reading: every sample positive where the unit is
 * ok; with `as` (what was written), the same counts and the very same sample values. */
static int unit_verify(const char *path, const struct rec_unit_data *got,
		       const struct rec_unit_data *as)
{
	if (as) {
		if (got->nsamples != as->nsamples || got->ntrials != as->ntrials ||
		    got->nchoices != as->nchoices || got->nmeasures != as->nmeasures ||
		    got->ntsamples != as->ntsamples || strcmp(got->unit.status, as->unit.status))
			return error("'%s': read back differs from what was written", path);
		for (size_t i = 0; i < got->nsamples; i++)
			if (got->sample_ns[i] != as->sample_ns[i])
				return error("'%s': sample %zu reads back as %" PRId64 " ns, written %"
					     PRId64, path, i, got->sample_ns[i], as->sample_ns[i]);
	}
	if (!strcmp(got->unit.status, REC_STATUS_OK))
		for (size_t i = 0; i < got->nsamples; i++)
			if (got->sample_ns[i] <= 0)
				return error("'%s': unit is ok but sample %zu is %" PRId64 " ns", path,
					     i, got->sample_ns[i]);
	return 0;
}

/* ---- the journal ------------------------------------------------------------------------ */

static void journal_free(struct rec_journal *j)
{
	if (!j)
		return;
	if (j->lock_fd >= 0)
		close(j->lock_fd);
	rec_meta_release(&j->meta);
	rec_plan_free(j->plan, j->nplan);
	free(j->dir);
	free(j);
}

static struct rec_journal *journal_alloc(const char *rundir)
{
	struct rec_journal *j = xcalloc(1, sizeof(*j));
	j->dir = xasprintf("%s/%s", rundir, JOURNAL_DIR);
	j->lock_fd = -1;
	rec_meta_init(&j->meta);
	return j;
}

static int journal_lock(struct rec_journal *j)
{
	char *lock = xasprintf("%s/%s", j->dir, LOCK_FILE);
	int rc = -1;
	j->lock_fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (j->lock_fd < 0)
		error_errno("cannot open '%s'", lock);
	else
		rc = rec_writer_lock(j->lock_fd, j->dir);
	free(lock);
	return rc;
}

void rec_journal_moved(struct rec_journal *j, const char *rundir)
{
	free(j->dir);
	j->dir = xasprintf("%s/%s", rundir, JOURNAL_DIR);
}

/* run.h5 anew from the journal's meta and plan. */
static int journal_write_run(struct rec_journal *j, int excl)
{
	char *path = xasprintf("%s/%s", j->dir, RUN_FILE);
	int rc = rec_build_file(path, excl, "run", &j->meta, j->plan, j->nplan, NULL);
	free(path);
	return rc;
}

static void meta_copy(struct rec_meta *to, const struct rec_meta *from)
{
	for (size_t k = 0; k < from->nkv; k++)
		rec_meta_push(to, xstrdup(from->kv[k].key), xstrdup(from->kv[k].value));
	for (size_t k = 0; k < from->nfiles; k++) {
		const struct rec_file *f = &from->files[k];
		rec_meta_add_file(to, f->role, f->path, f->text, f->len);
		/* keep the recorded hash as it was */
		free(to->files[to->nfiles - 1].sha256);
		to->files[to->nfiles - 1].sha256 = xstrdup(f->sha256);
	}
}

/* The journal folder appears whole: made as RUNDIR/journal.tmp-XXXXXX with its lock and
 * run.h5, then renamed to RUNDIR/journal (a run stopped before that has no journal). */
int rec_journal_create(const char *rundir, const struct rec_meta *meta,
		       const struct rec_plan *plan, size_t nplan, struct rec_journal **out)
{
	struct rec_journal *j = journal_alloc(rundir);
	char *final = j->dir, *tmp = xasprintf("%s.tmp-XXXXXX", final);
	int rc = -1;
	*out = NULL;
	if (access(final, F_OK) == 0) {
		error("'%s': already exists", final);
		free(tmp);
		goto done;
	}
	if (!mkdtemp(tmp)) {
		error_errno("cannot create '%s'", tmp);
		free(tmp);
		goto done;
	}
	chmod(tmp, 0755);
	j->dir = tmp;
	if (journal_lock(j) < 0)
		goto undo;
	meta_copy(&j->meta, meta);
	j->nplan = nplan;
	j->plan = xcalloc(nplan ? nplan : 1, sizeof(*j->plan));
	for (size_t i = 0; i < nplan; i++) {
		j->plan[i] = plan[i];
		j->plan[i].mode = xstrdup(plan[i].mode ? plan[i].mode : "");
		j->plan[i].workload = xstrdup(plan[i].workload ? plan[i].workload : "");
	}
	if (journal_write_run(j, 1) < 0)
		goto undo;
	if (rename(tmp, final) < 0) {
		error_errno("cannot rename '%s' to '%s'", tmp, final);
		goto undo;
	}
	j->dir = final;
	free(tmp);
	tmp = NULL;
	int dfd = open(rundir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd) < 0 && errno != EINVAL && errno != EROFS)
			error_errno("cannot write '%s' (fsync of its folder)", final);
		close(dfd);
	}
	*out = j;
	j = NULL;
	rc = 0;
	goto done;
undo:
	util_rm_rf(tmp);
	j->dir = final;
	free(tmp);
done:
	journal_free(j);
	return rc;
}

int rec_journal_open(const char *rundir, struct rec_journal **out)
{
	struct rec_journal *j = journal_alloc(rundir);
	struct rec *r = NULL;
	struct stat st;
	char *run = xasprintf("%s/%s", j->dir, RUN_FILE);
	int rc = -1;
	*out = NULL;
	if (stat(j->dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		error("'%s': no journal there (not a run folder of this harness?)", rundir);
		goto done;
	}
	if (journal_lock(j) < 0 || rec_open(run, 0, &r) < 0 || rec_read_meta(r, &j->meta) < 0 ||
	    rec_read_plan(r, &j->plan, &j->nplan) < 0)
		goto done;
	*out = j;
	j = NULL;
	rc = 0;
done:
	rec_close(r);
	free(run);
	journal_free(j);
	return rc;
}

const struct rec_meta *rec_journal_meta(const struct rec_journal *j)
{
	return &j->meta;
}

const struct rec_plan *rec_journal_plan(const struct rec_journal *j, size_t *n)
{
	*n = j->nplan;
	return j->plan;
}

int rec_journal_extend_plan(struct rec_journal *j, const struct rec_plan *plan, size_t nplan,
			    const char *const *kv, size_t nkv)
{
	if (nplan < j->nplan) {
		error("'%s': a plan of %zu units cannot replace the journal's %zu", j->dir, nplan,
		      j->nplan);
		return -1;
	}
	struct rec_plan *oldp = j->plan;
	size_t oldn = j->nplan;
	struct rec_meta old;
	rec_meta_init(&old);
	meta_copy(&old, &j->meta);
	j->plan = xcalloc(nplan ? nplan : 1, sizeof(*j->plan));
	for (size_t i = 0; i < nplan; i++) {
		j->plan[i] = plan[i];
		j->plan[i].mode = xstrdup(plan[i].mode ? plan[i].mode : "");
		j->plan[i].workload = xstrdup(plan[i].workload ? plan[i].workload : "");
	}
	j->nplan = nplan;
	for (size_t i = 0; i < nkv; i++)
		rec_meta_set(&j->meta, kv[2 * i], kv[2 * i + 1] ? kv[2 * i + 1] : "");
	int rc = journal_write_run(j, 0);
	if (rc < 0) { /* keep memory as the disk is */
		rec_plan_free(j->plan, j->nplan);
		j->plan = oldp;
		j->nplan = oldn;
		rec_meta_release(&j->meta);
		j->meta = old;
	} else {
		rec_plan_free(oldp, oldn);
		rec_meta_release(&old);
	}
	return rc;
}

int rec_journal_set_meta(struct rec_journal *j, const char *const *kv, size_t n)
{
	return rec_journal_extend_plan(j, j->plan, j->nplan, kv, n);
}

static int one_unit_get(void *ctx, size_t i, int headers, struct rec_unit_data *scratch,
			const struct rec_unit_data **out)
{
	(void)i;
	(void)headers;
	(void)scratch;
	*out = ctx;
	return 0;
}

int rec_journal_write_unit(struct rec_journal *j, const struct rec_unit_data *u)
{
	char *path = unit_path(j->dir, u->unit.id);
	struct rec_unit_data back;
	struct rec_unit_source src = { .n = 1, .get = one_unit_get, .ctx = (void *)u };
	int rc = -1;
	rec_unit_data_init(&back);
	if (u->unit.id < 0 || (size_t)u->unit.id >= j->nplan) {
		error("unit %" PRId64 " is not in the journal's plan", u->unit.id);
		goto done;
	}
	/* the digest first, from the bytes about to be written: a crash between the two
	 * leaves a digest without its file (the unit runs again), never a file without one */
	struct rec_digest_ctx dc = { j->dir, u->unit.id };
	if (rec_build_file_hook(path, 0, "unit", NULL, NULL, 0, &src, rec_digest_before, &dc) < 0)
		goto done;
	if (unit_file_read(path, u->unit.id, 0, &back) < 0 || unit_verify(path, &back, u) < 0) {
		error("'%s': the unit did not verify after writing; removed", path);
		unlink(path);
		goto done;
	}
	rc = 0;
done:
	rec_unit_data_release(&back);
	free(path);
	return rc;
}

/* PREFIX NNNN SUFFIX (4 to 12 digits) -> NNNN, or -1: the journal's per-unit file names. */
static int64_t file_id(const char *name, const char *prefix, const char *suffix)
{
	size_t n = strlen(prefix);
	if (strncmp(name, prefix, n))
		return -1;
	const char *p = name + n;
	int64_t id = 0;
	size_t digits = 0;
	for (; *p >= '0' && *p <= '9' && digits < 12; p++, digits++)
		id = id * 10 + (*p - '0');
	return digits >= 4 && !strcmp(p, suffix) ? id : -1;
}

/* "unit-NNNN.h5" -> NNNN, or -1. */
static int64_t unit_file_id(const char *name)
{
	return file_id(name, "unit-", ".h5");
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The ids of the unit files in journal folder dir, sorted; with clean, remove what
 * interrupted writes left (PATH.tmp-XXXXXX).  Reports and returns -1. */
static int list_units(const char *dir, int clean, int64_t **ids, size_t *n)
{
	DIR *d = opendir(dir);
	size_t cap = 0;
	*ids = NULL;
	*n = 0;
	if (!d)
		return error_errno("cannot read '%s'", dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (clean && strstr(e->d_name, ".h5.tmp-")) {
			char *p = xasprintf("%s/%s", dir, e->d_name);
			if (unlink(p) == 0)
				warning("'%s': removed, left by an interrupted write", p);
			free(p);
			continue;
		}
		int64_t id = unit_file_id(e->d_name);
		if (id < 0)
			continue;
		XGROW(*ids, cap, *n + 1);
		(*ids)[(*n)++] = id;
	}
	closedir(d);
	if (*n)
		qsort(*ids, *n, sizeof(**ids), cmp_i64);
	return 0;
}

int rec_journal_scan(struct rec_journal *j, struct rec_unit **units, size_t *n)
{
	int64_t *ids = NULL;
	size_t nids = 0;
	*units = NULL;
	*n = 0;
	if (list_units(j->dir, 1, &ids, &nids) < 0)
		return -1;
	*units = xcalloc(nids ? nids : 1, sizeof(**units));
	char **dg = rec_digests_load(j->dir, j->nplan);
	for (size_t i = 0; i < nids; i++) {
		char *path = unit_path(j->dir, ids[i]);
		struct rec_unit_data u;
		const char *why = NULL;
		rec_unit_data_init(&u);
		int ok = (size_t)ids[i] < j->nplan && rec_digest_check(dg, ids[i], path, &why) == 0 &&
			 unit_file_read(path, ids[i], 0, &u) == 0 &&
			 unit_verify(path, &u, NULL) == 0;
		if (ok && strcmp(u.unit.mode, j->plan[ids[i]].mode)) {
			error("'%s': unit of mode '%s', the plan says '%s'", path, u.unit.mode,
			      j->plan[ids[i]].mode);
			ok = 0;
		}
		if (ok) {
			(*units)[(*n)++] = u.unit;
			memset(&u.unit, 0, sizeof(u.unit));
		} else {
			warning("'%s': %s; removed, unit %" PRId64 " runs again", path,
				why ? why : "not a verified unit", ids[i]);
			unlink(path);
		}
		rec_unit_data_release(&u);
		free(path);
	}
	rec_digests_free(dg, j->nplan);
	free(ids);
	return 0;
}

/* ---- running notes ----------------------------------------------------------------------- */

static char *running_path(const char *dir, int64_t id)
{
	return xasprintf("%s/running-%04" PRId64, dir, id);
}

int rec_journal_note_running(struct rec_journal *j, int64_t id, int64_t elapsed_ns)
{
	char *path = running_path(j->dir, id);
	char text[32];
	int len = snprintf(text, sizeof(text), "%" PRId64 "\n", elapsed_ns);
	int rc = util_write_atomic(path, text, (size_t)len, 0644, 0);
	free(path);
	return rc;
}

void rec_journal_clear_running(struct rec_journal *j, int64_t id)
{
	char *path = running_path(j->dir, id);
	unlink(path);
	free(path);
}

/* Unit id's note: its elapsed time, or -1 when it is not one number >= 0 on one line. */
static int64_t running_read(const char *path)
{
	char *text = NULL;
	int64_t v = -1;
	/* util_read_input: a FIFO in its place is refused, never read for ever */
	if (util_read_input(path, 64, &text, NULL))
		return -1;
	text[strcspn(text, "\n")] = '\0';
	if (parse_i64(text, 0, INT64_MAX, &v))
		v = -1;
	free(text);
	return v;
}

static int cmp_running(const void *a, const void *b)
{
	return cmp_i64(&((const struct rec_running *)a)->id, &((const struct rec_running *)b)->id);
}

int rec_journal_scan_running(struct rec_journal *j, struct rec_running **notes, size_t *n)
{
	DIR *d = opendir(j->dir);
	size_t cap = 0;
	*notes = NULL;
	*n = 0;
	if (!d)
		return error_errno("cannot read '%s'", j->dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		char *p = xasprintf("%s/%s", j->dir, e->d_name);
		if (!strncmp(e->d_name, "running-", 8) && strstr(e->d_name, ".tmp-")) {
			unlink(p); /* an interrupted note */
			free(p);
			continue;
		}
		int64_t id = file_id(e->d_name, "running-", ""), v = id >= 0 ? running_read(p) : -1;
		if (id >= 0 && (v < 0 || (size_t)id >= j->nplan)) {
			warning("'%s': not a running note of this run's plan; removed", p);
			unlink(p);
		} else if (id >= 0) {
			XGROW(*notes, cap, *n + 1);
			(*notes)[(*n)++] = (struct rec_running){ .id = id, .elapsed_ns = v };
		}
		free(p);
	}
	closedir(d);
	if (*n)
		qsort(*notes, *n, sizeof(**notes), cmp_running);
	return 0;
}

void rec_journal_close(struct rec_journal *j)
{
	journal_free(j);
}

/* ---- assembly ------------------------------------------------------------------------- */

struct unit_files {
	char **path;
	const char **prefix; /* per path: put before its log paths, or NULL */
	int64_t *id;         /* per path: the unit its name says it holds */
	size_t n;
};

static int unit_files_get(void *ctx, size_t i, int headers, struct rec_unit_data *scratch,
			  const struct rec_unit_data **out)
{
	struct unit_files *f = ctx;
	*out = NULL;
	if (unit_file_read(f->path[i], f->id[i], headers, scratch) < 0 ||
	    (!headers && unit_verify(f->path[i], scratch, NULL) < 0))
		return -1;
	const char *pre = f->prefix ? f->prefix[i] : NULL;
	if (pre && *pre) {
		char **logs[2] = { &scratch->unit.stdout_log, &scratch->unit.stderr_log };
		for (size_t k = 0; k < 2; k++) {
			if (!*logs[k] || !**logs[k] || **logs[k] == '/')
				continue;
			char *np = xasprintf("%s/%s", pre, *logs[k]);
			free(*logs[k]);
			*logs[k] = np;
		}
	}
	return 0;
}

int rec_assemble(const char *const *rundirs, size_t n, const char *out)
{
	return rec_assemble_ex(rundirs, n, NULL, out);
}

int rec_assemble_ex(const char *const *rundirs, size_t n, const struct rec_assemble_opts *ao,
		    const char *out)
{
	struct unit_files files = { NULL, NULL, NULL, 0 };
	size_t icap = 0;
	struct rec *r = NULL;
	struct rec_meta meta;
	struct rec_plan *plan = NULL;
	size_t nplan = 0, cap = 0, pcap = 0;
	int64_t *owner = NULL; /* per plan id: the rundir index + 1 that holds it, or 0 */
	int rc = -1;

	rec_meta_init(&meta);
	if (n == 0)
		return error("no journal to assemble '%s' from", out);
	char *run = xasprintf("%s/%s/%s", rundirs[0], JOURNAL_DIR, RUN_FILE);
	int o = rec_open(run, 0, &r) < 0 || rec_read_meta(r, &meta) < 0 ||
		rec_read_plan(r, &plan, &nplan) < 0;
	free(run);
	if (o)
		goto done;
	owner = xcalloc(nplan ? nplan : 1, sizeof(*owner));
	for (size_t k = 0; k < n; k++) {
		char *dir = xasprintf("%s/%s", rundirs[k], JOURNAL_DIR);
		int64_t *ids = NULL;
		size_t nids = 0;
		int l = list_units(dir, 0, &ids, &nids);
		char **dg = l == 0 ? rec_digests_load(dir, nplan) : NULL;
		for (size_t i = 0; l == 0 && i < nids; i++) {
			if (ids[i] < 0 || (size_t)ids[i] >= nplan) {
				l = error("'%s': unit %" PRId64 " is not in the plan (%zu units)", dir,
					  ids[i], nplan);
				break;
			}
			if (owner[ids[i]]) {
				l = error("unit %" PRId64 " is recorded twice: in '%s' and in '%s'",
					  ids[i], rundirs[owner[ids[i]] - 1], rundirs[k]);
				break;
			}
			owner[ids[i]] = (int64_t)k + 1;
			XGROW(files.path, cap, files.n + 1);
			XGROW(files.prefix, pcap, files.n + 1);
			files.prefix[files.n] = ao && ao->log_prefix ? ao->log_prefix[k] : NULL;
			XGROW(files.id, icap, files.n + 1);
			files.id[files.n] = ids[i];
			files.path[files.n++] = unit_path(dir, ids[i]);
			const char *why = NULL;
			if (rec_digest_check(dg, ids[i], files.path[files.n - 1], &why) < 0) {
				l = error("'%s': %s; not assembled (harness run --resume runs the "
					  "unit again)", files.path[files.n - 1], why);
				break;
			}
		}
		rec_digests_free(dg, nplan);
		free(ids);
		free(dir);
		if (l < 0)
			goto done;
	}
	struct rec_unit_source src = { .n = files.n, .get = unit_files_get, .ctx = &files };
	rc = rec_write_results(out, ao ? ao->excl : 0, ao && ao->meta ? ao->meta : &meta, plan,
			       nplan, &src);
done:
	free(owner);
	free(files.prefix);
	free(files.id);
	rec_free_names(files.path, files.n);
	rec_plan_free(plan, nplan);
	rec_meta_release(&meta);
	rec_close(r);
	return rc;
}
