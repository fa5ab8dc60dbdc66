/* test_phases: CPU busy/idle phases from sample files (parse/phases.h): known patterns,
 * the threshold, several threads, threads coming and going, pid reuse, damaged rows,
 * a cut gzip file, and the phases.tsv rows. */
#include "parse/phases.h"

#include <inttypes.h>
#include <stdint.h>
#include <sys/stat.h>

#include "lib/buf.h"
#include "tests/unit/check.h"

#define MS ((int64_t)1000000)
#define REAL0 ((int64_t)1700000000000000000)	/* CLOCK_REALTIME of the first sample */
#define MONO0 ((int64_t)5000000000)	/* CLOCK_MONOTONIC of the first sample */

static const char *const sample_cols[] = { "t_mono_ns", "t_real_ns", "pid", "tid", "state",
	"utime_ticks", "stime_ticks", "run_ns", "wait_ns", "vcsw", "ivcsw", NULL };

static char *
tmp(const char *name)
{
	static char paths[8][512];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof paths[0], "%s/%s", check_tmpdir(), name);
	return p;
}

struct srow {
	int64_t t_ns;		/* since the first sample; mono = MONO0 + t, real = REAL0 + t */
	int64_t pid, tid;
	uint64_t run_ns, wait_ns;
};

static void
put_row(struct tsv_w *w, const struct srow *r)
{
	tsv_w_i64(w, MONO0 + r->t_ns);
	tsv_w_i64(w, REAL0 + r->t_ns);
	tsv_w_i64(w, r->pid);
	tsv_w_i64(w, r->tid);
	tsv_w_str(w, "R");
	tsv_w_u64(w, r->run_ns / 10000000);
	tsv_w_u64(w, 0);
	tsv_w_u64(w, r->run_ns);
	tsv_w_u64(w, r->wait_ns);
	tsv_w_u64(w, 1);
	tsv_w_u64(w, 2);
}

static int
write_rows(const char *path, bool compress, const struct srow *rows, size_t n)
{
	struct tsv_w w;
	struct err e;

	if (tsv_w_open(&w, path, "samples", 1, sample_cols, compress, true, &e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		put_row(&w, &rows[i]);
		if (tsv_w_end(&w, &e) < 0)
			break;
	}
	return tsv_w_close(&w, &e);
}

/* One thread (pid 100) whose run time per 20 ms interval is run_ms[i] (wait wait_ms[i]);
 * returns the rows of nint + 1 samples (caller frees). */
static struct srow *
one_thread(const double *run_ms, const double *wait_ms, size_t nint, size_t *nrows)
{
	struct srow *rows = calloc(nint + 1, sizeof *rows);
	uint64_t run = 123 * MS, wait = 7 * MS;	/* counters before the first sample */

	for (size_t i = 0; i <= nint; i++) {
		if (i > 0) {
			run += (uint64_t)llround(run_ms[i - 1] * MS);
			wait += wait_ms ? (uint64_t)llround(wait_ms[i - 1] * MS) : 0;
		}
		rows[i] = (struct srow){ (int64_t)i * 20 * MS, 100, 100, run, wait };
	}
	*nrows = nint + 1;
	return rows;
}

/* B B B I I repeated 4 times: busy phases 60 ms, idle phases 40 ms. */
TEST(pattern)
{
	double run[20], wait[20];
	size_t n;
	struct srow *rows;
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	const char *path = tmp("rank-3.tsv.gz");

	for (int i = 0; i < 20; i++) {
		run[i] = i % 5 < 3 ? 20 : 1;
		wait[i] = i % 5 < 3 ? 2 : 0.5;
	}
	rows = one_thread(run, wait, 20, &n);
	CHECK(write_rows(path, true, rows, n) == 0);
	free(rows);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.rank == 3);
	CHECK(rc.samples == 21);
	CHECK(rc.intervals == 20);
	CHECK(rc.bad_rows == 0);
	CHECK(!rc.truncated);
	CHECK(rc.threads == 1);
	CHECK(rc.resets == 0);
	CHECK(rc.t_first_ns == REAL0);
	CHECK(rc.t_last_ns == REAL0 + 400 * MS);
	CHECK(rc.elapsed_ns == 400 * MS);
	CHECK(rc.run_ns == 4 * 3 * 20 * MS + 4 * 2 * 1 * MS);
	CHECK(rc.wait_ns == 4 * 3 * 2 * MS + 4 * 2 * MS / 2);
	CHECK_NEAR(rc.cpu_frac, 248.0 / 400.0, 1e-12);
	CHECK(rc.n_busy == 4);
	CHECK(rc.n_idle == 4);
	CHECK(rc.nphases == 8);
	CHECK_NEAR(rc.avg_busy_ns, 60.0 * MS, 1e-3);
	CHECK_NEAR(rc.avg_idle_ns, 40.0 * MS, 1e-3);
	CHECK(rc.busy_ns == 240 * MS);
	CHECK(rc.idle_ns == 160 * MS);
	for (size_t i = 0; i < rc.nphases && rc.nphases == 8; i++) {
		const struct phase *p = &rc.phases[i];
		int64_t start = (int64_t)(i / 2) * 100 * MS + (i % 2 ? 60 * MS : 0);

		CHECK(p->busy == (i % 2 == 0));
		CHECK(p->t_start_ns == REAL0 + start);
		CHECK(p->t_end_ns == REAL0 + start + (i % 2 ? 40 : 60) * MS);
		CHECK(p->run_ns == (i % 2 ? 2 * MS : 60 * MS));
		CHECK(p->wait_ns == (i % 2 ? 1 * MS : 6 * MS));
	}
	rank_cpu_release(&rc);
	CHECK(rc.phases == NULL);
	CHECK(rc.nphases == 0);
	rank_cpu_release(&rc);
	rank_cpu_release(NULL);
}

/* Busy means run >= threshold * interval. */
TEST(threshold)
{
	double run[4] = { 10, 9.999, 12, 0 };
	size_t n;
	struct srow *rows = one_thread(run, NULL, 4, &n);
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	const char *path = tmp("thr.tsv");

	CHECK(write_rows(path, false, rows, n) == 0);
	free(rows);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.rank == -1);		/* no rank in the name */
	/* busy (exactly half), idle, busy, idle */
	CHECK(rc.nphases == 4);
	CHECK(rc.n_busy == 2);
	CHECK(rc.n_idle == 2);
	if (CHECKED(rc.nphases == 4)) {
		CHECK(rc.phases[0].busy);
		CHECK(!rc.phases[1].busy);
		CHECK(rc.phases[2].busy);
	}
	rank_cpu_release(&rc);
	CHECK(phases_from_samples(path, 0.55, &rc, &e) == 0);
	/* idle idle busy idle: idle, busy, idle */
	CHECK(rc.nphases == 3);
	CHECK(rc.n_busy == 1);
	CHECK(rc.n_idle == 2);
	CHECK_NEAR(rc.avg_idle_ns, 30.0 * MS, 1e-3);
	CHECK_NEAR(rc.avg_busy_ns, 20.0 * MS, 1e-3);
	rank_cpu_release(&rc);
	CHECK(phases_from_samples(path, PHASES_THRESHOLD_DEFAULT, &rc, &e) == 0);
	CHECK(rc.n_busy == 2);
	rank_cpu_release(&rc);
	CHECK(phases_from_samples(path, 0, &rc, &e) == -E_USAGE);
	CHECK(strstr(e.msg, "threshold") != NULL);
	CHECK(phases_from_samples(path, -1, &rc, &e) == -E_USAGE);
	CHECK(phases_from_samples(path, NAN, &rc, &e) == -E_USAGE);
	rank_cpu_release(&rc);
}

/* Two threads at 6 ms each per 20 ms: idle alone, busy together. A third appears in
 * interval 3 (its whole run_ns counts there) and leaves after interval 5. */
TEST(threads)
{
	struct srow rows[64];
	size_t n = 0;
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	const char *path = tmp("threads.tsv");

	for (int k = 0; k <= 8; k++) {
		int64_t t = k * 20 * MS;

		rows[n++] = (struct srow){ t, 200, 200, (uint64_t)(1000 * MS + k * 6 * MS), 0 };
		if (k <= 4)
			rows[n++] = (struct srow){ t, 200, 201, (uint64_t)(k * 6 * MS), (uint64_t)(k * MS) };
		else
			rows[n++] = (struct srow){ t, 200, 201, (uint64_t)(k * 2 * MS), 0 };	/* reset */
		if (k >= 3 && k <= 5)	/* a child process, new in interval 3 */
			rows[n++] = (struct srow){ t, 300, 300, (uint64_t)((k - 2) * 3 * MS), 0 };
	}
	CHECK(write_rows(path, false, rows, n) == 0);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.samples == 9);
	CHECK(rc.threads == 3);
	/* Interval run (ms): 1-2: 12 12; 3: 12+3; 4: 12+3; 5: 6+10(reset, whole)+3;
	 * 6: 6+2; 7: 6+2; 8: 6+2. Busy (>= 10): 1..5, idle 6..8. */
	CHECK(rc.resets == 1);
	CHECK(rc.run_ns == (12 + 12 + 15 + 15 + 19 + 8 + 8 + 8) * MS);
	CHECK(rc.nphases == 2);
	CHECK(rc.n_busy == 1);
	CHECK(rc.n_idle == 1);
	if (CHECKED(rc.nphases == 2)) {
		CHECK(rc.phases[0].busy);
		CHECK(rc.phases[0].t_end_ns == REAL0 + 100 * MS);
	}
	if (CHECKED(rc.nphases == 2))
		CHECK(rc.phases[1].run_ns == 24 * MS);
	CHECK(rc.wait_ns == 4 * MS);	/* tid 201's wait, then a reset to 0 */
	rank_cpu_release(&rc);
}

/* A pid whose counters go backwards is a new process: its whole run_ns counts. */
TEST(counter_reset)
{
	struct srow rows[] = {
		{ 0, 100, 100, 0, 0 },
		{ 20 * MS, 100, 100, 20 * MS, 0 },
		{ 40 * MS, 100, 100, 40 * MS, 0 },
		{ 60 * MS, 100, 100, 5 * MS, 0 },	/* reused pid: 5 ms, idle */
		{ 80 * MS, 100, 100, 25 * MS, 0 },
	};
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	const char *path = tmp("reset.tsv");

	CHECK(write_rows(path, false, rows, 5) == 0);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.resets == 1);
	CHECK(rc.run_ns == (20 + 20 + 5 + 20) * MS);	/* never negative */
	CHECK(rc.nphases == 3);
	CHECK(rc.n_busy == 2);
	CHECK(rc.n_idle == 1);
	if (CHECKED(rc.nphases == 3)) {
		CHECK(!rc.phases[1].busy);
		CHECK(rc.phases[1].run_ns == 5 * MS);
	}
	rank_cpu_release(&rc);
}

/* A thread never contributes more than the interval; a missed sample gives a longer
 * interval; phase averages use those lengths. */
TEST(clamp_and_gap)
{
	struct srow rows[] = {
		{ 0, 100, 100, 0, 0 },
		{ 20 * MS, 100, 100, 35 * MS, 0 },	/* 35 ms in 20: clamped to 20 */
		{ 40 * MS, 100, 100, 55 * MS, 0 },
		{ 140 * MS, 100, 100, 60 * MS, 0 },	/* 100 ms interval, 5 ms run: idle */
		{ 160 * MS, 100, 100, 61 * MS, 0 },
		{ 180 * MS, 100, 100, 81 * MS, 0 },
	};
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	const char *path = tmp("gap.tsv");

	CHECK(write_rows(path, false, rows, 6) == 0);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.run_ns == (20 + 20 + 5 + 1 + 20) * MS);
	CHECK(rc.n_busy == 2);
	CHECK(rc.n_idle == 1);
	CHECK_NEAR(rc.avg_busy_ns, 30.0 * MS, 1e-3);	/* (40 + 20) / 2 */
	CHECK_NEAR(rc.avg_idle_ns, 120.0 * MS, 1e-3);
	CHECK(rc.elapsed_ns == 180 * MS);
	rank_cpu_release(&rc);
}

/* A thread missing from some samples counts its whole increase, clamped to the interval,
 * where it reappears. */
TEST(thread_gap)
{
	struct srow rows[] = {
		{ 0, 100, 100, 0, 0 },
		{ 0, 100, 101, 0, 0 },
		{ 20 * MS, 100, 100, 1 * MS, 0 },
		{ 20 * MS, 100, 101, 4 * MS, 0 },
		{ 40 * MS, 100, 100, 2 * MS, 0 },	/* 101 missing */
		{ 60 * MS, 100, 100, 3 * MS, 0 },	/* 101 missing */
		{ 80 * MS, 100, 100, 4 * MS, 0 },
		{ 80 * MS, 100, 101, 12 * MS, 0 },	/* back: +8 ms in this interval */
		{ 100 * MS, 100, 100, 5 * MS, 0 },
		{ 100 * MS, 100, 101, 60 * MS, 0 },	/* +48 ms: clamped to 20 */
	};
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	const char *path = tmp("gapthread.tsv");

	CHECK(write_rows(path, false, rows, sizeof rows / sizeof rows[0]) == 0);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.threads == 2);
	CHECK(rc.resets == 0);
	CHECK(rc.bad_rows == 0);
	CHECK(rc.run_ns == (5 + 1 + 1 + 9 + 21) * MS);
	/* idle idle idle idle busy */
	CHECK(rc.nphases == 2);
	CHECK(rc.n_idle == 1);
	CHECK(rc.n_busy == 1);
	if (CHECKED(rc.nphases == 2))
		CHECK(rc.phases[1].t_start_ns == REAL0 + 80 * MS);
	rank_cpu_release(&rc);
}

/* Damaged rows are counted and skipped; the result is that of the clean rows. */
TEST(damaged_rows)
{
	const char *path = tmp("rank-7.tsv");
	FILE *f = fopen(path, "w");
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	int64_t m = MONO0, r = REAL0;

	CHECK(f != NULL);
	if (f == NULL)
		return;
	fprintf(f, "# contend-samples 1\n");
	for (int i = 0; sample_cols[i]; i++)
		fprintf(f, "%s%c", sample_cols[i], sample_cols[i + 1] ? '\t' : '\n');
#define ROW(dm, pid, tid, run) \
	fprintf(f, "%" PRId64 "\t%" PRId64 "\t%d\t%d\tR\t0\t0\t%lld\t0\t0\t0\n", m + (dm), r + (dm), \
		pid, tid, (long long)(run))
	ROW(0, 100, 100, 0);
	fprintf(f, "%" PRId64 "\t%" PRId64 "\t100\t100\tR\t0\n", m, r);	/* too few fields */
	ROW(20 * MS, 100, 100, 20 * MS);
	fprintf(f, "%" PRId64 "\t%" PRId64 "\t100\t101\tR\t0\t0\tabc\t0\t0\t0\n", m + 20 * MS, r + 20 * MS);
	ROW(20 * MS, 100, 102, -5);		/* negative counter */
	ROW(20 * MS, 0, 100, 5 * MS);		/* pid 0 */
	ROW(20 * MS, 100, 100, 20 * MS);	/* twice in one sample */
	ROW(10 * MS, 100, 103, 1);		/* time goes backwards */
	fprintf(f, "%" PRId64 "\t%" PRId64 "\t100\t104\tR\t0\t0\t1\t0\t0\t0\n", m + 20 * MS, r + 99);	/* real differs */
	fprintf(f, "%" PRId64 "\t%" PRId64 "\t100\t105\tR\t0\t0\t1\t0\t0\t0\textra\n", m + 20 * MS, r + 20 * MS);
	fprintf(f, "# a comment line is fine\n");
	ROW(40 * MS, 100, 100, 21 * MS);
	ROW(60 * MS, 100, 100, 41 * MS);
#undef ROW
	fclose(f);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.rank == 7);
	CHECK(rc.bad_rows == 8);
	CHECK(strstr(rc.first_bad, "line 4") != NULL);	/* the first one, named */
	CHECK(rc.samples == 4);
	CHECK(rc.threads == 1);
	CHECK(rc.run_ns == 41 * MS);
	CHECK(rc.nphases == 3);
	CHECK(rc.n_busy == 2);
	CHECK(rc.n_idle == 1);
	rank_cpu_release(&rc);
}

/* A gzip file cut in the middle keeps the samples before the cut. */
TEST(truncated)
{
	enum { NINT = 3000 };
	static double run[NINT];
	const char *path = tmp("full.tsv.gz"), *cut = tmp("rank-1.tsv.gz");
	struct srow *rows;
	size_t n;
	struct tsv_w w;
	struct err e = { { 0 }, 0 };
	struct stat st;
	off_t flushed = 0;
	struct rank_cpu rc;
	int64_t want_run = 0;

	for (int i = 0; i < NINT; i++)
		run[i] = (i / 7) % 2 ? 2 : 19;	/* 7 busy, 7 idle, ... */
	rows = one_thread(run, NULL, NINT, &n);
	CHECK(tsv_w_open(&w, path, "samples", 1, sample_cols, true, true, &e) == 0);
	for (size_t i = 0; i < n; i++) {
		put_row(&w, &rows[i]);
		CHECK(tsv_w_end(&w, &e) == 0);
		if (i == 1500) {
			CHECK(tsv_w_flush(&w, &e) == 0);
			CHECK(stat(path, &st) == 0);
			flushed = st.st_size;
		}
	}
	CHECK(tsv_w_close(&w, &e) == 0);
	free(rows);
	{
		size_t len;
		FILE *f = fopen(path, "rb");
		char *all;

		CHECK(f != NULL);
		if (f == NULL)
			return;
		fseek(f, 0, SEEK_END);
		len = (size_t)ftell(f);
		rewind(f);
		all = malloc(len);
		CHECK(fread(all, 1, len, f) == len);
		fclose(f);
		CHECK((size_t)flushed + 40 < len);
		f = fopen(cut, "wb");
		if (CHECKED(f))
			CHECK(fwrite(all, 1, (size_t)flushed + 40, f) == (size_t)flushed + 40);
		if (f)
			fclose(f);
		free(all);
	}
	CHECK(phases_from_samples(cut, 0.5, &rc, &e) == 0);
	CHECK(rc.truncated);
	CHECK(rc.rank == 1);
	CHECK(rc.samples >= 1501);
	CHECK(rc.samples < (uint64_t)n);
	for (uint64_t i = 0; i + 1 < rc.samples && i < NINT; i++)
		want_run += (int64_t)llround(run[i] * MS);
	CHECK(rc.run_ns == want_run);
	CHECK(rc.n_busy + rc.n_idle >= 1500 / 7);
	CHECK(rc.t_last_ns == REAL0 + (int64_t)(rc.samples - 1) * 20 * MS);
	/* Full phases in the middle are 7 intervals long. */
	if (CHECKED(rc.nphases > 10))
		CHECK(rc.phases[3].t_end_ns - rc.phases[3].t_start_ns == 140 * MS);
	rank_cpu_release(&rc);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(!rc.truncated);
	CHECK(rc.samples == NINT + 1);
	CHECK(rc.n_busy == (NINT + 13) / 14);
	CHECK(rc.n_idle == NINT / 14);
	CHECK_NEAR(rc.avg_busy_ns, 140.0 * MS, 20.0 * MS);
	rank_cpu_release(&rc);
}

TEST(small_and_bad_files)
{
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	struct srow one = { 0, 100, 100, 5, 5 };
	const char *path = tmp("small.tsv");
	FILE *f;

	CHECK(write_rows(path, false, &one, 0) == 0);		/* header only */
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.samples == 0);
	CHECK(rc.nphases == 0);
	CHECK(rc.avg_busy_ns == 0);
	CHECK(rc.cpu_frac == 0);
	rank_cpu_release(&rc);
	CHECK(write_rows(path, false, &one, 1) == 0);		/* one sample: no interval */
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.samples == 1);
	CHECK(rc.intervals == 0);
	CHECK(rc.nphases == 0);
	CHECK(rc.run_ns == 0);
	CHECK(rc.t_first_ns == REAL0);
	CHECK(rc.t_last_ns == REAL0);
	rank_cpu_release(&rc);
	CHECK(phases_from_samples(tmp("none.tsv"), 0.5, &rc, &e) == -E_IO);
	rank_cpu_release(&rc);
	f = fopen(path, "w");
	fputs("# contend-nodeload 1\nt_mono_ns\tt_real_ns\n", f);
	fclose(f);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == -E_FORMAT);
	f = fopen(path, "w");
	fputs("# contend-samples 1\nt_mono_ns\tt_real_ns\tpid\ttid\trun_ns\n", f);	/* no wait_ns */
	fclose(f);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == -E_FORMAT);
	CHECK(strstr(e.msg, "wait_ns") != NULL);
	f = fopen(path, "w");
	fputs("# contend-samples 2\nt_mono_ns\n", f);
	fclose(f);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == -E_UNSUP);
	/* Only the columns it needs, in another order: fine. */
	f = fopen(path, "w");
	fputs("# contend-samples 1\nwait_ns\trun_ns\ttid\tpid\tt_real_ns\tt_mono_ns\n"
	      "0\t0\t1\t1\t10\t10\n0\t15\t1\t1\t30\t30\n", f);
	fclose(f);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.n_busy == 1);
	CHECK(rc.run_ns == 15);
	CHECK(rc.elapsed_ns == 20);
	rank_cpu_release(&rc);
}

/* Hostile counters near the top of the range saturate instead of overflowing. */
TEST(hostile_values)
{
	const char *path = tmp("hostile.tsv");
	FILE *f = fopen(path, "w");
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };

	CHECK(f != NULL);
	if (f == NULL)
		return;
	fputs("# contend-samples 1\nt_mono_ns\tt_real_ns\tpid\ttid\trun_ns\twait_ns\n"
	      "0\t0\t1\t1\t0\t0\n"
	      "9223372036854775807\t9223372036854775807\t1\t1\t18446744073709551615\t18446744073709551615\n"
	      "9223372036854775807\t9223372036854775807\t1\t2\t18446744073709551615\t18446744073709551615\n"
	      "9223372036854775807\t9223372036854775807\t1\t3\t18446744073709551615\t18446744073709551615\n",
	      f);
	fclose(f);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.samples == 2);
	CHECK(rc.run_ns == INT64_MAX);
	CHECK(rc.wait_ns == INT64_MAX);
	CHECK(rc.n_busy == 1);
	CHECK(rc.cpu_frac >= 1.0);
	rank_cpu_release(&rc);
}

/* phases.tsv rows read back as written. */
TEST(write_rows_back)
{
	double run[10] = { 20, 20, 1, 1, 1, 20, 1, 20, 20, 20 };
	size_t n;
	struct srow *rows = one_thread(run, NULL, 10, &n);
	const char *path = tmp("rank-2.tsv"), *out = tmp("phases.tsv");
	struct rank_cpu rc;
	struct tsv_w w;
	struct tsv_r r;
	struct err e = { { 0 }, 0 };
	size_t i = 0;
	int rcode;

	CHECK(write_rows(path, false, rows, n) == 0);
	free(rows);
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.nphases == 5);
	CHECK(tsv_w_open(&w, out, PHASES_FORMAT, PHASES_VERSION, phases_cols, false, true, &e) == 0);
	CHECK(phases_write(&rc, &w, &e) == 0);
	CHECK(tsv_w_close(&w, &e) == 0);
	CHECK(tsv_r_open(&r, out, PHASES_FORMAT, PHASES_VERSION, phases_cols, &e) == 0);
	while ((rcode = tsv_r_next(&r, &e)) == 1 && i < rc.nphases) {
		int64_t rank, t0, t1, run_ns;

		if (CHECKED(tsv_r_i64(&r, 0, &rank, &e) == 0))
			CHECK(rank == 2);
		CHECK_STR(tsv_r_str(&r, 1), rc.phases[i].busy ? "busy" : "idle");
		if (CHECKED(tsv_r_i64(&r, 2, &t0, &e) == 0))
			CHECK(t0 == rc.phases[i].t_start_ns);
		if (CHECKED(tsv_r_i64(&r, 3, &t1, &e) == 0))
			CHECK(t1 == rc.phases[i].t_end_ns);
		if (CHECKED(tsv_r_i64(&r, 4, &run_ns, &e) == 0))
			CHECK(run_ns == rc.phases[i].run_ns);
		i++;
	}
	CHECK(rcode == 0);
	CHECK(i == 5);
	tsv_r_close(&r);
	rank_cpu_release(&rc);
}

/* 20 intervals of 20 ms of one thread on the CPU all the time, each in user mode (2 utime
 * ticks) when user(i) for interval i (1..20), else in system calls (2 stime ticks). */
/* One row of thread 100/100 at sample i (20 ms apart) with these counters. */
static int
tick_row(struct tsv_w *w, int i, uint64_t ut, uint64_t st, uint64_t run_ns, struct err *e)
{
	tsv_w_i64(w, MONO0 + i * 20 * MS);
	tsv_w_i64(w, REAL0 + i * 20 * MS);
	tsv_w_i64(w, 100);
	tsv_w_i64(w, 100);
	tsv_w_str(w, "R");
	tsv_w_u64(w, ut);
	tsv_w_u64(w, st);
	tsv_w_u64(w, run_ns);
	tsv_w_u64(w, 0);
	tsv_w_u64(w, 0);
	tsv_w_u64(w, 0);
	return tsv_w_end(w, e);
}

static int
on_cpu_samples(const char *path, bool (*user)(int i))
{
	struct tsv_w w;
	struct err e = { { 0 }, 0 };
	uint64_t ut = 40, st = 3;

	if (tsv_w_open(&w, path, "samples", 1, sample_cols, false, true, &e) < 0)
		return -1;
	for (int i = 0; i <= 20; i++) {
		if (i > 0 && user(i))
			ut += 2;
		else if (i > 0)
			st += 2;
		if (tick_row(&w, i, ut, st, (uint64_t)(1000 * MS + i * 20 * MS), &e) < 0)
			break;
	}
	return tsv_w_close(&w, &e);
}

static bool
first_half_user(int i)
{
	return i <= 10;
}

static bool
odd_user(int i)
{
	return i % 2 == 1;
}

/* A rank on the CPU all the time: in user mode for 10 intervals, then in system calls
 * (an MPI library polling) for 10. Weighted by the user share over +-2 intervals, the
 * second half reads as idle; counting system time, all of it is busy. */
TEST(user_share)
{
	const char *path = tmp("rank-5.tsv");
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	struct phases_opts all = { .busy_threshold = 0.5, .count_system = true }, user = { .busy_threshold = 0.5, .count_system = false };

	CHECK(on_cpu_samples(path, first_half_user) == 0);

	CHECK(phases_from_samples_opt(path, &all, &rc, &e) == 0);
	CHECK(rc.n_busy == 1);
	CHECK(rc.n_idle == 0);
	CHECK(rc.system_idle == 0);
	CHECK(rc.utime_ticks == 20);
	CHECK(rc.stime_ticks == 20);
	rank_cpu_release(&rc);

	CHECK(phases_from_samples_opt(path, &user, &rc, &e) == 0);
	CHECK(rc.n_busy == 1);
	CHECK(rc.n_idle == 1);
	CHECK(rc.busy_ns == 200 * MS);
	CHECK(rc.idle_ns == 200 * MS);
	CHECK(rc.system_idle == 10);
	if (CHECKED(rc.nphases == 2)) {
		CHECK(rc.phases[0].busy);
		CHECK(!rc.phases[1].busy);
	}
	CHECK(rc.phases[1].t_start_ns == REAL0 + 200 * MS);
	CHECK(rc.phases[1].t_end_ns == REAL0 + 400 * MS);
	/* run time is kept in full in the phases: only the classification is weighted */
	CHECK(rc.phases[1].run_ns == 200 * MS);
	rank_cpu_release(&rc);
	/* the default entry point counts system time too */
	CHECK(phases_from_samples(path, 0.5, &rc, &e) == 0);
	CHECK(rc.n_busy == 1);
	CHECK(rc.n_idle == 0);
	rank_cpu_release(&rc);
}

/* A rank starved by another process: it runs 4 ms of each 20 ms interval and waits 14 ms
 * on the run queue. By run time it reads idle; by what it wanted (count_wait) busy, and
 * the phase keeps its wait. */
TEST(count_wait)
{
	double run[10], wait[10];
	size_t n;
	struct srow *rows;
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	struct phases_opts got = { .busy_threshold = 0.5, .count_system = true }, wanted = { .busy_threshold = 0.5, .count_system = true, .count_wait = true };
	const char *path = tmp("rank-6.tsv");

	for (int i = 0; i < 10; i++) {
		run[i] = 4;
		wait[i] = 14;
	}
	rows = one_thread(run, wait, 10, &n);
	CHECK(write_rows(path, false, rows, n) == 0);
	free(rows);
	CHECK(phases_from_samples_opt(path, &got, &rc, &e) == 0);
	CHECK(rc.n_busy == 0);
	CHECK(rc.n_idle == 1);
	rank_cpu_release(&rc);
	CHECK(phases_from_samples_opt(path, &wanted, &rc, &e) == 0);
	CHECK(rc.n_busy == 1);
	CHECK(rc.n_idle == 0);
	if (CHECKED(rc.nphases == 1)) {
		CHECK(rc.phases[0].busy);
		CHECK(rc.phases[0].wait_ns == 140 * MS);
	}
	rank_cpu_release(&rc);
}

/* Computing and polling in turns, one 20 ms interval each, on the CPU all the time: over
 * +-2 intervals every interval keeps about half its run time and reads idle at 0.7; from
 * its own ticks (user_alone) every computing interval reads busy. */
TEST(user_alone)
{
	const char *path = tmp("rank-7.tsv");
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	struct phases_opts win = { .busy_threshold = 0.7, .count_system = false }, alone = { .busy_threshold = 0.7, .count_system = false, .user_alone = true };

	CHECK(on_cpu_samples(path, odd_user) == 0);
	CHECK(phases_from_samples_opt(path, &win, &rc, &e) == 0);
	CHECK(rc.n_busy == 0);
	rank_cpu_release(&rc);
	CHECK(phases_from_samples_opt(path, &alone, &rc, &e) == 0);
	CHECK(rc.n_busy == 10);
	CHECK(rc.busy_ns == 200 * MS);
	if (CHECKED(rc.nphases == 20)) {
		CHECK(rc.phases[0].busy);
		CHECK(!rc.phases[1].busy);
	}
	rank_cpu_release(&rc);
}

TEST(waits_from_the_trace)
{
	int64_t send[] = { 52, 10, 50, 70 + 100 * MS }, arr[] = { 70, 30, 60, 40 };
	struct phases_wait *w;
	size_t n = phases_waits(send, 4, arr, 4, PHASES_WAITS_SEND, &w);

	/* 10 -> 30 waited; 40 came after 30 without a send between; 52 -> 60; 70 came after 60
	 * without a send between, and the rank went on sending (the trace does not end there) */
	CHECK(n == 2);
	if (CHECKED(n == 2)) {
		CHECK(w[0].t0_ns == 10);
		CHECK(w[0].t1_ns == 30);
		CHECK(w[1].t0_ns == 52);
		CHECK(w[1].t1_ns == 60);
	}
	free(w);
	if (CHECKED(phases_waits(send, 4, arr, 0, PHASES_WAITS_SEND, &w) == 0))
		CHECK(w == NULL);
	if (CHECKED(phases_waits(send, 0, arr, 4, PHASES_WAITS_SEND, &w) == 0))
		CHECK(w == NULL);
}

/* Whether w is the wait from t0_ms to t1_ms. */
static bool
wait_ms(const struct phases_wait *w, int64_t t0_ms, int64_t t1_ms)
{
	return w->t0_ns == t0_ms * MS && w->t1_ns == t1_ms * MS;
}

/* GARLI's rank 0 at the end of its run: it handed out the work (sends at 100-102 ms), took
 * the results as they came (1000, 1200, 1500 ms), sending nothing until the last one, and
 * then only answered (3 ms later). The wait that began with its last send runs on to the
 * last arrival; the two arrivals at the start (50, 60 ms) stay a gap of no wait. */
TEST(waits_at_the_end)
{
	int64_t send[] = { 1503 * MS, 100 * MS, 101 * MS, 102 * MS, 1503 * MS, 1503 * MS };
	int64_t arr[] = { 1500 * MS, 50 * MS, 1000 * MS, 60 * MS, 1200 * MS };
	int64_t answered[] = { 100 * MS, 1520 * MS }, went_on[] = { 100 * MS, 1520 * MS + 1 };
	int64_t between[] = { 100 * MS, 1100 * MS, 1503 * MS }, after[] = { 1103 * MS };
	int64_t last3[] = { 1000 * MS, 1200 * MS, 1500 * MS };
	int64_t close3[] = { 1000 * MS, 1050 * MS, 1099 * MS };	/* gaps under PHASES_LONG_WAIT_NS */
	struct phases_wait *w;
	size_t n = phases_waits(send, 6, arr, 5, PHASES_WAITS_SEND, &w);

	CHECK(n == 3);
	if (CHECKED(n == 3)) {
		CHECK(wait_ms(&w[0], 102, 1000));
		CHECK(wait_ms(&w[1], 1000, 1200));
		CHECK(wait_ms(&w[2], 1200, 1500));
	}
	free(w);
	/* --waits any has them already, once each, with the gap at the start */
	n = phases_waits(send, 6, arr, 5, PHASES_WAITS_ANY, &w);
	CHECK(n == 4);
	if (CHECKED(n == 4)) {
		CHECK(w[0].t0_ns == 50 * MS);
		CHECK(w[3].t0_ns == 1200 * MS);
	}
	free(w);
	/* an answer PHASES_ANSWER_NS after the last arrival is one; a send later is not (the
	 * short gaps between the results are then no wait; long ones are, and are tested in
	 * long_waits_after_an_arrival) */
	n = phases_waits(answered, 2, last3, 3, PHASES_WAITS_SEND, &w);
	CHECK(n == 3);
	free(w);
	answered[1] = 1099 * MS + PHASES_ANSWER_NS;
	went_on[1] = 1099 * MS + PHASES_ANSWER_NS + 1;
	n = phases_waits(answered, 2, close3, 3, PHASES_WAITS_SEND, &w);
	CHECK(n == 3);
	free(w);
	n = phases_waits(went_on, 2, close3, 3, PHASES_WAITS_SEND, &w);
	CHECK(n == 1);
	free(w);
	/* a send between the arrivals starts the wait that runs on */
	n = phases_waits(between, 3, last3, 3, PHASES_WAITS_SEND, &w);
	CHECK(n == 3);
	if (CHECKED(n == 3)) {
		CHECK(wait_ms(&w[1], 1100, 1200));
		CHECK(wait_ms(&w[2], 1200, 1500));
	}
	free(w);
	/* no send before the last arrival: no wait to run on */
	n = phases_waits(after, 1, close3, 3, PHASES_WAITS_SEND, &w);
	CHECK(n == 0);
	CHECK(w == NULL);
}

/* The same end read from the samples, on a whole core (6 ticks an interval, so that each
 * interval's share is its own): the rank sends at 10 ms and works to 200 ms, polls to the
 * first result at 300 ms, works on it to 400 ms, polls to the last at 500 ms, answers at
 * 502 ms and works to 600 ms. The polling before the last result is idle; the work between
 * the results stays busy. */
TEST(polling_at_the_end_is_idle)
{
	const char *path = tmp("rank-8.tsv");
	struct tsv_w w;
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	int64_t send[] = { REAL0 + 10 * MS, REAL0 + 502 * MS };
	int64_t arr[] = { REAL0 + 300 * MS, REAL0 + 400 * MS, REAL0 + 500 * MS };
	struct phases_wait *waits;
	size_t nw = phases_waits(send, 2, arr, 3, PHASES_WAITS_SEND, &waits);
	struct phases_opts o = { .busy_threshold = 0.5, .count_system = true, .waits = waits, .nwaits = nw };
	uint64_t ut = 0, st = 0;

	CHECK(tsv_w_open(&w, path, "samples", 1, sample_cols, false, true, &e) == 0);
	for (int i = 0; i <= 30; i++) {
		if (i > 0 && ((i > 10 && i <= 15) || (i > 20 && i <= 25)))
			st += 6;
		else if (i > 0)
			ut += 6;
		CHECK(tick_row(&w, i, ut, st, (uint64_t)(i * 20 * MS), &e) == 0);
	}
	CHECK(tsv_w_close(&w, &e) == 0);
	CHECK(phases_from_samples_opt(path, &o, &rc, &e) == 0);
	CHECK(rc.polling == 10);
	CHECK(rc.busy_ns == 400 * MS);
	CHECK(rc.idle_ns == 200 * MS);
	if (CHECKED(rc.nphases == 5)) {
		CHECK(rc.phases[2].busy);
		CHECK(rc.phases[2].t_start_ns == REAL0 + 300 * MS);
		CHECK(!rc.phases[3].busy);
		CHECK(rc.phases[3].t_start_ns == REAL0 + 400 * MS);
		CHECK(rc.phases[3].t_end_ns == REAL0 + 500 * MS);
	}
	rank_cpu_release(&rc);
	free(waits);
}

/* ScaLAPACK's LU under MPICH (bench/realapps 4x1), rank 1: it answers its pivots within
 * milliseconds, then takes a panel and hears nothing, sending nothing, for 0.64-0.80 s
 * while the other process column factors the next one; PMPI has it inside MPI_Recv all
 * that time. Such a gap is a wait under PHASES_WAITS_SEND once it lasts
 * PHASES_LONG_WAIT_NS; a shorter one (an arrival, 30 ms, the next) is not. */
TEST(long_waits_after_an_arrival)
{
	const int64_t L = PHASES_LONG_WAIT_NS;
	int64_t send[] = { 5 * MS, 854 * MS, 935 * MS, 1000 * MS + 2 * L + 500 * MS };
	int64_t arr[] = { 100 * MS, 850 * MS, 900 * MS, 930 * MS, 1000 * MS, 1000 * MS + L - 1,
			  1000 * MS + 2 * L - 1 };
	struct phases_wait *w;
	size_t n = phases_waits(send, 4, arr, 7, PHASES_WAITS_SEND, &w);

	/* 5 -> 100 and 854 -> 900 and 935 -> 1000 (sends); 100 -> 850 (long); 900 -> 930 short;
	 * 1000 -> 1000 + L - 1 one ns short; the next exactly L */
	CHECK(n == 5);
	if (CHECKED(n == 5)) {
		CHECK(wait_ms(&w[0], 5, 100));
		CHECK(wait_ms(&w[1], 100, 850));
		CHECK(wait_ms(&w[2], 854, 900));
		CHECK(wait_ms(&w[3], 935, 1000));
		CHECK(w[4].t0_ns == 1000 * MS + L - 1);
		CHECK(w[4].t1_ns == 1000 * MS + 2 * L - 1);
	}
	free(w);
}

/* The same on the samples, under a 50 % quota (one 10 ms tick per 20 ms interval): the
 * rank works to 200 ms, takes a message, polls 240 ms at MPICH's user share (a user tick in
 * every third interval), takes the next at 440 ms, answers at 442 ms and works to 600 ms.
 * It never sent before, so only the long gap makes the polling a wait: 12 intervals idle.
 * Had it computed on the first message (user ticks), the gap stays busy. */
TEST(polling_after_an_arrival_is_idle)
{
	const char *path = tmp("rank-9.tsv");
	int64_t send[] = { REAL0 + 442 * MS }, arr[] = { REAL0 + 200 * MS, REAL0 + 440 * MS };
	struct tsv_w w;
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	struct phases_wait *waits;
	size_t nw = phases_waits(send, 1, arr, 2, PHASES_WAITS_SEND, &waits);
	struct phases_opts o = { .busy_threshold = 0.25, .count_system = true, .waits = waits, .nwaits = nw };

	CHECK(nw == 1);
	for (int poll = 1; poll >= 0; poll--) {
		uint64_t ut = 0, st = 0;

		CHECK(tsv_w_open(&w, path, "samples", 1, sample_cols, false, true, &e) == 0);
		for (int i = 0; i <= 30; i++) {
			if (i > 0 && (!poll || i <= 10 || i > 22 || (i - 11) % 3 == 1))
				ut++;
			else if (i > 0)
				st++;
			CHECK(tick_row(&w, i, ut, st, (uint64_t)(i * 10 * MS), &e) == 0);
		}
		CHECK(tsv_w_close(&w, &e) == 0);
		CHECK(phases_from_samples_opt(path, &o, &rc, &e) == 0);
		if (poll) {
			CHECK(rc.polling == 12);
			CHECK(rc.idle_ns == 12 * 20 * MS);
			if (CHECKED(rc.nphases == 3)) {
				CHECK(rc.phases[1].t_start_ns == REAL0 + 200 * MS);
				CHECK(rc.phases[1].t_end_ns == REAL0 + 440 * MS);
			}
		} else {
			CHECK(rc.polling == 0);
			CHECK(rc.busy_ns == 30 * 20 * MS);
		}
		rank_cpu_release(&rc);
	}
	free(waits);
}

/* --waits any: an arrival with no send since the one before waits from that one too; the
 * first arrival of a rank that never sent has nothing before it */
TEST(waits_after_an_arrival)
{
	int64_t send[] = { 52, 10, 50 }, arr[] = { 70, 30, 60, 40 };
	int64_t only[] = { 5, 9, 20 };
	struct phases_wait *w;
	size_t n = phases_waits(send, 3, arr, 4, PHASES_WAITS_ANY, &w);

	/* 10 -> 30 (after a send), 30 -> 40 (after an arrival), 52 -> 60, 60 -> 70 */
	CHECK(n == 4);
	if (CHECKED(n == 4)) {
		CHECK(w[0].t0_ns == 10);
		CHECK(w[0].t1_ns == 30);
		CHECK(w[1].t0_ns == 30);
		CHECK(w[1].t1_ns == 40);
	}
	if (CHECKED(n == 4)) {
		CHECK(w[2].t0_ns == 52);
		CHECK(w[2].t1_ns == 60);
		CHECK(w[3].t0_ns == 60);
		CHECK(w[3].t1_ns == 70);
	}
	free(w);
	n = phases_waits(send, 0, only, 3, PHASES_WAITS_ANY, &w);
	CHECK(n == 2);
	if (CHECKED(n == 2)) {
		CHECK(w[0].t0_ns == 5);
		CHECK(w[0].t1_ns == 9);
		CHECK(w[1].t0_ns == 9);
		CHECK(w[1].t1_ns == 20);
	}
	free(w);
}

/* A rank that always runs: 4 rounds of 3 intervals of work (user ticks) then 3 of polling
 * (system ticks, or user ticks in the last round: work posted after a send), with the
 * trace's waits over the second half of each round. */
TEST(polling_inside_a_wait_is_idle)
{
	const char *path = tmp("rank-6.tsv");
	struct tsv_w w;
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	struct phases_wait waits[4];
	struct phases_opts o = { .busy_threshold = 0.5, .count_system = true, .waits = waits, .nwaits = 4 }, none = { .busy_threshold = 0.5, .count_system = true };
	uint64_t ut = 0, st = 0;

	for (int r = 0; r < 4; r++)	/* the send 2 ms into the 4th interval, the arrival at the 6th's end */
		waits[r] = (struct phases_wait){ REAL0 + (r * 6 + 3) * 20 * MS + 2 * MS, REAL0 + (r * 6 + 6) * 20 * MS };
	CHECK(tsv_w_open(&w, path, "samples", 1, sample_cols, false, true, &e) == 0);
	for (int i = 0; i <= 24; i++) {
		if (i > 0 && ((i - 1) % 6 < 3 || i > 18))
			ut += 2;
		else if (i > 0)
			st += 1, ut += (i % 2);	/* polling: a user share of 0 or 0.5 */
		CHECK(tick_row(&w, i, ut, st, (uint64_t)(1000 * MS + i * 20 * MS), &e) == 0);
	}
	CHECK(tsv_w_close(&w, &e) == 0);

	CHECK(phases_from_samples_opt(path, &none, &rc, &e) == 0);
	CHECK(rc.n_busy == 1);
	CHECK(rc.n_idle == 0);
	CHECK(rc.polling == 0);
	rank_cpu_release(&rc);
	/* rounds 1-3 poll for 3 intervals each; round 4's work inside its wait stays busy */
	CHECK(phases_from_samples_opt(path, &o, &rc, &e) == 0);
	CHECK(rc.polling == 9);
	CHECK(rc.n_busy == 4);
	CHECK(rc.n_idle == 3);
	CHECK(rc.busy_ns == 15 * 20 * MS);
	CHECK(rc.idle_ns == 9 * 20 * MS);
	if (CHECKED(rc.nphases == 7)) {
		CHECK(!rc.phases[1].busy);
		CHECK(rc.phases[1].t_start_ns == REAL0 + 60 * MS);
		CHECK(rc.phases[1].t_end_ns == REAL0 + 120 * MS);
	}
	rank_cpu_release(&rc);
}

/* A rank under a 50 % quota: one 10 ms tick per 20 ms interval. 10 intervals of work, 12
 * of polling inside one wait of the trace (a user tick in every third: MPICH's share is
 * 0.43), 8 of work. Alone, an interval with a user tick reads a share of 1; the rule takes
 * the share over PHASES_POLL_MIN_TICKS ticks, so the wait is one idle phase (by its own
 * ticks: 4 of its intervals busy, 9 phases). */
TEST(polling_share_over_enough_ticks)
{
	const char *path = tmp("rank-7.tsv");
	struct tsv_w w;
	struct rank_cpu rc;
	struct err e = { { 0 }, 0 };
	struct phases_wait wait = { REAL0 + 10 * 20 * MS, REAL0 + 22 * 20 * MS };
	struct phases_opts o = { .busy_threshold = 0.25, .count_system = true, .waits = &wait, .nwaits = 1 };
	uint64_t ut = 0, st = 0;

	CHECK(tsv_w_open(&w, path, "samples", 1, sample_cols, false, true, &e) == 0);
	for (int i = 0; i <= 30; i++) {
		if (i > 0 && (i <= 10 || i > 22 || (i - 11) % 3 == 1))
			ut++;
		else if (i > 0)
			st++;
		CHECK(tick_row(&w, i, ut, st, (uint64_t)(i * 10 * MS), &e) == 0);
	}
	CHECK(tsv_w_close(&w, &e) == 0);
	CHECK(phases_from_samples_opt(path, &o, &rc, &e) == 0);
	CHECK(rc.polling == 12);
	CHECK(rc.nphases == 3);
	CHECK(rc.n_busy == 2);
	CHECK(rc.n_idle == 1);
	if (CHECKED(rc.nphases == 3)) {
		CHECK(rc.phases[1].t_start_ns == REAL0 + 200 * MS);
		CHECK(rc.phases[1].t_end_ns == REAL0 + 440 * MS);
	}
	CHECK(rc.busy_ns == 18 * 20 * MS);
	CHECK(rc.idle_ns == 12 * 20 * MS);
	rank_cpu_release(&rc);
}

/* A row whose t_mono_ns lies far outside the rank's run (as in a damaged file) is counted
 * and skipped; without the window it would end the run 146 years later. */
TEST(outside_run)
{
	double run[10] = { 20, 20, 20, 0, 0, 20, 20, 20, 0, 0 };
	size_t n;
	struct srow *rows = one_thread(run, NULL, 10, &n);
	const char *path = tmp("rank-3.tsv.gz");
	struct phases_opts o = { .busy_threshold = 0.5, .count_system = true,
				   .min_mono_ns = MONO0 - 1000 * MS, .max_mono_ns = MONO0 + 1000 * MS };
	struct rank_cpu rc, all;
	struct err e = { { 0 }, 0 };

	rows = realloc(rows, (n + 1) * sizeof *rows);
	rows[n] = rows[n - 1];
	rows[n].t_ns = ((int64_t)1 << 62) - MONO0;	/* 146 years after boot */
	rows[n].run_ns += 5 * MS;
	CHECK(write_rows(path, true, rows, n + 1) == 0);
	CHECK(phases_from_samples_opt(path, &o, &rc, &e) == 0);
	CHECK(rc.bad_rows == 1);
	CHECK(rc.out_of_run == 1);
	CHECK(rc.rows == n);
	CHECK(strstr(rc.first_bad, "line 14: t_mono_ns 4611686018427387904 is outside") != NULL);
	CHECK(rc.elapsed_ns == 200 * MS);
	CHECK(rc.n_busy == 2);
	CHECK(rc.n_idle == 2);
	o.min_mono_ns = o.max_mono_ns = 0;	/* no window: the row is believed */
	CHECK(phases_from_samples_opt(path, &o, &all, &e) == 0);
	CHECK(all.bad_rows == 0);
	CHECK(all.elapsed_ns > 1000000 * MS);
	rank_cpu_release(&rc);
	rank_cpu_release(&all);
	free(rows);
}

/* A phases_judge callback that counts what it is told. */
static void
count_say(void *ctx, const char *msg)
{
	(void)msg;
	(*(int *)ctx)++;
}

/* cut_real_ns (a hung end, parse/tail.h): the first sample at or past the cut is the last
 * one read, later ones are dropped and counted, not bad, and the agent's sample count
 * still agrees. */
TEST(cut_at_real_time)
{
	double run[50];
	size_t n;
	struct srow *rows;
	struct rank_cpu rc;
	struct phases_opts o = { .busy_threshold = 0.5, .count_system = true };
	struct err e = { { 0 }, 0 };
	const char *path = tmp("rank-1.tsv.gz");
	int said = 0;

	for (int i = 0; i < 50; i++)
		run[i] = i < 10 ? 5 : 20;	/* idle 200 ms, then spinning */
	rows = one_thread(run, NULL, 50, &n);
	CHECK(write_rows(path, true, rows, n) == 0);
	free(rows);
	o.cut_real_ns = REAL0 + 250 * MS;	/* between samples 12 and 13 */
	CHECK(phases_from_samples_opt(path, &o, &rc, &e) == 0);
	CHECK(rc.samples == 14);
	CHECK(rc.cut_samples == 37);
	CHECK(rc.bad_rows == 0);
	CHECK(rc.t_last_ns == REAL0 + 260 * MS);
	CHECK(rc.elapsed_ns == 260 * MS);
	CHECK(rc.n_idle == 1);
	CHECK(rc.n_busy == 1);
	CHECK(rc.busy_ns == 60 * MS);
	if (CHECKED(phases_judge(&rc, path, 51, count_say, &said)))
		CHECK(said == 0);
	rank_cpu_release(&rc);
	o.cut_real_ns = REAL0 + 260 * MS;	/* on a sample: that one is the last */
	CHECK(phases_from_samples_opt(path, &o, &rc, &e) == 0);
	CHECK(rc.samples == 14);
	CHECK(rc.t_last_ns == REAL0 + 260 * MS);
	rank_cpu_release(&rc);
	o.cut_real_ns = REAL0 + 5000 * MS;	/* past the end: nothing dropped */
	CHECK(phases_from_samples_opt(path, &o, &rc, &e) == 0);
	CHECK(rc.samples == 51);
	CHECK(rc.cut_samples == 0);
	rank_cpu_release(&rc);
}

int
main(void)
{
	RUN(pattern);
	RUN(threshold);
	RUN(threads);
	RUN(counter_reset);
	RUN(clamp_and_gap);
	RUN(thread_gap);
	RUN(damaged_rows);
	RUN(truncated);
	RUN(small_and_bad_files);
	RUN(hostile_values);
	RUN(write_rows_back);
	RUN(user_share);
	RUN(waits_from_the_trace);
	RUN(waits_after_an_arrival);
	RUN(long_waits_after_an_arrival);
	RUN(polling_after_an_arrival_is_idle);
	RUN(waits_at_the_end);
	RUN(polling_at_the_end_is_idle);
	RUN(polling_inside_a_wait_is_idle);
	RUN(polling_share_over_enough_ticks);
	RUN(count_wait);
	RUN(user_alone);
	RUN(outside_run);
	RUN(cut_at_real_time);
	return check_done();
}
