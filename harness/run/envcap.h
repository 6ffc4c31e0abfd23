/* envcap.h: provenance capture: what machine, OS, compiler and libraries a run used.
 * Everything is read from /proc, /sys, uname and the libraries' own version calls; the
 * compiler's version comes from running it through spawn.h. */
#ifndef HARNESS_ENVCAP_H
#define HARNESS_ENVCAP_H

#include "harness/record/recorder.h"

/* Add host, kernel, cpu_model, cpu_count, cpu_governor, llc_bytes, memory_bytes, libc,
 * compiler (the run-time kernel compiler's --version first line), gsl, hdf5, jansson,
 * openssl versions to meta.  Missing facts are recorded as "unknown", never an error.
 * The libraries a backend loads (openblas) are its own to describe (describe_build). */
void envcap_collect(struct rec_meta *meta);

#endif
