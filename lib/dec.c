/* dec: strict decimal integers from text. */
#include "lib/dec.h"

int
dec_i64(const char *s, int64_t *v)
{
	const char *p = s;
	uint64_t x = 0;		/* the magnitude so far */
	uint64_t limit;		/* the largest magnitude allowed */
	int neg = *p == '-';

	p += neg;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (*p < '0' || *p > '9')
		return -1;
	/* 18 digits cannot pass INT64_MAX: no overflow test (a division) for them */
	for (int n = 0; n < 18 && *p != '\0'; n++, p++) {
		unsigned d = (unsigned)(unsigned char)*p - '0';	/* wraps past 9 for a non-digit */

		if (d > 9)
			return -1;
		x = x * 10 + d;
	}
	for (; *p != '\0'; p++) {
		unsigned d = (unsigned)(unsigned char)*p - '0';

		if (d > 9 || x > (limit - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	/* INT64_MIN's magnitude has no positive int64_t: negate one less, then step down */
	*v = neg && x > 0 ? -(int64_t)(x - 1) - 1 : (int64_t)x;
	return 0;
}
