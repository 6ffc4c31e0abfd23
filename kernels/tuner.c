/* tuner.c: the tuner table, lookup by name, and helpers shared by the tuners */
#include "config.h"
#include "kernels/tuner.h"

#include <string.h>

extern const struct tuner_ops tuner_vendor;
extern const struct tuner_ops tuner_heuristic;
extern const struct tuner_ops tuner_exhaustive;

const struct tuner_ops *const tuner_table[] = {
	&tuner_vendor,
	&tuner_heuristic,
	&tuner_exhaustive,
	NULL,
};

const struct tuner_ops *tuner_find(const char *name)
{
	for (size_t i = 0; tuner_table[i]; i++)
		if (!strcmp(tuner_table[i]->name, name))
			return tuner_table[i];
	return NULL;
}

const char *trial_status_name(enum trial_status s)
{
	switch (s) {
	case TRIAL_OK: return "ok";
	case TRIAL_COMPILE_ERROR: return "compile-error";
	case TRIAL_INCORRECT: return "incorrect";
	case TRIAL_FAILED: return "failed";
	}
	return "unknown";
}

/* The known key closest to key by edit distance, or NULL when none is close (<= 3). */
static const char *closest(const char *key, const char *const *known)
{
	const char *best = NULL;
	size_t dist = 4;
	for (size_t i = 0; known[i]; i++) {
		size_t d = util_edit_distance(key, known[i]);
		if (d < dist) {
			dist = d;
			best = known[i];
		}
	}
	return best;
}

int tuner_check_known_options(const struct tuner_ops *t, const struct mode *m,
			      const char *const *known, char **cause)
{
	for (size_t i = 0; i < m->noptions; i++) {
		const struct option *o = &m->options[i];
		size_t k = 0;
		while (known && known[k] && strcmp(known[k], o->key))
			k++;
		if (known && known[k])
			continue;
		if (!known || !known[0]) {
			*cause = xasprintf("%d:%d: tuner '%s' takes no options (got '%s')", o->line,
					   o->col, t->name, o->key);
			return -1;
		}
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_addf(&sb, "%d:%d: unknown option '%s' for tuner '%s'", o->line, o->col, o->key,
			  t->name);
		const char *near = closest(o->key, known);
		if (near) {
			sbuf_addf(&sb, " (did you mean '%s'?)", near);
		} else {
			sbuf_adds(&sb, " (options:");
			for (size_t j = 0; known[j]; j++)
				sbuf_addf(&sb, "%s '%s'", j ? "," : "", known[j]);
			sbuf_adds(&sb, ")");
		}
		*cause = sbuf_detach(&sb);
		return -1;
	}
	return 0;
}
