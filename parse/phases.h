/* phases: one rank's CPU busy and idle phases, rebuilt from its sample file.
 *
 * Input: RUN/samples/rank-<R>.tsv.gz (format "samples" v1, docs/formats.md), one row per
 * thread per sample; the rows of one sample share t_mono_ns and t_real_ns.
 *
 * Between two consecutive samples (an interval) the rank's run time is the sum over all
 * its threads of the increase of run_ns (likewise wait_ns, time spent runnable on a run
 * queue), where:
 *  - a thread seen in both samples contributes run_ns(now) - run_ns(before);
 *  - a thread seen for the first time after the first sample, or a (pid, tid) whose run_ns
 *    or wait_ns went backwards (the pid was reused by a new process), contributes its whole
 *    run_ns, since it started inside the interval; the latter is counted in `resets`;
 *  - a thread missing from some samples and seen again contributes its whole increase to
 *    the interval where it reappears;
 *  - a thread's contribution is clamped to the interval's length (one thread runs on at
 *    most one CPU), and the run of a thread between its last sample and its exit is not
 *    seen by anyone.
 * Polling is not work. Open MPI and MPICH spin while a rank waits for a message, so its
 * samples read busy. With the rank's waits from the message trace (opts.waits: from a send
 * to the next arrival), an interval at least half inside a wait whose own user share is
 * under PHASES_POLL_USER_SHARE counts as idle: measured on the testbed (2 ranks passing a
 * token, 60 ms of work per hop), waiting intervals had a user share of 0.30 (Open MPI 4.1)
 * and 0.40-0.45 (MPICH 4.0), working ones 0.91-0.97, at the same run time (0.9 of the
 * interval); the voluntary and involuntary switches did not tell them apart. The share is
 * taken over at least PHASES_POLL_MIN_TICKS ticks: an interval with fewer adds the ticks
 * of its neighbours that lie wholly inside waits, nearest first, up to PHASES_POLL_WINDOW
 * each side. A 20 ms interval under a 50 % quota holds about one 10 ms tick, so alone it
 * reads a share of 0 or 1: a polling MPICH rank (0.43) read 1 in a quarter of its waiting
 * intervals, and those, busy, cut its waits into pieces; a computing rank whose wait
 * covers its work (an early send) read 0 ticks now and then, and those, idle, cut its
 * work.
 *
 * Run time spent in the kernel can be waiting, not work: an MPI library that polls while
 * it waits (Open MPI over TCP) keeps its rank on the CPU, mostly in poll and read system
 * calls. So, unless count_system is set, an interval's run time is weighted by the rank's
 * user share, utime / (utime + stime) (the tick counts of /proc/PID/task/TID/stat) over
 * the PHASES_USER_WINDOW intervals each side of it (the ticks are too coarse for one 20 ms
 * interval); no ticks in the window: weight 1. A rank computing in user mode keeps its
 * run time (weight 0.9 and more), a polling one loses most of it (0.25 on the testbed).
 * An interval is busy when its (weighted) run time >= busy_threshold * its length; consecutive
 * intervals of the same kind form one phase that starts and ends at sample times. This is
 * the 20 ms probe of paper 003 (Venkataramaiah & Subhlok, Section 3): the averages of the
 * busy and idle phase durations are its busytimephase and idletimephase. All phases count,
 * the first and last too (they may have been cut by the start and end of sampling).
 *
 * Damaged rows (wrong field count, a field that does not parse, a pid or tid <= 0, a time
 * going backwards or outside the rank's run, a thread twice in one sample) are counted in
 * bad_rows and skipped; a gzip file cut short keeps every sample before the cut and sets
 * truncated; one whose gzip data is damaged keeps every row before the damage and sets
 * damaged. */
#ifndef PARSE_PHASES_H
#define PARSE_PHASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/tsv.h"

#define PHASES_THRESHOLD_DEFAULT 0.5	/* busy when the rank ran half the interval */
#define PHASES_MAX_THREADS 65536	/* distinct (pid, tid) followed per rank */
#define PHASES_MAX_PHASES (1u << 24)	/* phases kept in the list (the sums go on) */
#define PHASES_USER_WINDOW 2		/* intervals each side in the user share */

#define PHASES_POLL_USER_SHARE 0.75	/* below it, an interval inside a wait polled */
#define PHASES_POLL_MIN_TICKS 6		/* ticks the share of a wait's interval is taken over */
#define PHASES_POLL_WINDOW 4		/* intervals each side it may take them from */
#define PHASES_ANSWER_NS 20000000LL	/* a send this soon after a rank's last arrival
					 * answers it (one sample interval) */
#define PHASES_LONG_WAIT_NS 100000000LL	/* an arrival, then nothing sent or received for
					 * this long (5 sample intervals, 10 quota periods):
					 * a wait under PHASES_WAITS_SEND too */

/* A stretch the message trace says a rank waited through: from its last send to the
 * arrival of the next message for it, with no other arrival between, or from an arrival
 * to the next (phases_waits; CLOCK_REALTIME ns). */
struct phases_wait {
	int64_t t0_ns, t1_ns;
};

/* How the samples are read. */
struct phases_opts {
	double busy_threshold;	/* fraction of an interval, (0, 1024] */
	bool count_system;	/* busy by all run time, system time too (no user weighting) */
	const struct phases_wait *waits;	/* the rank's waits from the trace, sorted, not
						 * overlapping (phases_waits); NULL: none */
	size_t nwaits;
	bool count_wait;	/* busy by run time plus run-queue wait: what the rank wanted,
				 * not what it got (contend explain: a rank starved by another
				 * process still reads busy) */
	bool user_alone;	/* the user share of each interval from its own ticks, not its
				 * neighbours' (coarser, but a polling interval next to a
				 * computing one keeps no user share) */
	/* The rank's run on CLOCK_MONOTONIC (from its meta file, with some slack): a row
	 * whose t_mono_ns is outside [min_mono_ns, max_mono_ns] is damaged. Both 0: no check. */
	int64_t min_mono_ns, max_mono_ns;
	/* A cut (CLOCK_REALTIME ns, 0: none): the first sample at or past it is the rank's
	 * last, later ones are dropped (counted in cut_samples, not bad). contend parse sets
	 * it for a rank whose end hung after the run's last message (parse/tail.h). */
	int64_t cut_real_ns;
};

/* One busy or idle phase. Times are CLOCK_REALTIME ns of the samples that bound it. */
struct phase {
	int64_t t_start_ns, t_end_ns;
	bool busy;
	int64_t run_ns;		/* CPU time of all the rank's threads within the phase */
	int64_t wait_ns;	/* run-queue wait of all its threads within the phase */
};

/* What one rank's samples say. */
struct rank_cpu {
	int rank;		/* from the file name rank-<R>.tsv[.gz], -1 when it has none */
	int64_t t_first_ns, t_last_ns;	/* CLOCK_REALTIME of the first and last sample */
	int64_t elapsed_ns;	/* CLOCK_MONOTONIC from the first to the last sample */
	int64_t run_ns;		/* CPU time summed over the intervals */
	int64_t wait_ns;	/* run-queue wait summed over the intervals */
	double cpu_frac;	/* run_ns / elapsed_ns (can pass 1 with several threads); 0 if no interval */
	/* Phase durations are measured on CLOCK_MONOTONIC (sums of interval lengths), so a
	 * realtime step during the run does not distort them. */
	double avg_busy_ns;	/* busytimephase: mean busy phase duration, 0 when none */
	double avg_idle_ns;	/* idletimephase: mean idle phase duration, 0 when none */
	int64_t busy_ns, idle_ns;	/* total duration of busy and of idle phases */
	size_t n_busy, n_idle;	/* phases of each kind (all of them, even past the list's cap) */
	size_t nphases;		/* entries in phases (n_busy + n_idle unless phases_over_cap) */
	struct phase *phases;	/* owned, in time order; freed by rank_cpu_release */
	uint64_t samples;	/* distinct sample times read */
	uint64_t intervals;	/* samples - 1, or 0 */
	uint64_t rows;		/* rows used */
	uint64_t bad_rows;	/* damaged rows skipped (out_of_run among them) */
	uint64_t cut_samples;	/* distinct sample times dropped past opts.cut_real_ns */
	uint64_t out_of_run;	/* rows whose t_mono_ns is outside [min_mono_ns, max_mono_ns] */
	uint64_t threads;	/* distinct (pid, tid) followed */
	uint64_t resets;	/* counters that went backwards (pid reused) */
	uint64_t threads_over_cap;	/* rows of threads past PHASES_MAX_THREADS, ignored */
	uint64_t phases_over_cap;	/* phases past PHASES_MAX_PHASES, summed but not listed */
	uint64_t system_idle;	/* intervals that ran enough but, weighted by the user share,
				 * count as idle */
	uint64_t polling;	/* intervals that ran enough but polled: at least half inside a
				 * wait of the trace, user share under PHASES_POLL_USER_SHARE */
	int64_t utime_ticks, stime_ticks;	/* summed over the intervals */
	bool truncated;		/* the gzip file was cut short */
	bool damaged;		/* its gzip data is damaged: the rows before the damage are kept */
	char damage[ERR_MSG_MAX];	/* where, when damaged */
	char first_bad[ERR_MSG_MAX];	/* message of the first bad row, "" when none */
};

/* Read the sample file at path and fill out (which is overwritten; release it with
 * rank_cpu_release, also after a failure). busy_threshold is the fraction of an interval
 * the rank must run to count as busy, in (0, 1024]; PHASES_THRESHOLD_DEFAULT is paper
 * 003's choice. Returns 0, also for a truncated file and with bad rows (see out->truncated,
 * out->bad_rows); negative with e set when the file cannot be opened or is not a samples
 * file (-E_IO, -E_FORMAT, -E_UNSUP), on a read error (-E_IO), or for a bad threshold
 * (-E_USAGE). A file with no rows, or one sample, gives no phases and zero averages. */
int phases_from_samples(const char *path, double busy_threshold, struct rank_cpu *out,
			struct err *e) WUR;
/* The same with every option; phases_from_samples is this with count_system true.
 * contend parse counts system time (count_system) unless --busy-user-only: for sharing a
 * CPU (paper 003) a polling rank competes like a busy one; for the work a rank does per
 * task (paper 001's T_MasterCPU) only its user time counts. */
int phases_from_samples_opt(const char *path, const struct phases_opts *o, struct rank_cpu *out,
			    struct err *e) WUR;

/* Which gaps of a rank's message trace are waits (contend parse --waits). */
enum phases_wait_rule {
	PHASES_WAITS_SEND,	/* from a send to the next arrival, no arrival between; from
				 * an arrival to the next at least PHASES_LONG_WAIT_NS
				 * later, no send between; at the end of the trace, on to
				 * the last arrival */
	PHASES_WAITS_ANY,	/* also from an arrival to the next, no send between */
	PHASES_WAITS_AUTO,	/* per rank: SEND under a CPU quota below a core, else ANY
				 * (parse only; phases_waits takes SEND or ANY) */
};

/* The waits of one rank from its send times and the arrival times of the messages it
 * received (both any order; both arrays are sorted in place): for each arrival, the stretch
 * from the latest send before it, when no other arrival came between (a rank that sent
 * and then heard nothing until this message was waiting for it: Open MPI and MPICH poll
 * then, so its samples read busy); with PHASES_WAITS_ANY also from the arrival before it
 * when no send came between (a rank that received and then sent nothing until the next
 * message: it computed on what came, or waited for more; the user share tells). With
 * PHASES_WAITS_SEND, such stretches are waits only when they last PHASES_LONG_WAIT_NS or
 * more (a poller's wait that long holds one quota delay, not one per period) and at the
 * end of the rank's trace: the wait that began with its last send before its last arrival
 * runs on through the arrivals after that send, when after the last one the rank sent
 * nothing but answers (within PHASES_ANSWER_NS): it was waiting for the rest (a master
 * taking the last results one by one). Returns the number of waits; *out is owned by the caller (free), NULL when none. */
size_t phases_waits(int64_t *send_ns, size_t nsend, int64_t *arr_ns, size_t narr, enum phases_wait_rule rule,
		    struct phases_wait **out);
/* Slack around a rank's run for its sample times (the agent samples from its own start). */
#define PHASES_RUN_SLACK_NS 2000000000LL
/* A samples file with more bad rows than this share of its rows is not used: what is
 * left (a few rows of a shuffled file) would be a confident wrong answer. */
#define PHASES_MAX_BAD_SHARE 0.5

/* Set o's window to a rank's run [start_mono_ns, end_mono_ns] (its meta file) widened by
 * PHASES_RUN_SLACK_NS each side. */
void phases_opts_window(struct phases_opts *o, int64_t start_mono_ns, int64_t end_mono_ns);

/* Judge what reading path gave: each thing worth a warning (cut short, damaged gzip data,
 * bad rows with the first one's file and line, and how many rows the phases rest on; fewer
 * or more samples than samples_taken, its agent's count, when that is >= 0) is
 * passed to say as one line. Returns true when rc may be used, false when too many rows
 * were bad (PHASES_MAX_BAD_SHARE). parse and collect --check both judge through this. */
bool phases_judge(const struct rank_cpu *rc, const char *path, int64_t samples_taken,
		  void (*say)(void *ctx, const char *msg), void *ctx);

/* Free what rc owns and zero it. Accepts NULL and a zeroed struct. */
void rank_cpu_release(struct rank_cpu *rc);

/* Columns of RUN/profile/phases.tsv (format "phases" v1), NULL-terminated:
 * rank kind t_start_ns t_end_ns run_ns wait_ns, kind being "busy" or "idle". */
extern const char *const phases_cols[];
#define PHASES_FORMAT "phases"
#define PHASES_VERSION 1

/* Append rc's phases as rows of an open phases.tsv writer (opened with phases_cols).
 * 0, or negative with e set as tsv_w_end. */
int phases_write(const struct rank_cpu *rc, struct tsv_w *t, struct err *e) WUR;

#endif
