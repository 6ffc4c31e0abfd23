/* hypothesis.h: pre-registered hypothesis files (docs/hypothesis-format.md) as the
 * configuration layer reads them: the TOML into struct hyp_file (hypothesis.c), the
 * criteria's boolean expressions, and a file's git state at one moment (hyp-git.c), which
 * is what pre-registration is judged on.  Deciding a hypothesis on a run is the analysis
 * layer's (harness/analysis/hyp.h); storing the git state in a results file is the
 * record layer's (harness/record/prereg.h).
 *
 * Ownership: every struct here owns all it points to; each *_free() and *_release()
 * accepts NULL.  Functions that can fail report once (util.h error()) and return -1,
 * except hyp_file_parse() and hyp_expr_parse(), which fill a cause for their caller. */
#ifndef HARNESS_CONFIG_HYPOTHESIS_H
#define HARNESS_CONFIG_HYPOTHESIS_H

#include <stddef.h>
#include <stdint.h>

#include "harness/base/util.h"
#include "harness/config/toml-bridge.h"

#define HYP_SCHEMA 1

enum hyp_prediction {
	HYP_PRED_NONE = 0, /* explicit criteria only */
	HYP_PRED_FASTER,
	HYP_PRED_SLOWER,
	HYP_PRED_SAME,
	HYP_PRED_NOT_FASTER,
	HYP_PRED_NOT_SLOWER
};
enum hyp_scope { HYP_SCOPE_ALL = 0, HYP_SCOPE_OPS, HYP_SCOPE_E2E, HYP_SCOPE_CELLS };
enum hyp_aggregate {
	HYP_AGG_EACH = 0,
	HYP_AGG_ALL,
	HYP_AGG_ANY,
	HYP_AGG_AT_LEAST,
	HYP_AGG_GEOMEAN,
	HYP_AGG_OP_VS_E2E,
	HYP_AGG_COMPOSITION         /* per (mode, workload): predicted vs measured e2e */
};
enum hyp_op { HYP_OP_LT = 0, HYP_OP_LE, HYP_OP_GT, HYP_OP_GE, HYP_OP_EQ, HYP_OP_NE };

/* The names the file format spells ("faster", "ops", "at_least", "<=", ...). */
const char *hyp_prediction_name(enum hyp_prediction p);
const char *hyp_scope_name(enum hyp_scope s);
const char *hyp_aggregate_name(enum hyp_aggregate g);
const char *hyp_op_name(enum hyp_op op);

/* A criterion: statistic, operator, value (scienceverse's result, operator, comparator). */
struct hyp_criterion {
	char *id;
	char *statistic;   /* one of the statistics of the hypothesis's targets */
	enum hyp_op op;
	double value;      /* numeric statistics */
	char *svalue;      /* "verdict": FASTER, SLOWER, SAME or INCONCLUSIVE; else NULL */
	struct tb_pos pos;
};

/* A boolean expression over criteria ("a and (b or not c)"). */
struct hyp_expr {
	enum { HYP_X_CRIT, HYP_X_NOT, HYP_X_AND, HYP_X_OR } kind;
	size_t crit;                /* HYP_X_CRIT: index into the hypothesis's criteria */
	struct hyp_expr *l, *r;     /* operands (HYP_X_NOT uses l) */
};

struct hypothesis {
	char *id, *claim;
	int primary;
	char **modes;               /* compared modes; "*": every mode but the baseline and
	                               A/A copies; empty for op-vs-e2e */
	size_t nmodes;
	char *baseline;             /* NULL: the run's (or verify --baseline) */
	enum hyp_scope scope;
	char *workload;             /* NULL: every workload */
	char *only_on;              /* decided only on runs whose modes ran on this backend
				     * ("cuda"); left out of the others; NULL: every run */
	char *superseded_by;        /* the id of the hypothesis of this file that replaces it
				     * (registered later, its weakness named in the file); it is
				     * still decided and reported, marked; never a primary's; NULL */
	char **cells;               /* HYP_SCOPE_CELLS */
	size_t ncells;
	enum hyp_aggregate aggregate;
	size_t at_least;            /* HYP_AGG_AT_LEAST */
	enum hyp_prediction prediction;
	double min_effect;          /* NAN: the report's margin */
	double alpha;               /* NAN: verify --alpha, else 0.05 */
	struct hyp_criterion *crit; /* explicit criteria (none: from the prediction) */
	size_t ncrit;
	struct hyp_expr *corroborate, *falsify; /* NULL with no explicit criteria */
	/* where things are written, for the errors found when evaluating */
	struct tb_pos pos, modes_pos, baseline_pos, cells_pos, workload_pos, at_least_pos,
		superseded_pos;
};

struct hyp_file {
	char *path;                 /* as given (or as recorded) */
	char sha256[65];
	char *text;                 /* the bytes, NUL-terminated */
	size_t len;
	char *description;          /* NULL when none */
	struct hypothesis *h;
	size_t nh;
};

/* Parse len bytes of a hypothesis file that came from path (used in messages).  0 and *out
 * (the caller's), or -1 with *out NULL and *cause a heap "'path':LINE:COL: message". */
int hyp_file_parse(const char *path, const char *text, size_t len, struct hyp_file **out,
		   char **cause);
/* Read and parse path; reports and returns -1. */
int hyp_file_load(const char *path, struct hyp_file **out);
void hyp_file_free(struct hyp_file *f);

/* ---- expressions over criteria --------------------------------------------------------- */

/* Parse s ("a and (b or not c)") against the criteria; a heap tree the caller frees with
 * hyp_expr_free, or NULL with *err (heap, the caller's) and *err_at (the offset in s). */
struct hyp_expr *hyp_expr_parse(const char *s, const struct hyp_criterion *crit, size_t ncrit,
				char **err, size_t *err_at);
void hyp_expr_free(struct hyp_expr *x);
/* The expression as text into sb (parenthesized where paren says a subterm needs it). */
void hyp_expr_text(const struct hyp_expr *x, const struct hyp_criterion *crit, struct sbuf *sb,
		   int paren);
/* 1 when x reads a criterion on statistic stat (NULL x: 0). */
int hyp_expr_reads(const struct hyp_expr *x, const struct hyp_criterion *crit, const char *stat);
/* Free what a criterion owns (not c itself). */
void hyp_crit_release(struct hyp_criterion *c);

/* ---- pre-commitment: a file's git state ------------------------------------------------ */

/* What git says about a file at one moment.  Strings are owned (hyp_git_release). */
struct hyp_git {
	char *path;          /* as given */
	char *abspath;       /* resolved */
	char *relpath;       /* within its repository ("" outside one) */
	char *object_format; /* the repository's: "sha1" or "sha256" ("" outside one) */
	char *blob;          /* git blob id of the bytes given ("" outside a repository) */
	char *head_blob;     /* the blob HEAD holds at relpath, "" when none */
	char *commit;        /* the commit that last touched it, "" when none */
	char *time;          /* its committer date (ISO 8601), "" when none */
	const char *state;   /* static: "clean", "modified", "staged", "untracked", "ignored",
	                        "not-committed", "not-a-repository", "git-failed" */
	int clean;           /* 1: HEAD holds exactly these bytes ("clean") */
};
/* Judge the bytes the run records (bytes, len: read once by the caller, from path) against
 * git (through spawn.h, in the file's folder, with a built environment) and fill *out.
 * "clean" means HEAD holds a blob equal to these very bytes, whatever git's index flags
 * (assume-unchanged, skip-worktree) say.  No git, or a file outside a repository, is not an
 * error: it is a state.  Reports and returns -1 (with *out empty) only when path cannot be
 * resolved. */
int hyp_git_capture(const char *path, const char *bytes, size_t len, struct hyp_git *out);
void hyp_git_release(struct hyp_git *g);
/* The git blob id of bytes ("blob <len>\0" + bytes, hashed with the repository's object
 * format "sha1" or "sha256") as hex in out; -1 for an unknown format. */
int hyp_git_blob_id(const char *format, const void *bytes, size_t len, char out[65]);
/* The blob rev holds at relpath ("" rev: the index), run in dir: 0 and *blob (heap), 1 when
 * there is none (no such commit or path, or dir is not in a repository), -1 when git could
 * not be run. */
int hyp_git_blob_at(const char *dir, const char *rev, const char *relpath, char **blob);
/* Where some bytes first entered a repository's history: the oldest commit
 * whose diff adds them as a blob at some path (branches, tags and remote-tracking
 * branches only). */
struct hyp_git_origin {
	char *blob;          /* the bytes' blob id in the repository's object format */
	char *commit;        /* the commit (NULL when none) */
	int64_t time;        /* its committer time, seconds since the epoch */
	char *path;          /* the path it added them at */
};
/* Look bytes up in the repository that holds dir (git log --branches --tags --remotes
 * --find-object: commits on no branch do not count, through
 * spawn.h): 0 and *out filled, 1 when no commit holds them (out->blob is still set), -1
 * when git could not be run or dir is in no repository.  hyp_git_origin_release frees. */
int hyp_git_first_commit(const char *dir, const void *bytes, size_t len,
			 struct hyp_git_origin *out);
void hyp_git_origin_release(struct hyp_git_origin *g);
/* 1 when commit is reachable from a branch, tag or remote-tracking branch of the repository
 * at dir (git for-each-ref --contains), 0 when from none (a commit on no branch: dangling,
 * or kept by the reflog alone), -1 when git could not say (no repository, no such commit).
 * Nothing reported. */
int hyp_git_reachable(const char *dir, const char *commit);
/* A results file's record digest anchored in git (docs/results-format.md, "Digests"):
 * hyp_git_anchor_commit makes an empty commit on the current branch of the repository at
 * dir with message (only: the index's staged changes stay staged; hooks are not run), its
 * hash in *commit (heap); 1 when dir is in no repository, -1 when git failed (reported).
 * hyp_git_anchor_find looks for needle in the messages of the commits reachable from a
 * branch, tag or remote-tracking branch of dir: 0 and the oldest such commit's hash and
 * committer date (heap) when one holds it, 1 when none does, -1 when dir is no repository
 * git can read (nothing reported). */
int hyp_git_anchor_commit(const char *dir, const char *message, char **commit);
int hyp_git_anchor_find(const char *dir, const char *needle, char **commit, char **when);
/* Why a state is not pre-registered, in words ("it had uncommitted changes at run
 * start"); NULL state: none was recorded. */
const char *hyp_git_state_why(const char *state);

#endif
