/* Unit tests for parse/tcpr: TCP reassembly of one direction. */
#include "parse/tcpr.h"

#include "parse/pkt.h"
#include "tests/unit/check.h"

#include <stdint.h>

/* What came out of a direction: bytes (gaps as '#') and the calls made. */
struct got {
	uint8_t buf[1 << 16];
	size_t len;
	int ndata, ngaps;
	uint64_t gap_bytes;
	int64_t last_t;
	int64_t tag[8];		/* the direction's tag_out at each data call (with tag_dir) */
};

static const struct tcpr_dir *tag_dir;	/* whose tag_out g_data records, or NULL */

static void
g_data(void *ctx, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct got *g = ctx;

	if (g->len + n <= sizeof g->buf) {
		memcpy(g->buf + g->len, p, n);
		g->len += n;
	}
	if (tag_dir != NULL && g->ndata < 8)
		g->tag[g->ndata] = tag_dir->tag_out;
	g->ndata++;
	g->last_t = t_ns;
}

static void
g_gap(void *ctx, uint64_t n, int64_t t_ns)
{
	struct got *g = ctx;

	if (g->len + n <= sizeof g->buf) {
		memset(g->buf + g->len, '#', (size_t)n);
		g->len += (size_t)n;
	}
	g->ngaps++;
	g->gap_bytes += n;
	g->last_t = t_ns;
}

static struct got G;
static struct tcpr_stats ST;
static struct tcpr_out OUT = { g_data, g_gap, NULL, &G };

static void
reset(struct tcpr_dir *d, size_t max_buf, size_t max_segs)
{
	memset(&G, 0, sizeof G);
	memset(&ST, 0, sizeof ST);
	tcpr_dir_init(d, max_buf, max_segs);
}

static void
seg(struct tcpr_dir *d, uint32_t seq, uint8_t flags, const char *s, int64_t t)
{
	size_t n = strlen(s);

	tcpr_dir_segment(d, seq, flags, (const uint8_t *)s, n, n, t, &OUT, &ST);
}

static int
got_is(const char *s)
{
	return G.len == strlen(s) && memcmp(G.buf, s, G.len) == 0;
}

TEST(in_order_after_syn)
{
	struct tcpr_dir d;

	reset(&d, 0, 0);
	seg(&d, 1000, PKT_TCP_SYN, "", 1);
	seg(&d, 1001, PKT_TCP_ACK, "hello ", 2);
	seg(&d, 1007, PKT_TCP_ACK, "world", 3);
	CHECK(got_is("hello world"));
	CHECK(G.ndata == 2);
	CHECK(G.last_t == 3);
	CHECK(d.next == 11);
	CHECK(ST.ooo_segs == 0);
	CHECK(ST.retrans_segs == 0);
	CHECK(ST.gaps == 0);
	tcpr_dir_release(&d);
}

TEST(reordering)
{
	struct tcpr_dir d;

	reset(&d, 0, 0);
	seg(&d, 100, PKT_TCP_SYN, "", 1);
	seg(&d, 101, 0, "aaa", 2);
	seg(&d, 107, 0, "ccc", 3);	/* ahead of a hole */
	seg(&d, 110, 0, "ddd", 4);
	CHECK(got_is("aaa"));
	CHECK(d.held_segs == 2);
	CHECK(d.held_bytes == 6);
	seg(&d, 104, 0, "bbb", 5);	/* fills it */
	CHECK(got_is("aaabbbcccddd"));
	CHECK(ST.ooo_segs == 2);
	CHECK(d.held_segs == 0);
	CHECK(d.held_bytes == 0);
	tcpr_dir_release(&d);
}

TEST(retransmission_and_conflicting_overlap)
{
	struct tcpr_dir d;

	reset(&d, 0, 0);
	seg(&d, 0, PKT_TCP_SYN, "", 1);
	seg(&d, 1, 0, "abcdef", 2);
	seg(&d, 1, 0, "abcdef", 3);	/* a plain retransmission */
	CHECK(ST.retrans_segs == 1);
	CHECK(ST.retrans_bytes == 6);
	seg(&d, 11, 0, "KLMN", 4);	/* held: hole at 7..10 */
	seg(&d, 9, 0, "ijXLMnop", 5);	/* overlaps the held KLMN: 'X'!='K', 'n'!='N' */
	CHECK(ST.conflict_bytes == 2);
	seg(&d, 7, 0, "gh", 6);
	/* the first copy wins: KLMN stays, the rest of the later copy fills around it */
	CHECK(got_is("abcdefghijKLMNop"));
	tcpr_dir_release(&d);
}

TEST(wrap_at_2_32)
{
	struct tcpr_dir d;

	reset(&d, 0, 0);
	seg(&d, 0xfffffffcu, PKT_TCP_SYN, "", 1);	/* data starts at 0xfffffffd */
	seg(&d, 0xfffffffdu, 0, "abc", 2);
	seg(&d, 0x00000003u, 0, "ghi", 3);	/* past the wrap, ahead of "def" */
	CHECK(got_is("abc"));
	seg(&d, 0x00000000u, 0, "def", 4);
	CHECK(got_is("abcdefghi"));
	CHECK(d.next == 9);
	CHECK(tcpr_dir_offset(&d, 0x00000006u) == 9);
	CHECK(tcpr_dir_offset(&d, 0xfffffff0u) < 0);
	tcpr_dir_release(&d);
}

TEST(midstream_start)
{
	struct tcpr_dir d;

	reset(&d, 0, 0);
	seg(&d, 5000, PKT_TCP_ACK, "", 1);	/* a bare ACK does not set the origin */
	CHECK(!d.started);
	seg(&d, 777777, PKT_TCP_ACK, "xyz", 2);
	CHECK(d.started);
	CHECK(!d.syn);
	CHECK(got_is("xyz"));
	seg(&d, 777770, PKT_TCP_ACK, "0123456789", 3);	/* starts before the origin */
	CHECK(ST.before_start_bytes == 7);
	CHECK(ST.retrans_bytes == 3);
	CHECK(got_is("xyz"));
	tcpr_dir_release(&d);
}

TEST(snaplen_cut_is_a_gap)
{
	struct tcpr_dir d;
	const uint8_t p[4] = { 'a', 'b', 'c', 'd' };

	reset(&d, 0, 0);
	seg(&d, 0, PKT_TCP_SYN, "", 1);
	tcpr_dir_segment(&d, 1, 0, p, 4, 10, 2, &OUT, &ST);	/* 6 bytes cut off */
	seg(&d, 11, 0, "zz", 3);
	CHECK(got_is("abcd######zz"));
	CHECK(G.ngaps == 1);
	CHECK(G.gap_bytes == 6);
	CHECK(ST.cut_segs == 1);
	/* a cut segment held out of order keeps its missing tail as a gap too */
	tcpr_dir_segment(&d, 20, 0, p, 2, 5, 4, &OUT, &ST);
	seg(&d, 13, 0, "1234567", 5);
	CHECK(got_is("abcd######zz1234567ab###"));
	tcpr_dir_release(&d);
}

TEST(fin_ends_the_stream)
{
	struct tcpr_dir d;

	reset(&d, 0, 0);
	seg(&d, 0, PKT_TCP_SYN, "", 1);
	seg(&d, 1, PKT_TCP_FIN, "bye", 2);
	CHECK(d.fin);
	CHECK(d.fin_off == 3);
	seg(&d, 4, 0, "late", 3);
	CHECK(got_is("bye"));
	CHECK(ST.after_fin_bytes == 4);
	tcpr_dir_release(&d);
}

TEST(flush_delivers_holes_as_gaps)
{
	struct tcpr_dir d;

	reset(&d, 0, 0);
	seg(&d, 0, PKT_TCP_SYN, "", 1);
	seg(&d, 1, 0, "ab", 2);
	seg(&d, 6, 0, "fg", 3);	/* lost: 3..5 */
	seg(&d, 10, 0, "jk", 4);	/* lost: 8..9 */
	CHECK(got_is("ab"));
	tcpr_dir_flush(&d, 9, &OUT, &ST);
	CHECK(got_is("ab###fg##jk"));
	CHECK(G.ngaps == 2);
	CHECK(ST.gap_bytes == 5);
	CHECK(d.head == NULL);
	CHECK(d.closed);
	seg(&d, 12, 0, "zz", 10);	/* ignored after the flush */
	CHECK(got_is("ab###fg##jk"));
	tcpr_dir_release(&d);
}

TEST(byte_cap_forces_a_gap)
{
	struct tcpr_dir d;
	static char big[1200];
	int i;

	reset(&d, 2048, 0);
	memset(big, 'x', sizeof big - 1);
	seg(&d, 0, PKT_TCP_SYN, "", 1);
	seg(&d, 1, 0, "a", 2);
	/* a hole at 2, then more than 2048 bytes behind it */
	for (i = 0; i < 3; i++)
		seg(&d, 3 + (uint32_t)i * 1199, 0, big, 3 + i);
	CHECK(ST.cap_hits >= 1);
	CHECK(d.held_bytes <= 2048);
	CHECK(G.ngaps == 1);
	CHECK(G.gap_bytes == 1);
	CHECK(d.next >= 2 + 1 + 1199);
	tcpr_dir_release(&d);
}

TEST(segment_cap)
{
	struct tcpr_dir d;
	uint32_t i;

	reset(&d, 0, 8);
	seg(&d, 0, PKT_TCP_SYN, "", 1);
	for (i = 0; i < 20; i++)
		seg(&d, 3 + 2 * i, 0, "s", 2);	/* 20 one-byte islands */
	CHECK(d.held_segs <= 8);
	CHECK(ST.cap_hits > 0);
	tcpr_dir_flush(&d, 3, &OUT, &ST);
	CHECK(G.len == 41);	/* islands at offsets 2, 4, ..., 40 */
	CHECK(d.next == 41);
	tcpr_dir_release(&d);
}

TEST(ack_past_a_hole_gives_it_up)
{
	struct tcpr_dir d;

	reset(&d, 0, 0);
	seg(&d, 0, PKT_TCP_SYN, "", 1);
	seg(&d, 1, 0, "ab", 2);
	seg(&d, 6, 0, "fg", 3);	/* 3..5 not captured */
	tcpr_dir_ack(&d, 4, 4, &OUT, &ST);	/* the peer has only 1..3: the hole may still come */
	CHECK(got_is("ab"));
	CHECK(ST.acked_holes == 0);
	tcpr_dir_ack(&d, 8, 5, &OUT, &ST);	/* the peer has everything up to 7 */
	CHECK(got_is("ab###fg"));
	CHECK(ST.acked_holes == 1);
	CHECK(d.held_segs == 0);
	seg(&d, 3, 0, "cde", 6);	/* the hole's bytes after all: already delivered as a gap */
	CHECK(got_is("ab###fg"));
	tcpr_dir_release(&d);
}

TEST(far_ahead_is_ignored)
{
	struct tcpr_dir d;

	reset(&d, 0, 0);
	seg(&d, 0, PKT_TCP_SYN, "", 1);
	seg(&d, 0x7fff0000u, 0, "junk", 2);
	CHECK(d.head == NULL);
	CHECK(G.len == 0);
	tcpr_dir_release(&d);
}

/* Each piece comes with the tag of the segment that carried it, held ones too. */
TEST(tags_follow_their_segments)
{
	struct tcpr_dir d;

	reset(&d, 0, 0);
	tag_dir = &d;
	CHECK(d.tag_in == -1);
	seg(&d, 100, PKT_TCP_SYN, "", 1);
	d.tag_in = 11;
	seg(&d, 101, 0, "aaa", 2);
	d.tag_in = 33;
	seg(&d, 107, 0, "ccc", 3);	/* held */
	d.tag_in = 22;
	seg(&d, 104, 0, "bbb", 4);	/* fills the hole: bbb, then ccc */
	CHECK(got_is("aaabbbccc"));
	if (CHECKED(G.ndata == 3)) {
		CHECK(G.tag[0] == 11);
		CHECK(G.tag[1] == 22);
		CHECK(G.tag[2] == 33);
	}
	CHECK(d.tag_out == 22);	/* back to the segment handed in */
	tag_dir = NULL;
	tcpr_dir_release(&d);
}

int
main(void)
{
	RUN(in_order_after_syn);
	RUN(reordering);
	RUN(retransmission_and_conflicting_overlap);
	RUN(wrap_at_2_32);
	RUN(midstream_start);
	RUN(snaplen_cut_is_a_gap);
	RUN(fin_ends_the_stream);
	RUN(flush_delivers_holes_as_gaps);
	RUN(byte_cap_forces_a_gap);
	RUN(segment_cap);
	RUN(ack_past_a_hole_gives_it_up);
	RUN(far_ahead_is_ignored);
	RUN(tags_follow_their_segments);
	return check_done();
}
