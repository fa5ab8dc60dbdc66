/* test_buf: the capped byte buffer (lib/buf.h): appends, the cap, printf, consume. */
#include "lib/buf.h"

#include <stdint.h>

#include "tests/unit/check.h"

TEST(add_and_grow)
{
	struct buf b;
	uint8_t chunk[100];

	buf_init(&b, 100000);
	CHECK(b.data == NULL);
	CHECK(b.len == 0);
	for (int i = 0; i < 100; i++)
		chunk[i] = (uint8_t)i;
	for (int i = 0; i < 1000; i++)
		CHECK(buf_add(&b, chunk, sizeof chunk) == 0);
	CHECK(b.len == 100000);
	CHECK(b.cap >= b.len);
	CHECK(b.cap <= b.max);
	CHECK(b.data[0] == 0);
	CHECK(b.data[99] == 99);
	CHECK(b.data[100] == 0);
	CHECK(b.data[99999] == 99);
	buf_release(&b);
	CHECK(b.data == NULL);
	CHECK(b.len == 0);
}

TEST(cap_reached_appends_nothing)
{
	struct buf b;

	buf_init(&b, 10);
	CHECK(buf_add(&b, "12345678", 8) == 0);
	CHECK(buf_add(&b, "abc", 3) == -E_LIMIT);	/* 11 > 10 */
	CHECK(b.len == 8);
	CHECK(memcmp(b.data, "12345678", 8) == 0);
	CHECK(buf_add(&b, "ab", 2) == 0);		/* exactly the cap */
	CHECK(b.len == 10);
	CHECK(buf_add(&b, "x", 1) == -E_LIMIT);
	CHECK(buf_add(&b, NULL, 0) == 0);		/* nothing always fits */
	if (CHECKED(b.len == 10))
		CHECK(memcmp(b.data, "12345678ab", 10) == 0);
	buf_release(&b);
}

TEST(hostile_length)
{
	struct buf b;

	buf_init(&b, 64);
	CHECK(buf_add(&b, "abcd", 4) == 0);
	CHECK(buf_add(&b, "x", SIZE_MAX) == -E_LIMIT);	/* len + n wraps: refused, not copied */
	CHECK(buf_add(&b, "x", SIZE_MAX - 3) == -E_LIMIT);
	CHECK(b.len == 4);
	buf_release(&b);
}

TEST(zero_cap)
{
	struct buf b;

	buf_init(&b, 0);
	CHECK(buf_add(&b, "a", 1) == -E_LIMIT);
	CHECK(buf_printf(&b, "%d", 1) == -E_LIMIT);
	CHECK(b.len == 0);
	buf_release(&b);
}

TEST(printf_small_and_big)
{
	struct buf b;
	char big[1000];

	buf_init(&b, 4096);
	CHECK(buf_printf(&b, "x=%d,", 42) == 0);
	memset(big, 'q', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	CHECK(buf_printf(&b, "%s", big) == 0);		/* past the stack buffer */
	CHECK(b.len == 5 + 999);
	CHECK(memcmp(b.data, "x=42,qqq", 8) == 0);
	CHECK(b.data[b.len - 1] == 'q');
	/* No NUL kept: the next append follows directly. */
	CHECK(buf_add(&b, "!", 1) == 0);
	CHECK(b.data[5 + 999] == '!');
	/* Over the cap: nothing appended. */
	CHECK(buf_printf(&b, "%s%s%s%s%s", big, big, big, big, big) == -E_LIMIT);
	CHECK(b.len == 1005);
	buf_release(&b);
}

TEST(consume_clear)
{
	struct buf b;

	buf_init(&b, 100);
	CHECK(buf_add(&b, "hello world", 11) == 0);
	buf_consume(&b, 6);
	if (CHECKED(b.len == 5))
		CHECK(memcmp(b.data, "world", 5) == 0);
	buf_consume(&b, 50);		/* more than there is: empty, no underflow */
	CHECK(b.len == 0);
	CHECK(buf_add(&b, "abc", 3) == 0);
	buf_clear(&b);
	CHECK(b.len == 0);
	CHECK(b.data != NULL);
	if (CHECKED(buf_add(&b, "z", 1) == 0))
		CHECK(b.data[0] == 'z');
	buf_release(&b);
	buf_release(&b);		/* twice is harmless */
}

TEST(release_zeroed)
{
	struct buf b;

	memset(&b, 0, sizeof b);
	buf_release(&b);
	CHECK(b.data == NULL);
}

int
main(void)
{
	RUN(add_and_grow);
	RUN(cap_reached_appends_nothing);
	RUN(hostile_length);
	RUN(zero_cap);
	RUN(printf_small_and_big);
	RUN(consume_clear);
	RUN(release_zeroed);
	return check_done();
}
