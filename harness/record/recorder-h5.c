/* recorder-h5.c: the recorder's adapter to HDF5 (errors, access properties, string types, the
 * in-memory file and its atomic write), attributes, and the writer's signal mask and lock */
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

/* ---- the HDF5 adapter ----------------------------------------------------------- */

/* Silence HDF5's automatic error stack printing; failures are reported through
 * error() with the innermost HDF5 message as the cause. */
void rec_h5_init(void)
{
	static int done;
	if (done)
		return;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	done = 1;
}

static herr_t h5_cause_cb(unsigned n, const H5E_error2_t *e, void *data)
{
	char *buf = data;
	if (n == 0 && e->desc)
		snprintf(buf, 256, "%s", e->desc);
	return 0;
}

/* Report "'path': <what>: <innermost HDF5 message>", clear the HDF5 stack, return -1. */
__attribute__((format(printf, 2, 3)))
int rec_h5_error(const char *path, const char *fmt, ...)
{
	char cause[256] = "";
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5_cause_cb, cause);
	H5Eclear2(H5E_DEFAULT);
	va_list ap;
	va_start(ap, fmt);
	char *what = xvasprintf(fmt, ap);
	va_end(ap);
	if (*cause)
		error("'%s': %s: %s", path, what, cause);
	else
		error("'%s': %s", path, what);
	free(what);
	return -1;
}

void rec_h5_close(hid_t id)
{
	if (id < 0)
		return;
	switch (H5Iget_type(id)) {
	case H5I_FILE: H5Fclose(id); break;
	case H5I_GROUP: H5Gclose(id); break;
	case H5I_DATATYPE: H5Tclose(id); break;
	case H5I_DATASPACE: H5Sclose(id); break;
	case H5I_DATASET: H5Dclose(id); break;
	case H5I_ATTR: H5Aclose(id); break;
	case H5I_GENPROP_LST: H5Pclose(id); break;
	default: break;
	}
}

/* Variable-length UTF-8 string type, for reading version 1 files (the caller closes it). */
hid_t rec_h5_str_type(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t < 0)
		return -1;
	if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

/* Fixed-length, NUL-padded UTF-8 string type of size bytes (the caller closes it). */
hid_t rec_h5_fixed_str(size_t size)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	if (t < 0)
		return -1;
	if (H5Tset_size(t, size ? size : 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0 ||
	    H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

/* File access for reading: no flock (a researcher's h5py session must not block a reader,
 * nor a reader a rename) and a close that really closes. */
hid_t rec_h5_fapl_read(void)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (fapl < 0)
		return -1;
	if (H5Pset_file_locking(fapl, 0, 1) < 0 ||
	    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
		H5Pclose(fapl);
		return -1;
	}
	return fapl;
}

/* The in-memory file's buffer, kept when HDF5 closes the file: the core driver allocates,
 * grows and frees its buffer through these callbacks, and the free at close (after the
 * final superblock, flags cleared and checksummed, is in it) hands the buffer over instead.
 * (H5Fget_file_image on an open file gives an image whose superblock checksum does not
 * match in HDF5 1.10's latest format: measured, every such image fails to open.) */
static void *img_malloc(size_t size, H5FD_file_image_op_t op, void *udata)
{
	struct rec_image *im = udata;
	(void)op;
	void *p = malloc(size ? size : 1);
	if (p && im)
		im->cap = size;
	return p;
}

static void *img_memcpy(void *dest, const void *src, size_t size, H5FD_file_image_op_t op,
			void *udata)
{
	(void)op;
	(void)udata;
	return memcpy(dest, src, size);
}

static void *img_realloc(void *ptr, size_t size, H5FD_file_image_op_t op, void *udata)
{
	struct rec_image *im = udata;
	(void)op;
	void *p = realloc(ptr, size ? size : 1);
	if (p && im)
		im->cap = size;
	return p;
}

static herr_t img_free(void *ptr, H5FD_file_image_op_t op, void *udata)
{
	struct rec_image *im = udata;
	if (im && op == H5FD_FILE_IMAGE_OP_FILE_CLOSE && ptr) {
		free(im->buf);
		im->buf = ptr;
		return 0;
	}
	free(ptr);
	return 0;
}

static void *img_udata_copy(void *udata)
{
	return udata;
}

static herr_t img_udata_free(void *udata)
{
	(void)udata;
	return 0;
}

/* A new, empty HDF5 file in memory (the core driver, no backing store), in the library's
 * latest format (checksummed metadata), its buffer kept in *im at close.  path names the
 * file it will become, for messages.  Reports and returns -1 on failure. */
hid_t rec_h5_image_create(const char *path, struct rec_image *im)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fcpl = -1, f = -1;
	H5FD_file_image_callbacks_t cb = { img_malloc, img_memcpy, img_realloc, img_free,
					   img_udata_copy, img_udata_free, im };
	im->buf = NULL; /* before and ctx stay as the caller set them */
	im->cap = 0;
	rec_h5_init();
	if (fapl < 0 || H5Pset_fapl_core(fapl, (size_t)4 << 20, 0) < 0 ||
	    H5Pset_file_image_callbacks(fapl, &cb) < 0 ||
	    H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST) < 0 ||
	    H5Pset_file_locking(fapl, 0, 1) < 0 ||
	    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
	    (fcpl = H5Pcreate(H5P_FILE_CREATE)) < 0 ||
	    H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0)
		goto done;
	/* The name only labels the in-memory file: nothing is written under it. */
	char *label = xasprintf("%s.image", path);
	f = H5Fcreate(label, H5F_ACC_TRUNC, fcpl, fapl);
	free(label);
done:
	if (f < 0)
		rec_h5_error(path, "cannot build the file in memory");
	rec_h5_close(fcpl);
	rec_h5_close(fapl);
	return f;
}

/* Close the in-memory file (every object in it closed first) and write its image to path
 * atomically (rec_write_atomic; excl: never replace an existing path).  im's buffer is
 * freed.  Reports and returns -1. */
int rec_h5_image_write(hid_t file, struct rec_image *im, const char *path, int excl)
{
	int rc = -1;
	if (H5Fclose(file) < 0) {
		rec_h5_error(path, "cannot build the file in memory");
		goto done;
	}
	/* The file's length is its superblock's end-of-file address (superblock version 2
	 * or 3: signature, version, two sizes, flags, then base, extension, end of file). */
	const unsigned char *b = im->buf;
	uint64_t eof = 0;
	if (!b || im->cap < 48 || memcmp(b, "\x89HDF\r\n\x1a\n", 8) || b[8] < 2 || b[9] != 8) {
		error("'%s': the file built in memory has no superblock of the expected kind", path);
		goto done;
	}
	for (int k = 7; k >= 0; k--)
		eof = eof << 8 | b[28 + k];
	if (eof < 48 || eof > im->cap) {
		error("'%s': the file built in memory claims %llu bytes of %zu", path,
		      (unsigned long long)eof, im->cap);
		goto done;
	}
	if (im->before && im->before(im->ctx, im->buf, (size_t)eof))
		goto done;
	rc = rec_write_atomic(path, im->buf, (size_t)eof, excl);
done:
	free(im->buf);
	im->buf = NULL;
	return rc;
}

/* Write len bytes to path atomically (util_write_atomic; excl: never replace an existing
 * path) with SIGINT and SIGTERM held off meanwhile.  Reports once and returns -1. */
int rec_write_atomic(const char *path, const void *data, size_t len, int excl)
{
	sigset_t old;
	rec_signals_hold(&old);
	int rc = util_write_atomic(path, data, len, 0644, excl ? UTIL_WRITE_EXCL : 0);
	rec_signals_restore(&old);
	return rc;
}

/* ---- attributes -------------------------------------------------------------------- */

/* Set a fixed-length UTF-8 string attribute on obj (as long as the value, at least one
 * byte), replacing any old one. */
int rec_attr_set_string(hid_t obj, const char *name, const char *value)
{
	size_t len = strlen(value);
	hid_t str = rec_h5_fixed_str(len), space = -1, a = -1;
	int rc = -1;
	htri_t exists = str >= 0 ? H5Aexists(obj, name) : -1;
	if (exists < 0 || (exists > 0 && H5Adelete(obj, name) < 0))
		goto done;
	space = H5Screate(H5S_SCALAR);
	a = space >= 0 ? H5Acreate2(obj, name, str, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
	char *buf = xcalloc(len + 1, 1);
	memcpy(buf, value, len);
	if (a >= 0 && H5Awrite(a, str, buf) >= 0)
		rc = 0;
	free(buf);
done:
	rec_h5_close(a);
	rec_h5_close(space);
	rec_h5_close(str);
	return rc;
}

/* Read a scalar string attribute into a heap string: fixed-length, or variable-length where
 * allow_vlen (version 1 files).  Checks its class, size and shape first; -1 (not reported)
 * when it is not such an attribute. */
int rec_attr_get_string(hid_t a, int allow_vlen, char **out)
{
	hid_t ftype = H5Aget_type(a), mtype = -1, space = H5Aget_space(a);
	int rc = -1;
	*out = NULL;
	if (ftype < 0 || space < 0 || H5Tget_class(ftype) != H5T_STRING ||
	    H5Sget_simple_extent_npoints(space) != 1)
		goto done;
	htri_t vlen = H5Tis_variable_str(ftype);
	if (vlen > 0 && allow_vlen) {
		char *s = NULL;
		mtype = rec_h5_str_type();
		if (mtype < 0 || H5Aread(a, mtype, &s) < 0)
			goto done;
		*out = xstrdup(s ? s : "");
		H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, &s);
		rc = 0;
	} else if (vlen == 0) {
		size_t n = H5Tget_size(ftype);
		if (n == 0 || n > REC_STR_MAX)
			goto done;
		char *s = xcalloc(n + 1, 1);
		mtype = H5Tcopy(ftype); /* the stored type: no conversion (none across csets) */
		if (mtype < 0 || H5Aread(a, mtype, s) < 0) {
			free(s);
			goto done;
		}
		*out = s;
		rc = 0;
	}
done:
	rec_h5_close(mtype);
	rec_h5_close(space);
	rec_h5_close(ftype);
	return rc;
}

int rec_attr_set_int(hid_t obj, const char *name, int value)
{
	hid_t space = H5Screate(H5S_SCALAR);
	hid_t a = space >= 0 ? H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT,
					  H5P_DEFAULT) : -1;
	int rc = a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &value) >= 0 ? 0 : -1;
	rec_h5_close(a);
	rec_h5_close(space);
	return rc;
}

/* 1 and *value when obj has an integer attribute name, 0 when it has none, -1 when it
 * has one that is not an integer. */
int rec_attr_get_int(hid_t obj, const char *name, long long *value)
{
	htri_t e = H5Aexists(obj, name);
	if (e <= 0) {
		H5Eclear2(H5E_DEFAULT);
		return e < 0 ? -1 : 0;
	}
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	hid_t t = a >= 0 ? H5Aget_type(a) : -1;
	hid_t space = a >= 0 ? H5Aget_space(a) : -1;
	int rc = -1;
	if (t >= 0 && space >= 0 && H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) <= 8 &&
	    H5Sget_simple_extent_npoints(space) == 1 && H5Aread(a, H5T_NATIVE_LLONG, value) >= 0)
		rc = 1;
	rec_h5_close(space);
	rec_h5_close(t);
	rec_h5_close(a);
	H5Eclear2(H5E_DEFAULT);
	return rc;
}

/* ---- signals and the writer's lock --------------------------------------------------- */

void rec_signals_hold(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, old);
}

void rec_signals_restore(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* Take the writer's lock on fd (an open file description lock: the kernel drops it when its
 * holder dies, so a lock is never stale); then write "pid N boot B" into the file, so that
 * a process refused can name the holder.  Reports and returns -1 when another process holds
 * it. */
int rec_writer_lock(int fd, const char *path)
{
#ifdef F_OFD_SETLK
	struct flock fl;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		if (errno != EAGAIN && errno != EACCES)
			return error_errno("'%s': cannot lock", path);
		char who[128] = "";
		ssize_t n = pread(fd, who, sizeof(who) - 1, 0);
		who[n > 0 ? n : 0] = '\0';
		who[strcspn(who, "\n")] = '\0';
		long pid = 0;
		if (sscanf(who, "pid %ld", &pid) == 1 && pid > 0)
			return error("'%s': is being written by another process (pid %ld); one "
				     "writer at a time", path, pid);
		return error("'%s': is being written by another process; one writer at a time",
			     path);
	}
	char boot[64] = "unknown";
	util_boot_id(boot, sizeof(boot));
	char line[160];
	int len = snprintf(line, sizeof(line), "pid %ld boot %s\n", (long)getpid(), boot);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, line, (size_t)len, 0) != len)
		return error_errno("'%s': cannot write its lock", path);
#endif
	return 0;
}
