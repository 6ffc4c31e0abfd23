/* recorder-merge.c: one results file from the shards of one plan (harness merge): every
 * shard's journal checked against the first (experiment SHA-256, seed, plan, shard count),
 * its units assembled once each, its provenance recorded (see recorder.h, rec_merge) */
#include "config.h"
#include "harness/record/recorder.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/util.h"

struct shard {
	char *arg;       /* as given */
	char *dir;       /* its run folder (heap) */
	struct rec_meta meta;
	struct rec_plan *plan;
	size_t nplan;
	int64_t k, n;    /* its shard, or -1, -1 */
};

/* The run folder of a shard argument: X.h5 -> X, a folder as it is. */
static char *shard_dir(const char *arg)
{
	struct stat st;
	size_t l = strlen(arg);
	while (l > 1 && arg[l - 1] == '/')
		l--;
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
		return xstrndup(arg, l);
	return l > 3 && !strcmp(arg + l - 3, ".h5") ? xstrndup(arg, l - 3) : xasprintf("%s.d", arg);
}

/* Read path's metadata and plan (a journal's run.h5 or a results file).  -1 reported. */
static int read_head(const char *path, struct rec_meta *m, struct rec_plan **plan, size_t *n)
{
	struct rec *r = NULL;
	int rc = rec_open(path, 0, &r) < 0 || rec_read_meta(r, m) < 0 ||
		 rec_read_plan(r, plan, n) < 0 ? -1 : 0;
	rec_close(r);
	return rc;
}

static int same_plan(const struct rec_plan *a, size_t na, const struct rec_plan *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i].mode, b[i].mode) || a[i].block != b[i].block ||
		    a[i].position != b[i].position || a[i].warm != b[i].warm ||
		    a[i].warm_of != b[i].warm_of ||
		    strcmp(a[i].workload ? a[i].workload : "", b[i].workload ? b[i].workload : ""))
			return 0;
	return 1;
}

static const char *get(const struct rec_meta *m, const char *key)
{
	const char *v = rec_meta_get(m, key);
	return v ? v : "";
}

/* The absolute folder of path's parent ("." for a bare name).  Heap, or NULL reported. */
static char *abs_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *parent = slash ? (slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path)))
			     : xstrdup(".");
	char *abs = realpath(parent, NULL);
	if (!abs)
		error_errno("cannot resolve the folder '%s'", parent);
	free(parent);
	return abs;
}

/* The relative path from folder `from` to folder `to` (both absolute, resolved). Heap. */
static char *relpath(const char *from, const char *to)
{
	size_t i = 0, common = 0;
	while (from[i] && to[i] && from[i] == to[i]) {
		if (from[i] == '/')
			common = i;
		i++;
	}
	if (!from[i] && (!to[i] || to[i] == '/'))
		common = i;
	else if (!to[i] && from[i] == '/')
		common = i;
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "");
	for (const char *p = from + common; *p; p++)
		if (*p == '/')
			sbuf_addf(&sb, "%s..", sb.len ? "/" : "");
	const char *rest = to + common;
	while (*rest == '/')
		rest++;
	if (*rest)
		sbuf_addf(&sb, "%s%s", sb.len ? "/" : "", rest);
	if (!sb.len)
		sbuf_adds(&sb, ".");
	return sbuf_detach(&sb);
}

int rec_shard_parse(const char *s, int64_t *k, int64_t *n)
{
	const char *slash = s ? strchr(s, '/') : NULL;
	if (!slash || slash == s || strspn(s, "0123456789") != (size_t)(slash - s) || !slash[1] ||
	    strspn(slash + 1, "0123456789") != strlen(slash + 1))
		return -1;
	char *ks = xstrndup(s, (size_t)(slash - s));
	int bad = parse_i64(ks, 0, REC_MAX_SHARDS - 1, k) ||
		  parse_i64(slash + 1, 1, REC_MAX_SHARDS, n) || *k >= *n;
	free(ks);
	return bad ? -1 : 0;
}

int rec_submission_id_ok(const char *s)
{
	size_t l = strlen(s);
	return l >= 1 && l <= 64 &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == l;
}

/* "2, 5-6": the shards 0..n-1 that no element of sh[0..ns) is, as ranges.  Heap; *count
 * how many. */
static char *missing_shards(const struct shard *sh, size_t ns, int64_t n, int64_t *count)
{
	char *have = xcalloc((size_t)n + 1, 1);
	for (size_t i = 0; i < ns; i++)
		if (sh[i].k >= 0 && sh[i].k < n)
			have[sh[i].k] = 1;
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "");
	*count = 0;
	for (int64_t k = 0; k < n; k++) {
		if (have[k])
			continue;
		int64_t e = k;
		while (e + 1 < n && !have[e + 1])
			e++;
		*count += e - k + 1;
		sbuf_addf(&sb, "%s%" PRId64, sb.len ? ", " : "", k);
		if (e > k)
			sbuf_addf(&sb, "-%" PRId64, e);
		k = e;
	}
	free(have);
	return sbuf_detach(&sb);
}

static void shard_release(struct shard *s)
{
	free(s->dir);
	rec_meta_release(&s->meta);
	rec_plan_free(s->plan, s->nplan);
}

int rec_merge(const char *const *args, size_t n, const char *submission, const char *out)
{
	struct shard *sh = xcalloc(n ? n : 1, sizeof(*sh));
	struct rec_meta sub, merged;
	struct rec_plan *subplan = NULL;
	size_t nsubplan = 0;
	char **dirs = xcalloc(n ? n : 1, sizeof(*dirs));
	char **prefix = xcalloc(n ? n : 1, sizeof(*prefix));
	char *sub_path = NULL, *outdir = NULL;
	int have_sub = 0, rc = -1, bad = 1; /* bad: a failure so far is the input's */
	struct sbuf prov;
	sbuf_init(&prov);
	rec_meta_init(&sub);
	rec_meta_init(&merged);
	if (n == 0) {
		error("no shard to merge");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		struct shard *s = &sh[i];
		rec_meta_init(&s->meta);
		s->arg = (char *)args[i];
		s->dir = shard_dir(args[i]);
		s->k = s->n = -1;
		char *run = xasprintf("%s/journal/run.h5", s->dir);
		if (access(run, R_OK) < 0) {
			error("'%s' is not a shard: its run folder '%s' has no journal (journal/run.h5)",
			      args[i], s->dir);
			free(run);
			goto done;
		}
		int hr = read_head(run, &s->meta, &s->plan, &s->nplan);
		free(run);
		if (hr)
			goto done;
		const char *k = get(&s->meta, "shard");
		if (*k && rec_shard_parse(k, &s->k, &s->n)) {
			error("'%s': its shard '%s' is not K/N with 0 <= K < N <= %d", args[i], k,
			      REC_MAX_SHARDS);
			goto done;
		}
		const struct shard *f = &sh[0];
		if (strcmp(get(&s->meta, "experiment_sha256"), get(&f->meta, "experiment_sha256"))) {
			error("'%s' and '%s' are not shards of one plan: their experiments differ "
			      "(SHA-256 %.12s... and %.12s...)", f->arg, args[i],
			      get(&f->meta, "experiment_sha256"), get(&s->meta, "experiment_sha256"));
			goto done;
		}
		static const char *const edit_keys[] = { "overrides", "mode_filter",
							 "workload_filter" };
		for (size_t e = 0; e < ARRAY_SIZE(edit_keys); e++)
			if (strcmp(get(&s->meta, edit_keys[e]), get(&f->meta, edit_keys[e]))) {
				error("'%s' and '%s' are not shards of one plan: their %s differ "
				      "('%s' and '%s'; harness run -D, --mode, --workload)", f->arg,
				      args[i], edit_keys[e], get(&f->meta, edit_keys[e]),
				      get(&s->meta, edit_keys[e]));
				goto done;
			}
		if (strcmp(get(&s->meta, "seed"), get(&f->meta, "seed"))) {
			error("'%s' and '%s' are not shards of one plan: their seeds differ (%s and %s)",
			      f->arg, args[i], get(&f->meta, "seed"), get(&s->meta, "seed"));
			goto done;
		}
		if (!same_plan(f->plan, f->nplan, s->plan, s->nplan)) {
			error("'%s' and '%s' are not shards of one plan: their plans differ", f->arg,
			      args[i]);
			goto done;
		}
		if (s->n != f->n) {
			error("'%s' and '%s' are not shards of one split: shard %s and %s", f->arg,
			      args[i], *get(&f->meta, "shard") ? get(&f->meta, "shard") : "(none)",
			      *k ? k : "(none)");
			goto done;
		}
		const char *fid = get(&f->meta, "submission_id"), *sid = get(&s->meta, "submission_id");
		if (strcmp(fid, sid)) {
			error("'%s' and '%s' are not shards of one submission: submission id%s%s%s "
			      "and %s%s%s (each harness slurm, or each set of harness run --shard K/N "
			      "--submission ID, is one; merge the shards of one)", f->arg, args[i],
			      *fid ? " '" : " ", *fid ? fid : "(none)", *fid ? "'" : "",
			      *sid ? "'" : "", *sid ? sid : "(none)", *sid ? "'" : "");
			goto done;
		}
		for (size_t j = 0; j < i; j++)
			if (s->k >= 0 && sh[j].k == s->k) {
				error("'%s' and '%s' are the same shard (%s)", sh[j].arg, args[i], k);
				goto done;
			}
		dirs[i] = s->dir;
	}
	/* The submission record (harness slurm): the experiment and hypotheses with their
	 * git state as they were when the job was submitted. */
	if (submission) {
		sub_path = xstrdup(submission);
	} else {
		const char *slash = strrchr(sh[0].dir, '/');
		char *parent = slash ? xstrndup(sh[0].dir, (size_t)(slash - sh[0].dir)) : xstrdup(".");
		sub_path = xasprintf("%s/submission.h5", parent);
		free(parent);
		if (access(sub_path, F_OK) < 0) {
			free(sub_path);
			sub_path = NULL;
		}
	}
	if (sub_path) {
		if (read_head(sub_path, &sub, &subplan, &nsubplan))
			goto done;
		if (strcmp(get(&sub, "experiment_sha256"), get(&sh[0].meta, "experiment_sha256")) ||
		    strcmp(get(&sub, "seed"), get(&sh[0].meta, "seed")) ||
		    !same_plan(subplan, nsubplan, sh[0].plan, sh[0].nplan)) {
			error("'%s' was not submitted as '%s': the experiment, seed or plan differs",
			      sh[0].arg, sub_path);
			goto done;
		}
		/* A submission record stands for what was fixed before the data existed: one
		 * written after a shard started could carry hypotheses edited after its results
		 * were seen, and would read PRE-REGISTERED (issue 45). */
		const char *when = get(&sub, "start_utc");
		for (size_t i = 0; i < n; i++) {
			const char *s0 = get(&sh[i].meta, "start_utc");
			if (!*when || (*s0 && strcmp(when, s0) > 0)) {
				error("'%s' was written at %s, after shard '%s' started (%s): a "
				      "submission record made once data existed cannot vouch for what "
				      "was registered before it; merge without it (--submission of the "
				      "record written when the job was submitted)",
				      sub_path, *when ? when : "(no time recorded)", sh[i].arg, s0);
				goto done;
			}
		}
		const char *subid = get(&sub, "submission_id"), *shid = get(&sh[0].meta, "submission_id");
		if (*subid && strcmp(subid, shid)) {
			error("'%s' is not a shard of the submission '%s' records: submission id%s%s%s, "
			      "the record's '%s'", sh[0].arg, sub_path, *shid ? " '" : " ",
			      *shid ? shid : "(none)", *shid ? "'" : "", subid);
			goto done;
		}
		have_sub = 1;
	}
	if (!*get(&sh[0].meta, "submission_id") && sh[0].n > 0)
		warning("the shards carry no submission id (written before ids, or by harness run "
			"--shard without --submission): merge cannot tell whether they are of one "
			"submission");
	bad = 0;
	/* Log paths: relative to the results file's folder, so each shard's are prefixed
	 * with its folder as seen from out's. */
	outdir = abs_parent(out);
	if (!outdir)
		goto done;
	for (size_t i = 0; i < n; i++) {
		char *sp = abs_parent(sh[i].dir);
		if (!sp)
			goto done;
		prefix[i] = relpath(outdir, sp);
		free(sp);
	}
	/* The merged metadata: the submission's (else the first shard's), how the shards
	 * ended, and each shard's provenance. */
	const struct rec_meta *base = have_sub ? &sub : &sh[0].meta;
	for (size_t i = 0; i < base->nkv; i++)
		rec_meta_set(&merged, base->kv[i].key, base->kv[i].value);
	for (size_t i = 0; i < base->nfiles; i++)
		rec_meta_add_file(&merged, base->files[i].role, base->files[i].path,
				  base->files[i].text, base->files[i].len);
	const char *start = NULL, *end = NULL;
	int all_complete = 1;
	sbuf_adds(&prov, "[");
	static const char *const keys[] = { "shard", "submission_id", "status", "host", "start_utc", "end_utc",
					    "slots", "slurm_job_id", "slurm_array_job_id",
					    "slurm_array_task_id", "slurm_job_nodelist",
					    "git_commit", "harness_argv" };
	for (size_t i = 0; i < n; i++) {
		const struct rec_meta *m = &sh[i].meta;
		sbuf_addf(&prov, "%s{\"file\":", i ? "," : "");
		sbuf_add_json_string(&prov, sh[i].arg);
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			sbuf_adds(&prov, ",");
			sbuf_add_json_string(&prov, keys[k]);
			sbuf_adds(&prov, ":");
			sbuf_add_json_string(&prov, get(m, keys[k]));
		}
		sbuf_adds(&prov, "}");
		if (strcmp(get(m, "status"), "complete"))
			all_complete = 0;
		const char *s = get(m, "start_utc"), *e = get(m, "end_utc");
		if (*s && (!start || strcmp(s, start) < 0))
			start = s;
		if (*e && (!end || strcmp(e, end) > 0))
			end = e;
	}
	sbuf_adds(&prov, "]");
	int64_t nshards = sh[0].n > 0 ? sh[0].n : (int64_t)n;
	if ((int64_t)n < nshards) {
		int64_t nmiss;
		char *miss = missing_shards(sh, n, nshards, &nmiss);
		all_complete = 0;
		warning("missing %" PRId64 " of %" PRId64 " shards: %s (their blocks' units are not "
			"in '%s')", nmiss, nshards, miss, out);
		free(miss);
	}
	rec_meta_set(&merged, "shards", prov.buf);
	rec_meta_set(&merged, "shard", "");
	rec_meta_set(&merged, "slots", "");
	rec_meta_set(&merged, "status", all_complete ? "complete" : "incomplete");
	rec_meta_set(&merged, "start_utc", start ? start : "");
	rec_meta_set(&merged, "end_utc", end ? end : "");
	rec_meta_set(&merged, "submission", have_sub ? sub_path : "");
	const char *ob = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;
	char *rd = strlen(ob) > 3 && !strcmp(ob + strlen(ob) - 3, ".h5")
			   ? xstrndup(ob, strlen(ob) - 3) : xstrdup(ob);
	rec_meta_set(&merged, "run_dir", rd);
	free(rd);
	struct rec_assemble_opts ao = { .meta = &merged, .log_prefix = (const char *const *)prefix,
					.excl = 1 };
	rc = rec_assemble_ex((const char *const *)dirs, n, &ao, out);
done:
	if (rc < 0 && bad)
		rc = -2;
	for (size_t i = 0; i < n; i++) {
		shard_release(&sh[i]);
		free(prefix[i]);
	}
	free(sh);
	free(dirs);
	free(prefix);
	free(sub_path);
	free(outdir);
	sbuf_release(&prov);
	rec_plan_free(subplan, nsubplan);
	rec_meta_release(&sub);
	rec_meta_release(&merged);
	return rc;
}
