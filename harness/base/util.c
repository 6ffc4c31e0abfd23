/* util.c: allocation, error reporting, parsing, files, hashing and time helpers */
#include "config.h"
#include "harness/base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <csv.h>
#include <openssl/evp.h>

const char *util_progname = "harness";

static void *oom(size_t n)
{
	die("out of memory (%zu bytes)", n);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom(n);
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	return p ? p : oom(nmemb * size);
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom(n);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		die("bad format string '%s'", fmt);
	char *p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void xgrow(void **p, size_t *cap, size_t want, size_t elem)
{
	if (want <= *cap)
		return;
	size_t n = *cap ? *cap : 8;
	while (n < want)
		n *= 2;
	*p = xrealloc(*p, n * elem);
	*cap = n;
}

static void vreport(const char *prefix, const char *fmt, va_list ap, const char *suffix)
{
	char *msg = xvasprintf(fmt, ap);
	fprintf(stderr, "%s: %s%s%s\n", util_progname, prefix, msg, suffix ? suffix : "");
	free(msg);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap, NULL);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int e = errno;
	char suffix[256];
	snprintf(suffix, sizeof(suffix), ": %s", strerror(e));
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap, suffix);
	va_end(ap);
	errno = e;
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, NULL);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap, NULL);
	va_end(ap);
	exit(1);
}

void sbuf_init(struct sbuf *sb)
{
	sb->cap = 64;
	sb->len = 0;
	sb->buf = xmalloc(sb->cap);
	sb->buf[0] = '\0';
}

void sbuf_release(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

char *sbuf_detach(struct sbuf *sb)
{
	char *p = sb->buf;
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return p;
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	sb->buf[0] = '\0';
}

void sbuf_add(struct sbuf *sb, const void *data, size_t n)
{
	XGROW(sb->buf, sb->cap, sb->len + n + 1);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_adds(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	sbuf_adds(sb, s);
	free(s);
}

/* A TOML basic string: quoted, with ", \ and control characters escaped (util.h). */
void sbuf_add_toml_string(struct sbuf *sb, const char *s)
{
	sbuf_adds(sb, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sbuf_addf(sb, "\\%c", c);
		else if (c == '\n')
			sbuf_adds(sb, "\\n");
		else if (c == '\t')
			sbuf_adds(sb, "\\t");
		else if (c < 0x20 || c == 0x7f)
			sbuf_addf(sb, "\\u%04x", c);
		else
			sbuf_addf(sb, "%c", c);
	}
	sbuf_adds(sb, "\"");
}

void sbuf_add_json_string(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': sbuf_adds(sb, "\\\""); break;
		case '\\': sbuf_adds(sb, "\\\\"); break;
		case '\n': sbuf_adds(sb, "\\n"); break;
		case '\r': sbuf_adds(sb, "\\r"); break;
		case '\t': sbuf_adds(sb, "\\t"); break;
		default:
			if (*p < 0x20)
				sbuf_addf(sb, "\\u%04x", *p);
			else
				sbuf_add(sb, p, 1);
		}
	}
	sbuf_add(sb, "\"", 1);
}

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s || *s == '-')
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *s, double min, double max, double *out)
{
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

const char *util_file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a plain file";
}

int util_check_regular(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return error_errno("cannot read '%s'", path);
	if (!S_ISREG(st.st_mode))
		return error("'%s' is not a regular file (%s)", path, util_file_kind(st.st_mode));
	return 0;
}

int util_read_input(const char *path, size_t limit, char **data, size_t *len)
{
	/* O_NONBLOCK: opening a FIFO with no writer must not hang; the type check below then
	 * refuses it.  O_NOCTTY: a terminal named as input must not become ours. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return error_errno("cannot open '%s'", path);
	struct sbuf sb;
	sbuf_init(&sb);
	int ret = -1;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		error_errno("cannot stat '%s'", path);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error("'%s' is not a regular file (%s)", path, util_file_kind(st.st_mode));
		goto done;
	}
	if ((uint64_t)st.st_size > (uint64_t)limit) {
		error("'%s' is too large (%jd bytes; the limit is %zu)", path, (intmax_t)st.st_size,
		      limit);
		goto done;
	}
	/* Back to blocking reads of a regular file.  Read at most one byte more than the size
	 * fstat reported: a file that yields more (a /proc or /sys pseudo-file reports size 0,
	 * or the file grew while read) is refused rather than trusted. */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	size_t want = (size_t)st.st_size + 1;
	char buf[65536];
	while (sb.len < want) {
		size_t ask = want - sb.len < sizeof(buf) ? want - sb.len : sizeof(buf);
		ssize_t n = read(fd, buf, ask);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error_errno("cannot read '%s'", path);
			goto done;
		}
		if (n == 0)
			break;
		sbuf_add(&sb, buf, (size_t)n);
	}
	if (sb.len != (size_t)st.st_size) {
		error("'%s' changed size while it was read, or is not a plain file (%jd bytes "
		      "reported, %s read)",
		      path, (intmax_t)st.st_size, sb.len > (size_t)st.st_size ? "more" : "fewer");
		goto done;
	}
	if (len)
		*len = sb.len;
	*data = sbuf_detach(&sb);
	ret = 0;
done:
	close(fd);
	sbuf_release(&sb);
	return ret;
}

int util_read_file(const char *path, char **data, size_t *len)
{
	return util_read_input(path, UTIL_INPUT_MAX, data, len);
}

/* Put tmp in place as path: rename, or with excl a link (which fails when path exists;
 * where the file system has no hard links, rename after a check). */
static int publish(const char *tmp, const char *path, int excl)
{
	if (!excl) {
		if (rename(tmp, path) < 0)
			return error_errno("cannot write '%s' (rename)", path);
		return 0;
	}
	if (link(tmp, path) == 0) {
		unlink(tmp);
		return 0;
	}
	if (errno == EEXIST)
		return error("'%s': already exists; not overwriting it", path);
	if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != EMLINK)
		return error_errno("cannot write '%s' (link)", path);
	struct stat st;
	if (lstat(path, &st) == 0)
		return error("'%s': already exists; not overwriting it", path);
	if (rename(tmp, path) < 0)
		return error_errno("cannot write '%s' (rename)", path);
	return 0;
}

int util_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
		      unsigned flags)
{
	int excl = (flags & UTIL_WRITE_EXCL) != 0;
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned long seq;
	char *tmp = NULL, *dir = NULL;
	int fd = -1, rc = -1, made = 0;

	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		unsigned long long x = (unsigned long long)util_now_ns() ^
				       ((unsigned long long)getpid() << 20) ^ (++seq * 0x9e3779b97f4a7c15ULL);
		char sfx[7];
		for (int k = 0; k < 6; k++, x /= 36)
			sfx[k] = letters[x % 36];
		sfx[6] = '\0';
		free(tmp);
		tmp = xasprintf("%s.tmp-%s", path, sfx);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		error_errno("cannot write '%s' (create a temporary file)", path);
		goto done;
	}
	made = 1;
	const char *p = data;
	size_t left = len;
	while (left) {
		size_t chunk = left < ((size_t)1 << 20) ? left : ((size_t)1 << 20);
		ssize_t n = write(fd, p, chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			error_errno("cannot write '%s'", path);
			goto done;
		}
		p += n;
		left -= (size_t)n;
	}
	if (fchmod(fd, mode) < 0 || fsync(fd) < 0) {
		error_errno("cannot write '%s' (fsync)", path);
		goto done;
	}
	int cfd = fd;
	fd = -1;
	if (close(cfd) < 0) {
		error_errno("cannot write '%s' (close)", path);
		goto done;
	}
	if (publish(tmp, path, excl) < 0)
		goto done;
	made = 0;
	const char *slash = strrchr(path, '/');
	dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		/* EINVAL: a file system that cannot sync a folder; the rename stands */
		if (fsync(dfd) < 0 && errno != EINVAL && errno != EROFS) {
			error_errno("cannot write '%s' (fsync of its folder)", path);
			close(dfd);
			goto done;
		}
		close(dfd);
	}
	rc = 0;
done:
	if (fd >= 0)
		close(fd);
	if (made)
		unlink(tmp);
	free(tmp);
	free(dir);
	return rc;
}

int util_write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	return util_write_atomic(path, data, len, mode, 0);
}

void util_boot_id(char *buf, size_t n)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	char tmp[64];
	if (f && fgets(tmp, sizeof(tmp), f)) {
		tmp[strcspn(tmp, "\n")] = '\0';
		if (*tmp && n)
			snprintf(buf, n, "%s", tmp);
	}
	if (f)
		fclose(f);
}

int util_mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			error_errno("cannot create directory '%s'", p);
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = 0;
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		r = error_errno("cannot create directory '%s'", p);
	free(p);
	return r;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	int r = (flag == FTW_DP) ? rmdir(path) : unlink(path);
	if (r < 0)
		error_errno("cannot remove '%s'", path);
	return r < 0 ? -1 : 0;
}

int util_rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : error_errno("cannot stat '%s'", path);
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

int util_dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return error_errno("cannot open directory '%s'", path);
	int empty = 1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	}
	closedir(d);
	return empty;
}

/* A SHA-256 digest as 64 lowercase hex digits plus NUL. */
static void sha256_hex_of(const unsigned char md[32], char out[65])
{
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[64] = '\0';
}

void util_sha256_hex(const void *data, size_t n, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	if (!EVP_Digest(data, n, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		die("SHA-256 failed in libcrypto");
	sha256_hex_of(md, out);
}

struct util_sha256 *util_sha256_begin(void)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL))
		die("SHA-256 failed in libcrypto");
	return (struct util_sha256 *)c;
}

void util_sha256_add(struct util_sha256 *h, const void *data, size_t n)
{
	if (!EVP_DigestUpdate((EVP_MD_CTX *)h, data, n))
		die("SHA-256 failed in libcrypto");
}

void util_sha256_end(struct util_sha256 *h, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	if (out && (!EVP_DigestFinal_ex((EVP_MD_CTX *)h, md, &mdlen) || mdlen != 32))
		die("SHA-256 failed in libcrypto");
	EVP_MD_CTX_free((EVP_MD_CTX *)h);
	if (out)
		sha256_hex_of(md, out);
}

int util_sha256_file(const char *path, char out[65])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	int e = fstat(fd, &st) < 0 ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	struct util_sha256 *h = util_sha256_begin();
	unsigned char buf[1 << 16];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			util_sha256_end(h, NULL);
			close(fd);
			errno = e;
			return -1;
		}
		util_sha256_add(h, buf, (size_t)n);
	}
	close(fd);
	util_sha256_end(h, out);
	return 0;
}

int64_t util_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void util_utc_now(char out[32])
{
	util_utc_format((int64_t)time(NULL), out);
}

void util_utc_format(int64_t t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int64_t util_utc_parse(const char *s)
{
	struct tm tm = { 0 };
	int n = 0;
	if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || s[n])
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm);
}

void util_utc_stamp(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y%m%dT%H%M%SZ", &tm);
}

size_t util_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xmalloc((lb + 1) * sizeof(*row));
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t v = prev + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

/* 1 when path is dir or inside it. */
static int path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* 1 when the running executable was built in the build tree, compared both as configured
 * and with symlinks resolved. */
static int running_from_build_tree(void)
{
	char exe[PATH_MAX], real[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	if (path_under(exe, HARNESS_ABS_BUILDDIR))
		return 1;
	return realpath(HARNESS_ABS_BUILDDIR, real) && path_under(exe, real);
}

char *util_data_dir(const char *envvar, const char *sub)
{
	const char *env = getenv(envvar);
	if (env && *env)
		return xstrdup(env);
	if (running_from_build_tree())
		return xasprintf("%s/%s", HARNESS_ABS_SRCDIR, sub);
	return xasprintf("%s/%s", PKGDATADIR, sub);
}

void util_csv_field(FILE *f, const char *s)
{
	csv_fwrite(f, s, strlen(s));
}

int util_utf8_valid(const char *str, size_t n, size_t *bad)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		size_t len;
		unsigned min, cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			len = 2, min = 0x80, cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3, min = 0x800, cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4, min = 0x10000, cp = c & 0x07;
		} else {
			goto invalid;
		}
		if (n - i < len)
			goto invalid;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				goto invalid;
			cp = (cp << 6) | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			goto invalid;
		i += len;
	}
	return 1;
invalid:
	if (bad)
		*bad = i;
	return 0;
}

size_t util_utf8_column(const char *line, size_t offset)
{
	size_t col = 1;
	for (size_t i = 0; i < offset; i++)
		if (((unsigned char)line[i] & 0xc0) != 0x80)
			col++;
	return col;
}

char *util_utf8_sanitize(const char *s)
{
	size_t n = strlen(s), bad;
	if (util_utf8_valid(s, n, &bad))
		return NULL;
	struct sbuf sb;
	sbuf_init(&sb);
	size_t i = 0;
	for (;;) {
		sbuf_add(&sb, s + i, bad);
		sbuf_adds(&sb, "\xef\xbf\xbd"); /* U+FFFD REPLACEMENT CHARACTER */
		i += bad + 1;
		if (util_utf8_valid(s + i, n - i, &bad))
			break;
	}
	sbuf_add(&sb, s + i, n - i);
	return sbuf_detach(&sb);
}

int64_t util_add_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

int64_t util_s_to_ns(double s)
{
	if (!(s > 0))
		return 0;
	if (s >= 9.2233720368547e9) /* INT64_MAX ns, rounded down to a representable double */
		return INT64_MAX;
	return (int64_t)(s * 1e9);
}
