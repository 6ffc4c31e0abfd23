/* analysis.c: results file -> mode x cell x block unit medians (see analysis.h) */
#include "config.h"
#include "harness/analysis/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/experiment.h"
#include "harness/base/util.h"
#include "stats/stats.h"

long analysis_mode(const struct analysis *a, const char *name)
{
	for (size_t i = 0; i < a->nmodes; i++)
		if (!strcmp(a->modes[i], name))
			return (long)i;
	return -1;
}

long analysis_cell(const struct analysis *a, const char *name)
{
	for (size_t c = 0; c < a->ncells; c++)
		if (!strcmp(a->cells[c].name, name))
			return (long)c;
	return -1;
}

/* qsort order of cell indices: by workload name, then by index. */
static const struct analysis *sort_a;
static int cmp_cell_workload(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int d = strcmp(sort_a->cells[i].workload, sort_a->cells[j].workload);
	return d ? d : (i > j) - (i < j);
}

/* qsort order of workload indices by the index of their first cell. */
static int cmp_first_cell(const void *x, const void *y)
{
	const size_t *i = x, *j = y;
	return (i[1] > j[1]) - (i[1] < j[1]);
}

/* The workload index's arrays freed (analysis_index_workloads builds them). */
static void free_workload_index(struct analysis *a)
{
	free(a->workloads);
	free(a->cell_workload);
	free(a->workload_first);
	free(a->workload_cells);
	free(a->workload_e2e);
	free(a->workload_byname);
}

void analysis_index_workloads(struct analysis *a)
{
	size_t n = a->ncells;
	free_workload_index(a);
	/* the cells sorted by workload name (n log n): each run of one name is a workload */
	size_t *bn = xmalloc((n + 1) * sizeof(*bn));
	for (size_t c = 0; c < n; c++)
		bn[c] = c;
	sort_a = a;
	qsort(bn, n, sizeof(*bn), cmp_cell_workload);
	sort_a = NULL;
	/* groups as (start in bn, first cell), then in order of first appearance */
	size_t (*g)[2] = xmalloc((n + 1) * sizeof(*g)), ng = 0;
	for (size_t k = 0; k < n; k++)
		if (k == 0 || strcmp(a->cells[bn[k]].workload, a->cells[bn[k - 1]].workload)) {
			g[ng][0] = k;
			g[ng++][1] = bn[k];
		}
	a->workload_byname = xmalloc((ng + 1) * sizeof(*a->workload_byname));
	size_t *rank = xmalloc((ng + 1) * sizeof(*rank)); /* name order -> group start */
	for (size_t w = 0; w < ng; w++)
		rank[w] = g[w][0];
	qsort(g, ng, sizeof(*g), cmp_first_cell);
	a->nworkloads = ng;
	a->workloads = xmalloc((ng + 1) * sizeof(*a->workloads));
	a->cell_workload = xmalloc((n + 1) * sizeof(*a->cell_workload));
	a->workload_first = xmalloc((ng + 1) * sizeof(*a->workload_first));
	a->workload_cells = xmalloc((n + 1) * sizeof(*a->workload_cells));
	a->workload_e2e = xmalloc((ng + 1) * sizeof(*a->workload_e2e));
	size_t fill = 0;
	for (size_t w = 0; w < ng; w++) {
		size_t k = g[w][0];
		a->workloads[w] = a->cells[bn[k]].workload;
		a->workload_first[w] = fill;
		a->workload_e2e[w] = n;
		size_t first_e2e = n;
		for (; k < n && !strcmp(a->cells[bn[k]].workload, a->workloads[w]); k++) {
			size_t c = bn[k];
			a->cell_workload[c] = w;
			a->workload_cells[fill++] = c;
			if (strcmp(a->cells[c].kind, "e2e"))
				continue;
			if (strstr(a->cells[c].shape, "launch=graph") && a->workload_e2e[w] == n)
				a->workload_e2e[w] = c;
			if (first_e2e == n)
				first_e2e = c;
		}
		if (a->workload_e2e[w] == n)
			a->workload_e2e[w] = first_e2e;
		/* the group's place in name order: rank holds the starts in name order */
		size_t lo = 0, hi = ng;
		while (lo + 1 < hi) {
			size_t mid = (lo + hi) / 2;
			if (rank[mid] <= g[w][0])
				lo = mid;
			else
				hi = mid;
		}
		a->workload_byname[lo] = w;
	}
	a->workload_first[ng] = fill;
	free(rank);
	free(g);
	free(bn);
}

long analysis_workload(const struct analysis *a, const char *name)
{
	size_t lo = 0, hi = a->nworkloads;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		size_t w = a->workload_byname[mid];
		int d = strcmp(a->workloads[w], name);
		if (!d)
			return (long)w;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

size_t analysis_workload_e2e(const struct analysis *a, const char *workload)
{
	long w = analysis_workload(a, workload);
	return w < 0 ? a->ncells : a->workload_e2e[w];
}

char *analysis_mode_list(const struct analysis *a)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t m = 0; m < a->nmodes; m++)
		sbuf_addf(&sb, "%s'%s'", m ? ", " : "", a->modes[m]);
	return sbuf_detach(&sb);
}

char *analysis_cell_list(const struct analysis *a)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t c = 0; c < a->ncells; c++)
		sbuf_addf(&sb, "%s'%s'", c ? ", " : "", a->cells[c].name);
	return sbuf_detach(&sb);
}

static size_t add_mode(struct analysis *a, const char *name, size_t *cap)
{
	long m = analysis_mode(a, name);
	if (m >= 0)
		return (size_t)m;
	if (a->nmodes + 1 > *cap) {
		size_t n = *cap ? 2 * *cap : 8;
		a->modes = xrealloc(a->modes, n * sizeof(*a->modes));
		a->aa_of = xrealloc(a->aa_of, n * sizeof(*a->aa_of));
		a->measure = xrealloc(a->measure, n * sizeof(*a->measure));
		a->only = xrealloc(a->only, n * sizeof(*a->only));
		*cap = n;
	}
	a->modes[a->nmodes] = xstrdup(name);
	a->aa_of[a->nmodes] = NULL;
	a->measure[a->nmodes] = NULL;
	a->only[a->nmodes] = NULL;
	return a->nmodes++;
}

static void block_devices(struct analysis *a, const struct rec_unit *units, size_t nunits,
			  char **infos, size_t ninfos);

static size_t block_index(const struct analysis *a, int64_t block)
{
	size_t lo = 0, hi = a->nblocks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (a->blocks[mid] < block)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* Register a not-ok status (counted per mode once the modes are final). */
static void note_status(struct analysis *a, const char *status)
{
	for (size_t i = 0; i < a->nfailed; i++)
		if (!strcmp(a->failed[i].status, status))
			return;
	a->failed = xrealloc(a->failed, (a->nfailed + 1) * sizeof(*a->failed));
	a->failed[a->nfailed].status = xstrdup(status);
	a->failed[a->nfailed].count = NULL;
	a->nfailed++;
}

/* Modes (in declared order), A/A pairs, the workloads each runs, baseline and margin from the
 * recorded experiment,
 * when the file has one (an imported file has none).  The experiment is read as a past
 * run's (EXPERIMENT_PAST_RUN): a tuner, op or model that today's registries no longer know
 * is not an error.  When even that fails, what is lost is said on stderr and in every
 * report's warnings. */
static void from_experiment(struct analysis *a, size_t *cap)
{
	for (size_t i = 0; i < a->meta.nfiles; i++) {
		const struct rec_file *f = &a->meta.files[i];
		if (strcmp(f->role, "experiment"))
			continue;
		struct experiment *e = NULL;
		char *cause = NULL;
		struct exp_edits ed; /* the run's -D, --mode, --workload, applied again */
		int bad = exp_edits_from_json(rec_meta_get(&a->meta, "overrides"),
					      rec_meta_get(&a->meta, "mode_filter"),
					      rec_meta_get(&a->meta, "workload_filter"), &ed, &cause) ||
			  experiment_parse_edits(f->path, f->text, f->len,
						 EXPERIMENT_NO_FILE_CHECKS | EXPERIMENT_PAST_RUN, &ed,
						 &e, &cause);
		exp_edits_release(&ed);
		if (bad) {
			char *w = xasprintf("the recorded experiment does not parse (%s): the modes' "
					    "order, the baseline, the A/A pairs (aa_of) and the margin "
					    "it declares are not known; modes are taken from the units "
					    "in order of appearance, the first is the baseline", cause);
			warning("'%s': %s", a->path, w);
			a->warnings = xrealloc(a->warnings, (a->nwarnings + 1) * sizeof(*a->warnings));
			a->warnings[a->nwarnings++] = w;
			free(cause);
			return;
		}
		/* the experiment's modes come first, in its order, less those `only_on` another
		 * backend left out of this run (the run's mode_backends does not name them) */
		const char *mb = rec_meta_get(&a->meta, "mode_backends");
		for (size_t m = 0; m < e->nmodes; m++) {
			if (e->modes[m].only_on && mb) {
				char *key = xasprintf("\"%s\":{", e->modes[m].name);
				int ran = strstr(mb, key) != NULL;
				free(key);
				if (!ran)
					continue;
			}
			size_t k = add_mode(a, e->modes[m].name, cap);
			if (e->modes[m].aa_of)
				a->aa_of[k] = xstrdup(e->modes[m].aa_of);
			a->measure[k] = experiment_mode_measure_text(&e->modes[m]);
			if (e->modes[m].workloads) {
				const struct mode *md = &e->modes[m];
				a->only[k] = xcalloc(md->nworkloads + 1, sizeof(*a->only[k]));
				for (size_t w = 0; w < md->nworkloads; w++)
					a->only[k][w] = xstrdup(md->workloads[w]);
			}
			if (m == e->baseline)
				a->baseline = k;
		}
		a->margin = e->margin;
		experiment_free(e);
		return;
	}
}

/* The e2e_part lines of one unit's info into a->parts (vals[k * nunits_max + ...] would be
 * too big: values are appended per part and mode to growing lists, reduced to medians by
 * parts_finish). */
struct part_vals {
	double *v;
	size_t n, cap;
};

static void parts_take(struct analysis *a, const char *info, size_t m, struct part_vals **pv,
		       size_t *pv_cap)
{
	static const char prefix[] = "e2e_part.";
	for (const char *line = info; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *eq = memchr(line, '=', len);
		if (len > sizeof(prefix) && !strncmp(line, prefix, sizeof(prefix) - 1) && eq &&
		    eq - line > 3 + (long)sizeof(prefix) && !strncmp(eq - 3, "_ns", 3)) {
			const char *key = line + sizeof(prefix) - 1;
			const char *dot = NULL;
			for (const char *q = key; q < eq - 3; q++)
				if (*q == '.')
					dot = q;
			char *num = xstrndup(eq + 1, len - (size_t)(eq + 1 - line));
			int64_t ns;
			if (dot && dot > key && dot + 1 < eq - 3 && !parse_i64(num, 0, INT64_MAX, &ns)) {
				char *cell = xstrndup(key, (size_t)(dot - key));
				char *part = xstrndup(dot + 1, (size_t)(eq - 3 - dot - 1));
				size_t k = 0;
				while (k < a->nparts && (strcmp(a->parts[k].cell, cell) ||
							 strcmp(a->parts[k].part, part)))
					k++;
				if (k == a->nparts) {
					a->parts = xrealloc(a->parts, (k + 1) * sizeof(*a->parts));
					a->parts[k].cell = cell;
					a->parts[k].part = part;
					a->parts[k].ns = NULL;
					a->nparts++;
					XGROW(*pv, *pv_cap, a->nparts * a->nmodes);
					for (size_t j = k * a->nmodes; j < a->nparts * a->nmodes; j++)
						(*pv)[j] = (struct part_vals){ NULL, 0, 0 };
				} else {
					free(cell);
					free(part);
				}
				struct part_vals *x = &(*pv)[k * a->nmodes + m];
				XGROW(x->v, x->cap, x->n + 1);
				x->v[x->n++] = (double)ns;
			}
			free(num);
		}
		line = end ? end + 1 : NULL;
	}
}

static void parts_finish(struct analysis *a, struct part_vals *pv)
{
	for (size_t k = 0; k < a->nparts; k++) {
		a->parts[k].ns = xmalloc(a->nmodes * sizeof(double));
		for (size_t m = 0; m < a->nmodes; m++) {
			struct part_vals *x = &pv[k * a->nmodes + m];
			double *w = xmalloc((x->n ? x->n : 1) * sizeof(*w));
			a->parts[k].ns[m] = x->n ? stats_median(x->v, 1, x->n, w) : NAN;
			free(w);
			free(x->v);
		}
	}
	free(pv);
}

int analysis_runs(const struct analysis *a, size_t m, const char *workload)
{
	if (!a->only || !a->only[m])
		return 1;
	for (char **w = a->only[m]; *w; w++)
		if (!strcmp(*w, workload))
			return 1;
	return 0;
}

size_t analysis_column(const struct analysis *a, size_t m, size_t c, double *out)
{
	size_t n = 0;
	for (size_t b = 0; b < a->nblocks; b++)
		if (!isnan(an_med(a, m, c, b)))
			out[n++] = an_med(a, m, c, b);
	return n;
}

void analysis_variance(const struct analysis *a, size_t m, size_t c, double *unit_se,
		       struct stats_vc *vc)
{
	size_t nb = a->nblocks, n = 0;
	const double *med = &a->med[(m * a->ncells + c) * nb];
	const double *rse = &a->rel_se[(m * a->ncells + c) * nb];
	double *se = xmalloc((nb ? nb : 1) * sizeof(*se)), *w = xmalloc((nb ? nb : 1) * sizeof(*w));
	stats_variance_components(med, rse, nb, vc);
	for (size_t b = 0; b < nb; b++)
		if (!isnan(med[b]) && !isnan(rse[b]))
			se[n++] = rse[b];
	*unit_se = stats_median(se, 1, n, w);
	free(se);
	free(w);
}

/* /choices into a->choice: each ok cold unit's chosen config per cell.  -1 reported. */
static int take_choices(struct analysis *a, struct rec *r, const struct rec_unit *units,
			size_t nunits, char **infos, size_t ninfos)
{
	int64_t *row = NULL;
	struct rec_choice *ch = NULL;
	size_t n = 0, nc = a->ncells, nb = a->nblocks;
	if (rec_read_choices(r, &row, &ch, &n))
		return -1;
	size_t kept = 0;
	a->choice = xcalloc(a->nmodes * nc * nb + 1, sizeof(*a->choice));
	a->detail = xcalloc(a->nmodes * nc * nb + 1, sizeof(*a->detail));
	for (size_t i = 0; i < n; i++) {
		const struct rec_unit *u = &units[row[i]]; /* rec_read_choices checked both */
		if (u->warm || strcmp(u->status, REC_STATUS_OK) || !strcmp(ch[i].reason, "imported"))
			continue;
		kept++;
		size_t m = (size_t)analysis_mode(a, u->mode), b = block_index(a, u->block);
		size_t at = (m * nc + (size_t)ch[i].cell) * nb + b;
		free(a->choice[at]);
		a->choice[at] = xstrdup(ch[i].config);
		free(a->detail[at]);
		a->detail[at] = NULL;
		if ((size_t)row[i] < ninfos) {
			char *key = xasprintf("runtime.%s", a->cells[ch[i].cell].name);
			a->detail[at] = rec_info_dup(infos[row[i]], key);
			free(key);
		}
	}
	rec_choices_free(row, ch, n);
	if (!kept) { /* no unit recorded a choice (an imported file's are placeholders) */
		free(a->choice);
		free(a->detail);
		a->choice = NULL;
		a->detail = NULL;
	}
	return 0;
}

/* a->planned: the plan's units and which are recorded, when some is not. */
static int take_plan(struct analysis *a, struct rec *r, const struct rec_unit *units,
		     size_t nunits)
{
	struct rec_plan *plan = NULL;
	size_t n = 0, nrec = 0;
	if (rec_read_plan(r, &plan, &n))
		return -1;
	char *rec = xcalloc(n + 1, 1);
	int64_t *wall = xcalloc(n + 1, sizeof(*wall));
	for (size_t i = 0; i < nunits; i++) {
		int64_t id = units[i].id;
		if (id >= 0 && (size_t)id < n && !rec[id]) {
			rec[id] = 1;
			wall[id] = units[i].wall_ns > 0 ? units[i].wall_ns : 0;
			nrec++;
		}
	}
	if (nrec < n) {
		a->planned = xcalloc(n, sizeof(*a->planned));
		a->nplanned = n;
		for (size_t i = 0; i < n; i++)
			a->planned[i] = (struct an_planned){
				.mode = xstrdup(plan[i].mode),
				.workload = xstrdup(plan[i].workload ? plan[i].workload : ""),
				.block = plan[i].block,
				.warm = plan[i].warm,
				.recorded = rec[i],
				.wall_ns = wall[i],
			};
	}
	free(wall);
	free(rec);
	rec_plan_free(plan, n);
	return 0;
}

int analysis_load(const char *path, struct analysis **out)
{
	struct analysis *a = xcalloc(1, sizeof(*a));
	struct rec *r = NULL;
	struct rec_unit *units = NULL;
	struct rec_cell *cells = NULL;
	char **infos = NULL;
	struct part_vals *pv = NULL;
	long *local = NULL; /* per cell of the run: its number in the unit read now, or -1 */
	size_t nunits = 0, ncells = 0, modes_cap = 0, ninfos = 0, pv_cap = 0;
	int ret = -1;
	a->path = xstrdup(path);
	a->margin = NAN;
	rec_meta_init(&a->meta);
	*out = NULL;

	if (rec_open(path, 0, &r) || rec_read_meta(r, &a->meta) || rec_read_units(r, &units, &nunits) ||
	    rec_read_cells(r, &cells, &ncells))
		goto done;
	if (nunits == 0) {
		error("'%s' holds no units", path);
		goto done;
	}
	from_experiment(a, &modes_cap);
	for (size_t i = 0; i < nunits; i++)
		add_mode(a, units[i].mode, &modes_cap);
	if (a->baseline >= a->nmodes)
		a->baseline = 0;
	const char *pairing = rec_meta_get(&a->meta, "pairing");
	a->paired = !(pairing && !strcmp(pairing, "none"));
	/* an imported file names its baseline in the metadata */
	const char *bl = rec_meta_get(&a->meta, "baseline");
	if (bl && analysis_mode(a, bl) >= 0)
		a->baseline = (size_t)analysis_mode(a, bl);

	a->ncells = ncells;
	a->cells = xcalloc(ncells ? ncells : 1, sizeof(*a->cells));
	for (size_t c = 0; c < ncells; c++) {
		a->cells[c].name = xstrdup(cells[c].name);
		a->cells[c].kind = xstrdup(cells[c].kind);
		a->cells[c].workload = xstrdup(cells[c].workload);
		a->cells[c].shape = xstrdup(cells[c].shape ? cells[c].shape : "");
		a->cells[c].count = cells[c].count;
	}
	analysis_index_workloads(a);
	if (rec_read_unit_infos(r, &infos, &ninfos))
		goto done;
	int64_t *blocks = xmalloc(nunits * sizeof(*blocks));
	for (size_t i = 0; i < nunits; i++)
		blocks[i] = units[i].block;
	qsort(blocks, nunits, sizeof(*blocks), cmp_i64);
	for (size_t i = 0; i < nunits; i++)
		if (i == 0 || blocks[i] != blocks[i - 1])
			blocks[a->nblocks++] = blocks[i];
	a->blocks = blocks;

	size_t nm = a->nmodes, nb = a->nblocks;
	a->med = xmalloc(nm * ncells * nb * sizeof(*a->med));
	a->rel_se = xmalloc(nm * ncells * nb * sizeof(*a->rel_se));
	for (size_t i = 0; i < nm * ncells * nb; i++)
		a->med[i] = a->rel_se[i] = NAN;
	a->setup = xmalloc(nm * ncells * nb * sizeof(*a->setup));
	for (size_t i = 0; i < nm * ncells * nb; i++)
		a->setup[i] = NAN;
	a->order = xmalloc(nm * nb * sizeof(*a->order));
	for (size_t i = 0; i < nm * nb; i++)
		a->order[i] = NAN;
	a->units_ok = xcalloc(nm, sizeof(*a->units_ok));
	a->units_all = xcalloc(nm, sizeof(*a->units_all));
	local = xmalloc((ncells + 1) * sizeof(*local));
	for (size_t c = 0; c < ncells; c++)
		local[c] = -1;

	for (size_t i = 0; i < nunits; i++) {
		const struct rec_unit *u = &units[i];
		size_t m = (size_t)analysis_mode(a, u->mode), b = block_index(a, u->block);
		if (u->warm) {
			a->warm_units++;
			continue;
		}
		a->units_all[m]++;
		if (strcmp(u->status, REC_STATUS_OK)) {
			note_status(a, u->status);
			continue;
		}
		a->units_ok[m]++;
		if (i < ninfos)
			parts_take(a, infos[i], m, &pv, &pv_cap);
		/* the unit's setup goes to the cells it measured (under unit_scope = "workload"
		 * a mode has a unit per workload in a block, each with its own compile); the
		 * mode's place in the block's run order is its first unit's */
		double st = (double)(u->compile_ns + u->tune_ns + u->search_ns) / 1e9;
		if (isnan(a->order[m * nb + b]))
			a->order[m * nb + b] = (double)i;
		int64_t *cell = NULL, *ns = NULL;
		size_t n = 0;
		if (rec_read_unit_samples(r, i, &cell, &ns, &n))
			goto done;
		a->nsamples += (int64_t)n;
		/* the unit's own cells numbered 0, 1, ... (local: a run's cell -> its number, all
		 * -1 between units), so that a unit costs time in its samples, not in the run's
		 * cells (a unit per workload of 100,000 cells) */
		size_t nl = 0, *glob = xmalloc((n + 1) * sizeof(*glob));
		for (size_t j = 0; j < n; j++) {
			int64_t g = cell[j];
			if (g >= 0 && (size_t)g < ncells && local[g] < 0) {
				local[g] = (long)nl;
				glob[nl++] = (size_t)g;
			}
			cell[j] = g >= 0 && (size_t)g < ncells ? local[g] : -1;
		}
		double *med = xmalloc(2 * (nl + 1) * sizeof(*med)), *se = med + nl;
		stats_cell_medians_se(cell, ns, n, nl, med, se);
		for (size_t k = 0; k < nl; k++) {
			size_t c = glob[k];
			local[c] = -1;
			if (isnan(med[k]))
				continue;
			a->med[(m * ncells + c) * nb + b] = med[k];
			a->rel_se[(m * ncells + c) * nb + b] = se[k];
			double *sc = &a->setup[(m * ncells + c) * nb + b];
			*sc = isnan(*sc) ? st : *sc + st;
		}
		free(glob);
		free(med);
		free(cell);
		free(ns);
	}
	parts_finish(a, pv);
	pv = NULL;
	if (take_choices(a, r, units, nunits, infos, ninfos))
		goto done;
	/* failed-unit counts per mode, now that the modes are final */
	for (size_t k = 0; k < a->nfailed; k++)
		a->failed[k].count = xcalloc(nm, sizeof(size_t));
	for (size_t i = 0; i < nunits; i++) {
		const struct rec_unit *u = &units[i];
		if (u->warm || !strcmp(u->status, REC_STATUS_OK))
			continue;
		for (size_t k = 0; k < a->nfailed; k++)
			if (!strcmp(a->failed[k].status, u->status))
				a->failed[k].count[analysis_mode(a, u->mode)]++;
	}
	block_devices(a, units, nunits, infos, ninfos);
	if (take_plan(a, r, units, nunits))
		goto done;
	*out = a;
	a = NULL;
	ret = 0;
done:
	if (pv) {
		for (size_t k = 0; k < a->nparts * a->nmodes; k++)
			free(pv[k].v);
		free(pv);
	}
	for (size_t i = 0; i < ninfos; i++)
		free(infos[i]);
	free(infos);
	free(local);
	rec_units_free(units, nunits);
	rec_cells_free(cells, ncells);
	rec_close(r);
	analysis_free(a);
	return ret;
}

const char *analysis_unit_gpu(const char *info, char *buf, size_t n)
{
	if (*rec_info_get(info, "gpu_open_gpu_uuid", buf, n) || n < 5)
		return buf;
	if (!*rec_info_get(info, "gpu_uuid", buf + 4, n - 4))
		buf[0] = '\0';
	else if (!strncmp(buf + 4, "GPU-", 4))
		memmove(buf, buf + 4, strlen(buf + 4) + 1);
	else
		memcpy(buf, "GPU-", 4);
	return buf;
}

/* The devices the units ran on (the slot's, else the GPU the unit names), each unit's and
 * each block's (AN_SPLIT when its units ran on more than one).  Skipped units never ran and
 * name none; warm probes and failed units count. */
static void block_devices(struct analysis *a, const struct rec_unit *units, size_t nunits,
			  char **infos, size_t ninfos)
{
	a->block_device = xmalloc((a->nblocks + 1) * sizeof(*a->block_device));
	for (size_t b = 0; b < a->nblocks; b++)
		a->block_device[b] = AN_NO_DEVICE;
	a->unit_device = xmalloc((nunits + 1) * sizeof(*a->unit_device));
	for (size_t i = 0; i < nunits; i++) {
		const struct rec_unit *u = &units[i];
		char gpu[128];
		const char *dev = u->device && *u->device ? u->device
				  : i < ninfos ? analysis_unit_gpu(infos[i], gpu, sizeof(gpu)) : "";
		a->unit_device[i] = AN_NO_DEVICE;
		if (!*dev || !strcmp(u->status, REC_STATUS_SKIPPED))
			continue;
		size_t d = 0;
		while (d < a->ndevices && strcmp(a->devices[d], dev))
			d++;
		if (d == a->ndevices) {
			a->devices = xrealloc(a->devices, (d + 1) * sizeof(*a->devices));
			a->devices[a->ndevices++] = xstrdup(dev);
		}
		a->unit_device[i] = (long)d;
		long *bd = &a->block_device[block_index(a, u->block)];
		if (*bd == AN_NO_DEVICE)
			*bd = (long)d;
		else if (*bd >= 0 && *bd != (long)d)
			*bd = AN_SPLIT;
	}
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void analysis_device_level(const struct analysis *a, size_t m, size_t c, long d,
			   struct an_level *out)
{
	double *v = xmalloc((a->nblocks + 1) * sizeof(*v));
	size_t n = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		double x = an_med(a, m, c, b);
		if (a->block_device[b] == d && !isnan(x) && x > 0)
			v[n++] = log(x);
	}
	out->n = n;
	out->level = out->spread = out->se2 = NAN;
	if (n) {
		out->level = median_of(v, n);
		for (size_t i = 0; i < n; i++)
			v[i] = fabs(v[i] - out->level);
		out->spread = 1.4826 * median_of(v, n);
		if (n > 1)
			out->se2 = out->spread * out->spread / (double)n;
	}
	free(v);
}

int analysis_levels_differ(const struct an_level *x, const struct an_level *y, double *diff,
			   double *two_se)
{
	*diff = *two_se = NAN;
	if (x->n < 2 || y->n < 2)
		return 0;
	*diff = fabs(x->level - y->level);
	*two_se = 2 * sqrt(x->se2 + y->se2);
	return *diff > *two_se;
}

void analysis_free(struct analysis *a)
{
	if (!a)
		return;
	for (size_t d = 0; d < a->ndevices; d++)
		free(a->devices[d]);
	free(a->devices);
	free(a->block_device);
	free(a->unit_device);
	for (size_t i = 0; i < a->nplanned; i++) {
		free(a->planned[i].mode);
		free(a->planned[i].workload);
	}
	free(a->planned);
	for (size_t i = 0; i < a->nmodes; i++) {
		free(a->modes[i]);
		if (a->aa_of)
			free(a->aa_of[i]);
		if (a->measure)
			free(a->measure[i]);
		for (char **w = a->only ? a->only[i] : NULL; w && *w; w++)
			free(*w);
		if (a->only)
			free(a->only[i]);
	}
	for (size_t i = 0; a->choice && i < a->nmodes * a->ncells * a->nblocks; i++) {
		free(a->choice[i]);
		free(a->detail[i]);
	}
	free(a->choice);
	free(a->detail);
	free(a->modes);
	free(a->aa_of);
	free(a->measure);
	free(a->only);
	for (size_t c = 0; c < a->ncells; c++) {
		free(a->cells[c].name);
		free(a->cells[c].kind);
		free(a->cells[c].workload);
		free(a->cells[c].shape);
	}
	free(a->cells);
	free_workload_index(a);
	for (size_t k = 0; k < a->nfailed; k++) {
		free(a->failed[k].status);
		free(a->failed[k].count);
	}
	free(a->failed);
	for (size_t i = 0; i < a->nparts; i++) {
		free(a->parts[i].cell);
		free(a->parts[i].part);
		free(a->parts[i].ns);
	}
	free(a->parts);
	for (size_t i = 0; i < a->nwarnings; i++)
		free(a->warnings[i]);
	free(a->warnings);
	free(a->blocks);
	free(a->med);
	free(a->rel_se);
	free(a->setup);
	free(a->order);
	free(a->units_ok);
	free(a->units_all);
	rec_meta_release(&a->meta);
	free(a->path);
	free(a);
}
