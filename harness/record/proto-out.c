/* proto-out.c: writing the unit record protocol (see proto.h and docs/record-protocol.md;
 * parsing it: proto.c).  Records are JSON lines; jansson writes them. */
#include "config.h"
#include "harness/record/proto.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

int proto_out_open(struct proto_out *o, int fd)
{
	o->f = fdopen(fd, "w");
	if (!o->f)
		return error_errno("cannot open the record stream (fd %d)", fd);
	setvbuf(o->f, NULL, _IOFBF, 1 << 16);
	return 0;
}

int proto_out_close(struct proto_out *o)
{
	if (!o->f)
		return 0;
	int r = fclose(o->f);
	o->f = NULL;
	return r ? error_errno("cannot write the record stream") : 0;
}

static int emit(struct proto_out *o, json_t *obj)
{
	if (!obj)
		return error("cannot build a record (out of memory or bad value)");
	int r = json_dumpf(obj, o->f, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(obj);
	if (r < 0 || fputc('\n', o->f) == EOF)
		return error_errno("cannot write the record stream");
	return 0;
}

/* JSON has no NaN: a missing median is written as null. */
static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int proto_hello(struct proto_out *o, const char *mode, int64_t unit, const char *backend)
{
	return emit(o, json_pack("{s:s, s:i, s:I, s:s, s:I, s:s}", "type", "hello", "protocol",
				 PROTO_VERSION, "pid", (json_int_t)getpid(), "mode", mode, "unit",
				 (json_int_t)unit, "backend", backend));
}

int proto_info(struct proto_out *o, const char *text)
{
	return emit(o, json_pack("{s:s, s:s}", "type", "info", "text", text));
}

int proto_cell(struct proto_out *o, int64_t id, const struct rec_cell *c)
{
	return emit(o, json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:I, s:f}", "type", "cell",
				 "id", (json_int_t)id, "name", c->name, "kind", c->kind, "workload",
				 c->workload, "op", c->op, "shape", c->shape, "count",
				 (json_int_t)c->count, "flops", c->flops));
}

/* The sample arrays of a samples or trial record: "ns", then "clock_mhz", "throttle",
 * "launches" and "clock_reasons" each only when some sample differs from SAMPLE_INIT there. */
static json_t *sample_arrays(json_t *obj, const struct sample *s, size_t n)
{
	int clock = 0, thr = 0, lau = 0, rsn = 0;
	for (size_t i = 0; i < n; i++) {
		clock |= isfinite(s[i].clock_mhz);
		thr |= s[i].throttle != -1;
		lau |= s[i].launches != 1;
		rsn |= s[i].clock_reasons != -1;
	}
	json_t *ns = json_array(), *c = clock ? json_array() : NULL,
	       *t = thr ? json_array() : NULL, *l = lau ? json_array() : NULL,
	       *r = rsn ? json_array() : NULL;
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(ns, json_integer((json_int_t)s[i].ns));
		if (c)
			json_array_append_new(c, real_or_null(s[i].clock_mhz));
		if (t)
			json_array_append_new(t, json_integer(s[i].throttle));
		if (l)
			json_array_append_new(l, json_integer((json_int_t)s[i].launches));
		if (r)
			json_array_append_new(r, json_integer((json_int_t)s[i].clock_reasons));
	}
	json_object_set_new(obj, "ns", ns);
	if (c)
		json_object_set_new(obj, "clock_mhz", c);
	if (t)
		json_object_set_new(obj, "throttle", t);
	if (l)
		json_object_set_new(obj, "launches", l);
	if (r)
		json_object_set_new(obj, "clock_reasons", r);
	return obj;
}

int proto_trial(struct proto_out *o, const struct rec_trial *t, const struct sample *s,
		size_t n)
{
	json_t *obj = json_pack("{s:s, s:I, s:s, s:s, s:b, s:I, s:I, s:o, s:o, s:o, s:I}", "type",
				"trial", "cell", (json_int_t)t->cell, "config", t->config, "status",
				t->status, "cache_hit", t->cache_hit, "compile_ns",
				(json_int_t)t->compile_ns, "n", (json_int_t)t->nsamples, "median_ns",
				real_or_null(t->median_ns), "min_ns", real_or_null(t->min_ns),
				"max_ns", real_or_null(t->max_ns), "bench_ns",
				(json_int_t)t->bench_ns);
	if (obj && n)
		sample_arrays(obj, s, n);
	return emit(o, obj);
}

int proto_space(struct proto_out *o, const struct rec_space *sp, const struct rec_space_value *v,
		size_t nv, const struct rec_space_vendor *vd, size_t nvd,
		const struct rec_space_invalid *inv, size_t ninv)
{
	json_t *obj = json_pack("{s:s, s:I, s:I, s:I}", "type", "space", "cell",
				(json_int_t)sp->cell, "grid", (json_int_t)sp->grid, "valid",
				(json_int_t)sp->nvalid);
	if (!obj)
		return emit(o, obj);
	json_t *fields = json_array(), *vendors = json_array(), *bad = json_array();
	json_t *cur = NULL;
	for (size_t i = 0; i < nv; i++) {
		if (!i || v[i].field != v[i - 1].field) {
			cur = json_array();
			json_array_append_new(fields, json_pack("{s:s, s:o}", "name", v[i].name,
								"values", cur));
		}
		json_array_append_new(cur, json_integer((json_int_t)v[i].value));
	}
	for (size_t i = 0; i < nvd; i++)
		json_array_append_new(vendors, json_string(vd[i].config));
	for (size_t i = 0; i < ninv; i++) /* a run of points: [first, why, count] */
		json_array_append_new(bad, inv[i].count > 1
						   ? json_pack("[I, s, I]", (json_int_t)inv[i].point,
							       inv[i].why, (json_int_t)inv[i].count)
						   : json_pack("[I, s]", (json_int_t)inv[i].point,
							       inv[i].why));
	json_object_set_new(obj, "fields", fields);
	json_object_set_new(obj, "vendors", vendors);
	json_object_set_new(obj, "invalid", bad);
	return emit(o, obj);
}

int proto_choice(struct proto_out *o, const struct rec_choice *c)
{
	return emit(o, json_pack("{s:s, s:I, s:s, s:s}", "type", "choice", "cell",
				 (json_int_t)c->cell, "config", c->config, "reason", c->reason));
}

int proto_samples(struct proto_out *o, int64_t cell, int64_t first, const struct sample *s,
		  size_t n)
{
	/* Written by hand: sample lines are the bulk of the stream. */
	const size_t chunk = 4096;
	for (size_t at = 0; at < n; at += chunk) {
		size_t m = n - at < chunk ? n - at : chunk;
		int clock = 0, thr = 0, lau = 0, rsn = 0;
		for (size_t i = at; i < at + m; i++) {
			clock |= isfinite(s[i].clock_mhz);
			thr |= s[i].throttle != -1;
			lau |= s[i].launches != 1;
			rsn |= s[i].clock_reasons != -1;
		}
		fprintf(o->f, "{\"type\":\"samples\",\"cell\":%" PRId64 ",\"first\":%" PRId64 ",\"ns\":[",
			cell, first + (int64_t)at);
		for (size_t i = 0; i < m; i++)
			fprintf(o->f, i ? ",%" PRId64 : "%" PRId64, s[at + i].ns);
		if (clock) {
			fputs("],\"clock_mhz\":[", o->f);
			for (size_t i = 0; i < m; i++) {
				double c = s[at + i].clock_mhz;
				fputs(i ? "," : "", o->f);
				if (isfinite(c))
					fprintf(o->f, "%.17g", c);
				else
					fputs("null", o->f);
			}
		}
		if (thr) {
			fputs("],\"throttle\":[", o->f);
			for (size_t i = 0; i < m; i++)
				fprintf(o->f, i ? ",%d" : "%d", s[at + i].throttle);
		}
		if (lau) {
			fputs("],\"launches\":[", o->f);
			for (size_t i = 0; i < m; i++)
				fprintf(o->f, i ? ",%" PRId64 : "%" PRId64, s[at + i].launches);
		}
		if (rsn) {
			fputs("],\"clock_reasons\":[", o->f);
			for (size_t i = 0; i < m; i++)
				fprintf(o->f, i ? ",%" PRId64 : "%" PRId64, s[at + i].clock_reasons);
		}
		if (fputs("]}\n", o->f) == EOF)
			return error_errno("cannot write the record stream");
	}
	return ferror(o->f) ? error("cannot write the record stream") : 0;
}

int proto_measure(struct proto_out *o, const struct rec_measure *m)
{
	return emit(o, json_pack("{s:s, s:I, s:I, s:s, s:I, s:I, s:o}", "type", "measure", "cell",
				 (json_int_t)m->cell, "n", (json_int_t)m->nsamples, "stop", m->stop,
				 "warmup_n", (json_int_t)m->warmup_n, "warmup_ns",
				 (json_int_t)m->warmup_ns, "rel_precision",
				 real_or_null(m->rel_precision)));
}

int proto_setup(struct proto_out *o, const struct rec_unit *u)
{
	return emit(o, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "type", "setup",
				 "compile_ns", (json_int_t)u->compile_ns, "tune_ns",
				 (json_int_t)u->tune_ns, "search_ns", (json_int_t)u->search_ns,
				 "compiles", (json_int_t)u->compiles, "cache_hits",
				 (json_int_t)u->cache_hits, "benchmarks", (json_int_t)u->benchmarks,
				 "expects_work", u->expects_work));
}

int proto_done(struct proto_out *o, const char *status, const char *message)
{
	int r = emit(o, json_pack("{s:s, s:s, s:s}", "type", "done", "status", status, "message",
				  message ? message : ""));
	if (!r && fflush(o->f) == EOF)
		r = error_errno("cannot write the record stream");
	return r;
}

int proto_garbage(struct proto_out *o)
{
	fputs("this is not a record\n", o->f);
	return fflush(o->f) == EOF ? error_errno("cannot write the record stream") : 0;
}

/* ---- parsing --------------------------------------------------------------------- */
