/* test_tkey: the replay's key sort (predict/tkey.h) against qsort by (time, index), ties
 * included, on each of its paths: the merge of sorted stretches, the radix sort of
 * scattered times (one digit, several, a digit every key shares) and the extremes of the
 * times. */
#include "predict/tkey.h"

#include <stdint.h>
#include <stdlib.h>

#include "tests/unit/check.h"

static int
cmp_ref(const void *a, const void *b)
{
	const struct tkey *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

/* A fixed pseudo-random sequence (the same on every machine). */
static uint64_t
next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* tkey_sort(k) gives what qsort by (time, index) gives. Returns 1 if so. */
static int
same_as_qsort(const struct tkey *k, long n, bool by_index)
{
	struct tkey *a = malloc(((size_t)n + 1) * sizeof *a), *b = malloc(((size_t)n + 1) * sizeof *b);
	struct tkey *tmp = malloc(((size_t)n + 1) * sizeof *tmp);
	int same = 1;

	if (a == NULL || b == NULL || tmp == NULL)
		abort();
	for (long i = 0; i < n; i++)
		a[i] = b[i] = k[i];
	tkey_sort(a, n, by_index, tmp);
	qsort(b, (size_t)n, sizeof *b, cmp_ref);
	for (long i = 0; i < n; i++)
		same &= a[i].t_ns == b[i].t_ns && a[i].j == b[i].j;
	free(a);
	free(b);
	free(tmp);
	return same;
}

/* n keys in index order, time i: times drawn from [0, span) times scale, plus off. */
static struct tkey *
scattered(long n, uint64_t span, int64_t scale, int64_t off, uint64_t seed)
{
	struct tkey *k = malloc(((size_t)n + 1) * sizeof *k);

	if (k == NULL)
		abort();
	for (long i = 0; i < n; i++)
		k[i] = (struct tkey){ off + (int64_t)(next(&seed) % span) * scale, i };
	return k;
}

/* Equal times keep index order, whichever path sorts them. */
TEST(ties_go_by_index)
{
	struct tkey k[] = { { 5, 0 }, { 3, 1 }, { 5, 2 }, { 3, 3 }, { 5, 4 }, { 3, 5 } };
	struct tkey tmp[6];
	static const int64_t want_j[] = { 1, 3, 5, 0, 2, 4 };

	tkey_sort(k, 6, true, tmp);
	for (int i = 0; i < 6; i++) {
		CHECK(k[i].t_ns == (i < 3 ? 3 : 5));
		CHECK(k[i].j == want_j[i]);
	}
}

/* Nothing to do for none, one or sorted keys. */
TEST(small_and_sorted)
{
	struct tkey one = { -7, 3 }, tmp[4];
	struct tkey in_order[] = { { 1, 9 }, { 1, 10 }, { 2, 0 }, { 9, 1 } };

	tkey_sort(NULL, 0, true, NULL);
	tkey_sort(&one, 1, true, tmp);
	CHECK(one.t_ns == -7);
	CHECK(one.j == 3);
	CHECK(same_as_qsort(in_order, 4, true));
	tkey_sort(in_order, 4, false, tmp);
	CHECK(in_order[0].j == 9);
	CHECK(in_order[1].j == 10);
	CHECK(in_order[2].j == 0);
	CHECK(in_order[3].j == 1);
}

/* A few sorted stretches, each over the whole span, with times shared across them (what
 * messages.tsv is): the merge. */
TEST(sorted_stretches_merge)
{
	long n = 3000, per = 500;
	struct tkey *k = malloc((size_t)n * sizeof *k);
	uint64_t seed = 7;

	if (k == NULL)
		abort();
	for (long s = 0; s < n / per; s++) {
		int64_t t = 0;

		for (long i = 0; i < per; i++) {
			/* ties within and across stretches; a span of 3 digits, so that the
			 * merge's 3 passes win over the radix sort even by index */
			t += (int64_t)(next(&seed) % 3) * 1000000;
			k[s * per + i] = (struct tkey){ t, s * per + i };
		}
	}
	CHECK(same_as_qsort(k, n, true));
	CHECK(same_as_qsort(k, n, false));
	free(k);
}

/* Times scattered over one digit, over several, and over several with the lowest digit
 * shared by every key (multiples of 2^11): the radix sort, ties among thousands. */
TEST(scattered_times_radix)
{
	long n = 20000;
	struct tkey *a = scattered(n, 1000, 1, 0, 1);
	struct tkey *b = scattered(n, 5000000, 1, 1700000000000000000LL, 2);
	struct tkey *c = scattered(n, 3000, 2048, 1700000000000000000LL, 3);

	CHECK(same_as_qsort(a, n, true));
	CHECK(same_as_qsort(b, n, true));
	CHECK(same_as_qsort(c, n, true));
	CHECK(same_as_qsort(c, n, false));	/* the merge on the same keys */
	free(a);
	free(b);
	free(c);
}

/* Times from INT64_MIN to INT64_MAX: the span takes every digit. */
TEST(extreme_times)
{
	struct tkey k[] = {
		{ INT64_MAX, 0 }, { 0, 1 }, { INT64_MIN, 2 }, { -1, 3 }, { INT64_MAX, 4 },
		{ INT64_MIN, 5 }, { 1, 6 }, { INT64_MIN + 1, 7 }, { INT64_MAX - 1, 8 }, { 0, 9 },
	};
	long n = (long)(sizeof k / sizeof k[0]);
	struct tkey *many = malloc(4000 * sizeof *many);
	uint64_t seed = 11;

	if (many == NULL)
		abort();
	CHECK(same_as_qsort(k, n, true));
	for (long i = 0; i < 4000; i++)
		many[i] = (struct tkey){ k[next(&seed) % (uint64_t)n].t_ns, i };
	CHECK(same_as_qsort(many, 4000, true));
	free(many);
}

int
main(void)
{
	RUN(ties_go_by_index);
	RUN(small_and_sorted);
	RUN(sorted_stretches_merge);
	RUN(scattered_times_radix);
	RUN(extreme_times);
	return check_done();
}
