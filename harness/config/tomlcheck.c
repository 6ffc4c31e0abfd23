/* tomlcheck.c: shared pieces of the TOML schema walkers (see tomlcheck.h) */
#include "config.h"
#include "harness/config/tomlcheck.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"

struct tc_field tc_field_at(const struct tb_node *t, size_t i)
{
	struct tc_field f;
	f.key = tb_node_key(t, i);
	f.key_pos = tb_node_key_pos(t, i);
	f.v = tb_node_at(t, i);
	f.pos = tb_node_pos(f.v);
	return f;
}

struct tb_pos tc_set_pos(size_t k)
{
	return (struct tb_pos){ -(int)k - 1, 0 };
}

int tc_fail(struct tc_parser *p, struct tb_pos pos, const char *fmt, ...)
{
	if (p->cause)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (pos.line < 0 && (size_t)-(pos.line + 1) < p->nsets)
		p->cause = xasprintf("'%s': -D %s: %s", p->path, p->sets[-(pos.line + 1)], msg);
	else if (pos.line == 0)
		p->cause = xasprintf("'%s': %s", p->path, msg);
	else
		p->cause = xasprintf("'%s':%d:%d: %s", p->path, pos.line, pos.col, msg);
	free(msg);
	return -1;
}

const char *tc_suggest(const char *word, const char *const *known)
{
	const char *best = NULL;
	size_t bestd = 3, len = strlen(word);
	for (size_t i = 0; known[i]; i++) {
		size_t d = util_edit_distance(word, known[i]);
		if (d < bestd && d < len) {
			bestd = d;
			best = known[i];
		}
	}
	return best;
}

char *tc_join(const char *const *words)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; words[i]; i++)
		sbuf_addf(&sb, "%s%s", i ? ", " : "", words[i]);
	return sbuf_detach(&sb);
}

int tc_unknown_key(struct tc_parser *p, const struct tc_field *f, const char *const *known,
		   const char *where)
{
	const char *s = tc_suggest(f->key, known);
	if (s)
		return tc_fail(p, f->key_pos, "unknown key '%s'%s (did you mean '%s'?)", f->key,
			       where, s);
	return tc_fail(p, f->key_pos, "unknown key '%s'%s", f->key, where);
}

int tc_want_kind(struct tc_parser *p, const struct tc_field *f, enum tb_kind k)
{
	enum tb_kind got = tb_node_kind(f->v);
	if (got == k)
		return 0;
	return tc_fail(p, f->pos, "'%s' must be %s, not %s", f->key, tb_kind_phrase(k),
		       tb_kind_phrase(got));
}

int tc_get_string_array(struct tc_parser *p, const struct tc_field *f, tc_string_getter get,
			char ***out, size_t *n)
{
	size_t len = tb_node_len(f->v);
	*out = xcalloc(len ? len : 1, sizeof(**out));
	*n = len;
	for (size_t i = 0; i < len; i++) {
		struct tc_field g = { f->key, f->key_pos, tb_node_at(f->v, i), { 0, 0 } };
		g.pos = tb_node_pos(g.v);
		if (tb_node_kind(g.v) != TB_STRING)
			return tc_fail(p, g.pos, "'%s' entries must be strings, not %s", f->key,
				       tb_kind_phrase(tb_node_kind(g.v)));
		if (get(p, &g, &(*out)[i]))
			return -1;
	}
	return 0;
}
