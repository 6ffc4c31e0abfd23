/* space.c: configuration spaces: grid and listed enumeration, membership, and the text form
 * of a point */
#include "config.h"
#include "kernels/space.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

size_t space_grid_size(const struct space *s)
{
	if (!s->nfields)
		return 0; /* a space without fields has only its vendor path */
	size_t n = 1;
	for (size_t f = 0; f < s->nfields; f++) {
		size_t v = s->fields[f].nvalues;
		if (!v)
			return 0;
		if (__builtin_mul_overflow(n, v, &n)) /* (no division: every grid point asks) */
			return SIZE_MAX;
	}
	return n;
}

/* Mixed radix, last field fastest: idx = sum_f digit_f * prod_{g > f} nvalues_g (a point
 * at random; the whole-grid walks take space_walk). */
int space_grid_point(const struct space *s, size_t idx, struct config *out)
{
	if (idx >= space_grid_size(s))
		return -1;
	memset(out, 0, sizeof(*out));
	for (size_t f = s->nfields; f-- > 0;) {
		size_t nv = s->fields[f].nvalues;
		out->val[f] = s->fields[f].values[idx % nv];
		idx /= nv;
	}
	return 0;
}

size_t space_value_index(const struct space_field *f, int64_t v)
{
	size_t lo = 0, hi = f->nvalues;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->values[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nvalues && f->values[lo] == v ? lo : f->nvalues;
}

static int value_allowed(const struct space_field *f, int64_t v)
{
	return space_value_index(f, v) < f->nvalues;
}

/* Grid order of two points of s (values ascending, last field fastest): lexicographic. */
static int grid_cmp(const struct space *s, const struct config *a, const struct config *b)
{
	for (size_t f = 0; f < s->nfields; f++)
		if (a->val[f] != b->val[f])
			return a->val[f] < b->val[f] ? -1 : 1;
	return 0;
}

size_t space_npoints(const struct space *s)
{
	return s->listed ? s->nlisted : space_grid_size(s);
}

int space_point(const struct space *s, size_t k, struct config *out)
{
	if (!s->listed)
		return space_grid_point(s, k, out);
	if (k >= s->nlisted)
		return -1;
	*out = s->listed[k];
	return 0;
}

int space_point_find(const struct space *s, const struct config *c, size_t *k)
{
	if (c->vendor || !s->nfields)
		return -1;
	if (!s->listed)
		return space_point_index(s, c, k);
	size_t lo = 0, hi = s->nlisted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = grid_cmp(s, &s->listed[mid], c);
		if (!r) {
			*k = mid;
			return 0;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

size_t space_nvendors(const struct space *s)
{
	if (!s->has_vendor)
		return 0;
	return s->nvendors ? s->nvendors : 1;
}

void space_vendor_point(const struct space *s, size_t k, struct config *out)
{
	memset(out, 0, sizeof(*out));
	out->vendor = 1;
	out->vendor_idx = k;
}

int space_check(const struct space *s, const struct config *c, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	if (c->vendor) {
		*why = !s->has_vendor ? "the space has no vendor path" : "no such vendor candidate";
		return c->vendor_idx < space_nvendors(s);
	}
	if (!s->nfields) {
		*why = "the space has no fields";
		return 0;
	}
	for (size_t f = 0; f < s->nfields; f++)
		if (!value_allowed(&s->fields[f], c->val[f])) {
			*why = "a value outside its field";
			return 0;
		}
	size_t k;
	if (s->listed && space_point_find(s, c, &k)) {
		*why = "not among the space's listed points";
		return 0;
	}
	return s->valid ? s->valid(s, c, why) : 1;
}

int space_contains(const struct space *s, const struct config *c)
{
	return space_check(s, c, NULL);
}

void space_walk_init(const struct space *s, struct space_walk *w)
{
	memset(w, 0, sizeof(*w));
	w->n = space_npoints(s);
}

int space_walk_next(const struct space *s, struct space_walk *w, struct config *out, size_t *k)
{
	if (w->idx >= w->n)
		return -1;
	if (k)
		*k = w->idx;
	if (s->listed)
		return space_point(s, w->idx++, out);
	memset(out, 0, sizeof(*out));
	for (size_t f = 0; f < s->nfields; f++)
		out->val[f] = s->fields[f].values[w->digit[f]];
	w->idx++;
	for (size_t f = s->nfields; f-- > 0;) { /* the odometer: last field fastest */
		if (++w->digit[f] < s->fields[f].nvalues)
			break;
		w->digit[f] = 0;
	}
	return 0;
}

int space_check_grid(const struct space *s, const struct config *c, const char **why)
{
	if (s->listed)
		return space_check(s, c, why);
	const char *dummy;
	return s->valid ? s->valid(s, c, why ? why : &dummy) : 1;
}

/* "vendor" or "vendor:algo=6,..." for candidate k. */
static void vendor_format(const struct space *s, size_t k, struct sbuf *out)
{
	sbuf_adds(out, "vendor");
	if (k >= s->nvendors)
		return;
	const struct vendor_point *v = &s->vendors[k];
	for (size_t p = 0; p < v->nparams; p++)
		sbuf_addf(out, "%c%s=%" PRId64, p ? ',' : ':', v->params[p].name, v->params[p].value);
}

void config_format(const struct space *s, const struct config *c, struct sbuf *out)
{
	if (c->vendor) {
		vendor_format(s, c->vendor_idx, out);
		return;
	}
	for (size_t f = 0; f < s->nfields; f++) {
		const struct space_field *fd = &s->fields[f];
		sbuf_addf(out, "%s%s=", f ? "," : "", fd->name);
		if (fd->labels && c->val[f] >= 0 && (size_t)c->val[f] < fd->nvalues)
			sbuf_adds(out, fd->labels[c->val[f]]);
		else
			sbuf_addf(out, "%" PRId64, c->val[f]);
	}
}

static void add_field_names(const struct space *s, struct sbuf *sb)
{
	for (size_t f = 0; f < s->nfields; f++)
		sbuf_addf(sb, "%s%s", f ? ", " : "", s->fields[f].name);
}

static void add_field_values(const struct space_field *f, struct sbuf *sb)
{
	for (size_t i = 0; i < f->nvalues && i < 32; i++) {
		sbuf_adds(sb, i ? ", " : "");
		if (f->labels)
			sbuf_adds(sb, f->labels[i]);
		else
			sbuf_addf(sb, "%" PRId64, f->values[i]);
	}
	if (f->nvalues > 32)
		sbuf_addf(sb, ", ... %zu in all", f->nvalues);
}

/* The value of field f written text (its label, or an integer): 0 and *v, or -1. */
static int parse_value(const struct space_field *f, const char *text, int64_t *v)
{
	if (f->labels) {
		for (size_t k = 0; k < f->nvalues; k++)
			if (!strcmp(f->labels[k], text)) {
				*v = f->values[k];
				return 0;
			}
		return -1;
	}
	return parse_i64(text, INT64_MIN, INT64_MAX, v) || !value_allowed(f, *v) ? -1 : 0;
}

/* Parse "NAME=VALUE,..." (every field exactly once, any order), "vendor:P=V,..." (a vendor
 * candidate as config_format writes it) or bare "vendor" (candidate 0).  Messages name
 * the offending item; the caller adds where the text came from. */
int config_parse(const struct space *s, const char *text, struct config *out, char **cause)
{
	struct config c;
	int seen[SPACE_MAX_FIELDS] = { 0 };
	struct sbuf sb;
	char *copy = NULL;
	int ret = -1;

	sbuf_init(&sb);
	memset(&c, 0, sizeof(c));
	if (!strncmp(text, "vendor", 6) && (text[6] == '\0' || text[6] == ':')) {
		if (!s->has_vendor) {
			sbuf_addf(&sb, "'%s' is not a point of the '%s' space (no vendor path)", text,
				  s->op);
			goto done;
		}
		for (size_t k = 0; k < space_nvendors(s); k++) {
			struct sbuf v;
			sbuf_init(&v);
			vendor_format(s, k, &v);
			int same = !strcmp(v.buf, text);
			sbuf_release(&v);
			if (same) {
				space_vendor_point(s, k, out);
				ret = 0;
				goto done;
			}
		}
		/* Bare "vendor": the library's own choice (candidate 0, what the vendor tuner
		 * runs), whatever its parameters on this machine: a hand-written table's way to
		 * say "cuDNN's heuristic here" without naming an algorithm. */
		if (!strcmp(text, "vendor")) {
			space_vendor_point(s, 0, out);
			ret = 0;
			goto done;
		}
		sbuf_addf(&sb, "'%s' is not a vendor candidate of the '%s' space (candidates: ", text,
			  s->op);
		for (size_t k = 0; k < space_nvendors(s); k++) {
			sbuf_adds(&sb, k ? ", " : "");
			vendor_format(s, k, &sb);
		}
		sbuf_adds(&sb, ")");
		goto done;
	}
	if (!s->nfields) {
		sbuf_addf(&sb, "the '%s' space has no fields; only 'vendor' names a point", s->op);
		goto done;
	}
	copy = xstrdup(text);
	for (char *item = copy, *next; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		char *eq = strchr(item, '=');
		if (!eq) {
			sbuf_addf(&sb, "'%s' is not NAME=VALUE", item);
			goto done;
		}
		*eq = '\0';
		size_t f = 0;
		while (f < s->nfields && strcmp(s->fields[f].name, item))
			f++;
		if (f == s->nfields) {
			sbuf_addf(&sb, "unknown field '%s' (fields: ", item);
			add_field_names(s, &sb);
			sbuf_adds(&sb, ")");
			goto done;
		}
		if (seen[f]) {
			sbuf_addf(&sb, "field '%s' given twice", item);
			goto done;
		}
		seen[f] = 1;
		int64_t v;
		if (parse_value(&s->fields[f], eq + 1, &v)) {
			sbuf_addf(&sb, "'%s' is not a value of field '%s' (values: ", eq + 1, item);
			add_field_values(&s->fields[f], &sb);
			sbuf_adds(&sb, ")");
			goto done;
		}
		c.val[f] = v;
	}
	for (size_t f = 0; f < s->nfields; f++) {
		if (!seen[f] && s->fields[f].optional) {
			c.val[f] = s->fields[f].values[0];
			continue;
		}
		if (!seen[f]) {
			sbuf_addf(&sb, "field '%s' is missing", s->fields[f].name);
			goto done;
		}
	}
	size_t k;
	if (s->listed && space_point_find(s, &c, &k)) {
		sbuf_addf(&sb, "'%s' is not among the '%s' space's listed points", text, s->op);
		goto done;
	}
	if (s->valid && !s->valid(s, &c, NULL)) {
		sbuf_addf(&sb, "'%s' is excluded by the '%s' constraint for this shape", text, s->op);
		goto done;
	}
	*out = c;
	ret = 0;
done:
	free(copy);
	if (ret)
		*cause = sbuf_detach(&sb);
	else
		sbuf_release(&sb);
	return ret;
}

int config_equal(const struct space *s, const struct config *a, const struct config *b)
{
	if (a->vendor || b->vendor)
		return a->vendor && b->vendor && a->vendor_idx == b->vendor_idx;
	for (size_t f = 0; f < s->nfields; f++)
		if (a->val[f] != b->val[f])
			return 0;
	return 1;
}

size_t space_field_find(const struct space *s, const char *name)
{
	size_t f = 0;
	while (f < s->nfields && strcmp(s->fields[f].name, name))
		f++;
	return f;
}

int space_point_index(const struct space *s, const struct config *c, size_t *idx)
{
	size_t i = 0;
	if (c->vendor || !s->nfields)
		return -1;
	for (size_t f = 0; f < s->nfields; f++) {
		const struct space_field *fd = &s->fields[f];
		size_t k = space_value_index(fd, c->val[f]);
		if (k == fd->nvalues || i > (SIZE_MAX - k) / fd->nvalues)
			return -1;
		i = i * fd->nvalues + k;
	}
	*idx = i;
	return 0;
}

const char *space_kind_name(enum space_kind k)
{
	switch (k) {
	case SPACE_FLOAT: return "float";
	case SPACE_STRING: return "string";
	case SPACE_INT: break;
	}
	return "int";
}

const char *space_step_name(enum space_step k)
{
	switch (k) {
	case SPACE_STEP_POW2: return "pow2";
	case SPACE_STEP_UNIT: return "unit";
	case SPACE_STEP_ORDINAL: return "ordinal";
	}
	return "ordinal";
}

/* One step of field fd from cur: up or down; for ORDINAL the neighbouring allowed value (or
 * a value past the end, so the caller's range checks stop it). */
static int64_t step_value(const struct space_field *fd, int64_t cur, int up)
{
	switch (fd->step) {
	case SPACE_STEP_POW2:
		return up ? cur * 2 : cur / 2;
	case SPACE_STEP_UNIT:
		return up ? cur + 1 : cur - 1;
	case SPACE_STEP_ORDINAL:
		break;
	}
	if (up) {
		for (size_t k = 0; k < fd->nvalues; k++)
			if (fd->values[k] > cur)
				return fd->values[k];
		return INT64_MAX;
	}
	for (size_t k = fd->nvalues; k-- > 0;)
		if (fd->values[k] < cur)
			return fd->values[k];
	return INT64_MIN;
}

size_t space_neighbour_values(const struct space *s, size_t f, int64_t v, int radius,
			      int64_t limit, int include_self, int64_t *out)
{
	const struct space_field *fd = &s->fields[f];
	size_t n = 0;
	if (!fd->nvalues)
		return 0;
	int64_t lo = fd->values[0], hi = fd->values[fd->nvalues - 1];
	int64_t cur = v;
	for (int r = 0; r < radius; r++) {
		if (cur > INT64_MAX / 2)
			break;
		cur = step_value(fd, cur, 1);
		if (cur > hi || (limit > 0 && cur > limit))
			break;
		if (value_allowed(fd, cur))
			out[n++] = cur;
	}
	cur = v;
	for (int r = 0; r < radius; r++) {
		cur = step_value(fd, cur, 0);
		if (cur <= 0 || cur < lo)
			break;
		if (value_allowed(fd, cur))
			out[n++] = cur;
	}
	if (include_self)
		out[n++] = v;
	return n;
}

void space_add_field(struct space *s, const char *name, const int64_t *v, size_t n)
{
	struct space_field *f = &s->fields[s->nfields++];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->values = v;
	f->nvalues = n;
}

int space_field_redundant(const struct space_field *f, int64_t v, int64_t d)
{
	for (size_t i = 0; i < f->nvalues && f->values[i] < v; i++)
		if (f->values[i] >= d)
			return 1;
	return 0;
}

int64_t space_field_pick(const struct space_field *f, int64_t want, int64_t d)
{
	int64_t v = f->values[0];
	for (size_t i = 0; i < f->nvalues; i++)
		if (f->values[i] <= want)
			v = f->values[i];
	for (size_t i = 0; i < f->nvalues; i++)
		if (f->values[i] >= d && f->values[i] < v)
			return f->values[i];
	return v;
}
