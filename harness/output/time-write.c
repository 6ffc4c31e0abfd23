/* time-write.c: the answer `harness time` prints at the end of its run (timesum.h) */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/output/write.h"

/* A time in ns as "12.3 ms" (three significant figures, the unit chosen by size). */
static void fmt_time(char *buf, size_t n, double ns)
{
	if (isnan(ns))
		snprintf(buf, n, "-");
	else if (ns >= 1e9)
		snprintf(buf, n, "%.3g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, n, "%.3g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, n, "%.3g us", ns / 1e3);
	else
		snprintf(buf, n, "%.0f ns", ns);
}

int timesum_write(const struct timesum *s, FILE *out)
{
	size_t w = strlen("command");
	for (size_t m = 0; m < s->nmodes; m++)
		if (strlen(s->modes[m].name) > w)
			w = strlen(s->modes[m].name);
	fprintf(out, "%-*s  %10s  %10s  %10s  %-34s  %s\n", (int)w, "command", "wall", "user",
		"system", "ratio to the baseline (CI)", "verdict");
	for (size_t m = 0; m < s->nmodes; m++) {
		const struct timesum_mode *x = &s->modes[m];
		char wall[32], user[32], sys[32], ratio[64];
		fmt_time(wall, sizeof(wall), x->wall_ns);
		fmt_time(user, sizeof(user), x->user_ns);
		fmt_time(sys, sizeof(sys), x->sys_ns);
		if (x->baseline)
			snprintf(ratio, sizeof(ratio), "baseline");
		else if (isnan(x->ratio))
			snprintf(ratio, sizeof(ratio), "-");
		else if (isnan(x->lo))
			snprintf(ratio, sizeof(ratio), "%.3f (no CI)", x->ratio);
		else
			snprintf(ratio, sizeof(ratio), "%.3f (%.3f to %.3f)", x->ratio, x->lo, x->hi);
		fprintf(out, "%-*s  %10s  %10s  %10s  %-34s  %s%s%s\n", (int)w, x->name, wall, user,
			sys, ratio, x->baseline ? "" : stats_verdict_name(x->verdict),
			*x->note ? ": " : "", x->note);
	}
	fprintf(out, "(wall: the median over blocks of each unit's median run; user, system: the "
		"median CPU time of a run;\n ratio: this command's time over the baseline's, "
		"paired by block, %.0f%% CI; FASTER and SLOWER\n are the report's verdicts, "
		"corrected for the family of comparisons)\n", s->conf * 100);
	fprintf(out, "\nnext: harness report %s\n      harness audit %s\n", s->path, s->path);
	return ferror(out) ? error("cannot write the summary") : 0;
}
