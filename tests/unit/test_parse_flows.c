/* Unit tests for parse/flows and parse/launch: connections, decoder choice, launcher traffic,
 * RST, port reuse, duplicates across captures, the connection cap, rank tying. */
#include "parse/flows.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include "parse/launch.h"
#include "tests/unit/check.h"

static struct msg got[64];
static int ngot;
static struct flows_conn conns[64];
static int nconns;

static void
on_msg(void *ctx, const struct msg *m)
{
	(void)ctx;
	if (ngot < 64)
		got[ngot++] = *m;
}

static void
on_conn(void *ctx, const struct flows_conn *c)
{
	(void)ctx;
	if (nconns < 64)
		conns[nconns++] = *c;
}

/* Ranks by port: 1000+r belongs to rank r. */
static int32_t
rank_of(void *ctx, int af, const uint8_t addr[16], uint16_t port)
{
	(void)ctx, (void)af, (void)addr;
	return port >= 1000 && port < 1100 ? port - 1000 : -1;
}

static struct flows *
mk(enum flows_mpi mpi, size_t max_conns)
{
	struct flows_config cfg = { 0 };
	struct flows_cb cb = { on_msg, on_conn, rank_of, NULL };

	cfg.mpi = mpi;
	cfg.max_conns = max_conns;
	ngot = nconns = 0;
	return flows_new(&cfg, &cb);
}

/* A segment from (a, pa) to (b, pb). */
static void
seg(struct flows *f, const char *a, uint16_t pa, const char *b, uint16_t pb, uint32_t seq,
    uint8_t flags, const void *data, size_t n, int64_t t)
{
	struct pkt p;

	memset(&p, 0, sizeof p);
	p.af = AF_INET;
	inet_pton(AF_INET, a, p.src);
	inet_pton(AF_INET, b, p.dst);
	p.sport = pa;
	p.dport = pb;
	p.seq = seq;
	p.flags = flags;
	p.payload = data;
	p.payload_len = p.payload_wire = (uint32_t)n;
	p.ttl = 64;
	flows_tcp(f, &p, t, (uint32_t)(54 + n));
}

#define A "10.0.0.1"
#define B "10.0.0.2"
#define ACK PKT_TCP_ACK

/* SYN, SYN/ACK, ACK between A:pa (initiator) and B:pb at t, t+10, t+20 */
static void
handshake(struct flows *f, uint16_t pa, uint16_t pb, uint32_t isn_a, uint32_t isn_b, int64_t t)
{
	seg(f, A, pa, B, pb, isn_a, PKT_TCP_SYN, NULL, 0, t);
	seg(f, B, pb, A, pa, isn_b, PKT_TCP_SYN | ACK, NULL, 0, t + 10);
	seg(f, A, pa, B, pb, isn_a + 1, ACK, NULL, 0, t + 20);
}

TEST(generic_request_reply_with_ranks_and_rtt)
{
	struct flows *f = mk(FLOWS_MPI_AUTO, 0);

	handshake(f, 1002, 1001, 100, 900, 1000);
	seg(f, A, 1002, B, 1001, 101, ACK, "0123456789", 10, 2000);
	seg(f, A, 1002, B, 1001, 111, ACK, "0123456789", 10, 2100);
	seg(f, B, 1001, A, 1002, 901, ACK, "ok", 2, 3000);
	seg(f, A, 1002, B, 1001, 121, PKT_TCP_FIN | ACK, NULL, 0, 4000);
	seg(f, B, 1001, A, 1002, 903, PKT_TCP_FIN | ACK, NULL, 0, 4100);
	CHECK(ngot == 2);
	CHECK(got[0].bytes == 20);
	CHECK(got[0].src_world == 2);
	CHECK(got[0].dst_world == 1);
	CHECK(got[0].ranksrc == RANKSRC_SOCKMAP);
	CHECK(got[0].mpi == MSG_GENERIC);
	CHECK(got[1].bytes == 2);
	CHECK(got[1].src_world == 1);
	CHECK(got[1].dir == 1);
	CHECK(got[0].conn == got[1].conn);
	flows_end_capture(f);
	CHECK(nconns == 1);
	CHECK(conns[0].rtt_ns == 20);
	CHECK(conns[0].saw_syn);
	CHECK(conns[0].pkts[0] == 5);	/* SYN ACK data data FIN; SYN/ACK ok FIN */
	CHECK(conns[0].pkts[1] == 3);
	CHECK(conns[0].payload_bytes[0] == 20);
	CHECK(conns[0].payload_bytes[1] == 2);
	CHECK(conns[0].port[0] == 1002);
	CHECK(conns[0].rank[0] == 2);
	CHECK(conns[0].rank[1] == 1);
	CHECK(strcmp(conns[0].kind, "generic") == 0);
	CHECK(flows_stats(f)->dec_conns[MSG_GENERIC] == 1);
	flows_free(f);
}

TEST(orte_oob_and_pmix_are_launcher_traffic)
{
	struct flows *f = mk(FLOWS_MPI_AUTO, 0);
	uint8_t ident[72], pmix[40];

	memset(ident, 0, sizeof ident);
	ident[27] = 8;		/* nbytes = htonl(8) */
	ident[28] = 1;		/* IDENT */
	memcpy(ident + 64, "\0\001" "4.0.0", 8);
	handshake(f, 40000, 5000, 1, 1, 0);
	seg(f, A, 40000, B, 5000, 2, ACK, ident, sizeof ident, 100);
	seg(f, B, 5000, A, 40000, 2, ACK, ident, sizeof ident, 200);
	memset(pmix, 0, sizeof pmix);
	memset(pmix, 0xff, 8);
	pmix[8] = 0x37;
	memcpy(pmix + 16, "native", 7);
	handshake(f, 40001, 5001, 1, 1, 0);
	seg(f, A, 40001, B, 5001, 2, ACK, pmix, sizeof pmix, 300);
	seg(f, A, 40001, B, 5001, 2 + sizeof pmix, ACK, pmix, sizeof pmix, 400);
	flows_end_capture(f);
	CHECK(ngot == 0);
	CHECK(flows_stats(f)->launcher_conns[LAUNCH_ORTE_OOB] == 1);
	CHECK(flows_stats(f)->launcher_bytes[LAUNCH_ORTE_OOB] == 144);
	CHECK(flows_stats(f)->launcher_conns[LAUNCH_PMIX] == 1);
	CHECK(flows_stats(f)->launcher_bytes[LAUNCH_PMIX] == 80);
	flows_free(f);
}

TEST(launch_detect_prefixes)
{
	static const uint8_t btl[24] = { 1, 0, 0xa4, 0x41, 0, 0, 0, 0, 'O', 'P', 'A', 'L', '-', 'T',
					 'C', 'P', '-', 'B', 'T', 'L', 0, 0, 0, 0 };
	static const uint8_t hyd[32] = { 3, 0, 0, 0, 10, 0, 0, 0, 0x39, 0x30, 0, 0, 1, 0, 0, 0 };
	const uint8_t *p[2] = { btl, btl };
	size_t n[2] = { 24, 0 };

	CHECK(launch_detect(p, n) != LAUNCH_ORTE_OOB);
	CHECK(launch_detect(p, n) != LAUNCH_PMIX);
	p[0] = hyd;
	n[0] = 32;
	CHECK(launch_detect(p, n) == LAUNCH_HYDRA);
	n[0] = 0;
	CHECK(launch_detect(p, n) == LAUNCH_NO);
}

TEST(rst_closes_and_port_reuse_opens_anew)
{
	struct flows *f = mk(FLOWS_MPI_GENERIC, 0);

	handshake(f, 1003, 1004, 10, 20, 0);
	seg(f, A, 1003, B, 1004, 11, ACK, "abc", 3, 100);
	seg(f, B, 1004, A, 1003, 21, PKT_TCP_RST, NULL, 0, 200);
	if (CHECKED(ngot == 1))
		CHECK(got[0].bytes == 3);
	/* the same 4-tuple with a new ISN: another connection */
	handshake(f, 1003, 1004, 5000, 6000, 300);
	seg(f, A, 1003, B, 1004, 5001, ACK, "defg", 4, 400);
	flows_end_capture(f);
	if (CHECKED(ngot == 2))
		CHECK(got[1].bytes == 4);
	CHECK(got[0].conn != got[1].conn);
	CHECK(flows_stats(f)->conns == 2);
	CHECK(flows_stats(f)->conns_port_reuse == 1);
	CHECK(nconns == 2);
	flows_free(f);
}

TEST(midstream_start_and_orphans)
{
	struct flows *f = mk(FLOWS_MPI_GENERIC, 0);

	seg(f, A, 50000, B, 1001, 777, ACK, NULL, 0, 1);	/* a bare ACK of no known connection */
	CHECK(flows_stats(f)->orphan_pkts == 1);
	seg(f, A, 50000, B, 1001, 777, ACK, "xyz", 3, 2);
	flows_end_capture(f);
	if (CHECKED(ngot == 1))
		CHECK(got[0].bytes == 3);
	CHECK(flows_stats(f)->conns_midstream == 1);
	if (CHECKED(nconns == 1))
		CHECK(!conns[0].saw_syn);
	CHECK(conns[0].port[0] == 50000);	/* the ephemeral port is taken as the initiator */
	CHECK(got[0].dst_world == 1);
	CHECK(got[0].src_world == -1);
	flows_free(f);
}

TEST(duplicate_connection_in_a_later_capture)
{
	struct flows *f = mk(FLOWS_MPI_GENERIC, 0);
	int i;

	for (i = 0; i < 2; i++) {	/* the same connection seen from both hosts */
		handshake(f, 1005, 1006, 10, 20, 0);
		seg(f, A, 1005, B, 1006, 11, ACK, "abc", 3, 100);
		flows_end_capture(f);
	}
	CHECK(ngot == 1);
	CHECK(flows_stats(f)->conns_dup == 1);
	flows_free(f);
}

TEST(connection_cap)
{
	struct flows *f = mk(FLOWS_MPI_GENERIC, 2);
	uint16_t p;

	for (p = 0; p < 5; p++)
		seg(f, A, (uint16_t)(40000 + p), B, 80, 1, ACK, "x", 1, p);
	CHECK(flows_stats(f)->conns == 2);
	CHECK(flows_stats(f)->conns_cap_hits == 3);
	flows_end_capture(f);
	CHECK(ngot == 2);
	flows_free(f);
}

TEST(reordered_and_lost_bytes_reach_the_decoder_as_gaps)
{
	struct flows *f = mk(FLOWS_MPI_GENERIC, 0);

	handshake(f, 1007, 1008, 0, 0, 0);
	seg(f, A, 1007, B, 1008, 11, ACK, "later", 5, 100);	/* 1..10 lost */
	seg(f, A, 1007, B, 1008, 1, ACK, "first", 5, 200);	/* 6..10 never come */
	flows_end_capture(f);
	CHECK(ngot == 1);
	CHECK(got[0].bytes == 15);
	CHECK((got[0].flags & MSG_F_GAP));
	CHECK(flows_stats(f)->tcp.gap_bytes == 5);
	flows_free(f);
}

/* UCX streams: MPICH's unless the run is Open MPI's (ucx_is_ompi, --mpi ompi-ucx); the UCP
 * tag of one eager message (tag 5 from comm rank 2 on MPI_COMM_WORLD) then reads by the
 * chosen layout. */
static void
ucx_eager(enum flows_mpi mpi, bool ucx_is_ompi, uint64_t utag)
{
	struct flows_config cfg = { 0 };
	struct flows_cb cb = { on_msg, on_conn, rank_of, NULL };
	struct flows *f;
	uint8_t b[8 + 5 + 8 + 4] = { 0x78, 0x56, 0x34, 0x12, 0xbe, 0xba, 0xfe, 0xca, 2, 12 };

	for (int i = 0; i < 8; i++)
		b[13 + i] = (uint8_t)(utag >> (8 * i));
	cfg.mpi = mpi;
	cfg.ucx_is_ompi = ucx_is_ompi;
	ngot = nconns = 0;
	f = flows_new(&cfg, &cb);
	handshake(f, 1002, 1001, 100, 900, 1000);
	seg(f, A, 1002, B, 1001, 101, ACK, b, sizeof b, 2000);
	flows_end_capture(f);
	CHECK(ngot == 1);
	if (ngot == 1) {
		CHECK(got[0].cid == 0);
		CHECK(got[0].comm_src == 2);
		CHECK(got[0].tag == 5);
		CHECK(got[0].bytes == 4);
	}
	CHECK(nconns == 1);
	flows_free(f);
}

TEST(ucx_layout_chosen_per_run)
{
	uint64_t mpich = (uint64_t)2 << 32 | 5, ompi = (uint64_t)5 << 40 | (uint64_t)2 << 20;

	ucx_eager(FLOWS_MPI_AUTO, false, mpich);
	CHECK_STR(conns[0].kind, "mpich");
	CHECK(got[0].mpi == MSG_MPICH);
	ucx_eager(FLOWS_MPI_AUTO, true, ompi);
	CHECK_STR(conns[0].kind, "ompi-ucx");
	CHECK(got[0].mpi == MSG_OMPI);
	ucx_eager(FLOWS_MPI_OMPI_UCX, false, ompi);
	CHECK(strcmp(conns[0].kind, "ompi-ucx") == 0);
	ucx_eager(FLOWS_MPI_MPICH, true, mpich);	/* asked for MPICH: MPICH */
	CHECK(strcmp(conns[0].kind, "mpich") == 0);
}

/* n segments of one direction, one every step_us, the clock ticking tick_us per TSval unit
 * from tsval0; segment late_i (if any) captured late_us after it was stamped. Returns
 * flows_ts_unit's tick and its zero in *zero. */
static int64_t
ts_run(uint32_t tsval0, int64_t tick_us, int64_t step_us, int n, int late_i, int64_t late_us,
       int64_t *zero, bool *grows)
{
	struct flows_ts ts;
	int64_t prev = -1;

	memset(&ts, 0, sizeof ts);
	*grows = true;
	for (int i = 0; i < n; i++) {
		int64_t t_us = 1000 + (int64_t)i * step_us;
		uint32_t v = tsval0 + (uint32_t)(t_us / tick_us);
		int64_t x = flows_ts_add(&ts, v, (t_us + (i == late_i ? late_us : 0)) * 1000);

		if (x < prev)
			*grows = false;
		prev = x;
	}
	return flows_ts_unit(&ts, zero);
}

TEST(tcp_timestamp_clock)
{
	int64_t zero;
	bool grows;

	/* a millisecond clock wrapping past 2^32, one segment 7 ms late */
	CHECK(ts_run(0xfffffff0u, 1000, 1000, 1000, 500, 7000, &zero, &grows) == 1000000);
	CHECK(grows);
	/* zero: capture ns less TSval ns, at a segment that did not wait */
	CHECK(zero == 1000 * 1000 - (int64_t)(0xfffffff0u + 1 + ((int64_t)1 << 32)) * 1000000);
	/* a microsecond clock (Linux >= 6.7 with tcp_usec_ts on the route) */
	CHECK(ts_run(12345, 1, 1000, 1000, 500, 7000, &zero, &grows) == 1000);
	/* a 10 ms clock over 10 s: neither, so no queue times */
	CHECK(ts_run(5, 10000, 10000, 1000, -1, 0, &zero, &grows) == 0);
	/* two segments 1 ms apart cannot tell much: a millisecond clock fits */
	CHECK(ts_run(77, 1000, 1000, 2, -1, 0, &zero, &grows) == 1000000);
	/* none */
	CHECK(ts_run(77, 1000, 1000, 0, -1, 0, &zero, &grows) == 0);
}

int
main(void)
{
	RUN(generic_request_reply_with_ranks_and_rtt);
	RUN(ucx_layout_chosen_per_run);
	RUN(orte_oob_and_pmix_are_launcher_traffic);
	RUN(launch_detect_prefixes);
	RUN(rst_closes_and_port_reuse_opens_anew);
	RUN(midstream_start_and_orphans);
	RUN(duplicate_connection_in_a_later_capture);
	RUN(connection_cap);
	RUN(reordered_and_lost_bytes_reach_the_decoder_as_gaps);
	RUN(tcp_timestamp_clock);
	return check_done();
}
