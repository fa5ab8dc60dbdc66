/* tkey: keys of a time and an index, sorted in linear time (see tkey.h). */
#include "predict/tkey.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

static inline bool
tkey_lt(const struct tkey *a, const struct tkey *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->j < b->j);
}

static void
tkey_swap(struct tkey **a, struct tkey **b)
{
	struct tkey *x = *a;

	*a = *b;
	*b = x;
}

#define TKEY_DIGIT_BITS 11	/* the radix sort's digit: 2048 counters, in the L1 cache */

/* Sort k[0..n), which comes in index order, by time with a stable radix sort on the time
 * since the earliest, span_ns at most, one digit a pass: linear, whatever the order. Every
 * digit's counts come from one read of the keys, before the passes (which do not change
 * them), and a digit all the keys share takes no pass. tmp: n keys of scratch. */
static void
tkey_radix(struct tkey *k, long n, int64_t lo_ns, uint64_t span_ns, struct tkey *tmp)
{
	struct tkey *src = k, *dst;
	uint64_t mask = ((uint64_t)1 << TKEY_DIGIT_BITS) - 1;
	int nd = 0;	/* digits in span_ns */
	long *cnt;	/* [nd][mask + 1]: each digit's counts, then where its keys go */

	while (nd * TKEY_DIGIT_BITS < 64 && (span_ns >> (nd * TKEY_DIGIT_BITS)) != 0)
		nd++;
	cnt = xcalloc((size_t)nd << TKEY_DIGIT_BITS, sizeof *cnt);
	for (long i = 0; i < n; i++) {
		uint64_t v = (uint64_t)k[i].t_ns - (uint64_t)lo_ns;

		for (int d = 0; d < nd; d++)
			cnt[((size_t)d << TKEY_DIGIT_BITS) + ((v >> (d * TKEY_DIGIT_BITS)) & mask)]++;
	}
	dst = tmp;
	for (int d = 0; d < nd; d++) {
		long *c = cnt + ((size_t)d << TKEY_DIGIT_BITS), sum = 0;
		int sh = d * TKEY_DIGIT_BITS;

		if (c[(((uint64_t)k[0].t_ns - (uint64_t)lo_ns) >> sh) & mask] == n)
			continue;	/* one value: the pass would copy the keys as they are */
		for (uint64_t x = 0; x <= mask; x++) {
			long m = c[x];

			c[x] = sum;
			sum += m;
		}
		for (long i = 0; i < n; i++)
			dst[c[(((uint64_t)src[i].t_ns - (uint64_t)lo_ns) >> sh) & mask]++] = src[i];
		tkey_swap(&src, &dst);
	}
	if (src != k)
		memcpy(k, src, (size_t)n * sizeof *k);
	free(cnt);
}

/* A bottom-up merge of the runs already in order, so an array made of a few sorted
 * stretches (messages.tsv, a trace's sends) costs a few passes; when there are so many
 * runs that the merge would take more passes than a radix sort on the times, and k is in
 * index order (by_index), the radix sort: linear either way. */
void
tkey_sort(struct tkey *k, long n, bool by_index, struct tkey *tmp)
{
	long *run, nrun = 1;	/* run starts, then n */
	struct tkey *src = k, *dst;
	int64_t lo = n > 0 ? k[0].t_ns : 0, hi = lo;

	for (long i = 1; i < n; i++) {
		nrun += tkey_lt(&k[i], &k[i - 1]);
		lo = k[i].t_ns < lo ? k[i].t_ns : lo;
		hi = k[i].t_ns > hi ? k[i].t_ns : hi;
	}
	if (nrun <= 1)
		return;
	if (by_index) {
		uint64_t span = (uint64_t)hi - (uint64_t)lo;
		int digits = 0, merges = 0;

		for (int sh = 0; sh < 64 && (span >> sh) != 0; sh += TKEY_DIGIT_BITS)
			digits++;
		for (long r = 1; r < nrun; r *= 2)
			merges++;
		if (digits < merges) {
			tkey_radix(k, n, lo, span, tmp);
			return;
		}
	}
	run = xmallocarray((size_t)nrun + 1, sizeof *run);
	nrun = 0;
	run[nrun++] = 0;
	for (long i = 1; i < n; i++)
		if (tkey_lt(&k[i], &k[i - 1]))
			run[nrun++] = i;
	run[nrun] = n;
	dst = tmp;
	while (nrun > 1) {
		long m = 0, r;

		for (r = 0; r + 1 < nrun; r += 2) {
			long a = run[r], am = run[r + 1], b = run[r + 1], bm = run[r + 2], o = run[r];

			while (a < am && b < bm)
				dst[o++] = tkey_lt(&src[b], &src[a]) ? src[b++] : src[a++];
			while (a < am)
				dst[o++] = src[a++];
			while (b < bm)
				dst[o++] = src[b++];
			run[m++] = run[r];
		}
		if (r < nrun) {
			memcpy(dst + run[r], src + run[r], (size_t)(run[r + 1] - run[r]) * sizeof *dst);
			run[m++] = run[r];
		}
		run[m] = n;
		nrun = m;
		tkey_swap(&src, &dst);
	}
	if (src != k)
		memcpy(k, src, (size_t)n * sizeof *k);
	free(run);
}
