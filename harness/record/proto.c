/* proto.c: parsing the unit record protocol (see proto.h and docs/record-protocol.md;
 * writing it: proto-out.c).  Records are JSON lines; jansson parses them. */
#include "config.h"
#include "harness/record/proto.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

/* ---- parsing ---------------------------------------------------------------------- */

struct proto_limits proto_limits_with(int64_t samples, int64_t info_bytes, int64_t output_bytes)
{
	return (struct proto_limits){ samples ? samples : PROTO_LIMIT_SAMPLES,
				      info_bytes ? info_bytes : PROTO_LIMIT_INFO,
				      output_bytes ? output_bytes : PROTO_LIMIT_OUTPUT };
}

void proto_in_init(struct proto_in *in, struct rec_unit_data *u)
{
	memset(in, 0, sizeof(*in));
	in->u = u;
	in->lim = proto_limits_with(0, 0, 0);
	sbuf_init(&in->partial);
}

void proto_in_release(struct proto_in *in)
{
	sbuf_release(&in->partial);
	hashindex_release(&in->names);
	free(in->done_status);
	free(in->done_message);
	free(in->error);
	memset(in, 0, sizeof(*in));
}

static int fail(struct proto_in *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct proto_in *in, const char *fmt, ...)
{
	if (in->error)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	in->error = xasprintf("record line %" PRId64 ": %s", in->line, msg);
	free(msg);
	return -1;
}

/* A limit of the experiment's [limits] passed: a protocol error, and the unit is to be
 * killed ("<before> <limit> <unit> (the experiment's [limits] <key>)").  -1. */
static int fail_limit(struct proto_in *in, const char *before, int64_t limit, const char *unit,
		      const char *key)
{
	in->over_limit = !in->error;
	return fail(in, "%s %" PRId64 " %s (the experiment's [limits] %s)", before, limit, unit,
		    key);
}

/* -1 when n more samples would pass [limits] samples (cells' and trials' together). */
static int over_samples(struct proto_in *in, size_t n)
{
	if ((int64_t)(in->u->nsamples + in->u->ntsamples + n) <= in->lim.samples)
		return 0;
	return fail_limit(in, "more than", in->lim.samples, "samples", "samples");
}

/* Field getters: each records a protocol error naming the field when it is missing or of
 * the wrong type. */
static int get_int(struct proto_in *in, json_t *o, const char *k, int64_t *out)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_integer(v))
		return fail(in, "'%s' must be an integer", k);
	*out = (int64_t)json_integer_value(v);
	return 0;
}

static int get_num(struct proto_in *in, json_t *o, const char *k, double *out)
{
	json_t *v = json_object_get(o, k);
	if (json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return fail(in, "'%s' must be a number or null", k);
	*out = json_number_value(v);
	return 0;
}

static int get_str(struct proto_in *in, json_t *o, const char *k, char **out)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_string(v))
		return fail(in, "'%s' must be a string", k);
	*out = xstrdup(json_string_value(v));
	return 0;
}

static int get_bool(struct proto_in *in, json_t *o, const char *k, int *out)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_boolean(v))
		return fail(in, "'%s' must be true or false", k);
	*out = json_is_true(v);
	return 0;
}

static int check_cell(struct proto_in *in, int64_t cell)
{
	if (cell < 0 || (size_t)cell >= in->u->ncells)
		return fail(in, "cell %" PRId64 " was not declared", cell);
	return 0;
}

static int parse_cell(struct proto_in *in, json_t *o)
{
	struct rec_unit_data *u = in->u;
	int64_t id = 0;
	if (get_int(in, o, "id", &id))
		return -1;
	if (id != (int64_t)u->ncells)
		return fail(in, "cell id %" PRId64 " out of sequence (expected %zu)", id, u->ncells);
	XGROW(u->cells, u->cells_cap, u->ncells + 1);
	struct rec_cell *c = &u->cells[u->ncells];
	memset(c, 0, sizeof(*c));
	u->ncells++; /* released with the unit data even when a field below fails */
	if (get_str(in, o, "name", &c->name) || get_str(in, o, "kind", &c->kind) ||
	    get_str(in, o, "workload", &c->workload) || get_str(in, o, "op", &c->op) ||
	    get_str(in, o, "shape", &c->shape) || get_int(in, o, "count", &c->count) ||
	    get_num(in, o, "flops", &c->flops))
		return -1;
	if (strcmp(c->kind, "op") && strcmp(c->kind, "e2e"))
		return fail(in, "cell kind '%s' must be 'op' or 'e2e'", c->kind);
	/* the cells declared before this one, by name (a hash index: linear in the cells) */
	for (; in->nnamed + 1 < u->ncells; in->nnamed++)
		hashindex_add(&in->names,
				    hashindex_str(u->cells[in->nnamed].name, HASHINDEX_SEED),
				    in->nnamed);
	uint64_t h = hashindex_str(c->name, HASHINDEX_SEED);
	for (size_t i = in->names.cap ? h & (in->names.cap - 1) : 0;
	     in->names.cap && in->names.slot[i]; i = (i + 1) & (in->names.cap - 1))
		if (in->names.hash[i] == h && !strcmp(u->cells[in->names.slot[i] - 1].name, c->name))
			return fail(in, "cell '%s' declared twice", c->name);
	return 0;
}

static int parse_trial_samples(struct proto_in *in, json_t *o, int64_t trial, int64_t cell);

static int parse_trial(struct proto_in *in, json_t *o)
{
	struct rec_unit_data *u = in->u;
	XGROW(u->trials, u->trials_cap, u->ntrials + 1);
	struct rec_trial *t = &u->trials[u->ntrials];
	memset(t, 0, sizeof(*t));
	u->ntrials++;
	if (get_int(in, o, "cell", &t->cell) || check_cell(in, t->cell) ||
	    get_str(in, o, "config", &t->config) || get_str(in, o, "status", &t->status) ||
	    get_bool(in, o, "cache_hit", &t->cache_hit) ||
	    get_int(in, o, "compile_ns", &t->compile_ns) || get_int(in, o, "n", &t->nsamples) ||
	    get_num(in, o, "median_ns", &t->median_ns) || get_num(in, o, "min_ns", &t->min_ns) ||
	    get_num(in, o, "max_ns", &t->max_ns) || get_int(in, o, "bench_ns", &t->bench_ns))
		return -1;
	static const char *const ok[] = { "ok", "compile-error", "incorrect", "failed" };
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		if (!strcmp(t->status, ok[i]))
			return parse_trial_samples(in, o, (int64_t)u->ntrials - 1, t->cell);
	return fail(in, "trial status '%s' is not one of ok, compile-error, incorrect, failed",
		    t->status);
}

static int parse_choice(struct proto_in *in, json_t *o)
{
	struct rec_unit_data *u = in->u;
	XGROW(u->choices, u->choices_cap, u->nchoices + 1);
	struct rec_choice *c = &u->choices[u->nchoices];
	memset(c, 0, sizeof(*c));
	u->nchoices++;
	if (get_int(in, o, "cell", &c->cell) || check_cell(in, c->cell) ||
	    get_str(in, o, "config", &c->config) || get_str(in, o, "reason", &c->reason))
		return -1;
	return 0;
}

/* The optional arrays of a samples or trial record that has n samples: present ones must
 * be n long.  Fills clock[i] (NaN for null), thr[i] (-1, 0, 1), lau[i] (>= 1) and rsn[i]
 * (a bitmask >= 0, or -1); each keeps SAMPLE_INIT's value where its array is absent.
 * *any: which arrays were present (bit 0 clock, 1 throttle, 2 launches, 3 reasons). */
static int parse_sample_extras(struct proto_in *in, json_t *o, size_t n, double *clock,
			       int *thr, int64_t *lau, int64_t *rsn, unsigned *any)
{
	static const char *const names[] = { "clock_mhz", "throttle", "launches",
					     "clock_reasons" };
	*any = 0;
	for (size_t i = 0; i < n; i++) {
		clock[i] = NAN;
		thr[i] = -1;
		lau[i] = 1;
		rsn[i] = -1;
	}
	for (unsigned k = 0; k < 4; k++) {
		json_t *arr = json_object_get(o, names[k]);
		if (!arr)
			continue;
		if (!json_is_array(arr) || json_array_size(arr) != n)
			return fail(in, "'%s' must be an array as long as 'ns' (%zu)", names[k], n);
		*any |= 1u << k;
		for (size_t i = 0; i < n; i++) {
			json_t *v = json_array_get(arr, i);
			if (k == 0 && json_is_number(v) && json_number_value(v) >= 0)
				clock[i] = json_number_value(v);
			else if (k == 1 && json_is_integer(v) && json_integer_value(v) >= -1 &&
				 json_integer_value(v) <= 1)
				thr[i] = (int)json_integer_value(v);
			else if (k == 2 && json_is_integer(v) && json_integer_value(v) >= 1)
				lau[i] = (int64_t)json_integer_value(v);
			else if (k == 3 && json_is_integer(v) && json_integer_value(v) >= -1)
				rsn[i] = (int64_t)json_integer_value(v);
			else if (!(k == 0 && json_is_null(v)))
				return fail(in, "'%s'[%zu] must be %s", names[k], i,
					    k == 0   ? "a non-negative number or null"
					    : k == 1 ? "-1, 0 or 1"
					    : k == 2 ? "an integer >= 1"
						     : "a bitmask (an integer >= 0) or -1");
		}
	}
	return 0;
}

/* The 'ns' array of a samples or trial record: non-negative integers into a new heap array. */
static int parse_ns(struct proto_in *in, json_t *arr, int64_t cell, int64_t **ns, size_t *n)
{
	*n = json_array_size(arr);
	*ns = xmalloc((*n ? *n : 1) * sizeof(**ns));
	for (size_t i = 0; i < *n; i++) {
		json_t *v = json_array_get(arr, i);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return fail(in, "sample %zu of cell %" PRId64 " is not a non-negative integer", i,
				    cell);
		(*ns)[i] = (int64_t)json_integer_value(v);
	}
	return 0;
}

static int parse_samples(struct proto_in *in, json_t *o)
{
	struct rec_unit_data *u = in->u;
	int64_t cell = 0, first = 0, *ns = NULL, *lau = NULL, *rsn = NULL;
	double *clock = NULL;
	int *thr = NULL;
	size_t n = 0;
	unsigned any = 0;
	int ret = -1;
	if (get_int(in, o, "cell", &cell) || check_cell(in, cell) || get_int(in, o, "first", &first))
		return -1;
	json_t *arr = json_object_get(o, "ns");
	if (!json_is_array(arr))
		return fail(in, "'ns' must be an array of integers");
	if (parse_ns(in, arr, cell, &ns, &n))
		goto done;
	clock = xmalloc((n ? n : 1) * sizeof(*clock));
	thr = xmalloc((n ? n : 1) * sizeof(*thr));
	lau = xmalloc((n ? n : 1) * sizeof(*lau));
	rsn = xmalloc((n ? n : 1) * sizeof(*rsn));
	if (parse_sample_extras(in, o, n, clock, thr, lau, rsn, &any))
		goto done;
	if (over_samples(in, n))
		goto done;
	size_t old_cap = u->samples_cap;
	if (u->nsamples + n > u->samples_cap) {
		size_t cap = u->samples_cap ? u->samples_cap : 1024;
		while (cap < u->nsamples + n)
			cap *= 2;
		u->sample_cell = xrealloc(u->sample_cell, cap * sizeof(int64_t));
		u->sample_index = xrealloc(u->sample_index, cap * sizeof(int64_t));
		u->sample_ns = xrealloc(u->sample_ns, cap * sizeof(int64_t));
		u->samples_cap = cap;
	}
	/* An optional column appears at its first use, with the defaults for earlier samples;
	 * once there it grows with the others. */
	if (((any & 1) || u->sample_clock_mhz) && (!u->sample_clock_mhz || old_cap < u->samples_cap)) {
		int fresh = !u->sample_clock_mhz;
		u->sample_clock_mhz = xrealloc(u->sample_clock_mhz, u->samples_cap * sizeof(double));
		for (size_t i = 0; fresh && i < u->nsamples; i++)
			u->sample_clock_mhz[i] = NAN;
	}
	if (((any & 2) || u->sample_throttle) && (!u->sample_throttle || old_cap < u->samples_cap)) {
		int fresh = !u->sample_throttle;
		u->sample_throttle = xrealloc(u->sample_throttle, u->samples_cap * sizeof(int));
		for (size_t i = 0; fresh && i < u->nsamples; i++)
			u->sample_throttle[i] = -1;
	}
	if (((any & 4) || u->sample_launches) && (!u->sample_launches || old_cap < u->samples_cap)) {
		int fresh = !u->sample_launches;
		u->sample_launches = xrealloc(u->sample_launches, u->samples_cap * sizeof(int64_t));
		for (size_t i = 0; fresh && i < u->nsamples; i++)
			u->sample_launches[i] = 1;
	}
	if (((any & 8) || u->sample_clock_reasons) &&
	    (!u->sample_clock_reasons || old_cap < u->samples_cap)) {
		int fresh = !u->sample_clock_reasons;
		u->sample_clock_reasons = xrealloc(u->sample_clock_reasons,
						   u->samples_cap * sizeof(int64_t));
		for (size_t i = 0; fresh && i < u->nsamples; i++)
			u->sample_clock_reasons[i] = -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = u->nsamples++;
		u->sample_cell[k] = cell;
		u->sample_index[k] = first + (int64_t)i;
		u->sample_ns[k] = ns[i];
		if (u->sample_clock_mhz)
			u->sample_clock_mhz[k] = clock[i];
		if (u->sample_throttle)
			u->sample_throttle[k] = thr[i];
		if (u->sample_launches)
			u->sample_launches[k] = lau[i];
		if (u->sample_clock_reasons)
			u->sample_clock_reasons[k] = rsn[i];
	}
	ret = 0;
done:
	free(ns);
	free(clock);
	free(thr);
	free(lau);
	free(rsn);
	return ret;
}

/* A trial's own samples (protocol 2's optional 'ns' and its companions). */
static int parse_trial_samples(struct proto_in *in, json_t *o, int64_t trial, int64_t cell)
{
	struct rec_unit_data *u = in->u;
	json_t *arr = json_object_get(o, "ns");
	int64_t *ns = NULL, *lau = NULL, *rsn = NULL;
	double *clock = NULL;
	int *thr = NULL;
	size_t n = 0;
	unsigned any;
	int ret = -1;
	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return fail(in, "'ns' must be an array of integers");
	if (parse_ns(in, arr, cell, &ns, &n))
		goto done;
	clock = xmalloc((n ? n : 1) * sizeof(*clock));
	thr = xmalloc((n ? n : 1) * sizeof(*thr));
	lau = xmalloc((n ? n : 1) * sizeof(*lau));
	rsn = xmalloc((n ? n : 1) * sizeof(*rsn));
	if (parse_sample_extras(in, o, n, clock, thr, lau, rsn, &any))
		goto done;
	if (over_samples(in, n))
		goto done;
	XGROW(u->tsamples, u->tsamples_cap, u->ntsamples + n);
	for (size_t i = 0; i < n; i++)
		u->tsamples[u->ntsamples++] = (struct rec_trial_sample){
			.trial = trial, .index = (int64_t)i, .ns = ns[i], .clock_mhz = clock[i],
			.throttle = thr[i], .launches = lau[i], .clock_reasons = rsn[i] };
	ret = 0;
done:
	free(ns);
	free(clock);
	free(thr);
	free(lau);
	free(rsn);
	return ret;
}

/* Copy s into a fixed-size field of size bytes (truncated, NUL-terminated). */
static void fixcpy(char *dst, size_t size, const char *s)
{
	snprintf(dst, size, "%s", s);
}

static int parse_space(struct proto_in *in, json_t *o)
{
	struct rec_unit_data *u = in->u;
	struct rec_space sp = { 0 };
	if (get_int(in, o, "cell", &sp.cell) || check_cell(in, sp.cell) ||
	    get_int(in, o, "grid", &sp.grid) || get_int(in, o, "valid", &sp.nvalid))
		return -1;
	json_t *fields = json_object_get(o, "fields"), *vendors = json_object_get(o, "vendors"),
	       *bad = json_object_get(o, "invalid");
	if (!json_is_array(fields) || !json_is_array(vendors) || !json_is_array(bad))
		return fail(in, "a space record needs arrays 'fields', 'vendors' and 'invalid'");
	for (size_t f = 0; f < json_array_size(fields); f++) {
		json_t *fo = json_array_get(fields, f);
		const char *name = json_string_value(json_object_get(fo, "name"));
		json_t *vals = json_object_get(fo, "values");
		if (!name || !json_is_array(vals))
			return fail(in, "space field %zu needs a string 'name' and an array 'values'", f);
		for (size_t k = 0; k < json_array_size(vals); k++) {
			json_t *v = json_array_get(vals, k);
			if (!json_is_integer(v))
				return fail(in, "space field '%s': values must be integers", name);
			XGROW(u->svalues, u->svalues_cap, u->nsvalues + 1);
			struct rec_space_value *sv = &u->svalues[u->nsvalues++];
			memset(sv, 0, sizeof(*sv));
			sv->cell = sp.cell;
			sv->field = (int32_t)f;
			fixcpy(sv->name, sizeof(sv->name), name);
			sv->value = (int64_t)json_integer_value(v);
		}
	}
	for (size_t k = 0; k < json_array_size(vendors); k++) {
		const char *c = json_string_value(json_array_get(vendors, k));
		if (!c)
			return fail(in, "space vendor candidate %zu must be a string", k);
		XGROW(u->svendors, u->svendors_cap, u->nsvendors + 1);
		struct rec_space_vendor *sv = &u->svendors[u->nsvendors++];
		memset(sv, 0, sizeof(*sv));
		sv->cell = sp.cell;
		sv->candidate = (int32_t)k;
		fixcpy(sv->config, sizeof(sv->config), c);
	}
	for (size_t k = 0; k < json_array_size(bad); k++) {
		json_t *e = json_array_get(bad, k);
		json_t *pt = json_array_get(e, 0), *cnt = json_array_get(e, 2);
		const char *why = json_string_value(json_array_get(e, 1));
		size_t ne = json_array_size(e);
		if (!json_is_integer(pt) || !why || ne < 2 || ne > 3 ||
		    (cnt && !json_is_integer(cnt)))
			return fail(in, "space invalid point %zu must be [point, \"why\"] or [point, "
					"\"why\", count]", k);
		json_int_t p = json_integer_value(pt), n = cnt ? json_integer_value(cnt) : 1;
		if (n < 1)
			return fail(in, "space invalid point %zu: its count %lld is not 1 or more", k,
				    (long long)n);
		if (p < 0 || n > INT64_MAX - p || (sp.grid >= 0 && (p > sp.grid || n > sp.grid - p)))
			return fail(in, "space invalid point %zu: points %lld to %lld are not in the "
					"grid of %lld", k, (long long)p, (long long)p + (long long)n - 1,
				    (long long)sp.grid);
		XGROW(u->sinvalid, u->sinvalid_cap, u->nsinvalid + 1);
		struct rec_space_invalid *si = &u->sinvalid[u->nsinvalid++];
		memset(si, 0, sizeof(*si));
		si->cell = sp.cell;
		si->point = (int64_t)p;
		si->count = (int64_t)n;
		fixcpy(si->why, sizeof(si->why), why);
	}
	XGROW(u->spaces, u->spaces_cap, u->nspaces + 1);
	u->spaces[u->nspaces++] = sp;
	return 0;
}

static int parse_measure(struct proto_in *in, json_t *o)
{
	struct rec_unit_data *u = in->u;
	XGROW(u->measures, u->measures_cap, u->nmeasures + 1);
	struct rec_measure *m = &u->measures[u->nmeasures];
	memset(m, 0, sizeof(*m));
	u->nmeasures++;
	if (get_int(in, o, "cell", &m->cell) || check_cell(in, m->cell) ||
	    get_int(in, o, "n", &m->nsamples) || get_str(in, o, "stop", &m->stop) ||
	    get_int(in, o, "warmup_n", &m->warmup_n) || get_int(in, o, "warmup_ns", &m->warmup_ns) ||
	    get_num(in, o, "rel_precision", &m->rel_precision))
		return -1;
	return 0;
}

static int parse_setup(struct proto_in *in, json_t *o)
{
	struct rec_unit *x = &in->u->unit;
	return get_int(in, o, "compile_ns", &x->compile_ns) || get_int(in, o, "tune_ns", &x->tune_ns) ||
			       get_int(in, o, "search_ns", &x->search_ns) ||
			       get_int(in, o, "compiles", &x->compiles) ||
			       get_int(in, o, "cache_hits", &x->cache_hits) ||
			       get_int(in, o, "benchmarks", &x->benchmarks) ||
			       get_bool(in, o, "expects_work", &x->expects_work)
		       ? -1
		       : 0;
}

static int parse_line(struct proto_in *in, const char *line, size_t len)
{
	in->line++;
	json_error_t jerr;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!o)
		return fail(in, "not JSON: %s (column %d)", jerr.text, jerr.column);
	int r = -1;
	const char *type = json_string_value(json_object_get(o, "type"));
	if (!json_is_object(o) || !type) {
		fail(in, "a record must be an object with a string 'type'");
		goto done;
	}
	if (!in->saw_hello && strcmp(type, "hello")) {
		fail(in, "the first record must be 'hello', not '%s'", type);
		goto done;
	}
	if (in->saw_done) {
		fail(in, "record '%s' after 'done'", type);
		goto done;
	}
	if (!strcmp(type, "hello")) {
		int64_t v = 0, pid = 0;
		if (in->saw_hello) {
			fail(in, "'hello' sent twice");
			goto done;
		}
		if (get_int(in, o, "protocol", &v) || get_int(in, o, "pid", &pid))
			goto done;
		if (v < PROTO_VERSION_OLDEST || v > PROTO_VERSION) {
			fail(in, "protocol version %" PRId64 " is not one of %d to %d", v,
			     PROTO_VERSION_OLDEST, PROTO_VERSION);
			goto done;
		}
		in->saw_hello = 1;
		r = 0;
	} else if (!strcmp(type, "info")) {
		char *text = NULL;
		if (get_str(in, o, "text", &text))
			goto done;
		/* several info records concatenate, up to the limit */
		size_t have = in->u->info ? strlen(in->u->info) : 0;
		if ((int64_t)(have + strlen(text)) > in->lim.info_bytes) {
			free(text);
			fail_limit(in, "info records of more than", in->lim.info_bytes, "bytes",
				   "info_bytes");
			goto done;
		}
		if (in->u->info) {
			char *both = xasprintf("%s%s", in->u->info, text);
			free(in->u->info);
			free(text);
			text = both;
		}
		in->u->info = text;
		r = 0;
	} else if (!strcmp(type, "cell")) {
		r = parse_cell(in, o);
	} else if (!strcmp(type, "trial")) {
		r = parse_trial(in, o);
	} else if (!strcmp(type, "choice")) {
		r = parse_choice(in, o);
	} else if (!strcmp(type, "samples")) {
		r = parse_samples(in, o);
	} else if (!strcmp(type, "space")) {
		r = parse_space(in, o);
	} else if (!strcmp(type, "measure")) {
		r = parse_measure(in, o);
	} else if (!strcmp(type, "setup")) {
		r = parse_setup(in, o);
	} else if (!strcmp(type, "done")) {
		if (get_str(in, o, "status", &in->done_status) ||
		    get_str(in, o, "message", &in->done_message))
			goto done;
		in->saw_done = 1;
		r = 0;
	} else {
		fail(in, "unknown record type '%s'", type);
	}
done:
	json_decref(o);
	return r;
}

int proto_in_feed(struct proto_in *in, const char *buf, size_t n)
{
	if (in->error)
		return -1;
	in->bytes += (int64_t)n;
	if (in->bytes > in->lim.output_bytes)
		return fail_limit(in, "more than", in->lim.output_bytes, "bytes of records",
				  "output_bytes");
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n')
			continue;
		int r;
		if (in->partial.len) {
			sbuf_add(&in->partial, buf + start, i - start);
			r = parse_line(in, in->partial.buf, in->partial.len);
			sbuf_reset(&in->partial);
		} else {
			r = parse_line(in, buf + start, i - start);
		}
		start = i + 1;
		if (r)
			return -1;
	}
	sbuf_add(&in->partial, buf + start, n - start);
	if (in->partial.len > PROTO_MAX_LINE)
		return fail(in, "a record longer than %d bytes", PROTO_MAX_LINE);
	return 0;
}

int proto_in_end(struct proto_in *in)
{
	if (in->error)
		return -1;
	if (in->partial.len)
		return fail(in, "the stream ended inside a record");
	return 0;
}
