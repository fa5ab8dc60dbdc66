/* sortnum: qsort's ascending orders for numbers, and the median. */
#ifndef LIB_SORTNUM_H
#define LIB_SORTNUM_H

#include <stddef.h>

/* qsort comparators over int64_t and over double; a NaN compares equal to every value. */
int sortnum_cmp_i64(const void *a, const void *b);
int sortnum_cmp_f64(const void *a, const void *b);

/* The median of v[0..n): the middle value, or the mean of the middle two when n is even;
 * NAN when n is 0. Sorts v in place; cannot fail. */
double sortnum_median(double *v, size_t n);

#endif
