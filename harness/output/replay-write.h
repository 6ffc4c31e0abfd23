/* replay-write.h: `harness replay`'s output (harness/analysis/replay.h) as Markdown, JSON
 * or CSV (docs/replay.md).  Its own header, so that write.h stays the report's. */
#ifndef HARNESS_REPLAY_WRITE_H
#define HARNESS_REPLAY_WRITE_H

#include <stdio.h>

#include "harness/analysis/replay.h"
#include "harness/output/write.h"

/* REPORT_MD, REPORT_JSON or REPORT_CSV to out; 0, or -1 reported. */
int replay_write(const struct replay *r, enum report_format fmt, FILE *out);

#endif
