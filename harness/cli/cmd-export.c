/* cmd-export.c: `harness export FILE --csv DIR`: a run's raw data as CSV files for any other
 * tool (docs/export-format.md).  Fields are quoted by libcsv (csv_fwrite), so names with
 * commas, quotes or newlines survive; samples.csv is in `harness import`'s format, so export
 * then import reproduces the same unit medians and statistics. */
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

/* The files export writes, each first as NAME.tmpXXXXXX in the output folder:
 * mkstemp creates it with O_EXCL, so a symlink planted there is never followed, and
 * rename(2) then replaces whatever has the final name (a symlink itself, not its target).
 * Nothing is renamed until every file is complete, and on any failure every temporary
 * file is removed: the folder holds either the previous export or the new one, never a
 * partial file. */
enum { OUT_SAMPLES, OUT_UNITS, OUT_SUMMARY, NOUT };
static const char *const out_names[NOUT] = { "samples.csv", "units.csv", "summary.csv" };

struct out_file {
	char *path; /* DIR/NAME (heap) */
	char *tmp;  /* DIR/NAME.tmpXXXXXX while it exists (heap), else NULL */
	int fd;     /* open on tmp, or -1 */
	FILE *f;    /* a stream writing to fd, or NULL */
	int err;    /* the errno of the first failed write, or 0 */
};

/* The stream's writes go straight to write(2) (glibc's own stdio writes cannot be
 * interposed), so that tests can fail them on purpose (tests/stress/writefault.so).  As
 * fopencookie(3) asks: the bytes written, fewer (0: none) on an error, kept in o->err. */
static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
	struct out_file *o = cookie;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(o->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			if (!o->err)
				o->err = errno;
			break;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

/* Create o's temporary file next to DIR/name. */
static int out_open(struct out_file *o, const char *dir, const char *name)
{
	o->path = xasprintf("%s/%s", dir, name);
	char *tmp = xasprintf("%s.tmpXXXXXX", o->path);
	o->fd = mkostemp(tmp, O_CLOEXEC);
	if (o->fd < 0) {
		error_errno("cannot create a temporary file next to '%s'", o->path);
		free(tmp);
		return -1;
	}
	o->tmp = tmp;
	cookie_io_functions_t io = { .write = out_write };
	if (fchmod(o->fd, 0644) < 0 || !(o->f = fopencookie(o, "w", io)))
		return error_errno("cannot open '%s'", tmp);
	return 0;
}

/* Flush, sync and close o's temporary file; reports a write error (a full disk). */
static int out_close(struct out_file *o)
{
	int rc = 0;
	if (fflush(o->f) != 0 || ferror(o->f) || o->err) {
		errno = o->err ? o->err : errno;
		rc = error_errno("cannot write '%s'", o->path);
	} else if (fsync(o->fd) != 0) {
		rc = error_errno("cannot write '%s'", o->path);
	}
	fclose(o->f);
	o->f = NULL;
	if (close(o->fd) != 0 && rc == 0)
		rc = error_errno("cannot write '%s'", o->path);
	o->fd = -1;
	return rc;
}

/* Remove what is left of o (its temporary file, when there is one) and free it. */
static void out_release(struct out_file *o)
{
	if (o->f)
		fclose(o->f);
	if (o->fd >= 0)
		close(o->fd);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
}

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
	struct out_file out[NOUT];
	size_t nunits = 0, ncells = 0;
	int rc = EXIT_USAGE;
	for (size_t k = 0; k < NOUT; k++)
		out[k] = (struct out_file){ .fd = -1 };
	if (analysis_load(a->pos[0], &an) || rec_open(a->pos[0], 0, &r) ||
	    rec_read_units(r, &units, &nunits) || rec_read_cells(r, &cells, &ncells))
		goto done;
	rc = EXIT_RUN_FAILED;
	if (util_mkdir_p(dir, 0755))
		goto done;
	for (size_t k = 0; k < NOUT; k++)
		if (out_open(&out[k], dir, out_names[k]))
			goto done;
	if (export_samples(r, units, nunits, cells, ncells, out[OUT_SAMPLES].f,
			   an->modes[an->baseline]))
		goto done;
	export_units(units, nunits, out[OUT_UNITS].f);
	export_summary(an, out[OUT_SUMMARY].f);
	for (size_t k = 0; k < NOUT; k++)
		if (out_close(&out[k]))
			goto done;
	/* every file complete: now, and only now, put them in place */
	for (size_t k = 0; k < NOUT; k++) {
		if (rename(out[k].tmp, out[k].path) < 0) {
			error_errno("cannot rename '%s' to '%s'", out[k].tmp, out[k].path);
			goto done;
		}
		free(out[k].tmp);
		out[k].tmp = NULL;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd); /* best effort: the new names on disk */
		close(dfd);
	}
	printf("'%s': samples.csv, units.csv, summary.csv written to '%s'\n", a->pos[0], dir);
	rc = EXIT_OK;
done:
	for (size_t k = 0; k < NOUT; k++)
		out_release(&out[k]);
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
		"                       summary.csv into DIR (created if missing; files replaced\n"
		"                       whole, by rename: never partly, never through a symlink)\n"
		"  -h, --help           this text\n",
	.opts = export_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = export_exec,
};
