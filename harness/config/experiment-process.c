/* experiment-process.c: a command mode's `timing` and, with timing = "process", the keys of
 * a command the harness times itself (runs, warmup, setup, prepare, cleanup, workdir,
 * ignore_failure; experiment-int.h) */
#include "config.h"
#include "harness/config/experiment.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/util.h"
#include "harness/config/experiment-int.h"
#include "harness/config/toml-bridge.h"
#include "harness/config/tomlcheck.h"

static const char *const timing_names[] = { "protocol", "process", NULL };

const char *mode_timing_name(enum mode_timing t)
{
	return t == TIMING_PROCESS ? "process" : "protocol";
}

/* A hook command: a string, run as `sh -c STRING`, or an argv (a non-empty list of strings,
 * its program searched in the unit's PATH). */
static int get_hook(struct tc_parser *p, const struct tc_field *f, char ***out)
{
	char **v = NULL;
	size_t n = 0;
	if (tb_node_kind(f->v) == TB_STRING) {
		char *s = NULL;
		if (exp_get_string(p, f, &s))
			return -1;
		v = xcalloc(4, sizeof(*v));
		v[0] = xstrdup("sh");
		v[1] = xstrdup("-c");
		v[2] = s;
		*out = v;
		return 0;
	}
	if (tb_node_kind(f->v) != TB_ARRAY)
		return tc_fail(p, f->pos, "'%s' must be a shell line (a string, run with sh -c) or "
			       "an argv (a list of strings), not %s", f->key,
			       tb_kind_phrase(tb_node_kind(f->v)));
	if (exp_get_string_list(p, f, &v, &n))
		return -1;
	*out = xrealloc(v, (n + 1) * sizeof(*v));
	(*out)[n] = NULL;
	if (n == 0 || !*(*out)[0])
		return tc_fail(p, f->pos, "'%s' must name a program (an argv: [\"prog\", \"arg\", "
			       "...], or a shell line)", f->key);
	return 0;
}

int exp_parse_mode_process_key(struct tc_parser *p, const struct tc_field *g, struct mode *m,
			       struct tc_field *first)
{
	struct mode_process *x = &m->process;
	int r, k = 0;
	if (!strcmp(g->key, "timing")) {
		r = exp_get_enum(p, g, timing_names, &k);
		m->timing = (enum mode_timing)k;
		return r;
	}
	if (!strcmp(g->key, "runs")) {
		r = exp_get_int(p, g, 1, MAX_SAMPLES, &x->runs);
	} else if (!strcmp(g->key, "warmup")) {
		r = exp_get_int(p, g, 0, MAX_SAMPLES, &x->warmup);
	} else if (!strcmp(g->key, "setup")) {
		r = get_hook(p, g, &x->setup);
	} else if (!strcmp(g->key, "prepare")) {
		r = get_hook(p, g, &x->prepare);
	} else if (!strcmp(g->key, "cleanup")) {
		r = get_hook(p, g, &x->cleanup);
	} else if (!strcmp(g->key, "ignore_failure")) {
		r = exp_get_bool(p, g, &x->ignore_failure);
	} else if (!strcmp(g->key, "workdir")) {
		r = exp_get_string(p, g, &x->workdir);
		struct stat st;
		/* absolute: the run folder's copy of the experiment, read from elsewhere by
		 * --resume, names the same folder */
		if (!r && x->workdir[0] != '/')
			r = tc_fail(p, g->pos, "'workdir' must be an absolute path (the run folder's "
				    "copy of this file is read from another folder), not '%s'",
				    x->workdir);
		else if (!r && !(p->flags & (EXPERIMENT_NO_FILE_CHECKS | EXPERIMENT_PAST_RUN)) &&
			 (stat(x->workdir, &st) < 0 || !S_ISDIR(st.st_mode)))
			r = tc_fail(p, g->pos, "'workdir' '%s' is not a folder", x->workdir);
	} else {
		return 1;
	}
	if (!first->key)
		*first = *g;
	return r;
}

int exp_check_mode_process(struct tc_parser *p, struct mode *m, int has_command,
			   struct tb_pos timing, const struct tc_field *first, int has_measure,
			   struct tb_pos measure, int has_expects, struct tb_pos expects)
{
	if (m->timing == TIMING_PROCESS) {
		if (!has_command)
			return tc_fail(p, timing, "mode '%s' has timing = \"process\" but no 'command' "
				       "to time", m->name);
		if (has_measure)
			return tc_fail(p, measure, "mode '%s' times its command's processes: it "
				       "takes 'runs' and 'warmup', not [modes.measure]", m->name);
		if (has_expects)
			return tc_fail(p, expects, "mode '%s' times its command's processes, which "
				       "record no compiles or benchmarks: it has no 'expects'",
				       m->name);
		if (!m->process.runs)
			m->process.runs = MODE_PROCESS_DEFAULT_RUNS;
		return 0;
	}
	if (timing.line && !has_command)
		return tc_fail(p, timing, "'timing' is for modes that run a 'command'");
	if (first->key)
		return tc_fail(p, first->key_pos, "mode '%s': '%s' is for timing = \"process\" (the "
			       "harness times the command's processes), and the mode's timing is "
			       "\"protocol\"", m->name, first->key);
	return 0;
}

int mode_process_equal(const struct mode *a, const struct mode *b)
{
	const struct mode_process *x = &a->process, *y = &b->process;
	return a->timing == b->timing && x->runs == y->runs && x->warmup == y->warmup &&
	       x->ignore_failure == y->ignore_failure && exp_strv_equal(x->setup, y->setup) &&
	       exp_strv_equal(x->prepare, y->prepare) && exp_strv_equal(x->cleanup, y->cleanup) &&
	       !strcmp(x->workdir ? x->workdir : "", y->workdir ? y->workdir : "");
}

static void strv_free(char **v)
{
	for (char **q = v; q && *q; q++)
		free(*q);
	free(v);
}

void exp_free_mode_process(struct mode *m)
{
	strv_free(m->process.setup);
	strv_free(m->process.prepare);
	strv_free(m->process.cleanup);
	free(m->process.workdir);
	memset(&m->process, 0, sizeof(m->process));
}
