/* toml-bridge.h: a small C API over toml++ (the project's one C++ file): parse a TOML text
 * into a read-only tree whose every value and key knows its line and column, with tables
 * iterated in file order.  Generic: experiment files and hypothesis files both read it;
 * the schema of each lives in its own module, never here.
 *
 * Ownership: a struct tb_doc owns every node, key and string reachable from it.  Pointers
 * returned by the accessors are borrowed and stay valid until tb_doc_free().  No C++
 * exception ever crosses this interface; out of memory ends the process like xmalloc. */
#ifndef HARNESS_TOML_BRIDGE_H
#define HARNESS_TOML_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tb_kind { TB_TABLE = 0, TB_ARRAY, TB_STRING, TB_INTEGER, TB_FLOAT, TB_BOOL, TB_DATETIME };

/* A position in the text, both 1-based (the root table is at 1:1). */
struct tb_pos {
	int line, col;
};

struct tb_doc;  /* a parsed document */
struct tb_node; /* one value inside a document: table, array or scalar */

/* Parse text (len bytes, need not be NUL-terminated).  Returns a document the caller frees
 * with tb_doc_free(), or NULL with *cause set to a heap string "LINE:COL: message" (the
 * syntax error as toml++ words it, first letter lowercased) that the caller frees. */
struct tb_doc *tb_doc_parse(const char *text, size_t len, char **cause);
void tb_doc_free(struct tb_doc *d); /* NULL is fine */
/* The root table; borrowed from d. */
const struct tb_node *tb_doc_root(const struct tb_doc *d);

/* "table", "array", "string", "integer", "float", "boolean", "date-time" */
const char *tb_kind_name(enum tb_kind k);
/* The same with its article, for messages: "a table", "an array", "an integer", ... */
const char *tb_kind_phrase(enum tb_kind k);

enum tb_kind tb_node_kind(const struct tb_node *n);
/* Where the value starts; for a table declared by a header ([t] or [[t]]), the '['. */
struct tb_pos tb_node_pos(const struct tb_node *n);

/* Tables and arrays.  tb_node_len(): entries of a table, elements of an array, 0 for a
 * scalar.  tb_node_at(): the i-th element of an array, or the value of the i-th entry of a
 * table in file order (the order in which the keys first appear); NULL when i is out of
 * range or n is a scalar. */
size_t tb_node_len(const struct tb_node *n);
const struct tb_node *tb_node_at(const struct tb_node *n, size_t i);
/* Tables only: the i-th key in file order and where it is written; NULL / {0, 0} when
 * n is not a table or i is out of range. */
const char *tb_node_key(const struct tb_node *t, size_t i);
struct tb_pos tb_node_key_pos(const struct tb_node *t, size_t i);
/* Tables only: the value under key (NULL when absent or t is not a table); with *index
 * set to its entry number when index is not NULL. */
const struct tb_node *tb_node_get(const struct tb_node *t, const char *key, size_t *index);

/* Scalars.  Each returns a neutral value (NULL, 0, 0.0) when the node has another kind.
 * tb_node_string(): the NUL-terminated bytes of a TB_STRING; *len (when not NULL) gets
 * the length, which exceeds strlen() when the string holds "\u0000".
 * tb_node_float(): a TB_FLOAT, or a TB_INTEGER converted.
 * tb_node_datetime(): a TB_DATETIME (date, time or date-time) as RFC 3339 text. */
const char *tb_node_string(const struct tb_node *n, size_t *len);
int64_t tb_node_int(const struct tb_node *n);
double tb_node_float(const struct tb_node *n);
int tb_node_bool(const struct tb_node *n);
const char *tb_node_datetime(const struct tb_node *n);

/* Editing a parsed document (harness run -D, an experiment's axes): what the schema walker
 * then reads as if the file said it.  A node made or cloned here is the caller's until it
 * is given to a table or an array (tb_table_set, tb_array_push), which then owns it; the
 * caller frees one it keeps with tb_node_free().  The _mut accessors are the read
 * accessors' on a document the caller may change. */
struct tb_node *tb_doc_root_mut(struct tb_doc *d);
struct tb_node *tb_node_at_mut(struct tb_node *n, size_t i);
struct tb_node *tb_node_get_mut(struct tb_node *t, const char *key);
/* A deep copy of n, positions included. */
struct tb_node *tb_node_clone(const struct tb_node *n);
void tb_node_free(struct tb_node *n); /* NULL is fine */
/* An empty table or array (kind TB_TABLE or TB_ARRAY), or a string (copied), at pos. */
struct tb_node *tb_node_new(enum tb_kind kind, struct tb_pos pos);
struct tb_node *tb_string_new(const char *s, struct tb_pos pos);
/* t[key] = v (t a table; v given away): the value of an existing key is replaced in its
 * place (the old one freed) and the key then said at key_pos; a new key comes last. */
void tb_table_set(struct tb_node *t, const char *key, struct tb_pos key_pos, struct tb_node *v);
/* Remove (and free) the i-th entry of a table or element of an array; nothing when out of
 * range. */
void tb_node_remove(struct tb_node *n, size_t i);
/* Append v (given away) to the array a. */
void tb_array_push(struct tb_node *a, struct tb_node *v);
/* Set the position of n, of every node under it and of every key in it to pos. */
void tb_node_set_pos(struct tb_node *n, struct tb_pos pos);

#ifdef __cplusplus
}
#endif

#endif
