/* calib: paper 000's delay_comm curves measured on the testbed (Section 4's benchmark). */
#include "predict/calib.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/sortnum.h"

extern char **environ;

#define OUT_KEEP 2048	/* bytes of a command's output kept (for the probe's line, messages) */

void
calib_opts_default(struct calib_opts *o)
{
	memset(o, 0, sizeof *o);
	o->exe = "contend";
	o->instance = 0;
	o->ws = "ws1";
	o->peer = "ws2";
	o->max_i = 3;
	o->probe_cpu_ms = 300;
	o->reps = 1;
	o->uncapped = true;
	calib_opts_rates(o, 4, 8e6, 512e6);
}

void
calib_opts_rates(struct calib_opts *o, int n, double lo_bps, double hi_bps)
{
	if (n < 4)
		n = 4;
	if (n > CALIB_MAX_RATES)
		n = CALIB_MAX_RATES;
	o->nrates = n;
	for (int j = 0; j < n; j++)
		o->rates_bps[j] = lo_bps * pow(hi_bps / lo_bps, (double)j / (n - 1));
}

int64_t
calib_probe(double cpu_ms)
{
	static volatile double sink;
	double x = sink + 1;
	int64_t t0 = clock_mono_ns();
	int64_t until = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (int64_t)(cpu_ms * 1e6);

	/* a fixed amount of CPU time, like paper 000's CPU-bound SOR: competitors stretch its
	 * wall time */
	do {
		for (int k = 0; k < 20000; k++)
			x = x * 0.999999 + 1e-7;
	} while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < until);
	sink = x;
	return clock_mono_ns() - t0;
}

/* Run argv (no shell) to completion, its stdout and stderr into out (NUL-terminated, at most
 * OUT_KEEP bytes kept). Returns 0 when it exited with 0, else -E_IO with e naming what. */
static int
run(char *const argv[], char *out, struct err *e)
{
	posix_spawn_file_actions_t fa;
	int fd[2], st, rc;
	size_t n = 0;
	pid_t pid;

	out[0] = '\0';
	if (pipe(fd) < 0)
		return err_sys(e, E_IO, "cannot make a pipe for '%s'", argv[0]);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc != 0) {
		close(fd[0]);
		errno = rc;
		return err_sys(e, E_IO, "cannot run '%s'", argv[0]);
	}
	for (;;) {
		char buf[512];
		ssize_t r = read(fd[0], buf, sizeof buf);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (ssize_t j = 0; j < r && n + 1 < OUT_KEEP; j++)
			out[n++] = buf[j];
	}
	out[n] = '\0';
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return err_sys(e, E_IO, "cannot wait for '%s'", argv[0]);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	{
		char *nl = strchr(out, '\n');

		if (nl != NULL)
			*nl = '\0';
	}
	return err_set(e, E_IO, "'%s %s %s' failed (%s %d): %s", argv[0], argv[1], argv[4] ? argv[4] : "",
		       WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
		       out[0] ? out : "no message");
}

/* `contend testbed --instance K ARGS...` (at most 6 ARGS). */
static int
testbed(const struct calib_opts *o, char *out, struct err *e, const char *a1, const char *a2,
	const char *a3, const char *a4, const char *a5, const char *a6)
{
	char inst[16];
	char *av[12];
	char out_local[OUT_KEEP];

	snprintf(inst, sizeof inst, "%d", o->instance);
	av[0] = (char *)o->exe;
	av[1] = "testbed";
	av[2] = "--instance";
	av[3] = inst;
	av[4] = (char *)a1;
	av[5] = (char *)a2;
	av[6] = (char *)a3;
	av[7] = (char *)a4;
	av[8] = (char *)a5;
	av[9] = (char *)a6;
	av[10] = NULL;
	return run(av, out ? out : out_local, e);
}

/* One probe inside the workstation; its wall time from its own "wall_ns N" line. */
static int
probe(const struct calib_opts *o, int64_t *t_ns, struct err *e)
{
	char out[OUT_KEEP], ms[32];
	const char *p;
	int rc;

	snprintf(ms, sizeof ms, "%g", o->probe_cpu_ms);
	{
		char inst[16];
		char *av[12];

		snprintf(inst, sizeof inst, "%d", o->instance);
		av[0] = (char *)o->exe;
		av[1] = "testbed";
		av[2] = "--instance";
		av[3] = inst;
		av[4] = "exec";
		av[5] = (char *)o->ws;
		av[6] = "--";
		av[7] = (char *)o->exe;
		av[8] = "predict";
		av[9] = "--probe-cpu";
		av[10] = ms;
		av[11] = NULL;
		if ((rc = run(av, out, e)) < 0)
			return rc;
	}
	p = strstr(out, "wall_ns ");
	if (p == NULL || sscanf(p + 8, "%" SCNd64, t_ns) != 1 || *t_ns <= 0)
		return err_set(e, E_IO, "the probe in '%s' printed no wall time: '%.80s'", o->ws, out);
	return 0;
}

static int
probe_median(const struct calib_opts *o, int64_t *t_ns, struct err *e)
{
	int64_t v[32];
	int n = o->reps < 1 ? 1 : o->reps > 32 ? 32 : o->reps;
	int rc;

	for (int j = 0; j < n; j++)
		if ((rc = probe(o, &v[j], e)) < 0)
			return rc;
	qsort(v, (size_t)n, sizeof *v, sortnum_cmp_i64);
	*t_ns = v[n / 2];
	return 0;
}

/* The bytes WS's eth0 has sent, from /proc/net/dev read inside it (/proc/net follows the
 * reader's network namespace; /sys would need a remount). */
static int
tx_bytes(const struct calib_opts *o, double *bytes, struct err *e)
{
	char out[OUT_KEEP];
	const char *p;
	double f[9];
	int rc = testbed(o, out, e, "exec", o->ws, "--", "cat", "/proc/net/dev", NULL);

	if (rc < 0)
		return rc;
	/* "  eth0: rx_bytes packets errs drop fifo frame compressed multicast tx_bytes ..." */
	if ((p = strstr(out, "eth0:")) == NULL ||
	    sscanf(p + 5, "%lf %lf %lf %lf %lf %lf %lf %lf %lf", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6],
		   &f[7], &f[8]) != 9 || !(f[8] >= 0))
		return err_set(e, E_IO, "'%s' has no eth0 transmit counter in /proc/net/dev", o->ws);
	*bytes = f[8];
	return 0;
}

/* One pass at one link setting (rate "off": uncapped): the dedicated probe, then 1..max_i
 * competitors, one more before each probe. k is bw_Bps, or for the uncapped link the rate
 * the first competitor reached over its probe (stored in o->uncapped_Bps). The dedicated
 * point is reported with the first competitor's, when k is known. The competitors are
 * stopped at the end of the pass (not on failure: the caller does that). */
static int
measure_pass(struct calib_opts *o, const char *rate, double bw_Bps, struct calib_point *pts, int *npts,
	     calib_progress_fn fn, void *arg, struct err *e)
{
	bool uncapped = strcmp(rate, "off") == 0;
	int first = *npts, rc;
	int64_t t0 = 0;

	if ((rc = testbed(o, NULL, e, "link", o->ws, rate, NULL, NULL, NULL)) < 0 ||
	    (rc = probe_median(o, &t0, e)) < 0)
		return rc;
	for (int i = 0; i <= o->max_i; i++) {
		struct calib_point *pt = &pts[*npts];

		pt->t_ns = t0;
		if (i > 0) {
			double b0 = 0, b1 = 0;
			int64_t s0, s1;

			if ((rc = testbed(o, NULL, e, "load", o->ws, "--comm", o->peer, "--duty", "1")) < 0)
				return rc;
			/* let the transfer reach its rate before the probe */
			nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
			s0 = clock_mono_ns();
			if ((uncapped && i == 1 && (rc = tx_bytes(o, &b0, e)) < 0) ||
			    (rc = probe_median(o, &pt->t_ns, e)) < 0 ||
			    (uncapped && i == 1 && (rc = tx_bytes(o, &b1, e)) < 0))
				return rc;
			s1 = clock_mono_ns();
			if (uncapped && i == 1) {
				if (!(b1 > b0) || s1 <= s0)
					return err_set(e, E_IO, "the competitor in '%s' sent nothing on the uncapped link",
						       o->ws);
				bw_Bps = o->uncapped_Bps = (b1 - b0) / ((double)(s1 - s0) / 1e9);
				pts[first].bw_Bps = bw_Bps;
			}
		}
		pt->i = i;
		pt->bw_Bps = bw_Bps;
		pt->t0_ns = t0;
		pt->delay = (double)pt->t_ns / (double)t0 - 1;
		(*npts)++;
		if (fn != NULL && i == 1)
			fn(arg, &pts[first]);
		if (fn != NULL && i > 0)
			fn(arg, pt);
	}
	return testbed(o, NULL, e, "unload", o->ws, NULL, NULL, NULL, NULL);
}

int
calib_measure(struct calib_opts *o, struct calib_point *pts, int *npts, calib_progress_fn fn,
	      void *arg, struct err *e)
{
	int rc = 0;

	*npts = 0;
	if (o->max_i < 1 || o->max_i > CALIB_MAX_I || o->nrates < 4 || o->nrates > CALIB_MAX_RATES ||
	    !(o->probe_cpu_ms > 0 && o->probe_cpu_ms <= 60000) || o->exe == NULL || o->ws == NULL ||
	    o->peer == NULL)
		return err_set(e, E_USAGE, "calibration: need 1..%d competitors, 4..%d bandwidths and a "
			       "probe of (0, 60000] ms", CALIB_MAX_I, CALIB_MAX_RATES);
	/* a clean start: no earlier competitors, the link free */
	if ((rc = testbed(o, NULL, e, "unload", o->ws, NULL, NULL, NULL, NULL)) < 0)
		return rc;
	for (int j = 0; rc == 0 && j < o->nrates; j++) {
		char rate[32];

		snprintf(rate, sizeof rate, "%.0fkbit", o->rates_bps[j] / 1000);
		rc = measure_pass(o, rate, o->rates_bps[j] / 8, pts, npts, fn, arg, e);
	}
	o->uncapped_Bps = 0;
	if (rc == 0 && o->uncapped)
		rc = measure_pass(o, "off", 0, pts, npts, fn, arg, e);
	if (rc < 0)
		(void)testbed(o, NULL, NULL, "unload", o->ws, NULL, NULL, NULL, NULL);
	if (testbed(o, NULL, rc < 0 ? NULL : e, "link", o->ws, "off", NULL, NULL, NULL) < 0 && rc == 0)
		rc = -E_IO;
	return rc;
}

int
calib_fit(const struct calib_point *pts, int npts, const char *source, struct p000_delay *d,
	  struct err *e)
{
	memset(d, 0, sizeof *d);
	d->k_unit_Bps = CALIB_K_UNIT_BPS;
	snprintf(d->source, sizeof d->source, "%s", source ? source : "calibration");
	for (int i = 1; i <= CALIB_MAX_I && d->n < P000_MAX_CURVES; i++) {
		double k[CALIB_MAX_POINTS], y[CALIB_MAX_POINTS];
		int n = 0, distinct = 0;
		double k_max = 0;

		for (int j = 0; j < npts; j++) {
			if (pts[j].i != i)
				continue;
			k[n] = pts[j].bw_Bps / CALIB_K_UNIT_BPS;
			y[n] = pts[j].delay;
			if (k[n] > k_max)
				k_max = k[n];
			n++;
		}
		if (n == 0)
			break;	/* curves are i = 1, 2, ... without holes */
		for (int a = 0; a < n; a++) {
			int seen = 0;

			for (int b = 0; b < a; b++)
				seen |= k[b] == k[a];
			distinct += !seen;
		}
		if (distinct < 4)
			return err_set(e, E_USAGE, "delay_comm for %d competitor%s: %d distinct bandwidths, "
				       "the two-piece fit needs 4", i, i == 1 ? "" : "s", distinct);
		d->c[d->n].i = i;
		if (p000_fit_two_piece(n, k, y, &d->c[d->n]) < 0)
			return err_set(e, E_USAGE, "delay_comm for %d competitors: too few points", i);
		d->c[d->n].i = i;
		/* the uncapped pass's own rate, or the largest cap: the line holds up to there */
		d->c[d->n].k_max = k_max;
		d->n++;
	}
	if (d->n == 0)
		return err_set(e, E_USAGE, "no point with a communicating competitor to fit");
	return 0;
}
