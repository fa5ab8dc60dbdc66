/* u64map: a hash from 64-bit keys to indices (open addressing, linear probing).
 *
 * For what would otherwise search a list once per message (a rank pair's entry, a host
 * pair's): a lookup costs O(1) on average whatever the number of entries, where the list
 * cost the entries so far (messages times pairs). The table keeps at most half its slots
 * full, 16 bytes a slot: at most 64 bytes an entry. The caller bounds the entries (by the
 * messages it reads, say); growing past memory dies in xalloc, as every allocation does. */
#ifndef LIB_U64MAP_H
#define LIB_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *key;		/* [cap] */
	long *val;		/* [cap]: the value, -1 an empty slot */
	size_t cap;		/* slots, a power of two; 0 before the first put */
	size_t n;		/* entries */
};

/* An empty map (no memory until the first put): struct u64map m = U64MAP_INIT. */
#define U64MAP_INIT { NULL, NULL, 0, 0 }

/* The value of key, or -1 when it has none. */
long u64map_get(const struct u64map *m, uint64_t key);
/* The value of key; when it has none, key gets val (>= 0: a negative val is our bug,
 * BUG) and val is returned. Never fails (dies on out-of-memory). */
long u64map_put(struct u64map *m, uint64_t key, long val);
/* Free the table; m is empty again (U64MAP_INIT). Accepts an empty map. */
void u64map_release(struct u64map *m);

#endif
