/* farm: a master hands out tasks on request and processes the results; slaves compute them. */
#include "wl.h"

enum { TAG_REQ = 1, TAG_TASK = 2, TAG_STOP = 3 };

static const char usage[] =
	"usage: farm [-n TASKS] [-c MS] [-p MS] [-m BYTES] [-q]\n"
	"Rank 0 is the master: a slave sends a request (carrying its previous result), the\n"
	"master processes the result (-p ms of CPU) and answers with the next task of -m bytes\n"
	"or a stop. Each task costs the slave -c ms of CPU. Needs at least 2 ranks.\n"
	"  -n TASKS  number of tasks (default 200)\n"
	"  -c MS     slave CPU milliseconds per task (default 5)\n"
	"  -p MS     master CPU milliseconds per result (default 0.1)\n"
	"  -m BYTES  task and result size (default 4k)\n"
	"example: mpirun -np 4 farm -n 500 -c 10 -m 64k\n";

int
main(int argc, char **argv)
{
	struct wl_opts o = { .n = 200, .iters = 1, .compute_ms = 5, .second_ms = 0.1, .msg_bytes = 4096 };
	int rank, size;
	char *buf;
	double t0;
	long done = 0;

	MPI_Init(&argc, &argv);
	wl_parse(argc, argv, &o, "farm", usage);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2)
		wl_fail("farm", "needs at least 2 ranks, got", "1");
	buf = wl_buf("farm", o.msg_bytes);

	t0 = wl_start();
	if (rank == 0) {
		long next = 0;		/* tasks handed out */
		int stopped = 0;	/* slaves told to stop */
		MPI_Status st;

		while (stopped < size - 1) {
			MPI_Recv(buf, (int)o.msg_bytes, MPI_BYTE, MPI_ANY_SOURCE, TAG_REQ, MPI_COMM_WORLD, &st);
			if (buf[0] == 1) {	/* carries a result */
				wl_compute(o.second_ms);
				done++;
			}
			if (next < o.n) {
				buf[0] = 0;
				next++;
				MPI_Send(buf, (int)o.msg_bytes, MPI_BYTE, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
			} else {
				MPI_Send(buf, 0, MPI_BYTE, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
				stopped++;
			}
		}
	} else {
		MPI_Status st;

		buf[0] = 0;	/* the first request carries no result */
		for (;;) {
			MPI_Send(buf, (int)o.msg_bytes, MPI_BYTE, 0, TAG_REQ, MPI_COMM_WORLD);
			MPI_Recv(buf, (int)o.msg_bytes, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			if (st.MPI_TAG == TAG_STOP)
				break;
			wl_compute(o.compute_ms);
			buf[0] = 1;
		}
	}
	wl_finish("farm", &o, t0);
	if (rank == 0 && !o.quiet)
		printf("results %ld\n", done);
	MPI_Finalize();
	return 0;
}
