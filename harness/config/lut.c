/* lut.c: lookup tables for the "lut" tuner (see lut.h).  The format:
 *
 *     schema = 1                                  # optional; 1 is the only version
 *     description = "..."                         # optional
 *     [[entries]]
 *     op = "sgemm"                                # an op of the catalog
 *     shape = { m = 512, n = 512, k = 512 }       # integers, keyed by shape field
 *     config = { BM = 64, BN = 64, BK = 32 }      # field = value; or a string:
 *                                                 # "BM=64,BN=64" or "vendor"
 *
 * Checked here: the TOML, the keys and their kinds, the op, the shape's keys (the op's
 * shape fields), no two entries for one op and shape.  Whether a config is a point of the
 * cell's space is known only for the cell's shape: the tuner checks it at run time (a
 * stale entry falls back to the heuristic, docs/kernels.md). */
#include "config.h"
#include "harness/config/lut.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/hashindex.h"
#include "harness/base/util.h"
#include "harness/config/tomlcheck.h"
#include "kernels/catalog.h"

static const char *const root_keys[] = { "schema", "description", "entries", NULL };
static const char *const entry_keys[] = { "op", "shape", "config", NULL };

static int parse_entry(struct tc_parser *p, const struct tb_node *t, struct tuner_lut_entry *e)
{
	struct tb_pos at = tb_node_pos(t);
	int have_shape = 0;
	if (tb_node_kind(t) != TB_TABLE)
		return tc_fail(p, at, "each of 'entries' must be a table, not %s",
			       tb_kind_phrase(tb_node_kind(t)));
	for (size_t i = 0; i < tb_node_len(t); i++) {
		struct tc_field f = tc_field_at(t, i);
		if (!strcmp(f.key, "op")) {
			if (tc_want_kind(p, &f, TB_STRING))
				return -1;
			const char *op = tb_node_string(f.v, NULL);
			if (!catalog_op(op)) {
				const char **names = xcalloc(catalog_nops + 1, sizeof(*names));
				for (size_t k = 0; k < catalog_nops; k++)
					names[k] = catalog_ops[k].name;
				const char *s = tc_suggest(op, names);
				char *all = tc_join(names);
				if (s)
					tc_fail(p, f.pos, "unknown op '%s' (did you mean '%s'?)", op, s);
				else
					tc_fail(p, f.pos, "unknown op '%s' (ops: %s)", op, all);
				free(all);
				free(names);
				return -1;
			}
			e->op = xstrdup(op);
		} else if (!strcmp(f.key, "shape")) {
			if (tc_want_kind(p, &f, TB_TABLE))
				return -1;
			have_shape = 1;
			e->nshape = tb_node_len(f.v);
			e->shape_keys = xcalloc(e->nshape + 1, sizeof(*e->shape_keys));
			e->shape_vals = xcalloc(e->nshape + 1, sizeof(*e->shape_vals));
			for (size_t k = 0; k < e->nshape; k++) {
				struct tc_field g = tc_field_at(f.v, k);
				if (tc_want_kind(p, &g, TB_INTEGER))
					return -1;
				e->shape_keys[k] = xstrdup(g.key);
				e->shape_vals[k] = tb_node_int(g.v);
				if (e->shape_vals[k] < 0)
					return tc_fail(p, g.pos, "shape '%s' must be >= 0", g.key);
			}
		} else if (!strcmp(f.key, "config")) {
			e->line = f.pos.line;
			e->col = f.pos.col;
			if (tb_node_kind(f.v) == TB_STRING) {
				const char *s = tb_node_string(f.v, NULL);
				if (!*s || strchr(s, '\n'))
					return tc_fail(p, f.pos, "'config' must name a config "
						       "(\"BM=64,BN=64\" or \"vendor\")");
				e->config = xstrdup(s);
				continue;
			}
			if (tb_node_kind(f.v) != TB_TABLE)
				return tc_fail(p, f.pos, "'config' must be a table of field = value "
					       "or a string, not %s", tb_kind_phrase(tb_node_kind(f.v)));
			if (!tb_node_len(f.v))
				return tc_fail(p, f.pos, "'config' is empty");
			struct sbuf sb;
			sbuf_init(&sb);
			for (size_t k = 0; k < tb_node_len(f.v); k++) {
				struct tc_field g = tc_field_at(f.v, k);
				if (tc_want_kind(p, &g, TB_INTEGER)) {
					sbuf_release(&sb);
					return -1;
				}
				sbuf_addf(&sb, "%s%s=%lld", k ? "," : "", g.key,
					  (long long)tb_node_int(g.v));
			}
			e->config = sbuf_detach(&sb);
		} else {
			return tc_unknown_key(p, &f, entry_keys, " in [[entries]]");
		}
	}
	if (!e->op)
		return tc_fail(p, at, "missing required key 'op'");
	if (!have_shape)
		return tc_fail(p, at, "missing required key 'shape'");
	if (!e->config)
		return tc_fail(p, at, "missing required key 'config'");
	/* the shape's keys: the op's shape fields, each once */
	const struct op_info *op = catalog_op(e->op);
	size_t want = 0;
	while (op->shape_fields && op->shape_fields[want])
		want++;
	for (size_t k = 0; k < want; k++) {
		size_t j = 0;
		while (j < e->nshape && strcmp(e->shape_keys[j], op->shape_fields[k]))
			j++;
		if (j == e->nshape) {
			char *all = tc_join(op->shape_fields);
			int r = tc_fail(p, at, "the shape of a '%s' entry needs '%s' (its keys: %s)",
					e->op, op->shape_fields[k], all);
			free(all);
			return r;
		}
	}
	if (e->nshape != want) {
		char *all = tc_join(op->shape_fields);
		int r = tc_fail(p, at, "the shape of a '%s' entry has keys other than %s", e->op, all);
		free(all);
		return r;
	}
	return 0;
}

static int same_shape(const struct tuner_lut_entry *a, const struct tuner_lut_entry *b)
{
	if (strcmp(a->op, b->op) || a->nshape != b->nshape)
		return 0;
	for (size_t k = 0; k < a->nshape; k++) {
		size_t j = 0;
		while (j < b->nshape && strcmp(b->shape_keys[j], a->shape_keys[k]))
			j++;
		if (j == b->nshape || b->shape_vals[j] != a->shape_vals[k])
			return 0;
	}
	return 1;
}

/* A hash of an entry's op and shape that same_shape() entries share: the op's name, then each
 * shape value in the order of the op's shape fields (which parse_entry has checked are
 * exactly the entry's keys), whatever order the table wrote them. */
static uint64_t shape_hash(const struct tuner_lut_entry *e)
{
	uint64_t h = hashindex_str(e->op, HASHINDEX_SEED);
	const struct op_info *op = catalog_op(e->op);
	for (size_t k = 0; op->shape_fields && op->shape_fields[k]; k++)
		for (size_t j = 0; j < e->nshape; j++)
			if (!strcmp(e->shape_keys[j], op->shape_fields[k]))
				h = hashindex_mix(h ^ (uint64_t)e->shape_vals[j]);
	return h;
}

/* The index of an earlier entry with all[k]'s op and shape, or k after adding it to ix (so
 * the duplicate check costs O(1) an entry, not a comparison with every earlier one). */
static size_t shape_find_add(struct hashindex *ix, const struct tuner_lut_entry *all, size_t k)
{
	uint64_t h = shape_hash(&all[k]);
	size_t mask = ix->cap ? ix->cap - 1 : 0;
	for (size_t i = h & mask; ix->cap && ix->slot[i]; i = (i + 1) & mask)
		if (ix->hash[i] == h && same_shape(&all[ix->slot[i] - 1], &all[k]))
			return ix->slot[i] - 1;
	hashindex_add(ix, h, k);
	return k;
}

int lut_parse(const char *shown, const char *text, size_t len, struct tuner_lut *out)
{
	struct tc_parser p = { .path = shown };
	struct tb_doc *doc = NULL;
	char *cause = NULL;
	struct hashindex set = { 0 };

	memset(out, 0, sizeof(*out));
	out->path = xstrdup(shown);
	out->text = xmalloc(len + 1);
	memcpy(out->text, text, len);
	out->text[len] = '\0';
	out->text_len = len;
	util_sha256_hex(text, len, out->sha256);
	doc = tb_doc_parse(text, len, &cause);
	if (!doc) {
		p.cause = xasprintf("'%s':%s", shown, cause);
		free(cause);
		goto done;
	}
	const struct tb_node *root = tb_doc_root(doc);
	int have = 0;
	for (size_t i = 0; i < tb_node_len(root); i++) {
		struct tc_field f = tc_field_at(root, i);
		if (!strcmp(f.key, "schema")) {
			if (tc_want_kind(&p, &f, TB_INTEGER))
				goto done;
			if (tb_node_int(f.v) != 1) {
				tc_fail(&p, f.pos, "unsupported schema %lld (this harness reads 1)",
					(long long)tb_node_int(f.v));
				goto done;
			}
		} else if (!strcmp(f.key, "description")) {
			if (tc_want_kind(&p, &f, TB_STRING))
				goto done;
		} else if (!strcmp(f.key, "entries")) {
			if (tc_want_kind(&p, &f, TB_ARRAY))
				goto done;
			have = 1;
			out->n = tb_node_len(f.v);
			out->e = xcalloc(out->n + 1, sizeof(*out->e));
			for (size_t k = 0; k < out->n; k++) {
				struct tuner_lut_entry *e = &out->e[k];
				if (parse_entry(&p, tb_node_at(f.v, k), e))
					goto done;
				size_t j = shape_find_add(&set, out->e, k);
				if (j != k) {
					tc_fail(&p, tb_node_pos(tb_node_at(f.v, k)),
						"a second entry for op '%s' and this shape (the "
						"first's config is at line %d)", e->op, out->e[j].line);
					goto done;
				}
			}
		} else {
			tc_unknown_key(&p, &f, root_keys, "");
			goto done;
		}
	}
	if (!have)
		tc_fail(&p, (struct tb_pos){ 1, 1 }, "missing required key 'entries' (add an "
			"[[entries]] table)");
done:
	hashindex_release(&set);
	tb_doc_free(doc);
	if (!p.cause)
		return 0;
	char *err = p.cause;
	char *path = out->path, *txt = out->text;
	size_t tl = out->text_len;
	char sha[65];
	memcpy(sha, out->sha256, sizeof(sha));
	out->path = out->text = NULL;
	tuner_lut_release(out);
	out->path = path;
	out->text = txt;
	out->text_len = tl;
	memcpy(out->sha256, sha, sizeof(sha));
	out->error = err;
	return -1;
}

int lut_read(const char *path, const char *shown, struct tuner_lut *out)
{
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	memset(out, 0, sizeof(*out));
	errno = 0;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, R_OK) != 0) {
		out->path = xstrdup(shown);
		out->error = xasprintf("'%s': cannot read the lookup table ('%s': %s)", shown, path,
				       errno ? strerror(errno) : "not a regular file");
		return -1;
	}
	if (util_read_file(path, &text, &len)) {
		out->path = xstrdup(shown);
		out->error = xasprintf("'%s': cannot read the lookup table", shown);
		return -1;
	}
	int r = lut_parse(shown, text, len, out);
	free(text);
	return r;
}

char *experiment_table_path(const char *dir, const char *mode)
{
	return xasprintf("%s/tables/%s.toml", dir, mode);
}

char *experiment_train_path(const char *dir, const char *mode, size_t k)
{
	return xasprintf("%s/tables/%s-train-%zu.h5", dir, mode, k);
}

int experiment_write_tables(const struct experiment *e, const char *dir)
{
	int made = 0;
	for (size_t i = 0; i < e->nmodes; i++) {
		const struct mode *m = &e->modes[i];
		if (!m->lut || !m->lut->text)
			continue;
		char *sub = xasprintf("%s/tables", dir);
		int r = made ? 0 : util_mkdir_p(sub, 0755);
		free(sub);
		if (r)
			return -1;
		made = 1;
		char *path = experiment_table_path(dir, m->name);
		r = util_write_file(path, m->lut->text, m->lut->text_len, 0444);
		free(path);
		if (r)
			return -1;
	}
	/* model-topk's training files, byte for byte */
	for (size_t i = 0; i < e->nmodes; i++) {
		const struct mode *m = &e->modes[i];
		for (size_t k = 0; k < m->ntrain; k++) {
			char *sub = xasprintf("%s/tables", dir), *bytes = NULL;
			size_t len = 0;
			int r = made ? 0 : util_mkdir_p(sub, 0755);
			free(sub);
			made = 1;
			if (r || util_read_file(m->train[k], &bytes, &len))
				return -1;
			char *path = experiment_train_path(dir, m->name, k);
			r = util_write_file(path, bytes, len, 0444);
			free(path);
			free(bytes);
			if (r)
				return -1;
		}
	}
	return 0;
}
