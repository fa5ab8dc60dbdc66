/* msgnames: names for the enums of parse/msg.h and for the collective tags of each MPI.
 *
 * Open MPI 4.1.4: ompi/mca/coll/base/coll_tags.h (blocking collectives -10..-26, then
 * nonblocking ones from -27 down, neighbourhood and hcoll ranges below).
 * MPICH 4.0.2: src/include/mpir_tags.h (collectives use small positive tags in the
 * collective context, context id + 1, so the context id is needed to tell them apart). */
#include "parse/msg.h"

#include <limits.h>

const char *
msg_proto_name(enum msg_proto p)
{
	switch (p) {
	case PROTO_EAGER: return "eager";
	case PROTO_SYNC: return "sync";
	case PROTO_RNDV_PUT: return "rndv-put";
	case PROTO_RNDV_FRAG: return "rndv-frag";
	case PROTO_CTRL: return "ctrl";
	case PROTO_UNKNOWN: break;
	}
	return "unknown";
}

const char *
msg_mpi_name(enum msg_mpi m)
{
	switch (m) {
	case MSG_OMPI: return "ompi";
	case MSG_MPICH: return "mpich";
	case MSG_GENERIC: break;
	}
	return "generic";
}

const char *
rank_src_name(enum rank_src r)
{
	switch (r) {
	case RANKSRC_HANDSHAKE: return "handshake";
	case RANKSRC_UCPTAG: return "ucptag";
	case RANKSRC_SOCKMAP: return "sockmap";
	case RANKSRC_NONE: break;
	}
	return "none";
}

/* Open MPI 4.1 coll_tags.h: MCA_COLL_BASE_TAG_ALLGATHER (-10) .. _SCATTERV (-26). */
static const char *const ompi_blocking[] = {
	"allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw",
	"barrier", "bcast", "exscan", "gather", "gatherv", "reduce", "reduce_scatter",
	"reduce_scatter_block", "scan", "scatter", "scatterv",
};

#define OMPI_TAG_BLOCKING_BASE (-10)
#define OMPI_TAG_NONBLOCKING_BASE (-27)
#define OMPI_TAG_NONBLOCKING_END ((-1 * INT_MAX / 2) + 1)
#define OMPI_TAG_HCOLL_BASE (-1 * INT_MAX / 2)

static const char *
ompi_tag_name(int32_t tag)
{
	if (tag >= 0)
		return NULL;
	if (tag <= OMPI_TAG_BLOCKING_BASE && tag > OMPI_TAG_NONBLOCKING_BASE)
		return ompi_blocking[OMPI_TAG_BLOCKING_BASE - tag];
	if (tag <= OMPI_TAG_NONBLOCKING_BASE && tag >= OMPI_TAG_NONBLOCKING_END)
		return "nonblocking";	/* libnbc / ompi_coll_base_nbc_reserve_tags */
	if (tag < OMPI_TAG_NONBLOCKING_END && tag > OMPI_TAG_HCOLL_BASE)
		return "neighbor";
	if (tag <= OMPI_TAG_HCOLL_BASE)
		return "hcoll";
	return NULL;	/* -1..-9: MPI_ANY_TAG and internal uses */
}

/* MPICH 4.0 mpir_tags.h: MPIR_BARRIER_TAG (1) .. MPIR_AGREE_TAG (30). */
static const char *const mpich_coll[] = {
	NULL, "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
	"allgatherv", "alltoall", "alltoallv", "reduce", "reduce", "reduce", "allreduce",
	"allreduce", "allreduce", "reduce_scatter", "reduce_scatter", "reduce_scatter", "scan",
	"scan", "scan", "localcopy", "exscan", "alltoallw", "topo", "topo",
	"reduce_scatter_block", "shrink", "agree",
};

#define MPICH_TAG_FIRST_HCOLL 31
#define MPICH_TAG_FIRST_NBC (MPICH_TAG_FIRST_HCOLL + 256)
#define MPICH_TAG_ERROR_BITS (3u << 29)	/* MPIR_TAG_ERROR_BIT | MPIR_TAG_PROC_FAILURE_BIT */

static const char *
mpich_tag_name(int32_t tag)
{
	uint32_t t = (uint32_t)tag & ~MPICH_TAG_ERROR_BITS;	/* fault-tolerance bits */

	if (tag < 0)
		return NULL;
	if (t < sizeof mpich_coll / sizeof mpich_coll[0])
		return mpich_coll[t];
	if (t < MPICH_TAG_FIRST_NBC)
		return "hcoll";
	return "nonblocking";
}

const char *
msg_tag_name(enum msg_mpi m, int32_t tag)
{
	if (m == MSG_OMPI)
		return ompi_tag_name(tag);
	return NULL;	/* MPICH tags are never negative: see msg_tag_name_cid */
}

const char *
msg_tag_name_cid(enum msg_mpi m, int32_t cid, int32_t tag)
{
	if (m == MSG_OMPI)
		return ompi_tag_name(tag);
	if (m == MSG_MPICH && cid >= 0 && (cid & 1))	/* MPIR_CONTEXT_INTRA_COLL offset */
		return mpich_tag_name(tag);
	return NULL;
}
