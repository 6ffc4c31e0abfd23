/* cmd-export.c: `harness export FILE --csv DIR`: a run's raw data as CSV files for any other
 * tool (docs/export-format.md).  Fields are quoted by libcsv (csv_fwrite), so names with
 * commas, quotes or newlines survive; samples.csv is in `harness import`'s format, so export
 * then import reproduces the same unit medians and statistics. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/analysis/analysis.h"
#include "harness/cli/cmd.h"
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

static FILE *open_out(const char *dir, const char *name, char **path)
{
	*path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(*path, "w");
	if (!f)
		error_errno("cannot create '%s'", *path);
	return f;
}

static int close_out(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f))
		return error_errno("cannot write '%s'", path);
	return 0;
}

/* samples.csv: cell, mode, block, value, unit, kind: `harness import`'s columns; ok cold
 * units only (what the statistics use), warm probes and failed units in units.csv. */
static int export_samples(struct rec *r, const struct rec_unit *units, size_t nunits,
			  const struct rec_cell *cells, size_t ncells, const char *dir,
			  const char *baseline)
{
	char *path;
	FILE *f = open_out(dir, "samples.csv", &path);
	int rc = -1;
	if (!f) {
		free(path);
		return -1;
	}
	fputs("cell,mode,block,value,unit,kind,baseline\n", f);
	for (size_t i = 0; i < nunits; i++) {
		const struct rec_unit *u = &units[i];
		if (u->warm || strcmp(u->status, REC_STATUS_OK))
			continue;
		int64_t *cell = NULL, *ns = NULL;
		size_t n = 0;
		if (rec_read_unit_samples(r, i, &cell, &ns, &n))
			goto done;
		for (size_t j = 0; j < n; j++) {
			if (cell[j] < 0 || (size_t)cell[j] >= ncells)
				continue;
			field(f, cells[cell[j]].name, 0);
			field(f, u->mode, 0);
			field_i64(f, u->block, 0);
			field_i64(f, ns[j], 0);
			field(f, "ns", 0);
			field(f, cells[cell[j]].kind, 0);
			field(f, !strcmp(u->mode, baseline) ? "true" : "false", 1);
		}
		free(cell);
		free(ns);
	}
	rc = 0;
done:
	if (close_out(f, path))
		rc = -1;
	free(path);
	return rc;
}

static int export_units(const struct rec_unit *units, size_t nunits, const char *dir)
{
	char *path;
	FILE *f = open_out(dir, "units.csv", &path);
	if (!f) {
		free(path);
		return -1;
	}
	fputs("row,id,mode,repeat,block,position,warm,pid,status,exit_code,signal,compile_ns,"
	      "tune_ns,search_ns,compiles,cache_hits,benchmarks,cache_leak,cache_dir_empty,"
	      "start_utc,end_utc,wall_ns,cache_dir,message\n", f);
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
		field(f, u->message ? u->message : "", 1);
	}
	int rc = close_out(f, path);
	free(path);
	return rc;
}

/* summary.csv: per cell and mode, the unit medians' summary (what `report` starts from). */
static int export_summary(const struct analysis *a, const char *dir)
{
	char *path;
	FILE *f = open_out(dir, "summary.csv", &path);
	if (!f) {
		free(path);
		return -1;
	}
	fputs("cell,kind,workload,mode,units,median_ns,q1_ns,q3_ns,min_ns,max_ns\n", f);
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
			field_num(f, s.max, 1);
		}
	free(x);
	free(w);
	int rc = close_out(f, path);
	free(path);
	return rc;
}

enum { OPT_CSV = 256 };

static const struct cmd_opt export_opts[] = {
	{ "csv", OPT_CSV, 1 },
	{ NULL, 0, 0 },
};

static int export_exec(const struct cmd_args *a)
{
	const char *dir = cmd_args_value(a, OPT_CSV);
	if (!dir)
		return cmd_usage_error(a->entry, "'export' needs --csv DIR");
	struct analysis *an = NULL;
	struct rec *r = NULL;
	struct rec_unit *units = NULL;
	struct rec_cell *cells = NULL;
	size_t nunits = 0, ncells = 0;
	int rc = EXIT_USAGE;
	if (analysis_load(a->pos[0], &an) || rec_open(a->pos[0], 0, &r) ||
	    rec_read_units(r, &units, &nunits) || rec_read_cells(r, &cells, &ncells))
		goto done;
	rc = EXIT_RUN_FAILED;
	if (util_mkdir_p(dir, 0755))
		goto done;
	if (export_samples(r, units, nunits, cells, ncells, dir, an->modes[an->baseline]) ||
	    export_units(units, nunits, dir) || export_summary(an, dir))
		goto done;
	printf("'%s': samples.csv, units.csv, summary.csv written to '%s'\n", a->pos[0], dir);
	rc = EXIT_OK;
done:
	rec_units_free(units, nunits);
	rec_cells_free(cells, ncells);
	rec_close(r);
	analysis_free(an);
	return rc;
}

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.usage = "export --csv DIR RESULTS.h5",
	.summary = "a run's raw samples, units and per-cell summary as CSV files",
	.help = "options:\n"
		"  --csv DIR            write samples.csv (harness import's format), units.csv and\n"
		"                       summary.csv into DIR (created if missing; files replaced)\n"
		"  -h, --help           this text\n",
	.opts = export_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = export_exec,
};
