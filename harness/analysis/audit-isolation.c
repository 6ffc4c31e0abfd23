/* audit-isolation.c: the audit's isolation check: whether every unit ran where it could not
 * reach the record, from what the harness added to each unit's info
 * (host_unit_isolation, host_unit_isolation_refused: harness/base/sandbox.h, unit.h).
 * Files from before the sandbox have no such check. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "harness/analysis/audit-check.h"
#include "harness/base/sandbox.h"
#include "harness/base/util.h"

/* The steps that keep the record out of a unit's reach, and what a unit could do without
 * each (the user namespace is only a means to them: a harness run as root has them
 * without one). */
static const struct {
	int step;
	const char *without;
} needed[] = {
	{ SANDBOX_MOUNT, "could write the run folder and the results file (the journal's digests "
			 "still catch a changed or copied entry)" },
	{ SANDBOX_PID, "could leave processes running after it ended, and beside a --resume "
		       "after its harness was killed" },
	{ SANDBOX_PROC, "could list the harness's processes and their command lines (their "
			"environment stays closed to it)" },
	{ SANDBOX_CAPS, "kept capabilities, with which it could undo the other steps" },
};

/* 1 when the comma-separated list has the word w. */
static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = list; *p;) {
		const char *e = strchrnul(p, ',');
		if ((size_t)(e - p) == n && !strncmp(p, w, n))
			return 1;
		p = *e ? e + 1 : e;
	}
	return 0;
}

int audit_isolation_check(struct audit *au, const char *path)
{
	struct rec_unit *u = NULL;
	char **info = NULL;
	size_t nu = 0;
	if (audit_read_infos(path, &u, &info, &nu))
		return -1;
	char held[256], why[512];
	size_t known = 0, with_user = 0, missing[ARRAY_SIZE(needed)] = { 0 };
	size_t first[ARRAY_SIZE(needed)] = { 0 };
	struct audit_check *k = NULL;
	for (size_t i = 0; i < nu; i++)
		if (*rec_info_get(info[i], "host_unit_isolation", held, sizeof(held)))
			known++;
	if (!known)
		goto done;
	k = audit_add(au, "isolation", "units sandboxed from the record");
	for (size_t i = 0; i < nu; i++) {
		if (!*rec_info_get(info[i], "host_unit_isolation", held, sizeof(held)))
			continue;
		with_user += has_word(held, sandbox_step_name(SANDBOX_USER));
		for (size_t s = 0; s < ARRAY_SIZE(needed); s++) {
			if (has_word(held, sandbox_step_name(needed[s].step)))
				continue;
			if (!missing[s]++)
				first[s] = i;
			audit_unit(k, u[i].id);
			audit_mode(k, u[i].mode);
		}
	}
	size_t nmiss = 0;
	for (size_t s = 0; s < ARRAY_SIZE(needed); s++) {
		if (!missing[s])
			continue;
		nmiss++;
		rec_info_get(info[first[s]], "host_unit_isolation_refused", why, sizeof(why));
		audit_ev(k, "%zu of %zu units ran without '%s' (unit %lld: %s): such a unit %s",
			 missing[s], known, sandbox_step_name(needed[s].step),
			 (long long)u[first[s]].id, *why ? why : "no reason recorded",
			 needed[s].without);
	}
	if (known < nu)
		audit_ev(k, "%zu of %zu units record no sandbox (written by a harness from before "
			    "it, merged in)", nu - known, nu);
	audit_ev(k, "a user namespace in %zu of %zu units (without one, the steps need the "
		    "harness to run as root)", with_user, known);
	if (nmiss || known < nu) {
		audit_raise(k, AUDIT_WARN);
		if (nmiss)
			audit_summary(k, "units ran outside part of the sandbox (%zu of its 4 "
					 "steps missing in some unit; why, below): the record was "
					 "within their reach", nmiss);
		else
			audit_summary(k, "%zu of %zu units record no sandbox: the record may "
					 "have been within their reach", nu - known, nu);
	} else {
		audit_summary(k, "every unit (%zu) ran in a PID namespace of its own, with the "
				 "results folder read-only, its own /proc and no capabilities",
			      known);
	}
done:
	audit_infos_free(u, info, nu, nu);
	return 0;
}
