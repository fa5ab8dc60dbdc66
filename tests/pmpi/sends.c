/* sends.c: a test program for pmpi_log.c: one of each kind of send the wrapper records,
 * some on a split communicator whose ranks are not the world's, with the tags and sizes
 * tests/e2e/pmpi_truth.sh expects in the logs, and the receives, waits and collectives whose
 * intervals it expects. Run on 4 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	int me, n, buf[64] = {0}, rbuf[64], bsz = 4096;
	MPI_Comm rev;		/* world reversed: rank n-1-me */
	MPI_Request req[2];
	void *bbuf = malloc(bsz);

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n != 4) {
		if (me == 0)
			fprintf(stderr, "sends: run on 4 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Buffer_attach(bbuf, bsz);
	if (me == 0) {
		MPI_Send(buf, 10, MPI_INT, 1, 11, MPI_COMM_WORLD);		/* 0->1 tag 11, 40 B */
		MPI_Ssend(buf, 2, MPI_DOUBLE, 1, 12, MPI_COMM_WORLD);		/* 0->1 tag 12, 16 B */
		MPI_Bsend(buf, 3, MPI_INT, 1, 13, MPI_COMM_WORLD);		/* 0->1 tag 13, 12 B */
		MPI_Isend(buf, 64, MPI_INT, 2, 14, MPI_COMM_WORLD, &req[0]);	/* 0->2 tag 14, 256 B */
		MPI_Wait(&req[0], MPI_STATUS_IGNORE);
		MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 15, MPI_COMM_WORLD);	/* not logged */
	} else if (me == 1) {
		MPI_Recv(rbuf, 10, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(rbuf, 2, MPI_DOUBLE, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(rbuf, 3, MPI_INT, 0, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (me == 2) {
		MPI_Recv(rbuf, 64, MPI_INT, 0, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	/* persistent: 2 -> 3 three times, tag 21, 20 B */
	if (me == 2) {
		MPI_Send_init(buf, 5, MPI_INT, 3, 21, MPI_COMM_WORLD, &req[0]);
		for (int i = 0; i < 3; i++) {
			MPI_Start(&req[0]);
			MPI_Wait(&req[0], MPI_STATUS_IGNORE);
		}
		MPI_Request_free(&req[0]);
	} else if (me == 3) {
		for (int i = 0; i < 3; i++)
			MPI_Recv(rbuf, 5, MPI_INT, 2, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	/* on the reversed communicator: sendrecv with the next rank there, tag 31, 8 B; world
	 * destinations are me-1 (mod 4) */
	MPI_Comm_split(MPI_COMM_WORLD, 0, n - 1 - me, &rev);
	{
		int r, to, from;

		MPI_Comm_rank(rev, &r);
		to = (r + 1) % n;
		from = (r + n - 1) % n;
		MPI_Sendrecv(buf, 2, MPI_INT, to, 31, rbuf, 2, MPI_INT, from, 31, rev, MPI_STATUS_IGNORE);
	}
	MPI_Allreduce(MPI_IN_PLACE, buf, 4, MPI_INT, MPI_SUM, rev);
	MPI_Bcast(buf, 8, MPI_INT, 3, rev);	/* root: rev rank 3 = world rank 0 */
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Comm_free(&rev);
	MPI_Buffer_detach(&bbuf, &bsz);
	free(bbuf);
	MPI_Finalize();
	return 0;
}
