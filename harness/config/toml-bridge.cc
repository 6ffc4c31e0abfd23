/* toml-bridge.cc: the C API of toml-bridge.h over toml++ (the project's only C++ file).
 * toml++ keeps a table's keys sorted by name; we copy the parsed tree into our own nodes
 * with every table's entries sorted by where their keys are written, so callers see
 * file order.  Every exception is caught here: parse errors become "line:col: message",
 * out of memory ends the process as xmalloc does. */
#include "config.h"
#include "harness/config/toml-bridge.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

extern "C" {
#include "harness/base/util.h"
}

struct tb_node {
	enum tb_kind kind = TB_TABLE;
	struct tb_pos pos = { 0, 0 };
	std::string text; /* TB_STRING bytes, or TB_DATETIME as RFC 3339 */
	int64_t i = 0;
	double f = 0.0;
	bool b = false;
	std::vector<std::unique_ptr<tb_node>> items; /* array elements / table values, file order */
	std::vector<std::string> keys;               /* tables: keys, parallel to items */
	std::vector<struct tb_pos> key_pos;
};

struct tb_doc {
	std::unique_ptr<tb_node> root;
};

static struct tb_pos pos_of(const toml::source_position &p)
{
	return { static_cast<int>(p.line), static_cast<int>(p.column) };
}

static bool pos_before(const toml::source_position &a, const toml::source_position &b)
{
	return a.line != b.line ? a.line < b.line : a.column < b.column;
}

template <typename T> static std::string to_text(const T &v)
{
	std::ostringstream os;
	os << v;
	return os.str();
}

/* Copy one toml++ node (and everything under it) into a tb_node. */
static std::unique_ptr<tb_node> convert(const toml::node &n)
{
	auto out = std::make_unique<tb_node>();
	out->pos = pos_of(n.source().begin);
	switch (n.type()) {
	case toml::node_type::table: {
		out->kind = TB_TABLE;
		std::vector<std::pair<const toml::key *, const toml::node *>> entries;
		for (auto &&[k, v] : *n.as_table())
			entries.emplace_back(&k, &v);
		std::stable_sort(entries.begin(), entries.end(), [](const auto &a, const auto &b) {
			return pos_before(a.first->source().begin, b.first->source().begin);
		});
		for (const auto &[k, v] : entries) {
			out->keys.emplace_back(k->str());
			out->key_pos.push_back(pos_of(k->source().begin));
			out->items.push_back(convert(*v));
		}
		break;
	}
	case toml::node_type::array:
		out->kind = TB_ARRAY;
		for (const toml::node &v : *n.as_array())
			out->items.push_back(convert(v));
		break;
	case toml::node_type::string:
		out->kind = TB_STRING;
		out->text = n.as_string()->get();
		break;
	case toml::node_type::integer:
		out->kind = TB_INTEGER;
		out->i = n.as_integer()->get();
		out->f = static_cast<double>(out->i);
		break;
	case toml::node_type::floating_point:
		out->kind = TB_FLOAT;
		out->f = n.as_floating_point()->get();
		break;
	case toml::node_type::boolean:
		out->kind = TB_BOOL;
		out->b = n.as_boolean()->get();
		break;
	case toml::node_type::date:
		out->kind = TB_DATETIME;
		out->text = to_text(n.as_date()->get());
		break;
	case toml::node_type::time:
		out->kind = TB_DATETIME;
		out->text = to_text(n.as_time()->get());
		break;
	case toml::node_type::date_time:
		out->kind = TB_DATETIME;
		out->text = to_text(n.as_date_time()->get());
		break;
	default:
		die("toml bridge: node of unknown type %d", static_cast<int>(n.type()));
	}
	return out;
}

/* "Error while parsing ..." -> "error while parsing ...": project messages are lowercase.
 * A leading acronym ("EOF") is left alone. */
static std::string lower_first(std::string_view s)
{
	std::string out(s);
	if (out.size() >= 2 && std::isupper(static_cast<unsigned char>(out[0])) &&
	    std::islower(static_cast<unsigned char>(out[1])))
		out[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[0])));
	while (!out.empty() && (out.back() == '.' || out.back() == '\n'))
		out.pop_back();
	return out;
}

extern "C" struct tb_doc *tb_doc_parse(const char *text, size_t len, char **cause)
{
	*cause = nullptr;
	try {
		toml::table t = toml::parse(std::string_view(text, len));
		auto d = std::make_unique<tb_doc>();
		d->root = convert(t);
		d->root->pos = { 1, 1 };
		return d.release();
	} catch (const toml::parse_error &e) {
		std::string msg = lower_first(e.description());
		struct tb_pos p = pos_of(e.source().begin);
		if (p.line < 1)
			p = { 1, 1 };
		*cause = xasprintf("%d:%d: %s", p.line, p.col, msg.c_str());
	} catch (const std::bad_alloc &) {
		die("out of memory parsing TOML");
	} catch (const std::exception &e) {
		*cause = xasprintf("1:1: %s", lower_first(e.what()).c_str());
	} catch (...) {
		*cause = xstrdup("1:1: unknown error in the TOML parser");
	}
	return nullptr;
}

extern "C" void tb_doc_free(struct tb_doc *d)
{
	delete d;
}

extern "C" const struct tb_node *tb_doc_root(const struct tb_doc *d)
{
	return d->root.get();
}

extern "C" const char *tb_kind_name(enum tb_kind k)
{
	switch (k) {
	case TB_TABLE: return "table";
	case TB_ARRAY: return "array";
	case TB_STRING: return "string";
	case TB_INTEGER: return "integer";
	case TB_FLOAT: return "float";
	case TB_BOOL: return "boolean";
	case TB_DATETIME: return "date-time";
	}
	return "?";
}

extern "C" const char *tb_kind_phrase(enum tb_kind k)
{
	switch (k) {
	case TB_TABLE: return "a table";
	case TB_ARRAY: return "an array";
	case TB_STRING: return "a string";
	case TB_INTEGER: return "an integer";
	case TB_FLOAT: return "a float";
	case TB_BOOL: return "a boolean";
	case TB_DATETIME: return "a date-time";
	}
	return "?";
}

extern "C" enum tb_kind tb_node_kind(const struct tb_node *n)
{
	return n->kind;
}

extern "C" struct tb_pos tb_node_pos(const struct tb_node *n)
{
	return n->pos;
}

extern "C" size_t tb_node_len(const struct tb_node *n)
{
	return n->items.size();
}

extern "C" const struct tb_node *tb_node_at(const struct tb_node *n, size_t i)
{
	return i < n->items.size() ? n->items[i].get() : nullptr;
}

extern "C" const char *tb_node_key(const struct tb_node *t, size_t i)
{
	return t->kind == TB_TABLE && i < t->keys.size() ? t->keys[i].c_str() : nullptr;
}

extern "C" struct tb_pos tb_node_key_pos(const struct tb_node *t, size_t i)
{
	if (t->kind == TB_TABLE && i < t->key_pos.size())
		return t->key_pos[i];
	return { 0, 0 };
}

extern "C" const struct tb_node *tb_node_get(const struct tb_node *t, const char *key,
					     size_t *index)
{
	if (t->kind != TB_TABLE)
		return nullptr;
	for (size_t i = 0; i < t->keys.size(); i++) {
		if (t->keys[i] == key) {
			if (index)
				*index = i;
			return t->items[i].get();
		}
	}
	return nullptr;
}

extern "C" const char *tb_node_string(const struct tb_node *n, size_t *len)
{
	if (n->kind != TB_STRING) {
		if (len)
			*len = 0;
		return nullptr;
	}
	if (len)
		*len = n->text.size();
	return n->text.c_str();
}

extern "C" int64_t tb_node_int(const struct tb_node *n)
{
	return n->kind == TB_INTEGER ? n->i : 0;
}

extern "C" double tb_node_float(const struct tb_node *n)
{
	return n->kind == TB_INTEGER || n->kind == TB_FLOAT ? n->f : 0.0;
}

extern "C" int tb_node_bool(const struct tb_node *n)
{
	return n->kind == TB_BOOL ? n->b : 0;
}

extern "C" const char *tb_node_datetime(const struct tb_node *n)
{
	return n->kind == TB_DATETIME ? n->text.c_str() : nullptr;
}

/* ---- editing ---------------------------------------------------------------------------- */

extern "C" struct tb_node *tb_doc_root_mut(struct tb_doc *d)
{
	return d->root.get();
}

extern "C" struct tb_node *tb_node_at_mut(struct tb_node *n, size_t i)
{
	return i < n->items.size() ? n->items[i].get() : nullptr;
}

extern "C" struct tb_node *tb_node_get_mut(struct tb_node *t, const char *key)
{
	size_t i;
	return tb_node_get(t, key, &i) ? t->items[i].get() : nullptr;
}

static std::unique_ptr<tb_node> clone_of(const tb_node &n)
{
	auto out = std::make_unique<tb_node>();
	out->kind = n.kind;
	out->pos = n.pos;
	out->text = n.text;
	out->i = n.i;
	out->f = n.f;
	out->b = n.b;
	out->keys = n.keys;
	out->key_pos = n.key_pos;
	for (const auto &c : n.items)
		out->items.push_back(clone_of(*c));
	return out;
}

extern "C" struct tb_node *tb_node_clone(const struct tb_node *n)
{
	try {
		return clone_of(*n).release();
	} catch (const std::bad_alloc &) {
		die("out of memory copying TOML");
	}
}

extern "C" void tb_node_free(struct tb_node *n)
{
	delete n;
}

extern "C" struct tb_node *tb_node_new(enum tb_kind kind, struct tb_pos pos)
{
	try {
		auto out = std::make_unique<tb_node>();
		out->kind = kind;
		out->pos = pos;
		return out.release();
	} catch (const std::bad_alloc &) {
		die("out of memory editing TOML");
	}
}

extern "C" struct tb_node *tb_string_new(const char *s, struct tb_pos pos)
{
	struct tb_node *n = tb_node_new(TB_STRING, pos);
	try {
		n->text = s;
	} catch (const std::bad_alloc &) {
		die("out of memory editing TOML");
	}
	return n;
}

extern "C" void tb_table_set(struct tb_node *t, const char *key, struct tb_pos key_pos,
			     struct tb_node *v)
{
	try {
		std::unique_ptr<tb_node> owned(v);
		size_t i;
		if (tb_node_get(t, key, &i)) {
			t->items[i] = std::move(owned);
			t->key_pos[i] = key_pos;
			return;
		}
		t->keys.emplace_back(key);
		t->key_pos.push_back(key_pos);
		t->items.push_back(std::move(owned));
	} catch (const std::bad_alloc &) {
		die("out of memory editing TOML");
	}
}

extern "C" void tb_node_remove(struct tb_node *n, size_t i)
{
	if (i >= n->items.size())
		return;
	n->items.erase(n->items.begin() + static_cast<std::ptrdiff_t>(i));
	if (n->kind == TB_TABLE) {
		n->keys.erase(n->keys.begin() + static_cast<std::ptrdiff_t>(i));
		n->key_pos.erase(n->key_pos.begin() + static_cast<std::ptrdiff_t>(i));
	}
}

extern "C" void tb_array_push(struct tb_node *a, struct tb_node *v)
{
	try {
		a->items.emplace_back(v);
	} catch (const std::bad_alloc &) {
		die("out of memory editing TOML");
	}
}

extern "C" void tb_node_set_pos(struct tb_node *n, struct tb_pos pos)
{
	n->pos = pos;
	for (auto &k : n->key_pos)
		k = pos;
	for (auto &c : n->items)
		tb_node_set_pos(c.get(), pos);
}
