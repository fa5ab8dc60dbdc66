/* test_ompi: the Open MPI ob1/TCP decoder on real captured streams and on made-up ones. */
#include "check.h"

#include "parse/ompi.h"
#include "tests/golden/inputs/mpi-strm.h"

static const struct strm_want ompi_want = { &dec_ompi, 7919, RANKSRC_HANDSHAKE, MSG_OMPI, 8 + 14 };

static void
check_stream(const char *name, const char *expect, int w0, int w1, int nseeds)
{
	strm_check(&ompi_want, name, expect, w0, w1, nseeds);
}

TEST(reference_capture)
{
	/* jobid 0x41a40001: the initiator is vpid 0, the acceptor vpid 1 */
	check_stream("mpi-ref-ompi-btl.strm.gz", "mpi-ref-ompi-btl.expect", 0, 1, 25);
}

TEST(known_sequence)
{
	check_stream("mpi-known-ompi.strm.gz", "mpi-known-ompi.expect", 0, 1, 25);
}

/* The messages mpi-known.c sends, as the program says (not as any parser read them). */
TEST(known_program_messages)
{
	static const struct { int dir, cid, src, tag; uint64_t bytes; const char *proto; } want[] = {
		{ 0, 0, 0, 7, 10, "eager" },
		{ 1, 0, 1, 8, 1000, "eager" },
		{ 0, 0, 0, 9, 100, "sync" },
		{ 0, 0, 0, 10, 1000000, "rndv-put" },
		{ 0, 0, 0, 11, 400000, "rndv-frag" },
		{ 0, 0, 0, 12, 400000, "rndv-frag" },
		{ 0, 0, 0, 13, 200000, "rndv-frag" },
		{ 0, 0, 0, 15, 200000, "rndv-frag" },	/* contiguous into a vector: ACK, FRAGs */
		{ 0, 0, 0, 16, 200000, "rndv-put" },	/* large MPI_Ssend: rendezvous */
		{ 0, 3, 1, 14, 20, "eager" },	/* split communicator, ranks reversed */
	};
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	size_t i, w = 0, ncoll = 0;
	int saw_barrier = 0, saw_bcast = 0, saw_allreduce = 0;

	CHECK(strm_load("mpi-known-ompi.strm.gz", &s) == 0);
	strm_run(&dec_ompi, &s, 12345, &g, &st, NULL);
	for (i = 0; i < g.n; i++) {
		const struct msg *m = &g.m[i];
		const char *cn = msg_tag_name(MSG_OMPI, m->tag);

		if (m->tag < 0) {
			ncoll++;
			CHECK(cn != NULL);
			saw_barrier |= cn && strcmp(cn, "barrier") == 0;
			saw_bcast |= cn && strcmp(cn, "bcast") == 0 && m->bytes == 1000;
			saw_allreduce |= cn && strcmp(cn, "allreduce") == 0 && m->bytes == 4;
			continue;
		}
		CHECK(w < sizeof want / sizeof want[0]);
		if (w >= sizeof want / sizeof want[0])
			break;
		/* messages of one direction keep their order; 8 (1 -> 0) may come anywhere */
		if (m->tag == 8) {
			CHECK(m->dir == 1);
			CHECK(m->bytes == 1000);
			CHECK(m->src_world == 1);
			CHECK(m->dst_world == 0);
			continue;
		}
		if (want[w].tag == 8)
			w++;
		CHECK(m->dir == want[w].dir);
		CHECK(m->cid == want[w].cid);
		CHECK(m->comm_src == want[w].src);
		CHECK(m->tag == want[w].tag);
		CHECK(m->bytes == want[w].bytes);
		CHECK_STR(msg_proto_name(m->proto), want[w].proto);
		CHECK(m->src_world == 0);
		CHECK(m->dst_world == 1);
		w++;
	}
	CHECK(w == sizeof want / sizeof want[0]);
	CHECK(saw_barrier);
	CHECK(saw_bcast);
	CHECK(saw_allreduce);
	CHECK(ncoll >= 4);
	free(g.m);
	strm_free(&s);
}

TEST(handshake_only)
{
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	int32_t ranks[2];

	CHECK(strm_load("mpi-ref-ompi-hsonly.strm.gz", &s) == 0);
	strm_run(&dec_ompi, &s, 3, &g, &st, ranks);
	CHECK(g.n == 0);
	CHECK(ranks[0] == 1);	/* the losing simultaneous connect */
	CHECK(ranks[1] == -1);
	CHECK(st.bad == 0);
	CHECK(st.fallback == 0);
	free(g.m);
	strm_free(&s);
}

TEST(detect)
{
	static const uint8_t hs[24] = { 1, 0, 0xa4, 0x41, 0, 0, 0, 0, 'O', 'P', 'A', 'L', '-', 'T',
					'C', 'P', '-', 'B', 'T', 'L', 0, 0x56, 0, 0 };
	static const uint8_t ucx[8] = { 0x78, 0x56, 0x34, 0x12, 0xbe, 0xba, 0xfe, 0xca };
	static const uint8_t match[22] = { 0x41, 1, 0, 0, 14, 0, 0, 0, 0x41, 0, 0, 0, 0, 0, 0, 0,
					   0xf0, 0xff, 0xff, 0xff, 1, 0 };

	CHECK(dec_ompi.detect(hs, sizeof hs, 0) == 100);
	CHECK(dec_ompi.detect(hs, 12, 0) == 50);
	CHECK(dec_ompi.detect(hs, 4, 0) == 0);
	CHECK(dec_ompi.detect(ucx, sizeof ucx, 0) == 0);
	CHECK(dec_ompi.detect(match, sizeof match, 0) == 40);
	CHECK(dec_ompi.detect(match, 10, 0) == 0);
}

TEST(tag_names)
{
	CHECK_STR(msg_tag_name(MSG_OMPI, -16), "barrier");
	CHECK_STR(msg_tag_name(MSG_OMPI, -10), "allgather");
	CHECK_STR(msg_tag_name(MSG_OMPI, -12), "allreduce");
	CHECK_STR(msg_tag_name(MSG_OMPI, -17), "bcast");
	CHECK_STR(msg_tag_name(MSG_OMPI, -26), "scatterv");
	CHECK_STR(msg_tag_name(MSG_OMPI, -27), "nonblocking");
	CHECK_STR(msg_tag_name(MSG_OMPI, -1000), "nonblocking");
	CHECK_STR(msg_tag_name_cid(MSG_OMPI, 3, -21), "reduce");
	CHECK(msg_tag_name(MSG_OMPI, 0) == NULL);
	CHECK(msg_tag_name(MSG_OMPI, 7) == NULL);
	CHECK(msg_tag_name(MSG_OMPI, -1) == NULL);
	CHECK_STR(msg_proto_name(PROTO_RNDV_PUT), "rndv-put");
	CHECK_STR(msg_mpi_name(MSG_OMPI), "ompi");
	CHECK_STR(rank_src_name(RANKSRC_HANDSHAKE), "handshake");
}

/* ---- made-up streams ---- */

struct wbuf {
	uint8_t b[4096];
	size_t n;
};

static void
put8(struct wbuf *w, uint8_t v)
{
	w->b[w->n++] = v;
}

static void
put16(struct wbuf *w, uint16_t v)
{
	put8(w, (uint8_t)v), put8(w, (uint8_t)(v >> 8));
}

static void
put32(struct wbuf *w, uint32_t v)
{
	put16(w, (uint16_t)v), put16(w, (uint16_t)(v >> 16));
}

static void
put64(struct wbuf *w, uint64_t v)
{
	put32(w, (uint32_t)v), put32(w, (uint32_t)(v >> 32));
}

static void
hs(struct wbuf *w, uint32_t vpid)
{
	put32(w, 0x41a40001);
	put32(w, vpid);
	memcpy(w->b + w->n, "OPAL-TCP-BTL\0\0\0\0", 16);
	w->n += 16;
}

static void
rndv(struct wbuf *w, int32_t tag, uint64_t len, uint64_t req, uint32_t inline_bytes)
{
	put8(w, 0x42), put8(w, 1), put16(w, 0), put32(w, 32 + inline_bytes);
	put8(w, 0x42), put8(w, 0x20), put16(w, 0), put32(w, 0), put32(w, (uint32_t)tag);
	put16(w, 1), put16(w, 0), put64(w, len), put64(w, req);
	memset(w->b + w->n, 0xab, inline_bytes);
	w->n += inline_bytes;
}

static void
frag(struct wbuf *w, uint64_t off, uint64_t req, uint32_t bytes)
{
	put8(w, 0x46), put8(w, 1), put16(w, 0), put32(w, 32 + bytes);
	put8(w, 0x46), put8(w, 0), put16(w, 0), put32(w, 0), put64(w, off), put64(w, req);
	put64(w, 0x5000);
	memset(w->b + w->n, 0xcd, bytes);
	w->n += bytes;
}

static void
ack(struct wbuf *w, uint64_t req, uint64_t off)
{
	put8(w, 0x44), put8(w, 1), put16(w, 0), put32(w, 40);
	put8(w, 0x44), put8(w, 0x10), put16(w, 0), put32(w, 0), put64(w, req), put64(w, 0x5000);
	put64(w, off), put64(w, 0);
}

static void *
open_conn(struct got *g, struct dec_stats *st, bool syn)
{
	static struct msg_sink sink;
	struct conn_info ci;

	memset(&ci, 0, sizeof ci);
	memset(st, 0, sizeof *st);
	ci.saw_syn = syn;
	ci.rank[0] = ci.rank[1] = -1;
	sink.emit = got_emit;
	sink.ctx = g;
	return dec_ompi.open(&ci, &sink, st);
}

TEST(interleaved_frags)
{
	struct wbuf a = { .n = 0 }, b = { .n = 0 }, c = { .n = 0 }, r = { .n = 0 };
	struct got g = { 0 };
	struct dec_stats st;
	void *s = open_conn(&g, &st, true);

	hs(&a, 2);
	hs(&r, 5);
	rndv(&a, 21, 300, 0xaaa0, 100);
	rndv(&a, 22, 250, 0xbbb0, 100);
	ack(&r, 0xaaa0, 100);
	ack(&r, 0xbbb0, 100);
	frag(&b, 100, 0xbbb0, 70);
	frag(&b, 100, 0xaaa0, 120);
	frag(&b, 170, 0xbbb0, 80);	/* completes 22 */
	frag(&c, 220, 0xaaa0, 80);	/* completes 21 */
	dec_ompi.data(s, 0, a.b, a.n, 10);
	dec_ompi.data(s, 1, r.b, r.n, 11);
	dec_ompi.data(s, 0, b.b, b.n, 12);
	CHECK(g.n == 1);
	dec_ompi.data(s, 0, c.b, c.n, 13);
	dec_ompi.close(s, 14);
	CHECK(g.n == 2);
	if (g.n == 2) {
		CHECK(g.m[0].tag == 22);
		CHECK(g.m[0].bytes == 250);
		CHECK(g.m[0].proto == PROTO_RNDV_FRAG);
		CHECK(g.m[1].tag == 21);
		CHECK(g.m[1].bytes == 300);
		CHECK(g.m[1].proto == PROTO_RNDV_FRAG);
		CHECK(g.m[0].t_first_ns == 10);
		CHECK(g.m[0].t_last_ns == 12);
		CHECK(g.m[1].t_first_ns == 10);
		CHECK(g.m[1].t_last_ns == 13);
		CHECK(g.m[0].src_world == 2);
		CHECK(g.m[0].dst_world == 5);
		CHECK(g.m[1].wire_bytes == 8 + 132 + 8 + 152 + 8 + 112);
	}
	CHECK(st.bad == 0);
	CHECK(st.ctrl == 2);
	free(g.m);
}

/* Feed record w to direction d at t, and empty w. */
static void
feed(void *s, int d, struct wbuf *w, int64_t t)
{
	dec_ompi.data(s, d, w->b, w->n, t);
	w->n = 0;
}

/* Two ranks exchange rendezvous messages both ways; rank 5 is late. When it answers rank
 * 2's request before it makes its own (its receive was posted first), its request is
 * after-answer, and rank 2, sending its data first, answers it behind them: behind. When
 * it asks first, rank 2 answers at once: neither. */
TEST(answer_before_request_and_behind_data)
{
	for (int asked_first = 0; asked_first <= 1; asked_first++) {
		struct wbuf w = { .n = 0 };
		struct got g = { 0 };
		struct dec_stats st;
		void *s = open_conn(&g, &st, true);
		unsigned fa = 0, fb = 0;

		hs(&w, 2);
		feed(s, 0, &w, 1);
		hs(&w, 5);
		feed(s, 1, &w, 1);
		rndv(&w, 21, 300, 0xa, 100);	/* rank 2 asks */
		feed(s, 0, &w, 10);
		if (asked_first) {
			rndv(&w, 22, 300, 0xb, 100);
			feed(s, 1, &w, 11);
			ack(&w, 0xa, 100);
			feed(s, 1, &w, 12);
			ack(&w, 0xb, 100);	/* rank 2 answers before its data go */
			feed(s, 0, &w, 13);
			frag(&w, 100, 0xa, 200);
			feed(s, 0, &w, 14);
		} else {
			ack(&w, 0xa, 100);	/* rank 5 answers, then asks */
			feed(s, 1, &w, 11);
			rndv(&w, 22, 300, 0xb, 100);
			feed(s, 1, &w, 12);
			frag(&w, 100, 0xa, 200);	/* rank 2's data first */
			feed(s, 0, &w, 13);
			ack(&w, 0xb, 100);	/* its answer behind them */
			feed(s, 0, &w, 14);
		}
		frag(&w, 100, 0xb, 200);
		feed(s, 1, &w, 15);
		dec_ompi.close(s, 16);
		CHECK(g.n == 2);
		for (size_t i = 0; i < g.n; i++) {
			if (g.m[i].tag == 21)
				fa = g.m[i].flags;
			else
				fb = g.m[i].flags;
		}
		CHECK(fa == 0);
		CHECK(((fb & MSG_F_AFTER_ANSWER) != 0) == !asked_first);
		CHECK(((fb & MSG_F_BEHIND) != 0) == !asked_first);
		CHECK(st.bad == 0);
		free(g.m);
	}
}

TEST(truncated_put_at_close)
{
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	size_t i, cut = 0, n;
	uint64_t bytes0 = 0;
	int found = 0;

	CHECK(strm_load("mpi-ref-ompi-btl.strm.gz", &s) == 0);
	/* cut the stream in the middle of the 1000000-byte PUT (the first record past 500 KB) */
	for (i = 0; i < s.n; i++) {
		if (s.r[i].dir == 0)
			bytes0 += s.r[i].len;
		if (bytes0 > 800000) {
			cut = i;
			break;
		}
	}
	CHECK(cut > 0);
	n = s.n;
	s.n = cut;
	strm_run(&dec_ompi, &s, 99, &g, &st, NULL);
	s.n = n;
	for (i = 0; i < g.n; i++)
		if (g.m[i].tag == 12) {
			found = 1;
			CHECK(g.m[i].bytes == 1000000);
			CHECK(g.m[i].flags & MSG_F_TRUNC);
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

	CHECK(strm_load("mpi-ref-ompi-btl.strm.gz", &s) == 0);
	/* turn the largest dir-0 segment (inside the PUT or a FRAG) into a capture hole */
	for (i = 1; i < s.n; i++)
		if (s.r[i].dir == 0 && s.r[i].len > s.r[k].len)
			k = i;
	CHECK(s.r[k].len > 30000);
	free(s.r[k].p);
	s.r[k].p = NULL;
	s.r[k].gap = 1;
	strm_run(&dec_ompi, &s, 5, &g, &st, NULL);
	CHECK(st.gaps == 1);
	for (i = 0; i < g.n; i++)
		if (g.m[i].flags & MSG_F_GAP) {
			found++;
			CHECK_MSG(g.m[i].tag == 12 || g.m[i].tag == 13,
				  "gap message tag %d, expected 12 or 13", (int)g.m[i].tag);
			CHECK_MSG(g.m[i].bytes == 1000000 || g.m[i].bytes == 400000,
				  "gap message of %lld bytes, expected 1000000 or 400000", (long long)g.m[i].bytes);
		}
	CHECK(found == 1);
	CHECK(g.n == 34);	/* the hole was inside data: nothing else is lost */
	free(g.m);
	strm_free(&s);
}

/* Garbage between frames: the decoder finds the next frame and goes on. */
TEST(garbage_resync)
{
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	struct strm_rec *r;
	size_t i, at = 0, last_barrier = 0;
	uint32_t x = 77;

	CHECK(strm_load("mpi-known-ompi.strm.gz", &s) == 0);
	for (i = 0; i < s.n; i++)	/* a dir-0 record after the first two small ones */
		if (s.r[i].dir == 0 && s.r[i].len < 200 && ++at == 3) {
			at = i;
			break;
		}
	/* insert 3000 bytes of noise as a record of its own after record at */
	s.r = xgrow(s.r, &s.cap, s.n + 1, sizeof *s.r);
	memmove(s.r + at + 2, s.r + at + 1, (s.n - at - 1) * sizeof *s.r);
	s.n++;
	r = &s.r[at + 1];
	*r = s.r[at];
	r->len = 3000;
	r->p = xmalloc(r->len);
	for (i = 0; i < r->len; i++)
		r->p[i] = (uint8_t)strm_rand(&x);
	strm_run(&dec_ompi, &s, 4242, &g, &st, NULL);
	CHECK(st.resyncs >= 1);
	CHECK(st.bad >= 1);
	CHECK(st.fallback == 0);
	for (i = 0; i < g.n; i++)
		if (g.m[i].dir == 0 && g.m[i].tag == -16)
			last_barrier = i;
	CHECK(last_barrier > 0);	/* the final barrier is still found */
	CHECK(g.n >= 18);
	for (i = 0; i < g.n; i++)
		if (g.m[i].dir == 0 && g.m[i].tag == 13)
			CHECK(g.m[i].bytes == 200000);
	free(g.m);
	strm_free(&s);
}

static void
eager(struct wbuf *w, int32_t tag, uint32_t bytes, uint8_t fill)
{
	put8(w, 0x41), put8(w, 1), put16(w, 0), put32(w, 14 + bytes);
	put8(w, 0x41), put8(w, 0), put16(w, 0), put32(w, 0), put32(w, (uint32_t)tag);
	put16(w, 1);
	memset(w->b + w->n, fill, bytes);
	w->n += bytes;
}

/* A gap that runs past the end of the frame it starts in: the frame is finished by its known
 * length (its message is emitted, marked gap) and only then is the next header looked for. */
TEST(gap_past_frame_end)
{
	struct wbuf a = { .n = 0 }, b = { .n = 0 };
	struct got g = { 0 };
	struct dec_stats st;
	void *s = open_conn(&g, &st, true);
	size_t cut;

	hs(&a, 3);
	eager(&a, 21, 1000, 0x01);	/* user data full of the type byte the scan looks for */
	cut = a.n - 400;		/* the last 400 bytes of its data are lost ... */
	dec_ompi.data(s, 0, a.b, cut, 1);
	dec_ompi.gap(s, 0, 400 + 500, 2);	/* ... and 500 bytes of the next frame */
	CHECK(g.n == 1);
	if (CHECKED(g.n == 1)) {
		CHECK(g.m[0].tag == 21);
		CHECK(g.m[0].bytes == 1000);
		CHECK((g.m[0].flags & MSG_F_GAP));
	}
	if (CHECKED(g.n == 1)) {
		CHECK(g.m[0].t_last_ns == 2);
		CHECK(g.m[0].src_world == 3);
	}
	CHECK(st.resyncs == 1);
	memset(b.b, 0x01, 300);	/* the rest of the lost frame: its data */
	b.n = 300;
	eager(&b, 22, 50, 0x41);
	dec_ompi.data(s, 0, b.b, b.n, 3);
	CHECK(g.n == 2);
	if (CHECKED(g.n == 2)) {
		CHECK(g.m[1].tag == 22);
		CHECK(g.m[1].bytes == 50);
		CHECK((g.m[1].flags & MSG_F_RESYNC));
	}
	CHECK(st.fallback == 0);
	CHECK(st.bad == 0);
	dec_ompi.close(s, 4);
	free(g.m);
}

/* A header cut by a gap after its BTL part: the frame length is known, so the frame is
 * skipped whole and the next one is read in step, without a resynchronisation. */
TEST(gap_inside_header_skips_frame)
{
	struct wbuf a = { .n = 0 }, b = { .n = 0 };
	struct got g = { 0 };
	struct dec_stats st;
	void *s = open_conn(&g, &st, true);

	hs(&a, 0);
	eager(&a, 5, 2000, 0x22);	/* a 2022-byte frame */
	dec_ompi.data(s, 0, a.b, 24 + 10, 1);	/* handshake, BTL header and 2 ob1 bytes */
	dec_ompi.gap(s, 0, a.n - 24 - 10, 2);	/* the rest of that frame */
	eager(&b, 6, 30, 0x33);
	dec_ompi.data(s, 0, b.b, b.n, 3);
	CHECK(st.resyncs == 0);
	CHECK(st.bad == 0);
	CHECK(st.gaps == 1);
	CHECK(g.n == 1);
	if (CHECKED(g.n == 1)) {
		CHECK(g.m[0].tag == 6);
		CHECK(g.m[0].bytes == 30);
		CHECK((g.m[0].flags & MSG_F_GAP));
	}
	dec_ompi.close(s, 4);
	free(g.m);
}

/* After framing is lost, a header is found wherever the pieces are cut, also when it
 * straddles several pieces of one byte. */
TEST(resync_across_pieces)
{
	size_t step;

	for (step = 1; step <= 40; step += 3) {
		struct wbuf a = { .n = 0 };
		struct got g = { 0 };
		struct dec_stats st;
		void *s = open_conn(&g, &st, true);
		size_t i, k;
		uint32_t x = (uint32_t)step;

		hs(&a, 1);
		dec_ompi.data(s, 0, a.b, a.n, 1);
		dec_ompi.gap(s, 0, 77, 2);	/* framing lost right away */
		a.n = 0;
		for (i = 0; i < 700; i++)	/* noise without a believable header */
			put8(&a, (uint8_t)(strm_rand(&x) & 0x3f));
		eager(&a, 9, 40, 0x01);
		eager(&a, 10, 60, 0x02);
		for (i = 0; i < a.n; i += k) {
			k = a.n - i < step ? a.n - i : step;
			dec_ompi.data(s, 0, a.b + i, k, 3);
		}
		CHECK(g.n == 2);
		if (CHECKED(g.n == 2)) {
			CHECK(g.m[0].tag == 9);
			CHECK(g.m[0].bytes == 40);
			CHECK(g.m[1].tag == 10);
		}
		CHECK(st.fallback == 0);
		dec_ompi.close(s, 4);
		free(g.m);
	}
}

TEST(absurd_length_and_give_up)
{
	struct wbuf a = { .n = 0 };
	struct got g = { 0 };
	struct dec_stats st;
	void *s = open_conn(&g, &st, true);
	uint8_t *zeros = xcalloc(1, 1 << 20);
	int i;

	hs(&a, 0);
	put8(&a, 0x41), put8(&a, 1), put16(&a, 0), put32(&a, 0xfffffff0);	/* absurd size */
	dec_ompi.data(s, 0, a.b, a.n, 1);
	CHECK(st.bad == 1);
	CHECK(st.resyncs == 1);
	for (i = 0; i < 17 && st.fallback == 0; i++)
		dec_ompi.data(s, 0, zeros, 1 << 20, 2);
	CHECK(st.fallback == 1);	/* 16 MiB without a frame: given up */
	dec_ompi.data(s, 0, a.b, a.n, 3);	/* ignored from now on */
	CHECK(st.bad == 1);
	dec_ompi.close(s, 4);
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
	int32_t ranks[2];

	CHECK(strm_load("mpi-ref-ompi-btl.strm.gz", &s) == 0);
	/* drop everything before the 4th record of dir 0 and pretend no SYN was seen */
	for (i = 0; i < s.n; i++)
		if (s.r[i].dir == 0 && ++first == 4) {
			first = i;
			break;
		}
	s.syn = 0;
	{
		struct strm t = s;

		t.r = s.r + first;
		t.n = s.n - first;
		strm_run(&dec_ompi, &t, 31, &g, &st, ranks);
	}
	CHECK(ranks[0] == -1);
	CHECK(ranks[1] == -1);
	CHECK(g.n >= 25);
	for (i = 0; i < g.n; i++) {
		CHECK(g.m[i].ranksrc == RANKSRC_NONE);
		if (g.m[i].tag == 12) {
			CHECK(g.m[i].bytes == 1000000);
			CHECK(g.m[i].proto == PROTO_RNDV_PUT);
		}
	}
	free(g.m);
	strm_free(&s);
}

int
main(void)
{
	RUN(reference_capture);
	RUN(known_sequence);
	RUN(known_program_messages);
	RUN(handshake_only);
	RUN(detect);
	RUN(tag_names);
	RUN(interleaved_frags);
	RUN(answer_before_request_and_behind_data);
	RUN(truncated_put_at_close);
	RUN(gap_inside_data);
	RUN(garbage_resync);
	RUN(gap_past_frame_end);
	RUN(gap_inside_header_skips_frame);
	RUN(resync_across_pieces);
	RUN(absurd_length_and_give_up);
	RUN(mid_stream_start);
	return check_done();
}
