/* jsonscan.c: a JSON document read in pieces (jsonscan.h).  The structure outside the values
 * asked for is checked here (keys, ':' and ',', nesting, strings and their escapes);
 * what a value holds is jansson's to check. */
#include "config.h"
#include "harness/record/jsonscan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "harness/base/util.h"

#define JSCAN_BUF 65536
#define JSCAN_MAX_DEPTH 512

struct jscan {
	char *path;
	gzFile gz;
	unsigned char buf[JSCAN_BUF];
	size_t len, pos;
	int eof;
	size_t line, col;
	/* per open container: its kind, and whether an item has been read in it */
	char kind[JSCAN_MAX_DEPTH];
	int started[JSCAN_MAX_DEPTH];
	int depth;
	struct sbuf text;       /* the value being captured */
};

int jscan_open(const char *path, struct jscan **out)
{
	*out = NULL;
	gzFile gz = gzopen(path, "rb");
	if (!gz)
		return error_errno("cannot open '%s'", path);
	gzbuffer(gz, JSCAN_BUF);
	struct jscan *s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	s->gz = gz;
	s->line = s->col = 1;
	sbuf_init(&s->text);
	*out = s;
	return 0;
}

void jscan_close(struct jscan *s)
{
	if (!s)
		return;
	if (s->gz)
		gzclose(s->gz);
	sbuf_release(&s->text);
	free(s->path);
	free(s);
}

const char *jscan_path(const struct jscan *s)
{
	return s->path;
}

void jscan_where(const struct jscan *s, size_t *line, size_t *col)
{
	*line = s->line;
	*col = s->col;
}

static int fail(struct jscan *s, const char *what)
{
	return error("'%s':%zu:%zu: %s", s->path, s->line, s->col, what);
}

/* The next byte without taking it: 0..255, -1 at the end, -2 on a read error (reported). */
static int peek(struct jscan *s)
{
	if (s->pos < s->len)
		return s->buf[s->pos];
	if (s->eof)
		return -1;
	int n = gzread(s->gz, s->buf, sizeof(s->buf));
	if (n < 0) {
		int e;
		const char *msg = gzerror(s->gz, &e);
		error("'%s': cannot read it: %s", s->path, e == Z_ERRNO ? strerror(errno) : msg);
		return -2;
	}
	s->len = (size_t)n;
	s->pos = 0;
	if (!n) {
		s->eof = 1;
		return -1;
	}
	return s->buf[0];
}

/* Take the byte peek() gave, keeping the position and, when capturing, the text. */
static void take(struct jscan *s, int c, int capture)
{
	s->pos++;
	if (c == '\n') {
		s->line++;
		s->col = 1;
	} else if ((c & 0xc0) != 0x80) {
		s->col++; /* columns count characters, not UTF-8 continuation bytes */
	}
	if (capture) {
		char ch = (char)c;
		sbuf_add(&s->text, &ch, 1);
	}
}

/* Skip white space; the next byte (as peek()). */
static int ws(struct jscan *s)
{
	int c;
	while ((c = peek(s)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		take(s, c, 0);
	return c;
}

/* Expect byte want after white space.  -1 reported. */
static int expect(struct jscan *s, int want, const char *what)
{
	int c = ws(s);
	if (c == -2)
		return -1;
	if (c != want)
		return fail(s, what);
	take(s, c, 0);
	return 0;
}

/* A string, its opening quote next: its raw text (quotes included) captured.  -1 reported. */
static int string_raw(struct jscan *s)
{
	int c = peek(s);
	take(s, c, 1);
	for (;;) {
		c = peek(s);
		if (c < 0)
			return c == -2 ? -1 : fail(s, "the file ends inside a string");
		if (c < 0x20)
			return fail(s, "a control character inside a string");
		take(s, c, 1);
		if (c == '"')
			return 0;
		if (c == '\\') {
			c = peek(s);
			if (c < 0)
				return c == -2 ? -1 : fail(s, "the file ends inside a string");
			take(s, c, 1);
		}
	}
}

/* The value that comes next, captured whole (nesting, strings, scalars).  -1 reported. */
static int capture(struct jscan *s)
{
	int depth = 0, c = ws(s);
	if (c == -2)
		return -1;
	if (c < 0)
		return fail(s, "a value was expected; the file ends");
	int scalar = c != '{' && c != '[' && c != '"';
	for (;;) {
		c = peek(s);
		if (c == -2)
			return -1;
		if (c < 0) {
			if (scalar && !depth && s->text.len)
				return 0; /* a number or literal at the very end */
			return fail(s, "the file ends inside a value");
		}
		if (c == '"') {
			if (string_raw(s))
				return -1;
			if (!depth)
				return 0; /* a string value */
			continue;
		}
		if (c == '{' || c == '[') {
			if (++depth > JSCAN_MAX_DEPTH)
				return fail(s, "values nested too deeply");
		} else if (c == '}' || c == ']') {
			if (!depth)
				return 0; /* the end of the container around a scalar */
			take(s, c, 1);
			if (!--depth)
				return 0;
			continue;
		} else if (!depth && (c == ',' || c == ' ' || c == '\t' || c == '\n' ||
				      c == '\r')) {
			return 0; /* a scalar ends */
		}
		take(s, c, 1);
	}
}

int jscan_value(struct jscan *s, json_t **out, size_t *line, size_t *col)
{
	*out = NULL;
	sbuf_reset(&s->text);
	if (ws(s) == -2)
		return -1;
	*line = s->line;
	*col = s->col;
	if (capture(s))
		return -1;
	json_error_t je;
	*out = json_loadb(s->text.buf, s->text.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!*out)
		return error("'%s':%zu:%zu: %s", s->path, *line + (size_t)(je.line > 0 ? je.line - 1 : 0),
			     je.line > 1 ? (size_t)je.column : *col + (size_t)(je.column > 0 ? je.column - 1 : 0),
			     je.text);
	return 0;
}

int jscan_at_end(struct jscan *s)
{
	int c = ws(s);
	return c == -2 ? -1 : c == -1;
}

int jscan_enter(struct jscan *s, char *kind)
{
	int c = ws(s);
	if (c == -2)
		return -1;
	if (c != '{' && c != '[')
		return fail(s, "an object or an array was expected");
	if (s->depth >= JSCAN_MAX_DEPTH)
		return fail(s, "values nested too deeply");
	take(s, c, 0);
	s->kind[s->depth] = (char)c;
	s->started[s->depth++] = 0;
	*kind = (char)c;
	return 0;
}

/* In the innermost container (of kind open): 1 another item follows (its ',' taken), 0 the
 * container ends (left), -1 reported. */
static int next(struct jscan *s, char open)
{
	char close = open == '{' ? '}' : ']';
	if (!s->depth || s->kind[s->depth - 1] != open)
		return fail(s, open == '{' ? "not inside an object" : "not inside an array");
	int c = ws(s);
	if (c == -2)
		return -1;
	if (c == close) {
		take(s, c, 0);
		s->depth--;
		return 0;
	}
	if (s->started[s->depth - 1]) {
		if (c != ',')
			return fail(s, open == '{' ? "',' or '}' was expected" : "',' or ']' was expected");
		take(s, c, 0);
	}
	s->started[s->depth - 1] = 1;
	return 1;
}

int jscan_item(struct jscan *s)
{
	return next(s, '[');
}

int jscan_key(struct jscan *s, char **key)
{
	*key = NULL;
	int r = next(s, '{');
	if (r <= 0)
		return r;
	if (ws(s) != '"')
		return fail(s, "a member name (a string) was expected");
	sbuf_reset(&s->text);
	if (string_raw(s))
		return -1;
	json_t *k = json_loadb(s->text.buf, s->text.len, JSON_DECODE_ANY, NULL);
	if (!json_is_string(k)) {
		json_decref(k);
		return fail(s, "a member name that is not a valid string");
	}
	*key = xstrdup(json_string_value(k));
	json_decref(k);
	if (expect(s, ':', "':' was expected after a member name")) {
		free(*key);
		*key = NULL;
		return -1;
	}
	return 1;
}
