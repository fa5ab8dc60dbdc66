/* mwsim: discrete-event simulation of a master/slave run over FIFO single-server resources
 * (paper 001, Section 4.5).
 *
 * Resources (processors and networks) are single servers with first-in-first-out queues.
 * A task for slave k passes, in order: the networks from the master to k (stage 1, hand-out),
 * k's processor (stage 2), the same networks back from k to the master (stage 3, result), and
 * the master's processor (stage 4). Transfers are store-and-forward: one network after the
 * other. When stage 4 ends and tasks remain, the master hands the next task to the same slave
 * (tasks go out on request). At time 0 each slave gets `depth` tasks without a stage 4 before
 * them. A step whose service time is 0 (an unconstrained resource) is skipped, not queued.
 * A resource may be a token bucket (tc's tbf): while it holds tokens its service goes faster.
 * Times are seconds (double). Knows nothing about graphs: predict/p001.c builds the routes. */
#ifndef PREDICT_MWSIM_H
#define PREDICT_MWSIM_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"

#define MWSIM_MAX_HOPS 8	/* networks on one master-slave path */

struct mwsim_slave {
	int cpu;			/* resource index of the slave's processor */
	double cpu_s;			/* stage 2 service time per task, s (1 / W_SlaveCPU) */
	int nhops;			/* networks between master and slave */
	int hops[MWSIM_MAX_HOPS];	/* their resource indices, master side first */
	double out_s[MWSIM_MAX_HOPS];	/* stage 1 service time on each, s */
	double in_s[MWSIM_MAX_HOPS];	/* stage 3 service time on each, s */
};

/* A resource's token bucket, in the units of its service times: a service time of s seconds
 * is work the resource does in s at its sustained rate. Tokens come at one per second up to
 * burst_s (the bucket's bytes over the sustained rate) and the bucket starts full; a
 * service that starts with tok tokens does min(s, tok) of its work peak_x times faster
 * (the line's rate over the sustained one) and takes those tokens. */
struct mwsim_bucket {
	double burst_s;			/* the bucket's size, s of work at the sustained rate; 0 none */
	double peak_x;			/* speed-up while it holds tokens, >= 1 */
};

struct mwsim_config {
	int nres;			/* resources 0..nres-1 */
	int nslave;
	const struct mwsim_slave *slaves;	/* [nslave], borrowed */
	int master_cpu;			/* resource index of the master's processor */
	double master_s;		/* stage 4 service time per task, s (1 / W_MasterCPU) */
	int64_t tasks;			/* tasks in the run (paper 001's Tasks) */
	int depth;			/* tasks outstanding per slave; 1 = strict request/reply */
	int64_t max_events;		/* cap on processed events; <= 0: 64 * tasks * (hops + 2) */
	const struct mwsim_bucket *bucket;	/* [nres] or NULL (no resource has one), borrowed */
};

struct mwsim_result {
	int nres, nslave;
	double makespan_s;		/* time the last task's stage 4 ended */
	int64_t done;			/* tasks completed (== tasks unless truncated) */
	double throughput_tps;		/* done / makespan_s */
	double steady_tps;		/* completions 10 %..90 % of the run over their time span */
	double *busy_s;			/* [nres] time each resource was serving */
	double *util;			/* [nres] busy_s / makespan_s, in [0, 1] */
	double *wait_s;			/* [nres] total time tasks queued at each resource */
	double *slave_idle_s;		/* [nslave] makespan_s minus the slave processor's busy time */
	int64_t *slave_tasks;		/* [nslave] tasks of each slave completed */
	int64_t events;			/* events processed */
	bool truncated;			/* max_events reached: the figures cover a prefix of the run */
};

/* Simulate. Fills r (release with mwsim_result_release, also after a failure). Returns 0, or
 * -E_USAGE with e set for a bad configuration (index out of range, negative or non-finite
 * service time, no slaves, tasks < 1, depth < 1, a slave that needs no time at all, a bucket with
 * a negative size or a speed-up under 1). */
int mwsim_run(const struct mwsim_config *c, struct mwsim_result *r, struct err *e) WUR;
void mwsim_result_release(struct mwsim_result *r);	/* accepts a zeroed result */

#endif
