/* train.h: the "model-topk" tuner's training data read from earlier runs' results files
 * into the plain struct it takes (kernels/tuner.h: struct tuner_train). */
#ifndef HARNESS_TRAIN_H
#define HARNESS_TRAIN_H

#include "kernels/tuner.h"

/* Append the ok, timed trials of every unit of the results file at path (op cells only:
 * op, shape, config, median) to *t, with the file's provenance (path, SHA-256 of its bytes,
 * the trials it gave).  Reports and returns -1 when the file cannot be read (t keeps what it
 * had). */
int rec_train_read(const char *path, struct tuner_train *t);

#endif
