/* tkey: keys of a time and an index (the replay's events, the messages by departure),
 * sorted by both in linear time for the arrays a trace makes: a few sorted stretches, or
 * times scattered over a bounded span. */
#ifndef PREDICT_TKEY_H
#define PREDICT_TKEY_H

#include <stdbool.h>
#include <stdint.h>

/* A time and an index, ordered by time, then index (equal keys keep no order: the index
 * makes keys unique where it matters). */
struct tkey {
	int64_t t_ns;	/* any value */
	int64_t j;	/* the caller's index or place */
};

/* Sort k[0..n) by time, then index. Cannot fail (the allocator dies on out-of-memory).
 * by_index: k comes in index order (j ascending), which allows a stable radix sort on the
 * times; without it only the merge runs. tmp: n keys of scratch, the caller's (so that it
 * can be memory the caller uses next), clobbered; k and tmp must not overlap. */
void tkey_sort(struct tkey *k, long n, bool by_index, struct tkey *tmp);

#endif
