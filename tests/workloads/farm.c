/* farm: a master hands out tasks on request and processes the results; slaves compute them. */
#include "wl.h"

enum { TAG_REQ = 1, TAG_TASK = 2, TAG_STOP = 3 };

static const char usage[] =
	"usage: farm [-n TASKS] [-c MS] [-p MS] [-m BYTES] [-v FRAC] [-a] [-q]\n"
	"Rank 0 is the master: a slave sends a request (carrying its previous result), the\n"
	"master processes the result (-p ms of CPU) and answers with the next task of -m bytes\n"
	"or a stop. Each task costs the slave -c ms of CPU. Needs at least 2 ranks.\n"
	"  -n TASKS  number of tasks (default 200)\n"
	"  -c MS     slave CPU milliseconds per task (default 5)\n"
	"  -p MS     master CPU milliseconds per result (default 0.1)\n"
	"  -m BYTES  task and result size (default 4k)\n"
	"  -v FRAC   task costs vary within +-FRAC of -c, fixed per task (default 0)\n"
	"  -a        the master answers with MPI_Isend and goes on serving other requests while\n"
	"            the task is in flight, so tasks to several slaves travel at once\n"
	"            (default: blocking MPI_Send, one answer at a time)\n"
	"example: mpirun -np 4 farm -n 500 -c 10 -m 64k\n"
	"         mpirun -np 4 farm -a -n 40 -c 150 -v 0.5 -m 2M\n";

/* The CPU cost of task k: -c, spread by a fixed pseudo-random amount within +-vary. */
static double
task_ms(const struct wl_opts *o, long k)
{
	uint32_t h = (uint32_t)k * 2654435761u;
	double u = (double)((h >> 8) & 0xffff) / 65535.0 * 2 - 1;	/* -1..1 */

	return o->compute_ms * (1 + o->vary * u);
}

/* Task k's index travels in the task after the flag byte when the task is long enough. */
static void
put_index(char *buf, long len, long k)
{
	if (len >= 1 + (long)sizeof k)
		memcpy(buf + 1, &k, sizeof k);
}

static long
get_index(const char *buf, int len, long fallback)
{
	long k = fallback;

	if (len >= 1 + (int)sizeof k)
		memcpy(&k, buf + 1, sizeof k);
	return k;
}

/* The master with blocking answers: one request, one MPI_Send, then the next request. */
static long
master_blocking(const struct wl_opts *o, int size, char *buf)
{
	long next = 0, done = 0;	/* tasks handed out, results processed */
	int stopped = 0;		/* slaves told to stop */
	MPI_Status st;

	while (stopped < size - 1) {
		MPI_Recv(buf, (int)o->msg_bytes, MPI_BYTE, MPI_ANY_SOURCE, TAG_REQ, MPI_COMM_WORLD, &st);
		if (buf[0] == 1) {	/* carries a result */
			wl_compute(o->second_ms);
			done++;
		}
		if (next < o->n) {
			buf[0] = 0;
			put_index(buf, o->msg_bytes, next);
			next++;
			MPI_Send(buf, (int)o->msg_bytes, MPI_BYTE, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
		} else {
			MPI_Send(buf, 0, MPI_BYTE, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
			stopped++;
		}
	}
	return done;
}

/* The master with concurrent answers: a request buffer and a task buffer per slave; each
 * answer is an MPI_Isend, completed before that slave's next answer, and the master keeps
 * serving requests while earlier answers are still on the wire. */
static long
master_async(const struct wl_opts *o, int size)
{
	int ns = size - 1;		/* slaves */
	long next = 0, done = 0;
	int active = ns;		/* slaves not yet told to stop */
	char **rbuf = calloc((size_t)ns, sizeof *rbuf), **sbuf = calloc((size_t)ns, sizeof *sbuf);
	MPI_Request *rreq = calloc((size_t)ns, sizeof *rreq), *sreq = calloc((size_t)ns, sizeof *sreq);
	MPI_Status *sts = calloc((size_t)ns, sizeof *sts);

	if (rbuf == NULL || sbuf == NULL || rreq == NULL || sreq == NULL || sts == NULL)
		wl_fail("farm", "out of memory for slaves:", "-np");
	for (int s = 0; s < ns; s++) {
		rbuf[s] = wl_buf("farm", o->msg_bytes);
		sbuf[s] = wl_buf("farm", o->msg_bytes);
		sreq[s] = MPI_REQUEST_NULL;
		MPI_Irecv(rbuf[s], (int)o->msg_bytes, MPI_BYTE, s + 1, TAG_REQ, MPI_COMM_WORLD, &rreq[s]);
	}
	while (active > 0) {
		int s;
		MPI_Status st;

		MPI_Waitany(ns, rreq, &s, &st);
		if (s == MPI_UNDEFINED)
			break;
		if (rbuf[s][0] == 1) {
			wl_compute(o->second_ms);
			done++;
		}
		MPI_Wait(&sreq[s], MPI_STATUS_IGNORE);
		if (next < o->n) {
			sbuf[s][0] = 0;
			put_index(sbuf[s], o->msg_bytes, next);
			next++;
			MPI_Isend(sbuf[s], (int)o->msg_bytes, MPI_BYTE, s + 1, TAG_TASK, MPI_COMM_WORLD, &sreq[s]);
			MPI_Irecv(rbuf[s], (int)o->msg_bytes, MPI_BYTE, s + 1, TAG_REQ, MPI_COMM_WORLD, &rreq[s]);
		} else {
			MPI_Isend(sbuf[s], 0, MPI_BYTE, s + 1, TAG_STOP, MPI_COMM_WORLD, &sreq[s]);
			active--;
		}
	}
	MPI_Waitall(ns, sreq, sts);
	for (int s = 0; s < ns; s++) {
		free(rbuf[s]);
		free(sbuf[s]);
	}
	free(rbuf);
	free(sbuf);
	free(rreq);
	free(sreq);
	free(sts);
	return done;
}

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
		done = o.async ? master_async(&o, size) : master_blocking(&o, size, buf);
	} else {
		MPI_Status st;
		long mine = 0;	/* tasks this slave has done */

		buf[0] = 0;	/* the first request carries no result */
		for (;;) {
			int len;

			MPI_Send(buf, (int)o.msg_bytes, MPI_BYTE, 0, TAG_REQ, MPI_COMM_WORLD);
			MPI_Recv(buf, (int)o.msg_bytes, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			if (st.MPI_TAG == TAG_STOP)
				break;
			MPI_Get_count(&st, MPI_BYTE, &len);
			wl_compute(task_ms(&o, get_index(buf, len, mine * size + rank)));
			mine++;
			buf[0] = 1;
		}
	}
	wl_finish("farm", &o, t0);
	if (rank == 0 && !o.quiet)
		printf("results %ld\n", done);
	MPI_Finalize();
	return 0;
}
