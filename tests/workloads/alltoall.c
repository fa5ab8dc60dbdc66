/* alltoall: an all-to-all exchange per iteration between compute phases. */
#include "wl.h"

static const char usage[] =
	"usage: alltoall [-i ITERS] [-c MS] [-m BYTES] [-a] [-q]\n"
	"Each iteration burns -c ms of CPU, then every rank sends -m bytes to every other rank\n"
	"with MPI_Alltoall.\n"
	"  -a        exchange by hand instead: MPI_Irecv from and MPI_Isend to every other rank\n"
	"            at once, then MPI_Waitall (all transfers of an iteration travel together)\n"
	"  -i ITERS  iterations (default 50)\n"
	"  -c MS     CPU milliseconds per iteration (default 1)\n"
	"  -m BYTES  bytes per rank pair per iteration (default 16k)\n"
	"example: mpirun -np 4 alltoall -i 100 -m 64k -c 5\n"
	"         mpirun -np 4 alltoall -a -i 20 -m 2M -c 200\n";

/* The all-to-all by hand: every receive and send posted at once; req and sts hold 2 * size. */
static void
exchange(char *sbuf, char *rbuf, long len, int size, MPI_Request *req, MPI_Status *sts)
{
	int rank, n = 0;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	memcpy(rbuf + (long)rank * len, sbuf + (long)rank * len, (size_t)len);
	for (int k = 1; k < size; k++) {
		int from = (rank + size - k) % size;

		MPI_Irecv(rbuf + (long)from * len, (int)len, MPI_BYTE, from, 5, MPI_COMM_WORLD, &req[n++]);
	}
	for (int k = 1; k < size; k++) {
		int to = (rank + k) % size;

		MPI_Isend(sbuf + (long)to * len, (int)len, MPI_BYTE, to, 5, MPI_COMM_WORLD, &req[n++]);
	}
	MPI_Waitall(n, req, sts);
}

int
main(int argc, char **argv)
{
	struct wl_opts o = { .n = 0, .iters = 50, .compute_ms = 1, .msg_bytes = 16384 };
	int size;
	char *sbuf, *rbuf;
	MPI_Request *req;
	MPI_Status *sts;
	double t0;

	MPI_Init(&argc, &argv);
	wl_parse(argc, argv, &o, "alltoall", usage);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (o.msg_bytes > (1L << 30) / size)
		wl_fail("alltoall", "message too large for this many ranks:", "-m");
	sbuf = wl_buf("alltoall", o.msg_bytes * size);
	rbuf = wl_buf("alltoall", o.msg_bytes * size);
	req = (MPI_Request *)wl_buf("alltoall", 2L * size * (long)sizeof *req);
	sts = (MPI_Status *)wl_buf("alltoall", 2L * size * (long)sizeof *sts);

	t0 = wl_start();
	for (long it = 0; it < o.iters; it++) {
		wl_compute(o.compute_ms);
		sbuf[0] = (char)it;
		if (o.async)
			exchange(sbuf, rbuf, o.msg_bytes, size, req, sts);
		else
			MPI_Alltoall(sbuf, (int)o.msg_bytes, MPI_BYTE, rbuf, (int)o.msg_bytes, MPI_BYTE,
				     MPI_COMM_WORLD);
	}
	wl_finish("alltoall", &o, t0);
	MPI_Finalize();
	return 0;
}
