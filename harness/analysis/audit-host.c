/* audit-host.c: the audit's host-load check: other work on the host's CPUs while the units
 * ran, from what the harness added to each unit's info (unit.h, "the host's CPU note").
 * Files from before those were recorded have no such check. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/audit-check.h"
#include "harness/base/util.h"
#include "stats/stats.h"

/* A unit is loaded when other work kept at least this share of the host's CPUs busy on
 * average while it ran, and at least one CPU: a host-bound cell (one thread launching a
 * forward, a CPU op) then competes for its core or its caches. */
#define HOST_LOADED_SHARE 0.25

/* The other work, in CPUs, at and above which a unit on a host of cpus CPUs is loaded. */
static double loaded_bar(double cpus)
{
	return fmax(1.0, HOST_LOADED_SHARE * cpus);
}

int audit_host_check(struct audit *au, const char *path)
{
	struct rec_unit *u = NULL;
	char **info = NULL;
	size_t nu = 0;
	double *other = NULL, *work = NULL, *cpus = NULL, *x = NULL;
	char *loaded_at = NULL;

	if (audit_read_infos(path, &u, &info, &nu))
		return -1;
	other = xcalloc(nu + 1, sizeof(*other));
	cpus = xcalloc(nu + 1, sizeof(*cpus));
	work = xcalloc(nu + 1, sizeof(*work));
	x = xcalloc(nu + 1, sizeof(*x));
	loaded_at = xcalloc(nu + 1, 1);
	size_t known = 0;
	for (size_t i = 0; i < nu; i++) {
		double busy = audit_info_num(info[i], "host_busy_cpus");
		double own = audit_info_num(info[i], "host_unit_cpus");
		cpus[i] = audit_info_num(info[i], "host_cpus");
		other[i] = NAN;
		if (isnan(busy) || isnan(own) || !(cpus[i] > 0))
			continue;
		other[i] = busy > own ? busy - own : 0;
		known++;
	}
	if (!known)
		goto done;

	struct audit_check *k = audit_add(au, "host-load", "the host's CPUs free of other work");
	size_t loaded = 0, worst = 0;
	for (size_t i = 0; i < nu; i++) {
		if (isnan(other[i]))
			continue;
		if (isnan(other[worst]) || other[i] > other[worst])
			worst = i;
		if (other[i] >= loaded_bar(cpus[i])) {
			loaded_at[i] = 1;
			loaded++;
			audit_unit(k, u[i].id);
		}
	}
	/* per mode: the median and the most, and how many of its units were loaded */
	for (size_t i = 0; i < nu; i++) {
		int seen = 0;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(u[j].mode, u[i].mode))
				seen = 1;
		if (seen)
			continue;
		size_t n = 0, nl = 0, most = i;
		for (size_t j = i; j < nu; j++) {
			if (strcmp(u[j].mode, u[i].mode) || isnan(other[j]))
				continue;
			x[n++] = other[j];
			if (isnan(other[most]) || other[j] > other[most])
				most = j;
			nl += loaded_at[j];
		}
		if (n) {
			struct stats_summary s;
			stats_summarize(x, 1, n, work, &s);
			audit_ev(k, "'%s': other work kept %.2f of the host's %.0f CPUs busy "
				    "(median over %zu unit%s; the most %.2f, unit %lld); %zu loaded",
				 u[i].mode, s.median, cpus[most], n, n == 1 ? "" : "s", other[most],
				 (long long)u[most].id, nl);
			if (nl)
				audit_mode(k, u[i].mode);
		}
	}
	double bar = loaded_bar(cpus[worst]);
	if (loaded) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "%zu of %zu units ran while other work kept %.2f or more of the "
				 "host's %.0f CPUs busy (the most %.2f, unit %lld): host-bound cells "
				 "(a stream-launched forward, CPU ops) time that contention too",
			      loaded, known, bar, cpus[worst], other[worst], (long long)u[worst].id);
	} else {
		audit_summary(k, "other work kept at most %.2f of the host's %.0f CPUs busy while a "
				 "unit ran (unit %lld), under %.2f in every unit",
			      other[worst], cpus[worst], (long long)u[worst].id, bar);
	}
done:
	audit_infos_free(u, info, nu, nu);
	free(other);
	free(cpus);
	free(work);
	free(x);
	free(loaded_at);
	return 0;
}
