/* sched-resume.c: `harness run --resume`: the run folder, its experiment copy and its
 * journal found from the results file's name, checked against the recorded plan before
 * anything is written, and the run picked up where it stopped (sched-int.h) */
#include "config.h"
#include "harness/run/sched-int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness/base/git-version.h"
#include "harness/base/util.h"
#include "harness/config/experiment.h"
#include "harness/record/prereg.h"
#include "harness/record/recorder.h"
#include "harness/run/envcap.h"
#include "harness/run/plan.h"
#include "harness/run/progress.h"
#include "harness/run/sched-int.h"
#include "harness/run/unit.h"
#include "harness/config/unitenv.h"
#include "kernels/backend.h"
#include "stats/stats.h"

/* A resumed mode's command_sha256 (parallel to its n-element command: 64 hex digits or
 * null each) into b.  -1 reported: a results file that says something else is damaged. */
static int resume_command_sha256(struct run *r, struct mode_backend *b, json_t *sha, size_t n,
				 const char *mode)
{
	if (!json_is_array(sha) || json_array_size(sha) != n) {
		error("%s: mode '%s': command_sha256 in mode_backends is not one entry per "
		      "element of its command", r->h5path, mode);
		return -1;
	}
	b->command_sha256 = xcalloc(n + 1, sizeof(*b->command_sha256));
	for (size_t k = 0; k < n; k++) {
		json_t *v = json_array_get(sha, k);
		const char *h = json_string_value(v);
		if (json_is_null(v))
			continue;
		if (!h || strlen(h) != 64 || strspn(h, "0123456789abcdef") != 64) {
			error("%s: mode '%s': command_sha256[%zu] in mode_backends is not a SHA-256 "
			      "(64 lowercase hex digits) or null", r->h5path, mode, k);
			return -1;
		}
		b->command_sha256[k] = xstrdup(h);
	}
	return 0;
}

/* A file of a resumed mode's command that is no longer where the run started it, or no
 * longer the same, may be where the experiment names it from here: in the folder of the
 * experiment given to --resume, else in the kernel folder (the run moved to another
 * machine, a bundle unpacked at another path).  Taken only when it has the recorded
 * SHA-256, and said on stderr; each unit's argv records the path it ran.  Otherwise the
 * check before each unit stops the run (sched_command_check). */
static void resume_relocate(struct run *r, struct mode_backend *b, const struct mode *m)
{
	size_t nm = 0;
	while (m->command && m->command[nm])
		nm++;
	char *edir = NULL; /* the folder of the experiment given to --resume */
	if (r->o->experiment) {
		const char *sl = strrchr(r->o->experiment, '/');
		edir = sl ? xstrndup(r->o->experiment, (size_t)(sl - r->o->experiment)) : xstrdup(".");
	}
	const char *dirs[] = { edir, backend_kernel_dir() };
	for (size_t k = 0; b->command_sha256 && b->command[k]; k++) {
		const char *want = b->command_sha256[k];
		char h[65];
		if (!want || (util_sha256_file(b->command[k], h) == 0 && !strcmp(h, want)))
			continue;
		const char *rel = k < nm ? m->command[k] : NULL; /* as written */
		if (!rel || !*rel || rel[0] == '/')
			continue;
		for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
			if (!dirs[d])
				continue;
			char *cand = xasprintf("%s/%s", *dirs[d] ? dirs[d] : "/", rel);
			char *abs = realpath(cand, NULL);
			free(cand);
			if (abs && util_sha256_file(abs, h) == 0 && !strcmp(h, want)) {
				warning("mode '%s': '%s' is not at '%s' as the run started it, or not the "
					"same; the same file (SHA-256 %.16s...) is at '%s': this session "
					"runs that", m->name, rel, b->command[k], want, abs);
				free(b->command[k]);
				b->command[k] = abs;
				break;
			}
			free(abs);
		}
	}
	free(edir);
}

/* A resumed run's modes run on the backends they ran on (mode_backends; older files: the
 * run's one backend), which must still be able to run here; a mode mode_backends does not
 * list was left out of the run (`only_on`) and stays out; then the run's [on.BACKEND]
 * settings as when it started (sched_settle_modes).  -1 reported. */
static int resume_backends(struct run *r, const struct rec_meta *m)
{
	const char *mbj = rec_meta_get(m, "mode_backends");
	const char *run_backend = rec_meta_get(m, "backend");
	const char *run_req = rec_meta_get(m, "backend_requested");
	const char *run_why = rec_meta_get(m, "backend_reason");
	json_t *all = mbj ? json_loads(mbj, 0, NULL) : NULL;
	int ret = -1;
	if (mbj && !json_is_object(all)) {
		error("'%s': its mode_backends is not a JSON object; cannot resume it",
		      r->o->resume);
		return -1;
	}
	char *keep = xcalloc(r->exp->nmodes + 1, 1);
	r->mb = xcalloc(r->exp->nmodes, sizeof(*r->mb));
	for (size_t i = 0; i < r->exp->nmodes; i++) {
		struct mode_backend *b = &r->mb[i];
		const struct mode *md = &r->exp->modes[i];
		json_t *one = json_object_get(all, md->name);
		const char *name = json_string_value(json_object_get(one, "backend"));
		const char *req = json_string_value(json_object_get(one, "requested"));
		const char *why = json_string_value(json_object_get(one, "reason"));
		if (all && !one)
			continue; /* left out when the run started (keep[i] 0, b->entry NULL) */
		if (!name) {
			name = run_backend;
			req = run_req;
			why = run_why;
		}
		char *cause = NULL;
		const struct backend_entry *e = backend_entry(name);
		if (!e || !backend_available(e, &cause)) {
			error("the run used backend '%s', which cannot run here%s%s", name,
			      cause ? ": " : "", cause ? cause : "");
			free(cause);
			goto done;
		}
		b->entry = e;
		/* an older file without mode_backends: left out by the same rule as it started */
		keep[i] = all || !md->only_on || !strcmp(md->only_on, e->name);
		b->requested = xstrdup(req ? req : name);
		b->reason = xasprintf("resumed; %s", why ? why : "");
		if (e->start == BACKEND_START_COMMAND) {
			json_t *cmd = json_object_get(one, "command");
			size_t n = json_array_size(cmd);
			if (!n) {
				error("mode '%s' ran a command, but the run did not record its argv",
				      r->exp->modes[i].name);
				goto done;
			}
			b->command = xcalloc(n + 1, sizeof(*b->command));
			for (size_t k = 0; k < n; k++) {
				const char *a = json_string_value(json_array_get(cmd, k));
				b->command[k] = xstrdup(a ? a : "");
			}
			/* the files' hashes (a run before they were recorded has none: unchecked) */
			json_t *sha = json_object_get(one, "command_sha256");
			if (sha && resume_command_sha256(r, b, sha, n, r->exp->modes[i].name))
				goto done;
			resume_relocate(r, b, &r->exp->modes[i]);
		}
	}
	sched_settle_modes(r, keep);
	ret = 0;
done:
	free(keep);
	json_decref(all);
	return ret;
}

/* The run folder and results file of --resume ARG: ARG is the results file X.h5 (which
 * need not exist: a run killed before its first assembly has only X/journal) or the run
 * folder X itself. */
static void resume_paths(struct run *r, const char *arg)
{
	struct stat st;
	size_t l = strlen(arg);
	while (l > 1 && arg[l - 1] == '/')
		l--;
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		r->dir = xstrndup(arg, l);
		r->h5path = xasprintf("%s.h5", r->dir);
		return;
	}
	r->h5path = xstrdup(arg);
	r->dir = l > 3 && !strcmp(arg + l - 3, ".h5") ? xstrndup(arg, l - 3)
						      : xasprintf("%s.d", arg);
}

/* 1 when the results file exists and already says what the journal says: the same status
 * and end time and as many units. */
static int results_current(const struct run *r, size_t nunits)
{
	struct rec *f = NULL;
	struct rec_meta m;
	struct rec_unit *u = NULL;
	size_t n = 0;
	int same = 0;
	rec_meta_init(&m);
	if (access(r->h5path, F_OK) < 0)
		return 0;
	const struct rec_meta *jm = rec_journal_meta(r->jr);
	const char *js = rec_meta_get(jm, "status"), *je = rec_meta_get(jm, "end_utc");
	if (rec_open(r->h5path, 0, &f) == 0 && rec_read_meta(f, &m) == 0 &&
	    rec_read_units(f, &u, &n) == 0) {
		const char *fs = rec_meta_get(&m, "status"), *fe = rec_meta_get(&m, "end_utc");
		same = n == nunits && js && fs && je && fe && !strcmp(js, fs) && !strcmp(je, fe);
	}
	rec_units_free(u, n);
	rec_meta_release(&m);
	rec_close(f);
	return same;
}

/* Remove what an interrupted assembly left beside the results file (X.h5.tmp-*). */
static void remove_results_temps(const struct run *r)
{
	const char *slash = strrchr(r->h5path, '/');
	char *folder = slash ? xstrndup(r->h5path, (size_t)(slash - r->h5path) + 1) : xstrdup("./");
	char *prefix = xasprintf("%s.tmp-", slash ? slash + 1 : r->h5path);
	DIR *d = opendir(folder);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		char *p = xasprintf("%s%s", folder, e->d_name);
		if (unlink(p) == 0)
			warning("'%s': removed, left by an interrupted write", p);
		free(p);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(folder);
}

/* A block that ran part of its units before the stop keeps its device: its remaining units
 * go to this session's slot on the device its recorded units name (r->pin), so its pairs
 * stay within one device.  A block whose device this session has no slot for (resumed with
 * other --jobs/--gpus, or without) runs where a slot frees up, and the audit's
 * block-devices check flags it.  With units on two devices already (split before), the
 * first recorded unit's device wins. */
static void resume_pins(struct run *r, const struct rec_unit *units, size_t nunits)
{
	if (!r->slots.n)
		return;
	r->pin = xcalloc(r->nplan, sizeof(*r->pin));
	for (size_t i = 0; i < r->nplan; i++)
		r->pin[i] = -1;
	for (size_t u = 0; u < nunits; u++) {
		if (!units[u].device || !*units[u].device || units[u].id < 0 ||
		    (size_t)units[u].id >= r->nplan)
			continue;
		long k = -1;
		for (size_t s = 0; s < r->slots.n && k < 0; s++)
			if (!strcmp(r->slots.s[s].device, units[u].device))
				k = (long)s;
		int64_t b = r->plan[units[u].id].block;
		for (size_t i = 0; k >= 0 && i < r->nplan; i++)
			if (r->plan[i].block == b && r->pin[i] < 0)
				r->pin[i] = k;
	}
}

/* --share-split-blocks: a block whose recorded units ran on two devices, or on one that no
 * slot of this session has, has its pairs mixing devices already (the audit's block-devices
 * check FAILs it either way), so nothing is lost when its remaining units run on several
 * slots side by side; r->shared marks them.  A block that ran on one device this session
 * has a slot for keeps it (r->pin) and is not shared.  -1 reported: no slots to share. */
static int resume_shared(struct run *r, const struct rec_unit *units, size_t nunits)
{
	if (!r->o->share_split)
		return 0;
	if (r->slots.n < 2)
		return error("--share-split-blocks: only with two slots or more (--jobs, --gpus, or "
			     "the experiment's [run] jobs or gpus)");
	r->shared = xcalloc(r->nplan + 1, 1);
	/* per plan id of a block's first recorded unit: that unit's device (borrowed), and
	 * whether the block is shared */
	const char **dev = xcalloc(r->nplan + 1, sizeof(*dev));
	char *split = xcalloc(r->nplan + 1, 1);
	size_t *first = xcalloc(r->nplan + 1, sizeof(*first));
	for (size_t i = 0; i < r->nplan; i++) /* the plan lists each block's units together */
		first[i] = i && r->plan[i - 1].block == r->plan[i].block ? first[i - 1] : i;
	for (size_t u = 0; u < nunits; u++) {
		const char *d = units[u].device;
		if (!d || !*d || units[u].id < 0 || (size_t)units[u].id >= r->nplan)
			continue;
		size_t f = first[units[u].id];
		int here = 0;
		for (size_t k = 0; k < r->slots.n; k++)
			here |= !strcmp(r->slots.s[k].device, d);
		if (!here || (dev[f] && strcmp(dev[f], d)))
			split[f] = 1;
		if (!dev[f])
			dev[f] = d;
	}
	for (size_t i = 0; i < r->nplan; i++)
		r->shared[i] = split[first[i]];
	free(dev);
	free(split);
	free(first);
	return 0;
}

/* The journal's running notes: a unit the last session left running without recording it
 * (the machine taken back, the harness killed) ran at least its note's wall time, which
 * --max-time's estimate for its mode, workload and kind counts from now on (so a unit longer
 * than what a session has left is not started again and again, each time lost).  A note of
 * a unit recorded since is removed.  Reports and returns -1. */
static int resume_running_notes(struct run *r)
{
	struct rec_running *notes;
	size_t n;
	if (rec_journal_scan_running(r->jr, &notes, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct rec_plan *p = &r->plan[notes[i].id];
		if (r->done[notes[i].id]) {
			rec_journal_clear_running(r->jr, notes[i].id);
			continue;
		}
		sched_estimate_note_unfinished(r, p->mode, p->workload, p->warm, notes[i].elapsed_ns);
		int wl = p->workload && *p->workload; /* "" or NULL: every workload of the mode */
		if (!r->o->quiet)
			fprintf(stderr,
				"harness: unit %" PRId64 " (mode '%s'%s%s%s, block %" PRId64 ") ran "
				"%.0f s in the last session without finishing: --max-time counts "
				"its kind as at least that long\n",
				p->id, p->mode, wl ? ", workload '" : "", wl ? p->workload : "",
				wl ? "'" : "", p->block, notes[i].elapsed_ns / 1e9);
	}
	free(notes);
	return 0;
}

/* --repeats: the journal's plan of jn units (was blocks) becomes r->plan (r->exp->repeats
 * blocks), and the metadata say so: "repeats" and, appended to any earlier extension's,
 * "repeats_extended" = "5 -> 6 blocks after 64 of 200 units recorded (UTC)", which the
 * report's header and the audit's repeats check show.  Blocks added after results
 * were seen are a chance to stop when a test happens to pass (optional stopping); the
 * record lets a reader weigh that. */
static int resume_extend(struct run *r, int64_t was, size_t ndone, size_t jn)
{
	char utc[32], num[32];
	util_utc_now(utc);
	snprintf(num, sizeof(num), "%" PRId64, r->exp->repeats);
	const char *prev = rec_meta_get(rec_journal_meta(r->jr), "repeats_extended");
	char *ext = xasprintf("%s%s%" PRId64 " -> %" PRId64 " blocks after %zu of %zu units "
			      "recorded (%s)",
			      prev && *prev ? prev : "", prev && *prev ? "; " : "", was,
			      r->exp->repeats, ndone, jn, utc);
	const char *kv[] = { "repeats", num, "repeats_extended", ext };
	int rc = rec_journal_extend_plan(r->jr, r->plan, r->nplan, kv, 2);
	free(ext);
	return rc;
}

/* One unit of a plan in words: "mode 'x', workload 'w', block 2, cold".  Heap. */
static char *plan_unit_words(const struct rec_plan *p)
{
	int wl = p->workload && *p->workload;
	return xasprintf("mode '%s'%s%s%s, block %" PRId64 ", %s", p->mode,
			 wl ? ", workload '" : "", wl ? p->workload : "", wl ? "'" : "", p->block,
			 p->warm ? "warm" : "cold");
}

/* NULL when the plan rebuilt for a resume (np units) is the journal's (jn units; fewer when
 * grows: --repeats added blocks after them), else what differs first, in words, naming
 * both values.  Heap. */
static char *plan_difference(const struct rec_plan *jp, size_t jn, const struct rec_plan *p,
			     size_t np, int grows)
{
	for (size_t i = 0; i < jn && i < np; i++) {
		const char *jw = jp[i].workload ? jp[i].workload : "";
		const char *w = p[i].workload ? p[i].workload : "";
		if (!strcmp(jp[i].mode, p[i].mode) && jp[i].warm == p[i].warm &&
		    jp[i].warm_of == p[i].warm_of && jp[i].block == p[i].block && !strcmp(jw, w))
			continue;
		char *a = plan_unit_words(&jp[i]), *b = plan_unit_words(&p[i]);
		char *d = xasprintf("unit %zu: recorded %s; the experiment now plans %s", i, a, b);
		free(a);
		free(b);
		return d;
	}
	if (jn == np || (jn < np && grows))
		return NULL;
	return xasprintf("%zu units recorded in the plan; the experiment now plans %zu", jn, np);
}

/* Reopen a run for --resume from its journal.  The experiment is the run folder's copy
 * (or the one given, which must be the same bytes), checked against the recorded SHA-256
 * before anything is written: a refused resume changes nothing.  *complete is set when
 * every unit is recorded and the results file already says so (nothing to do). */
int sched_start_resume(struct run *r, int *usage, int *complete)
{
	int ret = -1;
	struct rec_unit *units = NULL;
	size_t nunits = 0, jn = 0;
	*usage = 1;
	*complete = 0;
	resume_paths(r, r->o->resume);
	char *jdir = xasprintf("%s/journal", r->dir);
	struct stat jst;
	int has_journal = stat(jdir, &jst) == 0;
	free(jdir);
	/* No run folder: a start killed before its rename may have left its stage beside
	 * it, promoted when its journal is whole, else removed, naming the command */
	int promoted = 0, no_dir = access(r->dir, F_OK) < 0;
	char *cmd = NULL;
	if (!has_journal && no_dir) {
		if (rec_run_dir_leftovers(r->dir, 1, &promoted, &cmd)) {
			free(cmd);
			goto done;
		}
		has_journal = promoted;
	}
	if (!has_journal) {
		struct rec *old = NULL;
		if (access(r->h5path, F_OK) < 0 && cmd)
			error("cannot resume '%s': its run was killed before its journal was in "
			      "place, so nothing was recorded; start it again: %s", r->h5path, cmd);
		else if (access(r->h5path, F_OK) < 0 && no_dir)
			error("cannot resume '%s': no such file, and no run folder '%s' (a run killed "
			      "before it made one recorded nothing); start it again with the command "
			      "that started it", r->h5path, r->dir);
		else if (access(r->h5path, F_OK) < 0)
			error("cannot resume '%s': no such file, and its run folder '%s' holds no "
			      "journal (a run killed before it recorded anything, or not a run "
			      "folder); to start it again, remove the folder first: rm -r '%s'",
			      r->h5path, r->dir, r->dir);
		else if (rec_open(r->h5path, 0, &old) == 0 &&
			 rec_format_version(old) < REC_FORMAT_VERSION)
			error("'%s': results format version %d is read-only for this harness (it "
			      "resumes runs from their journal)", r->h5path, rec_format_version(old));
		else if (old)
			error("'%s': its run folder '%s' has no journal; cannot resume it", r->h5path,
			      r->dir);
		rec_close(old);
		free(cmd);
		goto done;
	}
	free(cmd);
	if (rec_journal_open(r->dir, &r->jr))
		goto done;
	const struct rec_meta *m = rec_journal_meta(r->jr);
	const char *sha = rec_meta_get(m, "experiment_sha256");
	const char *backend = rec_meta_get(m, "backend");
	if (!sha || !backend) {
		error("'%s' lacks the run metadata needed to resume", r->o->resume);
		goto done;
	}
	r->exp_copy = xasprintf("%s/experiment.toml", r->dir);
	const char *path = r->o->experiment ? r->o->experiment : r->exp_copy;
	/* Its hypothesis files were recorded when the run started and are not read again:
	 * the run folder's copy lies away from them. */
	/* the overrides and filters the run recorded, applied again: given anew, they must be
	 * the same */
	struct exp_edits ed;
	char *why = NULL;
	if (exp_edits_from_json(rec_meta_get(m, "overrides"), rec_meta_get(m, "mode_filter"),
				rec_meta_get(m, "workload_filter"), &ed, &why)) {
		error("'%s': %s", r->o->resume, why);
		free(why);
		goto done;
	}
	if (!exp_edits_none(r->o->edits) && !exp_edits_equal(r->o->edits, &ed)) {
		char *a = exp_edits_json(ed.sets, ed.nsets), *b = exp_edits_json(ed.modes, ed.nmodes),
		     *c = exp_edits_json(ed.workloads, ed.nworkloads);
		error("--resume applies the overrides and filters '%s' recorded (-D %s, --mode %s, "
		      "--workload %s): give none, or the same in the same order", r->o->resume, a,
		      b, c);
		free(a);
		free(b);
		free(c);
		exp_edits_release(&ed);
		goto done;
	}
	int lr = experiment_load_edits(path, EXPERIMENT_NO_FILE_CHECKS, &ed, &r->exp);
	exp_edits_release(&ed);
	if (lr)
		goto done;
	if (strcmp(sha, r->exp->sha256)) {
		error("'%s' has changed since the run started (SHA-256 %.12s..., recorded %.12s...); "
		      "refusing to resume '%s'",
		      path, r->exp->sha256, sha, r->o->resume);
		goto done;
	}
	if (resume_backends(r, m))
		goto done;
	if (sched_make_dir_absolute(r))
		goto done;
	free(r->exp_copy);
	r->exp_copy = xasprintf("%s/experiment.toml", r->dir);
	/* A run folder moved without its copy (only the journal kept): the experiment given,
	 * whose SHA-256 matched the recorded one above, is that copy byte for byte. */
	if (access(r->exp_copy, F_OK) < 0 && errno == ENOENT && r->o->experiment &&
	    (util_mkdir_p(r->dir, 0755) ||
	     util_write_file(r->exp_copy, r->exp->text, r->exp->text_len, 0444)))
		goto done;
	if (access(r->exp_copy, R_OK) < 0) {
		error_errno("cannot read the run's experiment copy '%s'", r->exp_copy);
		goto done;
	}
	/* The plan's blocks: the experiment's repeats, or those of an earlier --repeats (the
	 * recorded "repeats"), or --repeats now.  A plan grows by whole blocks appended after
	 * the recorded ones (plan.c draws block by block from one seeded stream), never
	 * shrinks; a shard's share of the blocks is fixed when it starts. */
	int64_t was = r->exp->repeats, rec_rep = 0;
	const char *rr = rec_meta_get(m, "repeats");
	if (rr && !parse_i64(rr, 1, EXPERIMENT_MAX_REPEATS, &rec_rep) && rec_rep > was)
		was = rec_rep;
	r->exp->repeats = was;
	if (r->o->repeats) {
		const char *sh = rec_meta_get(m, "shard");
		if (r->o->repeats > EXPERIMENT_MAX_REPEATS) {
			error("--repeats %" PRId64 ": above %d, the most an experiment's repeats may "
			      "be; '%s' is unchanged", r->o->repeats, EXPERIMENT_MAX_REPEATS,
			      r->o->resume);
			goto done;
		}
		if (r->o->repeats < was || (sh && *sh)) {
			if (sh && *sh)
				error("--repeats: '%s' is shard %s of a run; extend the whole run's "
				      "experiment instead", r->o->resume, sh);
			else
				error("--repeats %" PRId64 ": '%s' has %" PRId64 " blocks planned; a "
				      "plan grows, it never shrinks",
				      r->o->repeats, r->o->resume, was);
			goto done;
		}
		r->exp->repeats = r->o->repeats;
	}
	*usage = 0;
	if (sched_plan_build(r))
		goto done;
	const struct rec_plan *jp = rec_journal_plan(r->jr, &jn);
	char *diff = plan_difference(jp, jn, r->plan, r->nplan, r->exp->repeats > was);
	if (diff) {
		*usage = 1;
		error("'%s': the experiment's plan is not the one the run recorded (%s); refusing "
		      "to resume", r->o->resume, diff);
		free(diff);
		goto done;
	}
	/* The shard it was started as (a resumed task runs the same share of the blocks),
	 * and this session's slots. */
	const char *shard = rec_meta_get(m, "shard");
	if (shard && *shard && rec_shard_parse(shard, &r->shard_k, &r->shard_n)) {
		error("'%s': its shard '%s' is not K/N with 0 <= K < N <= %d", r->o->resume, shard,
		      REC_MAX_SHARDS);
		goto done;
	}
	const char *subid = rec_meta_get(m, "submission_id");
	if (r->o->submission && strcmp(r->o->submission, subid ? subid : "")) {
		*usage = 1;
		error("'%s' is of submission %s%s%s; refusing to resume it as --submission %s",
		      r->o->resume, subid && *subid ? "'" : "", subid && *subid ? subid : "(none)",
		      subid && *subid ? "'" : "", r->o->submission);
		goto done;
	}
	if (r->o->shard_n > 0 && (r->o->shard_k != r->shard_k || r->o->shard_n != r->shard_n)) {
		*usage = 1;
		error("'%s' is shard %s; refusing to resume it as --shard %" PRId64 "/%" PRId64,
		      r->o->resume, shard && *shard ? shard : "(none: every block)", r->o->shard_k,
		      r->o->shard_n);
		goto done;
	}
	sched_mark_mine(r);
	if (sched_make_slots(r)) {
		*usage = 1;
		goto done;
	}
	r->done = xcalloc(r->nplan, sizeof(*r->done));
	r->cache_of = xcalloc(r->nplan, sizeof(*r->cache_of));
	/* From here on the journal may be tidied: interrupted writes, units that fail
	 * verification (they run again). */
	remove_results_temps(r);
	if (rec_journal_scan(r->jr, &units, &nunits))
		goto done;
	size_t ndone = 0;
	for (size_t i = 0; i < nunits; i++) {
		int64_t id = units[i].id;
		r->done[id] = 1;
		ndone++;
		if (strcmp(units[i].status, REC_STATUS_OK))
			r->nfailed++;
		sched_estimate_note(r, units[i].mode, units[i].workload, units[i].warm,
				    units[i].wall_ns);
		if (!units[i].warm) {
			free(r->cache_of[id]);
			r->cache_of[id] = xstrdup(units[i].cache_dir);
		}
	}
	if (resume_running_notes(r))
		goto done;
	resume_pins(r, units, nunits);
	if (resume_shared(r, units, nunits)) {
		*usage = 1;
		goto done;
	}
	if (r->nplan > jn && resume_extend(r, was, ndone, jn))
		goto done;
	m = rec_journal_meta(r->jr);
	const char *st = rec_meta_get(m, "status");
	size_t nmine = 0;
	for (size_t i = 0; i < r->nplan; i++)
		nmine += r->mine[i];
	if (ndone == nmine && st && strcmp(st, "running") && strcmp(st, "interrupted") &&
	    strcmp(st, "time-limit") && results_current(r, nunits)) {
		*complete = 1;
		ret = 0;
		goto done;
	}
	/* This session's slots and batch-system ids replace the last one's (each unit records
	 * its own slot and device). */
	struct rec_meta sm;
	rec_meta_init(&sm);
	sched_session_meta(r, &sm);
	const char **kv = xcalloc(2 * (sm.nkv + 1), sizeof(*kv));
	size_t nkv = 0;
	kv[2 * nkv] = "status";
	kv[2 * nkv++ + 1] = "running";
	for (size_t i = 0; i < sm.nkv; i++) {
		kv[2 * nkv] = sm.kv[i].key;
		kv[2 * nkv++ + 1] = sm.kv[i].value;
	}
	int sr = rec_journal_set_meta(r->jr, kv, nkv);
	free(kv);
	rec_meta_release(&sm);
	if (sr)
		goto done;
	ret = 0;
done:
	rec_units_free(units, nunits);
	return ret;
}

int sched_record_meta(const char *h5path, const char *const *kv, size_t n)
{
	struct run r = { 0 };
	resume_paths(&r, h5path);
	int rc = rec_journal_open(r.dir, &r.jr) || rec_journal_set_meta(r.jr, kv, n) ||
			 sched_assemble(&r)
		 ? -1
		 : 0;
	rec_journal_close(r.jr);
	free(r.h5path);
	free(r.dir);
	return rc;
}
