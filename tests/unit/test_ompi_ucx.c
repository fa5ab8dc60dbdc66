/* test_ompi_ucx: the Open MPI over UCX (pml ucx) decoder on a real captured stream and on
 * made-up records that pin down Open MPI's UCP tag layout. */
#include "check.h"

#include "parse/ompi_ucx.h"
#include "tests/golden/inputs/mpi-strm.h"

static const struct strm_want ompi_ucx_want = { &dec_ompi_ucx, 7919, RANKSRC_UCPTAG, MSG_OMPI,
	5 + 8 };

/* mpi-known.c under `--mca pml ucx` with UCX_TLS=tcp,self: world rank 1 initiated the data
 * connection, so rank 0's messages travel in direction 1. */
TEST(known_sequence)
{
	strm_check(&ompi_ucx_want, "mpi-known-ompi-ucx.strm.gz", "mpi-known-ompi-ucx.expect", 1, 0,
		   25);
}

/* The messages mpi-known.c sends, as the program says (not as the extractor read them). */
TEST(known_program_messages)
{
	static const struct known_msg want[] = {
		{ 0, 0, 7, 10, "eager" },
		{ 0, 0, 9, 100, "sync" },
		{ 0, 0, 10, 1000000, "rndv-put" },
		{ 0, 0, 11, 400000, "rndv-frag" },
		{ 0, 0, 12, 400000, "rndv-frag" },
		{ 0, 0, 13, 200000, "rndv-frag" },
		{ 0, 0, 15, 200000, "eager" },	/* into a vector: UCX's multi-record eager */
		{ 0, 0, 16, 200000, "rndv-put" },	/* large MPI_Ssend: rendezvous */
		{ 3, 1, 14, 20, "eager" },	/* split communicator: world 0 is rank 1 there */
	};

	strm_check_known(&dec_ompi_ucx, MSG_OMPI, "mpi-known-ompi-ucx.strm.gz", want,
			 sizeof want / sizeof want[0]);
}

/* MPICH's decoder on the same stream: sizes right, but the tag layout is not its own. */
TEST(mpich_layout_differs)
{
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	size_t i;
	int wrong = 0;

	CHECK(strm_load("mpi-known-ompi-ucx.strm.gz", &s) == 0);
	strm_run(&dec_mpich, &s, 5, &g, &st, NULL);
	CHECK(g.n == 25);
	for (i = 0; i < g.n; i++)
		wrong += g.m[i].tag == 7 && g.m[i].bytes == 10;
	CHECK(wrong == 0);	/* tag 7 reads as something else there */
	free(g.m);
	strm_free(&s);
}

/* One EAGER_ONLY record of n zero bytes with UCP tag t, at b: its length. */
static size_t
eager_rec(uint8_t *b, uint64_t t, size_t n)
{
	size_t i;

	b[0] = 2;	/* UCP_AM_ID_EAGER_ONLY */
	for (i = 0; i < 4; i++)
		b[1 + i] = (uint8_t)((8 + n) >> (8 * i));
	for (i = 0; i < 8; i++)
		b[5 + i] = (uint8_t)(t >> (8 * i));
	memset(b + 13, 0, n);
	return 13 + n;
}

/* PML_UCX_MAKE_SEND_TAG: tag (24 bits of the int) << 40 | comm rank << 20 | context id. */
static uint64_t
otag(int32_t tag, uint32_t rank, uint32_t cid)
{
	return (uint64_t)(int64_t)tag << 40 | (uint64_t)rank << 20 | cid;
}

TEST(tag_layout)
{
	static const uint8_t magic[8] = { 0x78, 0x56, 0x34, 0x12, 0xbe, 0xba, 0xfe, 0xca };
	static struct msg_sink sink;
	struct got g = { 0 };
	struct dec_stats st;
	struct conn_info ci;
	uint8_t b[512];
	size_t n = 0;
	void *s;

	memset(&ci, 0, sizeof ci);
	memset(&st, 0, sizeof st);
	ci.saw_syn = true;
	ci.rank[0] = ci.rank[1] = -1;
	sink.emit = got_emit;
	sink.ctx = &g;
	CHECK(dec_ompi_ucx.detect(magic, 8, 0) == 100);
	s = dec_ompi_ucx.open(&ci, &sink, &st);
	memcpy(b, magic, 8);
	n = 8;
	n += eager_rec(b + n, otag(12345, 700000, 5), 3);	/* not MPI_COMM_WORLD: no rank */
	n += eager_rec(b + n, otag(-16, 1000001, 0), 0);	/* a barrier on MPI_COMM_WORLD */
	n += eager_rec(b + n, otag(0x7fffff, 2, 0xfffff), 40);	/* the largest tag and cid */
	dec_ompi_ucx.data(s, 0, b, n, 2);
	CHECK(g.n == 0);	/* the receiver's rank is not known yet */
	n = eager_rec(b, otag(3, 4, 0), 1);
	dec_ompi_ucx.data(s, 1, b, n, 3);
	dec_ompi_ucx.close(s, 4);
	CHECK(g.n == 4);
	if (g.n == 4) {
		CHECK(g.m[0].cid == 5);
		CHECK(g.m[0].comm_src == 700000);
		CHECK(g.m[0].tag == 12345);
		CHECK(g.m[0].bytes == 3);
		CHECK(g.m[1].cid == 0);
		CHECK(g.m[1].comm_src == 1000001);
		CHECK(g.m[1].tag == -16);
		CHECK_STR(msg_tag_name_cid(g.m[1].mpi, g.m[1].cid, g.m[1].tag), "barrier");
		CHECK(g.m[2].cid == 0xfffff);
		CHECK(g.m[2].comm_src == 2);
		CHECK(g.m[2].tag == 0x7fffff);
		CHECK(g.m[3].dir == 1);
		CHECK(g.m[3].cid == 0);
		CHECK(g.m[3].comm_src == 4);
		CHECK(g.m[3].tag == 3);
		for (int i = 0; i < 3; i++) {
			CHECK(g.m[i].src_world == 1000001);
			CHECK(g.m[i].dst_world == 4);
		}
		CHECK(g.m[3].src_world == 4);
		CHECK(g.m[3].dst_world == 1000001);
	}
	CHECK(st.msgs == 4);
	CHECK(st.bad == 0);
	free(g.m);
}

int
main(void)
{
	RUN(known_sequence);
	RUN(known_program_messages);
	RUN(mpich_layout_differs);
	RUN(tag_layout);
	return check_done();
}
