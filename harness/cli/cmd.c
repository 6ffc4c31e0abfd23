/* cmd.c: the subcommand table, lookup by name or unique prefix, and dispatch */
#include "config.h"
#include "harness/cli/cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <hdf5.h>

#include "harness/base/util.h"

const struct cmd_entry *const cmd_table[] = {
	&cmd_run_entry,
	&cmd_time_entry,
	&cmd_check_entry,
	&cmd_selftest_unit_entry,
	&cmd_show_entry,
	&cmd_report_entry,
	&cmd_plot_entry,
	&cmd_compare_entry,
	&cmd_replay_entry,
	&cmd_import_entry,
	&cmd_export_entry,
	&cmd_verify_entry,
	&cmd_audit_entry,
	&cmd_slurm_entry,
	&cmd_merge_entry,
	&cmd_help_entry,
	&cmd_worker_entry,
	&cmd_table_entry,
	NULL,
};

const struct cmd_entry *cmd_lookup(const char *name)
{
	const struct cmd_entry *found = NULL;
	size_t nfound = 0, len = strlen(name);
	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];
		if (!strcmp(e->name, name))
			return e;
		if (!(e->flags & CMD_HIDDEN) && len && !strncmp(e->name, name, len)) {
			found = e;
			nfound++;
		}
	}
	if (nfound == 1)
		return found;
	if (nfound > 1) {
		struct sbuf sb;
		sbuf_init(&sb);
		for (size_t i = 0; cmd_table[i]; i++)
			if (!(cmd_table[i]->flags & CMD_HIDDEN) && !strncmp(cmd_table[i]->name, name, len))
				sbuf_addf(&sb, "%s'%s'", sb.len ? ", " : "", cmd_table[i]->name);
		error("ambiguous command '%s' (could be %s)", name, sb.buf);
		sbuf_release(&sb);
		return NULL;
	}
	const char *best = NULL;
	size_t bestd = 3;
	for (size_t i = 0; cmd_table[i]; i++) {
		if (cmd_table[i]->flags & CMD_HIDDEN)
			continue;
		size_t d = util_edit_distance(name, cmd_table[i]->name);
		if (d < bestd) {
			bestd = d;
			best = cmd_table[i]->name;
		}
	}
	if (best)
		error("unknown command '%s' (did you mean '%s'?); see 'harness help'", name, best);
	else
		error("unknown command '%s'; see 'harness help'", name);
	return NULL;
}

void cmd_usage(const struct cmd_entry *e, FILE *f)
{
	fprintf(f, "usage: harness %s\n", e->usage);
	if (e->summary)
		fprintf(f, "\n%s\n", e->summary);
	if (e->help && *e->help)
		fprintf(f, "\n%s", e->help);
}

int cmd_usage_error(const struct cmd_entry *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	error("%s", msg);
	free(msg);
	fprintf(stderr, "usage: harness %s\n", e->usage);
	return EXIT_USAGE;
}

static int check_arity(const struct cmd_entry *e, int npos)
{
	if (npos < e->min_args)
		return cmd_usage_error(e, "'%s' needs %s%d argument%s", e->name,
				       e->max_args == e->min_args ? "" : "at least ", e->min_args,
				       e->min_args == 1 ? "" : "s");
	if (e->max_args >= 0 && npos > e->max_args)
		return cmd_usage_error(e, "'%s' takes at most %d argument%s", e->name, e->max_args,
				       e->max_args == 1 ? "" : "s");
	return 0;
}

const char *cmd_args_value(const struct cmd_args *a, int key)
{
	const char *v = NULL;
	for (size_t i = 0; i < a->nopts; i++)
		if (a->opts[i].key == key)
			v = a->opts[i].value;
	return v;
}

int cmd_args_count(const struct cmd_args *a, int key)
{
	int n = 0;
	for (size_t i = 0; i < a->nopts; i++)
		n += a->opts[i].key == key;
	return n;
}

#define KEY_HELP 0x7fff
#define KEY_POSITIONAL 1 /* getopt_long's code for a non-option in "-" (in order) mode */

/* Options may come before or after the positional arguments, and "--" ends them, as in the
 * tools researchers know.  getopt_long runs in its "return in order" mode ("-" first in the
 * short-option string): every positional comes back as KEY_POSITIONAL in the order given,
 * nothing in argv is permuted (the command line is recorded as given), and POSIXLY_CORRECT
 * does not change how a command line parses. */
int cmd_dispatch(int argc, char **argv)
{
	const struct cmd_entry *e = cmd_lookup(argv[1]);
	if (!e)
		return EXIT_USAGE;

	/* Build getopt_long's tables from the entry's options, plus -h/--help. */
	size_t nopt = 0;
	while (e->opts && e->opts[nopt].key)
		nopt++;
	struct option *lo = xcalloc(nopt + 2, sizeof(*lo));
	struct sbuf shorts;
	sbuf_init(&shorts);
	sbuf_adds(&shorts, "-:h");
	size_t nlo = 0;
	for (size_t i = 0; i < nopt; i++) {
		const struct cmd_opt *o = &e->opts[i];
		if (o->key < 256)
			sbuf_addf(&shorts, "%c%s", o->key, o->has_arg ? ":" : "");
		if (o->name)
			lo[nlo++] = (struct option){ o->name, o->has_arg ? required_argument : no_argument,
						     NULL, o->key };
	}
	lo[nlo++] = (struct option){ "help", no_argument, NULL, KEY_HELP };

	/* getopt sees a copy of the command's words (sub[0] is the command name), so main's argv
	 * stays exactly as given for the commands that record it. */
	int subc = argc - 1;
	char **sub = xcalloc((size_t)subc + 1, sizeof(*sub));
	memcpy(sub, argv + 1, (size_t)subc * sizeof(*sub));
	struct cmd_args a = { .entry = e, .argc = argc, .argv = argv };
	a.opts = xcalloc((size_t)subc + 1, sizeof(*a.opts));
	a.pos = xcalloc((size_t)subc + 1, sizeof(*a.pos));
	int ret = EXIT_USAGE, c;
	optind = 0; /* glibc: start afresh, reading the "-" mode again */
	opterr = 0;
	while ((c = getopt_long(subc, sub, shorts.buf, lo, NULL)) != -1) {
		if (c == KEY_POSITIONAL) {
			a.pos[a.npos++] = optarg;
			continue;
		}
		if (c == 'h' || c == KEY_HELP) {
			cmd_usage(e, stdout);
			ret = EXIT_OK;
			goto done;
		}
		if (c == '?') {
			if (optopt && optopt < 256)
				ret = cmd_usage_error(e, "unknown option '-%c'", optopt);
			else
				ret = cmd_usage_error(e, "unknown option '%s'", sub[optind - 1]);
			goto done;
		}
		if (c == ':') {
			ret = cmd_usage_error(e, "option '%s' needs a value", sub[optind - 1]);
			goto done;
		}
		a.opts[a.nopts].key = c;
		a.opts[a.nopts].value = optarg;
		a.nopts++;
	}
	/* What follows "--" is positional, whatever it looks like. */
	while (optind < subc)
		a.pos[a.npos++] = sub[optind++];
	if (check_arity(e, a.npos))
		goto done;
	ret = e->exec(&a);
done:
	free(a.pos);
	free(a.opts);
	free(sub);
	free(lo);
	sbuf_release(&shorts);
	return ret;
}

/* Flush and close stdout, as git and jq do: a full disk, a closed pipe or an I/O error on
 * the last buffer is reported instead of lost.  A stdout that was never open (">&-") and to
 * which nothing was written is not an error (gnulib's close_stdout). */
int cmd_finish_stdout(int code)
{
	int bad = fflush(stdout) != 0 || ferror(stdout);
	int saved = errno;
	if (fclose(stdout) != 0 && !bad && errno != EBADF) {
		bad = 1;
		saved = errno;
	}
	if (bad) {
		errno = saved;
		error_errno("cannot write to standard output");
		return code ? code : EXIT_RUN_FAILED;
	}
	return code;
}

static void adapters_init(void)
{
	/* GSL aborts on error by default; every GSL call's status is checked instead. */
	gsl_set_error_handler_off();
	/* HDF5 prints its error stack by default; the recorder maps failures to messages. */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* One exit path: whatever the outcome, stdout is checked on close. */
int cmd_main(int argc, char **argv)
{
	int ret = EXIT_USAGE;
	adapters_init();
	if (argc < 2) {
		fputs("usage: harness <command> [options] [args]\n"
		      "       harness --version | --help\n"
		      "see 'harness help'\n", stderr);
		goto done;
	}
	const char *a = argv[1];
	if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
		printf("harness %s\n", PACKAGE_VERSION);
		ret = EXIT_OK;
	} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
		struct cmd_args none = { .entry = &cmd_help_entry, .argc = argc, .argv = argv };
		ret = cmd_help_entry.exec(&none);
	} else if (a[0] == '-') {
		error("unknown option '%s'; see 'harness help'", a);
		ret = EXIT_USAGE;
	} else {
		ret = cmd_dispatch(argc, argv);
	}
done:
	return cmd_finish_stdout(ret);
}
