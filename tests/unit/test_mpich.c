/* test_mpich: the MPICH ch4:ucx (UCX TCP) decoder on real captured streams and made-up ones. */
#include "check.h"

#include "parse/mpich.h"
#include "tests/golden/inputs/mpi-strm.h"

static const struct strm_want mpich_want = { &dec_mpich, 104729, RANKSRC_UCPTAG, MSG_MPICH, 5 + 8 };

static void
check_stream(const char *name, const char *expect, int w0, int w1, int nseeds)
{
	strm_check(&mpich_want, name, expect, w0, w1, nseeds);
}

TEST(reference_capture)
{
	/* the initiator's first message is a barrier with ctx 1, rank 1 */
	check_stream("mpi-ref-mpich.strm.gz", "mpi-ref-mpich.expect", 1, 0, 25);
}

TEST(reference_size_sweep)
{
	check_stream("mpi-ref-mpich-sweep.strm.gz", "mpi-ref-mpich-sweep.expect", 1, 0, 25);
}

TEST(known_sequence)
{
	check_stream("mpi-known-mpich.strm.gz", "mpi-known-mpich.expect", 1, 0, 25);
}

/* The messages mpi-known.c sends, as the program says. World rank 1 initiated the
 * connection here, so rank 0's messages travel in direction 1. */
TEST(known_program_messages)
{
	static const struct known_msg want[] = {
		{ 0, 0, 7, 10, "eager" },
		{ 0, 0, 9, 100, "sync" },
		{ 0, 0, 10, 1000000, "rndv-put" },
		{ 0, 0, 11, 400000, "rndv-frag" },
		{ 0, 0, 12, 400000, "rndv-frag" },
		{ 0, 0, 13, 200000, "rndv-frag" },
		{ 0, 0, 15, 200000, "rndv-frag" },	/* contiguous into a vector: RNDV_DATA */
		{ 0, 0, 16, 200000, "rndv-put" },	/* large MPI_Ssend: rendezvous */
		{ 496, 1, 14, 20, "eager" },	/* split communicator: world 0 is rank 1 there */
	};

	strm_check_known(&dec_mpich, MSG_MPICH, "mpi-known-mpich.strm.gz", want,
			 sizeof want / sizeof want[0]);
}

TEST(self_connection)
{
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	int32_t ranks[2];

	CHECK(strm_load("mpi-ref-mpich-self.strm.gz", &s) == 0);
	strm_run(&dec_mpich, &s, 9, &g, &st, ranks);
	CHECK(g.n == 0);
	CHECK(st.bad == 0);
	CHECK(st.fallback == 0);
	CHECK(st.ctrl == 2);
	CHECK(ranks[0] == -1);
	CHECK(ranks[1] == -1);
	free(g.m);
	strm_free(&s);
}

TEST(detect)
{
	static const uint8_t magic[8] = { 0x78, 0x56, 0x34, 0x12, 0xbe, 0xba, 0xfe, 0xca };
	static const uint8_t reply[9] = { 32, 4, 0, 0, 0, 3, 0, 0, 0 };
	static const uint8_t hs[24] = { 1, 0, 0xa4, 0x41, 0, 0, 0, 0, 'O', 'P', 'A', 'L', '-', 'T',
					'C', 'P', '-', 'B', 'T', 'L', 0, 0x56, 0, 0 };

	CHECK(dec_mpich.detect(magic, 8, 0) == 100);
	CHECK(dec_mpich.detect(magic, 3, 0) == 50);
	CHECK(dec_mpich.detect(reply, 9, 1) == 60);
	CHECK(dec_mpich.detect(hs, sizeof hs, 0) == 0);
	CHECK(dec_mpich.detect(hs, sizeof hs, 1) == 0);
}

TEST(tag_names)
{
	CHECK_STR(msg_tag_name_cid(MSG_MPICH, 1, 1), "barrier");
	CHECK_STR(msg_tag_name_cid(MSG_MPICH, 1, 2), "bcast");
	CHECK_STR(msg_tag_name_cid(MSG_MPICH, 1, 7), "allgather");
	CHECK_STR(msg_tag_name_cid(MSG_MPICH, 497, 14), "allreduce");
	CHECK_STR(msg_tag_name_cid(MSG_MPICH, 1, 28), "reduce_scatter_block");
	CHECK_STR(msg_tag_name_cid(MSG_MPICH, 1, 100), "hcoll");
	CHECK_STR(msg_tag_name_cid(MSG_MPICH, 1, 400), "nonblocking");
	CHECK(msg_tag_name_cid(MSG_MPICH, 0, 1) == NULL);	/* a user tag 1 */
	CHECK(msg_tag_name_cid(MSG_MPICH, 496, 14) == NULL);
	CHECK(msg_tag_name(MSG_MPICH, 1) == NULL);
	CHECK_STR(msg_mpi_name(MSG_MPICH), "mpich");
	CHECK_STR(rank_src_name(RANKSRC_UCPTAG), "ucptag");
	CHECK_STR(msg_proto_name(PROTO_SYNC), "sync");
	CHECK_STR(msg_proto_name(PROTO_CTRL), "ctrl");
}

/* ---- made-up streams ---- */

struct wbuf {
	uint8_t b[8192];
	size_t n;
};

static void
put8(struct wbuf *w, uint8_t v)
{
	w->b[w->n++] = v;
}

static void
put32(struct wbuf *w, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		put8(w, (uint8_t)(v >> (8 * i)));
}

static void
put64(struct wbuf *w, uint64_t v)
{
	put32(w, (uint32_t)v), put32(w, (uint32_t)(v >> 32));
}

static void
fill(struct wbuf *w, size_t n)
{
	memset(w->b + w->n, 0x5a, n);
	w->n += n;
}

static uint64_t
utag(uint32_t ctx, uint32_t rank, uint32_t tag)
{
	return (uint64_t)ctx << 48 | (uint64_t)rank << 32 | tag;
}

static void *
open_conn(struct got *g, struct dec_stats *st, int32_t r0, int32_t r1)
{
	static struct msg_sink sink;
	struct conn_info ci;
	struct wbuf w = { .n = 0 };
	void *s;

	memset(&ci, 0, sizeof ci);
	memset(st, 0, sizeof *st);
	ci.saw_syn = true;
	ci.rank[0] = r0;
	ci.rank[1] = r1;
	sink.emit = got_emit;
	sink.ctx = g;
	s = dec_mpich.open(&ci, &sink, st);
	put64(&w, UINT64_C(0xCAFEBABE12345678));
	dec_mpich.data(s, 0, w.b, w.n, 1);
	return s;
}

TEST(eager_fragments_interleaved)
{
	struct wbuf a = { .n = 0 };
	struct got g = { 0 };
	struct dec_stats st;
	void *s = open_conn(&g, &st, 4, 6);

	/* two multi-fragment eager messages (ids 1 and 2) and a sync one, interleaved */
	put8(&a, 3), put32(&a, 24 + 100), put64(&a, utag(5, 2, 77)), put64(&a, 300), put64(&a, 1);
	fill(&a, 100);
	put8(&a, 7), put32(&a, 40 + 50), put64(&a, utag(5, 2, 78)), put64(&a, 120), put64(&a, 2);
	put64(&a, 0x1111), put64(&a, 0x2222);
	fill(&a, 50);
	put8(&a, 4), put32(&a, 16 + 200), put64(&a, 1), put64(&a, 100);
	fill(&a, 200);	/* completes 77 */
	put8(&a, 4), put32(&a, 16 + 70), put64(&a, 2), put64(&a, 50);
	fill(&a, 70);	/* completes 78 */
	dec_mpich.data(s, 0, a.b, a.n, 5);
	dec_mpich.close(s, 6);
	CHECK(g.n == 2);
	if (g.n == 2) {
		CHECK(g.m[0].tag == 77);
		CHECK(g.m[0].bytes == 300);
		CHECK(g.m[0].proto == PROTO_EAGER);
		CHECK(g.m[1].tag == 78);
		CHECK(g.m[1].bytes == 120);
		CHECK(g.m[1].proto == PROTO_SYNC);
		CHECK(g.m[0].cid == 5);
		CHECK(g.m[0].comm_src == 2);
		CHECK(g.m[0].src_world == 4);
		CHECK(g.m[0].dst_world == 6);
		CHECK(g.m[0].ranksrc == RANKSRC_SOCKMAP);
		CHECK(g.m[0].wire_bytes == 5 + 124 + 5 + 216);
	}
	CHECK(st.bad == 0);
	free(g.m);
}

TEST(rendezvous_split_puts)
{
	struct wbuf a = { .n = 0 }, r = { .n = 0 }, b = { .n = 0 };
	struct got g = { 0 };
	struct dec_stats st;
	void *s = open_conn(&g, &st, -1, -1);

	put8(&r, 32), put32(&r, 4), put32(&r, 3);	/* ACK_WITH_REQ */
	put8(&r, 2), put32(&r, 8), put64(&r, utag(1, 0, 1));	/* barrier: acceptor is 0 */
	put8(&a, 2), put32(&a, 8), put64(&a, utag(1, 3, 1));	/* initiator is 3 */
	put8(&a, 9), put32(&a, 41 + 10), put64(&a, utag(0, 3, 5)), put64(&a, 0xe0);
	put64(&a, 0x5a5a0), put64(&a, 0x7000), put64(&a, 5000), put8(&a, 0);
	fill(&a, 10);	/* rkey */
	dec_mpich.data(s, 0, a.b, a.n, 10);
	dec_mpich.data(s, 1, r.b, r.n, 11);
	r.n = 0;
	put8(&r, 11), put32(&r, 40), put64(&r, 0x5a5a0), put64(&r, 0x8a8a0), put64(&r, 0x9000);
	put64(&r, 5000), put64(&r, 0);
	dec_mpich.data(s, 1, r.b, r.n, 12);
	put8(&b, 33), put32(&b, 20), put64(&b, 0x9000), put64(&b, 3000), put32(&b, 0);
	fill(&b, 3000);
	put8(&b, 33), put32(&b, 20), put64(&b, 0x9000 + 3000), put64(&b, 2000), put32(&b, 1);
	fill(&b, 2000);
	put8(&b, 16), put32(&b, 17), put64(&b, 0x8a8a0), put8(&b, 0), put64(&b, 5000);
	dec_mpich.data(s, 0, b.b, 3000, 13);
	CHECK(g.n == 2);	/* the two barriers */
	dec_mpich.data(s, 0, b.b + 3000, b.n - 3000, 14);
	CHECK(g.n == 3);
	if (g.n == 3) {
		CHECK(g.m[2].tag == 5);
		CHECK(g.m[2].bytes == 5000);
		CHECK(g.m[2].proto == PROTO_RNDV_PUT);
		CHECK(g.m[2].src_world == 3);
		CHECK(g.m[2].dst_world == 0);
		CHECK(g.m[2].ranksrc == RANKSRC_UCPTAG);
		CHECK(g.m[2].t_first_ns == 10);
		CHECK(g.m[2].t_last_ns == 14);
		CHECK(g.m[2].wire_bytes == 56 + 25 + 3000 + 25 + 2000);
	}
	dec_mpich.close(s, 15);
	CHECK(g.n == 3);
	CHECK(st.bad == 0);
	CHECK(st.resyncs == 0);
	free(g.m);
}

TEST(ranks_wait_for_world_message)
{
	struct wbuf a = { .n = 0 }, r = { .n = 0 };
	struct got g = { 0 };
	struct dec_stats st;
	void *s = open_conn(&g, &st, -1, -1);

	put8(&a, 2), put32(&a, 8 + 4), put64(&a, utag(496, 1, 14)), fill(&a, 4);
	dec_mpich.data(s, 0, a.b, a.n, 2);
	CHECK(g.n == 0);	/* sender unknown yet: held back */
	put8(&r, 2), put32(&r, 8), put64(&r, utag(0, 2, 3));
	dec_mpich.data(s, 1, r.b, r.n, 3);
	CHECK(g.n == 0);	/* direction 0 still unknown */
	a.n = 0;
	put8(&a, 2), put32(&a, 8), put64(&a, utag(1, 5, 1));
	dec_mpich.data(s, 0, a.b, a.n, 4);
	CHECK(g.n == 3);
	if (g.n == 3) {
		CHECK(g.m[0].cid == 496);
		CHECK(g.m[0].comm_src == 1);
		CHECK(g.m[0].src_world == 5);
		CHECK(g.m[0].dst_world == 2);
		CHECK(g.m[1].src_world == 2);
		CHECK(g.m[1].dst_world == 5);
	}
	dec_mpich.close(s, 5);
	free(g.m);
}

TEST(truncated_at_close)
{
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	size_t i, cut = 0, n;
	uint64_t bytes1 = 0;
	int found = 0;

	CHECK(strm_load("mpi-ref-mpich.strm.gz", &s) == 0);
	for (i = 0; i < s.n; i++) {	/* inside the 1000000-byte PUT */
		if (s.r[i].dir == 1)
			bytes1 += s.r[i].len;
		if (bytes1 > 600000) {
			cut = i;
			break;
		}
	}
	n = s.n;
	s.n = cut;
	strm_run(&dec_mpich, &s, 17, &g, &st, NULL);
	s.n = n;
	for (i = 0; i < g.n; i++)
		if (g.m[i].tag == 12) {
			found = 1;
			CHECK(g.m[i].bytes == 1000000);
			CHECK((g.m[i].flags & MSG_F_TRUNC));
			CHECK(g.m[i].proto == PROTO_RNDV_PUT);
		}
	CHECK(found);
	free(g.m);
	strm_free(&s);
}

TEST(gap_inside_data)
{
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	size_t i, k = 0;
	int found = 0;

	CHECK(strm_load("mpi-ref-mpich.strm.gz", &s) == 0);
	for (i = 1; i < s.n; i++)
		if (s.r[i].dir == 1 && s.r[i].len > s.r[k].len)
			k = i;
	CHECK(s.r[k].len > 30000);
	free(s.r[k].p);
	s.r[k].p = NULL;
	s.r[k].gap = 1;
	strm_run(&dec_mpich, &s, 23, &g, &st, NULL);
	CHECK(st.gaps == 1);
	CHECK(g.n == 33);
	for (i = 0; i < g.n; i++)
		if (g.m[i].flags & MSG_F_GAP) {
			found++;
			CHECK(g.m[i].tag == 12);
			CHECK(g.m[i].bytes == 1000000);
		}
	CHECK(found == 1);
	free(g.m);
	strm_free(&s);
}

/* A gap that runs past the end of a record finishes that record (its message flagged) and
 * only then loses framing; a gap in a header whose length was read skips the record. */
TEST(gap_past_record_end)
{
	struct wbuf a = { .n = 0 };
	struct got g = { 0 };
	struct dec_stats st;
	void *s = open_conn(&g, &st, 4, 6);

	put8(&a, 2), put32(&a, 8 + 100), put64(&a, utag(5, 2, 41));
	fill(&a, 40);
	dec_mpich.data(s, 0, a.b, a.n, 2);
	dec_mpich.gap(s, 0, 60 + 30, 3);	/* the rest of 41, and 30 bytes after it */
	CHECK(g.n == 1);
	CHECK(st.resyncs == 1);
	if (g.n == 1) {
		CHECK(g.m[0].tag == 41);
		CHECK(g.m[0].bytes == 100);
		CHECK((g.m[0].flags & MSG_F_GAP));
	}
	dec_mpich.close(s, 4);

	g.n = 0;
	s = open_conn(&g, &st, 4, 6);
	a.n = 0;
	put8(&a, 2), put32(&a, 8 + 100), put8(&a, 0x11), put8(&a, 0x22);
	dec_mpich.data(s, 0, a.b, a.n, 2);
	dec_mpich.gap(s, 0, 6 + 100, 3);	/* the rest of that record exactly */
	a.n = 0;
	put8(&a, 2), put32(&a, 8 + 10), put64(&a, utag(5, 2, 42));
	fill(&a, 10);
	dec_mpich.data(s, 0, a.b, a.n, 4);
	CHECK(st.resyncs == 0);
	CHECK(st.gaps == 1);
	CHECK(g.n == 1);
	if (g.n == 1) {
		CHECK(g.m[0].tag == 42);
		CHECK(g.m[0].bytes == 10);
		CHECK(g.m[0].flags == MSG_F_GAP);
	}
	dec_mpich.close(s, 5);
	free(g.m);
}

/* Where the record after garbage is found does not depend on how the bytes were cut into
 * pieces. */
TEST(resync_independent_of_pieces)
{
	struct wbuf a = { .n = 0 };
	struct got g1 = { 0 }, g2 = { 0 };
	struct dec_stats st1, st2;
	void *s1 = open_conn(&g1, &st1, 4, 6), *s2 = open_conn(&g2, &st2, 4, 6);
	uint32_t x = 7;
	size_t i;

	put8(&a, 2), put32(&a, 0xfffffff0);	/* absurd length: framing lost */
	for (i = 0; i < 700; i++)
		put8(&a, (uint8_t)strm_rand(&x));
	for (i = 0; i < 3; i++) {
		put8(&a, 2), put32(&a, 8 + 300), put64(&a, utag(5, 2, 50 + (uint32_t)i));
		fill(&a, 300);
	}
	dec_mpich.data(s1, 0, a.b, a.n, 2);
	for (i = 0; i < a.n; i++)
		dec_mpich.data(s2, 0, a.b + i, 1, 2);
	dec_mpich.close(s1, 3);
	dec_mpich.close(s2, 3);
	CHECK(g1.n >= 2);
	CHECK(g1.n == g2.n);
	for (i = 0; i < g1.n && i < g2.n; i++)
		CHECK(memcmp(&g1.m[i], &g2.m[i], sizeof g1.m[i]) == 0);
	if (CHECKED(g1.n > 0)) {
		CHECK(g1.m[g1.n - 1].tag == 52);
		CHECK(g1.m[g1.n - 1].bytes == 300);
	}
	CHECK(st1.resyncs == st2.resyncs);
	CHECK(st1.bad == st2.bad);
	free(g1.m);
	free(g2.m);
}

TEST(garbage_resync)
{
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	struct strm_rec *r;
	size_t i, at = 0;
	uint32_t x = 99;
	int last = 0;

	CHECK(strm_load("mpi-known-mpich.strm.gz", &s) == 0);
	for (i = 0; i < s.n; i++)	/* after the 3rd dir-1 record */
		if (s.r[i].dir == 1 && ++at == 3) {
			at = i;
			break;
		}
	s.r = xgrow(s.r, &s.cap, s.n + 1, sizeof *s.r);
	memmove(s.r + at + 2, s.r + at + 1, (s.n - at - 1) * sizeof *s.r);
	s.n++;
	r = &s.r[at + 1];
	*r = s.r[at];
	r->len = 3000;
	r->p = xmalloc(r->len);
	for (i = 0; i < r->len; i++)
		r->p[i] = (uint8_t)strm_rand(&x);
	strm_run(&dec_mpich, &s, 4243, &g, &st, NULL);
	CHECK(st.resyncs >= 1);
	CHECK(st.bad >= 1);
	CHECK(st.fallback == 0);
	for (i = 0; i < g.n; i++) {
		if (g.m[i].dir == 1 && g.m[i].tag == 13)
			CHECK(g.m[i].bytes == 200000);
		if (g.m[i].dir == 1 && g.m[i].cid == 496)
			last = 1;	/* a late message is still found */
	}
	CHECK(last);
	CHECK(g.n >= 15);
	free(g.m);
	strm_free(&s);
}

TEST(absurd_length_and_give_up)
{
	struct wbuf a = { .n = 0 };
	struct got g = { 0 };
	struct dec_stats st;
	void *s = open_conn(&g, &st, -1, -1);
	uint8_t *zeros = xcalloc(1, 1 << 20);
	int i;

	put8(&a, 2), put32(&a, 0xfffffff0);	/* absurd AM length */
	dec_mpich.data(s, 0, a.b, a.n, 2);
	CHECK(st.bad == 1);
	CHECK(st.resyncs == 1);
	a.n = 0;
	for (i = 0; i < 18 && st.fallback == 0; i++)
		dec_mpich.data(s, 0, zeros, 1 << 20, 3);
	CHECK(st.fallback == 1);
	dec_mpich.close(s, 4);
	CHECK(g.n == 0);
	free(zeros);
	free(g.m);
}

TEST(mid_stream_start)
{
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	size_t i, first = 0;
	int big = 0;

	CHECK(strm_load("mpi-ref-mpich.strm.gz", &s) == 0);
	for (i = 0; i < s.n; i++)
		if (s.r[i].dir == 1 && ++first == 5) {
			first = i;
			break;
		}
	s.syn = 0;
	{
		struct strm t = s;

		t.r = s.r + first;
		t.n = s.n - first;
		strm_run(&dec_mpich, &t, 41, &g, &st, NULL);
	}
	CHECK(g.n >= 20);
	for (i = 0; i < g.n; i++)
		if (g.m[i].tag == 12 && g.m[i].bytes == 1000000 && g.m[i].proto == PROTO_RNDV_PUT)
			big = 1;
	CHECK(big);
	free(g.m);
	strm_free(&s);
}

int
main(void)
{
	RUN(reference_capture);
	RUN(reference_size_sweep);
	RUN(known_sequence);
	RUN(known_program_messages);
	RUN(self_connection);
	RUN(detect);
	RUN(tag_names);
	RUN(eager_fragments_interleaved);
	RUN(rendezvous_split_puts);
	RUN(ranks_wait_for_world_message);
	RUN(truncated_at_close);
	RUN(gap_inside_data);
	RUN(gap_past_record_end);
	RUN(resync_independent_of_pieces);
	RUN(garbage_resync);
	RUN(absurd_length_and_give_up);
	RUN(mid_stream_start);
	return check_done();
}
