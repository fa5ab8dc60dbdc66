/* ring: a token of -m bytes passed around the ranks, each computing before it forwards. */
#include "wl.h"

static const char usage[] =
	"usage: ring [-i ITERS] [-c MS] [-m BYTES] [-q]\n"
	"Rank 0 starts a token of -m bytes; each rank burns -c ms of CPU then sends it to the\n"
	"next rank; -i trips around the ring. With one rank the token goes to itself.\n"
	"  -i ITERS  trips around the ring (default 100)\n"
	"  -c MS     CPU milliseconds per hop (default 0)\n"
	"  -m BYTES  token size (default 1k)\n"
	"example: mpirun -np 3 ring -i 20 -m 1M\n";

int
main(int argc, char **argv)
{
	struct wl_opts o = { .n = 0, .iters = 100, .compute_ms = 0, .msg_bytes = 1024 };
	int rank, size, next, prev;
	char *buf;
	double t0;

	MPI_Init(&argc, &argv);
	wl_parse(argc, argv, &o, "ring", usage);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;
	buf = wl_buf("ring", o.msg_bytes);

	t0 = wl_start();
	for (long it = 0; it < o.iters; it++) {
		if (rank == 0) {
			wl_compute(o.compute_ms);
			buf[0] = (char)it;
			if (size == 1)
				continue;
			MPI_Send(buf, (int)o.msg_bytes, MPI_BYTE, next, 7, MPI_COMM_WORLD);
			MPI_Recv(buf, (int)o.msg_bytes, MPI_BYTE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, (int)o.msg_bytes, MPI_BYTE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			wl_compute(o.compute_ms);
			MPI_Send(buf, (int)o.msg_bytes, MPI_BYTE, next, 7, MPI_COMM_WORLD);
		}
	}
	wl_finish("ring", &o, t0);
	MPI_Finalize();
	return 0;
}
