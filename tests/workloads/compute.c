/* compute: CPU work only, no communication inside the timed loop. */
#include "wl.h"

static const char usage[] =
	"usage: compute [-i ITERS] [-c MS] [-q]\n"
	"Each rank burns -i times -c ms of its own CPU time; the only messages are the\n"
	"barriers around the timed part. Under a competing process its wall time grows.\n"
	"  -i ITERS  iterations (default 100)\n"
	"  -c MS     CPU milliseconds per iteration (default 10)\n"
	"example: mpirun -np 2 compute -i 50 -c 20\n";

int
main(int argc, char **argv)
{
	struct wl_opts o = { .n = 0, .iters = 100, .compute_ms = 10, .msg_bytes = 0 };
	double t0;

	MPI_Init(&argc, &argv);
	wl_parse(argc, argv, &o, "compute", usage);
	t0 = wl_start();
	for (long it = 0; it < o.iters; it++)
		wl_compute(o.compute_ms);
	wl_finish("compute", &o, t0);
	MPI_Finalize();
	return 0;
}
