/* recorder-open.c: opening results files (and journal files) for reading, their identity
 * check */
#include "config.h"
#include "harness/record/recorder-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/util.h"

void rec_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void rec_free(struct rec *r)
{
	if (!r)
		return;
	rec_h5_close(r->file);
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

int rec_open(const char *path, int writable, struct rec **out)
{
	struct rec *r = NULL;
	struct stat st;
	hid_t fapl = -1;
	int rc = -1;

	*out = NULL;
	rec_h5_init();
	if (writable)
		return error("'%s': results files are not opened for writing (the journal is)", path);
	r = xcalloc(1, sizeof(*r));
	r->path = xstrdup(path);
	r->file = -1;
	if (stat(path, &st) < 0) {
		error_errno("'%s': cannot open", path);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error("'%s': not a regular file", path);
		goto done;
	}
	/* No table can hold more than deflate can expand the whole file to (unwritten chunks
	 * read as fill values, so a table's extent alone proves nothing). */
	r->max_bytes = (uint64_t)st.st_size * REC_INFLATE_MAX + ((uint64_t)1 << 20);
	htri_t is = H5Fis_hdf5(path);
	if (is <= 0) {
		H5Eclear2(H5E_DEFAULT);
		if (is == 0)
			error("'%s': not an HDF5 file", path);
		else
			error("'%s': cannot read (not a regular, readable file?)", path);
		goto done;
	}
	fapl = rec_h5_fapl_read();
	if (fapl >= 0)
		r->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
	if (r->file < 0) {
		rec_h5_error(path, "cannot open");
		goto done;
	}
	if (check_identity(r) < 0)
		goto done;
	*out = r;
	r = NULL;
	rc = 0;
done:
	rec_h5_close(fapl);
	rec_free(r);
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
	rec_free(r);
	return rc;
}
