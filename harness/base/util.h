/* util.h: allocation, error reporting, number parsing, hashing and time helpers shared by every module */
#ifndef HARNESS_UTIL_H
#define HARNESS_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation: out of memory ends the process with a message (status 1); never returns NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a new heap string the caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);

/* Grow *p (holding *cap elements of size elem) to hold at least want elements. */
void xgrow(void **p, size_t *cap, size_t want, size_t elem);
#define XGROW(p, cap, want) xgrow((void **)&(p), &(cap), (want), sizeof(*(p)))

/* Reporting.  error() prints "harness: <msg>" on stderr and returns -1, so a leaf can
 * `return error("...")`.  warning() prints "harness: warning: <msg>".  die() prints and
 * exits with status 1 (used only for broken invariants and out-of-memory). */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* appends ": strerror(errno)" */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The program name used as the prefix of every message ("harness", or "harness worker"). */
extern const char *util_progname;

/* Growable string.  sbuf_init() makes an empty buffer; buf is always NUL-terminated;
 * sbuf_release() frees it; sbuf_detach() hands the heap string to the caller. */
struct sbuf {
	char *buf;
	size_t len, cap;
};
void sbuf_init(struct sbuf *sb);
void sbuf_release(struct sbuf *sb);
char *sbuf_detach(struct sbuf *sb);
void sbuf_add(struct sbuf *sb, const void *data, size_t n);
void sbuf_adds(struct sbuf *sb, const char *s);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_reset(struct sbuf *sb);

/* Range-checked parsing of a whole string (no trailing junk).  Return 0, or -1 without
 * printing (the caller knows the context and reports). */
int parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
int parse_u64(const char *s, uint64_t *out);
int parse_double(const char *s, double min, double max, double *out);

/* Seconds (a configured duration) to nanoseconds, saturating: NaN and negatives give 0,
 * anything past INT64_MAX ns (292 years) gives INT64_MAX, so a huge timeout never wraps
 * into the past. */
int64_t util_s_to_ns(double s);
/* a + b, saturating at INT64_MIN and INT64_MAX instead of wrapping (a clock plus a
 * duration, a sum of estimates: a huge one then stays huge, never in the past). */
int64_t util_add_sat(int64_t a, int64_t b);

/* Files.  util_read_input() reads a whole input file (an experiment, a hypothesis file, a
 * CSV, a lookup table) into a NUL-terminated heap buffer the caller frees.  Only a regular
 * file of at most limit bytes is read: a FIFO, a device, a directory, a /proc pseudo-file or
 * a file that changes size while read is refused, and the open never blocks.  Reports and
 * returns -1 on failure (*data untouched).  util_read_file() is the same with
 * UTIL_INPUT_MAX.  util_write_file() writes atomically (temp + rename).  util_mkdir_p()
 * makes a directory and its parents. */
#define UTIL_INPUT_MAX ((size_t)64 << 20) /* 64 MiB: far above any experiment or hypothesis file */
int util_read_input(const char *path, size_t limit, char **data, size_t *len);
int util_read_file(const char *path, char **data, size_t *len);
/* 0 when path is a regular file; else reports "'path' is not a regular file (a FIFO)" (or
 * why it cannot be read) and returns -1: for inputs read as streams, before they are
 * opened, so that a FIFO neither blocks nor comes out as "Invalid argument". */
int util_check_regular(const char *path);
/* What a file that is not a regular one is, for messages: "a FIFO", "a directory", ... */
const char *util_file_kind(mode_t mode);
/* Write len bytes to path so that path is either its old self or wholly the new bytes: a new
 * temporary file beside it ("PATH.tmp-XXXXXX", created with O_EXCL | O_NOFOLLOW, so never
 * through a planted link), every byte written, mode set, fsync, renamed into place (with
 * UTIL_WRITE_EXCL: linked, never replacing an existing path), then the folder synced.  On
 * failure the temporary file is removed and the error reported once, naming path and
 * errno; returns -1.  util_write_file() is util_write_atomic() with no flags. */
#define UTIL_WRITE_EXCL 0x1
int util_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
		      unsigned flags);
int util_write_file(const char *path, const void *data, size_t len, mode_t mode);
int util_mkdir_p(const char *path, mode_t mode);
/* This boot's id (/proc/sys/kernel/random/boot_id) into buf; buf unchanged when it cannot
 * be read. */
void util_boot_id(char *buf, size_t n);
/* Removes a directory tree; reports and returns -1 on failure. */
int util_rm_rf(const char *path);
/* 1 when path names an existing directory with no entries, 0 when it has entries, -1 on error. */
int util_dir_is_empty(const char *path);

/* UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).  Returns 1
 * when the n bytes at s are valid; else 0 and *bad (when not NULL) the offset of the first
 * byte of the first invalid sequence.  util_utf8_column() turns a byte offset within a line
 * into a 1-based column counted in characters, for line:col messages. */
int util_utf8_valid(const char *s, size_t n, size_t *bad);
size_t util_utf8_column(const char *line, size_t offset);
/* For writers of text that must be UTF-8 (JSON, HTML) given strings from a file an older
 * or damaged build wrote: NULL when s is valid UTF-8 (use s itself), else a new heap string
 * (the caller frees it) with each byte that starts no valid sequence replaced by U+FFFD,
 * so nothing is dropped and the damage stays visible. */
char *util_utf8_sanitize(const char *s);

/* SHA-256 (OpenSSL libcrypto) of a buffer as 64 lowercase hex digits plus NUL. */
void util_sha256_hex(const void *data, size_t n, char out[65]);
/* The same of a regular file's bytes, read in chunks (any size).  0, or -1 with errno set
 * (ENOENT: gone; EINVAL: not a regular file) and nothing reported: the caller says what the
 * file was for. */
int util_sha256_file(const char *path, char out[65]);
/* The same of bytes given in pieces: begin, add each piece, end (which frees the state and,
 * when out is not NULL, writes the digest). */
struct util_sha256;
struct util_sha256 *util_sha256_begin(void);
void util_sha256_add(struct util_sha256 *h, const void *data, size_t n);
void util_sha256_end(struct util_sha256 *h, char out[65]);

/* Time.  util_now_ns(): CLOCK_MONOTONIC in ns.  util_utc_now(): "YYYY-MM-DDTHH:MM:SSZ"
 * (the recorder's start_utc and end_utc), util_utc_format() the same of t seconds since the
 * epoch, util_utc_parse() the inverse (-1 for a string not of that form).
 * util_utc_stamp(): "YYYYMMDDTHHMMSSZ" for file names. */
int64_t util_now_ns(void);
void util_utc_now(char out[32]);
void util_utc_format(int64_t t, char out[32]);
int64_t util_utc_parse(const char *s);
void util_utc_stamp(char out[32]);

/* Where installed data lives (kernel templates, plot templates): $envvar when set, else the
 * source tree's <sub> when the running program was built in the build tree (the harness
 * binary or a unit test), else $(pkgdatadir)/<sub>.  A new heap string. */
char *util_data_dir(const char *envvar, const char *sub);

/* Levenshtein distance, for did-you-mean suggestions. */
size_t util_edit_distance(const char *a, const char *b);

/* One CSV field, quoted by libcsv (RFC 4180: commas, quotes and newlines survive), without
 * a separator.  Every CSV the harness writes (report, compare, export) goes through it. */
void util_csv_field(FILE *f, const char *s);

/* Quote a string as a JSON string literal into sb (used in protocol lines and metadata). */
void sbuf_add_json_string(struct sbuf *sb, const char *s);
/* s as a TOML basic string: quoted, '"' and '\\' escaped, \n and \t as such, other control
 * characters as \uXXXX (an experiment written for a run: harness time, selftest-unit). */
void sbuf_add_toml_string(struct sbuf *sb, const char *s);

#endif
