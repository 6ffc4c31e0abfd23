/* timeexp.h: the experiment `harness time` writes (docs/harness-time.md): one command mode
 * with timing = "process" per command line, the first (or the chosen) one the baseline, as
 * an ordinary experiment file that `harness run` reads back and reproduces. */
#ifndef HARNESS_TIMEEXP_H
#define HARNESS_TIMEEXP_H

#include <stddef.h>
#include <stdint.h>

/* One command to time (borrowed strings). */
struct timeexp_cmd {
	const char *line;        /* the command as given: a shell line, or with no_shell words
				  * separated by blanks */
	const char *name;        /* its mode's name, or NULL: derived from line
				  * (timeexp_mode_name) */
};

/* The comparison (borrowed strings; every count already in range). */
struct timeexp {
	const char *name;        /* the experiment's name */
	const char *description; /* one line, or NULL */
	const struct timeexp_cmd *cmds;
	size_t ncmds;            /* >= 1 */
	size_t baseline;         /* index into cmds */
	int no_shell;            /* 1: each line is split at blanks into an argv (no quoting);
				  * 0: run as `sh -c LINE` */
	int64_t runs, warmup;    /* per unit */
	int64_t repeats;         /* blocks */
	uint64_t seed;
	const char *setup, *prepare, *cleanup; /* shell lines (sh -c), or NULL */
	const char *workdir;     /* absolute: where the commands run, and where a relative
				  * program of a no_shell line is looked for */
	int ignore_failure;
	int aa;                  /* 1: an A/A copy of the baseline ("<name>-aa", aa_of) */
	double margin;           /* the experiment's margin; NAN: none */
	double timeout_s;        /* each unit's deadline; 0: the experiment's default */
};

/* A mode name for a command line: its characters outside [A-Za-z0-9._-] as '-', runs of
 * them as one, none at either end, at most 40 characters; "cmd" when nothing is left.
 * Heap. */
char *timeexp_mode_name(const char *line);

/* The experiment file's text (heap), or NULL with *cause (heap): a name that is not a mode
 * name, two modes of one name, an empty command.  Mode names derived from lines get "-2",
 * "-3", ... when two are alike. */
char *timeexp_toml(const struct timeexp *t, char **cause);

#endif
