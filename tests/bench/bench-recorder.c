/* bench-recorder.c: how fast the recorder writes samples (rate, file size, peak RSS).
 *
 * usage: bench-recorder [DIR [SCENARIO]]
 *   DIR: where the scratch files go (default $TMPDIR or /tmp); SCENARIO: run only that one
 *
 * Each scenario makes a fresh run folder, writes units of realistic shape (10 cells,
 * 30 tuning trials, high-entropy timings) to its journal exactly as the scheduler does
 * (rec_journal_write_unit: built in memory, written, fsynced, renamed, read back and
 * verified), then assembles the results file from the journal (rec_assemble), and prints
 * one line:
 *   scenario=<name> units=<n> samples=<n> seconds=<s> msamples_per_s=<r> file_mb=<m>
 *   bytes_per_sample=<b> peak_rss_mb=<m> journal_s=<s> assemble_s=<s>
 * (seconds = journal_s + assemble_s, the time to record every sample durably and make the
 * results file)
 * Peak RSS is the process's high-water mark so far (getrusage), so it only grows.
 * Units cycle through four modes in blocks of four; with BENCH_KEEP set in the environment
 * the files stay in DIR (tests/bench/run.sh times `harness report` on them). */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/record/recorder.h"
#include "harness/base/util.h"

#define NCELLS 10
#define NTRIALS 30

struct scenario {
	const char *name;
	size_t units;
	size_t samples_per_unit;
};

static const struct scenario scenarios[] = {
	{ "100x100k", 100, 100000 },
	{ "1000x10k", 1000, 10000 },
	{ "10000x1k", 10000, 1000 },
};

/* xorshift64*, so the timings are not trivially compressible. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Fill u as unit id with n samples spread over NCELLS cells (allocations are reused by
 * the caller across units: only the numbers change). */
static void fill_unit(struct rec_unit_data *u, int64_t id, size_t n)
{
	char buf[64];
	if (!u->cells) {
		u->unit.mode = xstrdup("beam-4");
		u->unit.status = xstrdup(REC_STATUS_OK);
		u->unit.cache_dir = xstrdup("results/bench/cache/u0000-abcdef");
		u->unit.start_utc = xstrdup("2024-06-11T12:00:00Z");
		u->unit.end_utc = xstrdup("2024-06-11T12:00:09Z");
		u->unit.stdout_log = xstrdup("bench/logs/u0000.out");
		u->unit.stderr_log = xstrdup("bench/logs/u0000.err");
		u->unit.argv_json = xstrdup("[\"harness\",\"worker\"]");
		u->unit.env_json = xstrdup("{\"PATH\":\"/usr/bin\"}");
		u->unit.message = xstrdup("");
		u->ncells = NCELLS;
		u->cells = xcalloc(NCELLS, sizeof(*u->cells));
		for (size_t c = 0; c < NCELLS; c++) {
			snprintf(buf, sizeof(buf), "conv%zu 3x3 s1", c);
			u->cells[c].name = xstrdup(buf);
			u->cells[c].kind = xstrdup("op");
			u->cells[c].workload = xstrdup("resnet18");
			u->cells[c].op = xstrdup("conv2d");
			u->cells[c].shape = xstrdup("1x64x56x56");
			u->cells[c].count = 2;
			u->cells[c].flops = 2.31e8;
		}
		u->ntrials = NTRIALS;
		u->trials = xcalloc(NTRIALS, sizeof(*u->trials));
		for (size_t t = 0; t < NTRIALS; t++) {
			snprintf(buf, sizeof(buf), "{\"tile\":%zu,\"unroll\":%zu}", (size_t)8 << (t % 4), t);
			u->trials[t].cell = (int64_t)(t % NCELLS);
			u->trials[t].config = xstrdup(buf);
			u->trials[t].status = xstrdup("ok");
		}
		u->nchoices = u->nmeasures = NCELLS;
		u->choices = xcalloc(NCELLS, sizeof(*u->choices));
		u->measures = xcalloc(NCELLS, sizeof(*u->measures));
		for (size_t c = 0; c < NCELLS; c++) {
			u->choices[c].cell = u->measures[c].cell = (int64_t)c;
			u->choices[c].config = xstrdup("{\"tile\":32}");
			u->choices[c].reason = xstrdup("tuned");
			u->measures[c].stop = xstrdup("precision");
		}
	}
	u->unit.id = id;
	u->unit.pid = 40000 + id;
	u->unit.wall_ns = (int64_t)(9e9 + (double)(rng() % 1000000));
	for (size_t t = 0; t < NTRIALS; t++)
		u->trials[t].median_ns = 1e5 + (double)(rng() % 100000);
	if (u->samples_cap < n) {
		u->sample_cell = xrealloc(u->sample_cell, n * sizeof(int64_t));
		u->sample_index = xrealloc(u->sample_index, n * sizeof(int64_t));
		u->sample_ns = xrealloc(u->sample_ns, n * sizeof(int64_t));
		u->samples_cap = n;
	}
	for (size_t i = 0; i < n; i++) {
		u->sample_cell[i] = (int64_t)(i % NCELLS);
		u->sample_index[i] = (int64_t)(i / NCELLS);
		/* ~120 us with a few percent of noise, ns resolution */
		u->sample_ns[i] = 120000 + (int64_t)(rng() % 4000);
	}
	u->nsamples = n;
}

static double peak_rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static int run_scenario(const char *dir, const struct scenario *sc)
{
	char *path = xasprintf("%s/bench-%s.h5", dir, sc->name);
	char *rundir = xasprintf("%s/bench-%s", dir, sc->name);
	struct rec_meta meta;
	struct rec_journal *j = NULL;
	struct rec_unit_data u;
	struct rec_plan *plan = xcalloc(sc->units, sizeof(*plan));
	int rc = -1;

	unlink(path);
	util_rm_rf(rundir);
	rec_meta_init(&meta);
	rec_meta_set(&meta, "experiment_name", "bench");
	rec_meta_add_file(&meta, "experiment", "bench.toml", "[experiment]\n", 13);
	/* four modes in blocks of four, so `harness report` has comparisons to make */
	static const char *const modes[] = { "beam-4", "default", "exhaustive", "heuristic" };
	for (size_t i = 0; i < sc->units; i++) {
		plan[i].id = (int64_t)i;
		plan[i].mode = (char *)modes[i % 4];
		plan[i].block = plan[i].repeat = (int64_t)(i / 4);
		plan[i].position = (int64_t)(i % 4);
		plan[i].warm_of = -1;
	}
	rec_unit_data_init(&u);

	if (util_mkdir_p(rundir, 0755) < 0)
		goto done;
	int64_t t0 = util_now_ns();
	int64_t fill_ns = 0;
	if (rec_journal_create(rundir, &meta, plan, sc->units, &j) < 0)
		goto done;
	for (size_t i = 0; i < sc->units; i++) {
		int64_t f0 = util_now_ns();
		fill_unit(&u, (int64_t)i, sc->samples_per_unit);
		free(u.unit.mode);
		u.unit.mode = xstrdup(modes[i % 4]);
		u.unit.block = u.unit.repeat = plan[i].block;
		u.unit.position = plan[i].position;
		fill_ns += util_now_ns() - f0;
		if (rec_journal_write_unit(j, &u) < 0)
			goto done;
	}
	int64_t t1 = util_now_ns();
	const char *dirs[] = { rundir };
	if (rec_assemble(dirs, 1, path) < 0)
		goto done;
	int64_t t2 = util_now_ns();
	double journal_s = (double)(t1 - t0 - fill_ns) / 1e9, assemble_s = (double)(t2 - t1) / 1e9;
	double secs = journal_s + assemble_s;

	struct stat st;
	if (stat(path, &st) < 0) {
		error_errno("'%s': cannot stat", path);
		goto done;
	}
	double total = (double)sc->units * (double)sc->samples_per_unit;
	printf("scenario=%s units=%zu samples=%.0f seconds=%.3f msamples_per_s=%.2f file_mb=%.1f "
	       "bytes_per_sample=%.2f peak_rss_mb=%.1f journal_s=%.3f assemble_s=%.3f\n",
	       sc->name, sc->units, total, secs, total / secs / 1e6, (double)st.st_size / 1e6,
	       (double)st.st_size / total, peak_rss_mb(), journal_s, assemble_s);
	fflush(stdout);
	rc = 0;
done:
	rec_journal_close(j);
	util_rm_rf(rundir);
	if (!getenv("BENCH_KEEP"))
		unlink(path);
	rec_unit_data_release(&u);
	rec_meta_release(&meta);
	free(plan);
	free(rundir);
	free(path);
	return rc;
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	const char *dir = argc > 1 ? argv[1] : tmp && *tmp ? tmp : "/tmp";
	const char *only = argc > 2 ? argv[2] : NULL;
	int failed = 0, ran = 0;
	for (size_t k = 0; k < ARRAY_SIZE(scenarios); k++) {
		if (only && strcmp(only, scenarios[k].name))
			continue;
		ran = 1;
		if (run_scenario(dir, &scenarios[k]) < 0)
			failed = 1;
	}
	if (!ran) {
		error("unknown scenario '%s'", only);
		return 2;
	}
	if (fflush(stdout) || ferror(stdout)) {
		error("cannot write to standard output");
		return 1;
	}
	return failed;
}
