/* ompi_ucx: the Open MPI 4.1 pml ucx decoder: UCP tag messages over UCX 1.13's TCP transport.
 *
 * The records are UCX's, read by the hooks of parse/mpich.c; only the layout of the 64-bit
 * UCP tag is Open MPI's. Follows open-mpi/ompi@v4.1.4
 *   ompi/mca/pml/ucx/pml_ucx_request.h  PML_UCX_MAKE_SEND_TAG: the MPI tag (24 bits, from a
 *       sign-extended int) << 40 | the sender's comm rank (20 bits) << 20 | c_contextid
 *       (20 bits); collectives use negative tags (coll_tags.h) on their communicator's
 *       context, MPI_COMM_WORLD is context 0.
 * (Open MPI before 4.1 used 24 tag, 24 rank and 16 context bits; not decoded.) See
 * docs/mpi-decoders.md. */
#include "parse/ompi_ucx.h"

#include "parse/mpich.h"

#define RANK_BITS 20
#define CTX_BITS 20
#define FIELD_MASK ((UINT64_C(1) << 20) - 1)

static void
ompi_ucx_tag(uint64_t tag, int32_t *cid, int32_t *comm_src, int32_t *t)
{
	uint32_t t24 = (uint32_t)(tag >> (RANK_BITS + CTX_BITS));	/* 24 bits */

	*cid = (int32_t)(tag & FIELD_MASK);
	*comm_src = (int32_t)((tag >> CTX_BITS) & FIELD_MASK);
	*t = (int32_t)(t24 & 0x800000u ? t24 | 0xff000000u : t24);	/* sign-extend 24 bits */
}

/* Context 0 is MPI_COMM_WORLD, for its point-to-point and collective messages alike. */
static bool
ompi_ucx_world(uint64_t tag, int32_t *rank)
{
	if ((tag & FIELD_MASK) != 0)
		return false;
	*rank = (int32_t)((tag >> CTX_BITS) & FIELD_MASK);
	return true;
}

static const struct ucx_proto ompi_ucx_proto = {
	.fp = UCX_FRAME_PROTO(MSG_OMPI),
	.tag = ompi_ucx_tag,
	.world = ompi_ucx_world,
};

static void *
ompi_ucx_open(const struct conn_info *ci, const struct msg_sink *sink, struct dec_stats *st)
{
	return frame_open(&ompi_ucx_proto.fp, ci, sink, st);
}

const struct decoder dec_ompi_ucx = {
	.name = "ompi-ucx",
	.detect = ucx_detect,
	.open = ompi_ucx_open,
	.data = frame_data,
	.gap = frame_gap,
	.skip = frame_skip,
	.close = frame_close,
	.ranks = frame_ranks,
};
