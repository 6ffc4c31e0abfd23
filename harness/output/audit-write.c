/* audit-write.c: an audit (harness/analysis/audit.h) as markdown and JSON (docs/audit.md) */
#include "config.h"
#include "harness/output/json.h"
#include "harness/output/write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/analysis/audit.h"
#include "harness/base/util.h"

/* ---- writing -------------------------------------------------------------------------- */


static json_t *audit_json(const struct audit *a)
{
	json_t *checks = json_array();
	for (size_t i = 0; i < a->nchecks; i++) {
		const struct audit_check *k = &a->checks[i];
		json_t *units = json_array();
		for (size_t u = 0; u < k->nunits; u++)
			json_array_append_new(units, json_integer((json_int_t)k->units[u]));
		json_array_append_new(checks,
				      json_pack("{s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o}", "id",
						jw_str(k->id), "title", jw_str(k->title), "status",
						audit_status_name(k->status), "summary",
						jw_str(k->summary ? k->summary : ""), "evidence",
						jw_strv(k->evidence, k->nevidence), "modes",
						jw_strv(k->modes, k->nmodes), "cells",
						jw_strv(k->cells, k->ncells), "units", units));
	}
	return json_pack("{s:s, s:i, s:{s:o, s:o, s:o, s:I}, s:{s:o, s:f, s:o, s:o}, s:s, "
			 "s:{s:I, s:I, s:I}, s:o}",
			 "format", "harness-audit", "version", 1, "run", "path", jw_str(a->path),
			 "experiment_name", jw_str(a->experiment_name), "backend", jw_str(a->backend),
			 "blocks", (json_int_t)a->blocks, "settings", "baseline", jw_str(a->baseline),
			 "alpha", a->alpha, "margin", jw_num(a->margin), "margin_source",
			 jw_str(a->margin_source), "result",
			 audit_status_name(audit_worst(a)), "counts", "PASS",
			 (json_int_t)a->counts[AUDIT_PASS], "WARN", (json_int_t)a->counts[AUDIT_WARN],
			 "FAIL", (json_int_t)a->counts[AUDIT_FAIL], "checks", checks);
}

/* Markdown table cells may not hold a bare '|'. */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static void audit_md(const struct audit *a, FILE *f)
{
	fprintf(f, "# Audit of %s\n\n", a->path);
	char mb[48] = "none declared (each cell's noise floor)";
	if (!isnan(a->margin))
		snprintf(mb, sizeof(mb), "+-%.2f%% (%s)", 100 * a->margin, a->margin_source);
	fprintf(f, "experiment '%s', backend '%s', %zu blocks; baseline '%s', alpha %.3g, margin "
		   "%s\n\n", a->experiment_name, a->backend, a->blocks, a->baseline, a->alpha, mb);
	fprintf(f, "**%s**: %zu FAIL, %zu WARN, %zu PASS\n\n", audit_status_name(audit_worst(a)),
		a->counts[AUDIT_FAIL], a->counts[AUDIT_WARN], a->counts[AUDIT_PASS]);
	fprintf(f, "| check | status | finding |\n|---|---|---|\n");
	for (size_t i = 0; i < a->nchecks; i++) {
		const struct audit_check *k = &a->checks[i];
		fprintf(f, "| %s | %s%s%s | ", k->title, k->status ? "**" : "",
			audit_status_name(k->status), k->status ? "**" : "");
		md_text(f, k->summary ? k->summary : "");
		fputs(" |\n", f);
	}
	for (size_t i = 0; i < a->nchecks; i++) {
		const struct audit_check *k = &a->checks[i];
		fprintf(f, "\n## %s: %s\n\n%s\n", k->title, audit_status_name(k->status),
			k->summary ? k->summary : "");
		if (k->nevidence)
			fputc('\n', f);
		for (size_t e = 0; e < k->nevidence; e++)
			fprintf(f, "- %s\n", k->evidence[e]);
	}
}

int audit_write(const struct audit *a, enum audit_format fmt, FILE *f)
{
	if (fmt == AUDIT_JSON) {
		if (jw_dump(audit_json(a), f, JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER,
			    "audit"))
			return -1;
	} else {
		audit_md(a, f);
	}
	return ferror(f) ? error_errno("cannot write the audit") : 0;
}
