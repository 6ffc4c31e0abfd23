/* train.c: training data for model-topk from results files (see train.h) */
#include "config.h"
#include "harness/record/train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/record/recorder.h"

int rec_train_read(const char *path, struct tuner_train *t)
{
	struct rec *f = NULL;
	struct rec_cell *cells = NULL;
	struct rec_trial *trials = NULL;
	int64_t *tunit = NULL;
	size_t ncells = 0, ntrials = 0;
	char *bytes = NULL;
	size_t len = 0;
	int ret = -1;

	if (util_read_file(path, &bytes, &len))
		return -1;
	if (rec_open(path, 0, &f) || rec_read_cells(f, &cells, &ncells) ||
	    rec_read_trials(f, &tunit, &trials, &ntrials))
		goto done;
	size_t used = 0;
	for (size_t k = 0; k < ntrials; k++) {
		const struct rec_trial *tr = &trials[k];
		if (tr->cell < 0 || (size_t)tr->cell >= ncells || strcmp(tr->status, "ok") ||
		    !(tr->median_ns > 0) || !isfinite(tr->median_ns) ||
		    strcmp(cells[tr->cell].kind, "op"))
			continue;
		t->rows = xrealloc(t->rows, (t->n + 1) * sizeof(*t->rows));
		struct tuner_train_row *r = &t->rows[t->n++];
		r->op = xstrdup(cells[tr->cell].op);
		r->shape = xstrdup(cells[tr->cell].shape);
		r->config = xstrdup(tr->config);
		r->ns = tr->median_ns;
		used++;
	}
	t->files = xrealloc(t->files, (t->nfiles + 1) * sizeof(*t->files));
	t->sha256 = xrealloc(t->sha256, (t->nfiles + 1) * sizeof(*t->sha256));
	t->ntrials = xrealloc(t->ntrials, (t->nfiles + 1) * sizeof(*t->ntrials));
	t->files[t->nfiles] = xstrdup(path);
	util_sha256_hex(bytes, len, t->sha256[t->nfiles]);
	t->ntrials[t->nfiles++] = used;
	ret = 0;
done:
	rec_trials_free(tunit, trials, ntrials);
	rec_cells_free(cells, ncells);
	if (f && rec_close(f))
		ret = -1;
	free(bytes);
	return ret;
}
