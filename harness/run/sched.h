/* sched.h: the scheduler: from an experiment to a results file.  It resolves each mode's
 * backend through the registry (kernels/backend.h), builds the plan (plan.h), makes the run
 * folder, and runs every unit (unit.h) as a fresh process started as its backend's registry
 * entry says (unitenv.h), with its own cache directory, a built environment, logs beside
 * the results and a timeout; it appends each unit to the results file (recorder.h) before
 * starting the next.  It tests nothing: the closing summary is descriptive (per-cell
 * medians), and what the outcome means for the exit status is the CLI's decision. */
#ifndef HARNESS_SCHED_H
#define HARNESS_SCHED_H

#include <stddef.h>
#include <stdint.h>

/* The longest --max-time (and so the latest deadline) a session takes: 366 days. */
#define SCHED_MAX_TIME_S (366.0 * 86400)

struct rec_unit;
struct exp_edits;

struct sched_opts {
	const char *experiment;   /* experiment file (new run); with resume: optional, checked */
	const char *resume;       /* results file to resume, or NULL */
	const char *backend;      /* --backend: the backend of modes that name none, or NULL */
	const char *results_dir;  /* where new runs go (default "results") */
	const char *output;       /* exact results file path for a new run, or NULL */
	int quiet;
	int no_summary;           /* no closing summary on stdout (a sequential design's
				   * sessions: the CLI says what the looks decided) */
	int require_preregistered; /* refuse unless every hypothesis file is committed and clean */
	int jobs;                 /* --jobs N: N units at once, each on its share of the cores
				   * (0: one at a time, not pinned) */
	const char *gpus;         /* --gpus all|0,1,3: one unit per GPU at a time, or NULL */
	double max_time_s;        /* --max-time: start no unit that could not finish within it
				   * of the session's start (0: no limit) */
	const struct rec_unit *est_units; /* --estimates: an earlier run's recorded units, whose
					   * wall times seed --max-time's estimates, or NULL;
					   * borrowed: the caller frees them after sched_run */
	size_t nest_units;        /* how many est_units */
	int64_t shard_k, shard_n; /* --shard k/n: only blocks with block % n == k (n 0: all) */
	const char *submission;   /* --submission: the id of the submission a shard is of,
				   * recorded as submission_id (new run), or checked against the
				   * recorded one (--resume); NULL: none given */
	int64_t repeats;          /* --repeats N with --resume: extend the plan to N blocks, the
				   * recorded ones unchanged (0: as recorded) */
	int64_t until_max;        /* --until-decided N (new run): a sequential design up to N
				   * blocks, over the experiment's [sequential] (0: none given) */
	int until_cells;          /* --until cells: the design waits for every cell too */
	int share_split;          /* --share-split-blocks with --resume: a slot with no block left
				   * takes units of another slot's block that already ran on a
				   * device other than that slot's (sched-units.c, steal_units) */
	const struct exp_edits *edits; /* -D, --mode, --workload (new run: applied to the
				   * experiment and recorded; --resume: the recorded ones are
				   * applied, and these must be none or the same), or NULL */
	int argc;                 /* the harness's own argv, recorded */
	char **argv;
};

/* How a run ended. */
enum sched_outcome {
	SCHED_ALL_OK = 0,    /* every planned unit recorded with status ok */
	SCHED_UNIT_FAILED,   /* every unit ran, some not ok */
	SCHED_ERROR,         /* the run could not go on (reported), or could not start */
	SCHED_REFUSED,       /* bad input: nothing was run or written (reported) */
	SCHED_INTERRUPTED,   /* stopped by SIGINT/SIGTERM; finished units recorded (resume it) */
	SCHED_TIME_LIMIT,    /* --max-time: stopped before a unit that could not finish in
			      * time; finished units recorded (resume it) */
};

/* What the caller may still need after the run. */
struct sched_result {
	char *results_path;  /* the results file when it exists (heap), else NULL */
	size_t nhypotheses;  /* hypothesis files the experiment attaches */
};

/* Run (or resume) the experiment.  *res is filled whatever the outcome; release it with
 * sched_result_release.  The closing summary goes to stdout, progress and errors to
 * stderr. */
enum sched_outcome sched_run(const struct sched_opts *o, struct sched_result *res);
void sched_result_release(struct sched_result *res);

/* Set metadata keys (kv: n key/value pairs) of the run whose results file is h5path, in
 * its journal, and assemble the results file anew: what the CLI records between the
 * scheduler's sessions (a sequential design's looks).  The run must not be running.  0, or
 * -1 reported. */
int sched_record_meta(const char *h5path, const char *const *kv, size_t n);

/* The submission record of harness slurm: what a new run of o->experiment records before
 * its first unit (metadata, the experiment and hypothesis files with their git state, the
 * plan), with no units and status "submitted", written to path (never replaced); harness
 * merge takes the merged file's metadata from it.  0, -1 reported, -2 refused (bad input). */
int sched_write_submission(const struct sched_opts *o, const char *path);

/* A duration in seconds from s: a number with an optional unit (s, m, h, d; none:
 * seconds, or minutes with slurm != 0, as sbatch --time reads it), or Slurm's forms
 * MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS.  0, or -1 with nothing reported (the
 * caller names the option). */
int sched_parse_duration(const char *s, int slurm, double *seconds);

#endif
