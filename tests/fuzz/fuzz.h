/* fuzz.h: what every fuzz target shares: the libFuzzer entry point, and quiet stderr.
 * Each tests/fuzz/fuzz-*.c defines LLVMFuzzerTestOneInput; it is linked either with
 * libFuzzer (clang -fsanitize=fuzzer, `make fuzz`) or with replay.c (make check replays the
 * seed corpus and every input that once crashed, tests/fuzz/crashes/<target>/). */
#ifndef HARNESS_FUZZ_H
#define HARNESS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
