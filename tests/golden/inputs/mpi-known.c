/* mpi-known: sends a known message sequence between world ranks 0 and 1, to be captured and
 * compared with what the decoders rebuild (tests/unit/test_ompi.c, test_mpich.c).
 * Run with exactly 2 ranks; see README.md in this directory. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG_BYTES 1000000		/* rendezvous, contiguous */
#define VEC_INTS 100000			/* vector of 100000 ints, stride 2: 400000 bytes */

static void
fill(unsigned char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + seed);
}

int
main(int argc, char **argv)
{
	int rank, size, v = 0, sum = 0;
	unsigned char *buf, *buf2;
	MPI_Datatype vec, vec2;
	MPI_Comm half;
	MPI_Request rq[2];
	MPI_Status sts[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	buf = malloc(2 * BIG_BYTES);
	buf2 = malloc(2 * BIG_BYTES);
	fill(buf, 2 * BIG_BYTES, 1);
	fill(buf2, 2 * BIG_BYTES, 3);
	MPI_Type_vector(VEC_INTS, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	MPI_Type_vector(VEC_INTS / 2, 1, 3, MPI_INT, &vec2);	/* 200000 bytes */
	MPI_Type_commit(&vec2);

	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Send(buf, 10, MPI_BYTE, 1, 7, MPI_COMM_WORLD);		/* eager */
		MPI_Recv(buf2, 1000, MPI_BYTE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Ssend(buf, 100, MPI_BYTE, 1, 9, MPI_COMM_WORLD);		/* sync */
		MPI_Send(buf, BIG_BYTES, MPI_BYTE, 1, 10, MPI_COMM_WORLD);	/* rndv contig */
		MPI_Send(buf, 1, vec, 1, 11, MPI_COMM_WORLD);			/* rndv non-contig */
		MPI_Isend(buf, 1, vec, 1, 12, MPI_COMM_WORLD, &rq[0]);	/* two at once */
		MPI_Isend(buf2, 1, vec2, 1, 13, MPI_COMM_WORLD, &rq[1]);
		MPI_Waitall(2, rq, sts);
		MPI_Send(buf, 4 * (VEC_INTS / 2), MPI_BYTE, 1, 15, MPI_COMM_WORLD);	/* into a vector */
		MPI_Ssend(buf, 200000, MPI_BYTE, 1, 16, MPI_COMM_WORLD);	/* large sync */
	} else {
		MPI_Recv(buf2, 10, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(buf, 1000, MPI_BYTE, 0, 8, MPI_COMM_WORLD);		/* eager, 1 -> 0 */
		MPI_Recv(buf2, 100, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(buf2, BIG_BYTES, MPI_BYTE, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(buf2, 1, vec, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Irecv(buf2, 1, vec, 0, 12, MPI_COMM_WORLD, &rq[0]);
		MPI_Irecv(buf2 + BIG_BYTES, 1, vec2, 0, 13, MPI_COMM_WORLD, &rq[1]);
		MPI_Waitall(2, rq, sts);
		MPI_Recv(buf2, 1, vec2, 0, 15, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(buf2, 200000, MPI_BYTE, 0, 16, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	v = rank + 1;
	MPI_Bcast(buf, 1000, MPI_BYTE, 0, MPI_COMM_WORLD);
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Comm_split(MPI_COMM_WORLD, 0, 1 - rank, &half);	/* ranks reversed */
	if (rank == 0)
		MPI_Send(buf, 20, MPI_BYTE, 0, 14, half);	/* world 0 is rank 1 in half */
	else
		MPI_Recv(buf2, 20, MPI_BYTE, 1, 14, half, MPI_STATUS_IGNORE);
	MPI_Comm_free(&half);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("sum %d\n", sum);
	MPI_Type_free(&vec);
	MPI_Type_free(&vec2);
	free(buf);
	free(buf2);
	MPI_Finalize();
	return 0;
}
