/* test_dec: strict decimal integers (lib/dec.h), against strtoll on the same strings. */
#include "lib/dec.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/unit/check.h"

/* What tsv_r_i64 accepts: a digit or '-' and a digit first, then strtoll takes the whole
 * string without ERANGE. 0 with *v set, or -1. */
static int
by_strtoll(const char *s, int64_t *v)
{
	char *end;
	long long x;

	if (!(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
		return -1;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || end == s || *end != '\0')
		return -1;
	*v = x;
	return 0;
}

/* dec_i64 and by_strtoll agree on s, value included. */
static int
agree(const char *s)
{
	int64_t a = 11, b = 22;
	int ra = dec_i64(s, &a), rb = by_strtoll(s, &b);

	return ra == rb && (ra < 0 ? a == 11 : a == b);
}

TEST(values)
{
	int64_t v = 0;

	if (CHECKED(dec_i64("0", &v) == 0))
		CHECK(v == 0);
	if (CHECKED(dec_i64("-0", &v) == 0))
		CHECK(v == 0);
	if (CHECKED(dec_i64("1700000000100000000", &v) == 0))
		CHECK(v == 1700000000100000000LL);
	if (CHECKED(dec_i64("-12", &v) == 0))
		CHECK(v == -12);
	if (CHECKED(dec_i64("007", &v) == 0))
		CHECK(v == 7);
	if (CHECKED(dec_i64("9223372036854775807", &v) == 0))
		CHECK(v == INT64_MAX);
	if (CHECKED(dec_i64("-9223372036854775808", &v) == 0))
		CHECK(v == INT64_MIN);
}

TEST(refused)
{
	static const char *const bad[] = {
		"", "-", "+1", " 1", "1 ", "1x", "x1", "--1", "-+1", "1.5", "1e3", "0x10", "\t5",
		"9223372036854775808", "-9223372036854775809", "99999999999999999999",
		"18446744073709551616", "-", "\xc3\xa9", NULL,
	};
	int64_t v = 5;

	for (int i = 0; bad[i] != NULL; i++) {
		CHECK(dec_i64(bad[i], &v) < 0);
		CHECK(v == 5);	/* untouched */
	}
}

/* Every string of up to three characters from a small alphabet, and the edges of the
 * range, decided as strtoll decides them. */
TEST(same_as_strtoll)
{
	static const char alpha[] = "-+09 x";
	static const char *const edge[] = {
		"9223372036854775806", "9223372036854775807", "9223372036854775808",
		"9223372036854775809", "9223372036854775810", "92233720368547758070",
		"-9223372036854775807", "-9223372036854775808", "-9223372036854775809",
		"-9223372036854775810", "-00000000000000000000009223372036854775808",
		"00000000000000000000000000000000000000001", "18446744073709551615",
		"18446744073709551616", "-18446744073709551615", NULL,
	};
	char s[4];
	int n = (int)sizeof alpha - 1;
	int bad = 0;

	for (int a = 0; a <= n; a++)
		for (int b = 0; b <= n; b++)
			for (int c = 0; c <= n; c++) {
				/* index n ends the string there */
				s[0] = a < n ? alpha[a] : '\0';
				s[1] = a < n && b < n ? alpha[b] : '\0';
				s[2] = a < n && b < n && c < n ? alpha[c] : '\0';
				s[3] = '\0';
				bad += !agree(s);
			}
	CHECK(bad == 0);
	for (int i = 0; edge[i] != NULL; i++)
		CHECK(agree(edge[i]));
}

int
main(void)
{
	RUN(values);
	RUN(refused);
	RUN(same_as_strtoll);
	return check_done();
}
