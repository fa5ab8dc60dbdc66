/* alltoall: an all-to-all exchange per iteration between compute phases. */
#include "wl.h"

static const char usage[] =
	"usage: alltoall [-i ITERS] [-c MS] [-m BYTES] [-q]\n"
	"Each iteration burns -c ms of CPU, then every rank sends -m bytes to every other rank\n"
	"with MPI_Alltoall.\n"
	"  -i ITERS  iterations (default 50)\n"
	"  -c MS     CPU milliseconds per iteration (default 1)\n"
	"  -m BYTES  bytes per rank pair per iteration (default 16k)\n"
	"example: mpirun -np 4 alltoall -i 100 -m 64k -c 5\n";

int
main(int argc, char **argv)
{
	struct wl_opts o = { .n = 0, .iters = 50, .compute_ms = 1, .msg_bytes = 16384 };
	int size;
	char *sbuf, *rbuf;
	double t0;

	MPI_Init(&argc, &argv);
	wl_parse(argc, argv, &o, "alltoall", usage);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (o.msg_bytes > (1L << 30) / size)
		wl_fail("alltoall", "message too large for this many ranks:", "-m");
	sbuf = wl_buf("alltoall", o.msg_bytes * size);
	rbuf = wl_buf("alltoall", o.msg_bytes * size);

	t0 = wl_start();
	for (long it = 0; it < o.iters; it++) {
		wl_compute(o.compute_ms);
		sbuf[0] = (char)it;
		MPI_Alltoall(sbuf, (int)o.msg_bytes, MPI_BYTE, rbuf, (int)o.msg_bytes, MPI_BYTE,
			     MPI_COMM_WORLD);
	}
	wl_finish("alltoall", &o, t0);
	MPI_Finalize();
	return 0;
}
