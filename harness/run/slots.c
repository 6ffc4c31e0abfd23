/* slots.c: shares of the host for units run side by side (see slots.h) */
#include "config.h"
#include "harness/run/slots.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "harness/base/spawn.h"
#include "harness/base/util.h"

char *slots_cpulist(const cpu_set_t *set)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "");
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int e = c;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		if (e == c)
			sbuf_addf(&sb, "%s%d", sb.len ? "," : "", c);
		else
			sbuf_addf(&sb, "%s%d-%d", sb.len ? "," : "", c, e);
		c = e;
	}
	return sbuf_detach(&sb);
}

/* Split the harness's cores evenly among n slots (already allocated). */
static int split_cores(struct slots *sl, const char *what)
{
	cpu_set_t mine;
	if (sched_getaffinity(0, sizeof(mine), &mine) < 0)
		return error_errno("cannot read the harness's CPU affinity");
	int ncpu = CPU_COUNT(&mine);
	if ((size_t)ncpu < sl->n)
		return error("%s: %zu slots, but the harness may use only %d core%s (one slot needs "
			     "one core at least)", what, sl->n, ncpu, ncpu == 1 ? "" : "s");
	size_t per = (size_t)ncpu / sl->n;
	int c = 0;
	for (size_t i = 0; i < sl->n; i++) {
		CPU_ZERO(&sl->s[i].set);
		for (size_t got = 0; got < per; c++) {
			if (!CPU_ISSET(c, &mine))
				continue;
			CPU_SET(c, &sl->s[i].set);
			got++;
		}
		sl->s[i].cpus = slots_cpulist(&sl->s[i].set);
	}
	return 0;
}

static void slots_alloc(struct slots *sl, size_t n)
{
	memset(sl, 0, sizeof(*sl));
	sl->n = n;
	sl->s = xcalloc(n, sizeof(*sl->s));
	sl->order = xcalloc(n, sizeof(*sl->order));
	for (size_t i = 0; i < n; i++)
		sl->order[i] = i;
}

int slots_cpu(int n, const char *what, struct slots *out)
{
	if (n < 1)
		return error("%s: %d is not a number of slots (1 or more)", what, n);
	slots_alloc(out, (size_t)n);
	if (split_cores(out, what)) {
		slots_release(out);
		return -1;
	}
	for (size_t i = 0; i < out->n; i++)
		out->s[i].device = xasprintf("cpu:%s", out->s[i].cpus);
	return 0;
}

/* The GPUs nvidia-smi lists: index i's UUID in uuid[i] (heap strings, *n of them).  -1
 * reported. */
static int list_gpus(const char *what, char ***uuid, size_t *n)
{
	const char *argv[] = { "nvidia-smi", "--query-gpu=index,uuid", "--format=csv,noheader",
			       NULL };
	struct spawn sp;
	struct spawn_status st;
	struct sbuf out;
	sbuf_init(&out);
	spawn_init(&sp);
	sp.argv = argv;
	sp.env = NULL;
	*uuid = NULL;
	*n = 0;
	char *prog = spawn_find_program("nvidia-smi", NULL);
	if (!prog) {
		sbuf_release(&out);
		return error("%s: no GPU to run on: 'nvidia-smi' is not installed here (the "
			     "NVIDIA driver's tool lists the GPUs and their UUIDs); use --jobs N to "
			     "run units side by side on the CPU", what);
	}
	const char *penv[] = { NULL, NULL };
	char *pathv = xasprintf("PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	penv[0] = pathv;
	sp.env = penv;
	free(prog);
	int rc = spawn_run(&sp, &out, &st);
	free(pathv);
	if (rc == 0 && (!st.exited || st.code != 0))
		rc = error("%s: no GPU to run on: 'nvidia-smi' failed (status %d): is the "
			   "NVIDIA driver loaded?", what, st.code);
	size_t cap = 0;
	for (char *line = out.buf, *next; rc == 0 && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *comma = strchr(line, ',');
		if (!comma)
			continue;
		char *u = comma + 1;
		while (*u == ' ')
			u++;
		char *end = u + strlen(u);
		while (end > u && (end[-1] == ' ' || end[-1] == '\r'))
			*--end = '\0';
		XGROW(*uuid, cap, *n + 1);
		(*uuid)[(*n)++] = xstrdup(u);
	}
	if (rc == 0 && *n == 0)
		rc = error("%s: no GPU to run on: 'nvidia-smi' lists none", what);
	sbuf_release(&out);
	return rc;
}

int slots_gpus(const char *spec, const char *what, struct slots *out)
{
	char **uuid = NULL;
	size_t nuuid = 0;
	size_t *pick = NULL, npick = 0;
	int ret = -1;
	memset(out, 0, sizeof(*out));
	if (!spec || !*spec)
		return error("%s: give 'all' or GPU indices such as '0,1,3'", what);
	/* The spec is checked before the GPUs are asked for: a typo is a typo anywhere. */
	if (strcmp(spec, "all")) {
		const char *p = spec;
		while (*p) {
			char *end;
			errno = 0;
			unsigned long v = strtoul(p, &end, 10);
			if (end == p || errno || v > 4096 || (*end && *end != ',')) {
				free(pick);
				return error("%s: '%s' is not 'all' or a list of GPU indices "
					     "such as '0,1,3'", what, spec);
			}
			for (size_t i = 0; i < npick; i++)
				if (pick[i] == v) {
					free(pick);
					return error("%s: GPU %lu is listed twice in '%s'", what, v,
						     spec);
				}
			pick = xrealloc(pick, (npick + 1) * sizeof(*pick));
			pick[npick++] = v;
			p = *end ? end + 1 : end;
		}
	}
	if (list_gpus(what, &uuid, &nuuid))
		goto done;
	if (!pick) {
		/* "all": the GPUs this process was given (a batch system's CUDA_VISIBLE_DEVICES,
		 * by index or UUID), else every GPU nvidia-smi lists. */
		const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
		pick = xcalloc(nuuid, sizeof(*pick));
		for (size_t i = 0; i < nuuid; i++) {
			int given = !cvd || !*cvd;
			char *list = cvd ? xstrdup(cvd) : NULL, *save = NULL;
			for (char *t = list ? strtok_r(list, ",", &save) : NULL; t && !given;
			     t = strtok_r(NULL, ",", &save)) {
				char idx[32];
				snprintf(idx, sizeof(idx), "%zu", i);
				given = !strcmp(t, idx) || !strncmp(uuid[i], t, strlen(t));
			}
			free(list);
			if (given)
				pick[npick++] = i;
		}
		if (!npick) {
			error("%s 'all': CUDA_VISIBLE_DEVICES='%s' names none of the %zu GPUs "
			      "nvidia-smi lists", what, cvd, nuuid);
			goto done;
		}
	}
	for (size_t i = 0; i < npick; i++)
		if (pick[i] >= nuuid) {
			error("%s: there is no GPU %zu here (nvidia-smi lists %zu: 0 to %zu)",
			      what, pick[i], nuuid, nuuid - 1);
			goto done;
		}
	slots_alloc(out, npick);
	out->gpus = 1;
	if (split_cores(out, what))
		goto done;
	for (size_t i = 0; i < npick; i++) {
		out->s[i].device = xstrdup(uuid[pick[i]]);
		out->s[i].gpu_index = xasprintf("%zu", pick[i]);
	}
	ret = 0;
done:
	if (ret)
		slots_release(out);
	for (size_t i = 0; i < nuuid; i++)
		free(uuid[i]);
	free(uuid);
	free(pick);
	return ret;
}

int slots_shuffle(struct slots *sl, uint64_t seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng)
		return error("cannot allocate the GSL random number generator");
	/* Its own stream: the plan's draws (plan.c) are seeded with the seed itself. */
	gsl_rng_set(rng, (unsigned long)(seed ^ 0x5107u));
	gsl_ran_shuffle(rng, sl->order, sl->n, sizeof(*sl->order));
	gsl_rng_free(rng);
	return 0;
}

char *slots_json(const struct slots *sl)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "{\"slots\":[");
	for (size_t i = 0; i < sl->n; i++) {
		sbuf_addf(&sb, "%s{\"slot\":%zu,\"device\":", i ? "," : "", i);
		sbuf_add_json_string(&sb, sl->s[i].device);
		sbuf_adds(&sb, ",\"cpus\":");
		sbuf_add_json_string(&sb, sl->s[i].cpus);
		if (sl->s[i].gpu_index)
			sbuf_addf(&sb, ",\"gpu_index\":%s", sl->s[i].gpu_index);
		sbuf_adds(&sb, "}");
	}
	sbuf_adds(&sb, "],\"order\":[");
	for (size_t i = 0; i < sl->n; i++)
		sbuf_addf(&sb, "%s%zu", i ? "," : "", sl->order[i]);
	sbuf_adds(&sb, "]}");
	return sbuf_detach(&sb);
}

void slots_release(struct slots *sl)
{
	for (size_t i = 0; sl->s && i < sl->n; i++) {
		free(sl->s[i].device);
		free(sl->s[i].cpus);
		free(sl->s[i].gpu_index);
	}
	free(sl->s);
	free(sl->order);
	memset(sl, 0, sizeof(*sl));
}
