/* Unit tests for parse/wire: which bytes of an MPI byte stream a framed capture keeps. */
#include "parse/wire.h"

#include "tests/unit/check.h"

#include <stdint.h>

#define PIECE 1000

static uint8_t S[1 << 20];	/* a stream being built */
static size_t SN;

static void
put(const void *p, size_t n)
{
	memcpy(S + SN, p, n);
	SN += n;
}

static void
put_le16(uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	put(b, 2);
}

static void
put_le32(uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	put(b, 4);
}

static void
put_fill(size_t n, uint8_t c)
{
	memset(S + SN, c, n);
	SN += n;
}

/* Open MPI's handshake: jobid, vpid, "OPAL-TCP-BTL" padded to 24 bytes. */
static void
ompi_hs(void)
{
	put_le32(7);
	put_le32(1);
	put("OPAL-TCP-BTL\0\0\0\0", 16);
}

/* A BTL SEND frame carrying an ob1 MATCH header (14 bytes) and n data bytes. */
static size_t
ompi_match(size_t n)
{
	size_t at = SN;

	S[SN++] = 0x41;			/* tag: MATCH */
	S[SN++] = 1;			/* type: SEND */
	put_le16(0);			/* count */
	put_le32((uint32_t)(14 + n));	/* size */
	S[SN++] = 0x41;			/* hdr_type */
	S[SN++] = 0;			/* flags */
	put_le16(0);			/* ctx */
	put_le32(1);			/* src */
	put_le32(5);			/* tag */
	put_le16(3);			/* seq */
	put_fill(n, 0xab);
	return at;
}

/* A UCT TCP record carrying an EAGER_ONLY UCP message (8-byte header) of n data bytes. */
static size_t
ucx_eager(size_t n)
{
	size_t at = SN;

	S[SN++] = 2;
	put_le32((uint32_t)(8 + n));
	put_fill(8, 0x11);
	put_fill(n, 0xcd);
	return at;
}

/* Feed S[from..SN) in pieces of PIECE bytes; keep[i] gets piece i's keep length. */
static size_t
feed(struct wire_dir *w, struct wire_stats *st, size_t from, size_t *keep, size_t max)
{
	size_t i = 0;

	for (size_t o = from; o < SN && i < max; o += PIECE, i++) {
		size_t n = SN - o < PIECE ? SN - o : PIECE;

		keep[i] = wire_feed(w, S + o, n, st);
	}
	return i;
}

static size_t
total(const size_t *keep, size_t n)
{
	size_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += keep[i];
	return s;
}

TEST(ompi_keeps_headers_only)
{
	struct wire_dir w;
	struct wire_stats st = { 0 };
	size_t keep[512], n, f2;

	SN = 0;
	ompi_hs();
	ompi_match(100000);
	f2 = ompi_match(50000);
	wire_init(&w, true, false, &st);
	n = feed(&w, &st, 0, keep, 512);
	CHECK(w.proto == WIRE_OMPI);
	CHECK(keep[0] == WIRE_PREFIX);	/* handshake and first headers are inside the prefix */
	CHECK(keep[1] == 0);	/* inside the first frame's data */
	CHECK(keep[50] == 0);
	CHECK(keep[f2 / PIECE] == f2 % PIECE + 22);	/* up to the end of the second headers */
	CHECK(total(keep, n) == WIRE_PREFIX + f2 % PIECE + 22);
	CHECK(st.lost == 0);
	CHECK(st.found == 0);
}

TEST(mpich_keeps_headers_only)
{
	static const uint8_t magic[8] = { 0x78, 0x56, 0x34, 0x12, 0xbe, 0xba, 0xfe, 0xca };
	struct wire_dir w;
	struct wire_stats st = { 0 };
	size_t keep[512], n, r2, r3;

	SN = 0;
	put(magic, 8);
	ucx_eager(70000);
	r2 = ucx_eager(3000);
	r3 = ucx_eager(90000);
	wire_init(&w, true, false, &st);
	n = feed(&w, &st, 0, keep, 512);
	CHECK(w.proto == WIRE_MPICH);
	CHECK(keep[r2 / PIECE] == r2 % PIECE + 13);
	CHECK(keep[r3 / PIECE] == r3 % PIECE + 13);
	CHECK(total(keep, n) == WIRE_PREFIX + (r2 % PIECE + 13) + (r3 % PIECE + 13));
}

TEST(gap_inside_data_keeps_framing)
{
	struct wire_dir w;
	struct wire_stats st = { 0 };
	size_t f2, k;

	SN = 0;
	ompi_hs();
	ompi_match(100000);
	f2 = ompi_match(100);
	wire_init(&w, true, false, &st);
	(void)wire_feed(&w, S, 1000, &st);
	wire_gap(&w, f2 - 2000, &st);	/* lost, but inside the first frame's data */
	k = wire_feed(&w, S + f2 - 1000, SN - (f2 - 1000), &st);
	CHECK(k == 1000 + 22);
	CHECK(st.lost == 0);
}

TEST(lost_framing_is_found_again_and_counted)
{
	struct wire_dir w;
	struct wire_stats st = { 0 };
	size_t at[8], k;

	SN = 0;
	ompi_hs();
	ompi_match(5000);
	for (int i = 0; i < 8; i++)
		at[i] = ompi_match(5000);
	wire_init(&w, true, false, &st);
	(void)wire_feed(&w, S, 1000, &st);
	wire_gap(&w, at[0] + 4 - 1000, &st);	/* a hole over the next frame's header */
	CHECK(st.lost == 1);
	/* the rest of that frame and two more are kept whole while searched and confirmed */
	k = wire_feed(&w, S + at[0] + 4, at[3] - (at[0] + 4), &st);
	CHECK(k == at[3] - (at[0] + 4));
	CHECK(st.found == 0);
	/* the third frame after the search confirms the framing: its data is cut again */
	k = wire_feed(&w, S + at[3], at[4] - at[3], &st);
	CHECK(st.found == 1);
	CHECK(k == 22);
	k = wire_feed(&w, S + at[4], SN - at[4], &st);
	CHECK(k == at[7] - at[4] + 22);
	CHECK(st.lost_bytes > 0);
}

TEST(mid_stream_start_searches)
{
	struct wire_dir w;
	struct wire_stats st = { 0 };
	size_t at[6], k;

	SN = 0;
	put_fill(700, 0);	/* the tail of some frame the capture came in on */
	for (int i = 0; i < 6; i++)
		at[i] = ucx_eager(4000);
	wire_init(&w, false, false, &st);
	CHECK(st.lost == 1);
	/* kept whole up to the third record found, whose header confirms the framing */
	k = wire_feed(&w, S, at[3], &st);
	CHECK(k == at[2] + 13);
	CHECK(w.proto == WIRE_MPICH);
	CHECK(st.found == 1);
	k = wire_feed(&w, S + at[3], SN - at[3], &st);
	CHECK(k == at[5] - at[3] + 13);
}

TEST(other_protocol_keeps_its_prefix)
{
	struct wire_dir w;
	struct wire_stats st = { 0 };
	size_t k;

	SN = 0;
	put("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
	put_fill(5000, 'a');
	wire_init(&w, true, false, &st);
	k = wire_feed(&w, S, 100, &st);
	CHECK(k == 100);
	k = wire_feed(&w, S + 100, SN - 100, &st);
	CHECK(k == WIRE_PREFIX - 100);
	CHECK(w.proto == WIRE_OTHER);
	CHECK(wire_feed(&w, S, 1000, &st) == 0);
}

TEST(search_gives_up)
{
	struct wire_dir w;
	struct wire_stats st = { 0 };
	static uint8_t zeros[1 << 16];
	size_t k = 0;

	wire_init(&w, false, false, &st);
	for (uint64_t o = 0; o <= WIRE_SCAN_MAX; o += sizeof zeros)
		k = wire_feed(&w, zeros, sizeof zeros, &st);
	CHECK(st.gave_up == 1);
	CHECK(w.st == WS_OTHER);
	CHECK(wire_feed(&w, zeros, sizeof zeros, &st) == 0);
	(void)k;
}

TEST(bad_header_loses_framing)
{
	struct wire_dir w;
	struct wire_stats st = { 0 };
	size_t f2;

	SN = 0;
	ompi_hs();
	ompi_match(3000);
	f2 = SN;
	put_fill(3000, 0xee);	/* not a frame */
	wire_init(&w, true, false, &st);
	(void)wire_feed(&w, S, f2, &st);
	CHECK(st.lost == 0);
	CHECK(wire_feed(&w, S + f2, SN - f2, &st) == SN - f2);
	CHECK(st.lost == 1);
	CHECK(w.proto == WIRE_OMPI);	/* known from the stream's start */
}

TEST(unconfirmed_candidate_is_not_a_protocol)
{
	struct wire_dir w;
	struct wire_stats st = { 0 };

	SN = 0;
	put_fill(100, 0x55);
	ucx_eager(10);		/* one believable record, then nothing that frames */
	put_fill(3000, 0xee);
	wire_init(&w, false, false, &st);
	CHECK(wire_feed(&w, S, SN, &st) == SN);
	CHECK(st.found == 0);
	CHECK(w.proto == WIRE_UNKNOWN);
}

int
main(void)
{
	RUN(ompi_keeps_headers_only);
	RUN(mpich_keeps_headers_only);
	RUN(gap_inside_data_keeps_framing);
	RUN(lost_framing_is_found_again_and_counted);
	RUN(mid_stream_start_searches);
	RUN(other_protocol_keeps_its_prefix);
	RUN(search_gives_up);
	RUN(bad_header_loses_framing);
	RUN(unconfirmed_candidate_is_not_a_protocol);
	return check_done();
}
