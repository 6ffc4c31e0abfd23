/* cmd-show.c: `harness show FILE`: a results file's metadata, recorded files and unit table */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cmd.h"
#include "harness/record/recorder.h"
#include "harness/base/util.h"

/* Append s to sb with control characters escaped (\n, \t, \r, \\, \xNN), so that every
 * value stays on its own line. */
static void add_escaped(struct sbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\n')
			sbuf_adds(sb, "\\n");
		else if (c == '\t')
			sbuf_adds(sb, "\\t");
		else if (c == '\r')
			sbuf_adds(sb, "\\r");
		else if (c == '\\')
			sbuf_adds(sb, "\\\\");
		else if (c < 0x20 || c == 0x7f)
			sbuf_addf(sb, "\\x%02x", c);
		else
			sbuf_add(sb, s, 1);
	}
}

/* ---- a plain text table: every cell a string, columns as wide as their widest cell ---- */

struct text_table {
	size_t ncols;
	const char *const *head;
	const int *right;   /* 1: right-aligned (numbers) */
	char **cells;       /* nrows x ncols, row-major */
	size_t nrows, cap;
};

static void text_table_row(struct text_table *t, char **row)
{
	XGROW(t->cells, t->cap, (t->nrows + 1) * t->ncols);
	memcpy(t->cells + t->nrows * t->ncols, row, t->ncols * sizeof(*row));
	t->nrows++;
}

static void text_table_print(const struct text_table *t, struct sbuf *out)
{
	size_t *w = xcalloc(t->ncols, sizeof(*w));
	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->head[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t n = strlen(t->cells[r * t->ncols + c]);
			w[c] = n > w[c] ? n : w[c];
		}
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		struct sbuf line;
		sbuf_init(&line);
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = r ? t->cells[(r - 1) * t->ncols + c] : t->head[c];
			int pad = (int)(w[c] - strlen(s));
			const char *sep = c ? "  " : "";
			if (t->right[c])
				sbuf_addf(&line, "%s%*s%s", sep, pad, "", s);
			else
				sbuf_addf(&line, "%s%s%*s", sep, s, pad, "");
		}
		while (line.len && line.buf[line.len - 1] == ' ') /* no trailing blanks */
			line.buf[--line.len] = '\0';
		sbuf_addf(out, "%s\n", line.buf);
		sbuf_release(&line);
	}
	free(w);
}

static void text_table_release(struct text_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
}

/* ---- the command ----------------------------------------------------------------------- */

static char *ms(int64_t ns)
{
	return xasprintf("%.1f", (double)ns / 1e6);
}

/* Metadata and recorded files: "key: value" lines. */
static void show_meta(const char *path, int version, const struct rec_meta *m,
		      struct sbuf *out)
{
	sbuf_addf(out, "results: %s\n", path);
	sbuf_addf(out, "format_version: %d\n", version);
	for (size_t k = 0; k < m->nkv; k++) {
		sbuf_addf(out, "%s: ", m->kv[k].key);
		add_escaped(out, m->kv[k].value);
		sbuf_adds(out, "\n");
	}
	for (size_t k = 0; k < m->nfiles; k++) {
		const struct rec_file *f = &m->files[k];
		sbuf_addf(out, "%s: ", f->role);
		add_escaped(out, f->path);
		sbuf_addf(out, " (sha256 %s, %zu bytes)\n", f->sha256, f->len);
	}
}

/* The unit table, in the order the units were recorded; a unit of one workload (unit_scope
 * = "workload") shows it after its mode, "exhaustive [resnet18]". */
static void show_units(const struct rec_unit *u, size_t n, struct sbuf *out)
{
	static const char *const head[] = { "id", "mode", "repeat", "block", "pos", "cache",
					     "pid", "status", "exit", "signal", "compile_ms",
					     "tune_ms", "search_ms", "wall_s", "cache_leak" };
	static const int right[] = { 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0 };
	struct text_table t = { .ncols = ARRAY_SIZE(head), .head = head, .right = right };
	for (size_t i = 0; i < n; i++) {
		struct sbuf mode;
		sbuf_init(&mode);
		add_escaped(&mode, u[i].mode);
		if (u[i].workload && *u[i].workload) { /* unit_scope = "workload" */
			sbuf_adds(&mode, " [");
			add_escaped(&mode, u[i].workload);
			sbuf_adds(&mode, "]");
		}
		char *row[] = {
			xasprintf("%" PRId64, u[i].id),
			sbuf_detach(&mode),
			xasprintf("%" PRId64, u[i].repeat),
			xasprintf("%" PRId64, u[i].block),
			xasprintf("%" PRId64, u[i].position),
			xstrdup(u[i].warm ? "warm" : "cold"),
			xasprintf("%" PRId64, u[i].pid),
			xstrdup(*u[i].status ? u[i].status : "-"),
			xasprintf("%" PRId64, u[i].exit_code),
			xasprintf("%" PRId64, u[i].signal),
			ms(u[i].compile_ns),
			ms(u[i].tune_ns),
			ms(u[i].search_ns),
			xasprintf("%.3f", (double)u[i].wall_ns / 1e9),
			xstrdup(u[i].cache_leak ? "LEAK" : "-"),
		};
		text_table_row(&t, row);
	}
	text_table_print(&t, out);
	text_table_release(&t);
	/* why each unit that is not ok failed: the table has no room for it */
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(u[i].status, REC_STATUS_OK) || !u[i].message || !*u[i].message)
			continue;
		sbuf_addf(out, "unit %" PRId64 " (%s, block %" PRId64 ") %s: ", u[i].id, u[i].mode,
			  u[i].block, u[i].status);
		add_escaped(out, u[i].message);
		sbuf_adds(out, "\n");
	}
}

/* Planned units that have no record: plan ids minus recorded ids. */
static size_t count_missing(const struct rec_plan *plan, size_t nplan, const struct rec_unit *u,
			    size_t n)
{
	char *seen = xcalloc(nplan ? nplan : 1, 1);
	for (size_t i = 0; i < n; i++) {
		int64_t id = u[i].id;
		if (id >= 0 && (uint64_t)id < nplan && plan[id].id == id) { /* ids are plan rows */
			seen[id] = 1;
			continue;
		}
		for (size_t j = 0; j < nplan; j++)
			if (plan[j].id == id) {
				seen[j] = 1;
				break;
			}
	}
	size_t missing = 0;
	for (size_t j = 0; j < nplan; j++)
		missing += !seen[j];
	free(seen);
	return missing;
}

static int show_exec(const struct cmd_args *a)
{
	const char *path = a->pos[0];
	struct rec *r = NULL;
	struct rec_meta meta;
	struct rec_plan *plan = NULL;
	struct rec_unit *units = NULL;
	size_t nplan = 0, nunits = 0;
	int64_t nsamples = 0;
	struct sbuf out;
	int ret = EXIT_USAGE;

	rec_meta_init(&meta);
	sbuf_init(&out);
	if (rec_open(path, 0, &r) || rec_read_meta(r, &meta) || rec_read_plan(r, &plan, &nplan) ||
	    rec_read_units(r, &units, &nunits) || rec_count_samples(r, &nsamples))
		goto done;

	show_meta(path, rec_format_version(r), &meta, &out);
	size_t missing = count_missing(plan, nplan, units, nunits);
	sbuf_addf(&out, "units: %zu recorded, %zu planned, %zu missing\n", nunits, nplan, missing);
	sbuf_addf(&out, "samples: %" PRId64 "\n", nsamples);
	if (nunits) {
		sbuf_adds(&out, "\n");
		show_units(units, nunits, &out);
	}

	/* A write error leaves stdout's error flag set: cmd_main's final check reports it
	 * (once), so here it only decides the exit code. */
	ret = EXIT_OK;
	if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout) || ferror(stdout))
		ret = EXIT_RUN_FAILED;
done:
	sbuf_release(&out);
	rec_units_free(units, nunits);
	rec_plan_free(plan, nplan);
	rec_meta_release(&meta);
	if (rec_close(r) && ret == EXIT_OK)
		ret = EXIT_USAGE;
	return ret;
}

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.usage = "show RESULTS.h5",
	.summary = "print a results file's metadata, recorded files and unit table",
	.help = "prints 'key: value' lines (the run's metadata, then each recorded file with its\n"
		"SHA-256), the count of recorded, planned and missing units and of samples, and\n"
		"one row per recorded unit (setup times in ms, wall time in s)\n"
		"options:\n"
		"  -h, --help   this text\n",
	.opts = NULL,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = show_exec,
};
