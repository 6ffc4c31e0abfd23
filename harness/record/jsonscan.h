/* jsonscan.h: a JSON document read in pieces, for files too large to hold as one tree (a
 * 100 MB Kernel Tuner cache): the reader walks the outer object and arrays itself and hands
 * each value it is asked for to jansson whole, so memory holds one value at a time, never
 * the document.  gzip-compressed files are read the same way (zlib). */
#ifndef HARNESS_JSONSCAN_H
#define HARNESS_JSONSCAN_H

#include <stddef.h>

#include <jansson.h>

struct jscan;

/* Open path (plain or gzip).  Reports and returns -1. */
int jscan_open(const char *path, struct jscan **out);
/* Close; NULL is a no-op. */
void jscan_close(struct jscan *s);

/* Step into the object or array that comes next: '{' or '[' into *kind.  0, or -1
 * reported (naming path:line:col) when neither comes. */
int jscan_enter(struct jscan *s, char *kind);
/* Inside an object: the next member's key into *key (heap): 1; the object ends: 0 (it is
 * left); -1 reported. */
int jscan_key(struct jscan *s, char **key);
/* Inside an array: 1 when another item follows, 0 when the array ends (it is left), -1
 * reported. */
int jscan_item(struct jscan *s);
/* The value that comes next, parsed by jansson (a new reference in *out), and where it
 * started (1-based).  -1 reported (path:line:col). */
int jscan_value(struct jscan *s, json_t **out, size_t *line, size_t *col);
/* After the document: 1 when only white space is left, 0 when more text follows, -1
 * reported (a read error). */
int jscan_at_end(struct jscan *s);
/* Where the reader is (1-based), for the caller's messages. */
void jscan_where(const struct jscan *s, size_t *line, size_t *col);
const char *jscan_path(const struct jscan *s);

#endif
