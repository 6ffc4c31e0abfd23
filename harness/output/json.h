/* json.h: what every JSON writer of the output layer (report-write.c, compare-write.c,
 * hyp-write.c, audit-write.c) builds its values with, so that none of them drops a row.
 * jansson refuses invalid UTF-8 (json_string and json_pack return NULL, and the object or
 * array holding the string silently loses it) and NaN or infinite reals (json_real returns
 * NULL): strings from a results file an older or damaged build wrote can hold the first,
 * statistics the second.  Private to harness/output/. */
#ifndef HARNESS_OUTPUT_JSON_H
#define HARNESS_OUTPUT_JSON_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* s as a JSON string, each byte of invalid UTF-8 written as U+FFFD (util_utf8_sanitize);
 * JSON null for NULL.  A new reference; never NULL. */
json_t *jw_str(const char *s);
/* v as a JSON real; null for NaN and infinities.  A new reference; never NULL. */
json_t *jw_num(double v);
/* The n strings of v as a JSON array of jw_str()s.  A new reference. */
json_t *jw_strv(char *const *v, size_t n);
/* json_object_set_new(o, key, v) with the key sanitized as jw_str() does (a unit status
 * from a results file is a key of the report's "failed" objects).  Steals v. */
void jw_set(json_t *o, const char *key, json_t *v);

/* Write j (taken over: released here; NULL, a json_pack that failed, is an error) to f with
 * jansson's flags, then a newline.  0, or reported ("cannot write the JSON <what>") -1. */
int jw_dump(json_t *j, FILE *f, size_t flags, const char *what);

#endif
