/* stencil: a 2-D Jacobi stencil split by rows, with a halo exchange with both neighbours per iteration. */
#include "wl.h"

static const char usage[] =
	"usage: stencil [-n N] [-i ITERS] [-c MS] [-m BYTES] [-q]\n"
	"An N x N grid split into row blocks; each iteration exchanges one halo row with the\n"
	"rank above and below (non-periodic), sweeps the block, then burns -c ms of CPU.\n"
	"  -n N      grid side (default 512)\n"
	"  -i ITERS  iterations (default 100)\n"
	"  -c MS     extra CPU milliseconds per iteration (default 1)\n"
	"  -m BYTES  halo message size (default N*8, the row)\n"
	"example: mpirun -np 4 stencil -n 1024 -i 200 -c 2\n";

int
main(int argc, char **argv)
{
	struct wl_opts o = { .n = 512, .iters = 100, .compute_ms = 1, .msg_bytes = -1 };
	int rank, size;
	long rows, cols;
	double *a, *b;
	char *sbuf[2], *rbuf[2];
	double t0;

	MPI_Init(&argc, &argv);
	wl_parse(argc, argv, &o, "stencil", usage);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (o.n < 1)
		o.n = 1;
	if (o.msg_bytes < 0)
		o.msg_bytes = o.n * (long)sizeof(double);
	cols = o.n;
	rows = o.n / size + (rank < o.n % size);
	a = (double *)wl_buf("stencil", (rows + 2) * cols * (long)sizeof(double));
	b = (double *)wl_buf("stencil", (rows + 2) * cols * (long)sizeof(double));
	for (int k = 0; k < 2; k++) {
		sbuf[k] = wl_buf("stencil", o.msg_bytes);
		rbuf[k] = wl_buf("stencil", o.msg_bytes);
	}
	for (long r = 1; r <= rows; r++)
		for (long c = 0; c < cols; c++)
			a[r * cols + c] = (double)((rank * 31 + r * 7 + c) % 13);

	t0 = wl_start();
	for (long it = 0; it < o.iters; it++) {
		int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
		int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
		MPI_Request req[4];
		MPI_Status sts[4];
		long hb = o.msg_bytes < cols * (long)sizeof(double) ? o.msg_bytes : cols * (long)sizeof(double);

		memcpy(sbuf[0], &a[1 * cols], (size_t)hb);
		memcpy(sbuf[1], &a[rows * cols], (size_t)hb);
		MPI_Irecv(rbuf[0], (int)o.msg_bytes, MPI_BYTE, up, 1, MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(rbuf[1], (int)o.msg_bytes, MPI_BYTE, down, 0, MPI_COMM_WORLD, &req[1]);
		MPI_Isend(sbuf[0], (int)o.msg_bytes, MPI_BYTE, up, 0, MPI_COMM_WORLD, &req[2]);
		MPI_Isend(sbuf[1], (int)o.msg_bytes, MPI_BYTE, down, 1, MPI_COMM_WORLD, &req[3]);
		MPI_Waitall(4, req, sts);
		if (up != MPI_PROC_NULL)
			memcpy(&a[0], rbuf[0], (size_t)hb);
		if (down != MPI_PROC_NULL)
			memcpy(&a[(rows + 1) * cols], rbuf[1], (size_t)hb);
		for (long r = 1; r <= rows; r++)
			for (long c = 1; c + 1 < cols; c++)
				b[r * cols + c] = 0.25 * (a[(r - 1) * cols + c] + a[(r + 1) * cols + c] +
							  a[r * cols + c - 1] + a[r * cols + c + 1]);
		{
			double *t = a;
			a = b;
			b = t;
		}
		wl_compute(o.compute_ms);
	}
	wl_finish("stencil", &o, t0);
	MPI_Finalize();
	return 0;
}
