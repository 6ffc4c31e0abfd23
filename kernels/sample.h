/* sample.h: one timing as a backend takes it: the time, and what a GPU can say about it
 * (the SM clock during the sample, whether it throttled, how many launches it covers).
 * Backends fill it (kernels/backend.h sample()); the tuning driver and the worker pass it
 * on to the record protocol unchanged. */
#ifndef HARNESS_SAMPLE_H
#define HARNESS_SAMPLE_H

#include <math.h>
#include <stdint.h>

struct sample {
	int64_t ns;        /* wall time of the whole sample (all its launches), ns */
	double clock_mhz;  /* SM clock read during the sample, MHz; NAN when not read */
	int throttle;      /* 1: the device reported throttling, 0: it did not, -1: unknown */
	int64_t launches;  /* executions of the cell the sample covers (>= 1; default 1) */
	int64_t clock_reasons; /* NVML's clock-event reasons bitmask read after the sample
				* (nvmlClocksEventReasons: 0x1 idle, 0x4 sw power cap, 0x8 hw
				* slowdown, 0x20 sw thermal, ...; docs/results-format.md); -1 unknown.
				* throttle is 1 exactly when a bit other than idle is set. */
};

/* The defaults a backend starts from: no clock reading, throttling and reasons unknown, one
 * launch. */
#define SAMPLE_INIT \
	{ .ns = 0, .clock_mhz = NAN, .throttle = -1, .launches = 1, .clock_reasons = -1 }

/* One execution's time from a sample of ns over launches executions (rounded to the ns).
 * Every comparison divides first: a backend sizes its batch per config (a faster config
 * takes more launches to fill a sample), so whole-sample times of two configs, or of two
 * modes' choices, are not comparable. */
static inline int64_t sample_exec_ns(int64_t ns, int64_t launches)
{
	return launches > 1 ? (int64_t)llround((double)ns / (double)launches) : ns;
}

#endif
