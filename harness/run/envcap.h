/* envcap.h: provenance capture: what machine, OS, compiler and libraries a run used.
 * Everything is read from /proc, /sys, uname and the libraries' own version calls; the
 * compiler's version comes from running it through spawn.h. */
#ifndef HARNESS_ENVCAP_H
#define HARNESS_ENVCAP_H

#include "harness/record/recorder.h"

/* Add host, kernel, cpu_model, cpu_count, cpu_governor, llc_bytes, memory_bytes, libc,
 * compiler (the run-time kernel compiler's --version first line), gsl, hdf5, openblas,
 * jansson, openssl, toml++ versions to meta.  Missing facts are recorded as "unknown",
 * never an error. */
void envcap_collect(struct rec_meta *meta);

/* Size of the last-level CPU cache in bytes from sysfs (0 when unknown). */
long envcap_llc_bytes(void);

#endif
