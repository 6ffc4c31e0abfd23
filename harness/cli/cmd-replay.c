/* cmd-replay.c: `harness replay RESULTS.h5 --tuners A,B --budget N --seeds S`: tuners re-run
 * offline on one unit's recorded trials (harness/analysis/replay.h) */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "harness/analysis/replay.h"
#include "harness/base/util.h"
#include "harness/cli/cmd.h"
#include "harness/output/replay-write.h"

enum { OPT_FORMAT = 'f', OPT_OUTPUT = 'o', OPT_TUNERS = 256, OPT_BUDGET, OPT_SEEDS, OPT_UNIT,
       OPT_NOISE, OPT_PLOT, OPT_START, OPT_OBJECTIVE, OPT_SCORE, OPT_CUTOFF };

static const struct cmd_opt replay_opts_table[] = {
	{ "format", OPT_FORMAT, 1 }, { "output", OPT_OUTPUT, 1 }, { "tuners", OPT_TUNERS, 1 },
	{ "budget", OPT_BUDGET, 1 }, { "seeds", OPT_SEEDS, 1 }, { "unit", OPT_UNIT, 1 },
	{ "noise", OPT_NOISE, 0 }, { "plot", OPT_PLOT, 1 }, { "start", OPT_START, 1 },
	{ "objective", OPT_OBJECTIVE, 1 }, { "score", OPT_SCORE, 1 }, { "cutoff", OPT_CUTOFF, 1 },
	{ NULL, 0, 0 },
};

static int replay_exec(const struct cmd_args *a)
{
	const struct cmd_entry *e = a->entry;
	struct replay_opts o = { .budget_trials = 0, .seeds = 10, .unit = -1 };
	struct replay *r = NULL;
	enum report_format fmt = REPORT_MD;
	const char *v;
	char *list = NULL;
	FILE *out = stdout;
	int64_t n;
	int rc = EXIT_USAGE;

	v = cmd_args_value(a, OPT_FORMAT);
	if (v) {
		if (!strcmp(v, "md"))
			fmt = REPORT_MD;
		else if (!strcmp(v, "json"))
			fmt = REPORT_JSON;
		else if (!strcmp(v, "csv"))
			fmt = REPORT_CSV;
		else
			return cmd_usage_error(e, "--format must be md, json or csv, not '%s'", v);
	}
	v = cmd_args_value(a, OPT_BUDGET);
	size_t vl = v ? strlen(v) : 0;
	if (vl > 1 && v[vl - 1] == 's') {
		/* seconds of recorded compile + check + benchmark time */
		char *num = xstrndup(v, vl - 1), *end = NULL;
		double sec = strtod(num, &end);
		int bad = !end || *end || !(sec > 0 && sec <= 1e9);
		free(num);
		if (bad)
			return cmd_usage_error(e, "--budget must be trials (1 to 1000000) or "
					       "seconds such as 30s, not '%s'", v);
		o.budget_ns = (int64_t)(sec * 1e9);
	} else if (!v || parse_i64(v, 1, 1000000, &n)) {
		return cmd_usage_error(e, "--budget must be trials (1 to 1000000) or seconds such "
				       "as 30s");
	} else {
		o.budget_trials = n;
	}
	v = cmd_args_value(a, OPT_SEEDS);
	if (v) {
		if (parse_i64(v, 1, 100000, &n))
			return cmd_usage_error(e, "--seeds must be an integer from 1 to 100000");
		o.seeds = (size_t)n;
	}
	v = cmd_args_value(a, OPT_UNIT);
	if (v) {
		if (parse_i64(v, 0, INT32_MAX, &n))
			return cmd_usage_error(e, "--unit must be a unit id (>= 0)");
		o.unit = (long)n;
	}
	o.noise = cmd_args_count(a, OPT_NOISE) > 0;
	o.start = cmd_args_value(a, OPT_START);
	if (o.start && !*o.start)
		return cmd_usage_error(e, "--start is heuristic, first, random or a config "
					  "(BM=64,BN=128)");
	v = cmd_args_value(a, OPT_OBJECTIVE);
	if (v) {
		if (!strcmp(v, "median"))
			o.objective = REPLAY_MEDIAN;
		else if (!strcmp(v, "mean"))
			o.objective = REPLAY_MEAN;
		else if (!strcmp(v, "min"))
			o.objective = REPLAY_MIN;
		else if (!strcmp(v, "source"))
			o.objective = REPLAY_SOURCE;
		else
			return cmd_usage_error(e, "--objective is median, mean, min or source, not "
					       "'%s'", v);
	}
	o.p_end = 0.96;
	o.p_start = 0.5;
	o.res = 1000;
	v = cmd_args_value(a, OPT_SCORE);
	if (v && strcmp(v, "methodology") && strcmp(v, "harness"))
		return cmd_usage_error(e, "--score is harness (the default) or methodology, not "
				       "'%s'", v);
	o.methodology = v && !strcmp(v, "methodology");
	v = cmd_args_value(a, OPT_CUTOFF);
	if (v) {
		char *end = NULL;
		double pe = strtod(v, &end), ps = o.p_start;
		if (end && *end == ',')
			ps = strtod(end + 1, &end);
		if (!end || *end || !(pe > 0 && pe <= 1) || !(ps >= 0 && ps < pe))
			return cmd_usage_error(e, "--cutoff is END[,START]: percentiles with 0 <= "
					       "START < END <= 1 (0.96,0.5), not '%s'", v);
		if (!o.methodology)
			return cmd_usage_error(e, "--cutoff is for --score methodology");
		o.p_end = pe;
		o.p_start = ps;
	}
	v = cmd_args_value(a, OPT_TUNERS);
	if (!v || !*v)
		return cmd_usage_error(e, "--tuners names the tuners to replay (e.g. random,beam)");
	list = xstrdup(v);
	o.tuners = xcalloc(strlen(list) + 1, sizeof(*o.tuners));
	for (char *p = list, *next; p; p = next) {
		next = strchr(p, ',');
		if (next)
			*next++ = '\0';
		o.tuners[o.ntuners++] = p;
	}
	const char *plot = cmd_args_value(a, OPT_PLOT);
	if (plot) {
		const char *ext = strrchr(plot, '.');
		if (!ext || (strcmp(ext, ".png") && strcmp(ext, ".svg") && strcmp(ext, ".pdf"))) {
			rc = cmd_usage_error(e, "--plot names a .png, .svg or .pdf file, not '%s'",
					     plot);
			goto done;
		}
	}
	if (a->npos > 1 && o.unit >= 0) {
		rc = cmd_usage_error(e, "--unit picks a unit of one file; several files each "
					"replay their unit with the most trials");
		goto done;
	}
	if (replay_run(a->pos[0], &o, &r))
		goto done;
	/* several files: one table over every file's spaces */
	for (int k = 1; k < a->npos; k++) {
		struct replay *more = NULL;
		int bad = replay_run(a->pos[k], &o, &more) || replay_merge(r, more);
		replay_free(more);
		if (bad)
			goto done;
	}
	if (plot && replay_plot(r, plot)) {
		rc = EXIT_RUN_FAILED;
		goto done;
	}
	v = cmd_args_value(a, OPT_OUTPUT);
	if (v) {
		out = fopen(v, "w");
		if (!out) {
			error("cannot write '%s': %s", v, strerror(errno));
			out = stdout;
			rc = EXIT_RUN_FAILED;
			goto done;
		}
	}
	rc = replay_write(r, fmt, out) ? EXIT_RUN_FAILED : EXIT_OK;
	if (out != stdout && fclose(out)) {
		error("cannot write '%s'", v);
		rc = EXIT_RUN_FAILED;
	}
done:
	replay_free(r);
	free(o.tuners);
	free(list);
	return rc;
}

const struct cmd_entry cmd_replay_entry = {
	.name = "replay",
	.usage = "replay [options] RESULTS.h5... --tuners T1,T2 --budget N|Ss",
	.summary = "re-run tuners offline on an exhaustive unit's recorded trials",
	.help = "options:\n"
		"  --tuners LIST        tuners to replay, comma-separated (required): NAME,\n"
		"                       NAME:KEY=VALUE:... (its options) or mode:MODE (the tuner\n"
		"                       and options of a mode of the recorded experiment)\n"
		"  --budget N|Ss        trials per tuning, or seconds of recorded compile and\n"
		"                       benchmark time (30s) (required)\n"
		"  --seeds N            seeds per tuner (default 10)\n"
		"  --unit ID            the unit whose trials stand in for measuring (default: the\n"
		"                       ok unit with the most trials)\n"
		"  --noise              redraw each trial's samples with replacement\n"
		"  --start S            where coordinate descent and beam start: heuristic (the\n"
		"                       heuristic tuner's recorded choice; default), first (the\n"
		"                       first valid point), random (drawn per seed) or a config\n"
		"  --objective O        what a config scores as: its samples' median (default),\n"
		"                       mean or min, or source (the value an imported cache\n"
		"                       stored: Kernel Tuner's time)\n"
		"  --score S            harness (default) or methodology: also autotuning-\n"
		"                       methodology's score (its budget range, random baseline,\n"
		"                       time axis; docs/replay.md)\n"
		"  --cutoff END[,START] the methodology's cutoff percentiles (default 0.96,0.5)\n"
		"  --plot FILE          also draw the curves with gnuplot (.png, .svg or .pdf)\n"
		"  -f, --format FMT     md (default), json or csv\n"
		"  -o, --output FILE    write there instead of stdout\n"
		"  -h, --help           this text\n",
	.opts = replay_opts_table,
	.min_args = 1,
	.max_args = -1,
	.flags = 0,
	.exec = replay_exec,
};
