/* experiment-tuners.c: each mode's tuner's check of its options against the op spaces its
 * workloads produce, and the files the tuners name: the lut table, model-topk's training
 * files, the external tuner's command (experiment-int.h) */
#include "config.h"
#include "harness/config/experiment.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/util.h"
#include "harness/config/experiment-int.h"
#include "harness/config/lut.h"
#include "harness/config/toml-bridge.h"
#include "harness/config/tomlcheck.h"
#include "kernels/backend.h"
#include "kernels/catalog.h"
#include "kernels/tuner.h"

/* The op spaces a mode's workloads produce, shape-free, for its tuner's check of field
 * names: its backend's (mode_backend), or every built backend's when that is "auto".  A
 * model workload may use any op.  Heap array of *n spaces. */
static struct space *mode_spaces(const struct experiment *e, const struct mode *m, size_t *n)
{
	const char *want = mode_backend(e, m);
	int any = !want || !strcmp(want, "auto");
	struct space *sp = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t b = 0; backend_registry[b].name; b++) {
		const struct backend_ops *ops = backend_registry[b].ops;
		if (!ops || !ops->op_space || (!any && strcmp(backend_registry[b].name, want)))
			continue;
		for (size_t k = 0; k < catalog_nops; k++) {
			const char *op = catalog_ops[k].name;
			int used = 0;
			for (size_t w = 0; w < e->nworkloads && !used; w++)
				used = e->workloads[w].kind == WORKLOAD_MODEL ||
				       (e->workloads[w].op && !strcmp(e->workloads[w].op, op));
			if (!used)
				continue;
			XGROW(sp, cap, *n + 1);
			if (ops->op_space(op, &sp[*n]) == 0)
				(*n)++;
		}
	}
	return sp;
}

/* A "lut" mode's table: options.table, relative to the experiment file's folder unless
 * absolute; a unit (EXPERIMENT_NO_FILE_CHECKS, reading the run folder's copy of the
 * experiment) reads the run folder's copy, tables/MODE.toml (experiment_write_tables).
 * A table that cannot be read or is malformed is an error at check time; in a unit it is
 * kept as the table's error, and the tuner falls back to the heuristic, saying why. */
static int load_table(struct tc_parser *p, struct mode *m)
{
	const struct tuner_option *o = tuner_option_find(m->options, m->noptions, "table");
	if (!o || o->type != TUNER_OPT_STRING || !o->s || !*o->s)
		return tc_fail(p, (struct tb_pos){ m->line, m->col },
			       "mode '%s': tuner 'lut' needs options.table, the path of its lookup "
			       "table", m->name);
	const char *slash = strrchr(p->path, '/');
	char *dir = slash ? xstrndup(p->path, slash == p->path ? 1 : (size_t)(slash - p->path))
			  : xstrdup(".");
	char *full;
	if (p->flags & EXPERIMENT_NO_FILE_CHECKS)
		full = experiment_table_path(dir, m->name);
	else
		full = o->s[0] == '/' || !slash ? xstrdup(o->s) : xasprintf("%s/%s", dir, o->s);
	m->lut = xcalloc(1, sizeof(*m->lut));
	int ret = 0;
	if (lut_read(full, full, m->lut) &&
	    !(p->flags & EXPERIMENT_NO_FILE_CHECKS)) {
		p->cause = xasprintf("%s (the lookup table of mode '%s', 'table' at '%s':%d:%d)",
				     m->lut->error, m->name, p->path, o->line, o->col);
		ret = -1;
	}
	free(full);
	free(dir);
	return ret;
}

/* A "model-topk" mode's training files: options.train (a path or a list of them), each
 * relative to the experiment file's folder unless absolute, each a readable regular file at
 * check time (an error at its line:col); in a unit, the run folder's copies. */
static int resolve_train(struct tc_parser *p, struct mode *m)
{
	const struct tuner_option *o = tuner_option_find(m->options, m->noptions, "train");
	if (!o)
		return 0;
	const struct tuner_option *one[1] = { o };
	size_t n = o->type == TUNER_OPT_LIST ? o->nitems : 1;
	const char *slash = strrchr(p->path, '/');
	char *dir = slash ? xstrndup(p->path, slash == p->path ? 1 : (size_t)(slash - p->path))
			  : xstrdup(".");
	int ret = 0;
	m->train = xcalloc(n + 1, sizeof(*m->train));
	for (size_t k = 0; k < n && !ret; k++) {
		const struct tuner_option *e = o->type == TUNER_OPT_LIST ? &o->items[k] : one[0];
		char *full;
		if (p->flags & EXPERIMENT_NO_FILE_CHECKS)
			full = experiment_train_path(dir, m->name, k);
		else
			full = e->s[0] == '/' || !slash ? xstrdup(e->s) : xasprintf("%s/%s", dir, e->s);
		struct stat st;
		if (!(p->flags & EXPERIMENT_NO_FILE_CHECKS) &&
		    (stat(full, &st) != 0 || !S_ISREG(st.st_mode) || access(full, R_OK) != 0))
			ret = tc_fail(p, (struct tb_pos){ e->line, e->col },
				      "training file '%s' cannot be read (looked for '%s'%s%s)", e->s,
				      full, errno ? ": " : "", errno ? strerror(errno) : "");
		m->train[m->ntrain++] = full;
	}
	free(dir);
	return ret;
}

/* An "external" mode's command (options.command, docs/tuner-protocol.md): required; its
 * paths made absolute the way a command mode's are (parse_command), since the tuner starts
 * in the unit's cache folder: a program with a '/' must name a file in the experiment's
 * folder or the kernel folder, a later argument not starting with '-' that names a file
 * there is made absolute, the rest is passed as written.  A unit's copy is not resolved. */
static int resolve_external(struct tc_parser *p, struct mode *m)
{
	struct tuner_option *o = NULL;
	for (size_t i = 0; i < m->noptions && !o; i++)
		if (!strcmp(m->options[i].key, "command"))
			o = &m->options[i];
	if (!o)
		return tc_fail(p, (struct tb_pos){ m->line, m->col },
			       "mode '%s': tuner 'external' needs options.command, the tuner "
			       "program's argv", m->name);
	if (p->flags & (EXPERIMENT_NO_FILE_CHECKS | EXPERIMENT_PAST_RUN))
		return 0;
	char **v = NULL;
	size_t n = 0, cap = 0;
	if (o->type == TUNER_OPT_LIST) {
		for (size_t i = 0; i < o->nitems; i++) {
			XGROW(v, cap, n + 1);
			v[n++] = xstrdup(o->items[i].s);
		}
	} else {
		for (const char *s = o->s; *s;) { /* one string: split at spaces, as the tuner does */
			size_t len = strcspn(s, " ");
			if (len) {
				XGROW(v, cap, n + 1);
				v[n++] = xstrndup(s, len);
			}
			s += len + strspn(s + len, " ");
		}
	}
	char *dir = exp_experiment_dir(p->path);
	int ret = 0;
	struct sbuf joined;
	sbuf_init(&joined);
	for (size_t i = 0; i < n; i++) {
		char *r = (i == 0 ? strchr(v[i], '/') != NULL : (*v[i] && *v[i] != '-'))
				  ? exp_resolve_in(dir, v[i]) : NULL;
		if (!r && i == 0 && strchr(v[i], '/') && !ret)
			ret = tc_fail(p, (struct tb_pos){ o->line, o->col },
				      "mode '%s': tuner program '%s' not found in the experiment's "
				      "folder, the working folder or the kernel folder "
				      "($HARNESS_KERNEL_DIR)", m->name, v[i]);
		if (r) {
			free(v[i]);
			v[i] = r;
		}
		sbuf_addf(&joined, "%s%s", i ? " " : "", v[i]);
		if (o->type == TUNER_OPT_LIST) {
			free(o->items[i].s);
			o->items[i].s = xstrdup(v[i]);
		}
	}
	if (o->type == TUNER_OPT_STRING) {
		free(o->s);
		o->s = sbuf_detach(&joined);
	}
	sbuf_release(&joined);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(dir);
	return ret;
}

/* Each mode's tuner checks its options, seeing the spaces of the experiment's ops. */
int exp_check_tuner_options(struct tc_parser *p, const struct experiment *e)
{
	int ret = 0;
	for (size_t i = 0; i < e->nmodes && !ret; i++) {
		const struct mode *m = &e->modes[i];
		/* a past run's options are not today's tuners' to judge */
		const struct tuner_ops *ops = p->flags & EXPERIMENT_PAST_RUN ? NULL : tuner_find(m->tuner);
		if (!ops || !ops->check_options)
			continue;
		size_t nsp = 0;
		struct space *sp = mode_spaces(e, m, &nsp);
		const struct space **spp = xcalloc(nsp ? nsp : 1, sizeof(*spp));
		for (size_t k = 0; k < nsp; k++)
			spp[k] = &sp[k];
		struct tuner_check c = { .options = m->options, .noptions = m->noptions,
					 .spaces = spp, .nspaces = nsp };
		char *cause = NULL;
		if (ops->check_options(&c, &cause)) {
			if (cause)
				p->cause = xasprintf("'%s':%s", p->path, cause);
			else
				tc_fail(p, (struct tb_pos){ m->line, m->col },
					"invalid options for tuner '%s'", m->tuner);
			free(cause);
			ret = -1;
		} else if (!strcmp(m->tuner, "lut")) {
			ret = load_table(p, &e->modes[i]);
		} else if (!strcmp(m->tuner, "model-topk")) {
			errno = 0;
			ret = resolve_train(p, &e->modes[i]);
		} else if (!strcmp(m->tuner, "external")) {
			ret = resolve_external(p, &e->modes[i]);
		}
		free(spp);
		free(sp);
	}
	return ret;
}
