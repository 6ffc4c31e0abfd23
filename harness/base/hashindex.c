/* hashindex.c: a hash index over the caller's items (open addressing, linear probing) */
#include "config.h"
#include "harness/base/hashindex.h"

#include <stdlib.h>

#include "harness/base/util.h"

/* ---- a hash index over items kept in the caller's arrays --------------------------------- */

void hashindex_release(struct hashindex *ix)
{
	free(ix->slot);
	free(ix->hash);
}

void hashindex_add(struct hashindex *ix, uint64_t h, size_t item)
{
	if (2 * (ix->n + 1) > ix->cap) {
		struct hashindex big = { .cap = ix->cap ? 2 * ix->cap : 64 };
		big.slot = xcalloc(big.cap, sizeof(*big.slot));
		big.hash = xcalloc(big.cap, sizeof(*big.hash));
		for (size_t i = 0; i < ix->cap; i++)
			if (ix->slot[i])
				hashindex_add(&big, ix->hash[i], ix->slot[i] - 1);
		hashindex_release(ix);
		*ix = big;
	}
	size_t i = h & (ix->cap - 1);
	while (ix->slot[i])
		i = (i + 1) & (ix->cap - 1);
	ix->slot[i] = item + 1;
	ix->hash[i] = h;
	ix->n++;
}
