/* recorder-open.c: opening results files (and journal files) for reading, their identity
 * check */
#include "config.h"
#include "harness/record/recorder-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/spawn.h"
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

/* Version 1 files hold variable-length strings, which libhdf5 reads by following pointers
 * into the file's global heap that it does not check: damage there crashes the reading
 * process (a segfault inside H5HG_read, issue 45).  So before a version 1 file is read, a
 * child process reads it whole: the metadata and every table with strings (the samples are
 * numbers).  A child killed by a signal is reported as damage, naming what it was reading
 * (it notes each name on a pipe first); one that failed has reported why itself.  In the
 * child, probe_fd is the pipe and rec_open probes nothing. */
static int probe_fd = -1;

static void probe_note(const char *what)
{
	size_t n = strlen(what);
	if (write(probe_fd, what, n) != (ssize_t)n || write(probe_fd, "\n", 1) != 1)
		_exit(3);
}

/* spawn_call's child: 0 read whole, 2 an error (reported), killed by the damage. */
/* The child's address space, capped at what it has now plus 256 MiB and 16 times the file:
 * libhdf5 1.10 allocates and zeroes a variable-length string's conversion buffer as long as
 * the file says, before any check, so a damaged length cost seconds of page faults (the
 * fuzzer's timeout input, 7-9 s for a 242 KB file); capped, the allocation fails at once
 * and the read reports damage.  Nothing is capped where /proc cannot say the size. */
static void probe_cap_memory(const char *path)
{
	struct stat st;
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "re");
	int ok = f && fscanf(f, "%llu", &pages) == 1;
	if (f)
		fclose(f);
	if (!ok || stat(path, &st) < 0)
		return;
	struct rlimit rl;
	rl.rlim_cur = rl.rlim_max = (rlim_t)(pages * (unsigned long long)sysconf(_SC_PAGESIZE) +
					     ((rlim_t)256 << 20) + 16 * (rlim_t)st.st_size);
	setrlimit(RLIMIT_AS, &rl);
}

static int probe_child(void *arg, int fd)
{
	const char *path = arg;
	struct rec *r = NULL;
	probe_fd = fd;
	probe_cap_memory(path);
	int bad = rec_open(path, 0, &r) < 0;
	if (!bad) {
		struct rec_meta m;
		rec_meta_init(&m);
		probe_note("its metadata (the root's attributes and /files)");
		bad = rec_read_meta(r, &m) < 0;
		rec_meta_release(&m);
	}
	for (size_t k = 0; !bad && k < REC_NTABLES_V1; k++) {
		const struct table *tb = rec_all_tables[k];
		void *rows = NULL;
		size_t n = 0;
		if (tb == &rec_t_samples)
			continue;
		probe_note(tb->name);
		bad = rec_read_all(r, tb, &rows, &n) < 0;
		if (!bad)
			rec_free_rows(tb, rows, n);
	}
	return bad ? 2 : 0;
}

static int probe_v1(const char *path)
{
	struct sbuf notes;
	struct spawn_status st;
	sbuf_init(&notes);
	sbuf_adds(&notes, "");
	int rc = spawn_call(probe_child, (void *)path, 4096, &notes, &st);
	if (rc == 0 && st.exited && st.code == 0) {
		sbuf_release(&notes);
		return 0;
	}
	if (rc == 0 && st.exited && st.code == 2)
		rc = -1; /* reported by the child */
	else if (rc == 0 && st.signaled) {
		/* the last name noted: what it was reading */
		while (notes.len && notes.buf[notes.len - 1] == '\n')
			notes.buf[--notes.len] = '\0';
		const char *last = strrchr(notes.buf, '\n') ? strrchr(notes.buf, '\n') + 1 : notes.buf;
		rc = error("'%s': damaged: reading %s killed the reader (signal %d, %s); a version "
			   "1 file holds variable-length strings, which libhdf5 follows without "
			   "checking them, so nothing of this file is read",
			   path, *last ? last : "it", st.sig, strsignal(st.sig));
	} else if (rc == 0) {
		rc = error("'%s': cannot check it: its reader exited %d", path, st.code);
	}
	sbuf_release(&notes);
	return rc;
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
		error("'%s': not a regular file (%s)", path, util_file_kind(st.st_mode));
		goto done;
	}
	/* No table can hold more than deflate can expand the whole file to (unwritten chunks
	 * read as fill values, so a table's extent alone proves nothing). */
	r->max_bytes = (uint64_t)st.st_size * REC_INFLATE_MAX + ((uint64_t)1 << 20);
	r->file_bytes = (uint64_t)st.st_size;
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
	if (r->version < 2 && probe_fd < 0 && probe_v1(path) < 0)
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
