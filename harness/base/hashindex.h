/* hashindex.h: a hash index over items kept in the caller's arrays (the CSV reader's modes,
 * cells and units; the protocol reader's cells; the audit's cells; a results file's digest
 * parts; a lookup table's shapes).  The index holds item numbers and hashes only; the caller
 * compares its own items when probing. */
#ifndef HARNESS_HASHINDEX_H
#define HARNESS_HASHINDEX_H

#include <stddef.h>
#include <stdint.h>

/* Open addressing with linear probing: slot[i] is an item's index + 1, or 0 when empty;
 * hash[i] is that item's hash; cap is a power of two, at most half full. */
struct hashindex {
	size_t *slot;
	uint64_t *hash;
	size_t cap, n;
};

/* FNV-1a (Fowler, Noll, Vo) over a string, continuing from h. */
static inline uint64_t hashindex_str(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The splitmix64 finalizer (Steele, Lea, Flood 2014): spreads an integer over 64 bits. */
static inline uint64_t hashindex_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

#define HASHINDEX_SEED 0xcbf29ce484222325ULL

/* Add item (known to be absent) under hash h, growing the table first when it would be
 * more than half full. */
void hashindex_add(struct hashindex *ix, uint64_t h, size_t item);
/* Release the table's arrays (an all-zero index is empty and needs no release). */
void hashindex_release(struct hashindex *ix);

#endif
