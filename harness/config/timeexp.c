/* timeexp.c: the experiment file `harness time` writes (see timeexp.h) */
#include "config.h"
#include "harness/config/timeexp.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/config/experiment-int.h"

#define MODE_NAME_MAX 40

static int name_char(char c)
{
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

char *timeexp_mode_name(const char *line)
{
	struct sbuf sb;
	sbuf_init(&sb);
	int dash = 0;
	for (const char *s = line; *s && sb.len < MODE_NAME_MAX; s++) {
		if (name_char(*s) && *s != '-') {
			if (dash && sb.len)
				sbuf_adds(&sb, "-");
			dash = 0;
			sbuf_addf(&sb, "%c", *s);
		} else {
			dash = 1;
		}
	}
	if (!sb.len)
		sbuf_adds(&sb, "cmd");
	return sbuf_detach(&sb);
}


/* command = [...] for one line: ["sh", "-c", LINE], or its blank-separated words (a program
 * with a '/' made absolute against workdir: the experiment's folder is not the caller's). */
static int add_command(struct sbuf *sb, const struct timeexp *t, const char *line, char **cause)
{
	sbuf_adds(sb, "command = [");
	if (!t->no_shell) {
		sbuf_adds(sb, "\"sh\", \"-c\", ");
		sbuf_add_toml_string(sb, line);
		sbuf_adds(sb, "]\n");
		return 0;
	}
	size_t n = 0;
	for (const char *s = line; *s;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		size_t len = strcspn(s, " \t");
		char *w = xstrndup(s, len);
		if (n == 0 && w[0] != '/' && strchr(w, '/')) {
			char *abs = xasprintf("%s/%s", t->workdir, w);
			free(w);
			w = abs;
		}
		sbuf_adds(sb, n ? ", " : "");
		sbuf_add_toml_string(sb, w);
		free(w);
		n++;
		s += len;
	}
	sbuf_adds(sb, "]\n");
	if (!n) {
		*cause = xstrdup("an empty command (with --no-shell, a command is its words)");
		return -1;
	}
	return 0;
}

/* One [[modes]] entry: command line `line` timed as a process, named name; the baseline,
 * or the A/A copy of mode aa_of (NULL: none).  0, or -1 with *cause (heap). */
static int add_mode(struct sbuf *sb, const struct timeexp *t, const char *name,
		    const char *line, int baseline, const char *aa_of, char **cause)
{
	sbuf_adds(sb, "\n[[modes]]\nname = ");
	sbuf_add_toml_string(sb, name);
	sbuf_adds(sb, "\n");
	if (baseline)
		sbuf_adds(sb, "baseline = true\n");
	if (aa_of) {
		sbuf_adds(sb, "aa_of = ");
		sbuf_add_toml_string(sb, aa_of);
		sbuf_adds(sb, "\n");
	}
	if (add_command(sb, t, line, cause))
		return -1;
	sbuf_addf(sb, "timing = \"process\"\nruns = %" PRId64 "\nwarmup = %" PRId64 "\n", t->runs,
		  t->warmup);
	sbuf_adds(sb, "workdir = ");
	sbuf_add_toml_string(sb, t->workdir);
	sbuf_adds(sb, "\n");
	const char *hk[] = { "setup", "prepare", "cleanup" };
	const char *hv[] = { t->setup, t->prepare, t->cleanup };
	for (size_t k = 0; k < 3; k++)
		if (hv[k]) {
			sbuf_addf(sb, "%s = ", hk[k]);
			sbuf_add_toml_string(sb, hv[k]);
			sbuf_adds(sb, "\n");
		}
	if (t->ignore_failure)
		sbuf_adds(sb, "ignore_failure = true\n");
	return 0;
}

char *timeexp_toml(const struct timeexp *t, char **cause)
{
	struct sbuf sb;
	char **names = xcalloc(t->ncmds + 1, sizeof(*names));
	*cause = NULL;
	sbuf_init(&sb);
	for (size_t i = 0; i < t->ncmds && !*cause; i++) {
		if (!*t->cmds[i].line) {
			*cause = xasprintf("command %zu is empty", i + 1);
		} else if (t->cmds[i].name) {
			names[i] = xstrdup(t->cmds[i].name);
			if (!exp_is_name(names[i]))
				*cause = xasprintf("name '%s' (command %zu) is not a mode name: "
						   "letters, digits, '.', '_' and '-' only",
						   names[i], i + 1);
		} else {
			names[i] = timeexp_mode_name(t->cmds[i].line);
		}
		for (size_t j = 0; j < i && !*cause; j++) {
			if (strcmp(names[i], names[j]))
				continue;
			if (t->cmds[i].name) {
				*cause = xasprintf("two commands are named '%s' (%zu and %zu)", names[i],
						   j + 1, i + 1);
				break;
			}
			/* a derived name taken: the first free "-K" */
			for (int k = 2;; k++) {
				char *alt = xasprintf("%.*s-%d", MODE_NAME_MAX, names[i], k);
				size_t q = 0;
				while (q < i && strcmp(alt, names[q]))
					q++;
				if (q == i) {
					free(names[i]);
					names[i] = alt;
					break;
				}
				free(alt);
			}
			break; /* the new name differs from every earlier one */
		}
	}
	if (*cause)
		goto done;
	sbuf_addf(&sb, "# written by harness time: one command mode per command, each unit timing "
		  "its command's processes\nschema = 1\nname = ");
	sbuf_add_toml_string(&sb, t->name);
	if (t->description) {
		sbuf_adds(&sb, "\ndescription = ");
		sbuf_add_toml_string(&sb, t->description);
	}
	sbuf_addf(&sb, "\nrepeats = %" PRId64 "\nseed = %" PRIu64 "\norder = \"randomized\"\n",
		  t->repeats, t->seed);
	if (!isnan(t->margin))
		sbuf_addf(&sb, "margin = %.17g\n", t->margin);
	if (t->timeout_s > 0)
		sbuf_addf(&sb, "unit_timeout = %.17g\n", t->timeout_s);
	for (size_t i = 0; i < t->ncmds && !*cause; i++) {
		if (add_mode(&sb, t, names[i], t->cmds[i].line, i == t->baseline, NULL, cause))
			goto done;
		if (i != t->baseline || !t->aa)
			continue;
		/* the baseline's A/A copy: the same command in the same blocks, so the run has a
		 * noise floor and can call a difference SAME (docs/report-format.md) */
		char *aa = xasprintf("%.*s-aa", MODE_NAME_MAX - 3, names[i]);
		for (size_t q = 0; q < t->ncmds && !*cause; q++)
			if (!strcmp(names[q], aa))
				*cause = xasprintf("--aa: the A/A copy's name '%s' is a command's", aa);
		if (!*cause)
			add_mode(&sb, t, aa, t->cmds[i].line, 0, names[i], cause);
		free(aa);
	}
done:
	for (size_t i = 0; i < t->ncmds; i++)
		free(names[i]);
	free(names);
	if (*cause) {
		sbuf_release(&sb);
		return NULL;
	}
	return sbuf_detach(&sb);
}
