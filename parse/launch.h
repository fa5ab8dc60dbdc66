/* launch: recognises the launchers' own TCP traffic so it is kept out of the messages:
 * Open MPI's ORTE OOB (mpirun <-> orted), PMIx (application <-> local daemon) and MPICH's
 * Hydra (mpiexec <-> hydra_pmi_proxy), by the first bytes of each direction. Sources:
 * open-mpi/ompi@v4.1.4 orte/mca/oob/tcp/oob_tcp_hdr.h and oob_tcp_connection.c (IDENT
 * handshake, version "4.0.0"); PMIx 4.2.2 ptl/tcp client hello as seen in Debian 12 loopback
 * captures; pmodels/mpich@v4.0.2 src/pm/hydra/pm/pmiserv/common.h (struct HYD_pmcd_hdr; its
 * use on the wire was not observed, hence a strict plausibility test). */
#ifndef PARSE_LAUNCH_H
#define PARSE_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

enum launch_kind {
	LAUNCH_NO = 0,		/* not launcher traffic */
	LAUNCH_MORE,		/* the bytes so far match the start of a launcher handshake */
	LAUNCH_ORTE_OOB,	/* 64-byte OOB header, IDENT type 1, version "4.0.0" */
	LAUNCH_PMIX,		/* ff x 8, length, "native" */
	LAUNCH_HYDRA,		/* a plausible 32-byte HYD_pmcd_hdr (heuristic) */
};
#define LAUNCH_NKINDS 5

/* Classify a connection from the first bytes p[dir][0..n[dir]) of each direction (n may be
 * 0). Never reads past n. */
enum launch_kind launch_detect(const uint8_t *const p[2], const size_t n[2]);
const char *launch_kind_name(enum launch_kind k);

#endif
