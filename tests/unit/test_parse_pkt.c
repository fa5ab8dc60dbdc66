/* Unit tests for parse/pkt: link, VLAN, IPv4/IPv6 and TCP decoding of built frames. */
#include "parse/pkt.h"

#include <arpa/inet.h>
#include <pcap/dlt.h>
#include <sys/socket.h>

#include "tests/unit/check.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

static size_t
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
	return 2;
}

static size_t
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
	return 4;
}

/* A TCP header (with an MSS option when mss) and payload at p. */
static size_t
tcp(uint8_t *p, uint16_t sport, uint16_t dport, uint32_t seq, uint8_t flags, uint16_t mss,
    const char *payload)
{
	size_t h = mss ? 24 : 20, n = strlen(payload);

	memset(p, 0, h);
	put16(p, sport);
	put16(p + 2, dport);
	put32(p + 4, seq);
	put32(p + 8, 7);
	p[12] = (uint8_t)((h / 4) << 4);
	p[13] = flags;
	put16(p + 14, 65535);
	if (mss) {
		p[20] = 2, p[21] = 4;
		put16(p + 22, mss);
	}
	memcpy(p + h, payload, n);
	return h + n;
}

static size_t
ipv4(uint8_t *p, const char *src, const char *dst, uint8_t proto, uint16_t frag, size_t l4len)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	put16(p + 2, (uint16_t)(20 + l4len));
	put16(p + 6, frag);
	p[8] = 61;
	p[9] = proto;
	inet_pton(AF_INET, src, p + 12);
	inet_pton(AF_INET, dst, p + 16);
	return 20;
}

/* IPv4 + TCP at p; returns the datagram length. */
static size_t
v4tcp(uint8_t *p, const char *payload)
{
	size_t t = tcp(p + 20, 40000, 1024, 1000, PKT_TCP_ACK | PKT_TCP_PSH, 0, payload);

	ipv4(p, "10.0.0.1", "10.0.0.2", 6, 0, t);
	return 20 + t;
}

static size_t
eth(uint8_t *p, uint16_t type)
{
	static const uint8_t d[6] = { 2, 0, 0, 0, 0, 2 }, s[6] = { 2, 0, 0, 0, 0, 1 };

	memcpy(p, d, 6);
	memcpy(p + 6, s, 6);
	put16(p + 12, type);
	return 14;
}

static void
check_v4(const struct pkt *k, const char *payload)
{
	uint8_t a[4];

	inet_pton(AF_INET, "10.0.0.1", a);
	CHECK(k->af == AF_INET);
	CHECK(memcmp(k->src, a, 4) == 0);
	CHECK(k->sport == 40000);
	CHECK(k->dport == 1024);
	CHECK(k->seq == 1000);
	CHECK(k->ack == 7);
	CHECK(k->flags == (PKT_TCP_ACK | PKT_TCP_PSH));
	CHECK(k->ttl == 61);
	CHECK(k->payload_len == strlen(payload));
	CHECK(k->payload_wire == strlen(payload));
	if (CHECKED(k->payload != NULL))
		CHECK(memcmp(k->payload, payload, strlen(payload)) == 0);
}

TEST(ethernet_ipv4_tcp)
{
	uint8_t f[256];
	struct pkt k;
	size_t n = eth(f, 0x0800);

	n += v4tcp(f + n, "hello");
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_TCP);
	check_v4(&k, "hello");
	CHECK(k.has_mac);
	CHECK(k.smac[5] == 1);
	CHECK(k.dmac[5] == 2);
	CHECK(k.vlan == 0);
}

TEST(ethernet_padding_is_not_payload)
{
	uint8_t f[256];
	struct pkt k;
	size_t n = eth(f, 0x0800);

	n += v4tcp(f + n, "");
	memset(f + n, 0xee, 6);	/* Ethernet pads short frames to 60 bytes */
	n += 6;
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_TCP);
	CHECK(k.payload_len == 0);
	CHECK(k.payload_wire == 0);
}

TEST(vlan_and_qinq)
{
	uint8_t f[256];
	struct pkt k;
	size_t n = eth(f, 0x88a8);

	n += put16(f + n, 0x0064);	/* outer: VLAN 100 */
	n += put16(f + n, 0x8100);
	n += put16(f + n, 0x2005);	/* inner: VLAN 5, priority 1 */
	n += put16(f + n, 0x0800);
	n += v4tcp(f + n, "tagged");
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_TCP);
	check_v4(&k, "tagged");
	CHECK(k.vlan == 100);
}

TEST(linux_sll_and_sll2)
{
	uint8_t f[256];
	struct pkt k;
	size_t n;

	memset(f, 0, 16);
	put16(f + 2, 1);	/* ARPHRD_ETHER */
	put16(f + 4, 6);
	f[6 + 5] = 9;
	put16(f + 14, 0x0800);
	n = 16 + v4tcp(f + 16, "sll");
	CHECK(pkt_decode(DLT_LINUX_SLL, f, n, n, &k) == PKT_TCP);
	check_v4(&k, "sll");
	CHECK(k.has_mac);
	CHECK(k.smac[5] == 9);

	memset(f, 0, 20);
	put16(f, 0x0800);
	put32(f + 4, 3);	/* ifindex */
	put16(f + 8, 1);
	f[11] = 6;
	f[12 + 5] = 8;
	n = 20 + v4tcp(f + 20, "sll2");
	CHECK(pkt_decode(DLT_LINUX_SLL2, f, n, n, &k) == PKT_TCP);
	check_v4(&k, "sll2");
	CHECK(k.smac[5] == 8);
}

TEST(null_loop_and_raw)
{
	uint8_t f[256];
	struct pkt k;
	size_t n;

	f[0] = 2, f[1] = 0, f[2] = 0, f[3] = 0;	/* AF_INET, little-endian writer */
	n = 4 + v4tcp(f + 4, "null");
	CHECK(pkt_decode(DLT_NULL, f, n, n, &k) == PKT_TCP);
	check_v4(&k, "null");
	f[0] = 0, f[3] = 2;	/* big-endian writer */
	CHECK(pkt_decode(DLT_NULL, f, n, n, &k) == PKT_TCP);
	CHECK(pkt_decode(DLT_LOOP, f, n, n, &k) == PKT_TCP);
	n = v4tcp(f, "raw");
	CHECK(pkt_decode(DLT_RAW, f, n, n, &k) == PKT_TCP);
	check_v4(&k, "raw");
	CHECK(pkt_decode(DLT_IPV4, f, n, n, &k) == PKT_TCP);
	CHECK(pkt_decode(147, f, n, n, &k) == PKT_LINK_UNSUP);
}

TEST(ipv6_extension_headers)
{
	uint8_t f[512];
	struct pkt k;
	size_t n = 0, l4;
	uint8_t *ip = f;

	memset(f, 0, sizeof f);
	ip[0] = 0x60;
	ip[6] = 0;		/* next: hop-by-hop */
	ip[7] = 7;		/* hop limit */
	inet_pton(AF_INET6, "fd00::1", ip + 8);
	inet_pton(AF_INET6, "fd00::2", ip + 24);
	n = 40;
	f[n] = 60, f[n + 1] = 0;	/* hop-by-hop (8 bytes) -> destination options */
	n += 8;
	f[n] = 43, f[n + 1] = 1;	/* dest opts (16 bytes) -> routing */
	n += 16;
	f[n] = 44, f[n + 1] = 0;	/* routing (8 bytes) -> fragment */
	n += 8;
	f[n] = 6;		/* fragment header, offset 0, M=0: an atomic fragment -> TCP */
	n += 8;
	l4 = tcp(f + n, 5000, 6000, 42, PKT_TCP_SYN, 1460, "");
	n += l4;
	put16(ip + 4, (uint16_t)(n - 40));
	CHECK(pkt_decode(DLT_RAW, f, n, n, &k) == PKT_TCP);
	CHECK(k.af == AF_INET6);
	CHECK(k.ttl == 7);
	CHECK(k.sport == 5000);
	CHECK(k.dport == 6000);
	CHECK(k.seq == 42);
	CHECK(k.mss == 1460);
	CHECK(k.src[15] == 1);
	CHECK(k.dst[15] == 2);
	/* a real fragment (M set) is counted, not decoded */
	f[40 + 8 + 16 + 8 + 3] = 1;
	CHECK(pkt_decode(DLT_RAW, f, n, n, &k) == PKT_FRAGMENT);
	/* ESP: not TCP */
	ip[6] = 50;
	CHECK(pkt_decode(DLT_RAW, f, n, n, &k) == PKT_NOT_TCP);
}

TEST(ipv4_fragment_and_options)
{
	uint8_t f[256];
	struct pkt k;
	size_t t = tcp(f + 24, 1, 2, 3, PKT_TCP_ACK, 0, "opt");

	ipv4(f, "10.0.0.1", "10.0.0.2", 6, 0, t + 4);
	f[0] = 0x46;		/* 24-byte header with one option word */
	memset(f + 20, 1, 4);	/* NOPs */
	CHECK(pkt_decode(DLT_RAW, f, 24 + t, 24 + t, &k) == PKT_TCP);
	if (CHECKED(k.payload_len == 3))
		CHECK(memcmp(k.payload, "opt", 3) == 0);
	put16(f + 6, 0x2000);	/* MF */
	CHECK(pkt_decode(DLT_RAW, f, 24 + t, 24 + t, &k) == PKT_FRAGMENT);
	put16(f + 6, 0);
	f[9] = 17;
	CHECK(pkt_decode(DLT_RAW, f, 24 + t, 24 + t, &k) == PKT_NOT_TCP);
}

TEST(snaplen_cut_and_short_frames)
{
	uint8_t f[256];
	struct pkt k;
	size_t n = eth(f, 0x0800), i;

	n += v4tcp(f + n, "0123456789");
	/* captured 5 payload bytes of 10 */
	CHECK(pkt_decode(DLT_EN10MB, f, n - 5, n, &k) == PKT_TCP);
	CHECK(k.payload_len == 5);
	CHECK(k.payload_wire == 10);
	/* every shorter cut ends inside a header: never a crash, never TCP */
	for (i = 0; i < 14 + 20 + 20; i++)
		CHECK(pkt_decode(DLT_EN10MB, f, i, n, &k) == PKT_SHORT);
	/* a bad IP version and a TCP header length below 20 */
	f[14] = 0x35;
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_BAD);
	f[14] = 0x45;
	f[14 + 20 + 12] = 0x40;
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_BAD);
	/* ARP and 802.3 length frames are not IP */
	eth(f, 0x0806);
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_NOT_IP);
	eth(f, 100);
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_NOT_IP);
}

/* Ethernet, IPv4 and a TCP header carrying the options opt[0..nopt) (padded with zeros to
 * a multiple of 4) and payload at f; returns the frame length. */
static size_t
frame_opts(uint8_t *f, const uint8_t *opt, size_t nopt, const char *payload)
{
	size_t n = eth(f, 0x0800), h = 20 + (nopt + 3) / 4 * 4, pl = strlen(payload);
	uint8_t *t = f + n + 20;

	tcp(t, 40000, 1024, 1000, PKT_TCP_ACK | PKT_TCP_PSH, 0, "");
	memset(t + 20, 0, h - 20);
	memcpy(t + 20, opt, nopt);
	t[12] = (uint8_t)((h / 4) << 4);
	memcpy(t + h, payload, pl);
	ipv4(f + n, "10.0.0.1", "10.0.0.2", 6, 0, h + pl);
	return n + 20 + h + pl;
}

TEST(timestamp_option)
{
	static const uint8_t ts[] = { 1, 1, 8, 10, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 9 };
	static const uint8_t ts_short[] = { 1, 1, 8, 10, 0x12, 0x34, 0x56, 0x78 };	/* 2 bytes of 10 */
	static const uint8_t ts_len0[] = { 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t ts_len12[] = { 8, 12, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 9, 0, 0 };
	static const uint8_t ts_past[] = { 2, 40, 5, 180, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0 };
	static const uint8_t after_mss[] = { 2, 4, 5, 180, 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 };
	uint8_t f[256];
	struct pkt k;
	size_t n, i;

	n = frame_opts(f, ts, sizeof ts, "hello");
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_TCP);
	CHECK(k.has_ts);
	CHECK(k.tsval == 0x12345678);
	CHECK(k.tsecr == 9);
	check_v4(&k, "hello");
	/* a capture cut inside the options never reads past it */
	for (i = 14 + 20 + 20; i < 14 + 20 + 32; i++)
		CHECK(pkt_decode(DLT_EN10MB, f, i, n, &k) == PKT_SHORT);
	/* absent */
	n = eth(f, 0x0800);
	n += v4tcp(f + n, "hello");
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_TCP);
	CHECK(!k.has_ts);
	CHECK(k.tsval == 0);
	/* the header ends inside the option: not taken, the segment kept */
	n = frame_opts(f, ts_short, sizeof ts_short, "hello");
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_TCP);
	CHECK(!k.has_ts);
	check_v4(&k, "hello");
	/* bad lengths: 0, 12 (RFC 7323 says 10), one that runs past the header */
	n = frame_opts(f, ts_len0, sizeof ts_len0, "hello");
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_TCP);
	CHECK(!k.has_ts);
	n = frame_opts(f, ts_len12, sizeof ts_len12, "hello");
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_TCP);
	CHECK(!k.has_ts);
	n = frame_opts(f, ts_past, sizeof ts_past, "hello");
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_TCP);
	CHECK(!k.has_ts);
	CHECK(k.mss == 0);
	check_v4(&k, "hello");
	/* after other options */
	n = frame_opts(f, after_mss, sizeof after_mss, "hi");
	CHECK(pkt_decode(DLT_EN10MB, f, n, n, &k) == PKT_TCP);
	CHECK(k.mss == 1460);
	CHECK(k.has_ts);
	CHECK(k.tsval == 1);
	CHECK(k.tsecr == 2);
}

int
main(void)
{
	RUN(ethernet_ipv4_tcp);
	RUN(ethernet_padding_is_not_payload);
	RUN(vlan_and_qinq);
	RUN(linux_sll_and_sll2);
	RUN(null_loop_and_raw);
	RUN(ipv6_extension_headers);
	RUN(ipv4_fragment_and_options);
	RUN(snaplen_cut_and_short_frames);
	RUN(timestamp_option);
	return check_done();
}
