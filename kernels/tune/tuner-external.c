/* tuner-external.c: the "external" tuner: any program that speaks the propose/observe
 * protocol of docs/tuner-protocol.md (a researcher's Python search, an LLM-driven one) tunes
 * the cell under the driver's budget and statistics, live or in a replay.
 *
 * alloc() starts the command (harness/base/spawn.h: stdin and stdout pipes, its own process
 * group, killed with us) and writes one line, {"start": {...}}: the cell, its fields (kind,
 * values, labels), its valid points when there are at most EXT_MAX_LISTED of them (else
 * null: a proposal excluded by the constraint is answered with status "invalid"), the
 * budget, the seed and the heuristic's start point.  next() reads one line,
 * {"propose": {FIELD: value, ...}} or {"propose": "NAME=VALUE,..."} (a point of the space,
 * else an error), or {"done": true}.  observe() writes {"result": {...}} for the trial.
 * free() closes the command's input, waits EXT_EXIT_GRACE_MS for it to exit, then stops its
 * process group (SIGTERM, then SIGKILL).  The tuner chooses the fastest ok trial.
 * A command that cannot start, exits, writes something that is not a protocol line or
 * takes longer than `timeout` seconds to reply fails the tuning (tuner_ops.error), as a
 * missing command does: the tuning stops with the message (a replay stops too).
 * Options: command (argv: a list of strings, or one string split at spaces), timeout
 * (seconds per reply, default 300); and max_trials, max_seconds, accept, accept_repeats,
 * accept_alpha (tuner-int.h). */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/spawn.h"
#include "kernels/backend.h"

extern const struct tuner_ops tuner_external;
extern char **environ;

#define EXT_PROTOCOL 1
#define EXT_MAX_LISTED 100000         /* valid points sent with the start, at most */
#define EXT_MAX_GRID ((size_t)1 << 22) /* grid points enumerated to find them, at most */
#define EXT_MAX_LINE ((size_t)64 << 20) /* bytes of one line from the command */
#define EXT_MAX_INVALID 100000        /* "invalid" answers before the tuning stops */
#define EXT_EXIT_GRACE_MS 5000        /* after its input closes, before SIGTERM */

struct tuner {
	const struct space *space;
	struct spawn sp;
	int running;            /* sp holds a child not yet reaped */
	struct spawn_status st; /* its status once reaped */
	char *who;              /* "tuner 'external' (command 'python3 t.py')", for messages */
	int64_t timeout_ns;
	struct sbuf in;         /* bytes read from the command, not yet a whole line */
	size_t lines;           /* lines read */
	char *err;              /* why it failed; NULL while it has not */
	int listed;             /* the valid points were sent: any other point is an error */
	int64_t trials, invalid;
	struct tuner_memo memo;
};

/* ---- options ----------------------------------------------------------------------------- */

static int check_command(const struct tuner_option *o, const struct tuner_check *c, char **cause)
{
	(void)c;
	int ok = o->type == TUNER_OPT_STRING ? o->s && strspn(o->s, " ") < strlen(o->s)
					     : o->type == TUNER_OPT_LIST && o->nitems > 0;
	for (size_t i = 0; ok && o->type == TUNER_OPT_LIST && i < o->nitems; i++)
		ok = o->items[i].type == TUNER_OPT_STRING && o->items[i].s &&
		     (i > 0 || *o->items[i].s);
	if (!ok)
		*cause = xasprintf("%d:%d: 'command' must be the tuner program's argv, a non-empty "
				   "list of strings ([\"python3\", \"tuner.py\"]) or one string split "
				   "at spaces", o->line, o->col);
	return ok ? 0 : -1;
}

static int ext_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = {
		{ "command", RULE_CUSTOM, 0, 0, check_command },
		{ "timeout", RULE_FLOAT, 1e-3, 1e6, NULL },
		{ NULL },
	};
	return tuner_check_rules(&tuner_external, c, rules, cause);
}

/* The command's argv (heap, NULL-terminated; its strings heap too), or NULL without one. */
static char **command_argv(const struct tuner_args *a)
{
	const struct tuner_option *o = tuner_option_find(a->options, a->noptions, "command");
	char **v = NULL;
	size_t n = 0, cap = 0;
	if (o && o->type == TUNER_OPT_LIST) {
		for (size_t i = 0; i < o->nitems; i++) {
			XGROW(v, cap, n + 1);
			v[n++] = xstrdup(o->items[i].s ? o->items[i].s : "");
		}
	} else if (o && o->type == TUNER_OPT_STRING && o->s) {
		for (const char *p = o->s; *p;) {
			size_t len = strcspn(p, " ");
			if (len) {
				XGROW(v, cap, n + 1);
				v[n++] = xstrndup(p, len);
			}
			p += len + strspn(p + len, " ");
		}
	}
	if (!n)
		return NULL;
	XGROW(v, cap, n + 1);
	v[n] = NULL;
	return v;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The command's environment: ours (the unit's, in a worker), with the kernel folder's python/
 * first on PYTHONPATH so that `import harness_tuner` works, and Python's bytecode cache off
 * (it would be written beside harness_tuner.py, outside the unit's cache folder).  Heap
 * vector of heap strings. */
static char **command_env(void)
{
	size_t n = 0;
	while (environ && environ[n])
		n++;
	char **v = xcalloc(n + 3, sizeof(*v)), *old = NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(environ[i], "PYTHONPATH=", 11))
			old = environ[i] + 11;
		else if (strncmp(environ[i], "PYTHONDONTWRITEBYTECODE=", 24))
			v[k++] = xstrdup(environ[i]);
	}
	v[k++] = xstrdup("PYTHONDONTWRITEBYTECODE=1");
	v[k++] = old && *old ? xasprintf("PYTHONPATH=%s/python:%s", backend_kernel_dir(), old)
			     : xasprintf("PYTHONPATH=%s/python", backend_kernel_dir());
	return v;
}

/* ---- failing, reading and writing ---------------------------------------------------------- */

/* Reap the command if it has ended, waiting up to ms for it; 1 when it has. */
static int reap_within(struct tuner *t, int64_t ms)
{
	int64_t end = util_now_ns() + ms * 1000000;
	while (t->running) {
		int r = spawn_poll(&t->sp, &t->st);
		if (r != 0) {
			t->running = 0;
			if (r < 0)
				memset(&t->st, 0, sizeof(t->st));
			break;
		}
		if (util_now_ns() >= end)
			return 0;
		if (t->sp.out_fd >= 0) { /* drain what it still writes, so that it can end */
			struct pollfd p = { .fd = t->sp.out_fd, .events = POLLIN };
			char buf[4096];
			if (poll(&p, 1, 20) > 0 && read(t->sp.out_fd, buf, sizeof(buf)) <= 0) {
				close(t->sp.out_fd);
				t->sp.out_fd = -1;
			}
		} else {
			struct timespec ts = { 0, 20000000 };
			nanosleep(&ts, NULL);
		}
	}
	return 1;
}

/* Record the first failure (what, formatted), adding how the command ended when it has; -1. */
static int fail(struct tuner *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct tuner *t, const char *fmt, ...)
{
	if (t->err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	char *what = xvasprintf(fmt, ap);
	va_end(ap);
	char how[64] = "";
	if (reap_within(t, 500))
		snprintf(how, sizeof(how), t->st.signaled ? " (it was killed by signal %d)"
							 : " (it exited with status %d)",
			 t->st.signaled ? t->st.sig : t->st.code);
	t->err = xasprintf("%s: %s%s", t->who, what, how);
	free(what);
	return -1;
}

/* The next line from the command (NUL-terminated, without its newline) into *line (heap),
 * within the timeout; 0, or -1 failed. */
static int read_line(struct tuner *t, char **line)
{
	int64_t end = util_now_ns() + t->timeout_ns;
	for (;;) {
		char *nl = memchr(t->in.buf, '\n', t->in.len);
		if (nl) {
			size_t n = (size_t)(nl - t->in.buf);
			*line = xstrndup(t->in.buf, n);
			memmove(t->in.buf, nl + 1, t->in.len - n - 1);
			t->in.len -= n + 1;
			t->in.buf[t->in.len] = '\0';
			t->lines++;
			return 0;
		}
		if (t->in.len > EXT_MAX_LINE)
			return fail(t, "line %zu is longer than %zu bytes", t->lines + 1, EXT_MAX_LINE);
		int64_t left = end - util_now_ns();
		if (left <= 0) {
			spawn_kill_group(&t->sp, SIGTERM);
			return fail(t, "no reply within %.3g s (option 'timeout'); stopped it",
				    (double)t->timeout_ns / 1e9);
		}
		struct pollfd p = { .fd = t->sp.out_fd, .events = POLLIN };
		int r = poll(&p, 1, (int)(left / 1000000 + 1 > 1000 ? 1000 : left / 1000000 + 1));
		if (r < 0 && errno != EINTR)
			return fail(t, "cannot wait for its output: %s", strerror(errno));
		if (r <= 0)
			continue;
		char buf[65536];
		ssize_t got = read(t->sp.out_fd, buf, sizeof(buf));
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got < 0)
			return fail(t, "cannot read its output: %s", strerror(errno));
		if (got == 0)
			return fail(t, "its output ended after %zu line%s%s", t->lines,
				    t->lines == 1 ? "" : "s", t->in.len ? " and an unfinished one" : "");
		sbuf_add(&t->in, buf, (size_t)got);
	}
}

/* Write msg and a newline to the command, within the timeout (SIGPIPE held off: a command
 * that has gone is an error, not a signal); 0, or -1 failed. */
static int write_msg(struct tuner *t, json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(msg);
	if (!text)
		return fail(t, "cannot encode a message to it");
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, text);
	sbuf_adds(&sb, "\n");
	free(text);
	sigset_t pipe_set, old;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	int masked = pthread_sigmask(SIG_BLOCK, &pipe_set, &old) == 0, ret = 0;
	int64_t end = util_now_ns() + t->timeout_ns;
	for (size_t off = 0; off < sb.len && !ret;) {
		ssize_t n = t->sp.in_fd < 0 ? -1 : write(t->sp.in_fd, sb.buf + off, sb.len - off);
		if (n > 0) {
			off += (size_t)n;
		} else if (n < 0 && errno == EAGAIN && util_now_ns() < end) {
			struct pollfd p = { .fd = t->sp.in_fd, .events = POLLOUT };
			poll(&p, 1, 100);
		} else if (n < 0 && errno == EAGAIN) {
			spawn_kill_group(&t->sp, SIGTERM);
			ret = fail(t, "did not read its input within %.3g s (option 'timeout')",
				   (double)t->timeout_ns / 1e9);
		} else if (!(n < 0 && errno == EINTR)) {
			ret = fail(t, "stopped reading its input after %zu line%s of output", t->lines,
				   t->lines == 1 ? "" : "s");
		}
	}
	if (masked) { /* take back the SIGPIPE a write to a closed pipe raised, then unmask */
		struct timespec zero = { 0, 0 };
		while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
			;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	sbuf_release(&sb);
	return ret;
}

/* ---- the space as JSON, and proposals back ------------------------------------------------ */

/* Value v of field f as the protocol writes it: an integer, a float (its label's number) or
 * a string (its label). */
static json_t *value_json(const struct space_field *f, int64_t v)
{
	size_t k = space_value_index(f, v);
	if (f->kind == SPACE_INT || !f->labels || k >= f->nvalues)
		return json_integer(v);
	if (f->kind == SPACE_FLOAT)
		return json_real(strtod(f->labels[k], NULL));
	return json_string(f->labels[k]);
}

static json_t *config_json(const struct space *s, const struct config *c)
{
	if (c->vendor) {
		struct sbuf sb;
		sbuf_init(&sb);
		config_format(s, c, &sb);
		json_t *j = json_string(sb.buf);
		sbuf_release(&sb);
		return j;
	}
	json_t *o = json_object();
	for (size_t f = 0; f < s->nfields; f++)
		json_object_set_new(o, s->fields[f].name, value_json(&s->fields[f], c->val[f]));
	return o;
}

/* The value of field f that text (or, for a float field, its number x when isfinite) names:
 * 0 and *v, or -1. */
static int field_value(const struct space_field *f, const char *text, double x, int64_t *v)
{
	for (size_t k = 0; k < f->nvalues; k++) {
		if (f->labels ? !strcmp(f->labels[k], text) ||
					(f->kind == SPACE_FLOAT && isfinite(x) &&
					 strtod(f->labels[k], NULL) == x)
			      : !parse_i64(text, INT64_MIN, INT64_MAX, v) && *v == f->values[k]) {
			*v = f->values[k];
			return 0;
		}
	}
	return -1;
}

/* Proposal p (an object of field values, or config text) into *c: 0; -1 with *why (heap)
 * when it is not a point of the space's grid. */
static int proposal_config(const struct space *s, json_t *p, struct config *c, char **why)
{
	memset(c, 0, sizeof(*c));
	if (json_is_string(p) && !strncmp(json_string_value(p), "vendor", 6))
		return config_parse(s, json_string_value(p), c, why);
	json_t *obj = json_is_object(p) ? json_incref(p) : json_object();
	if (json_is_string(p)) { /* "NAME=VALUE,...": the same as an object of those texts */
		char *copy = xstrdup(json_string_value(p));
		for (char *item = copy, *next; item && *item; item = next) {
			next = strchr(item, ',');
			if (next)
				*next++ = '\0';
			char *eq = strchr(item, '=');
			if (eq)
				*eq = '\0';
			json_object_set_new(obj, item, eq ? json_string(eq + 1) : json_null());
		}
		free(copy);
	} else if (!json_is_object(p)) {
		*why = xstrdup("a proposal is an object {\"FIELD\": value, ...} or a string "
			       "\"FIELD=VALUE,...\"");
		json_decref(obj);
		return -1;
	}
	int seen[SPACE_MAX_FIELDS] = { 0 }, ret = 0;
	const char *key;
	json_t *val;
	json_object_foreach(obj, key, val) {
		size_t f = space_field_find(s, key);
		if (f == s->nfields) {
			*why = xasprintf("unknown field '%s'", key);
			ret = -1;
			break;
		}
		char num[64] = "";
		double x = json_is_number(val) ? json_number_value(val) : NAN;
		if (json_is_integer(val))
			snprintf(num, sizeof(num), "%" PRId64, (int64_t)json_integer_value(val));
		else if (isfinite(x) && x == floor(x) && fabs(x) < 9e15)
			snprintf(num, sizeof(num), "%" PRId64, (int64_t)x);
		else if (json_is_real(val))
			snprintf(num, sizeof(num), "%.17g", x);
		const char *text = json_is_string(val) ? json_string_value(val) : num;
		if ((!*text && !json_is_string(val)) || field_value(&s->fields[f], text, x, &c->val[f])) {
			char *shown = json_dumps(val, JSON_ENCODE_ANY | JSON_COMPACT);
			*why = xasprintf("%s is not a value of field '%s'", shown ? shown : "?", key);
			free(shown);
			ret = -1;
			break;
		}
		seen[f] = 1;
	}
	for (size_t f = 0; f < s->nfields && !ret; f++)
		if (!seen[f] && s->fields[f].optional) /* as config_parse: its first value */
			c->val[f] = s->fields[f].values[0];
		else if (!seen[f]) {
			*why = xasprintf("field '%s' is missing", s->fields[f].name);
			ret = -1;
		}
	json_decref(obj);
	return ret;
}

/* The {"start": ...} message for a's cell. */
static json_t *start_json(const struct tuner_args *a, size_t *valid, size_t nvalid, int listed)
{
	const struct space *s = a->space;
	json_t *st = json_object(), *fields = json_array();
	json_object_set_new(st, "protocol", json_integer(EXT_PROTOCOL));
	json_object_set_new(st, "cell", json_string(a->cell && a->cell->name ? a->cell->name : ""));
	json_object_set_new(st, "op", json_string(a->cell && a->cell->op ? a->cell->op : s->op));
	json_object_set_new(st, "shape", json_string(a->cell && a->cell->shape ? a->cell->shape : ""));
	for (size_t f = 0; f < s->nfields; f++) {
		const struct space_field *fd = &s->fields[f];
		json_t *j = json_object(), *vals = json_array();
		json_object_set_new(j, "name", json_string(fd->name));
		json_object_set_new(j, "kind", json_string(space_kind_name(fd->kind)));
		for (size_t k = 0; k < fd->nvalues; k++)
			json_array_append_new(vals, value_json(fd, fd->values[k]));
		json_object_set_new(j, "values", vals);
		json_object_set_new(j, "step", json_string(space_step_name(fd->step)));
		if (fd->optional) /* a proposal may leave it out: its first value */
			json_object_set_new(j, "optional", json_true());
		json_array_append_new(fields, j);
	}
	json_object_set_new(st, "fields", fields);
	json_t *vendor = json_array();
	for (size_t k = 0; k < space_nvendors(s); k++) {
		struct config c;
		space_vendor_point(s, k, &c);
		json_array_append_new(vendor, config_json(s, &c));
	}
	json_object_set_new(st, "vendor", vendor);
	json_t *v = listed ? json_array() : json_null();
	for (size_t i = 0; listed && i < nvalid; i++) {
		struct config c;
		space_point(s, valid[i], &c);
		json_array_append_new(v, config_json(s, &c));
	}
	json_object_set_new(st, "valid", v);
	json_object_set_new(st, "nvalid", valid ? json_integer((json_int_t)nvalid) : json_null());
	int64_t trials = tuner_opt_int(a, "max_trials", 0);
	if (a->budget_trials > 0 && (!trials || a->budget_trials < trials))
		trials = a->budget_trials;
	double secs = tuner_opt_float(a, "max_seconds", 0);
	if (a->budget_ns > 0 && (secs <= 0 || (double)a->budget_ns / 1e9 < secs))
		secs = (double)a->budget_ns / 1e9;
	json_t *b = json_object();
	json_object_set_new(b, "trials", trials > 0 ? json_integer(trials) : json_null());
	json_object_set_new(b, "seconds", secs > 0 ? json_real(secs) : json_null());
	json_object_set_new(st, "budget", b);
	json_object_set_new(st, "seed", json_integer((json_int_t)(a->seed & INT64_MAX)));
	struct config start;
	json_object_set_new(st, "start", s->heuristic && !tuner_start_point(s, &start)
						 ? config_json(s, &start) : json_null());
	json_t *msg = json_object();
	json_object_set_new(msg, "start", st);
	return msg;
}

/* ---- the tuner --------------------------------------------------------------------------- */

/* Never NULL: a missing command, or one that cannot start, is the tuner's failure
 * (ext_error), which stops a replay, rather than a space it cannot tune. */
static struct tuner *ext_alloc(const struct tuner_args *a, char **cause)
{
	(void)cause;
	char **argv = command_argv(a);
	struct tuner *t = xcalloc(1, sizeof(*t));
	sbuf_init(&t->in);
	t->space = a->space;
	spawn_init(&t->sp);
	if (!argv) { /* a failure, not a space it cannot tune: a replay stops on it */
		t->err = xstrdup("tuner 'external' needs option 'command', the tuner program's argv");
		return t;
	}
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; argv[i]; i++)
		sbuf_addf(&sb, "%s%s", i ? " " : "", argv[i]);
	t->who = xasprintf("tuner 'external' (command '%s')", sb.buf);
	sbuf_release(&sb);
	t->timeout_ns = (int64_t)(tuner_opt_float(a, "timeout", 300) * 1e9);
	size_t nvalid = 0;
	char *why = NULL;
	size_t *valid = tuner_valid_points(a->space, EXT_MAX_GRID, "external", &nvalid, &why);
	free(why);
	t->listed = valid && nvalid <= EXT_MAX_LISTED;
	/* a command that cannot start fails the tuning (error()), as one that exits does */
	char **env = command_env();
	char *prog = spawn_find_program(argv[0], (const char *const *)env);
	if (!prog) {
		t->err = xasprintf("%s: cannot run '%s': %s", t->who, argv[0], strerror(errno));
	} else {
		t->sp.argv = (const char *const *)argv;
		t->sp.env = (const char *const *)env;
		t->sp.pipe_stdin = t->sp.capture_stdout = t->sp.inherit_stderr = 1;
		t->sp.new_pgroup = t->sp.die_with_parent = 1;
		if (spawn_start(&t->sp))
			t->err = xasprintf("%s: cannot be started (see above)", t->who);
		else
			t->running = 1;
	}
	free(prog);
	if (t->running) {
		fcntl(t->sp.in_fd, F_SETFL, fcntl(t->sp.in_fd, F_GETFL) | O_NONBLOCK);
		write_msg(t, start_json(a, valid, nvalid, t->listed));
	}
	free(valid);
	strv_free(env);
	strv_free(argv);
	return t;
}

/* Answer a proposal the constraint excludes (the valid points were not sent): status
 * "invalid" with why; the command proposes again. */
static void answer_invalid(struct tuner *t, const struct config *c, const char *why)
{
	json_t *r = json_object(), *m = json_object();
	json_object_set_new(r, "config", config_json(t->space, c));
	json_object_set_new(r, "status", json_string("invalid"));
	json_object_set_new(r, "why", json_string(why ? why : "excluded by the constraint"));
	json_object_set_new(m, "result", r);
	write_msg(t, m);
}

static int ext_next(struct tuner *t, struct config *c)
{
	int got = 0;
	while (!t->err && !got) {
		char *line = NULL, *why = NULL;
		const char *excluded = NULL;
		if (read_line(t, &line))
			break;
		json_error_t je;
		json_t *msg = json_loads(line, JSON_REJECT_DUPLICATES, &je), *p;
		if (!msg)
			fail(t, "line %zu is not JSON (%s): '%.200s'", t->lines, je.text, line);
		else if (!json_is_object(msg))
			fail(t, "line %zu is not a JSON object: '%.200s'", t->lines, line);
		else if (json_is_true(json_object_get(msg, "done")))
			got = -1;
		else if (!(p = json_object_get(msg, "propose")))
			fail(t, "line %zu is neither {\"propose\": ...} nor {\"done\": true}: '%.200s'",
			     t->lines, line);
		else if (proposal_config(t->space, p, c, &why))
			fail(t, "line %zu proposes what is not a point of the '%s' space (%s): "
			     "'%.200s'", t->lines, t->space->op, why, line);
		else if (space_check(t->space, c, &excluded))
			got = 1;
		else if (t->listed)
			fail(t, "line %zu proposes a config that is not one of the valid points it was "
			     "sent (%s): '%.200s'", t->lines, excluded ? excluded : "excluded", line);
		else if (++t->invalid > EXT_MAX_INVALID)
			fail(t, "proposed more than %d invalid configs", EXT_MAX_INVALID);
		else
			answer_invalid(t, c, excluded);
		free(why);
		json_decref(msg);
		free(line);
	}
	if (got > 0)
		t->trials++;
	return got > 0;
}

static void ext_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	tuner_memo_add(&t->memo, t->space, c, r);
	if (t->err)
		return;
	json_t *j = json_object(), *samples = json_array(), *m = json_object();
	json_object_set_new(j, "config", config_json(t->space, c));
	json_object_set_new(j, "status", json_string(trial_status_name(r->status)));
	json_object_set_new(j, "median_ns", isfinite(r->median_ns) ? json_real(r->median_ns)
								   : json_null());
	for (size_t i = 0; i < r->nsamples; i++)
		json_array_append_new(samples, json_integer(sample_exec_ns(r->samples[i].ns,
									   r->samples[i].launches)));
	json_object_set_new(j, "samples", samples);
	json_object_set_new(j, "compile_ns", json_integer(r->compile_ns));
	json_object_set_new(j, "trial", json_integer(t->trials));
	json_object_set_new(m, "result", j);
	write_msg(t, m);
}

static int ext_best(struct tuner *t, struct config *out)
{
	return tuner_memo_best(&t->memo, out);
}

static const char *ext_error(const struct tuner *t)
{
	return t->err;
}

/* Close the command's input (its end of the search), give it EXT_EXIT_GRACE_MS to exit,
 * then stop its process group: SIGTERM, and SIGKILL a second later. */
static void ext_free(struct tuner *t)
{
	if (t->sp.in_fd >= 0) {
		close(t->sp.in_fd);
		t->sp.in_fd = -1;
	}
	if (t->running && !reap_within(t, EXT_EXIT_GRACE_MS)) {
		spawn_kill_group(&t->sp, SIGTERM);
		if (!reap_within(t, 1000)) {
			spawn_kill_group(&t->sp, SIGKILL);
			reap_within(t, 5000);
		}
	}
	spawn_release(&t->sp);
	sbuf_release(&t->in);
	tuner_memo_release(&t->memo);
	free(t->err);
	free(t->who);
	free(t);
}

const struct tuner_ops tuner_external = {
	.name = "external",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = ext_check_options,
	.alloc = ext_alloc,
	.next = ext_next,
	.observe = ext_observe,
	.best = ext_best,
	.free = ext_free,
	.error = ext_error,
};
