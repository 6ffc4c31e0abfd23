/* cmd-plot.c: `harness plot RESULTS.h5`: a run's figures, drawn by gnuplot (docs/plots.md) */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/cli/cmd.h"
#include "harness/output/plot.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"

enum { OPT_OUTPUT = 'o', OPT_FORMAT = 'f', OPT_CELL = CMD_OPT_OWN, OPT_ALL, OPT_DATA };

static const struct cmd_opt plot_opts[] = {
	{ "output", OPT_OUTPUT, 1 },
	{ "format", OPT_FORMAT, 1 },
	{ "cell", OPT_CELL, 1 },
	{ "all", OPT_ALL, 0 },
	{ "data", OPT_DATA, 0 },
	CMD_STATS_OPTS,
	{ NULL, 0, 0 },
};


/* The default output folder: the results file's path without ".h5", plus "-plots". */
static char *default_dir(const char *results)
{
	size_t n = strlen(results);
	if (n > 3 && !strcmp(results + n - 3, ".h5"))
		n -= 3;
	return xasprintf("%.*s-plots", (int)n, results);
}

static int plot_exec(const struct cmd_args *a)
{
	struct plot_opts po;
	struct report_opts ro;
	const char *v;
	plot_opts_init(&po);
	if ((v = cmd_args_value(a, OPT_FORMAT)) && plot_format_parse(v, &po.format))
		return cmd_usage_error(a->entry, "--format must be png, svg or pdf, not '%s'", v);
	po.cell = cmd_args_value(a, OPT_CELL);
	po.all_cells = po.forest_pages = cmd_args_count(a, OPT_ALL) > 0;
	po.data = cmd_args_count(a, OPT_DATA) > 0;
	po.index = 1;
	report_opts_init(&ro);
	int rc = cmd_stats_opts(a, &ro);
	if (rc)
		return rc;
	const char *out = cmd_args_value(a, OPT_OUTPUT);
	if (out && !*out)
		return cmd_usage_error(a->entry, "--output must not be empty");

	struct analysis *an = NULL;
	struct report *r = NULL;
	struct plot_src *src = NULL;
	struct plot_set set;
	char *dir = NULL;
	plot_set_init(&set);
	/* everything read from the results file first: a failure there is a bad input (2) */
	rc = cmd_load_report(a->pos[0], &ro, &an, &r);
	if (rc || plot_src_read(r, po.cell, &src)) {
		rc = EXIT_USAGE;
		goto done;
	}
	dir = out ? xstrdup(out) : default_dir(a->pos[0]);
	rc = EXIT_RUN_FAILED;
	if (plot_draw(r, src, &po, dir, &set))
		goto done;
	for (size_t i = 0; i < set.nfigs; i++)
		printf("%s\n", set.figs[i].path);
	for (size_t i = 0; i < set.nfiles; i++)
		printf("%s\n", set.files[i]);
	for (size_t i = 0; i < set.nskipped; i++)
		fprintf(stderr, "harness: not drawn: %s\n", set.skipped[i]);
	rc = EXIT_OK;
done:
	plot_set_release(&set);
	free(dir);
	plot_src_free(src);
	report_free(r);
	analysis_free(an);
	return rc;
}

const struct cmd_entry cmd_plot_entry = {
	.name = "plot",
	.usage = "plot [options] RESULTS.h5",
	.summary = "the report's figures, drawn by gnuplot (docs/plots.md)",
	.help = "options:\n"
		"  -o, --output DIR     where the figures go (default: RESULTS without .h5, plus\n"
		"                       -plots); made when missing; prints each file written;\n"
		"                       figures are drawn aside and renamed in only when all are\n"
		"                       whole (a failure leaves DIR as it was)\n"
		"  -f, --format FMT     png (default, 1200x800), svg (1200x800) or pdf (6x4 in)\n"
		"  --all                every figure: the cell and Pareto figures of every cell\n"
		"                       and the forest plot of every comparison, in pages of 40\n"
		"                       (default: a set of at most 12 figures: the forest plot of\n"
		"                       the decided and e2e cells, the e2e cells' (at most 3)\n"
		"                       cell and Pareto figures, drift, op-e2e, composition,\n"
		"                       cdf, trace); DIR/index.md lists what was drawn and why\n"
		"                       anything was not\n"
		"  --data               also write each figure's data (DIR/<figure>.dat) and\n"
		"                       DIR/figures.gp, the gnuplot script that draws them\n"
		"  --cell NAME          the cell of the sample-distribution figure (default: the\n"
		"                       first e2e cell, else the first cell)\n"
		"  --baseline MODE      compare against MODE (default: the experiment's baseline)\n"
		"  --alpha A            test level, as for report (default 0.05)\n"
		"  --margin M           a declared practical margin, as for report\n"
		CMD_DECIDE_HELP
		"  --resamples N        bootstrap resamples (default 10000)\n"
		"  --seed S             bootstrap seed (default 20261121)\n"
		"  -h, --help           this text\n"
		"gnuplot (Debian package gnuplot-nox) draws the figures; HARNESS_GNUPLOT names\n"
		"another program, HARNESS_PLOT_DIR another folder of templates.\n",
	.opts = plot_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = plot_exec,
};
