/* recorder-h5.c: the recorder's adapter to HDF5 (errors, transfer and access properties, string
 * types), attributes, and the writer's signal mask and lock */
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

static void *h5_vlen_alloc(size_t n, void *info)
{
	return xmalloc(n);
}

static void h5_vlen_free(void *p, void *info)
{
	free(p);
}

/* A transfer property list for moving n rows of row_size bytes.  Its conversion buffer
 * is sized to the transfer (HDF5's default is 1 MiB, zeroed on every H5Dwrite: most of
 * the cost of appending a small unit).  For reads (read != 0), variable-length strings
 * come from xmalloc, so what a read returns can be handed over and freed with free(). */
hid_t rec_h5_dxpl(size_t n, size_t row_size, int read)
{
	size_t buf = n * row_size * 4;
	buf = buf < 8192 ? 8192 : buf > (1 << 20) ? (1 << 20) : buf;
	hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
	if (dxpl < 0)
		return -1;
	if (H5Pset_buffer(dxpl, buf, NULL, NULL) < 0 ||
	    (read && H5Pset_vlen_mem_manager(dxpl, h5_vlen_alloc, NULL, h5_vlen_free, NULL) < 0)) {
		H5Pclose(dxpl);
		return -1;
	}
	return dxpl;
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

/* Variable-length UTF-8 string type (the caller closes it). */
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

/* File access: 1.8-compatible objects (creation-order tracking needs them; any HDF5
 * from 1.8 on reads the file), no flock (see the top of this file), and a close that
 * really closes (and so flushes) even if some object were left open. */
hid_t rec_h5_fapl(void)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (fapl < 0)
		return -1;
	if (H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18) < 0 ||
	    H5Pset_file_locking(fapl, 0, 1) < 0 ||
	    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
		H5Pclose(fapl);
		return -1;
	}
	return fapl;
}

/* ---- attributes -------------------------------------------------------------------- */

/* Set a variable-length UTF-8 string attribute on obj, replacing its value in place
 * (so creation order is kept). */
int rec_attr_set_string(hid_t obj, const char *name, const char *value)
{
	hid_t str = rec_h5_str_type(), space = -1, a = -1;
	int rc = -1;
	htri_t exists = str >= 0 ? H5Aexists(obj, name) : -1;
	if (exists > 0) {
		a = H5Aopen(obj, name, H5P_DEFAULT);
		hid_t old = a >= 0 ? H5Aget_type(a) : -1;
		htri_t vlen = old >= 0 ? H5Tis_variable_str(old) : -1;
		rec_h5_close(old);
		if (vlen == 0) { /* written by someone else as a fixed string */
			rec_h5_close(a);
			a = -1;
			if (H5Adelete(obj, name) < 0)
				goto done;
			exists = 0;
		}
	}
	if (exists == 0) {
		space = H5Screate(H5S_SCALAR);
		a = space >= 0 ? H5Acreate2(obj, name, str, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
	}
	if (a >= 0 && H5Awrite(a, str, &value) >= 0)
		rc = 0;
done:
	rec_h5_close(a);
	rec_h5_close(space);
	rec_h5_close(str);
	return rc;
}

/* Read a string attribute (variable or fixed length) into a heap string. */
int rec_attr_get_string(hid_t a, char **out)
{
	hid_t ftype = H5Aget_type(a), mtype = -1;
	int rc = -1;
	*out = NULL;
	if (ftype < 0 || H5Tget_class(ftype) != H5T_STRING)
		goto done;
	htri_t vlen = H5Tis_variable_str(ftype);
	if (vlen > 0) {
		char *s = NULL;
		mtype = rec_h5_str_type();
		if (mtype < 0 || H5Aread(a, mtype, &s) < 0)
			goto done;
		*out = xstrdup(s ? s : "");
		hid_t space = H5Aget_space(a);
		H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, &s);
		H5Sclose(space);
		rc = 0;
	} else if (vlen == 0) {
		size_t n = H5Tget_size(ftype);
		char *s = xcalloc(n + 1, 1);
		mtype = H5Tcopy(ftype);
		if (mtype < 0 || H5Aread(a, mtype, s) < 0) {
			free(s);
			goto done;
		}
		*out = s;
		rc = 0;
	}
done:
	rec_h5_close(mtype);
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
	if (e <= 0)
		return e < 0 ? -1 : 0;
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	hid_t t = a >= 0 ? H5Aget_type(a) : -1;
	hid_t space = a >= 0 ? H5Aget_space(a) : -1;
	int rc = -1;
	if (t >= 0 && space >= 0 && H5Tget_class(t) == H5T_INTEGER &&
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

/* Take the writer's lock on fd; reports and returns -1 when another process holds it. */
int rec_writer_lock(int fd, const char *path)
{
#ifdef F_OFD_SETLK
	struct flock fl;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		if (errno == EAGAIN || errno == EACCES)
			return error("'%s': is being written by another process", path);
		return error_errno("'%s': cannot lock", path);
	}
#endif
	return 0;
}
