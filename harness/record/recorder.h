/* recorder.h: the results file (HDF5, layout version 2, docs/results-format.md; version 1
 * files are read too) and the run's write-ahead journal.
 * Only the scheduler's process writes; workers stream records to the scheduler.  Nothing
 * is ever changed in place: every file is built in memory and written whole, atomically
 * (temporary file, fsync, rename), so a kill -9 or a full disk loses at most the file being
 * written (docs/reliability.md).  A run writes each finished unit to its journal before the
 * next starts; the results file is assembled from the journal. */
#ifndef HARNESS_RECORDER_H
#define HARNESS_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#define REC_FORMAT_VERSION 2   /* the layout this harness writes */
#define REC_FORMAT_OLDEST 1    /* the oldest layout it reads */

/* Run metadata: string key/value pairs stored as attributes of /run (keys listed in
 * docs/results-format.md: harness_version, git_commit, experiment_name, experiment_path,
 * experiment_sha256, backend_requested, backend, backend_reason, seed, order, start_utc,
 * end_utc, status, host, cpu_model, compiler, libraries, harness_argv, unit_env, ...). */
struct rec_kv {
	char *key;
	char *value;
};

/* A file recorded verbatim (the experiment, each attached hypothesis). */
struct rec_file {
	char *role;    /* "experiment" or "hypothesis" */
	char *path;    /* as given */
	char *sha256;  /* of the bytes */
	char *text;    /* the bytes (NUL-terminated for convenience) */
	size_t len;
};

struct rec_meta {
	struct rec_kv *kv;
	size_t nkv;
	struct rec_file *files;
	size_t nfiles;
};
void rec_meta_init(struct rec_meta *m);
void rec_meta_release(struct rec_meta *m);
/* Copies key and value; replaces an existing key. */
void rec_meta_set(struct rec_meta *m, const char *key, const char *value);
const char *rec_meta_get(const struct rec_meta *m, const char *key); /* NULL when absent */
void rec_meta_add_file(struct rec_meta *m, const char *role, const char *path,
		       const char *text, size_t len);

/* The plan: every unit the run will have, in run order.  Unit ids are 0..n-1 in plan order. */
struct rec_plan {
	int64_t id;
	char *mode;
	int64_t repeat;    /* 0-based repeat index (= block for randomized/abba/sequential) */
	int64_t block;
	int64_t position;  /* position within the block, 0-based */
	int warm;          /* 1: a warm-cache probe reusing the previous cold unit's cache dir */
	int64_t warm_of;   /* id of that cold unit, or -1 */
	char *workload;    /* the one workload the unit runs (the experiment's unit_scope =
			    * "workload"), or NULL / "": every workload of its mode (files
			    * before the column read "") */
};

/* A cell, as reported by a worker; the recorder gives each distinct name an index. */
struct rec_cell {
	char *name;
	char *kind;     /* "op" or "e2e" */
	char *workload;
	char *op;
	char *shape;
	int64_t count;
	double flops;
};

/* Unit statuses, as strings in the file. */
#define REC_STATUS_OK            "ok"
#define REC_STATUS_TIMEOUT       "timeout"
#define REC_STATUS_CRASHED       "crashed"        /* killed by a signal it did not ask for */
#define REC_STATUS_FAILED        "failed"         /* exited non-zero */
#define REC_STATUS_COMPILE_ERROR "compile-error"  /* the chosen config could not be built */
#define REC_STATUS_INCORRECT     "incorrect"      /* no config passed the reference check */
#define REC_STATUS_BAD_OUTPUT    "bad-output"     /* the worker's records broke the protocol */
#define REC_STATUS_INTERRUPTED   "interrupted"    /* the harness was stopped during the unit */
#define REC_STATUS_SKIPPED       "skipped"        /* a warm probe whose cold unit's cache is gone */

struct rec_unit {
	int64_t id;          /* plan id */
	char *mode;
	int64_t repeat, block, position;
	int warm;
	int64_t pid;
	char *cache_dir;
	int cache_dir_empty; /* 1: the cache dir was empty when the unit started */
	char *status;        /* REC_STATUS_* */
	int64_t exit_code;   /* exit status, or 128+signal when killed */
	int64_t signal;      /* 0, or the signal that ended it */
	int64_t compile_ns, tune_ns, search_ns; /* setup time split */
	int64_t compiles, cache_hits, benchmarks;
	int expects_work;    /* the mode's tuner compiles or benchmarks when cold */
	int cache_leak;      /* cold, expects work, and compiled nothing and benchmarked nothing */
	char *start_utc, *end_utc;
	int64_t wall_ns;
	char *stdout_log, *stderr_log; /* paths relative to the results file's folder */
	char *argv_json;     /* exact argv given to the unit, as a JSON array */
	char *env_json;      /* exact environment given to the unit, as a JSON object */
	char *message;       /* why it failed, or "" */
	/* Where it ran (harness run --jobs/--gpus; files before them read -1, "", ""): */
	int64_t slot;        /* the scheduler's slot (0-based), or -1: units ran one at a time */
	char *device;        /* the slot's device: a GPU's UUID ("GPU-..."), "cpu:LIST" for a
			      * CPU slot pinned to the cores LIST, or "" when not pinned */
	char *cpus;          /* the cores it was pinned to ("0-1,4"), or "" when not pinned */
	char *workload;      /* its plan entry's workload, "" for all of its mode's (files
			      * before the column read "") */
};

struct rec_trial {
	int64_t cell;        /* index into the unit data's cells */
	char *config;
	char *status;        /* "ok", "compile-error", "incorrect", "failed" */
	int cache_hit;
	int64_t compile_ns;
	int64_t nsamples;
	double median_ns, min_ns, max_ns;
	int64_t bench_ns;    /* time spent benchmarking this trial */
	/* Files since 2026-11-29, an imported cache's trials (absent: -1): */
	double source_ns;    /* the objective value the source stored (Kernel Tuner's `time`, T4's
			      * time measurement), in ns; <= 0: none */
	int64_t verify_ns;   /* the source's verification time; < 0: none */
	int64_t overhead_ns; /* the source's framework and strategy time; < 0: none */
};

struct rec_choice {
	int64_t cell;
	char *config;
	char *reason;        /* "vendor", "rule", "tuned", "fallback-vendor" */
};

/* Per (unit, cell): how sampling went. */
struct rec_measure {
	int64_t cell;
	int64_t nsamples;
	char *stop;          /* "precision", "max-samples", "max-time" */
	int64_t warmup_n;
	int64_t warmup_ns;
	double rel_precision; /* achieved relative standard error of the median */
};

/* Layout 2: an op cell's config space as the unit tuned it, so its trials can be re-scored
 * later.  Fixed-size text (NUL-terminated, truncated to fit) keeps the tables' rows fixed. */
#define REC_NAME_MAX 32   /* a field name */
#define REC_TEXT_MAX 64   /* a vendor candidate's config text; a constraint's reason */
#define REC_MAX_POINTS 65536 /* grids larger than this record no per-point outcomes */
struct rec_space {
	int64_t cell;
	int64_t grid;        /* grid points (vendor candidates excluded); -1: more than INT64_MAX */
	int64_t nvalid;      /* of them, allowed by the constraint; -1: grid > REC_MAX_POINTS */
	int64_t listed;      /* 1: the valid points are exactly the cell's trials' configs (an
			      * imported cache: every other grid point was excluded at the source,
			      * and none is listed in /space_invalid); 0 (files before it) */
};
struct rec_space_value {  /* one allowed value of one field, fields and values in order */
	int64_t cell;
	int32_t field;        /* the field's index in the space */
	char name[REC_NAME_MAX];
	int64_t value;        /* the integer; a float or string field's ordinal */
	int32_t kind;         /* enum space_kind: 0 int (files before it), 1 float, 2 string */
	char label[REC_TEXT_MAX]; /* a float or string field's value as text; "" for int */
};
struct rec_space_vendor { /* one vendor candidate */
	int64_t cell;
	int32_t candidate;    /* its index (a config's vendor_idx) */
	char config[REC_TEXT_MAX]; /* "vendor", "vendor:algo=6" */
};
struct rec_space_invalid { /* grid points the constraint excludes (valid ones are not listed) */
	int64_t cell;
	int64_t point;        /* the first one's grid index (mixed radix, last field fastest) */
	char why[REC_TEXT_MAX];
	int64_t count;        /* points [point, point + count), all for why (files before
			       * 2026-11-30, stop 65: a point a row, read as 1) */
};
/* One sample of a tuning trial (layout 2). */
struct rec_trial_sample {
	int64_t trial;        /* index into the unit data's trials (a row of /trials in the file) */
	int64_t index;        /* the sample's index within its trial */
	int64_t ns;
	double clock_mhz;     /* NaN: not read */
	int throttle;         /* 1, 0, or -1: unknown */
	int64_t launches;     /* executions the sample covers (1 by default) */
	int64_t clock_reasons; /* NVML clock-event reasons bitmask, or -1: unknown */
};

/* Everything one unit produced.  cells are local to the unit (trial/choice/sample cell
 * fields index this array); the recorder maps them to the run's cell table by name. */
struct rec_unit_data {
	struct rec_unit unit;
	struct rec_cell *cells;       size_t ncells;
	struct rec_trial *trials;     size_t ntrials;
	struct rec_choice *choices;   size_t nchoices;
	struct rec_measure *measures; size_t nmeasures;
	int64_t *sample_cell;         /* parallel arrays, nsamples long */
	int64_t *sample_index;
	int64_t *sample_ns;
	/* Layout 2's optional sample columns, parallel to sample_ns; each NULL when no sample
	 * had it (then NaN, -1, 1 and -1 are recorded). */
	double *sample_clock_mhz;
	int *sample_throttle;
	int64_t *sample_launches;
	int64_t *sample_clock_reasons;
	size_t nsamples, samples_cap;
	size_t cells_cap, trials_cap, choices_cap, measures_cap;
	struct rec_trial_sample *tsamples; size_t ntsamples, tsamples_cap;
	struct rec_space *spaces;         size_t nspaces, spaces_cap;
	struct rec_space_value *svalues;  size_t nsvalues, svalues_cap;
	struct rec_space_vendor *svendors; size_t nsvendors, svendors_cap;
	struct rec_space_invalid *sinvalid; size_t nsinvalid, sinvalid_cap;
	char *info;                   /* backend description lines ("key=value\n"), or NULL */
};
void rec_unit_data_init(struct rec_unit_data *u);
void rec_unit_data_release(struct rec_unit_data *u); /* frees every string and array */

struct rec; /* a results file open for reading */

/* Open a results file (or a journal file) for reading.  Reports and returns -1 when the file
 * is missing, not HDF5, or not a harness results file of a known version.  writable must
 * be 0 (files are never changed in place). */
int rec_open(const char *path, int writable, struct rec **out);
/* The layout version of the open file (1 or 2). */
int rec_format_version(const struct rec *r);
/* Close; reports and returns -1 on failure. NULL is a no-op. */
int rec_close(struct rec *r);

/* ---- writing a whole results file -------------------------------------------------- */

/* Where rec_write_results() gets its units, n of them, in the order the file lists them.
 * get() gives unit i: it points *out at a unit of its own, or fills scratch (initialised;
 * the writer releases it) and leaves *out NULL.  With headers != 0 it may leave out the
 * sample and trial-sample arrays (NULL) as long as their counts are right: the writer's
 * first pass only sizes the tables.  get() reports and returns -1 on failure. */
struct rec_unit_source {
	size_t n;
	int (*get)(void *ctx, size_t i, int headers, struct rec_unit_data *scratch,
		   const struct rec_unit_data **out);
	void *ctx;
};
/* Build the results file in memory (meta, plan, the units' rows; cells by name into one
 * run-wide table) and write it to path atomically: path is either as it was or the whole
 * new file.  excl: never replace an existing path (an error).  Reports and returns -1
 * (nothing then changed on disk). */
int rec_write_results(const char *path, int excl, const struct rec_meta *meta,
		      const struct rec_plan *plan, size_t nplan, const struct rec_unit_source *src);

/* ---- the write-ahead journal of a run (docs/results-format.md, "The journal") ---------
 *
 * RUNDIR/journal/ holds run.h5 (the metadata, the recorded files and the plan; rewritten
 * whole when the metadata changes) and unit-NNNN.h5 for every finished unit (NNNN its plan
 * id), each written atomically and verified by reading it back before the next unit
 * starts.  A journal file is a results file (same layout) with a root attribute `journal`
 * ("run" or "unit").  One process at a time holds a journal (a lock on journal/lock). */
struct rec_journal;
/* A new run's folder appears whole (recorder-rundir.c): rec_run_dir_stage makes
 * RUNDIR.start-XXXXXX (*stage, heap) and takes its writer's lock (stage/lock, fd into *fd:
 * close it to release) before anything is written there, and notes the command line argv
 * (NULL-terminated) and the folder it ran in (stage/start-command), to name it should the
 * start be killed; the caller fills the stage, journal included; rec_run_dir_commit
 * removes the note and renames the stage to rundir, refusing when rundir exists: only one
 * start can, so two runs started together on one output never share a folder.  The lock
 * is the kernel's (it dies with its holder, never stale; the fd stays valid across the
 * rename) and names its holder's pid and boot for a process it refuses.  Both report and
 * return -1 (the stage is then removed by stage, left by commit). */
int rec_run_dir_stage(const char *rundir, const char *const *argv, char **stage, int *fd);
int rec_run_dir_commit(const char *stage, const char *rundir);
/* What starts of rundir killed before their rename left beside it (RUNDIR.start-XXXXXX
 * whose lock no process holds).  promote: the first that holds a journal (its start was
 * killed between the journal and the rename) is renamed to rundir, *promoted 1.  Every
 * other is removed, with a warning; *command: the command line the last removed one noted
 * (heap, "cd DIR && WORDS..."), or NULL.  A stage another process holds (a start under
 * way) is left, reported, and the result is -1; otherwise 0. */
int rec_run_dir_leftovers(const char *rundir, int promote, int *promoted, char **command);
/* The journal j, whose run folder was renamed to rundir (rec_run_dir_commit): its paths
 * follow (its lock stays held). */
void rec_journal_moved(struct rec_journal *j, const char *rundir);
/* Make RUNDIR/journal (must not exist) and its run.h5.  Reports and returns -1. */
int rec_journal_create(const char *rundir, const struct rec_meta *meta,
		       const struct rec_plan *plan, size_t nplan, struct rec_journal **out);
/* Take RUNDIR's journal and read its run.h5; writes nothing.  Reports and returns -1
 * (no journal, another process holds it, or run.h5 unreadable). */
int rec_journal_open(const char *rundir, struct rec_journal **out);
/* The journal's metadata and plan (owned by the journal). */
const struct rec_meta *rec_journal_meta(const struct rec_journal *j);
const struct rec_plan *rec_journal_plan(const struct rec_journal *j, size_t *n);
/* Set n key/value pairs (kv[2i], kv[2i+1]) of the metadata and rewrite run.h5 once.
 * Reports and returns -1 (run.h5 then as it was). */
int rec_journal_set_meta(struct rec_journal *j, const char *const *kv, size_t n);
/* The same, with the plan replaced by plan[nplan] (copied), at least as long as the
 * journal's: a run extended by blocks (`harness run --resume --repeats`).  The caller checks
 * that the recorded plan is its prefix. */
int rec_journal_extend_plan(struct rec_journal *j, const struct rec_plan *plan, size_t nplan,
			    const char *const *kv, size_t nkv);
/* Write a finished unit (its plan id u->unit.id) to the journal, read it back and verify it
 * (every table readable and checksummed, every sample as written, and positive where the
 * unit is ok).  Reports and returns -1; a unit file that fails verification is removed. */
int rec_journal_write_unit(struct rec_journal *j, const struct rec_unit_data *u);
/* The units the journal holds, verified as rec_journal_write_unit does, in plan-id order
 * (*units heap, free with rec_units_free).  Removes what an interrupted write left
 * (temporary files) and unit files that fail verification (warning: they run again).
 * Reports and returns -1 only when the folder cannot be read. */
int rec_journal_scan(struct rec_journal *j, struct rec_unit **units, size_t *n);
/* Note that unit id (a plan id) is still running after elapsed_ns of wall time:
 * journal/running-NNNN, replaced atomically.  A session that ends without recording the unit
 * (the machine taken back, the harness killed) leaves its last note, a lower bound on the
 * unit's length that a resumed --max-time counts.  Reports and returns -1. */
int rec_journal_note_running(struct rec_journal *j, int64_t id, int64_t elapsed_ns);
/* Remove unit id's running note, if any. */
void rec_journal_clear_running(struct rec_journal *j, int64_t id);
struct rec_running {
	int64_t id;         /* the unit's plan id */
	int64_t elapsed_ns; /* its wall time at the note */
};
/* The running notes the journal holds, in plan-id order (*notes heap, the caller frees it);
 * a note that cannot be read is removed with a warning.  Reports and returns -1 (the
 * folder unreadable). */
int rec_journal_scan_running(struct rec_journal *j, struct rec_running **notes, size_t *n);
/* Release the journal (and its lock).  NULL is a no-op. */
void rec_journal_close(struct rec_journal *j);
/* Assemble a results file at out (atomically: rec_write_results) from the journals of the
 * n run folders: the metadata and plan of the first, the verified units of each in plan-id
 * order.  Reports and returns -1 (out then as it was). */
int rec_assemble(const char *const *rundirs, size_t n, const char *out);
/* The same with options (harness merge): meta instead of the first journal's (NULL: the
 * first's); log_prefix[k] put before the log paths of rundir k's units (their folder as
 * seen from out's: NULL or "" for none); excl: never replace out.  A unit recorded in two
 * of the folders is an error. */
struct rec_assemble_opts {
	const struct rec_meta *meta;
	const char *const *log_prefix;
	int excl;
};
int rec_assemble_ex(const char *const *rundirs, size_t n, const struct rec_assemble_opts *o,
		    const char *out);

/* Re-check a results file against the journal it was assembled from (harness verify): for
 * each unit, its journal file (journal/unit-NNNN.h5 in the run folder its logs name, beside
 * the results file; a merged file's units each in their shard's) must have the SHA-256 the
 * harness appended to journal/digests as it wrote it, and hold the same unit row (identity,
 * status, setup counters and times), info and samples (cell, time, launches, clocks,
 * throttle flags) as the results file.  *out counts them; first_bad and first_missing
 * (heap, NULL when none) say the first of each kind.  A version 1 file has no journal to
 * check against: all zero.  Reports and returns -1 when the results file cannot be read. */
struct rec_recheck {
	size_t units;        /* the results file's units */
	size_t matched;      /* their journal file has its recorded digest and the same record */
	size_t no_journal;   /* their journal file, or its digests, is not there */
	size_t bad;          /* a digest or a record that differs, or a journal file unreadable */
	char *first_bad, *first_missing;
};
int rec_recheck(const char *results, struct rec_recheck *out);
void rec_recheck_release(struct rec_recheck *c);

/* A results file's digests (recorder-seal.c; docs/results-format.md, "Digests").  Every
 * results file the harness writes (a run's, an import's, a merge's) carries /digests, one
 * SHA-256 per part of its record: each unit's row of /units, and each (unit, cell)'s rows
 * of the per-unit tables (samples, measures, choices, trials and their samples, spaces);
 * and the record digest, over its /run metadata, recorded files, plan, cells and those
 * parts (the root attribute record_sha256).  rec_seal_check recomputes both from what the
 * file holds and compares them with what it stores: *s says what differs (up to
 * REC_SEAL_SHOWN parts named, unit, mode, block and cell).  A file without /digests (from
 * before them, or a version 1 file) has sealed 0: nothing can be compared, but record is
 * still its record digest (for version 2).  Reports and returns -1 when the file cannot be
 * read; release with rec_seal_release. */
#define REC_SEAL_SHOWN 5
struct rec_seal {
	int sealed;          /* 1: the file carries /digests */
	char record[65];     /* the record digest recomputed from the content ("" version 1) */
	char stored[65];     /* the one the file stores ("" none) */
	int record_differs;  /* sealed, and record is not stored */
	size_t parts, bad;   /* parts recomputed; parts that differ, are new or are gone */
	char *shown[REC_SEAL_SHOWN]; /* heap: the first bad parts, in words */
	size_t nshown;
	char *modes[REC_SEAL_SHOWN]; /* heap: the modes of the bad parts */
	size_t nmodes;
};
int rec_seal_check(const char *path, struct rec_seal *s);
void rec_seal_release(struct rec_seal *s);
/* 1 when s found the file altered after it was written (a part or the record digest
 * differs from what it stores). */
int rec_seal_altered(const struct rec_seal *s);

/* The most shards one plan is split into (harness run --shard K/N, harness slurm
 * --tasks): a larger N is refused where it is given, and read from a file as damage. */
#define REC_MAX_SHARDS 4096
/* "K/N" with 0 <= K < N <= REC_MAX_SHARDS, decimal digits only, into *k and *n.  0, or -1
 * (nothing reported: the caller names the option or the file). */
int rec_shard_parse(const char *s, int64_t *k, int64_t *n);
/* 1 when s is a submission id (meta "submission_id"; harness run --submission): 1 to 64
 * of A-Z a-z 0-9 . _ -, else 0. */
int rec_submission_id_ok(const char *s);

/* Merge the shards of one plan (harness merge): args are shard results files (X.h5, whose
 * run folder X holds the journal) or run folders.  Every shard must have the first's
 * experiment SHA-256, seed and plan, the same shard count (meta "shard", k/n) with a
 * k of its own, and the same submission id (meta "submission_id": each harness slurm, or
 * each hand-run set of `run --shard K/N --submission ID`, is one submission; shards that
 * all lack one merge with a warning, one with and one without do not), as the submission
 * record's when it has one; the results file out (never replaced) gets every unit once (one recorded
 * twice is an error), the metadata of the submission record (submission, or
 * submission.h5 beside the first shard's folder when NULL and present: the experiment,
 * hypotheses and git state as at submission; else the first shard's), "shards": each
 * shard's provenance as JSON (file, shard, status, host, times, slots, Slurm ids, commit,
 * argv), "status" complete only when every shard is there and complete.  Reports and
 * returns -2 (the inputs are not shards of one plan, or unreadable) or -1 (writing out
 * failed); out is then not written. */
int rec_merge(const char *const *args, size_t n, const char *submission, const char *out);

/* Reading (caller releases what it gets). */
int rec_read_meta(struct rec *r, struct rec_meta *out);
int rec_read_plan(struct rec *r, struct rec_plan **plan, size_t *n);
void rec_plan_free(struct rec_plan *plan, size_t n);
/* Units in the order they were written. */
int rec_read_units(struct rec *r, struct rec_unit **units, size_t *n);
/* The backend's description of each unit (its info records, "key=value\n" lines; "" when
 * none), in the order of rec_read_units: a heap array of n heap strings the caller frees. */
int rec_read_unit_infos(struct rec *r, char ***infos, size_t *n);
/* The value of the first "key=" line of a unit's info, copied into buf (at most n - 1
 * bytes); "" when absent.  Returns buf. */
const char *rec_info_get(const char *info, const char *key, char *buf, size_t n);
/* The same value whole, as a heap string the caller frees; NULL when absent. */
char *rec_info_dup(const char *info, const char *key);
void rec_units_free(struct rec_unit *units, size_t n);
int rec_read_cells(struct rec *r, struct rec_cell **cells, size_t *n);
void rec_cells_free(struct rec_cell *cells, size_t n);
/* Every row of /choices, in written order: unit[i] is a row of /units, choices[i].cell a
 * row of /cells.  Two parallel heap arrays, n long; free with rec_choices_free.  Reports and
 * returns -1 on failure (both NULL). */
int rec_read_choices(struct rec *r, int64_t **unit, struct rec_choice **choices, size_t *n);
void rec_choices_free(int64_t *unit, struct rec_choice *choices, size_t n);
/* Every /trials row in written order: unit[i] is the trial's row of /units, trials[i].cell a
 * row of /cells.  Free with rec_trials_free.  Reports and returns -1 on failure. */
int rec_read_trials(struct rec *r, int64_t **unit, struct rec_trial **trials, size_t *n);
void rec_trials_free(int64_t *unit, struct rec_trial *trials, size_t n);
/* Number of sample rows in the file. */
int rec_count_samples(struct rec *r, int64_t *n);
/* The samples of the unit in row unit_row of /units (rows are in written order, as
 * rec_read_units returns them): parallel heap arrays of run-wide cell indices (rows of
 * /cells) and ns, n long; the caller frees both.  ns is one execution's time: a sample's
 * ns divided by its launches (sample_exec_ns; rec_read_unit_sample_extras has the
 * launches).  Reports and returns -1 on failure. */
int rec_read_unit_samples(struct rec *r, size_t unit_row, int64_t **cell, int64_t **ns,
			  size_t *n);
/* The same unit's samples with layout 2's optional columns (version 1 files: NaN, -1, 1):
 * four parallel heap arrays, n long; the caller frees them. */
int rec_read_unit_sample_extras(struct rec *r, size_t unit_row, double **clock_mhz,
				int **throttle, int64_t **launches, int64_t **clock_reasons,
				size_t *n);
/* Every row of /trial_samples (layout 2; none in a version 1 file): unit[i] a row of
 * /units, s[i].trial a row of /trials.  Free both with free(). */
int rec_read_trial_samples(struct rec *r, int64_t **unit, struct rec_trial_sample **s,
			   size_t *n);
/* Every recorded config space (layout 2; none in a version 1 file): the rows of /spaces,
 * /space_values, /space_vendors and /space_invalid, each with its unit column (row of
 * /units) and cell a row of /cells.  rec_spaces_release frees it. */
struct rec_spaces {
	int64_t *space_unit;   struct rec_space *spaces;          size_t nspaces;
	int64_t *value_unit;   struct rec_space_value *values;    size_t nvalues;
	int64_t *vendor_unit;  struct rec_space_vendor *vendors;  size_t nvendors;
	int64_t *invalid_unit; struct rec_space_invalid *invalid; size_t ninvalid;
};
int rec_read_spaces(struct rec *r, struct rec_spaces *out);
void rec_spaces_release(struct rec_spaces *s);

/* 1 when the results file at path has recorded trials and a recorded config space (what
 * `harness replay` replays: not an imported file, nor a run of vendor tuners only); 0
 * otherwise, a file that cannot be read included. */
int rec_has_tuning(const char *path);

#endif
