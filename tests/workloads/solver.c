/* solver: a synchronous iterative solver, a local sweep then an allreduce (or barrier) per iteration. */
#include "wl.h"

static const char usage[] =
	"usage: solver [-n N] [-i ITERS] [-c MS] [-m BYTES] [-b] [-q]\n"
	"Each rank relaxes its share of an N-element vector, burns -c ms of CPU, then all ranks\n"
	"agree on the residual with MPI_Allreduce of -m bytes (doubles) or, with -b, wait at\n"
	"an MPI_Barrier.\n"
	"  -n N      vector length over all ranks (default 100000)\n"
	"  -i ITERS  iterations (default 100)\n"
	"  -c MS     extra CPU milliseconds per iteration (default 1)\n"
	"  -m BYTES  allreduce size (default 8, one double)\n"
	"  -b        barrier instead of allreduce\n"
	"example: mpirun -np 4 solver -n 1000000 -i 50 -c 2\n";

int
main(int argc, char **argv)
{
	struct wl_opts o = { .n = 100000, .iters = 100, .compute_ms = 1, .msg_bytes = 8 };
	int rank, size;
	long local, count;
	double *x, *in, *out;
	double t0;

	MPI_Init(&argc, &argv);
	wl_parse(argc, argv, &o, "solver", usage);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	local = o.n / size + (rank < o.n % size);
	count = o.msg_bytes / (long)sizeof(double);
	if (count < 1)
		count = 1;
	x = (double *)wl_buf("solver", (local + 2) * (long)sizeof(double));
	in = (double *)wl_buf("solver", count * (long)sizeof(double));
	out = (double *)wl_buf("solver", count * (long)sizeof(double));
	for (long k = 0; k < local + 2; k++)
		x[k] = (double)((k * 17 + rank) % 11);

	t0 = wl_start();
	for (long it = 0; it < o.iters; it++) {
		double res = 0;

		for (long k = 1; k <= local; k++) {
			double nx = 0.5 * (x[k - 1] + x[k + 1]);
			res += fabs(nx - x[k]);
			x[k] = nx;
		}
		wl_compute(o.compute_ms);
		if (o.barrier) {
			MPI_Barrier(MPI_COMM_WORLD);
		} else {
			for (long k = 0; k < count; k++)
				in[k] = res;
			MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		}
	}
	wl_finish("solver", &o, t0);
	if (rank == 0 && !o.quiet && !o.barrier)
		printf("residual %g\n", out[0]);
	MPI_Finalize();
	return 0;
}
