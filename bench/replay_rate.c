/* replay_rate: how fast the trace replay (predict/replay.h) builds its trace and replays it,
 * apart from loading the run: CPU seconds of replay_trace_init and of replay_run, and the
 * events per second, for both readings of a run.
 *
 *	replay_rate RUN [ROUNDS]
 *
 * Loads RUN's profile once, then ROUNDS times (default 3) and for each reading: builds the
 * trace and replays it once, the ranks of the first host stretched x2 (what `contend predict`
 * does under one CPU-bound competitor on a node; explain replays the measured trace once per
 * cause). Prints per reading "kind events E init_s I run_s R init_eps X run_eps Y total_eps Z"
 * with the times the smallest of the rounds (CPU time of the process: a shared machine's
 * other jobs do not count, its caches do). Exit 0, 1 when the run does not load or the
 * replay fails, 2 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/err.h"
#include "lib/xalloc.h"
#include "predict/profile.h"
#include "predict/replay.h"

/* CPU seconds of this process. */
static double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	static const char *const names[2] = { "dedicated", "measured" };
	struct prof p;
	struct err e = { 0 };
	double *f;
	char *end = NULL;
	long rounds = 3;

	if (argc < 2 || argc > 3 || (argc == 3 && ((rounds = strtol(argv[2], &end, 10)) < 1 || *end != '\0'))) {
		fprintf(stderr, "usage: replay_rate RUN [ROUNDS]\n");
		return 2;
	}
	if (prof_load(&p, argv[1], &e) < 0) {
		fprintf(stderr, "replay_rate: %s\n", e.msg);
		prof_free(&p);
		return 1;
	}
	f = xmallocarray((size_t)p.nranks + 1, sizeof *f);
	for (int i = 0; i < p.nranks; i++)
		f[i] = strcmp(p.ranks[i].host, p.ranks[0].host) == 0 ? 2 : 1;
	for (int kind = 0; kind < 2; kind++) {
		double init_s = -1, run_s = -1;
		long nev = 0;

		for (long r = 0; r < rounds; r++) {
			struct replay_trace t;
			struct replay_out out = { 0 };
			double t0 = cpu_s(), t1, t2;

			replay_trace_init(&t, &p, kind == 0 ? REPLAY_DEDICATED : REPLAY_MEASURED);
			t1 = cpu_s();
			if (replay_run(&t, &(struct replay_in){ .busy_f = f }, &out, &e) < 0) {
				fprintf(stderr, "replay_rate: %s\n", e.msg);
				replay_trace_free(&t);
				free(f);
				prof_free(&p);
				return 1;
			}
			t2 = cpu_s();
			nev = t.nev;
			replay_trace_free(&t);
			if (init_s < 0 || t1 - t0 < init_s)
				init_s = t1 - t0;
			if (run_s < 0 || t2 - t1 < run_s)
				run_s = t2 - t1;
		}
		printf("%s events %ld init_s %.3f run_s %.3f init_eps %.0f run_eps %.0f total_eps %.0f\n",
		       names[kind], nev, init_s, run_s, init_s > 0 ? (double)nev / init_s : 0,
		       run_s > 0 ? (double)nev / run_s : 0,
		       init_s + run_s > 0 ? (double)nev / (init_s + run_s) : 0);
	}
	free(f);
	prof_free(&p);
	return 0;
}
