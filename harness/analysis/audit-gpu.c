/* audit-gpu.c: the audit's GPU checks (see audit-gpu.h; the rules in docs/audit.md) */
#include "config.h"
#include "harness/analysis/audit-gpu.h"
#include "harness/analysis/audit-check.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/base/util.h"
#include "harness/record/recorder.h"

static struct audit_check *add(struct audit *a, const char *id, const char *title)
{
	a->checks = xrealloc(a->checks, (a->nchecks + 1) * sizeof(*a->checks));
	struct audit_check *k = &a->checks[a->nchecks++];
	memset(k, 0, sizeof(*k));
	k->id = id;
	k->title = title;
	return k;
}

static void raise_to(struct audit_check *k, enum audit_status s)
{
	if (s > k->status)
		k->status = s;
}

static void summary(struct audit_check *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void summary(struct audit_check *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(k->summary);
	k->summary = xvasprintf(fmt, ap);
	va_end(ap);
}

static void ev(struct audit_check *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ev(struct audit_check *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	XGROW(k->evidence, k->evidence_cap, k->nevidence + 1);
	k->evidence[k->nevidence++] = xvasprintf(fmt, ap);
	va_end(ap);
}

static void name_mode(struct audit_check *k, const char *m)
{
	for (size_t i = 0; i < k->nmodes; i++)
		if (!strcmp(k->modes[i], m))
			return;
	XGROW(k->modes, k->modes_cap, k->nmodes + 1);
	k->modes[k->nmodes++] = xstrdup(m);
}

static void name_unit(struct audit_check *k, int64_t id)
{
	XGROW(k->units, k->units_cap, k->nunits + 1);
	k->units[k->nunits++] = id;
}

double audit_info_num(const char *info, const char *key)
{
	char buf[64];
	double v;
	if (!*rec_info_get(info, key, buf, sizeof(buf)) || parse_double(buf, -1e300, 1e300, &v))
		return NAN;
	return v;
}

int audit_read_infos(const char *path, struct rec_unit **u, char ***info, size_t *n)
{
	struct rec *r = NULL;
	size_t ni = 0;
	int ret = -1;
	*u = NULL;
	*info = NULL;
	*n = 0;
	if (rec_open(path, 0, &r) || rec_read_units(r, u, n) || rec_read_unit_infos(r, info, &ni))
		goto done;
	if (ni != *n) {
		error("'%s': %zu unit infos for %zu units", path, ni, *n);
		goto done;
	}
	ret = 0;
done:
	if (r && rec_close(r))
		ret = -1;
	if (ret) {
		audit_infos_free(*u, *info, *n, ni);
		*u = NULL;
		*info = NULL;
		*n = 0;
	}
	return ret;
}

void audit_infos_free(struct rec_unit *u, char **info, size_t nu, size_t ni)
{
	rec_units_free(u, nu);
	for (size_t i = 0; info && i < ni; i++)
		free(info[i]);
	free(info);
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct mode_clock {
	const char *mode;
	double *mhz;
	size_t n, cap;
	size_t samples, throttled, unknown;
	size_t reason[64]; /* throttled samples with each clock-event reason bit set */
};

/* NVML's clock-event reason bits (nvml.h, nvmlClocksEventReason*), by bit; bit 0 (idle)
 * never makes a sample throttled. */
static const char *const reason_names[] = {
	"idle", "applications clocks setting", "sw power cap", "hw slowdown", "sync boost",
	"sw thermal slowdown", "hw thermal slowdown", "hw power brake slowdown",
	"display clock setting",
};

/* "sw power cap on 960, hw slowdown on 3" for the reason counts c (bits above idle), into
 * buf; "" when no throttled sample carried its reasons. */
static void reasons_text(const size_t *c, char *buf, size_t size)
{
	size_t at = 0;
	buf[0] = 0;
	for (int b = 1; b < 64 && at < size; b++) {
		if (!c[b])
			continue;
		char unk[16];
		snprintf(unk, sizeof(unk), "bit %d", b);
		int w = snprintf(buf + at, size - at, "%s%s on %zu", at ? ", " : "",
				 b < (int)ARRAY_SIZE(reason_names) ? reason_names[b] : unk, c[b]);
		at += w > 0 ? (size_t)w : 0;
	}
}

static struct mode_clock *mode_of(struct mode_clock **m, size_t *n, const char *mode)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*m)[i].mode, mode))
			return &(*m)[i];
	*m = xrealloc(*m, (*n + 1) * sizeof(**m));
	memset(&(*m)[*n], 0, sizeof(**m));
	(*m)[*n].mode = mode;
	return &(*m)[(*n)++];
}

/* Median SM clock per mode (cold ok units' samples), and the throttled share. */
static int check_clocks_throttle(struct audit *au, struct rec *r, const struct rec_unit *u,
				 size_t nu)
{
	struct mode_clock *m = NULL;
	size_t nm = 0;
	int ret = -1;
	for (size_t i = 0; i < nu; i++) {
		if (u[i].warm || strcmp(u[i].status, REC_STATUS_OK))
			continue;
		double *clk = NULL;
		int *thr = NULL;
		int64_t *launches = NULL, *reasons = NULL;
		size_t n = 0;
		if (rec_read_unit_sample_extras(r, i, &clk, &thr, &launches, &reasons, &n))
			goto done;
		struct mode_clock *mc = mode_of(&m, &nm, u[i].mode);
		for (size_t s = 0; s < n; s++) {
			mc->samples++;
			if (thr[s] == 1) {
				mc->throttled++;
				for (int b = 1; reasons[s] > 0 && b < 64; b++)
					mc->reason[b] += (uint64_t)reasons[s] >> b & 1;
			} else if (thr[s] < 0)
				mc->unknown++;
			if (!isnan(clk[s])) {
				XGROW(mc->mhz, mc->cap, mc->n + 1);
				mc->mhz[mc->n++] = clk[s];
			}
		}
		free(clk);
		free(thr);
		free(launches);
		free(reasons);
	}

	struct audit_check *k = add(au, "gpu-clocks", "GPU clocks the same for every mode");
	double hi = 0, lo = INFINITY;
	size_t with = 0;
	for (size_t i = 0; i < nm; i++) {
		if (!m[i].n)
			continue;
		qsort(m[i].mhz, m[i].n, sizeof(double), dcmp);
		double med = m[i].n % 2 ? m[i].mhz[m[i].n / 2]
					: 0.5 * (m[i].mhz[m[i].n / 2 - 1] + m[i].mhz[m[i].n / 2]);
		ev(k, "'%s': median SM clock %.0f MHz over %zu samples (range %.0f-%.0f)", m[i].mode,
		   med, m[i].n, m[i].mhz[0], m[i].mhz[m[i].n - 1]);
		hi = med > hi ? med : hi;
		lo = med < lo ? med : lo;
		with++;
	}
	if (!with) {
		raise_to(k, AUDIT_WARN);
		summary(k, "not evaluated: no sample has an SM clock reading (NVML unavailable?)");
	} else if (hi > 0 && (hi - lo) / hi > AUDIT_GPU_CLOCK_TOL) {
		raise_to(k, AUDIT_WARN);
		for (size_t i = 0; i < nm; i++)
			name_mode(k, m[i].mode);
		summary(k, "the modes ran at different SM clocks: medians %.0f to %.0f MHz (%.1f%%, "
			   "tolerance %.0f%%): timings compare clocks as well as kernels", lo, hi,
			100 * (hi - lo) / hi, 100 * AUDIT_GPU_CLOCK_TOL);
	} else {
		summary(k, "the modes' median SM clocks agree within %.0f%% (%.0f to %.0f MHz)",
			100 * AUDIT_GPU_CLOCK_TOL, lo, hi);
	}

	k = add(au, "gpu-throttle", "throttled samples");
	size_t bad = 0, total = 0, unknown = 0, bad_reason[64] = { 0 };
	char why[512];
	for (size_t i = 0; i < nm; i++) {
		total += m[i].samples;
		unknown += m[i].unknown;
		double share = m[i].samples ? (double)m[i].throttled / (double)m[i].samples : 0;
		reasons_text(m[i].reason, why, sizeof(why));
		if (m[i].throttled)
			ev(k, "'%s': %zu of %zu samples throttled (%.2f%%)%s%s", m[i].mode,
			   m[i].throttled, m[i].samples, 100 * share, why[0] ? ": " : "", why);
		if (share > AUDIT_GPU_THROTTLE_TOL) {
			bad++;
			raise_to(k, AUDIT_WARN);
			name_mode(k, m[i].mode);
			for (int b = 0; b < 64; b++)
				bad_reason[b] += m[i].reason[b];
		}
	}
	reasons_text(bad_reason, why, sizeof(why));
	if (unknown == total && total) {
		raise_to(k, AUDIT_WARN);
		summary(k, "not evaluated: no sample says whether the GPU throttled");
	} else if (bad) {
		summary(k, "%zu mode(s) have more than %.0f%% of their samples taken while the GPU "
			   "reported a clock-event reason other than idle (%s)",
			bad, 100 * AUDIT_GPU_THROTTLE_TOL,
			why[0] ? why : "which one was not recorded");
	} else {
		summary(k, "no mode has more than %.0f%% of its samples throttled",
			100 * AUDIT_GPU_THROTTLE_TOL);
	}
	ret = 0;
done:
	for (size_t i = 0; i < nm; i++)
		free(m[i].mhz);
	free(m);
	return ret;
}

/* Temperature across the run, other processes, and the GPU's identity within a block. */
static void check_state(struct audit *au, const struct rec_unit *u, char **info, size_t nu)
{
	char a[128], b[128];
	struct audit_check *k = add(au, "gpu-temperature", "GPU temperature across the run");
	/* Per GPU: one card's 31 C against another's 47 C is two cards, not a drift (a study
	 * resumed on other machines read so until 2026-11-26).  The widest GPU decides. */
	double wlo = NAN, whi = NAN;
	int64_t wulo = -1, wuhi = -1;
	size_t ngpu = 0;
	char *done = xcalloc(nu + 1, 1);
	for (size_t g = 0; g < nu; g++) {
		if (done[g])
			continue;
		analysis_unit_gpu(info[g], a, sizeof(a));
		double tlo = INFINITY, thi = -INFINITY;
		int64_t ulo = -1, uhi = -1;
		for (size_t i = g; i < nu; i++) {
			if (done[i] || strcmp(analysis_unit_gpu(info[i], b, sizeof(b)), a))
				continue;
			done[i] = 1;
			static const char *const keys[] = { "gpu_open_temperature_c",
							    "gpu_close_temperature_c" };
			for (int j = 0; j < 2; j++) {
				double t = audit_info_num(info[i], keys[j]);
				if (isnan(t))
					continue;
				if (t < tlo)
					tlo = t, ulo = u[i].id;
				if (t > thi)
					thi = t, uhi = u[i].id;
			}
		}
		if (ulo < 0)
			continue;
		ngpu++;
		ev(k, "%s: %.0f to %.0f C (units %lld and %lld)", *a ? a : "(GPU not named)", tlo,
		   thi, (long long)ulo, (long long)uhi);
		if (wulo < 0 || thi - tlo > whi - wlo)
			wlo = tlo, whi = thi, wulo = ulo, wuhi = uhi;
	}
	free(done);
	if (wulo < 0) {
		raise_to(k, AUDIT_WARN);
		summary(k, "not evaluated: no unit recorded the GPU's temperature");
	} else if (whi - wlo > AUDIT_GPU_TEMP_TOL) {
		raise_to(k, AUDIT_WARN);
		name_unit(k, wulo);
		name_unit(k, wuhi);
		summary(k, "a GPU's temperature drifted by %.0f C across the run (%.0f C in unit "
			   "%lld, %.0f C in unit %lld, one GPU; tolerance %.0f C)", whi - wlo, wlo,
			(long long)wulo, whi, (long long)wuhi, AUDIT_GPU_TEMP_TOL);
	} else {
		summary(k, "within %.0f C on each of %zu GPU(s) at the units' starts and ends "
			   "(tolerance %.0f C)", whi - wlo, ngpu, AUDIT_GPU_TEMP_TOL);
	}

	k = add(au, "gpu-exclusive", "no other process on the GPU");
	size_t busy = 0, read = 0;
	for (size_t i = 0; i < nu; i++) {
		double o = audit_info_num(info[i], "gpu_open_other_process_count");
		double c = audit_info_num(info[i], "gpu_close_other_process_count");
		read += !isnan(o) || !isnan(c);
		if ((o > 0) || (c > 0)) {
			busy++;
			raise_to(k, AUDIT_WARN);
			name_unit(k, u[i].id);
			name_mode(k, u[i].mode);
			ev(k, "unit %lld ('%s'): other processes on the GPU: %s (start), %s (end)",
			   (long long)u[i].id, u[i].mode,
			   *rec_info_get(info[i], "gpu_open_other_processes", a, sizeof(a)) ? a : "none",
			   *rec_info_get(info[i], "gpu_close_other_processes", b, sizeof(b)) ? b : "none");
		}
	}
	if (busy) {
		summary(k, "%zu unit(s) shared the GPU with another process", busy);
	} else if (!read) {
		raise_to(k, AUDIT_WARN);
		summary(k, "not evaluated: no unit recorded the GPU's other processes");
	} else {
		summary(k, "no unit saw another process on the GPU (as far as NVML can tell)%s",
			read < nu ? "; some units did not record them" : "");
	}

	/* Per block, the GPUs its units ran on, each with its unit count and first unit. */
	k = add(au, "gpu-identity", "one GPU per block");
	size_t split = 0;
	for (size_t i = 0; i < nu; i++) {
		size_t first = 0;
		while (first < i && u[first].block != u[i].block)
			first++;
		if (first < i) /* block seen */
			continue;
		struct sbuf sb;
		sbuf_init(&sb);
		size_t gpus = 0, from = k->nunits; /* the groups' first units, named if split */
		for (size_t g = i; g < nu; g++) {
			if (u[g].block != u[i].block || !*analysis_unit_gpu(info[g], a, sizeof(a)))
				continue;
			size_t n = 0, seen = 0;
			for (size_t j = i; j < g && !seen; j++)
				seen = u[j].block == u[i].block &&
				       !strcmp(analysis_unit_gpu(info[j], b, sizeof(b)), a);
			if (seen)
				continue;
			for (size_t j = g; j < nu; j++)
				n += u[j].block == u[i].block &&
				     !strcmp(analysis_unit_gpu(info[j], b, sizeof(b)), a);
			sbuf_addf(&sb, "%s%zu unit(s) on %s (unit %lld first)", gpus++ ? ", " : "", n,
				  a, (long long)u[g].id);
			name_unit(k, u[g].id);
		}
		if (gpus > 1) {
			split++;
			raise_to(k, AUDIT_FAIL);
			ev(k, "block %lld: %s", (long long)u[i].block, sb.buf);
		} else {
			k->nunits = from;
		}
		sbuf_release(&sb);
	}
	if (split)
		summary(k, "%zu block(s) ran on more than one GPU: their comparisons mix devices",
			split);
	else
		summary(k, "every block's units ran on one GPU (by UUID)");
}

/* How the op cells were timed (the CUDA backend's graph-replay.c records it per unit): by graph
 * replay, the GPU's time; on the stream on purpose (HARNESS_CUDA_OP_TIMING=stream); or on
 * the stream after a capture failed.  A stream-timed op cell includes the host's work. */
static void check_op_timing(struct audit *au, const struct rec_unit *u, char **info, size_t nu)
{
	char a[512];
	struct audit_check *k = add(au, "gpu-op-timing", "op cells timed on the GPU, not the host");
	size_t rec = 0, chose = 0, fell = 0;
	for (size_t i = 0; i < nu; i++) {
		double g = audit_info_num(info[i], "op_timing_graph_configs");
		double st = audit_info_num(info[i], "op_timing_stream_configs");
		if (isnan(g) && isnan(st))
			continue;
		rec++;
		if (!strncmp(rec_info_get(info[i], "op_timing", a, sizeof(a)), "stream", 6)) {
			chose++;
			raise_to(k, AUDIT_WARN);
			name_unit(k, u[i].id);
			name_mode(k, u[i].mode);
			ev(k, "unit %lld ('%s'): op cells timed on the stream on purpose "
			      "(HARNESS_CUDA_OP_TIMING=stream)", (long long)u[i].id, u[i].mode);
		} else if (st > 0) {
			fell++;
			raise_to(k, AUDIT_WARN);
			name_unit(k, u[i].id);
			name_mode(k, u[i].mode);
			ev(k, "unit %lld ('%s'): %.0f of %.0f configs timed on the stream after a "
			      "failed capture: %s", (long long)u[i].id, u[i].mode, st,
			   (isnan(g) ? 0 : g) + st,
			   *rec_info_get(info[i], "op_timing_fallback", a, sizeof(a)) ? a : "(no reason)");
		}
	}
	if (!rec) {
		raise_to(k, AUDIT_WARN);
		summary(k, "not recorded: no unit says how its op cells were timed (results from "
			   "before graph replay: stream launches, which time the host where a "
			   "launch's host work outlasts its kernel)");
	} else if (chose || fell) {
		summary(k, "%zu of %zu unit(s) timed op cells on the stream (%zu on purpose, %zu "
			   "after a failed capture): their op-cell times include host overhead; "
			   "compare them with stream-timed cells only", chose + fell, rec, chose, fell);
	} else {
		summary(k, "every config of every op cell in %zu unit(s) was timed by CUDA-graph "
			   "replay", rec);
	}
}

/* The CUDA backend's settings that change what a unit measures, as its info records them
 * (docs/harness.1's backend knobs; placement by its first word, the pad differing by unit). */
static const char *const settings_keys[] = { "cudnn_api", "conv_im2col", "conv_s2d",
					     "conv_tma_only", "cluster_along", "pdl",
					     "nvrtc_fast_compile", "placement" };

/* Unit i's settings as "key=value, ..." into buf (the keys it records; "" with none). */
static void unit_settings(const char *info, char *buf, size_t size)
{
	char v[256];
	size_t n = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < ARRAY_SIZE(settings_keys) && n < size; k++) {
		if (!*rec_info_get(info, settings_keys[k], v, sizeof(v)))
			continue;
		v[strcspn(v, " ")] = '\0';
		n += (size_t)snprintf(buf + n, size - n, "%s%s=%s", n ? ", " : "", settings_keys[k], v);
	}
}

/* Whether every mode ran with the baseline's backend settings: a mode whose units ran with
 * others (a knob in its [modes.environment], or passed to some units only) compares the
 * settings as well as its tuner with the baseline; by design only in an A/B of a setting. */
static void check_settings(struct audit *au, const struct rec_unit *u, char **info, size_t nu)
{
	struct audit_check *k = add(au, "gpu-settings", "the backend's settings alike in every mode");
	char (*set)[512] = xcalloc(nu, sizeof(*set));
	size_t rec = 0, odd = 0;
	const char *ref = NULL; /* the baseline's first unit's settings, else the first unit's */
	int ref_base = 0;
	for (size_t i = 0; i < nu; i++) {
		unit_settings(info[i], set[i], sizeof(set[i]));
		if (!set[i][0])
			continue;
		rec++;
		int base = au->baseline && !strcmp(u[i].mode, au->baseline);
		if (!ref || (base && !ref_base))
			ref = set[i], ref_base = base;
	}
	for (size_t i = 0; ref && i < nu; i++) {
		if (!set[i][0] || !strcmp(set[i], ref))
			continue;
		/* once per mode and settings */
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(u[j].mode, u[i].mode) && !strcmp(set[j], set[i]);
		if (seen)
			continue;
		size_t n = 0;
		for (size_t j = i; j < nu; j++)
			n += !strcmp(u[j].mode, u[i].mode) && !strcmp(set[j], set[i]);
		odd++;
		raise_to(k, AUDIT_WARN);
		name_mode(k, u[i].mode);
		name_unit(k, u[i].id);
		ev(k, "'%s': %zu unit(s) ran with %s, where the %s ran with %s (unit %lld first)",
		   u[i].mode, n, set[i], ref_base ? "baseline" : "first unit", ref,
		   (long long)u[i].id);
	}
	if (!rec) {
		raise_to(k, AUDIT_WARN);
		summary(k, "not evaluated: no unit records the backend's settings (results from "
			   "before they were recorded)");
	} else if (odd) {
		summary(k, "%zu mode/settings pair(s) differ from the %s's (%s): their ratios compare "
			   "the settings as well as the tuners, which only an A/B of a setting intends",
			odd, ref_base ? "baseline" : "first unit", ref);
	} else {
		summary(k, "every unit of every mode ran with %s (%zu unit(s))", ref, rec);
	}
	free(set);
}

/* 1 when some unit recorded a GPU's state (gpu_open_ lines, whatever its backend) or the
 * GPU it ran on (gpu_uuid, the torch worker's units before it wrote the state). */
static int gpu_state_recorded(char **info, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(info[i], "gpu_open_") || !strncmp(info[i], "gpu_uuid=", 9) ||
		    strstr(info[i], "\ngpu_uuid="))
			return 1;
	return 0;
}

int audit_gpu_recorded(const char *path)
{
	struct rec_unit *u;
	char **info;
	size_t n;
	if (audit_read_infos(path, &u, &info, &n))
		return -1;
	int ret = gpu_state_recorded(info, n);
	audit_infos_free(u, info, n, n);
	return ret;
}

int audit_gpu_checks(struct audit *au, const char *path)
{
	struct rec *r = NULL;
	struct rec_unit *u = NULL;
	char **info = NULL;
	size_t nu = 0, ni = 0;
	int ret = -1, gpu = 0;

	if (rec_open(path, 0, &r) || rec_read_units(r, &u, &nu) ||
	    rec_read_unit_infos(r, &info, &ni))
		goto done;
	if (ni != nu) {
		error("'%s': %zu unit infos for %zu units", path, ni, nu);
		goto done;
	}
	gpu = gpu_state_recorded(info, nu);
	if (gpu) {
		if (check_clocks_throttle(au, r, u, nu))
			goto done;
		check_state(au, u, info, nu);
		if (au->backend && strstr(au->backend, "cuda")) {
			check_op_timing(au, u, info, nu);
			check_settings(au, u, info, nu);
		}
	}
	ret = 0;
done:
	if (r && rec_close(r))
		ret = -1;
	rec_units_free(u, nu);
	for (size_t i = 0; info && i < ni; i++)
		free(info[i]);
	free(info);
	return ret;
}
