/* plot.c: a report's figures, drawn by gnuplot from the templates in plots/ (plot.h,
 * docs/plots.md).  This file only writes data and gnuplot variables; what a figure looks
 * like is in its template. */
#include "config.h"
#include "harness/output/plot.h"
#include "harness/output/plot-int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/record/recorder.h"
#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "stats/stats.h"

/* How to read each kind of figure: the HTML report's captions (docs/plots.md says more). */
static const struct {
	const char *kind, *how;
} figure_how[] = {
	{ "forest", "Each row is a cell and a mode, grouped by workload and sorted by ratio: the point "
		    "is the ratio to the baseline (< 1: faster; log axis), the bar its 95% CI (none, "
		    "hollow point: the report gives no CI), the colour the verdict. The shaded band "
		    "is the equivalence margin: a CI entirely inside it is SAME. The last line says "
		    "which comparisons are left out." },
	{ "cell", "Unit medians of one cell, one point per unit (the unit is the replicate), a box "
		  "per mode (quartiles and median, whiskers to 1.5 IQR). The shaded band is the "
		  "baseline's IQR, the dashed line its median." },
	{ "pareto", "Each mode's median latency against its median setup time (compile + tuning + "
		    "search) in one cell; bars are the IQRs over units. Circled and joined: the Pareto "
		    "front of these two axes. An orange diamond: on the report's front over latency "
		    "(a significant difference), spread and setup (equal within 5%), but dominated on "
		    "these two axes." },
	{ "drift", "Each unit's level (geometric mean over cells of its median relative to the "
		   "mode's median) against its position in the run. A trend means the machine "
		   "drifted; the legend gives Spearman's rho and its p." },
	{ "op-e2e", "Per workload and mode: the geometric mean of the op-cell ratios (x) against "
		    "the end-to-end ratio (y), with 95% CIs (no bar: the report gives none). The geometric mean weights every op "
		    "cell alike: points off the diagonal may be weighting (see the composition "
		    "figure), not a failure to compose." },
	{ "composition", "Per workload and mode: the e2e ratio the op cells predict, each weighted "
			 "by its count and time with the rest of the forward held fixed (x), against "
			 "the measured e2e ratio (y), with 95% block-bootstrap CIs. On the identity "
			 "line the per-op differences compose; above it the forward is slower than "
			 "its ops predict (an interaction, or time outside the op cells)." },
	{ "cdf", "The distribution of the raw samples inside each unit of one cell, one line per "
		 "unit, coloured by mode. Lines of one mode that disagree mean units differ more "
		 "than samples inside a unit do." },
	{ "trace", "Tuning trace of one op cell: the best candidate a tuner had found so far against "
		   "the tuning time it had spent (compile + benchmark), for each mode's first cold "
		   "unit that benchmarked candidates. A tuner that reaches its final choice early "
		   "spent the rest of its budget for nothing." },
};

static const char *how_of(const char *kind)
{
	for (size_t i = 0; i < ARRAY_SIZE(figure_how); i++)
		if (!strcmp(figure_how[i].kind, kind))
			return figure_how[i].how;
	return "";
}

void plot_opts_init(struct plot_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = PLOT_PNG;
}

int plot_format_parse(const char *s, enum plot_format *out)
{
	static const char *const names[] = { "png", "svg", "pdf" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum plot_format)i;
			return 0;
		}
	return -1;
}

const char *plot_format_ext(enum plot_format f)
{
	return f == PLOT_SVG ? "svg" : f == PLOT_PDF ? "pdf" : "png";
}

void plot_set_init(struct plot_set *s)
{
	memset(s, 0, sizeof(*s));
}

void plot_set_release(struct plot_set *s)
{
	for (size_t i = 0; i < s->nfigs; i++) {
		free(s->figs[i].id);
		free(s->figs[i].kind);
		free(s->figs[i].title);
		free(s->figs[i].path);
	}
	free(s->figs);
	for (size_t i = 0; i < s->nskipped; i++)
		free(s->skipped[i]);
	free(s->skipped);
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	plot_set_init(s);
}

/* ---- where things are ----------------------------------------------------------------- */

const char *plot_template_dir(void)
{
	static char *dir;
	if (!dir)
		dir = util_data_dir("HARNESS_PLOT_DIR", "plots");
	return dir;
}

char *plot_find_gnuplot(void)
{
	const char *prog = getenv("HARNESS_GNUPLOT");
	char *path = spawn_find_program(prog && *prog ? prog : "gnuplot", NULL);
	if (path && access(path, X_OK)) { /* a path given with '/' is not checked by the search */
		free(path);
		return NULL;
	}
	return path;
}

/* ---- building the script ---------------------------------------------------------------- */

/* A gnuplot string literal: single-quoted ('' for '), so neither backslashes, backquotes
 * nor macros are interpreted; control characters (a newline would end the command)
 * become spaces and invalid UTF-8 U+FFFD (util_utf8_sanitize), so that no name can end
 * the literal, start a command or make the figure invalid UTF-8. */
void gp_str(struct sbuf *sb, const char *str)
{
	char *fixed = util_utf8_sanitize(str);
	sbuf_adds(sb, "'");
	for (const char *s = fixed ? fixed : str; *s; s++) {
		if (*s == '\'')
			sbuf_adds(sb, "''");
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			sbuf_adds(sb, " ");
		else
			sbuf_add(sb, s, 1);
	}
	sbuf_adds(sb, "'");
	free(fixed);
}

/* name = 'value' */
void gp_setstr(struct sbuf *sb, const char *name, const char *value)
{
	sbuf_addf(sb, "%s = ", name);
	gp_str(sb, value);
	sbuf_adds(sb, "\n");
}

/* array name[n] = ['v0', 'v1', ...] */
void gp_setarr(struct sbuf *sb, const char *name, const char *const *v, size_t n)
{
	sbuf_addf(sb, "array %s[%zu] = [", name, n);
	for (size_t i = 0; i < n; i++) {
		if (i)
			sbuf_adds(sb, ", ");
		gp_str(sb, v[i]);
	}
	sbuf_adds(sb, "]\n");
}

/* name = number (NaN spelled so gnuplot reads it) */
void gp_setnum(struct sbuf *sb, const char *name, double v)
{
	if (isnan(v) || isinf(v))
		sbuf_addf(sb, "%s = NaN\n", name);
	else
		sbuf_addf(sb, "%s = %.9g\n", name, v);
}

/* A string column of a data file: double-quoted, with no " (written ') or control
 * characters (spaces), invalid UTF-8 as U+FFFD. */
void data_label(FILE *f, const char *str)
{
	char *fixed = util_utf8_sanitize(str);
	fputc('"', f);
	for (const char *s = fixed ? fixed : str; *s; s++)
		fputc(*s == '"' ? '\'' : (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
	fputc('"', f);
	free(fixed);
}

/* A number column; NaN for what is missing (gnuplot skips the point). */
void data_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs(" NaN", f);
	else
		fprintf(f, " %.9g", v);
}

/* A new data file in the private folder; its path in *path (heap, the caller's; NULL
 * when the file could not be made).  NULL reported. */
FILE *data_open(struct gp *g, char **path)
{
	*path = xasprintf("%s/data-XXXXXX", g->tmp);
	int fd = mkstemp(*path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		error_errno("cannot create a data file in '%s'", g->tmp);
		if (fd >= 0)
			close(fd);
		free(*path);
		*path = NULL;
	}
	return f;
}

static int data_close(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f))
		return error_errno("cannot write '%s'", path);
	return 0;
}

void plot_skip(struct gp *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	XGROW(g->set->skipped, g->skipped_cap, g->set->nskipped + 1);
	g->set->skipped[g->set->nskipped++] = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Start a figure drawn from the data file f at path (both taken over: closed and freed
 * here): its entry in the set, then the terminal, the output and the variables every
 * template gets (fig_title, data, nmodes, baseline, mode_names[]).  -1 (reported) when the
 * data file cannot be written. */
int figure_begin(struct gp *g, FILE *f, char *path, const char *kind, const char *cell_slug,
		 int height, const char *title_fmt, ...)
{
	const struct analysis *a = g->r->a;
	if (data_close(f, path)) {
		free(path);
		return -1;
	}
	va_list ap;
	va_start(ap, title_fmt);
	char *title = xvasprintf(title_fmt, ap);
	va_end(ap);
	XGROW(g->set->figs, g->figs_cap, g->set->nfigs + 1);
	struct plot_fig *fig = &g->set->figs[g->set->nfigs++];
	fig->kind = xstrdup(kind);
	fig->id = cell_slug ? xasprintf("%s-%s", kind, cell_slug) : xstrdup(kind);
	fig->title = title;
	fig->how = how_of(kind);
	fig->path = xasprintf("%s/%s.%s", g->dir, fig->id, plot_format_ext(g->o->format));

	struct sbuf *s = &g->script;
	sbuf_addf(s, "\n# ---- %s\nreset\n", fig->id);
	switch (g->o->format) {
	case PLOT_SVG:
		sbuf_addf(s, "set terminal svg size %d,%d noenhanced font 'sans,12' linewidth 1.2 "
			     "background rgb 'white'\n", PLOT_W, height);
		break;
	case PLOT_PDF:
		sbuf_addf(s, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'sans,8' "
			     "linewidth 1\n", (double)PLOT_W / PLOT_DPI, (double)height / PLOT_DPI);
		break;
	default:
		sbuf_addf(s, "set terminal pngcairo size %d,%d noenhanced font 'sans,12' "
			     "linewidth 1.2 background rgb 'white'\n", PLOT_W, height);
		break;
	}
	/* names relative to the private folder, gnuplot's working folder */
	sbuf_addf(s, "set encoding utf8\nset output '%s.%s'\n", fig->id, plot_format_ext(g->o->format));
	gp_setstr(s, "fig_title", title);
	/* the data file takes the figure's name, <id>.dat, which --data keeps */
	char *named = xasprintf("%s/%s.dat", g->tmp, fig->id);
	int bad = rename(path, named);
	if (bad)
		error_errno("cannot rename '%s' to '%s'", path, named);
	free(named);
	free(path);
	if (bad)
		return -1;
	sbuf_addf(s, "data = '%s.dat'\n", fig->id);
	sbuf_addf(s, "nmodes = %zu\nbaseline = %zu\n", a->nmodes, g->r->baseline + 1);
	gp_setarr(s, "mode_names", (const char *const *)a->modes, a->nmodes);
	return 0;
}

/* End a figure: its template, then close the output. */
int figure_end(struct gp *g, const char *kind)
{
	char *path = xasprintf("%s/%s.gp", plot_template_dir(), kind), *text = NULL;
	size_t len;
	if (util_read_file(path, &text, &len)) {
		error("cannot read the plot template '%s' (set HARNESS_PLOT_DIR to the folder of "
		      "the *.gp templates)", path);
		free(path);
		return -1;
	}
	sbuf_addf(&g->script, "# template %s.gp\n", kind);
	sbuf_add(&g->script, text, len);
	sbuf_adds(&g->script, "\nunset output\n");
	free(text);
	free(path);
	return 0;
}

/* ---- running gnuplot ------------------------------------------------------------------ */

/* Per cell, a file-name-safe slug of its name ([A-Za-z0-9._-], others '_'), cut to
 * PLOT_SLUG_MAX bytes with "-" and 8 hex digits of the whole name's SHA-256 when longer; a
 * slug that an earlier cell already has gets "-<row>" appended, so ids are unique and
 * stable. */
static char **make_slugs(const struct analysis *a)
{
	char **slug = xcalloc(a->ncells ? a->ncells : 1, sizeof(*slug));
	for (size_t c = 0; c < a->ncells; c++) {
		const char *name = *a->cells[c].name ? a->cells[c].name : "cell";
		char *s = xstrdup(name);
		for (char *p = s; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_'))
				*p = '_';
		if (strlen(s) > PLOT_SLUG_MAX) {
			char hex[65];
			util_sha256_hex(name, strlen(name), hex);
			snprintf(s + PLOT_SLUG_MAX - 9, 10, "-%.8s", hex);
		}
		for (size_t d = 0; d < c; d++)
			if (!strcmp(slug[d], s)) {
				char *t = xasprintf("%s-%zu", s, c);
				free(s);
				s = t;
				break;
			}
		slug[c] = s;
	}
	return slug;
}

/* Print what gnuplot said (at most 40 lines) under a heading. */
static void show_messages(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	if (util_read_file(path, &text, &len))
		return;
	size_t lines = 0;
	for (char *p = text, *nl; *p && lines < 40; p = nl + 1, lines++) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		fprintf(stderr, "  gnuplot: %.*s\n", (int)(nl - p + (*nl != '\n')), p);
		if (!nl[1])
			break;
	}
	free(text);
}

static int run_gnuplot(struct gp *g, const char *gnuplot)
{
	char *script = xasprintf("%s/figures.gp", g->tmp), *err = xasprintf("%s/gnuplot.err", g->tmp);
	char *home = xasprintf("HOME=%s", g->tmp);
	int ret = -1;
	if (util_write_file(script, g->script.buf, g->script.len, 0600))
		goto done;
	/* a built environment: no user start-up file (~/.gnuplot); the C locale's numbers with
	 * UTF-8 text (the labels' µ and ±) */
	const char *env[] = { "LC_ALL=C.UTF-8", "TZ=UTC", home, NULL };
	const char *argv[] = { gnuplot, "figures.gp", NULL };
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = argv;
	sp.env = env;
	sp.dir = g->tmp;
	sp.stderr_path = err;
	if (spawn_run(&sp, NULL, &st)) {
		spawn_release(&sp);
		goto done;
	}
	spawn_release(&sp);
	if (!st.exited || st.code) {
		show_messages(err);
		error("gnuplot ('%s') failed (%s %d) drawing the figures", gnuplot,
		      st.signaled ? "signal" : "exit status", st.signaled ? st.sig : st.code);
		goto done;
	}
	ret = 0;
done:
	free(script);
	free(err);
	free(home);
	return ret;
}

/* Whether the figure file at path is whole: a regular file that ends as its format ends
 * (a PNG with its IEND chunk, an SVG with </svg>, a PDF with %%EOF), so that one cut short
 * by a full disk, which gnuplot does not always notice, is never put in place. */
static int figure_whole(const char *path, enum plot_format fmt)
{
	struct stat sb;
	char tail[64];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	size_t n = 0;
	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0) {
		off_t at = sb.st_size > (off_t)sizeof(tail) ? sb.st_size - (off_t)sizeof(tail) : 0;
		ssize_t got = pread(fd, tail, (size_t)(sb.st_size - at), at);
		n = got > 0 ? (size_t)got : 0;
	}
	close(fd);
	if (fmt == PLOT_PNG) /* the last chunk: length 0, "IEND", its CRC */
		return n >= 12 && !memcmp(tail + n - 12, "\0\0\0\0IEND\xae\x42\x60\x82", 12);
	const char *end = fmt == PLOT_SVG ? "</svg>" : "%%EOF";
	return memmem(tail, n, end, strlen(end)) != NULL;
}

/* Put every figure drawn in the private folder in its place in g->dir: first check that
 * each is whole and that no folder holds its name, then rename each over its name (a file or
 * a symlink there is replaced, never written through).  Nothing in g->dir changes unless
 * every check passed; a rename that fails after them (not expected: same folder, same
 * file system) leaves figures that are all whole, some new and some from before. */
static int install_figures(struct gp *g)
{
	const char *ext = plot_format_ext(g->o->format);
	int ret = -1;
	char **from = xcalloc(g->set->nfigs + 1, sizeof(*from));
	for (size_t i = 0; i < g->set->nfigs; i++) {
		const struct plot_fig *fig = &g->set->figs[i];
		struct stat sb;
		from[i] = xasprintf("%s/%s.%s", g->tmp, fig->id, ext);
		if (!figure_whole(from[i], g->o->format)) {
			error("gnuplot did not write '%s' whole", fig->path);
			goto done;
		}
		if (!lstat(fig->path, &sb) && S_ISDIR(sb.st_mode)) {
			error("cannot write the figure '%s': a folder has its name", fig->path);
			goto done;
		}
	}
	for (size_t i = 0; i < g->set->nfiles; i++) {
		struct stat sb;
		if (!lstat(g->set->files[i], &sb) && S_ISDIR(sb.st_mode)) {
			error("cannot write '%s': a folder has its name", g->set->files[i]);
			goto done;
		}
	}
	for (size_t i = 0; i < g->set->nfigs; i++)
		if (rename(from[i], g->set->figs[i].path)) {
			error_errno("cannot rename '%s' to '%s'", from[i], g->set->figs[i].path);
			goto done;
		}
	for (size_t i = 0; i < g->set->nfiles; i++) {
		char *src = xasprintf("%s/%s", g->tmp, strrchr(g->set->files[i], '/') + 1);
		int bad = rename(src, g->set->files[i]);
		if (bad)
			error_errno("cannot rename '%s' to '%s'", src, g->set->files[i]);
		free(src);
		if (bad)
			goto done;
	}
	ret = 0;
done:
	for (size_t i = 0; i < g->set->nfigs; i++)
		free(from[i]);
	free(from);
	return ret;
}

/* The cells whose cell and Pareto figures are drawn: every one with o->all_cells, else
 * the e2e cells (at most PLOT_DEFAULT_CELLS), else the CDF's cell.  Heap, ncells long. */
static int *pick_cells(const struct report *r, const struct plot_src *src,
		       const struct plot_opts *o)
{
	const struct analysis *a = r->a;
	int *pick = xcalloc(a->ncells + 1, sizeof(*pick));
	size_t k = 0;
	for (size_t c = 0; c < a->ncells; c++) {
		pick[c] = o->all_cells || (!strcmp(a->cells[c].kind, "e2e") && k < PLOT_DEFAULT_CELLS);
		k += pick[c];
	}
	if (!k && a->ncells)
		pick[src->cdf_cell] = 1;
	return pick;
}

/* Add DIR/<name> to the other files written (its source is g->tmp/<name>). */
static void plot_file(struct gp *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *name = xvasprintf(fmt, ap);
	va_end(ap);
	XGROW(g->set->files, g->files_cap, g->set->nfiles + 1);
	g->set->files[g->set->nfiles++] = xasprintf("%s/%s", g->dir, name);
	free(name);
}

/* index.md in the private folder: a line per figure (its file and its title, which says what
 * it shows), what was not drawn and why, and what the default set left out. */
static int write_index(struct gp *g)
{
	const struct plot_set *set = g->set;
	const struct analysis *a = g->r->a;
	struct sbuf s;
	sbuf_init(&s);
	sbuf_adds(&s, "# Figures of `");
	sbuf_adds(&s, a->path);
	sbuf_addf(&s, "`\n\nDrawn by `harness plot` (docs/plots.md): every ratio is mode / baseline "
		      "`%s` (< 1: faster). Each figure, with what it shows:\n\n", a->modes[g->r->baseline]);
	for (size_t i = 0; i < set->nfigs; i++) {
		const char *file = strrchr(set->figs[i].path, '/') + 1;
		sbuf_addf(&s, "- [%s](%s): %s\n", file, file, set->figs[i].title);
	}
	if (set->nskipped) {
		sbuf_adds(&s, "\nNot drawn:\n\n");
		for (size_t i = 0; i < set->nskipped; i++)
			sbuf_addf(&s, "- %s\n", set->skipped[i]);
	}
	if (set->cells_left || (set->forest_left && !g->o->forest_pages)) {
		sbuf_adds(&s, "\nLeft out of this default set (`harness plot --all` draws them):");
		if (set->cells_left)
			sbuf_addf(&s, " the cell and Pareto figures of %zu more cell%s;", set->cells_left,
				  set->cells_left == 1 ? "" : "s");
		if (set->forest_left && !g->o->forest_pages)
			sbuf_addf(&s, " the forest plot of every comparison, in pages (%zu "
				      "INCONCLUSIVE left out of `forest`);", set->forest_left);
		s.buf[s.len - 1] = '.';
		sbuf_adds(&s, "\n");
	}
	if (g->o->data)
		sbuf_adds(&s, "\nData: each figure's `<figure>.dat`; `gnuplot figures.gp` in this "
			      "folder draws them all again.\n");
	char *path = xasprintf("%s/index.md", g->tmp);
	int ret = util_write_file(path, s.buf, s.len, 0644);
	free(path);
	sbuf_release(&s);
	if (!ret)
		plot_file(g, "index.md");
	return ret;
}

int plot_draw(const struct report *r, const struct plot_src *src, const struct plot_opts *o,
	      const char *dir, struct plot_set *out)
{
	const struct analysis *a = r->a;
	struct gp g = { .r = r, .src = src, .o = o, .dir = dir, .set = out };
	char *gnuplot = NULL;
	int *pick = NULL, ret = -1;
	sbuf_init(&g.script);

	if (strpbrk(dir, "\n\r")) {
		error("the output folder '%s' has a line break in its name", dir);
		goto done;
	}
	if (!(gnuplot = plot_find_gnuplot())) {
		error("gnuplot not found in PATH: install it (Debian package gnuplot-nox) or set "
		      "HARNESS_GNUPLOT to the program");
		goto done;
	}
	if (util_mkdir_p(dir, 0777))
		goto done;
	g.tmp = xasprintf("%s/.plot.XXXXXX", dir);
	if (!mkdtemp(g.tmp)) {
		error_errno("cannot create a private folder '%s'", g.tmp);
		free(g.tmp);
		g.tmp = NULL;
		goto done;
	}
	g.slug = make_slugs(a);
	sbuf_adds(&g.script, "# figures.gp: written by harness plot (harness/output/plot.c) from "
			     "the templates in plots/\n");
	if (fig_forest(&g))
		goto done;
	pick = pick_cells(r, src, o);
	for (size_t c = 0; c < a->ncells; c++) {
		out->cells_left += !pick[c];
		if (pick[c] && (fig_cell(&g, c) || fig_pareto(&g, c)))
			goto done;
	}
	if (fig_drift(&g) || fig_op_e2e(&g) || fig_composition(&g) || (a->ncells && (fig_cdf(&g) || fig_trace(&g))))
		goto done;
	if (run_gnuplot(&g, gnuplot))
		goto done;
	if (o->data) {
		for (size_t i = 0; i < out->nfigs; i++)
			plot_file(&g, "%s.dat", out->figs[i].id);
		plot_file(&g, "figures.gp");
	}
	if ((o->index && write_index(&g)) || install_figures(&g))
		goto done;
	ret = 0;
done:
	if (g.tmp && util_rm_rf(g.tmp))
		ret = -1;
	free(g.tmp);
	if (g.slug)
		for (size_t c = 0; c < a->ncells; c++)
			free(g.slug[c]);
	free(g.slug);
	free(pick);
	sbuf_release(&g.script);
	free(gnuplot);
	return ret;
}
