/* parse_gen: writes a large synthetic capture for the parse benchmarks: many TCP
 * connections (at most -c open at once), each a handshake, request/reply messages of
 * -m bytes in 1448-byte segments with some reordering and retransmission, and a FIN.
 *
 *	parse_gen -o big.pcap -s 600 -c 64 -m 65536
 *
 * The file is a nanosecond pcap with Ethernet frames, written directly (no library). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MSS 1448

static FILE *out;
static uint64_t written;	/* bytes written */
static int64_t now_ns = 1700000000LL * 1000000000;

static void
w32(uint32_t v)
{
	fwrite(&v, 4, 1, out);	/* pcap headers are in the writer's byte order */
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16)), put16(p + 2, (uint16_t)v);
}

/* One Ethernet/IPv4/TCP frame from a:pa to b:pb. */
static void
frame(uint32_t a, uint16_t pa, uint32_t b, uint16_t pb, uint32_t seq, uint32_t ack, uint8_t flags,
      const uint8_t *data, size_t n)
{
	uint8_t f[14 + 20 + 20 + MSS];
	size_t len = 54 + n;

	memset(f, 0, 54);
	f[5] = (uint8_t)a, f[11] = (uint8_t)b;
	put16(f + 12, 0x0800);
	f[14] = 0x45;
	put16(f + 16, (uint16_t)(40 + n));
	f[22] = 64, f[23] = 6;
	put32(f + 26, a), put32(f + 30, b);
	put16(f + 34, pa), put16(f + 36, pb);
	put32(f + 38, seq), put32(f + 42, ack);
	f[46] = 0x50, f[47] = flags;
	put16(f + 48, 65535);
	if (n)
		memcpy(f + 54, data, n);
	now_ns += 2000;
	w32((uint32_t)(now_ns / 1000000000));
	w32((uint32_t)(now_ns % 1000000000));
	w32((uint32_t)len);
	w32((uint32_t)len);
	fwrite(f, 1, len, out);
	written += 16 + len;
}

struct conn {
	uint32_t a, b;
	uint16_t pa, pb;
	uint32_t sa, sb;	/* next sequence numbers */
	long msgs_left;
	int state;		/* 0 closed, 1 open */
};

static uint8_t payload[MSS];

/* n bytes from (a) to (b) in MSS segments, every 61st pair swapped, every 97th resent */
static void
send_msg(struct conn *c, int dir, long n, unsigned *rnd)
{
	uint32_t *s = dir ? &c->sb : &c->sa, *r = dir ? &c->sa : &c->sb;
	uint32_t src = dir ? c->b : c->a, dst = dir ? c->a : c->b;
	uint16_t ps = dir ? c->pb : c->pa, pd = dir ? c->pa : c->pb;

	while (n > 0) {
		long k = n < MSS ? n : MSS;

		*rnd = *rnd * 1103515245u + 12345u;
		if ((*rnd >> 16) % 61 == 0 && n > 2 * MSS) {
			frame(src, ps, dst, pd, *s + MSS, *r, 0x18, payload, MSS);
			frame(src, ps, dst, pd, *s, *r, 0x18, payload, MSS);
			*s += 2 * MSS, n -= 2 * MSS;
			continue;
		}
		frame(src, ps, dst, pd, *s, *r, 0x18, payload, (size_t)k);
		if ((*rnd >> 16) % 97 == 0)
			frame(src, ps, dst, pd, *s, *r, 0x18, payload, (size_t)k);
		*s += (uint32_t)k, n -= k;
		frame(dst, pd, src, ps, *r, *s, 0x10, NULL, 0);	/* ACK */
	}
}

int
main(int argc, char **argv)
{
	const char *path = "big.pcap";
	long size_mb = 600, conc = 64, msg = 65536;
	struct conn *cs;
	unsigned rnd = 1;
	uint16_t port = 10000;
	int c;
	long i;

	while ((c = getopt(argc, argv, "o:s:c:m:")) != -1) {
		switch (c) {
		case 'o': path = optarg; break;
		case 's': size_mb = strtol(optarg, NULL, 10); break;
		case 'c': conc = strtol(optarg, NULL, 10); break;
		case 'm': msg = strtol(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: parse_gen [-o FILE] [-s MB] [-c CONCURRENT] [-m BYTES]\n");
			return 2;
		}
	}
	if (size_mb <= 0 || conc <= 0 || conc > 10000 || msg <= 0)
		return 2;
	out = fopen(path, "wb");
	if (out == NULL) {
		perror(path);
		return 1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	w32(0xa1b23c4d);
	w32(2 | 4 << 16);
	w32(0);
	w32(0);
	w32(262144);
	w32(1);
	for (i = 0; i < MSS; i++)
		payload[i] = (uint8_t)(i * 7);
	cs = calloc((size_t)conc, sizeof *cs);
	while (written < (uint64_t)size_mb << 20) {
		for (i = 0; i < conc; i++) {
			struct conn *k = &cs[i];

			if (k->state == 0) {	/* open a new connection in this slot */
				k->a = 0x0a000001 + (uint32_t)(i % 16);
				k->b = 0x0a000100 + (uint32_t)(i % 7);
				k->pa = port++;
				if (port < 10000)
					port = 10000;
				k->pb = (uint16_t)(1024 + i % 16);
				rnd = rnd * 1103515245u + 12345u;
				k->sa = rnd, k->sb = ~rnd;
				frame(k->a, k->pa, k->b, k->pb, k->sa, 0, 0x02, NULL, 0);
				frame(k->b, k->pb, k->a, k->pa, k->sb, k->sa + 1, 0x12, NULL, 0);
				k->sa++, k->sb++;
				frame(k->a, k->pa, k->b, k->pb, k->sa, k->sb, 0x10, NULL, 0);
				k->msgs_left = 20 + (long)((rnd >> 8) % 40);
				k->state = 1;
			}
			send_msg(k, 0, msg, &rnd);
			send_msg(k, 1, 64, &rnd);
			if (--k->msgs_left == 0) {
				frame(k->a, k->pa, k->b, k->pb, k->sa, k->sb, 0x11, NULL, 0);
				frame(k->b, k->pb, k->a, k->pa, k->sb, k->sa + 1, 0x11, NULL, 0);
				frame(k->a, k->pa, k->b, k->pb, k->sa + 1, k->sb + 1, 0x10, NULL, 0);
				k->state = 0;
			}
		}
	}
	free(cs);
	if (fclose(out) != 0) {
		perror(path);
		return 1;
	}
	printf("%s: %.0f MB\n", path, (double)written / 1e6);
	return 0;
}
