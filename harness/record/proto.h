/* proto.h: the record protocol between a unit (worker process) and the scheduler,
 * version 2 (docs/record-protocol.md; the scheduler reads version 1 units too).  The unit writes one JSON object per line to file
 * descriptor 3 (named in the unit's environment as HARNESS_RECORD_FD=3); the scheduler
 * reads them into a struct rec_unit_data and is the only writer of the results file.
 * External command modes speak the same protocol (docs/record-protocol.md). */
#ifndef HARNESS_PROTO_H
#define HARNESS_PROTO_H

#include <stdint.h>
#include <stdio.h>

#include "harness/base/hashindex.h"
#include "harness/record/recorder.h"
#include "harness/base/util.h"
#include "kernels/sample.h"

#define PROTO_VERSION 2        /* what units of this harness speak */
#define PROTO_VERSION_OLDEST 1 /* the oldest the scheduler accepts */
#define PROTO_FD 3
#define PROTO_MAX_LINE (16 * 1024 * 1024) /* a longer line is a protocol error */

/* ---- the unit's side: each returns 0, or -1 reported when the write failed ---------- */
struct proto_out {
	FILE *f;  /* the record stream (fd 3), owned */
};
int proto_out_open(struct proto_out *o, int fd);
int proto_out_close(struct proto_out *o);
int proto_hello(struct proto_out *o, const char *mode, int64_t unit, const char *backend);
int proto_info(struct proto_out *o, const char *text);
int proto_cell(struct proto_out *o, int64_t id, const struct rec_cell *c);
/* A trial with every sample of it (n may be 0). */
int proto_trial(struct proto_out *o, const struct rec_trial *t, const struct sample *s,
		size_t n);
/* The config space of op cell sp->cell: its fields' values, vendor candidates and the
 * grid points its constraint excludes (rows as recorder.h; their cell fields are ignored). */
int proto_space(struct proto_out *o, const struct rec_space *sp, const struct rec_space_value *v,
		size_t nv, const struct rec_space_vendor *vd, size_t nvd,
		const struct rec_space_invalid *inv, size_t ninv);
int proto_choice(struct proto_out *o, const struct rec_choice *c);
/* Samples of one cell, indices first .. first+n-1 (the optional columns are written only
 * when some sample has a value other than SAMPLE_INIT's). */
int proto_samples(struct proto_out *o, int64_t cell, int64_t first, const struct sample *s,
		  size_t n);
int proto_measure(struct proto_out *o, const struct rec_measure *m);
int proto_setup(struct proto_out *o, const struct rec_unit *u);
/* Last record: the unit's own verdict ("ok", "compile-error", "incorrect", "failed"). */
int proto_done(struct proto_out *o, const char *status, const char *message);
/* Writes a line that is not JSON, for testing the scheduler's handling of bad output. */
int proto_garbage(struct proto_out *o);

/* ---- the scheduler's side --------------------------------------------------------- */
/* What one unit may send (docs/experiment-format.md, [limits]; issue 45): samples (its
 * cells' and its trials' together), info text, and bytes on the record pipe in all.  A unit
 * past any of them has a protocol error (its records are dropped from there on, so the
 * harness's memory stays bounded), is killed, and is recorded bad-output with the reason. */
struct proto_limits {
	int64_t samples;          /* PROTO_LIMIT_SAMPLES by default */
	int64_t info_bytes;       /* PROTO_LIMIT_INFO */
	int64_t output_bytes;     /* PROTO_LIMIT_OUTPUT */
};
#define PROTO_LIMIT_SAMPLES 20000000LL          /* about 0.9 GB held: 44 bytes a sample */
#define PROTO_LIMIT_INFO (1024LL * 1024)        /* 1 MiB */
#define PROTO_LIMIT_OUTPUT (4096LL * 1024 * 1024) /* 4 GiB */
/* The defaults with an experiment's [limits] over them: each of samples, info_bytes and
 * output_bytes that is not 0 replaces its default (the unit's limits, and what `harness
 * check --settings` shows). */
struct proto_limits proto_limits_with(int64_t samples, int64_t info_bytes, int64_t output_bytes);

struct proto_in {
	struct rec_unit_data *u;  /* borrowed: records are added to it */
	struct proto_limits lim;  /* proto_in_init's defaults; the caller may lower or raise */
	int64_t bytes;            /* fed so far */
	int over_limit;           /* the error is a limit passed: the unit is to be killed */
	struct sbuf partial;      /* an incomplete last line */
	int64_t line;             /* lines parsed so far */
	int saw_hello, saw_done;
	char *done_status;        /* from the done record, heap */
	char *done_message;
	char *error;              /* first protocol error ("line N: ..."), heap; parsing stops */
	struct hashindex names; /* u's cells by name (a second declaration is refused
				       * in O(1), not by comparing with every earlier cell) */
	size_t nnamed;            /* u->cells[0 .. nnamed) are in names */
};
void proto_in_init(struct proto_in *in, struct rec_unit_data *u);
void proto_in_release(struct proto_in *in);
/* Feed bytes read from the pipe.  Returns 0, or -1 once a protocol error is recorded in
 * in->error (later feeds are ignored). */
int proto_in_feed(struct proto_in *in, const char *buf, size_t n);
/* End of stream: a trailing partial line is an error. */
int proto_in_end(struct proto_in *in);

#endif
