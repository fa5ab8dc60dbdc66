/* test_sortnum: the number orders and the median (lib/sortnum.h). */
#include "lib/sortnum.h"

#include <stdint.h>

#include "tests/unit/check.h"

TEST(orders)
{
	int64_t a[] = { 5, INT64_MIN, -1, INT64_MAX, 0, -1 };
	double d[] = { 2.5, -0.0, -1e300, 1e-300, 0.0 };
	int64_t i0 = 3, i1 = 3;

	qsort(a, sizeof a / sizeof a[0], sizeof a[0], sortnum_cmp_i64);
	CHECK(a[0] == INT64_MIN);
	CHECK(a[1] == -1);
	CHECK(a[2] == -1);
	CHECK(a[3] == 0);
	CHECK(a[4] == 5);
	CHECK(a[5] == INT64_MAX);	/* no overflow from subtracting */
	CHECK(sortnum_cmp_i64(&i0, &i1) == 0);
	qsort(d, sizeof d / sizeof d[0], sizeof d[0], sortnum_cmp_f64);
	CHECK(d[0] == -1e300);
	CHECK(d[1] == 0);
	CHECK(d[2] == 0);
	CHECK(d[3] == 1e-300);
	CHECK(d[4] == 2.5);
}

TEST(median)
{
	double odd[] = { 9, 1, 5 }, even[] = { 4, 1, 3, 10 }, one[] = { -2 };

	CHECK(sortnum_median(odd, 3) == 5);
	CHECK(odd[0] == 1);	/* sorted in place */
	CHECK(sortnum_median(even, 4) == 3.5);
	CHECK(sortnum_median(one, 1) == -2);
	CHECK(isnan(sortnum_median(NULL, 0)));
}

int
main(void)
{
	RUN(orders);
	RUN(median);
	return check_done();
}
