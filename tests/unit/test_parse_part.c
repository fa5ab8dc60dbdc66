/* Unit tests for parse/part: captures parsed apart and merged, a connection captured at both
 * of its ends taking its messages' first-byte times from the sender's capture and their
 * arrivals from the receiver's (part_merge_twins). The captures are pcap files built here. */
#include "parse/part.h"

#include <arpa/inet.h>
#include <stdio.h>

#include "parse/generic.h"
#include "tests/unit/check.h"

struct cap {			/* a pcap file being built */
	uint8_t b[1 << 16];
	size_t n;
};

static void
put(struct cap *c, const void *p, size_t n)
{
	memcpy(c->b + c->n, p, n);
	c->n += n;
}

static void
le32(struct cap *c, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	put(c, b, 4);
}

static void
cap_start(struct cap *c)
{
	static const uint8_t h[20] = { 0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 4, 0 };	/* nanosecond pcap, version 2.4, snaplen 262144 */

	c->n = 0;
	put(c, h, sizeof h);
	le32(c, 1);		/* Ethernet */
}

static int64_t next_tsval = -1;	/* the TCP timestamp the next frame carries, -1 none */

/* An Ethernet/IPv4/TCP frame from 10.0.0.<from>:<sport> to 10.0.0.<to>:<dport>, n bytes of
 * payload (all 'x'), captured at t_us; with the timestamp option when next_tsval >= 0. */
static void
frame(struct cap *c, int from, uint16_t sport, int to, uint16_t dport, uint32_t seq, uint32_t ack,
      uint8_t flags, size_t n, int64_t t_us)
{
	uint8_t f[1600];
	size_t th = next_tsval >= 0 ? 32 : 20, len = 14 + 20 + th + n;
	int64_t t_ns = 1700000000LL * 1000000000 + t_us * 1000;

	memset(f, 0, sizeof f);
	f[5] = (uint8_t)from;
	f[11] = (uint8_t)to;
	f[12] = 0x08;		/* IPv4 */
	f[14] = 0x45;
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;		/* TTL */
	f[23] = 6;		/* TCP */
	f[26] = 10, f[29] = (uint8_t)from;
	f[30] = 10, f[33] = (uint8_t)to;
	f[34] = (uint8_t)(sport >> 8), f[35] = (uint8_t)sport;
	f[36] = (uint8_t)(dport >> 8), f[37] = (uint8_t)dport;
	for (int i = 0; i < 4; i++) {
		f[38 + i] = (uint8_t)(seq >> (24 - 8 * i));
		f[42 + i] = (uint8_t)(ack >> (24 - 8 * i));
	}
	f[46] = (uint8_t)(th / 4 << 4);
	f[47] = flags;
	f[48] = 0xff;		/* window */
	if (next_tsval >= 0) {	/* NOP, NOP, kind 8 length 10, TSval, TSecr 0 */
		f[54] = f[55] = 1, f[56] = 8, f[57] = 10;
		for (int i = 0; i < 4; i++)
			f[58 + i] = (uint8_t)((uint64_t)next_tsval >> (24 - 8 * i));
	}
	memset(f + 34 + th, 'x', n);
	le32(c, (uint32_t)(t_ns / 1000000000));
	le32(c, (uint32_t)(t_ns % 1000000000));
	le32(c, (uint32_t)len);
	le32(c, (uint32_t)len);
	put(c, f, len);
}

static void
cap_write(const struct cap *c, const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(c->b, 1, c->n, f) != c->n) {
		perror(path);
		exit(2);
	}
	fclose(f);
}

#define ACK PKT_TCP_ACK
#define T0 1700000000000000000LL	/* ns: the captures' time 0 */

/* Node 1 (10.0.0.1:p1) opens a connection to node 2 (10.0.0.2:p2) and sends 3000 bytes in
 * three segments; node 2 answers 100 bytes. Node 1's capture sees its segments leave at
 * 1000-1020 us, node 2's sees them arrive at 1100-1900 us (queued by a shaper on the way);
 * the answer leaves node 2 at 3000 us and reaches node 1 at 3050 us. With syn2, node 2's
 * capture also saw the handshake; with lose, it missed the last data segment; with
 * short2, node 2's capture ends before the answer. */
static void
two_captures(const char *dir, uint16_t p1, uint16_t p2, bool syn2, bool short2)
{
	static struct cap c;
	const int64_t rx[3] = { 1100, 1500, 1900 };

	for (int node = 1; node <= 2; node++) {
		int64_t d = node == 1 ? 0 : 50;	/* the handshake seen 50 us later at node 2 */

		cap_start(&c);
		if (node == 1 || syn2) {
			frame(&c, 1, p1, 2, p2, 100, 0, PKT_TCP_SYN, 0, 10 + d);
			frame(&c, 2, p2, 1, p1, 900, 101, PKT_TCP_SYN | ACK, 0, node == 1 ? 110 : 60);
			frame(&c, 1, p1, 2, p2, 101, 901, ACK, 0, 120 + d);
		}
		for (int i = 0; i < 3; i++)
			frame(&c, 1, p1, 2, p2, 101 + 1000 * (uint32_t)i, 901, ACK, 1000,
			      node == 1 ? 1000 + 10 * i : rx[i]);
		if (node == 1 || !short2) {
			frame(&c, 2, p2, 1, p1, 901, 3101, ACK, 100, node == 1 ? 3050 : 3000);
			frame(&c, 1, p1, 2, p2, 3101, 1001, PKT_TCP_FIN | ACK, 0, node == 1 ? 4000 : 4050);
			frame(&c, 2, p2, 1, p1, 1001, 3102, PKT_TCP_FIN | ACK, 0, node == 1 ? 4150 : 4100);
		}
		cap_write(&c, dir, node == 1 ? "n1.pcap" : "n2.pcap");
	}
}

static struct msg got[16];
static int ngot;
static int nconns;

static void
on_msg(void *ctx, const struct msg *m)
{
	(void)ctx;
	if (ngot < 16)
		got[ngot++] = *m;
}

static void
on_conn(void *ctx, const struct flows_conn *k)
{
	(void)ctx, (void)k;
	nconns++;
}

static void
on_warn(void *ctx, const char *msg)
{
	(void)ctx, (void)msg;
}

/* Parse dir/n1.pcap and dir/n2.pcap into parts and merge them (with twins: the times of
 * both copies); the counters into *sum. Returns 0 or -1. */
static int
parse_two(const char *dir, bool twins, struct part_sum *sum)
{
	struct flows_config cfg = { .mpi = FLOWS_MPI_GENERIC };
	struct flows_cb cb = { .msg = on_msg, .conn = on_conn, .ctx = NULL };
	char *names[2] = { "n1.pcap", "n2.pcap" }, path[512];
	struct part_merge *m;
	struct err e;
	int rc = 0;

	ngot = nconns = 0;
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (part_parse(path, dir, names[i], &cfg, NULL, NULL, &e) < 0)
			return -1;
	}
	m = part_merge_new(&cb, &cfg, on_warn);
	if (twins)
		part_merge_twins(m, dir, names, 2);
	for (int i = 0; i < 2; i++)
		if (part_merge_add(m, dir, names[i], &e) < 0)
			rc = -1;
	*sum = *part_merge_sum(m);
	part_merge_free(m);
	for (int i = 0; i < 2; i++)
		part_remove(dir, names[i]);
	return rc;
}

static const struct msg *
msg_of_dir(int dir)
{
	for (int i = 0; i < ngot; i++)
		if (got[i].dir == dir)
			return &got[i];
	return NULL;
}

TEST(arrival_from_the_receivers_capture)
{
	struct part_sum s;
	const struct msg *m;

	two_captures(check_tmpdir(), 40000, 5000, true, false);
	CHECK(parse_two(check_tmpdir(), true, &s) == 0);
	CHECK(ngot == 2);
	CHECK(nconns == 1);
	CHECK(s.st.conns_dup == 1);
	if (CHECKED((m = msg_of_dir(0)) != NULL)) {	/* node 1 to node 2 */
		CHECK(m->bytes == 3000);
		CHECK(m->t_first_ns == T0 + 1000000);	/* left node 1 */
		CHECK(m->t_last_ns == T0 + 1900000);	/* reached node 2: was 1020 us */
	}
	if (CHECKED((m = msg_of_dir(1)) != NULL)) {	/* node 2's answer */
		CHECK(m->bytes == 100);
		CHECK(m->t_first_ns == T0 + 3000000);	/* left node 2: was 3050 us */
		CHECK(m->t_last_ns == T0 + 3050000);	/* reached node 1 */
	}
	CHECK(s.twin_msgs == 2);
	CHECK(s.twin_last == 1);
	CHECK(s.twin_first == 1);
	CHECK(s.twin_unmatched == 0);
}

TEST(without_twins_each_capture_keeps_its_times)
{
	struct part_sum s;
	const struct msg *m;

	two_captures(check_tmpdir(), 40000, 5000, true, false);
	CHECK(parse_two(check_tmpdir(), false, &s) == 0);
	CHECK(ngot == 2);
	if (CHECKED((m = msg_of_dir(0)) != NULL))
		CHECK(m->t_last_ns == T0 + 1020000);
	CHECK(s.twin_msgs == 0);
}

TEST(the_other_end_seen_from_midstream_and_turned_round)
{
	struct part_sum s;
	const struct msg *m;

	/* node 2's capture has no handshake: it takes the higher port's end, node 2's, for the
	 * initiator, so its directions are the other way round from node 1's */
	two_captures(check_tmpdir(), 5000, 40000, false, false);
	CHECK(parse_two(check_tmpdir(), true, &s) == 0);
	CHECK(ngot == 2);
	CHECK(s.st.conns_dup == 1);
	if (CHECKED((m = msg_of_dir(0)) != NULL)) {
		CHECK(m->bytes == 3000);
		CHECK(m->t_first_ns == T0 + 1000000);
		CHECK(m->t_last_ns == T0 + 1900000);
	}
	if (CHECKED((m = msg_of_dir(1)) != NULL))
		CHECK(m->t_first_ns == T0 + 3000000);
	CHECK(s.twin_msgs == 2);
}

TEST(copies_that_differ_keep_one_captures_times)
{
	struct part_sum s;
	const struct msg *m;

	/* node 2's capture ends before the answer: its copy has no answer to match */
	two_captures(check_tmpdir(), 40000, 5000, true, true);
	CHECK(parse_two(check_tmpdir(), true, &s) == 0);
	CHECK(ngot == 2);
	if (CHECKED((m = msg_of_dir(0)) != NULL))
		CHECK(m->t_last_ns == T0 + 1900000);
	if (CHECKED((m = msg_of_dir(1)) != NULL))
		CHECK(m->t_first_ns == T0 + 3050000);	/* node 1's: nothing to match */
	CHECK(s.twin_msgs == 1);
	CHECK(s.twin_unmatched == 1);
}

/* Node 1 (10.0.0.1:40000) opens a connection to node 2 (10.0.0.2:5000); node 2 sends three
 * messages of 100 bytes, stamped (TSval, a ms clock) at 10, 20 and 40 ms. Node 2's
 * capture sees them leave at 10, 25 (5 ms in its outgoing queue) and 40.5 ms; node 1's
 * sees them arrive 50 us later, the second 3 ms later still (a queue on the way in).
 * With ts false no segment carries the option. */
static void
ts_captures(const char *dir, bool ts)
{
	static struct cap c;
	const int64_t sent_ms[3] = { 10, 20, 40 }, left_us[3] = { 10000, 25000, 40500 };
	const uint16_t p1 = 40000, p2 = 5000;

	for (int node = 1; node <= 2; node++) {
		int64_t in = node == 1 ? 50 : 0;	/* node 2's segments reach node 1 50 us later */
		int64_t out = node == 2 ? 50 : 0;	/* and node 1's node 2 */
		uint32_t s2 = 901;

		cap_start(&c);
		next_tsval = ts ? 3000000 : -1;
		frame(&c, 1, p1, 2, p2, 100, 0, PKT_TCP_SYN, 0, 10 + out);
		next_tsval = ts ? 7000000 : -1;
		frame(&c, 2, p2, 1, p1, 900, 101, PKT_TCP_SYN | ACK, 0, 60 + in);
		next_tsval = ts ? 3000000 : -1;
		frame(&c, 1, p1, 2, p2, 101, 901, ACK, 0, 120 + out);
		for (int i = 0; i < 3; i++) {
			next_tsval = ts ? 7000000 + sent_ms[i] : -1;
			frame(&c, 2, p2, 1, p1, s2, 101, ACK, 100,
			      left_us[i] + in + (node == 1 && i == 1 ? 3000 : 0));
			s2 += 100;
		}
		next_tsval = ts ? 7000050 : -1;
		frame(&c, 2, p2, 1, p1, s2, 101, PKT_TCP_FIN | ACK, 0, 50000 + in);
		next_tsval = ts ? 3000050 : -1;
		frame(&c, 1, p1, 2, p2, 101, s2 + 1, PKT_TCP_FIN | ACK, 0, 50100 + out);
		cap_write(&c, dir, node == 1 ? "n1.pcap" : "n2.pcap");
	}
	next_tsval = -1;
}

TEST(outgoing_queue_from_the_senders_capture)
{
	struct part_sum s;

	ts_captures(check_tmpdir(), true);
	CHECK(parse_two(check_tmpdir(), true, &s) == 0);
	if (!CHECKED(ngot == 3))
		return;
	CHECK(got[0].dir == 1);
	CHECK(got[0].queued_ns == 0);
	CHECK(got[1].t_first_ns == T0 + 25000000);	/* left node 2 */
	CHECK(got[1].queued_ns == 5000000);	/* stamped at 20 ms: 5 ms in node 2's queue */
	CHECK(got[1].t_last_ns == T0 + 28050000);	/* reached node 1 */
	CHECK(got[2].queued_ns == 0);	/* 0.5 ms: under the clock's grain */
	CHECK(s.twin_first == 3);
}

TEST(outgoing_queue_from_one_capture_is_its_own)
{
	struct part_sum s;

	/* without the sender's copy, node 1's capture: the wait from the sender's TCP to
	 * node 1 less the least such, with its own first-byte time */
	ts_captures(check_tmpdir(), true);
	CHECK(parse_two(check_tmpdir(), false, &s) == 0);
	if (!CHECKED(ngot == 3))
		return;
	CHECK(got[1].t_first_ns == T0 + 28050000);
	CHECK(got[1].queued_ns == 8000000);
	CHECK(got[0].queued_ns == 0);
}

TEST(outgoing_queue_unknown_without_the_option)
{
	struct part_sum s;

	ts_captures(check_tmpdir(), false);
	CHECK(parse_two(check_tmpdir(), true, &s) == 0);
	if (!CHECKED(ngot == 3))
		return;
	for (int i = 0; i < 3; i++)
		CHECK(got[i].queued_ns == -1);
}

int
main(void)
{
	generic_set_idle_gap(GENERIC_DEFAULT_IDLE_GAP_NS);
	RUN(arrival_from_the_receivers_capture);
	RUN(without_twins_each_capture_keeps_its_times);
	RUN(the_other_end_seen_from_midstream_and_turned_round);
	RUN(copies_that_differ_keep_one_captures_times);
	RUN(outgoing_queue_from_the_senders_capture);
	RUN(outgoing_queue_from_one_capture_is_its_own);
	RUN(outgoing_queue_unknown_without_the_option);
	return check_done();
}
