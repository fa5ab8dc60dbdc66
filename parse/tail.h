/* tail: a rank whose end hung after the run's last message (an MPI library spinning in
 * MPI_Finalize until the job was killed), found so that its spinning is not taken as part
 * of its run.
 *
 * The rule (docs/parse.md, "A hung end"): a rank's end is cut when
 *  1. it did not end on its own: its meta file says how_ended "signaled" (a timeout, srun,
 *     mpiexec or the user killed it) or "running" (its agent was killed before it could
 *     write the end); a rank that exited, with any status and however late, ran its own
 *     code to its end, and whatever it did after its last message (a final computation,
 *     writing its results) is part of its run;
 *  2. it sent or received a message, and the run's last message (the latest last byte of a
 *     message between two known ranks, so every rank had stopped communicating) came
 *     before the rank's last CPU sample;
 *  3. the tail, from that last message to the rank's last sample, is longer than both
 *     TAIL_MIN_NS and TAIL_GAP_FACTOR times the rank's longest gap between two of its own
 *     message times (sends and arrivals): longer than any pause the rank made while the
 *     program still ran. A job cut short by a timeout in the middle of its work is killed
 *     at most one such pause after its last message, so it is not cut. Or longer than
 *     TAIL_GAP_FACTOR times both the run's longest gap (between two message times of any
 *     ranks: the longest the whole program went without a message) and the rank's
 *     longest gap that ended in a send of its own (its own work before a send): a
 *     longer gap of its own ended in an arrival while other ranks kept sending, a wait
 *     for another rank, and the tail is a silence of the whole run, however long the
 *     rank once waited (MPICH's LU under a CPU competitor: ranks 0 and 2 waited 1.2-1.4 s
 *     for the loaded rank, a quarter of their 5.1 s hung tail, while the run never went
 *     0.8 s without a message).
 * The cut is at the run's last message: the first CPU sample at or past it is the rank's
 * last (parse/phases.h, cut_real_ns), so its exec time ends within one sample interval of
 * the moment the whole run stopped making progress. */
#ifndef PARSE_TAIL_H
#define PARSE_TAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TAIL_MIN_NS 2000000000LL	/* a tail under 2 s is never cut */
#define TAIL_GAP_FACTOR 4		/* ... nor one under 4 times the rank's longest gap */

/* What the rule looks at for one rank. */
struct tail_rank {
	const char *how_ended;		/* meta how_ended, NULL unknown (borrowed) */
	int64_t t_end_ns;		/* its last CPU sample, CLOCK_REALTIME ns */
	int64_t t_run_last_msg_ns;	/* the run's last message's last byte, INT64_MIN none */
	bool has_msgs;			/* it sent or received a message */
	int64_t longest_gap_ns;		/* tail_longest_gap of its message times */
	int64_t send_gap_ns;		/* tail_longest_send_gap of them */
	int64_t run_gap_ns;		/* tail_longest_gap of every rank's message times; 0
					 * unknown (then only longest_gap_ns counts) */
};

/* True when how (meta how_ended, NULL unknown) says the rank did not end on its own:
 * "signaled" or "running" (condition 1). */
bool tail_ended_oddly(const char *how);

/* True when r's end hung by the rule above; *tail_ns (may be NULL) is then its tail in ns.
 * Cannot fail. */
bool tail_hung(const struct tail_rank *r, int64_t *tail_ns);

/* The longest stretch between two consecutive times of a rank's sends (send_ns) and
 * arrivals (arr_ns), merged; both arrays are sorted in place. 0 with fewer than two
 * times. Cannot fail. */
int64_t tail_longest_gap(int64_t *send_ns, size_t nsend, int64_t *arr_ns, size_t narr);
/* The same, of the stretches that ended in a send (from the time before it, a send or an
 * arrival). Cannot fail. */
int64_t tail_longest_send_gap(int64_t *send_ns, size_t nsend, int64_t *arr_ns, size_t narr);

#endif
