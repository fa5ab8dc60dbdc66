/* Unit tests for collect/kcut: the eBPF filter run on crafted frames (BPF_PROG_TEST_RUN)
 * cuts exactly the segments wholly inside a declared body and applies the filter it
 * replaces. Needs CAP_BPF; prints "skipped: reason" without it. */
#include "collect/kcut.h"

#include <arpa/inet.h>
#include <string.h>

#include "check.h"
#include "collect/kcut_map.h"

static struct kcut *K;	/* l3_off 0: the test run removes the Ethernet header */

static const uint8_t A[4] = { 10, 0, 0, 1 }, B[4] = { 10, 0, 0, 2 };

/* An Ethernet + IPv4 + TCP (20-byte header) frame into f; returns its length. */
static size_t
frame4(uint8_t *f, uint8_t proto, const uint8_t *src, const uint8_t *dst, uint16_t sport,
       uint16_t dport, uint32_t seq, uint8_t flags, size_t payload)
{
	size_t iplen = 20 + 20 + payload;

	memset(f, 0, 14 + iplen);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)(iplen >> 8), f[17] = (uint8_t)iplen;
	f[22] = 64, f[23] = proto;
	memcpy(f + 26, src, 4);
	memcpy(f + 30, dst, 4);
	f[34] = (uint8_t)(sport >> 8), f[35] = (uint8_t)sport;
	f[36] = (uint8_t)(dport >> 8), f[37] = (uint8_t)dport;
	f[38] = (uint8_t)(seq >> 24), f[39] = (uint8_t)(seq >> 16);
	f[40] = (uint8_t)(seq >> 8), f[41] = (uint8_t)seq;
	f[46] = 0x50, f[47] = (uint8_t)(flags | 0x10);
	for (size_t i = 0; i < payload; i++)
		f[54 + i] = (uint8_t)i;
	return 14 + iplen;
}

/* What the program copies of a frame, counted from the IP header. */
static uint32_t
copy4(uint8_t proto, uint16_t sport, uint16_t dport, uint32_t seq, uint8_t flags, size_t payload)
{
	static uint8_t f[14 + 40 + 9000];
	size_t n = frame4(f, proto, A, B, sport, dport, seq, flags, payload);
	uint32_t c = 12345;
	struct err e;

	CHECK(kcut_run(K, f, n, &c, &e) == 0);
	return c;
}

TEST(unknown_flow_whole)
{
	CHECK(copy4(6, 5000, 6000, 1000, 0, 1448) == 40 + 1448);
}

TEST(body_cut_edges)
{
	/* body [1000, 1000 + 10 * 1448) of 10.0.0.1:5000 -> 10.0.0.2:6000 */
	kcut_set(K, 4, A, B, 5000, 6000, 1000, 1000 + 14480, false);
	CHECK(copy4(6, 5000, 6000, 1000, 0, 1448) == 40);		/* first segment */
	CHECK(copy4(6, 5000, 6000, 1000 + 13032, 0, 1448) == 40);	/* ends exactly at s */
	CHECK(copy4(6, 5000, 6000, 1000 + 13033, 0, 1448) == 40 + 1448);	/* one byte past */
	CHECK(copy4(6, 5000, 6000, 999, 0, 1448) == 40 + 1);	/* starts before lo: up to it */
	CHECK(copy4(6, 5000, 6000, 999, 0, 1) == 40 + 1);		/* ends at lo */
	CHECK(copy4(6, 5000, 6000, 1000 + 14480, 0, 100) == 40 + 100);	/* the next header */
	CHECK(copy4(6, 6000, 5000, 1000, 0, 1448) == 40 + 1448);	/* the other direction */
	CHECK(copy4(6, 5000, 6000, 2000, 0x01, 100) == 40 + 100);	/* FIN: never cut */
	CHECK(copy4(6, 5000, 6000, 2000, 0, 0) == 40);		/* bare ACK: nothing to cut */
	kcut_del(K, 4, A, B, 5000, 6000);
	CHECK(copy4(6, 5000, 6000, 1000, 0, 1448) == 40 + 1448);
}

TEST(body_across_wrap)
{
	uint32_t lo = 0xffffff00u;

	kcut_set(K, 4, A, B, 5001, 6000, lo, lo + 3000, false);
	CHECK(copy4(6, 5001, 6000, lo + 100, 0, 1448) == 40);		/* straddles 2^32 */
	CHECK(copy4(6, 5001, 6000, lo + 2000, 0, 1448) == 40 + 1448);	/* past s */
	CHECK(copy4(6, 5001, 6000, lo - 0x80000000u, 0, 100) == 40 + 100);	/* far away */
	kcut_del(K, 4, A, B, 5001, 6000);
}

/* A segment of 1448 bytes at seq whose payload holds an Open MPI MATCH frame header
 * (8-byte BTL header, then the 14-byte ob1 header) at offset pos; tag8: its byte 8. */
static uint32_t
copy_ompi(uint16_t sport, uint32_t seq, size_t pos, uint32_t size, uint8_t tag8)
{
	static uint8_t f[14 + 40 + 1448];
	size_t n = frame4(f, 6, A, B, sport, 6000, seq, 0, 1448);
	uint8_t *h = f + 54 + pos;
	uint32_t c = 12345;
	struct err e;

	h[0] = 0x41, h[1] = 1, h[2] = 0, h[3] = 0;
	h[4] = (uint8_t)size, h[5] = (uint8_t)(size >> 8), h[6] = (uint8_t)(size >> 16);
	h[7] = (uint8_t)(size >> 24), h[8] = tag8;
	CHECK(kcut_run(K, f, n, &c, &e) == 0);
	return c;
}

TEST(follows_ompi_frames)
{
	uint32_t s = 1000 + 14480, body = 100000;
	struct kcut_counters kc0, kc;

	kcut_counters(K, &kc0);
	kcut_set(K, 4, A, B, 5002, 6000, 1000, s, true);
	CHECK(copy4(6, 5002, 6000, 1000, 0, 1448) == 40);	/* the seeded body */
	/* the header at s, 100 bytes into the segment: copied up to the header's end (8 + 14
	 * bytes), then followed */
	CHECK(copy_ompi(5002, s - 100, 100, 14 + body, 0x41) == 40 + 100 + 22);
	CHECK(copy4(6, 5002, 6000, s - 100 + 1448, 0, 1448) == 40);	/* the new body */
	CHECK(copy4(6, 5002, 6000, s + 22 + body - 1448, 0, 1448) == 40);	/* its last bytes */
	/* a caller behind the program does not pull it back */
	kcut_set(K, 4, A, B, 5002, 6000, 1000, s, true);
	CHECK(copy4(6, 5002, 6000, s + 5000, 0, 1448) == 40);
	/* the next header does not repeat its tag in byte 8: not followed */
	s += 22 + body;
	CHECK(copy_ompi(5002, s, 0, 14 + body, 0x42) == 40 + 1448);
	CHECK(copy4(6, 5002, 6000, s + 1448, 0, 1448) == 40 + 1448);
	kcut_counters(K, &kc);
	CHECK(kc.followed - kc0.followed == 1);
	CHECK(kc.stopped - kc0.stopped == 1);	/* the bad one */
	CHECK(kc.packets - kc0.packets == 5);
	kcut_del(K, 4, A, B, 5002, 6000);
}

TEST(filter_folded)
{
	struct kcut *f = NULL;
	const uint16_t ports[] = { 22, 2049 };
	struct err e;
	uint8_t fr[200];
	uint32_t c = 1;
	size_t n;

	CHECK(kcut_open(&f, 0, true, ports, 2, &e) == 0);
	if (f == NULL)
		return;
	n = frame4(fr, 17, A, B, 5000, 6000, 0, 0, 10);		/* UDP */
	if (CHECKED(kcut_run(f, fr, n, &c, &e) == 0))
		CHECK(c == 0);
	n = frame4(fr, 6, A, B, 40000, 22, 0, 0, 10);		/* ssh */
	if (CHECKED(kcut_run(f, fr, n, &c, &e) == 0))
		CHECK(c == 0);
	n = frame4(fr, 6, A, B, 2049, 900, 0, 0, 10);		/* NFS */
	if (CHECKED(kcut_run(f, fr, n, &c, &e) == 0))
		CHECK(c == 0);
	n = frame4(fr, 6, A, B, 40000, 23, 0, 0, 10);		/* other TCP */
	if (CHECKED(kcut_run(f, fr, n, &c, &e) == 0))
		CHECK(c == 50);
	kcut_free(f);
	n = frame4(fr, 17, A, B, 5000, 6000, 0, 0, 10);		/* no filter: UDP whole */
	if (CHECKED(kcut_run(K, fr, n, &c, &e) == 0))
		CHECK(c == 50);
}

TEST(counters)
{
	struct kcut_counters kc;

	kcut_counters(K, &kc);
	CHECK(kc.packets == 9);		/* body_cut_edges 3, body_across_wrap 1, follows 5 */
	CHECK(kc.bytes == 7 * 1448 + 1447 + (1448 - 122));
	CHECK(kc.updates == 3);
	CHECK(kc.map_full == 0);
}

/* A stream of two Open MPI MATCH frames (22 header bytes parse reads, then BODY bytes of
 * body): the first header at sequence number HDR1, the second right after its body. */
#define BASE 1000u
#define HDR1 3000u
#define BODY 20000u
#define HDR2 (HDR1 + 22 + BODY)
static uint8_t Stream[HDR2 + 4096 - BASE];

static void
stream_init(void)
{
	for (size_t i = 0; i < sizeof Stream; i++)
		Stream[i] = (uint8_t)(i * 7);
	for (uint32_t at = HDR1; at <= HDR2; at += 22 + BODY) {
		uint8_t *h = Stream + at - BASE;
		uint32_t size = 14 + BODY;

		h[0] = 0x41, h[1] = 1, h[2] = 0, h[3] = 0;
		h[4] = (uint8_t)size, h[5] = (uint8_t)(size >> 8);
		h[6] = (uint8_t)(size >> 16), h[7] = (uint8_t)(size >> 24);
		h[8] = 0x41;
	}
}

/* What the program copies (from the IP header) of the segment [seq, seq + n) of the
 * stream st whose byte 0 has sequence number base. */
static uint32_t
copy_from(const uint8_t *st, uint32_t base, uint16_t sport, uint32_t seq, size_t n)
{
	static uint8_t f[14 + 40 + 1448];
	size_t len = frame4(f, 6, A, B, sport, 6000, seq, 0, n);
	uint32_t c = 12345;
	struct err e;

	memcpy(f + 54, st + seq - base, n);
	CHECK(kcut_run(K, f, len, &c, &e) == 0);
	return c;
}

static uint32_t
copy_seg(uint16_t sport, uint32_t seq, size_t n)
{
	return copy_from(Stream, BASE, sport, seq, n);
}

/* A header at h1 (the next at h2, keep bytes of each read by parse) of stream st (byte 0
 * at base) cut by a segment's end after k bytes, for every k inside the keep bytes, on
 * ports from port0 on: the next segment is copied up to the header's end and following
 * (follow) goes on. */
static void
split_every_offset(const uint8_t *st, uint32_t base, uint16_t port0, unsigned follow,
		   uint32_t h1, uint32_t h2, uint32_t keep)
{
	struct kcut_counters kc0, kc;

	kcut_counters(K, &kc0);
	for (uint32_t k = 1; k < keep; k++) {
		uint16_t port = (uint16_t)(port0 + k);

		uint32_t n1 = h1 + k - base < 1448 ? h1 + k - base : 1448;	/* from the start */

		kcut_set(K, 4, A, B, port, 6000, h1, h1, follow);	/* the header at h1 */
		CHECK(copy_from(st, base, port, h1 + k - n1, n1) == 40 + n1);	/* k bytes of it */
		CHECK(copy_from(st, base, port, h1 + k, 1448) == 40 + keep - k);	/* the rest */
		CHECK(copy_from(st, base, port, h1 + k + 1448, 1448) == 40);		/* body */
		CHECK(copy_from(st, base, port, h2 - 100, 1448) == 40 + 100 + keep);	/* on */
		kcut_del(K, 4, A, B, port, 6000);
	}
	kcut_counters(K, &kc);
	CHECK(kc.followed - kc0.followed == 2 * (keep - 1));
	CHECK(kc.stopped == kc0.stopped);
	CHECK(kc.packets - kc0.packets == 3 * (keep - 1));
}

/* An Open MPI frame header split at every offset of the 22 bytes parse reads. */
TEST(header_split_every_offset)
{
	split_every_offset(Stream, BASE, 5100, KCUT_FOLLOW_OMPI, HDR1, HDR2, 22);
}

/* The segment after a cut header arrives late or in pieces: following stops safely (the
 * segments copied whole) or waits for the next piece. */
TEST(header_split_out_of_order)
{
	struct kcut_counters kc0, kc;
	uint16_t port = 5200;

	kcut_counters(K, &kc0);
	kcut_set(K, 4, A, B, port, 6000, HDR1, HDR1, true);
	CHECK(copy_seg(port, HDR1 + 3 - 1448, 1448) == 40 + 1448);	/* 3 bytes of the header */
	CHECK(copy_seg(port, HDR1 + 3 + 1448, 1448) == 40 + 1448);	/* the one after next */
	CHECK(copy_seg(port, HDR1 + 3, 1448) == 40 + 1448);		/* stopped: whole */
	CHECK(copy_seg(port, HDR1 + 3 + 2896, 1448) == 40 + 1448);
	/* a retransmission holding the header starts it again */
	CHECK(copy_seg(port, HDR1 + 3 - 1448, 1448) == 40 + 1448);
	CHECK(copy_seg(port, HDR1 + 3, 1448) == 40 + 19);
	CHECK(copy_seg(port, HDR1 + 3 + 1448, 1448) == 40);
	kcut_counters(K, &kc);
	CHECK(kc.stopped - kc0.stopped == 1);
	CHECK(kc.followed - kc0.followed == 1);
	/* the rest of the header in two tiny segments, then past the byte 8 in a third */
	kcut_set(K, 4, A, B, port, 6000, HDR2, HDR2, true);
	CHECK(copy_seg(port, HDR2 - 10, 12) == 40 + 12);
	CHECK(copy_seg(port, HDR2 + 2, 3) == 40 + 3);
	CHECK(copy_seg(port, HDR2 + 5, 2) == 40 + 2);
	CHECK(copy_seg(port, HDR2 + 7, 1448) == 40 + 15);
	kcut_counters(K, &kc);
	CHECK(kc.stopped - kc0.stopped == 1);
	CHECK(kc.followed - kc0.followed == 2);
	/* a retransmitted, longer segment over the header's end: copied up to it */
	kcut_del(K, 4, A, B, port, 6000);
	kcut_set(K, 4, A, B, port, 6000, HDR1, HDR1, true);
	CHECK(copy_seg(port, HDR1 - 1438, 1448) == 40 + 1448);	/* 10 of the 22 bytes */
	CHECK(copy_seg(port, HDR1 + 10, 4) == 40 + 4);		/* 4 more */
	CHECK(copy_seg(port, HDR1 + 5, 1448) == 40 + 17);	/* again, and on */
	CHECK(copy_seg(port, HDR1 + 5 + 1448, 1448) == 40);
	kcut_del(K, 4, A, B, port, 6000);
}

/* What the program copies of a segment of plen bytes at seq that starts with a 24-byte
 * Open MPI handshake (magic: its byte 8 on). */
static uint32_t
copy_hs(uint16_t sport, uint32_t seq, const char *magic, size_t plen)
{
	uint8_t f[14 + 40 + 1448];
	size_t n = frame4(f, 6, A, B, sport, 6000, seq, 0, plen);
	uint32_t c = 12345;
	struct err e;

	memset(f + 54 + 8, 0, 16);
	memcpy(f + 54 + 8, magic, strlen(magic));
	CHECK(kcut_run(K, f, n, &c, &e) == 0);
	return c;
}

/* A direction the program does not know begins with Open MPI's handshake: it follows the
 * frames after it by itself, copying the first 256 bytes whole. */
TEST(follows_from_handshake)
{
	struct kcut_counters kc0, kc;
	uint32_t seq = 7000, body = 100000;

	kcut_counters(K, &kc0);
	CHECK(copy_hs(5300, seq, "OPAL-TCP-BTX", 24) == 40 + 24);	/* not the magic */
	CHECK(copy_ompi(5300, seq + 24, 0, 14 + body, 0x41) == 40 + 1448);
	CHECK(copy_hs(5302, seq, "OPAL-TCP-BTL", 1448) == 40 + 1448);	/* not alone */
	CHECK(copy4(6, 5302, 6000, seq + 1448, 0, 1448) == 40 + 1448);
	CHECK(copy_hs(5301, seq, "OPAL-TCP-BTL", 24) == 40 + 24);
	/* the first frame: its header and the rest of the first 256 bytes */
	CHECK(copy_ompi(5301, seq + 24, 0, 14 + body, 0x41) == 40 + 256 - 24);
	CHECK(copy4(6, 5301, 6000, seq + 24 + 1448, 0, 1448) == 40);	/* its body */
	kcut_counters(K, &kc);
	CHECK(kc.handshakes - kc0.handshakes == 1);
	CHECK(kc.followed - kc0.followed == 1);
	kcut_del(K, 4, A, B, 5301, 6000);	/* the capture thread takes it back */
	CHECK(copy4(6, 5301, 6000, seq + 24 + 2896, 0, 1448) == 40 + 1448);
}

/* A UCX TCP stream (the initiator's, MPICH over UCX): the 8-byte magic at USEQ, a
 * connection request record (am 32, 20 bytes, read whole), two EAGER_ONLY records (am 2:
 * 5 + 8 header bytes parse reads, then UBODY bytes of body) at UR1 and UR2, a PUT_REQ
 * (am 33: 25 bytes read, UPUT bytes of data after it) at UR3, then a record with an am_id
 * parse does not know at UR4. */
#define USEQ 50000u
#define UBODY 20000u
#define UPUT 30000u
#define UR1 (USEQ + 8 + 25)
#define UR2 (UR1 + 13 + UBODY)
#define UR3 (UR2 + 13 + UBODY)
#define UR4 (UR3 + 25 + UPUT)
static uint8_t Ustream[UR4 + 4096 - USEQ];

static void
urec(uint32_t at, uint8_t id, uint32_t len)
{
	uint8_t *h = Ustream + at - USEQ;

	h[0] = id;
	h[1] = (uint8_t)len, h[2] = (uint8_t)(len >> 8);
	h[3] = (uint8_t)(len >> 16), h[4] = (uint8_t)(len >> 24);
}

static void
ustream_init(void)
{
	static const uint8_t magic[8] = { 0x78, 0x56, 0x34, 0x12, 0xbe, 0xba, 0xfe, 0xca };

	for (size_t i = 0; i < sizeof Ustream; i++)
		Ustream[i] = (uint8_t)(i * 13);
	memcpy(Ustream, magic, sizeof magic);
	urec(USEQ + 8, 32, 20);
	urec(UR1, 2, 8 + UBODY);
	urec(UR2, 2, 8 + UBODY);
	urec(UR3, 33, 20);
	for (int i = 0; i < 8; i++)
		Ustream[UR3 + 13 + i - USEQ] = (uint8_t)((uint64_t)UPUT >> (8 * i));
	urec(UR4, 200, 8 + UBODY);
}

static uint32_t
copy_useg(uint16_t sport, uint32_t seq, size_t n)
{
	return copy_from(Ustream, USEQ, sport, seq, n);
}

/* A direction the program does not know begins with UCX's magic: it follows the records
 * after it by itself, from the same segment, copying the first 256 bytes whole; an am_id
 * parse does not know stops it. */
TEST(ucx_follows_from_magic)
{
	struct kcut_counters kc0, kc;
	uint16_t port = 5400;

	kcut_counters(K, &kc0);
	Ustream[3] ^= 1;	/* not the magic: nothing followed */
	CHECK(copy_useg(port + 1, USEQ, 1448) == 40 + 1448);
	CHECK(copy_useg(port + 1, USEQ + 1448, 1448) == 40 + 1448);
	Ustream[3] ^= 1;
	CHECK(copy_useg(port, USEQ, 1448) == 40 + 256);	/* magic, request, UR1's header */
	CHECK(copy_useg(port, USEQ + 1448, 1448) == 40);	/* UR1's body */
	CHECK(copy_useg(port, UR2 - 100, 1448) == 40 + 100 + 13);	/* UR2's header */
	CHECK(copy_useg(port, UR2 - 100 + 1448, 1448) == 40);
	CHECK(copy_useg(port, UR3 - 60, 1448) == 40 + 60 + 25);	/* the PUT_REQ */
	CHECK(copy_useg(port, UR3 + 25 + UPUT - 1448, 1448) == 40);	/* its data's end */
	CHECK(copy_useg(port, UR4 - 50, 1448) == 40 + 1448);	/* am 200: not followed */
	CHECK(copy_useg(port, UR4 - 50 + 1448, 1448) == 40 + 1448);
	kcut_counters(K, &kc);
	CHECK(kc.handshakes - kc0.handshakes == 2);	/* and the acceptor's, at ack 0 */
	CHECK(kc.followed - kc0.followed == 4);	/* the request, UR1, UR2, UR3 */
	CHECK(kc.stopped - kc0.stopped == 1);
	CHECK(kc.packets - kc0.packets == 6);
	CHECK(kc.bytes - kc0.bytes ==
	      (1448 - 256) + 1448 + (1448 - 113) + 1448 + (1448 - 85) + 1448);
	kcut_del(K, 4, A, B, port, 6000);
	kcut_del(K, 4, B, A, 6000, port);
	/* a stream the capture thread hands over at a record header follows the same way */
	kcut_set(K, 4, A, B, port, 6000, UR1, UR1, KCUT_FOLLOW_UCX);
	CHECK(copy_useg(port, UR1, 1448) == 40 + 13);
	CHECK(copy_useg(port, UR2 - 100, 1448) == 40 + 113);
	kcut_del(K, 4, A, B, port, 6000);
}

/* What the program copies of the acceptor's segment [seq, seq + n) of stream st (byte 0 at
 * base): B:6000 -> A:dport. */
static uint32_t
copy_back(const uint8_t *st, uint32_t base, uint16_t dport, uint32_t seq, size_t n)
{
	static uint8_t f[14 + 40 + 1448];
	size_t len = frame4(f, 6, B, A, 6000, dport, seq, 0, n);
	uint32_t c = 12345;
	struct err e;

	memcpy(f + 54, st + seq - base, n);
	CHECK(kcut_run(K, f, len, &c, &e) == 0);
	return c;
}

/* The initiator's magic acknowledges the acceptor's first byte (ASEQ): the acceptor's
 * direction, whose stream starts with the connection reply and no magic, is followed
 * from there by the program itself, its first 256 bytes copied whole; without the
 * acknowledgement it is left to the capture thread (copied whole). */
#define ASEQ 900000u
#define AR1 (ASEQ + 25)
static uint8_t Astream[AR1 + 13 + UBODY + 13 - ASEQ];

TEST(ucx_acceptor_from_ack)
{
	static uint8_t f[14 + 40 + 1448];
	struct kcut_counters kc0, kc;
	uint16_t port = 5450;
	uint32_t c;
	struct err e;
	size_t len;

	for (size_t i = 0; i < sizeof Astream; i++)
		Astream[i] = (uint8_t)(i * 11);
	Astream[0] = 32, Astream[1] = 20, Astream[2] = Astream[3] = Astream[4] = 0;	/* reply */
	Astream[AR1 - ASEQ] = 2;	/* EAGER_ONLY: 8 + UBODY */
	Astream[AR1 - ASEQ + 1] = (uint8_t)(8 + UBODY), Astream[AR1 - ASEQ + 2] = (uint8_t)((8 + UBODY) >> 8);
	Astream[AR1 - ASEQ + 3] = Astream[AR1 - ASEQ + 4] = 0;
	kcut_counters(K, &kc0);
	/* the magic's segment, acknowledging ASEQ */
	len = frame4(f, 6, A, B, port, 6000, USEQ, 0, 1448);
	memcpy(f + 54, Ustream, 1448);
	f[42] = (uint8_t)(ASEQ >> 24), f[43] = (uint8_t)(ASEQ >> 16);
	f[44] = (uint8_t)(ASEQ >> 8), f[45] = (uint8_t)ASEQ;
	CHECK(kcut_run(K, f, len, &c, &e) == 0);
	CHECK(c == 40 + 256);
	kcut_counters(K, &kc);
	CHECK(kc.handshakes - kc0.handshakes == 2);
	/* the acceptor's first segment: its first 256 bytes, then the record's body left out */
	CHECK(copy_back(Astream, ASEQ, port, ASEQ, 1448) == 40 + 256);
	CHECK(copy_back(Astream, ASEQ, port, ASEQ + 1448, 1448) == 40);
	CHECK(copy_back(Astream, ASEQ, port, AR1 + 13 + UBODY - 100, 100 + 13) == 40 + 100 + 13);
	kcut_del(K, 4, A, B, port, 6000);
	kcut_del(K, 4, B, A, 6000, port);
	/* the magic without the ACK bit: the acceptor's direction is not seeded */
	len = frame4(f, 6, A, B, port + 1, 6000, USEQ, 0, 1448);
	memcpy(f + 54, Ustream, 1448);
	f[47] &= (uint8_t)~0x10;
	CHECK(kcut_run(K, f, len, &c, &e) == 0);
	CHECK(copy_back(Astream, ASEQ, port + 1, ASEQ + 1448, 1448) == 40 + 1448);
	kcut_del(K, 4, A, B, port + 1, 6000);
}

/* A UCX record header cut by a segment's end after k bytes, for every k inside the 13
 * bytes parse reads (the 5 that tell its length among them): the next segment is copied
 * up to the header's end and following goes on. */
TEST(ucx_record_split)
{
	struct kcut_counters kc0, kc;

	split_every_offset(Ustream, USEQ, 5500, KCUT_FOLLOW_UCX, UR1, UR2, 13);
	kcut_counters(K, &kc0);
	/* the header's length split off from its id: an unknown id still stops there */
	kcut_set(K, 4, A, B, 5600, 6000, UR4, UR4, KCUT_FOLLOW_UCX);
	CHECK(copy_useg(5600, UR4 + 2 - 1448, 1448) == 40 + 1448);
	CHECK(copy_useg(5600, UR4 + 2, 1448) == 40 + 1448);
	CHECK(copy_useg(5600, UR4 + 2 + 1448, 1448) == 40 + 1448);
	kcut_counters(K, &kc);
	CHECK(kc.stopped - kc0.stopped == 1);
	kcut_del(K, 4, A, B, 5600, 6000);
	/* a PUT_REQ cut in its first 8 bytes is completed from the next segment; one cut past
	 * them (its data count not in the map value) stops following */
	kcut_set(K, 4, A, B, 5601, 6000, UR3, UR3, KCUT_FOLLOW_UCX);
	CHECK(copy_useg(5601, UR3 + 6 - 1448, 1448) == 40 + 1448);
	CHECK(copy_useg(5601, UR3 + 6, 1448) == 40 + 25 - 6);
	CHECK(copy_useg(5601, UR3 + 6 + 1448, 1448) == 40);
	kcut_set(K, 4, A, B, 5602, 6000, UR3, UR3, KCUT_FOLLOW_UCX);
	CHECK(copy_useg(5602, UR3 + 15 - 1448, 1448) == 40 + 1448);
	CHECK(copy_useg(5602, UR3 + 15, 1448) == 40 + 1448);
	kcut_counters(K, &kc);
	CHECK(kc.stopped - kc0.stopped == 2);
	kcut_del(K, 4, A, B, 5601, 6000);
	kcut_del(K, 4, A, B, 5602, 6000);
}

int
main(void)
{
	struct err e;

	if (kcut_open(&K, 0, false, NULL, 0, &e) != 0) {
		printf("SKIP test_kcut.c/all: skipped: %s\n", e.msg);
		return 0;
	}
	RUN(unknown_flow_whole);
	RUN(body_cut_edges);
	RUN(body_across_wrap);
	RUN(follows_ompi_frames);
	RUN(filter_folded);
	RUN(counters);
	stream_init();
	RUN(header_split_every_offset);
	RUN(header_split_out_of_order);
	RUN(follows_from_handshake);
	ustream_init();
	RUN(ucx_follows_from_magic);
	RUN(ucx_acceptor_from_ack);
	RUN(ucx_record_split);
	kcut_free(K);
	return check_done();
}
