/* recorder-open.c: creating and opening results files, their identity check and repairs */
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

/* ---- opening ------------------------------------------------------------------------ */

/* Open the HDF5 file of a writer between operations (no-op when open). */
int rec_enter(struct rec *r)
{
	if (r->file >= 0)
		return 0;
	hid_t fapl = rec_h5_fapl();
	if (fapl >= 0)
		r->file = H5Fopen(r->path, r->writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
	rec_h5_close(fapl);
	if (r->file < 0)
		return rec_h5_error(r->path, "cannot open");
	return 0;
}

/* Flush, close and sync (fdatasync) a writer's file; keep a reader's open. */
int rec_leave(struct rec *r, int wrote)
{
	int rc = 0;
	if (!r->writable || r->file < 0)
		return 0;
	if (wrote && H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0)
		rc = rec_h5_error(r->path, "cannot flush");
	if (H5Fclose(r->file) < 0 && !rc)
		rc = rec_h5_error(r->path, "cannot close");
	r->file = -1;
	if (wrote && !rc && r->lock_fd >= 0 && fdatasync(r->lock_fd) < 0)
		rc = error_errno("'%s': cannot sync", r->path);
	return rc;
}

void rec_free_names(char **names, size_t n)
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
	r->version = REC_FORMAT_VERSION;
	return r;
}

static void rec_free(struct rec *r)
{
	if (!r)
		return;
	rec_h5_close(r->file);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	rec_free_names(r->cell_names, r->ncells);
	free(r->path);
	free(r);
}

/* Check that the open file is a harness results file of a version we read. */
static int check_identity(struct rec *r)
{
	long long id = 0, version = 0;
	int got = rec_attr_get_int(r->file, ROOT_ID_ATTR, &id);
	if (got != 1 || id != 1)
		return error("'%s': not a harness results file (no %s attribute)", r->path,
			     ROOT_ID_ATTR);
	got = rec_attr_get_int(r->file, ROOT_VERSION_ATTR, &version);
	if (got < 0)
		return error("'%s': unreadable %s attribute", r->path, ROOT_VERSION_ATTR);
	if (got == 0)
		return error("'%s': not a harness results file (no %s attribute)", r->path,
			     ROOT_VERSION_ATTR);
	if (version < REC_FORMAT_OLDEST || version > REC_FORMAT_VERSION)
		return error("'%s': results format version %lld is not supported (this harness "
			     "reads versions %d to %d)", r->path, version, REC_FORMAT_OLDEST,
			     REC_FORMAT_VERSION);
	if (r->writable && version != REC_FORMAT_VERSION)
		return error("'%s': results format version %lld is read-only for this harness "
			     "(it appends to version %d files only)", r->path, version,
			     REC_FORMAT_VERSION);
	r->version = (int)version;
	for (size_t k = 0; k < REC_NTABLES_OF(r->version); k++) {
		htri_t e = H5Lexists(r->file, rec_all_tables[k]->name + 1, H5P_DEFAULT);
		if (e <= 0) {
			H5Eclear2(H5E_DEFAULT);
			return error("'%s': not a complete harness results file (no %s)", r->path,
				     rec_all_tables[k]->name);
		}
	}
	return 0;
}

/* A clean close leaves the file exactly as long as HDF5's end of allocated space (EOA).
 * A writer killed inside a write can leave it longer, with metadata that points past the
 * recorded EOA: reads still work but the next allocation fails.  Extending the EOA to the
 * file's length makes those addresses valid again; rec_trim_all() then drops the rows of the
 * write that was cut off. */
static int repair_eoa(struct rec *r)
{
	haddr_t eoa;
	struct stat st;
	if (H5Fget_eoa(r->file, &eoa) < 0)
		return rec_h5_error(r->path, "cannot read the end of allocated space");
	if (fstat(r->lock_fd, &st) < 0)
		return error_errno("'%s': cannot stat", r->path);
	if ((haddr_t)st.st_size <= eoa)
		return 0;
	if (H5Fincrement_filesize(r->file, 0) < 0)
		return rec_h5_error(r->path, "cannot repair the end of allocated space");
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
		rc = rec_h5_error(path, "cannot create /run");
		goto done;
	}
	for (size_t k = 0; k < meta->nkv; k++) {
		if (rec_attr_set_string(run, meta->kv[k].key, meta->kv[k].value) < 0) {
			rc = rec_h5_error(path, "cannot write /run attribute '%s'", meta->kv[k].key);
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
			 rec_attr_set_string(d, "role", f->role) >= 0 &&
			 rec_attr_set_string(d, "path", f->path) >= 0 &&
			 rec_attr_set_string(d, "sha256", f->sha256) >= 0;
		if (!ok)
			rc = rec_h5_error(path, "cannot write %s/%s ('%s')", FILES_GROUP, name, f->path);
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

int rec_create(const char *path, const struct rec_meta *meta, const struct rec_plan *plan,
	       size_t nplan, struct rec **out)
{
	struct rec *r = NULL;
	hid_t fapl = -1;
	sigset_t old;
	int rc = -1;

	*out = NULL;
	rec_h5_init();
	rec_signals_hold(&old);
	r = rec_alloc(path, 1);
	r->lock_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (r->lock_fd < 0) {
		if (errno == EEXIST)
			error("'%s': already exists", path);
		else
			error_errno("'%s': cannot create", path);
		goto done;
	}
	if (rec_writer_lock(r->lock_fd, path) < 0)
		goto fail;
	fapl = rec_h5_fapl();
	if (fapl >= 0)
		r->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	if (r->file < 0) {
		rec_h5_error(path, "cannot create");
		goto fail;
	}
	if (rec_attr_set_int(r->file, ROOT_ID_ATTR, 1) < 0 ||
	    rec_attr_set_int(r->file, ROOT_VERSION_ATTR, REC_FORMAT_VERSION) < 0) {
		rec_h5_error(path, "cannot write the format attributes");
		goto fail;
	}
	if (write_meta(r->file, path, meta) < 0)
		goto fail;
	for (size_t k = 0; k < REC_NTABLES; k++)
		if (rec_table_create(r->file, path, rec_all_tables[k]) < 0)
			goto fail;
	if (nplan) {
		struct rec_plan *rows = xmalloc(nplan * sizeof(*rows));
		memcpy(rows, plan, nplan * sizeof(*rows));
		rec_rows_fill_strings(&rec_t_plan, rows, nplan, 0);
		hid_t d = rec_table_open(r->file, path, &rec_t_plan);
		int w = d < 0 ? -1 : rec_table_append(d, path, &rec_t_plan, rows, nplan, NULL);
		rec_h5_close(d);
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
	rec_h5_close(r->file);
	r->file = -1;
	unlink(path);
done:
	rec_h5_close(fapl);
	rec_free(r);
	rec_signals_restore(&old);
	return rc;
}

int rec_open(const char *path, int writable, struct rec **out)
{
	struct rec *r = NULL;
	struct stat st;
	sigset_t old;
	int rc = -1;

	*out = NULL;
	rec_h5_init();
	if (writable)
		rec_signals_hold(&old);
	r = rec_alloc(path, writable);
	if (writable) {
		r->lock_fd = open(path, O_RDWR | O_CLOEXEC);
		if (r->lock_fd < 0) {
			error_errno("'%s': cannot open", path);
			goto done;
		}
		if (rec_writer_lock(r->lock_fd, path) < 0)
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
	if (writable && (repair_eoa(r) < 0 || rec_trim_all(r->file, path) < 0 || rec_leave(r, 1) < 0))
		goto done;
	*out = r;
	r = NULL;
	rc = 0;
done:
	rec_free(r);
	if (writable)
		rec_signals_restore(&old);
	return rc;
}

int rec_format_version(const struct rec *r)
{
	return r->version;
}

int rec_close(struct rec *r)
{
	if (!r)
		return 0;
	int rc = 0;
	if (r->file >= 0 && H5Fclose(r->file) < 0)
		rc = rec_h5_error(r->path, "cannot close");
	r->file = -1;
	if (r->lock_fd >= 0 && close(r->lock_fd) < 0 && !rc)
		rc = error_errno("'%s': cannot close", r->path);
	r->lock_fd = -1;
	rec_free(r);
	return rc;
}
