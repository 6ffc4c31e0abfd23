/* json.c: JSON values that never vanish (json.h) */
#include "config.h"
#include "harness/output/json.h"

#include <math.h>
#include <stdlib.h>

#include "harness/base/util.h"

json_t *jw_str(const char *s)
{
	if (!s)
		return json_null();
	char *fixed = util_utf8_sanitize(s);
	json_t *j = json_string(fixed ? fixed : s);
	free(fixed);
	if (!j)
		die("out of memory");
	return j;
}

json_t *jw_num(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

json_t *jw_strv(char *const *v, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, jw_str(v[i]));
	return arr;
}

void jw_set(json_t *o, const char *key, json_t *v)
{
	char *fixed = util_utf8_sanitize(key);
	json_object_set_new(o, fixed ? fixed : key, v);
	free(fixed);
}

int jw_dump(json_t *j, FILE *f, size_t flags, const char *what)
{
	int rc = j ? json_dumpf(j, f, flags) : -1;
	json_decref(j);
	fputc('\n', f);
	return rc ? error("cannot write the JSON %s", what) : 0;
}
