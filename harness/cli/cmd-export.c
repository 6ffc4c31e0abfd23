/* cmd-export.c: `harness export FILE --csv DIR`: a run's raw data as CSV files for any other
 * tool (docs/export-format.md).  Fields are quoted by libcsv (csv_fwrite), so names with
 * commas, quotes or newlines survive; samples.csv is in `harness import`'s format, so export
 * then import reproduces the same unit medians and statistics.  The files are one set with
 * a manifest, put in place whole (harness/record/exportset.c). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/analysis/analysis.h"
#include "harness/cli/cmd.h"
#include "harness/record/exportset.h"
#include "harness/record/recorder.h"
#include "stats/stats.h"
#include "harness/base/util.h"

/* One CSV field, then a separator or the line's end. */
static void field(FILE *f, const char *s, int last)
{
	util_csv_field(f, s);
	fputc(last ? '\n' : ',', f);
}

static void field_i64(FILE *f, int64_t v, int last)
{
	fprintf(f, "%" PRId64 "%c", v, last ? '\n' : ',');
}

static void field_num(FILE *f, double v, int last)
{
	if (!isnan(v))
		fprintf(f, "%.17g", v);
	fputc(last ? '\n' : ',', f);
}

/* The files of the set (exportset.h: written in a new folder beside DIR, the manifest
 * last, and renamed into place whole). */
enum { OUT_SAMPLES, OUT_UNITS, OUT_SUMMARY, NOUT };
static const char *const out_names[NOUT + 1] = { "samples.csv", "units.csv", "summary.csv", NULL };

/* samples.csv: cell, mode, block, value, unit, kind, baseline, count: `harness import`'s
 * columns (count: the cell's occurrences per forward, /cells/count); ok cold
 * units only (what the statistics use), warm probes and failed units in units.csv. */
static int export_samples(struct rec *r, const struct rec_unit *units, size_t nunits,
			  const struct rec_cell *cells, size_t ncells, FILE *f, const char *baseline)
{
	fputs("cell,mode,block,value,unit,kind,baseline,count\n", f);
	for (size_t i = 0; i < nunits; i++) {
		const struct rec_unit *u = &units[i];
		if (u->warm || strcmp(u->status, REC_STATUS_OK))
			continue;
		int64_t *cell = NULL, *ns = NULL;
		size_t n = 0;
		if (rec_read_unit_samples(r, i, &cell, &ns, &n))
			return -1;
		for (size_t j = 0; j < n; j++) {
			if (cell[j] < 0 || (size_t)cell[j] >= ncells)
				continue;
			field(f, cells[cell[j]].name, 0);
			field(f, u->mode, 0);
			field_i64(f, u->block, 0);
			field_i64(f, ns[j], 0);
			field(f, "ns", 0);
			field(f, cells[cell[j]].kind, 0);
			field(f, !strcmp(u->mode, baseline) ? "true" : "false", 0);
			field_i64(f, cells[cell[j]].count > 0 ? cells[cell[j]].count : 1, 1);
		}
		free(cell);
		free(ns);
	}
	return 0;
}

static void export_units(const struct rec_unit *units, size_t nunits, FILE *f)
{
	fputs("row,id,mode,repeat,block,position,warm,pid,status,exit_code,signal,compile_ns,"
	      "tune_ns,search_ns,compiles,cache_hits,benchmarks,cache_leak,cache_dir_empty,"
	      "start_utc,end_utc,wall_ns,cache_dir,message,workload\n", f);
	for (size_t i = 0; i < nunits; i++) {
		const struct rec_unit *u = &units[i];
		field_i64(f, (int64_t)i, 0);
		field_i64(f, u->id, 0);
		field(f, u->mode, 0);
		field_i64(f, u->repeat, 0);
		field_i64(f, u->block, 0);
		field_i64(f, u->position, 0);
		field_i64(f, u->warm, 0);
		field_i64(f, u->pid, 0);
		field(f, u->status, 0);
		field_i64(f, u->exit_code, 0);
		field_i64(f, u->signal, 0);
		field_i64(f, u->compile_ns, 0);
		field_i64(f, u->tune_ns, 0);
		field_i64(f, u->search_ns, 0);
		field_i64(f, u->compiles, 0);
		field_i64(f, u->cache_hits, 0);
		field_i64(f, u->benchmarks, 0);
		field_i64(f, u->cache_leak, 0);
		field_i64(f, u->cache_dir_empty, 0);
		field(f, u->start_utc ? u->start_utc : "", 0);
		field(f, u->end_utc ? u->end_utc : "", 0);
		field_i64(f, u->wall_ns, 0);
		field(f, u->cache_dir ? u->cache_dir : "", 0);
		field(f, u->message ? u->message : "", 0);
		field(f, u->workload ? u->workload : "", 1);
	}
}

/* summary.csv: per cell and mode, the unit medians' summary (what `report` starts from), and
 * where their spread lives (the units' own standard error, the share between processes). */
static void export_summary(const struct analysis *a, FILE *f)
{
	fputs("cell,kind,workload,mode,units,median_ns,q1_ns,q3_ns,min_ns,max_ns,unit_rel_se,"
	      "process_share\n", f);
	double *x = xmalloc((a->nblocks + 1) * sizeof(*x)), *w = xmalloc((a->nblocks + 1) * sizeof(*w));
	for (size_t c = 0; c < a->ncells; c++)
		for (size_t m = 0; m < a->nmodes; m++) {
			size_t n = analysis_column(a, m, c, x);
			struct stats_summary s;
			stats_summarize(x, 1, n, w, &s);
			field(f, a->cells[c].name, 0);
			field(f, a->cells[c].kind, 0);
			field(f, a->cells[c].workload, 0);
			field(f, a->modes[m], 0);
			field_i64(f, (int64_t)n, 0);
			field_num(f, s.median, 0);
			field_num(f, s.q1, 0);
			field_num(f, s.q3, 0);
			field_num(f, s.min, 0);
			field_num(f, s.max, 0);
			double unit_se;
			struct stats_vc vc;
			analysis_variance(a, m, c, &unit_se, &vc);
			field_num(f, unit_se, 0);
			field_num(f, vc.share, 1);
		}
	free(x);
	free(w);
}

enum { OPT_CSV = 256, OPT_FORCE };

static const struct cmd_opt export_opts[] = {
	{ "csv", OPT_CSV, 1 },
	{ "force", OPT_FORCE, 0 },
	{ NULL, 0, 0 },
};

static int export_exec(const struct cmd_args *a)
{
	const char *dir = cmd_args_value(a, OPT_CSV);
	if (!dir)
		return cmd_usage_error(a->entry, "'export' needs --csv DIR");
	if (cmd_args_count(a, OPT_CSV) > 1)
		return cmd_usage_error(a->entry, "--csv may be given once");
	struct analysis *an = NULL;
	struct rec *r = NULL;
	struct rec_unit *units = NULL;
	struct rec_cell *cells = NULL;
	struct exportset set;
	FILE *f;
	size_t nunits = 0, ncells = 0;
	int rc = EXIT_USAGE;
	memset(&set, 0, sizeof(set));
	set.fd = -1;
	if (analysis_load(a->pos[0], &an) || rec_open(a->pos[0], 0, &r) ||
	    rec_read_units(r, &units, &nunits) || rec_read_cells(r, &cells, &ncells))
		goto done;
	if (exportset_begin(&set, dir, cmd_args_count(a, OPT_FORCE) > 0, out_names))
		goto done; /* DIR not empty, not an earlier export: a usage error */
	rc = EXIT_RUN_FAILED;
	if (!(f = exportset_add(&set, out_names[OUT_SAMPLES])) ||
	    export_samples(r, units, nunits, cells, ncells, f, an->modes[an->baseline]))
		goto done;
	if (!(f = exportset_add(&set, out_names[OUT_UNITS])))
		goto done;
	export_units(units, nunits, f);
	if (!(f = exportset_add(&set, out_names[OUT_SUMMARY])))
		goto done;
	export_summary(an, f);
	if (exportset_commit(&set))
		goto done;
	printf("'%s': samples.csv (%" PRIu64 " bytes), units.csv, summary.csv and %s written to "
	       "'%s'\n", a->pos[0], set.files[OUT_SAMPLES].bytes, EXPORTSET_MANIFEST, set.dir);
	rc = EXIT_OK;
done:
	exportset_release(&set);
	rec_units_free(units, nunits);
	rec_cells_free(cells, ncells);
	rec_close(r);
	analysis_free(an);
	return rc;
}

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.usage = "export --csv DIR [--force] RESULTS.h5",
	.summary = "a run's raw samples, units and per-cell summary as CSV files",
	.help = "options:\n"
		"  --csv DIR            write samples.csv (harness import's format), units.csv,\n"
		"                       summary.csv and manifest.csv (each file's size and\n"
		"                       SHA-256) as a new folder DIR: built beside it and renamed\n"
		"                       into place whole, so DIR holds a whole set or nothing\n"
		"  --force              replace an earlier export at DIR (whole); without it a DIR\n"
		"                       with entries is refused\n"
		"  -h, --help           this text\n"
		"exit status: 0 written, 1 the set could not be written (DIR as it was), 2 bad\n"
		"command line, results file or DIR\n",
	.opts = export_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = export_exec,
};
