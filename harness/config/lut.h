/* lut.h: the "lut" tuner's lookup tables (TOML, docs/experiment-format.md) read into the
 * plain struct the tuner takes (kernels/tuner.h: struct tuner_lut), so that kernels/ never
 * sees TOML; and the run folder's copies of the tables an experiment's modes name. */
#ifndef HARNESS_LUT_H
#define HARNESS_LUT_H

#include <stddef.h>

#include "harness/config/experiment.h"
#include "kernels/tuner.h"

/* Parse a table's text (len bytes; shown: the path for messages) into *out (zeroed first;
 * release with tuner_lut_release).  0, or -1 with out->error (heap) "'shown':line:col:
 * what" and no entries; out->text, path and sha256 are set either way.  Reports nothing. */
int lut_parse(const char *shown, const char *text, size_t len, struct tuner_lut *out);
/* Read the file at path and parse it (shown: the path as the user wrote it); an unreadable
 * file is out->error "'shown': cannot read ...".  0 or -1 as lut_parse. */
int lut_read(const char *path, const char *shown, struct tuner_lut *out);
/* Write each mode's table, as it was read, to DIR/tables/MODE.toml (read-only), and each
 * model-topk mode's training files to DIR/tables/MODE-train-K.h5, where a unit (which reads
 * the run folder's copy of the experiment) finds them.  Reports and returns -1 on failure. */
int experiment_write_tables(const struct experiment *e, const char *dir);
/* Where they are: DIR/tables/MODE.toml and DIR/tables/MODE-train-K.h5 (heap). */
char *experiment_table_path(const char *dir, const char *mode);
char *experiment_train_path(const char *dir, const char *mode, size_t k);

#endif
