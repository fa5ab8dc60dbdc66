/* parse_gen: synthetic input for the parse and scale benchmarks.
 *
 * One capture: many TCP connections (at most -c open at once), each a handshake,
 * request/reply messages of -m bytes in 1448-byte segments with some reordering and
 * retransmission, and a FIN:
 *
 *	parse_gen -o big.pcap -s 600 -c 64 -m 65536
 *
 * A whole run (-R): N ranks on M nodes exchanging messages in a pattern for T seconds, as
 * `contend collect` would have recorded it with the default framed capture: one capture per
 * node (RUN/capture/HOST.pcap) holding every packet to or from it, Open MPI's TCP BTL on
 * the wire (the 24-byte handshake, then an 8-byte BTL header and a 14-byte ob1 MATCH header
 * per message) or with -M mpich UCX's TCP transport as MPICH's ch4:ucx uses it (the magic
 * and connection events, then an EAGER_ONLY record with the UCP tag per message), the data
 * cut off as a framed capture cuts it, CPU samples per rank every
 * 20 ms, the socket map and the meta files:
 *
 *	parse_gen -R run -n 256 -N 32 -p halo -t 10 [-m BYTES] [-i ITER_MS] [-b BUSY] [-M mpich]
 *		[-P block|cyclic] [-T] [-H THREADS] [-B]
 *
 * Patterns: halo (each rank with its two ring neighbours), alltoall (every pair),
 * irregular (each rank with 3 partners drawn from a fixed seed, sizes varying 1-8x).
 * Every iteration of ITER_MS (default 10 ms) each rank sends one message of about BYTES
 * (default 4096) to each partner; ranks are BUSY (default 0.7) of each sample interval on
 * CPU. Ranks are placed in blocks (ranks 0..N/M-1 on the first node), or with -P cyclic
 * round-robin (rank r on node r % M, as the testbed's mpirun places them). Ranks of one
 * node talk through shared memory in an MPI run: their messages are not written (parse
 * reports them as not covered); with -T they talk over TCP as well (an MPI forced to TCP,
 * captured on loopback). SECONDS and ITER_MS may have fractions. Each rank has THREADS
 * threads in its samples (default 3 for Open MPI: the main thread and two progress threads
 * asleep, as Open MPI 4.1's ranks on the testbed; 2 for MPICH over UCX). -B puts the
 * iterations between two barriers, as the timed part of a program: recursive doubling
 * (rank r with r xor 1, 2, 4, ...; empty messages, tag -16), which adds their connections. Captures are plain nanosecond pcap with
 * Ethernet frames, written directly (no library). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

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

/* The link, IPv4 and TCP headers (54 bytes) of a frame from a:pa to b:pb with n bytes of
 * TCP payload; the MAC bytes are left to the caller. */
static void
put_headers(uint8_t *f, uint32_t a, uint16_t pa, uint32_t b, uint16_t pb, uint32_t seq,
	    uint32_t ack, uint8_t flags, size_t n)
{
	memset(f, 0, 54);
	put16(f + 12, 0x0800);
	f[14] = 0x45;
	put16(f + 16, (uint16_t)(40 + n));
	f[22] = 64, f[23] = 6;
	put32(f + 26, a), put32(f + 30, b);
	put16(f + 34, pa), put16(f + 36, pb);
	put32(f + 38, seq), put32(f + 42, ack);
	f[46] = 0x50, f[47] = flags;
	put16(f + 48, 65535);
}

/* One Ethernet/IPv4/TCP frame from a:pa to b:pb. */
static void
frame(uint32_t a, uint16_t pa, uint32_t b, uint16_t pb, uint32_t seq, uint32_t ack, uint8_t flags,
      const uint8_t *data, size_t n)
{
	uint8_t f[14 + 20 + 20 + MSS];
	size_t len = 54 + n;

	put_headers(f, a, pa, b, pb, seq, ack, flags, n);
	f[5] = (uint8_t)a, f[11] = (uint8_t)b;
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

/* ---- a whole run (-R) ---- */

#define RG_SNAP 96		/* bytes of a frame kept: headers and the MPI headers */
#define RG_SEG 64000		/* payload bytes per segment (GSO-sized frames, as captured) */
#define RG_INTERVAL_NS 20000000LL	/* sample interval */
#define RG_MONO_OFF (1700000000000000000LL - 10000000000LL)	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
#define RG_HS_LEN 24

struct rg_node {
	FILE *f;
	uint32_t ip;
	uint16_t next_port;	/* ephemeral ports */
};

struct rg_conn {
	int a, b;		/* initiator and acceptor rank */
	uint16_t pa, pb;
	uint32_t sa, sb;	/* next sequence numbers */
};

static int rg_nranks, rg_nnodes;
static int rg_mpich;		/* -M mpich: MPICH ch4:ucx framing instead of Open MPI's */
static int rg_cyclic;		/* -P cyclic: rank r on node r % N (else blocks of ranks) */
static int rg_local_tcp;	/* -T: ranks of one node talk over TCP too (not shared memory) */
static int rg_threads = -1;	/* -H: threads per rank (default 3 for Open MPI, 2 for MPICH) */
static struct rg_node *rg_nodes;

static int
rg_node_of(int r)
{
	int per = (rg_nranks + rg_nnodes - 1) / rg_nnodes;

	return rg_cyclic ? r % rg_nnodes : r / per;
}

/* rank r's place among the ranks of its node */
static int
rg_local_of(int r)
{
	int per = (rg_nranks + rg_nnodes - 1) / rg_nnodes;

	return rg_cyclic ? r / rg_nnodes : r - rg_node_of(r) * per;
}

/* how many ranks node n holds */
static int
rg_local_size(int n)
{
	int per = (rg_nranks + rg_nnodes - 1) / rg_nnodes;

	if (rg_cyclic)
		return (rg_nranks - n + rg_nnodes - 1) / rg_nnodes;
	return (n + 1) * per <= rg_nranks ? per : rg_nranks - n * per;
}

static void
rg_w32(FILE *f, uint32_t v)
{
	fwrite(&v, 4, 1, f);
}

/* One frame from rank a's end to rank b's end of c at t_ns, its TCP payload n bytes of
 * which the first keep are data (the rest cut by the capture), into both nodes' captures. */
static void
rg_frame(const struct rg_conn *c, int from_a, uint32_t seq, uint32_t ack, uint8_t flags,
	 const uint8_t *data, size_t keep, size_t n, int64_t t_ns)
{
	uint8_t f[54 + RG_SNAP];
	int ra = from_a ? c->a : c->b, rb = from_a ? c->b : c->a;
	uint32_t ia = rg_nodes[rg_node_of(ra)].ip, ib = rg_nodes[rg_node_of(rb)].ip;
	uint16_t pa = from_a ? c->pa : c->pb, pb = from_a ? c->pb : c->pa;
	size_t cap = 54 + keep;
	int nodes[2] = { rg_node_of(ra), rg_node_of(rb) };

	put_headers(f, ia, pa, ib, pb, seq, ack, flags, n);
	put32(f + 2, ia), put32(f + 8, ib);	/* MACs from the addresses */
	f[0] = f[6] = 0x02;
	if (keep)
		memcpy(f + 54, data, keep);
	for (int i = 0; i < 2; i++) {
		FILE *o = rg_nodes[nodes[i]].f;

		if (i == 1 && nodes[1] == nodes[0])
			break;
		rg_w32(o, (uint32_t)(t_ns / 1000000000));
		rg_w32(o, (uint32_t)(t_ns % 1000000000));
		rg_w32(o, (uint32_t)cap);
		rg_w32(o, (uint32_t)(54 + n));
		fwrite(f, 1, cap, o);
		written += 16 + cap;
	}
}

static void
le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

static void
le32(uint8_t *p, uint32_t v)
{
	le16(p, (uint16_t)v), le16(p + 2, (uint16_t)(v >> 16));
}

/* Handshakes: TCP, then each end's Open MPI BTL handshake {jobid, vpid, "OPAL-TCP-BTL"},
 * or for MPICH UCX's TCP transport: the initiator's magic and CONN_REQ event, the
 * acceptor's CONN_ACK (records [u8 am_id][u32 len][body], am 32 a connection event). */
static void
rg_open(struct rg_conn *c, int64_t t_ns)
{
	uint8_t hs[RG_HS_LEN];

	rg_frame(c, 1, c->sa, 0, 0x02, NULL, 0, 0, t_ns);
	rg_frame(c, 0, c->sb, c->sa + 1, 0x12, NULL, 0, 0, t_ns + 20000);
	c->sa++, c->sb++;
	rg_frame(c, 1, c->sa, c->sb, 0x10, NULL, 0, 0, t_ns + 40000);
	if (rg_mpich) {
		static const uint8_t magic[8] = { 0x78, 0x56, 0x34, 0x12, 0xbe, 0xba, 0xfe, 0xca };
		uint8_t req[8 + 5 + 29], ack[5 + 4];

		memset(req, 0, sizeof req);
		memcpy(req, magic, 8);
		req[8] = 32;
		le32(req + 9, 29);
		le32(req + 13, 1);			/* CONN_REQ: flags, cm_id, sockaddr_in */
		le16(req + 26, 2);			/* AF_INET */
		put16(req + 28, c->pa);
		put32(req + 30, rg_nodes[rg_node_of(c->a)].ip);
		rg_frame(c, 1, c->sa, c->sb, 0x18, req, sizeof req, sizeof req, t_ns + 60000);
		c->sa += sizeof req;
		ack[0] = 32;
		le32(ack + 1, 4);
		le32(ack + 5, 2);			/* CONN_ACK */
		rg_frame(c, 0, c->sb, c->sa, 0x18, ack, sizeof ack, sizeof ack, t_ns + 80000);
		c->sb += sizeof ack;
		return;
	}
	memset(hs, 0, sizeof hs);
	le32(hs, 0x41a40001);
	memcpy(hs + 8, "OPAL-TCP-BTL", 12);
	le32(hs + 4, (uint32_t)c->a);
	rg_frame(c, 1, c->sa, c->sb, 0x18, hs, sizeof hs, sizeof hs, t_ns + 60000);
	c->sa += RG_HS_LEN;
	le32(hs + 4, (uint32_t)c->b);
	rg_frame(c, 0, c->sb, c->sa, 0x18, hs, sizeof hs, sizeof hs, t_ns + 80000);
	c->sb += RG_HS_LEN;
}

/* One eager message of n bytes from the sending end (from_a) at t_ns, and its ACK. */
static void
rg_send(struct rg_conn *c, int from_a, int32_t tag, uint16_t seq16, size_t n, int64_t t_ns)
{
	uint8_t h[22];
	uint32_t *s = from_a ? &c->sa : &c->sb, *r = from_a ? &c->sb : &c->sa;
	size_t hl = rg_mpich ? 13 : 22, total = hl + n, off = 0;

	if (rg_mpich) {				/* EAGER_ONLY, UCP tag ctx << 48 | rank << 32 | tag */
		uint64_t ut = (uint64_t)(uint32_t)(from_a ? c->a : c->b) << 32 | (uint32_t)tag;

		h[0] = 2;
		le32(h + 1, (uint32_t)(8 + n));
		le32(h + 5, (uint32_t)ut);
		le32(h + 9, (uint32_t)(ut >> 32));
	} else {
		h[0] = 0x41, h[1] = 1;		/* BTL: tag MATCH, type SEND */
		le16(h + 2, 0);
		le32(h + 4, (uint32_t)(14 + n));
		h[8] = 0x41, h[9] = 0;		/* ob1 MATCH, flags */
		le16(h + 10, 0);		/* MPI_COMM_WORLD */
		le32(h + 12, (uint32_t)(from_a ? c->a : c->b));
		le32(h + 16, (uint32_t)tag);
		le16(h + 20, seq16);
	}
	while (off < total) {
		size_t k = total - off < RG_SEG ? total - off : RG_SEG;

		rg_frame(c, from_a, *s, *r, 0x18, h, off == 0 ? (k < hl ? k : hl) : 0, k, t_ns);
		*s += (uint32_t)k, off += k;
		t_ns += (int64_t)k * 8;	/* ~1 Gbit/s */
	}
	rg_frame(c, !from_a, *r, *s, 0x10, NULL, 0, 0, t_ns + 10000);
}

static int
rg_mkdirs(const char *run)
{
	static const char *const sub[] = { "", "/capture", "/samples", "/meta", "/sockets" };
	char p[4096];

	for (size_t i = 0; i < 5; i++) {
		snprintf(p, sizeof p, "%s%s", run, sub[i]);
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			perror(p);
			return -1;
		}
	}
	return 0;
}

static FILE *__attribute__((format(printf, 2, 3)))
rg_open_file(const char *run, const char *fmt, ...)
{
	char p[4096], name[256];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	snprintf(p, sizeof p, "%s/%s", run, name);
	f = fopen(p, "w");
	if (f == NULL) {
		perror(p);
		exit(1);
	}
	return f;
}

static void
rg_ip_str(uint32_t ip, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

/* meta, sockets and samples of every rank; the conns give the sockets. */
static void
rg_side_files(const char *run, const struct rg_conn *cs, size_t nc, int64_t t0_ns, int64_t t1_ns,
	      double busy, double iter_ms, const char *pattern)
{
	FILE *f;
	char ip[32], ip2[32];
	int64_t nsamp = (t1_ns - t0_ns) / RG_INTERVAL_NS + 1;

	f = rg_open_file(run, "meta/run.tsv");
	fprintf(f, "# contend-meta 1\nkey\tvalue\ncommand\tparse_gen -p %s -i %g\nlauncher\t%s\n"
		"nranks\t%d\ninterval_ns\t%lld\ncontend_version\tgenerated\nclk_tck\t100\n"
		"start_real_ns\t%lld\ncompress\tno\ncapture\ton\nsee_local\t0\nend_real_ns\t%lld\n",
		pattern, iter_ms, rg_mpich ? "mpich" : "openmpi", rg_nranks, RG_INTERVAL_NS,
		(long long)t0_ns, (long long)t1_ns);
	fclose(f);
	for (int r = 0; r < rg_nranks; r++) {
		int n = rg_node_of(r), lr = rg_local_of(r), ls = rg_local_size(n);
		gzFile z;
		char p[4096];
		int64_t utime = 0, run_ns = 0;

		rg_ip_str(rg_nodes[n].ip, ip, sizeof ip);
		f = rg_open_file(run, "meta/rank-%d.tsv", r);
		fprintf(f, "# contend-meta 1\nkey\tvalue\nrank\t%d\nlocal_rank\t%d\nlocal_size\t%d\n"
			"nranks\t%d\nhost\tgn%d\nhostname\tgn%d\nlauncher\t%s\nagent_pid\t%d\n"
			"app_pid\t%d\naddrs\t%s\nstart_real_ns\t%lld\nstart_mono_ns\t%lld\nclk_tck\t100\n"
			"interval_ns\t%lld\nsamples\tsamples/rank-%d.tsv.gz\nsockets\tsockets/rank-%d.tsv\n"
			"cpus_allowed\t1\ncpu_capacity\t1.000\ncpu_quota_us\t-1\ncpu_period_us\t-1\n"
			"end_real_ns\t%lld\nend_mono_ns\t%lld\nhow_ended\texited\nexit_status\t0\n"
			"samples_taken\t%lld\n",
			r, lr, ls, rg_nranks, n, n, rg_mpich ? "mpich" : "openmpi", 100000 + 2 * r, 100001 + 2 * r, ip, (long long)t0_ns,
			(long long)(t0_ns - RG_MONO_OFF), RG_INTERVAL_NS, r, r, (long long)t1_ns,
			(long long)(t1_ns - RG_MONO_OFF), (long long)nsamp);
		fclose(f);
		/* the sockets: its listener and every connection it has an end of */
		f = rg_open_file(run, "sockets/rank-%d.tsv", r);
		fprintf(f, "# contend-sockets 1\nt_real_ns\trank\tpid\tlocal_ip\tlocal_port\tremote_ip\t"
			"remote_port\tstate\n%lld\t%d\t%d\t0.0.0.0\t%d\t0.0.0.0\t0\tLISTEN\n",
			(long long)t0_ns, r, 100001 + 2 * r, 20000 + lr);
		for (size_t i = 0; i < nc; i++) {
			const struct rg_conn *c = &cs[i];
			int me = c->a == r ? 0 : c->b == r ? 1 : -1;

			if (me < 0)
				continue;
			rg_ip_str(rg_nodes[rg_node_of(c->a)].ip, me ? ip2 : ip, 32);
			rg_ip_str(rg_nodes[rg_node_of(c->b)].ip, me ? ip : ip2, 32);
			fprintf(f, "%lld\t%d\t%d\t%s\t%u\t%s\t%u\tESTABLISHED\n", (long long)t0_ns, r,
				100001 + 2 * r, ip, me ? c->pb : c->pa, ip2, me ? c->pa : c->pb);
		}
		fclose(f);
		/* samples: busy of every interval on CPU, in user time */
		snprintf(p, sizeof p, "%s/samples/rank-%d.tsv.gz", run, r);
		z = gzopen(p, "wb1");
		if (z == NULL) {
			perror(p);
			exit(1);
		}
		gzprintf(z, "# contend-samples 1\nt_mono_ns\tt_real_ns\tpid\ttid\tstate\tutime_ticks\t"
			 "stime_ticks\trun_ns\twait_ns\tvcsw\tivcsw\n");
		for (int64_t k = 0; k < nsamp; k++) {
			int64_t t = t0_ns + k * RG_INTERVAL_NS;

			gzprintf(z, "%lld\t%lld\t%d\t%d\tR\t%lld\t0\t%lld\t0\t%lld\t0\n",
				 (long long)(t - RG_MONO_OFF), (long long)t, 100001 + 2 * r, 100001 + 2 * r,
				 (long long)(utime / 10000000), (long long)run_ns, (long long)k);
			/* the MPI library's progress threads, asleep: a row each per sample, as
			 * collect writes every thread of the rank */
			for (int h = 1; h < rg_threads; h++)
				gzprintf(z, "%lld\t%lld\t%d\t%d\tS\t0\t0\t%d\t%d\t%d\t0\n",
					 (long long)(t - RG_MONO_OFF), (long long)t, 100001 + 2 * r,
					 1000000 + 16 * r + h, 37000 * h, 40000 * h, h);
			/* a busy fraction of the intervals on CPU throughout, the others waiting */
			int64_t d = (int64_t)((double)(k + 1) * busy) > (int64_t)((double)k * busy) ?
				RG_INTERVAL_NS : RG_INTERVAL_NS / 20;

			run_ns += d;
			utime += d;
		}
		gzclose(z);
	}
}

/* The partners of rank r: halo, alltoall or irregular (3 drawn from a fixed seed). */
static int
rg_partners(const char *pattern, int r, int *pv, int cap)
{
	int n = 0;

	if (strcmp(pattern, "halo") == 0) {
		pv[n++] = (r + 1) % rg_nranks;
		if (rg_nranks > 2)
			pv[n++] = (r + rg_nranks - 1) % rg_nranks;
	} else if (strcmp(pattern, "alltoall") == 0) {
		for (int q = 0; q < rg_nranks && n < cap; q++)
			if (q != r)
				pv[n++] = q;
	} else {
		unsigned x = 2654435761u * (unsigned)(r + 1);

		for (int i = 0; i < 3 && n < cap; i++) {
			x = x * 1103515245u + 12345u;
			int q = (int)((x >> 8) % (unsigned)rg_nranks);

			if (q != r)
				pv[n++] = q;
		}
	}
	return n;
}

/* The partners of rank r in a recursive-doubling barrier (Open MPI's for a power of two):
 * r xor 1, 2, 4, ... */
static int
rg_barrier_partners(int r, int *pv)
{
	int n = 0;

	for (int d = 1; d < rg_nranks; d <<= 1)
		if ((r ^ d) < rg_nranks)
			pv[n++] = r ^ d;
	return n;
}

/* One barrier from t_ns: every rank sends an empty message (Open MPI's barrier tag -16)
 * to each of its partners; the messages sent. */
static uint64_t
rg_barrier(struct rg_conn *cs, const int *cidx, int *part, int64_t t_ns)
{
	uint64_t m = 0;

	for (int r = 0; r < rg_nranks; r++) {
		int n = rg_barrier_partners(r, part);

		for (int i = 0; i < n; i++) {
			int k = cidx[r * rg_nranks + part[i]];

			if (k < 0)
				continue;
			rg_send(&cs[k], cs[k].a == r, -16, 0, 0, t_ns);
			t_ns += 2000;
			m++;
		}
	}
	return m;
}

static int
run_main(int argc, char **argv)
{
	const char *run = NULL, *pattern = "halo";
	double seconds = 10, iter_ms = 10, busy = 0.7;
	long msg = 4096;
	int64_t iter_ns;
	int c, *part, barriers = 0;
	struct rg_conn *cs = NULL;
	size_t nc = 0, cc = 0;
	int *cidx;		/* nranks x nranks: connection of a pair, -1 none */
	int64_t t0 = 1700000000LL * 1000000000, t, t1, tend;
	uint64_t nmsgs = 0;

	rg_nranks = 4, rg_nnodes = 4;
	while ((c = getopt(argc, argv, "R:n:N:p:t:m:i:b:M:P:TH:B")) != -1) {
		switch (c) {
		case 'R': run = optarg; break;
		case 'n': rg_nranks = (int)strtol(optarg, NULL, 10); break;
		case 'N': rg_nnodes = (int)strtol(optarg, NULL, 10); break;
		case 'p': pattern = optarg; break;
		case 't': seconds = strtod(optarg, NULL); break;
		case 'm': msg = strtol(optarg, NULL, 10); break;
		case 'i': iter_ms = strtod(optarg, NULL); break;
		case 'b': busy = strtod(optarg, NULL); break;
		case 'P': rg_cyclic = strcmp(optarg, "cyclic") == 0 ? 1 : strcmp(optarg, "block") == 0 ? 0 : -1; break;
		case 'T': rg_local_tcp = 1; break;
		case 'B': barriers = 1; break;
		case 'H': rg_threads = (int)strtol(optarg, NULL, 10); break;
		case 'M': rg_mpich = strcmp(optarg, "mpich") == 0 ? 1 : strcmp(optarg, "ompi") == 0 ? 0 : -1; break;
		default: return 2;
		}
	}
	if (run == NULL || rg_nranks < 2 || rg_nranks > 4096 || rg_nnodes < 1 || rg_nnodes > rg_nranks ||
	    rg_nnodes > 65000 || !(seconds > 0 && seconds < 1e6) || !(iter_ms >= 0.001 && iter_ms < 1e6) ||
	    msg <= 0 || msg > (1 << 24) || busy < 0 || busy > 1 || rg_mpich < 0 || rg_cyclic < 0 ||
	    rg_threads == 0 || rg_threads < -1 || rg_threads > 16 || (strcmp(pattern, "halo") && strcmp(pattern, "alltoall") &&
				     strcmp(pattern, "irregular"))) {
		fprintf(stderr, "usage: parse_gen -R RUN [-n RANKS] [-N NODES] [-p halo|alltoall|irregular] "
			"[-t SECONDS] [-m BYTES] [-i ITER_MS] [-b BUSY] [-M ompi|mpich] [-P block|cyclic] [-T] [-H THREADS] [-B]\n");
		return 2;
	}
	if (rg_threads < 0)
		rg_threads = rg_mpich ? 2 : 3;
	if (rg_mkdirs(run) < 0)
		return 1;
	rg_nodes = calloc((size_t)rg_nnodes, sizeof *rg_nodes);
	part = calloc((size_t)rg_nranks, sizeof *part);
	cidx = malloc((size_t)rg_nranks * (size_t)rg_nranks * sizeof *cidx);
	if (rg_nodes == NULL || part == NULL || cidx == NULL)
		return 1;
	memset(cidx, 0xff, (size_t)rg_nranks * (size_t)rg_nranks * sizeof *cidx);
	for (int k = 0; k < rg_nnodes; k++) {
		rg_nodes[k].ip = 0x0ac80000u + (uint32_t)(k + 1);	/* 10.200.x.y */
		rg_nodes[k].next_port = 40000;
		rg_nodes[k].f = rg_open_file(run, "capture/gn%d.pcap", k);
		setvbuf(rg_nodes[k].f, NULL, _IOFBF, 1 << 20);
		out = rg_nodes[k].f;
		w32(0xa1b23c4d);
		w32(2 | 4 << 16);
		w32(0);
		w32(0);
		w32(262144);
		w32(1);
	}
	/* the connections: one per pair of ranks on different nodes that talk, opened first
	 * (the pattern's pairs, then the barriers' with -B) */
	for (int r = 0; r < rg_nranks * (1 + barriers); r++) {
		int n = r < rg_nranks ? rg_partners(pattern, r, part, rg_nranks) :
			rg_barrier_partners(r - rg_nranks, part);

		for (int i = 0; i < n; i++) {
			int me = r % rg_nranks, a = me < part[i] ? me : part[i], b = me < part[i] ? part[i] : me;
			struct rg_conn *k;

			if ((rg_node_of(a) == rg_node_of(b) && !rg_local_tcp) || cidx[a * rg_nranks + b] >= 0)
				continue;
			if (nc == cc) {
				cc = cc ? 2 * cc : 1024;
				cs = realloc(cs, cc * sizeof *cs);
				if (cs == NULL)
					return 1;
			}
			k = &cs[nc];
			k->a = a, k->b = b;
			k->pa = rg_nodes[rg_node_of(a)].next_port++;
			k->pb = (uint16_t)(20000 + rg_local_of(b));
			k->sa = 1000u * (uint32_t)nc + 1, k->sb = 7000000u + 1000u * (uint32_t)nc;
			cidx[a * rg_nranks + b] = cidx[b * rg_nranks + a] = (int)nc;
			rg_open(k, t0 + (int64_t)nc * 1000);
			nc++;
		}
	}
	/* the iterations, with -B between two barriers (as a program's timed part) */
	t1 = t0 + (int64_t)(seconds * 1e9);
	iter_ns = (int64_t)(iter_ms * 1e6);
	if (barriers)
		nmsgs += rg_barrier(cs, cidx, part, t0 + 50000000);
	tend = t0 + 100000000;
	for (t = t0 + 100000000; t < t1; t += iter_ns) {
		uint16_t it = (uint16_t)((t - t0) / iter_ns);
		int64_t tt = t;

		for (int r = 0; r < rg_nranks; r++) {
			int n = rg_partners(pattern, r, part, rg_nranks);

			for (int i = 0; i < n; i++) {
				int q = part[i], k = cidx[r * rg_nranks + q];
				size_t len = (size_t)msg;

				if (k < 0)
					continue;	/* same node: shared memory */
				if (strcmp(pattern, "irregular") == 0)
					len = (size_t)msg * (size_t)(1 + (r * 7 + q * 13 + it) % 8);
				rg_send(&cs[k], cs[k].a == r, 100 + i, it, len, tt);
				tt += 2000;
				nmsgs++;
			}
		}
		tend = tt;
	}
	if (barriers)
		nmsgs += rg_barrier(cs, cidx, part, tend + 1000000);
	for (int k = 0; k < rg_nnodes; k++)
		if (fclose(rg_nodes[k].f) != 0) {
			perror("capture");
			return 1;
		}
	rg_side_files(run, cs, nc, t0, t1, busy, iter_ms, pattern);
	printf("%s: %d ranks on %d nodes, %s, %g s: %zu connections, %" PRIu64 " messages, %.0f MB "
	       "of captures\n", run, rg_nranks, rg_nnodes, pattern, seconds, nc, nmsgs, (double)written / 1e6);
	free(cs);
	free(cidx);
	free(part);
	free(rg_nodes);
	return 0;
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

	for (i = 1; i < argc; i++)
		if (strncmp(argv[i], "-R", 2) == 0)
			return run_main(argc, argv);
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
