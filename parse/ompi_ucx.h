/* ompi_ucx: the Open MPI 4.1 pml ucx decoder (UCP tag messages over UCX's TCP transport); see
 * docs/mpi-decoders.md.
 *
 * Use it through the table dec_ompi_ucx (parse/msg.h). Its streams are the same as MPICH's
 * over UCX (parse/mpich.h says what one state holds and how ranks are learned); only the
 * UCP tag layout differs, so detect() cannot tell the two apart: parse hands UCX streams to
 * this decoder when the run is known to be Open MPI's. Messages carry mpi = MSG_OMPI
 * (Open MPI's communicator ids and negative collective tags). */
#ifndef PARSE_OMPI_UCX_H
#define PARSE_OMPI_UCX_H

#include "parse/msg.h"

#endif
