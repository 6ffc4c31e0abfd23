/* replay-plot.c: a replay's curves as one gnuplot figure (plots/replay.gp; docs/replay.md),
 * drawn as the report's figures are (plot.h): data and script in a private folder beside the
 * output, gnuplot started with an argv and a built environment, the figure renamed into place
 * only when gnuplot exited 0 and the file is whole. */
#include "config.h"
#include "harness/output/replay-write.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "harness/output/plot-int.h"

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* The q-quantile (linear interpolation) of n sorted values. */
static double quant(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	return lo + 1 < n ? v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]) : v[n - 1];
}

/* 1 when the file at path ends as fmt's files end. */
static int whole(const char *path, enum plot_format fmt)
{
	char tail[64];
	struct stat sb;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0) {
		off_t at = sb.st_size > (off_t)sizeof(tail) ? sb.st_size - (off_t)sizeof(tail) : 0;
		ssize_t got = pread(fd, tail, (size_t)(sb.st_size - at), at);
		n = got > 0 ? (size_t)got : 0;
	}
	close(fd);
	if (fmt == PLOT_PNG)
		return n >= 12 && !memcmp(tail + n - 12, "\0\0\0\0IEND\xae\x42\x60\x82", 12);
	const char *end = fmt == PLOT_SVG ? "</svg>" : "%%EOF";
	return memmem(tail, n, end, strlen(end)) != NULL;
}

int replay_plot(const struct replay *r, const char *out)
{
	const char *ext = strrchr(out, '.');
	enum plot_format fmt;
	char *gnuplot = NULL, *dir = NULL, *tmp = NULL, *data = NULL, *script = NULL;
	char *err = NULL, *fig = NULL, *tpl = NULL, *home = NULL, *text = NULL;
	struct sbuf sb;
	FILE *f = NULL;
	size_t len;
	int ret = -1;

	sbuf_init(&sb);
	if (!ext || plot_format_parse(ext + 1, &fmt))
		return error("the figure '%s' must end in .png, .svg or .pdf", out);
	if (strpbrk(out, "\n\r"))
		return error("the figure's name has a line break");
	if (!(gnuplot = plot_find_gnuplot()))
		return error("gnuplot not found in PATH: install it (Debian package gnuplot-nox) or "
			     "set HARNESS_GNUPLOT to the program");
	const char *slash = strrchr(out, '/');
	dir = slash ? xstrndup(out, slash == out ? 1 : (size_t)(slash - out)) : xstrdup(".");
	tmp = xasprintf("%s/.plot.XXXXXX", dir);
	if (!mkdtemp(tmp)) {
		error_errno("cannot create a private folder '%s'", tmp);
		free(tmp);
		tmp = NULL;
		goto done;
	}
	/* data: per tuner (in the order first met), per budget, the cells' mean scores */
	const char **names = xcalloc(r->nrows + 1, sizeof(*names));
	size_t nt = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		size_t k = 0;
		while (k < nt && strcmp(names[k], r->rows[i].tuner))
			k++;
		if (k == nt)
			names[nt++] = r->rows[i].tuner;
	}
	data = xasprintf("%s/curves.dat", tmp);
	f = fopen(data, "w");
	if (!f) {
		error_errno("cannot write '%s'", data);
		free(names);
		goto done;
	}
	double *col = xcalloc(r->nrows + 1, sizeof(*col));
	for (size_t k = 0; k < nt; k++) {
		fprintf(f, "# %s\n", names[k]);
		for (int64_t b = 0; b < r->budget; b++) {
			size_t n = 0;
			for (size_t i = 0; i < r->nrows; i++)
				if (!strcmp(r->rows[i].tuner, names[k]) && isfinite(r->rows[i].score_mean[b]))
					col[n++] = r->rows[i].score_mean[b];
			if (!n)
				continue;
			qsort(col, n, sizeof(*col), cmp_d);
			fprintf(f, "%" PRId64, b + 1);
			data_num(f, quant(col, n, 0.5));
			data_num(f, quant(col, n, 0.25));
			data_num(f, quant(col, n, 0.75));
			fputc('\n', f);
		}
		fputs("\n\n", f);
	}
	free(col);
	if (ferror(f) | fclose(f)) {
		f = NULL;
		error_errno("cannot write '%s'", data);
		free(names);
		goto done;
	}
	f = NULL;
	switch (fmt) {
	case PLOT_SVG:
		sbuf_addf(&sb, "set terminal svg size %d,%d noenhanced font 'sans,12' linewidth 1.2 "
			  "background rgb 'white'\n", PLOT_W, PLOT_H);
		break;
	case PLOT_PDF:
		sbuf_addf(&sb, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'sans,8' "
			  "linewidth 1\n", (double)PLOT_W / PLOT_DPI, (double)PLOT_H / PLOT_DPI);
		break;
	default:
		sbuf_addf(&sb, "set terminal pngcairo size %d,%d noenhanced font 'sans,12' "
			  "linewidth 1.2 background rgb 'white'\n", PLOT_W, PLOT_H);
		break;
	}
	sbuf_addf(&sb, "set encoding utf8\nset output 'figure.%s'\n", plot_format_ext(fmt));
	char *title = xasprintf("Replay of %s (unit %" PRId64 ", mode %s): %zu cells, %zu seeds%s",
				r->path, r->unit, r->source_mode, nt ? r->nrows / nt : 0, r->seeds,
				r->noise ? ", noise" : "");
	gp_setstr(&sb, "fig_title", title);
	free(title);
	gp_setstr(&sb, "data", "curves.dat");
	sbuf_addf(&sb, "ntuners = %zu\n", nt);
	gp_setarr(&sb, "tuner_names", (const char *const *)names, nt);
	free(names);
	tpl = xasprintf("%s/replay.gp", plot_template_dir());
	if (util_read_file(tpl, &text, &len)) {
		error("cannot read the plot template '%s' (set HARNESS_PLOT_DIR to the folder of "
		      "the *.gp templates)", tpl);
		goto done;
	}
	sbuf_add(&sb, text, len);
	sbuf_adds(&sb, "\nunset output\n");
	script = xasprintf("%s/figure.gp", tmp);
	err = xasprintf("%s/gnuplot.err", tmp);
	home = xasprintf("HOME=%s", tmp);
	if (util_write_file(script, sb.buf, sb.len, 0600))
		goto done;
	const char *env[] = { "LC_ALL=C.UTF-8", "TZ=UTC", home, NULL };
	const char *argv[] = { gnuplot, "figure.gp", NULL };
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = argv;
	sp.env = env;
	sp.dir = tmp;
	sp.stderr_path = err;
	int sr = spawn_run(&sp, NULL, &st);
	spawn_release(&sp);
	if (sr)
		goto done;
	fig = xasprintf("%s/figure.%s", tmp, plot_format_ext(fmt));
	if (!st.exited || st.code) {
		char *msg = NULL;
		size_t ml;
		if (!util_read_file(err, &msg, &ml))
			fprintf(stderr, "%s", msg);
		free(msg);
		error("gnuplot ('%s') failed drawing '%s'", gnuplot, out);
		goto done;
	}
	if (!whole(fig, fmt)) {
		error("gnuplot did not write '%s' whole", out);
		goto done;
	}
	if (rename(fig, out)) {
		error_errno("cannot rename '%s' to '%s'", fig, out);
		goto done;
	}
	ret = 0;
done:
	if (f)
		fclose(f);
	if (tmp && util_rm_rf(tmp))
		ret = -1;
	sbuf_release(&sb);
	free(gnuplot);
	free(dir);
	free(tmp);
	free(data);
	free(script);
	free(err);
	free(fig);
	free(tpl);
	free(home);
	free(text);
	return ret;
}
