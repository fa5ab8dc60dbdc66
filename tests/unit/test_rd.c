/* test_rd: the bounded reader (lib/rd.h): values, reads past the end, sticky errors, sub-readers. */
#include "lib/rd.h"

#include <stdint.h>

#include "tests/unit/check.h"

static const uint8_t bytes[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a };

TEST(values)
{
	struct rd r = rd_make(bytes, sizeof bytes);

	CHECK(rd_u8(&r) == 0x01);
	CHECK(rd_be16(&r) == 0x0203);
	CHECK(rd_le16(&r) == 0x0504);
	CHECK(rd_left(&r) == 5);
	r = rd_make(bytes, sizeof bytes);
	CHECK(rd_be32(&r) == 0x01020304u);
	CHECK(rd_le32(&r) == 0x08070605u);
	r = rd_make(bytes, sizeof bytes);
	CHECK(rd_be64(&r) == 0x0102030405060708ull);
	CHECK(rd_left(&r) == 2);
	r = rd_make(bytes, sizeof bytes);
	CHECK(rd_le64(&r) == 0x0807060504030201ull);
	CHECK(!r.err);
}

TEST(high_bits)
{
	static const uint8_t ff[8] = { 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8 };
	struct rd r = rd_make(ff, sizeof ff);

	CHECK(rd_be32(&r) == 0xfffefdfcu);	/* no sign extension */
	CHECK(rd_le32(&r) == 0xf8f9fafbu);
	r = rd_make(ff, sizeof ff);
	CHECK(rd_be64(&r) == 0xfffefdfcfbfaf9f8ull);
}

/* Each accessor, asked for one byte more than there is, returns 0, sets err and
 * leaves the cursor where it was. */
TEST(past_end_each_width)
{
	for (size_t have = 0; have < 8; have++) {
		struct rd r;

		r = rd_make(bytes, have);
		if (have < 1) {
			if (CHECKED(rd_u8(&r) == 0)) {
				CHECK(r.err);
				CHECK(r.p == bytes);
				CHECK(r.left == have);
			}
		}
		r = rd_make(bytes, have);
		if (have < 2) {
			if (CHECKED(rd_be16(&r) == 0)) {
				CHECK(r.err);
				CHECK(r.p == bytes);
				CHECK(r.left == have);
			}
			r = rd_make(bytes, have);
			if (CHECKED(rd_le16(&r) == 0)) {
				CHECK(r.err);
				CHECK(r.p == bytes);
				CHECK(r.left == have);
			}
		}
		r = rd_make(bytes, have);
		if (have < 4) {
			if (CHECKED(rd_be32(&r) == 0)) {
				CHECK(r.err);
				CHECK(r.p == bytes);
				CHECK(r.left == have);
			}
			r = rd_make(bytes, have);
			if (CHECKED(rd_le32(&r) == 0)) {
				CHECK(r.err);
				CHECK(r.p == bytes);
				CHECK(r.left == have);
			}
		}
		/* 4..7 bytes: half of a 64-bit value is there; nothing may be consumed. */
		r = rd_make(bytes, have);
		if (CHECKED(rd_be64(&r) == 0)) {
			CHECK(r.err);
			CHECK(r.p == bytes);
			CHECK(r.left == have);
		}
		r = rd_make(bytes, have);
		if (CHECKED(rd_le64(&r) == 0)) {
			CHECK(r.err);
			CHECK(r.p == bytes);
			CHECK(r.left == have);
		}
	}
}

TEST(sticky)
{
	struct rd r = rd_make(bytes, 3);

	CHECK(rd_be16(&r) == 0x0102);
	CHECK(rd_be16(&r) == 0);	/* one byte left: fails */
	CHECK(r.err);
	CHECK(r.left == 1);
	CHECK(rd_left(&r) == 0);	/* a failed reader has nothing left to offer */
	CHECK(rd_u8(&r) == 0);		/* would fit, but the error is sticky */
	CHECK(r.left == 1);
	CHECK(r.p == bytes + 2);
}

TEST(bytes_skip_ptr)
{
	struct rd r = rd_make(bytes, sizeof bytes);
	uint8_t out[4] = { 0xaa, 0xaa, 0xaa, 0xaa };
	const uint8_t *p;

	rd_skip(&r, 2);
	rd_bytes(&r, out, 3);
	CHECK(out[0] == 3);
	CHECK(out[1] == 4);
	CHECK(out[2] == 5);
	CHECK(out[3] == 0xaa);
	p = rd_ptr(&r, 2);
	CHECK(p == bytes + 5);
	CHECK(rd_left(&r) == 3);
	CHECK(!r.err);
	memset(out, 0xaa, sizeof out);
	rd_bytes(&r, out, 4);		/* 3 left */
	CHECK(r.err);
	CHECK(out[0] == 0);	/* zeroed */
	CHECK(out[1] == 0);
	CHECK(out[2] == 0);
	CHECK(out[3] == 0);
	CHECK(r.p == bytes + 7);
	CHECK(rd_ptr(&r, 0) == NULL);	/* sticky even for nothing */
}

TEST(skip_past_end)
{
	struct rd r = rd_make(bytes, 4);

	rd_skip(&r, 5);
	CHECK(r.err);
	CHECK(r.p == bytes);
	CHECK(r.left == 4);
	r = rd_make(bytes, 4);
	rd_skip(&r, SIZE_MAX);		/* a hostile length must not wrap */
	CHECK(r.err);
	CHECK(r.left == 4);
	r = rd_make(bytes, 4);
	if (CHECKED(rd_ptr(&r, SIZE_MAX) == NULL))
		CHECK(r.err);
	r = rd_make(bytes, 4);
	rd_skip(&r, 4);
	CHECK(!r.err);
	CHECK(rd_left(&r) == 0);
}

TEST(sub_reader)
{
	struct rd r = rd_make(bytes, sizeof bytes);
	struct rd s;

	CHECK(rd_u8(&r) == 1);
	s = rd_sub(&r, 4);
	CHECK(!s.err);
	CHECK(!r.err);
	CHECK(rd_left(&s) == 4);
	CHECK(rd_left(&r) == 5);
	CHECK(rd_be32(&s) == 0x02030405u);
	if (CHECKED(rd_u8(&s) == 0))	/* the sub-reader ends at its own end */
		CHECK(s.err);
	CHECK(!r.err);			/* ...and its failure does not touch the parent */
	CHECK(rd_u8(&r) == 6);
}

TEST(sub_reader_short)
{
	struct rd r = rd_make(bytes, 3);
	struct rd s = rd_sub(&r, 4);

	CHECK(s.err);
	CHECK(rd_left(&s) == 0);
	CHECK(rd_u8(&s) == 0);
	CHECK(r.err);
	CHECK(r.p == bytes);
	CHECK(r.left == 3);
	r = rd_make(bytes, 3);
	s = rd_sub(&r, SIZE_MAX);
	CHECK(s.err);
	CHECK(r.err);
}

TEST(empty)
{
	struct rd r = rd_make(NULL, 0);
	struct rd s = rd_sub(&r, 0);	/* zero bytes from nothing is fine */

	CHECK(!r.err);
	CHECK(!s.err);
	CHECK(rd_left(&s) == 0);
	if (CHECKED(rd_u8(&r) == 0))
		CHECK(r.err);
}

int
main(void)
{
	RUN(values);
	RUN(high_bits);
	RUN(past_end_each_width);
	RUN(sticky);
	RUN(bytes_skip_ptr);
	RUN(skip_past_end);
	RUN(sub_reader);
	RUN(sub_reader_short);
	RUN(empty);
	return check_done();
}
