/* finalize_hang: a test program for tests/e2e/parse_tail_testbed.sh, never part of contend.
 * Each rank exchanges a message with both its ring neighbours ITERS times, computing MS
 * milliseconds between exchanges, then spins on its CPU instead of returning from
 * MPI_Finalize, as MPICH 4.0.2 over UCX does on the testbed when it hangs there, until the
 * job is killed; or, with SPIN_S > 0, spins that many seconds and then finalizes and
 * exits 0 (a long final computation after the last message, which is the program's own).
 * usage: finalize_hang ITERS MS [SPIN_S] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Burn ms milliseconds of CPU. */
static void
compute(double ms)
{
	double end = now_s() + ms / 1e3;
	volatile double x = 1;

	while (now_s() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 1.0000001 + 1e-9;
}

int
main(int argc, char **argv)
{
	int rank, size;
	long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 20;
	double ms = argc > 2 ? strtod(argv[2], NULL) : 50;
	double spin_s = argc > 3 ? strtod(argv[3], NULL) : 0;
	char out[1024] = { 0 }, in[2][1024];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (long it = 0; it < iters; it++) {
		int next = (rank + 1) % size, prev = (rank + size - 1) % size;

		compute(ms);
		MPI_Sendrecv(out, sizeof out, MPI_BYTE, next, 1, in[0], sizeof in[0], MPI_BYTE, prev, 1,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(out, sizeof out, MPI_BYTE, prev, 2, in[1], sizeof in[1], MPI_BYTE, next, 2,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	if (rank == 0)
		printf("finalize_hang: done after %ld exchanges\n", iters);
	fflush(stdout);
	if (spin_s > 0) {
		compute(spin_s * 1e3);
		MPI_Finalize();
		return 0;
	}
	for (;;)	/* the hang: killed from outside */
		compute(1000);
	return 0;
}
