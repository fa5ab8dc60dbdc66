/* wl: option parsing, timing and CPU work shared by the MPI workloads in tests/workloads/. */
#ifndef TESTS_WORKLOADS_WL_H
#define TESTS_WORKLOADS_WL_H

/*
 * Every workload takes the same options (each says which ones it uses in its usage text):
 *   -n N      problem size (elements, rows or tasks; workload-specific meaning)
 *   -i N      iterations
 *   -c MS     CPU work per iteration (or per task) in milliseconds of the rank's own CPU
 *             time, so a competing process or a CPU quota stretches it in wall time
 *   -m BYTES  message size in bytes (k, M suffixes allowed)
 *   -p MS     a second CPU amount (farm: the master's processing per result)
 *   -b        use a barrier instead of the workload's collective (solver)
 *   -a        concurrent transfers: nonblocking sends to several peers at once (farm's
 *             master, alltoall's hand-written exchange)
 *   -v FRAC   vary each task's CPU cost within +-FRAC of -c (farm; deterministic per task)
 *   -q        print only the "wall_s" line
 *   -h        usage
 * Rank 0 prints, after the timed part, lines "key value" and last "wall_s <seconds>"; the
 * timed part starts and ends with a barrier.
 */

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

struct wl_opts {
	long n;			/* problem size */
	long iters;		/* iterations */
	double compute_ms;	/* CPU milliseconds per iteration */
	double second_ms;	/* a second CPU amount in milliseconds (workload-specific) */
	long msg_bytes;		/* message size in bytes */
	int barrier;		/* -b given */
	int async;		/* -a given */
	double vary;		/* -v: relative spread of the CPU cost per task, 0..1 */
	int quiet;		/* -q given */
};

/* Print "name: msg" on stderr from every rank and abort the job. */
static inline void
wl_fail(const char *name, const char *msg, const char *arg)
{
	fprintf(stderr, "%s: %s '%s'\n", name, msg, arg);
	MPI_Abort(MPI_COMM_WORLD, 2);
	exit(2);
}

/* A strict non-negative integer with an optional k/M/G suffix (powers of 1024). */
static inline long
wl_long(const char *name, const char *arg, long max)
{
	char *end;
	long long v;
	long long unit = 1;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || v < 0)
		wl_fail(name, "not a non-negative integer:", arg);
	if (*end == 'k' || *end == 'K')
		unit = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		unit = 1024 * 1024, end++;
	else if (*end == 'g' || *end == 'G')
		unit = 1024LL * 1024 * 1024, end++;
	if (*end != '\0' || v > max / unit)
		wl_fail(name, "bad or too large value:", arg);
	return (long)(v * unit);
}

static inline double
wl_double(const char *name, const char *arg, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end != '\0' || !isfinite(v) || v < 0 || v > max)
		wl_fail(name, "not a number in range:", arg);
	return v;
}

/* Parse argv into o (which holds the workload's defaults on entry). On -h print usage from
 * rank 0 and exit 0 after MPI_Finalize; on a bad option abort the job with status 2. */
static inline void
wl_parse(int argc, char **argv, struct wl_opts *o, const char *name, const char *usage)
{
	int rank;
	int c;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	opterr = 0;
	while ((c = getopt(argc, argv, ":n:i:c:m:p:v:abqh")) != -1) {
		switch (c) {
		case 'n': o->n = wl_long(name, optarg, 1L << 40); break;
		case 'i': o->iters = wl_long(name, optarg, 1L << 40); break;
		case 'c': o->compute_ms = wl_double(name, optarg, 1e7); break;
		case 'p': o->second_ms = wl_double(name, optarg, 1e7); break;
		case 'm': o->msg_bytes = wl_long(name, optarg, 1L << 30); break;
		case 'v': o->vary = wl_double(name, optarg, 1); break;
		case 'a': o->async = 1; break;
		case 'b': o->barrier = 1; break;
		case 'q': o->quiet = 1; break;
		case 'h':
			if (rank == 0)
				fputs(usage, stdout);
			MPI_Finalize();
			exit(0);
		case ':':
			wl_fail(name, "option needs a value:", argv[optind - 1]);
			break;
		default:
			wl_fail(name, "unknown option:", argv[optind - 1]);
		}
	}
	if (optind < argc)
		wl_fail(name, "unexpected argument:", argv[optind]);
}

/* This thread's CPU time in seconds. */
static inline double
wl_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A sink the compiler cannot drop; the workloads print it so the work stays observable. */
static volatile double wl_sink_;

/* Burn `ms` milliseconds of this thread's CPU time in small arithmetic chunks. The amount of
 * work is fixed in CPU time, not wall time: under contention it takes longer to finish. */
static inline void
wl_compute(double ms)
{
	double until;
	double x = wl_sink_ + 1.0;

	if (ms <= 0)
		return;
	until = wl_cpu_s() + ms * 1e-3;
	do {
		for (int k = 0; k < 20000; k++)
			x = x * 0.999999 + 1e-7;
	} while (wl_cpu_s() < until);
	wl_sink_ = x;
}

/* A zero-filled buffer of n bytes (at least 1); aborts the job when memory runs out. */
static inline char *
wl_buf(const char *name, long n)
{
	char *p = calloc((size_t)(n > 0 ? n : 1), 1);

	if (p == NULL)
		wl_fail(name, "out of memory for a buffer of bytes:", "-m/-n");
	return p;
}

/* Start the timed part: a barrier, then the start time. */
static inline double
wl_start(void)
{
	MPI_Barrier(MPI_COMM_WORLD);
	return MPI_Wtime();
}

/* End the timed part on every rank; rank 0 prints the options and "wall_s". */
static inline void
wl_finish(const char *name, const struct wl_opts *o, double t0)
{
	int rank, size;
	double wall_s;

	MPI_Barrier(MPI_COMM_WORLD);
	wall_s = MPI_Wtime() - t0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank != 0)
		return;
	if (!o->quiet)
		printf("workload %s\nranks %d\nn %ld\niters %ld\ncompute_ms %g\nmsg_bytes %ld\n",
		       name, size, o->n, o->iters, o->compute_ms, o->msg_bytes);
	printf("wall_s %.6f\n", wall_s);
	fflush(stdout);
}

#endif
