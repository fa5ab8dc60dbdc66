/* phases_truth: parse's busy and idle phases of a run against the ground truth of what each
 * rank was doing, the intervals inside MPI that the PMPI wrapper (tests/pmpi/pmpi_log.c,
 * format "pmpi" v2, bench/realapps/README.md) timed in the same run.
 *
 *	phases_truth [-c] [-i] [-w PHASES] RUN TRUTHDIR
 *
 * RUN is a collected run `contend parse` has written RUN/profile/phases.tsv into; TRUTHDIR
 * the PMPI_LOG_DIR its ranks ran with (rank-R.tsv, world rank R: parse's rank numbers are
 * world ranks too). Per rank, over parse's window (its first phase's start to its last
 * phase's end, the first to the last CPU sample), one row:
 *
 *	rank window_s work_s mpi_s busy_s idle_s mpi_busy_s work_idle_s work_pct busy_pct
 *	ivls ivls_mpi ivls_mpi_busy ivls_work_idle
 *
 * work_s: truth time outside MPI ("work": computation and everything the program does
 * outside MPI calls, its start before MPI_Init included); mpi_s: inside an MPI call (the
 * wrapper's "mpi" rows; MPI_Finalize lasts to the window's end); busy_s, idle_s: parse's
 * phases; mpi_busy_s: time parse calls busy that the truth has inside MPI (waiting read as
 * work); work_idle_s: time parse calls idle that the truth has as work. The ivls columns
 * count parse's sample intervals (between consecutive samples of RUN/samples/rank-R.tsv.gz
 * inside the window; parse decides busy or idle per interval): all of them, those at least
 * half inside MPI by the truth, those of them parse called busy, and those mostly work it
 * called idle (-1 without the samples). -c adds per rank the intervals inside MPI by
 * length (rows "len rank class n mpi_s mpi_busy_s", classes <1ms 1-20ms 20-100ms >100ms,
 * over the whole run: the window does not cut them) and per MPI call (rows "call rank call
 * n_rows mpi_s mpi_busy_s", over the window): the time inside and the part parse called busy.
 * -i adds a row per sample interval, "ivl rank t_start_ns t_end_ns kind mpi_frac run_ns
 * utime_ticks stime_ticks in_wait": parse's kind (of the phase holding most of it), the
 * fraction the truth has inside MPI, the rank's CPU over it (summed over the threads
 * sampled at both ends, without parse's clamps; -1 when the samples lack the columns), and
 * whether it lies at least half inside a wait of the message trace as parse's polling rule
 * builds them (parse/phases.h phases_waits, from RUN/profile/messages.tsv; -1 without it),
 * for tuning parse's rule against the truth. -w writes the truth as phases in parse's format
 * (docs/formats.md, phases.tsv) to the file PHASES: per rank over the same window, busy
 * outside MPI and idle inside, run_ns and wait_ns -1 (unknown); a copy of RUN with it in
 * place of profile/phases.tsv lets the models predict from what the ranks really did
 * (docs/validation.md, "The replay on the ranks' true phases").
 *
 * Exit 0, 1 when a rank has phases but no truth or a file cannot be read, 2 usage. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "parse/phases.h"
#include "parse/rankmap.h"

#define MAX_RANKS 4096		/* world ranks looked for */
#define MAX_IVLS (64u << 20)	/* intervals of one kind per rank */
#define MAX_CALLS 64		/* distinct MPI call names per rank */
#define LINE_MAX_BYTES 4096	/* a line of a pmpi file */

/* A growable list of intervals [a, b) in ns, sorted by a, disjoint once normalized. */
struct ivls {
	int64_t *a, *b;
	size_t n, cap;
};

static void
ivls_push(struct ivls *l, int64_t a, int64_t b)
{
	if (l->n == l->cap) {
		if (l->cap >= MAX_IVLS)
			die("more than %u intervals of one kind in one rank", MAX_IVLS);
		l->cap = l->cap ? 2 * l->cap : 256;
		l->a = xreallocarray(l->a, l->cap, sizeof *l->a);
		l->b = xreallocarray(l->b, l->cap, sizeof *l->b);
	}
	l->a[l->n] = a;
	l->b[l->n] = b;
	l->n++;
}

static void
ivls_free(struct ivls *l)
{
	free(l->a);
	free(l->b);
	*l = (struct ivls){ 0 };
}

/* Length of the intersection of l (sorted, disjoint) with [a, b); *cur is a cursor into l
 * for calls with nondecreasing a (start it at 0). */
static int64_t
ivls_overlap(const struct ivls *l, size_t *cur, int64_t a, int64_t b)
{
	int64_t sum = 0;

	while (*cur < l->n && l->b[*cur] <= a)
		(*cur)++;
	for (size_t i = *cur; i < l->n && l->a[i] < b; i++) {
		int64_t lo = l->a[i] > a ? l->a[i] : a, hi = l->b[i] < b ? l->b[i] : b;

		if (hi > lo)
			sum += hi - lo;
	}
	return sum;
}

/* Length of the intersection of x and y, both sorted and disjoint. */
static int64_t
ivls_cross(const struct ivls *x, const struct ivls *y)
{
	size_t cur = 0;
	int64_t sum = 0;

	for (size_t i = 0; i < x->n; i++)
		sum += ivls_overlap(y, &cur, x->a[i], x->b[i]);
	return sum;
}

/* The truth of one rank: its MPI intervals, and per call name. */
struct truth {
	struct ivls all;
	int ncalls;
	char *call[MAX_CALLS];
	struct ivls by_call[MAX_CALLS];
	long long rows[MAX_CALLS];
	long bad;		/* rows skipped as damaged */
};

static void
truth_free(struct truth *t)
{
	ivls_free(&t->all);
	for (int i = 0; i < t->ncalls; i++) {
		free(t->call[i]);
		ivls_free(&t->by_call[i]);
	}
}

static int
parse_i64(const char *s, int64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || end == s || *end != '\0' ? -1 : 0;
}

/* Read TRUTHDIR/rank-R.tsv. 1 read, 0 no such file, -1 not a pmpi v2 file (e says why).
 * Intervals of one call that overlap or touch the previous one are joined; a finalize
 * (t_exit_ns -1) ends at INT64_MAX. */
static int
truth_read(struct truth *t, const char *dir, int rank, struct err *e)
{
	char path[4096], line[LINE_MAX_BYTES];
	FILE *fp;
	long ln = 0;

	*t = (struct truth){ 0 };
	snprintf(path, sizeof path, "%s/rank-%d.tsv", dir, rank);
	if (!(fp = fopen(path, "r"))) {
		if (errno == ENOENT)
			return 0;
		err_sys(e, E_IO, "cannot open '%s'", path);
		return -1;
	}
	while (fgets(line, sizeof line, fp)) {
		char *f[12], *p = line;
		int n = 0;
		int64_t a, b;
		int k;

		ln++;
		line[strcspn(line, "\n")] = '\0';
		if (ln == 1 && strcmp(line, "# contend-pmpi 2") != 0) {
			fclose(fp);
			err_set(e, E_FORMAT, "'%s' is not a pmpi v2 file (no intervals)", path);
			return -1;
		}
		if (line[0] == '#' || strncmp(line, "t_real_ns\t", 10) == 0)
			continue;
		while (n < 12 && p) {
			f[n++] = p;
			if ((p = strchr(p, '\t')))
				*p++ = '\0';
		}
		if (n < 2 || strcmp(f[1], "mpi") != 0)
			continue;
		if (n != 12 || p || parse_i64(f[0], &a) < 0 || parse_i64(f[10], &b) < 0 ||
		    (b != -1 && b < a)) {
			t->bad++;
			continue;
		}
		if (b == -1)
			b = INT64_MAX;
		for (k = 0; k < t->ncalls && strcmp(t->call[k], f[2]) != 0; k++)
			;
		if (k == MAX_CALLS)
			k = MAX_CALLS - 1;	/* the last slot takes the rest */
		else if (k == t->ncalls)
			t->call[t->ncalls++] = xstrdup(f[2]);
		t->rows[k]++;
		ivls_push(&t->by_call[k], a, b);
		ivls_push(&t->all, a, b);
	}
	fclose(fp);
	return 1;
}

/* Sort by start and join overlapping intervals (the wrapper writes them in order; this
 * guards against a damaged file). */
static int
cmp_start(const void *x, const void *y)
{
	const int64_t *p = x, *q = y;

	return (*p > *q) - (*p < *q);
}

static void
ivls_normalize(struct ivls *l)
{
	int64_t *pairs;
	size_t m = 0;

	if (l->n == 0)
		return;
	pairs = xreallocarray(NULL, l->n, 2 * sizeof *pairs);
	for (size_t i = 0; i < l->n; i++) {
		pairs[2 * i] = l->a[i];
		pairs[2 * i + 1] = l->b[i];
	}
	qsort(pairs, l->n, 2 * sizeof *pairs, cmp_start);
	for (size_t i = 0; i < l->n; i++) {
		if (m > 0 && pairs[2 * i] <= l->b[m - 1]) {
			if (pairs[2 * i + 1] > l->b[m - 1])
				l->b[m - 1] = pairs[2 * i + 1];
			continue;
		}
		l->a[m] = pairs[2 * i];
		l->b[m] = pairs[2 * i + 1];
		m++;
	}
	l->n = m;
	free(pairs);
}

/* Parse's phases of every rank: busy[r], idle[r]. */
static int
phases_read(const char *run, struct ivls *busy, struct ivls *idle, struct err *e)
{
	static const char *const need[] = { "rank", "kind", "t_start_ns", "t_end_ns", NULL };
	char path[4096];
	struct tsv_r t;
	int rc, cr, ck, ca, cb;

	snprintf(path, sizeof path, "%s/profile/phases.tsv", run);
	if ((rc = tsv_r_open(&t, path, "phases", 1, need, e)) < 0)
		return rc;
	cr = tsv_r_col(&t, "rank");
	ck = tsv_r_col(&t, "kind");
	ca = tsv_r_col(&t, "t_start_ns");
	cb = tsv_r_col(&t, "t_end_ns");
	while ((rc = tsv_r_next(&t, e)) == 1) {
		int64_t r, a, b;
		const char *k;

		if (tsv_r_i64(&t, cr, &r, e) < 0 || tsv_r_i64(&t, ca, &a, e) < 0 ||
		    tsv_r_i64(&t, cb, &b, e) < 0 || r < 0 || r >= MAX_RANKS || b < a)
			continue;	/* not ours to judge: skipped */
		k = tsv_r_str(&t, ck);
		if (strcmp(k, "busy") == 0)
			ivls_push(&busy[r], a, b);
		else if (strcmp(k, "idle") == 0)
			ivls_push(&idle[r], a, b);
	}
	tsv_r_close(&t);
	return rc < 0 ? rc : 0;
}

/* A rank's samples inside parse's window; the CPU figures are of the interval that ends at
 * the sample (summed over the threads seen at both ends), -1 for the first sample or
 * without the columns. */
struct smp {
	size_t n, cap;
	int64_t *t;		/* t_real_ns */
	int64_t *run_ns, *ut, *st;	/* run time, user and system ticks */
};

#define MAX_THREADS 256		/* threads of one rank followed; more are left out */

struct thr {
	int64_t pid, tid, run_ns, ut, st;
};

static void
smp_push(struct smp *m, int64_t t, int64_t run_ns, int64_t ut, int64_t st)
{
	if (m->n == m->cap) {
		if (m->cap >= MAX_IVLS)
			die("more than %u samples in one rank", MAX_IVLS);
		m->cap = m->cap ? 2 * m->cap : 256;
		m->t = xreallocarray(m->t, m->cap, sizeof *m->t);
		m->run_ns = xreallocarray(m->run_ns, m->cap, sizeof *m->run_ns);
		m->ut = xreallocarray(m->ut, m->cap, sizeof *m->ut);
		m->st = xreallocarray(m->st, m->cap, sizeof *m->st);
	}
	m->t[m->n] = t;
	m->run_ns[m->n] = run_ns;
	m->ut[m->n] = ut;
	m->st[m->n] = st;
	m->n++;
}

static void
smp_free(struct smp *m)
{
	free(m->t);
	free(m->run_ns);
	free(m->ut);
	free(m->st);
	*m = (struct smp){ 0 };
}

/* End of the sample at t of threads cur[0..ncur): its interval's figures against prev. */
static void
smp_end(struct smp *m, int64_t t, int64_t lo, int64_t hi, const struct thr *prev, int nprev,
	const struct thr *cur, int ncur, int have_cpu)
{
	int64_t run = 0, ut = 0, st = 0;

	if (t < lo || t > hi)
		return;
	for (int i = 0; i < ncur; i++)
		for (int k = 0; k < nprev; k++)
			if (prev[k].pid == cur[i].pid && prev[k].tid == cur[i].tid) {
				run += cur[i].run_ns - prev[k].run_ns;
				ut += cur[i].ut - prev[k].ut;
				st += cur[i].st - prev[k].st;
				break;
			}
	if (!have_cpu || nprev == 0)
		run = ut = st = -1;
	smp_push(m, t, run, ut, st);
}

/* The samples of rank r inside [lo, hi]; 0, or negative without the file. Damaged rows are
 * skipped. */
static int
samples_read(const char *run, int r, int64_t lo, int64_t hi, struct smp *m, struct err *e)
{
	static const char *const need[] = { "t_real_ns", NULL };
	static struct thr a[MAX_THREADS], b[MAX_THREADS];
	struct thr *prev = a, *cur = b, *x;
	int nprev = 0, ncur = 0;
	char path[4096];
	struct tsv_r t;
	int rc, c, cp, ct, cr, cu, cs, have_cpu;
	int64_t last = INT64_MIN;

	snprintf(path, sizeof path, "%s/samples/rank-%d.tsv.gz", run, r);
	if ((rc = tsv_r_open(&t, path, "samples", 1, need, e)) < 0)
		return rc;
	c = tsv_r_col(&t, "t_real_ns");
	cp = tsv_r_col(&t, "pid");
	ct = tsv_r_col(&t, "tid");
	cr = tsv_r_col(&t, "run_ns");
	cu = tsv_r_col(&t, "utime_ticks");
	cs = tsv_r_col(&t, "stime_ticks");
	have_cpu = cp >= 0 && ct >= 0 && cr >= 0 && cu >= 0 && cs >= 0;
	while ((rc = tsv_r_next(&t, e)) != 0) {
		struct thr th = { 0 };
		int64_t v;

		if (rc < 0 && rc != -E_FORMAT && rc != -E_LIMIT)
			break;
		if (rc < 0 || tsv_r_i64(&t, c, &v, e) < 0)
			continue;
		if (have_cpu && (tsv_r_i64(&t, cp, &th.pid, e) < 0 || tsv_r_i64(&t, ct, &th.tid, e) < 0 ||
				 tsv_r_i64(&t, cr, &th.run_ns, e) < 0 || tsv_r_i64(&t, cu, &th.ut, e) < 0 ||
				 tsv_r_i64(&t, cs, &th.st, e) < 0))
			continue;
		if (v != last && last != INT64_MIN) {
			smp_end(m, last, lo, hi, prev, nprev, cur, ncur, have_cpu);
			x = prev;
			prev = cur;
			cur = x;
			nprev = ncur;
			ncur = 0;
		}
		last = v;
		if (ncur < MAX_THREADS)
			cur[ncur++] = th;
	}
	if (last != INT64_MIN)
		smp_end(m, last, lo, hi, prev, nprev, cur, ncur, have_cpu);
	tsv_r_close(&t);
	return 0;
}

/* The rule parse took its waits with: RUN/profile/netparams.tsv's `waits` key (absent:
 * after a send only). */
static enum phases_wait_rule
wait_rule(const char *run)
{
	char path[4096], line[256];
	enum phases_wait_rule rule = PHASES_WAITS_SEND;
	FILE *f;

	snprintf(path, sizeof path, "%s/profile/netparams.tsv", run);
	if ((f = fopen(path, "r")) == NULL)
		return rule;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "waits\t", 6) == 0 && strstr(line, "arrival") != NULL)
			rule = strstr(line, "quota") != NULL ? PHASES_WAITS_AUTO : PHASES_WAITS_ANY;
	fclose(f);
	return rule;
}

/* Rank r's rule under --waits auto, as parse takes it: after a send only under a CPU quota
 * below a core (the rank's cpu_capacity, parse/rankmap.h), else after an arrival too. */
static enum phases_wait_rule
rank_rule(const struct rankmap *m, int r, enum phases_wait_rule rule)
{
	double cap = m != NULL ? rankmap_cpu_capacity(m, r) : 0;

	if (rule != PHASES_WAITS_AUTO)
		return rule;
	return cap > 0 && cap < 1 ? PHASES_WAITS_SEND : PHASES_WAITS_ANY;
}

/* The waits of every rank as parse's polling rule sees them (parse/phases.h phases_waits,
 * with the rule the run was parsed with) from RUN/profile/messages.tsv: a message sent at
 * its first byte, received at its last, both ranks known. 0, or negative without the file
 * (then no rank has waits). */
static int
waits_read(const char *run, struct ivls *waits, struct err *e)
{
	enum phases_wait_rule rule = wait_rule(run);
	struct rankmap *rm = NULL;
	struct err me;
	static const char *const need[] = { "t_first_ns", "t_last_ns", "src", "dst", NULL };
	struct ivls *io = xcalloc(MAX_RANKS, sizeof *io);	/* a: sends, b: unused; and arrivals */
	struct ivls *in = xcalloc(MAX_RANKS, sizeof *in);
	char path[4096];
	struct tsv_r t;
	int rc, c0, c1, cs, cd;

	snprintf(path, sizeof path, "%s/profile/messages.tsv", run);
	if ((rc = tsv_r_open(&t, path, "messages", 1, need, e)) < 0) {
		free(io);
		free(in);
		return rc;
	}
	c0 = tsv_r_col(&t, "t_first_ns");
	c1 = tsv_r_col(&t, "t_last_ns");
	cs = tsv_r_col(&t, "src");
	cd = tsv_r_col(&t, "dst");
	while ((rc = tsv_r_next(&t, e)) != 0) {
		int64_t a, b, src, dst;

		if (rc < 0 && rc != -E_FORMAT && rc != -E_LIMIT)
			break;
		if (rc < 0 || tsv_r_i64(&t, c0, &a, e) < 0 || tsv_r_i64(&t, c1, &b, e) < 0 ||
		    tsv_r_i64(&t, cs, &src, e) < 0 || tsv_r_i64(&t, cd, &dst, e) < 0)
			continue;
		if (src < 0 || dst < 0 || src >= MAX_RANKS || dst >= MAX_RANKS || src == dst)
			continue;
		ivls_push(&io[src], a, a);
		ivls_push(&in[dst], b, b);
	}
	tsv_r_close(&t);
	if (rule == PHASES_WAITS_AUTO) {	/* the capacities parse chose by */
		rm = rankmap_new();
		if (rankmap_load_run(rm, run, &me) < 0)
			fprintf(stderr, "phases_truth: %s (ranks without a capacity take waits after arrivals)\n", me.msg);
	}
	for (int r = 0; r < MAX_RANKS; r++) {
		struct phases_wait *w = NULL;
		size_t n = io[r].n || in[r].n ? phases_waits(io[r].a, io[r].n, in[r].a, in[r].n, rank_rule(rm, r, rule), &w) : 0;

		for (size_t i = 0; i < n; i++)
			ivls_push(&waits[r], w[i].t0_ns, w[i].t1_ns);
		free(w);
		ivls_free(&io[r]);
		ivls_free(&in[r]);
	}
	free(io);
	free(in);
	if (rm != NULL)
		rankmap_free(rm);
	return 0;
}

static double
s_of(int64_t ns)
{
	return (double)ns / 1e9;
}

/* Rows "len rank class n mpi_s mpi_busy_s": the intervals inside MPI (calls joined where
 * they touch) by length, the time inside them and the part of it parse called busy. A 20 ms
 * sample interval cannot tell apart waits much shorter than itself from the work around
 * them. */
static void
by_length(int r, const struct ivls *mpi, const struct ivls *busy)
{
	static const int64_t upto_ns[] = { 1000000, 20000000, 100000000, INT64_MAX };
	static const char *const names[] = { "<1ms", "1-20ms", "20-100ms", ">100ms" };
	long n[4] = { 0 };
	int64_t in[4] = { 0 }, as_busy[4] = { 0 };
	size_t cur = 0;

	for (size_t i = 0; i < mpi->n; i++) {
		int64_t len = mpi->b[i] - mpi->a[i];
		int k = 0;

		if (mpi->b[i] == INT64_MAX)
			continue;	/* MPI_Finalize: no length */
		while (len >= upto_ns[k])
			k++;
		n[k]++;
		in[k] += len;
		as_busy[k] += ivls_overlap(busy, &cur, mpi->a[i], mpi->b[i]);
	}
	for (int k = 0; k < 4; k++)
		printf("len\t%d\t%s\t%ld\t%.3f\t%.3f\n", r, names[k], n[k], s_of(in[k]), s_of(as_busy[k]));
}

static const struct ivls no_waits;	/* -i without messages.tsv: in_wait -1 */

/* Rank r's truth as phases over [lo, hi) into out: idle inside MPI, busy between. */
static void
write_phases(FILE *out, int r, const struct ivls *mpi, int64_t lo, int64_t hi)
{
	int64_t t = lo;

	for (size_t i = 0; i < mpi->n && t < hi; i++) {
		int64_t a = mpi->a[i] > t ? mpi->a[i] : t, b = mpi->b[i] < hi ? mpi->b[i] : hi;

		if (b <= a)
			continue;
		if (a > t)
			fprintf(out, "%d\tbusy\t%lld\t%lld\t-1\t-1\n", r, (long long)t, (long long)a);
		fprintf(out, "%d\tidle\t%lld\t%lld\t-1\t-1\n", r, (long long)a, (long long)b);
		t = b;
	}
	if (t < hi)
		fprintf(out, "%d\tbusy\t%lld\t%lld\t-1\t-1\n", r, (long long)t, (long long)hi);
}

/* One rank's row (and its call rows with -c). Returns 0, or 1 when the truth is missing. */
static int
one_rank(const char *run, const char *tdir, int r, struct ivls *busy, struct ivls *idle, int per_call,
	 const struct ivls *waits, FILE *wout)
{
	struct truth t;
	struct err e = { 0 };
	struct ivls win = { 0 };
	struct smp times = { 0 };
	int64_t lo = INT64_MAX, hi = INT64_MIN, mpi, bsum = 0, isum = 0, mpi_busy, mpi_idle;
	long n = -1, n_mpi = -1, n_mpi_busy = -1, n_work_idle = -1;
	int rc;

	ivls_normalize(busy);
	ivls_normalize(idle);
	for (size_t i = 0; i < busy->n; i++) {
		lo = busy->a[i] < lo ? busy->a[i] : lo;
		hi = busy->b[i] > hi ? busy->b[i] : hi;
		bsum += busy->b[i] - busy->a[i];
	}
	for (size_t i = 0; i < idle->n; i++) {
		lo = idle->a[i] < lo ? idle->a[i] : lo;
		hi = idle->b[i] > hi ? idle->b[i] : hi;
		isum += idle->b[i] - idle->a[i];
	}
	if ((rc = truth_read(&t, tdir, r, &e)) <= 0) {
		fprintf(stderr, "phases_truth: rank %d: %s\n", r, rc == 0 ? "no truth file" : e.msg);
		return 1;
	}
	ivls_normalize(&t.all);
	ivls_push(&win, lo, hi);
	if (wout)
		write_phases(wout, r, &t.all, lo, hi);
	mpi = ivls_cross(&t.all, &win);
	mpi_busy = ivls_cross(&t.all, busy);
	mpi_idle = ivls_cross(&t.all, idle);
	if (samples_read(run, r, lo, hi, &times, &e) == 0) {
		size_t cm = 0, cb = 0;

		n = n_mpi = n_mpi_busy = n_work_idle = 0;
		for (size_t i = 0; i + 1 < times.n; i++) {
			int64_t a = times.t[i], b = times.t[i + 1];
			int in_mpi = 2 * ivls_overlap(&t.all, &cm, a, b) >= b - a;
			int is_busy = 2 * ivls_overlap(busy, &cb, a, b) >= b - a;

			n++;
			n_mpi += in_mpi;
			n_mpi_busy += in_mpi && is_busy;
			n_work_idle += !in_mpi && !is_busy;
		}
	}
	printf("%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f\t%ld\t%ld\t%ld\t%ld\n", r,
	       s_of(hi - lo), s_of(hi - lo - mpi), s_of(mpi), s_of(bsum), s_of(isum), s_of(mpi_busy),
	       s_of(isum - mpi_idle), hi > lo ? 100.0 * (double)(hi - lo - mpi) / (double)(hi - lo) : 0,
	       hi > lo ? 100.0 * (double)bsum / (double)(hi - lo) : 0, n, n_mpi, n_mpi_busy, n_work_idle);
	if (t.bad)
		fprintf(stderr, "phases_truth: rank %d: %ld damaged rows of the truth skipped\n", r, t.bad);
	for (size_t i = 0, cm = 0, cb = 0, cw = 0; waits && i + 1 < times.n; i++) {
		int64_t a = times.t[i], b = times.t[i + 1];

		printf("ivl\t%d\t%lld\t%lld\t%s\t%.3f\t%lld\t%lld\t%lld\t%d\n", r, (long long)a,
		       (long long)b, 2 * ivls_overlap(busy, &cb, a, b) >= b - a ? "busy" : "idle",
		       (double)ivls_overlap(&t.all, &cm, a, b) / (double)(b - a),
		       (long long)times.run_ns[i + 1], (long long)times.ut[i + 1], (long long)times.st[i + 1],
		       waits == &no_waits ? -1 : 2 * ivls_overlap(waits, &cw, a, b) >= b - a);
	}
	if (per_call)
		by_length(r, &t.all, busy);
	for (int k = 0; per_call && k < t.ncalls; k++) {
		ivls_normalize(&t.by_call[k]);
		printf("call\t%d\t%s\t%lld\t%.3f\t%.3f\n", r, t.call[k], t.rows[k],
		       s_of(ivls_cross(&t.by_call[k], &win)), s_of(ivls_cross(&t.by_call[k], busy)));
	}
	truth_free(&t);
	ivls_free(&win);
	smp_free(&times);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ivls *busy, *idle, *waits = NULL;	/* per rank; waits only with -i */
	struct err e = { 0 };
	int per_call = 0, per_ivl = 0, rc = 0, seen = 0;
	const char *wpath = NULL;
	FILE *wout = NULL;

	err_progname = "phases_truth";
	for (; argc > 1 && argv[1][0] == '-' && argv[1][1] && !argv[1][2]; argc--, argv++) {
		if (argv[1][1] == 'c')
			per_call = 1;
		else if (argv[1][1] == 'i')
			per_ivl = 1;
		else if (argv[1][1] == 'w' && argc > 2)
			wpath = argv[2], argc--, argv++;
		else
			break;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: phases_truth [-c] [-i] [-w PHASES] RUN TRUTHDIR\n");
		return 2;
	}
	if (wpath && (wout = fopen(wpath, "w")) == NULL) {
		fprintf(stderr, "phases_truth: cannot write '%s': %s\n", wpath, strerror(errno));
		return 1;
	}
	if (wout)
		fprintf(wout, "# contend-phases 1\nrank\tkind\tt_start_ns\tt_end_ns\trun_ns\twait_ns\n");
	busy = xcalloc(MAX_RANKS, sizeof *busy);
	idle = xcalloc(MAX_RANKS, sizeof *idle);
	if (phases_read(argv[1], busy, idle, &e) < 0) {
		fprintf(stderr, "phases_truth: %s\n", e.msg);
		return 1;
	}
	if (per_ivl) {
		waits = xcalloc(MAX_RANKS, sizeof *waits);
		if (waits_read(argv[1], waits, &e) < 0) {
			free(waits);
			waits = NULL;	/* the column says -1 */
		}
	}
	printf("rank\twindow_s\twork_s\tmpi_s\tbusy_s\tidle_s\tmpi_busy_s\twork_idle_s\twork_pct\tbusy_pct"
	       "\tivls\tivls_mpi\tivls_mpi_busy\tivls_work_idle\n");
	for (int r = 0; r < MAX_RANKS; r++) {
		if (busy[r].n == 0 && idle[r].n == 0)
			continue;
		seen++;
		rc |= one_rank(argv[1], argv[2], r, &busy[r], &idle[r], per_call,
			       !per_ivl ? NULL : waits ? &waits[r] : &no_waits, wout);
		if (waits)
			ivls_free(&waits[r]);
		ivls_free(&busy[r]);
		ivls_free(&idle[r]);
	}
	free(busy);
	free(idle);
	free(waits);
	if (wout && fclose(wout) != 0) {
		fprintf(stderr, "phases_truth: writing '%s': %s\n", wpath, strerror(errno));
		rc = 1;
	}
	if (!seen) {
		fprintf(stderr, "phases_truth: no phases in '%s/profile/phases.tsv'\n", argv[1]);
		return 1;
	}
	return rc;
}
