/* p001: Shao, Berman & Wolski, "Master/Slave Computing on the Grid": work capacities
 * (eqs. 6-8), AppRate by maximum flow over the ENV graph G (eqs. 1-5), execution time (eq. 2),
 * master selection (Figure 2), slave selection with a FIFO-queue simulator (Sections 4.4-4.6)
 * and the application parameters of Table 1 derived from a profiled master/slave run.
 *
 * Units: work rates and capacities in tasks per second (tps), times in seconds (s) unless the
 * name says ns, sizes in bytes. Hosts, local networks and links are indexed as in the
 * struct graph (infer/graph.h) they come from. See docs/models-001-002.md. */
#ifndef PREDICT_P001_H
#define PREDICT_P001_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "infer/graph.h"
#include "lib/err.h"
#include "predict/mwsim.h"
#include "predict/profile.h"

/* Application parameters (paper 001, Table 1). */
struct p001_app {
	double t_slave_s;		/* T_SlaveCPU: s of slave CPU per task, unloaded; NAN unknown */
	double t_master_s;		/* T_MasterCPU: s of master CPU per task, unloaded; NAN unknown */
	double size_taskxfer_bytes;	/* Size_TaskXfer: bytes per task, both directions; NAN unknown */
	double out_fraction;		/* share of Size_TaskXfer in the hand-out (stage 1), 0..1 */
};

/* Eqs. 6 and 7: W_SlaveCPU(i) = Avail_CPU(i) / T_SlaveCPU(i) and W_MasterCPU(i) =
 * Avail_CPU(i) / T_MasterCPU(i), in tasks/s. avail is a fraction in [0, 1], t_task_s in s.
 * NAN when t_task_s is not > 0 or avail is outside [0, 1]. */
double p001_w_cpu(double avail, double t_task_s);
/* Eq. 8: W_Net(n) = BW_Net(n) / Size_TaskXfer in tasks/s (bw in bytes/s, size in bytes).
 * NAN when size is not > 0 or bw is negative or NAN. */
double p001_w_net(double bw_Bps, double size_taskxfer_bytes);
/* Eq. 2: ExecTime(m, S) = Tasks / AppRate(m, S) in s (INFINITY when the rate is 0). */
double p001_exec_time_s(double tasks, double app_rate_tps);

/* The resource work capacities of one system, in tasks/s. INFINITY: not a constraint. */
struct p001_caps {
	int nhost, nnet, nlink;
	double *slave_tps;		/* [nhost] W_SlaveCPU(i) */
	double *master_tps;		/* [nhost] W_MasterCPU(i) */
	double *net_tps;		/* [nnet] W_Net of each local network */
	double *link_tps;		/* [nlink] W_Net of each non-local link */
};

/* Fill c from g: a host's slave_tps / master_tps attributes when given, else eqs. 6-7 from
 * app's T times and avail[i] (avail NULL: 1 for every host); a network's or link's cap_tps
 * when given, else eq. 8 from bw_Bps and app's Size_TaskXfer, else INFINITY (unknown
 * networks do not constrain). app may be NULL when g gives every capacity.
 * Returns 0, or -E_USAGE with e naming the host whose capacity cannot be found.
 * Release with p001_caps_release (also after a failure). */
int p001_caps_init(struct p001_caps *c, const struct graph *g, const struct p001_app *app,
		   const double *avail, struct err *e) WUR;
void p001_caps_release(struct p001_caps *c);	/* accepts a zeroed struct */

/* Work rates of one master and slave set. */
struct p001_rates {
	int master;			/* host index of m */
	double app_rate_tps;		/* AppRate(m, S) = sum of SlaveRate(m, s), eq. 1 */
	int nhost, nnet, nlink;
	double *slave_tps;		/* [nhost] SlaveRate(m, s); 0 for m and hosts outside S */
	bool *found;			/* [nhost] Found(m): slaves given a rate > 0 */
	double *net_tps;		/* [nnet] task flow through each local network */
	double *link_tps;		/* [nlink] task flow through each link */
	double master_tps;		/* task flow through the master processor (== app_rate_tps) */
};
void p001_rates_release(struct p001_rates *r);	/* accepts a zeroed struct */

/* AppRate(m, S) by maximum flow (eqs. 1, 3-5): source -> m (W_MasterCPU(m)) -> m's local
 * network -> links and routers -> each slave's local network -> slave s (W_SlaveCPU(s)) -> sink,
 * every network and link being a node of capacity W_Net (split in two). use[i] says whether
 * host i is in S (NULL: every host but m). Fills r (release with p001_rates_release).
 * Returns 0, or negative with e set (-E_USAGE: bad master index). */
int p001_app_rate(const struct graph *g, const struct p001_caps *c, int master, const bool *use,
		  struct p001_rates *r, struct err *e) WUR;

/* Figure 2 for one candidate master: local slaves first, then non-local ones, each time the one
 * with the largest W_SlaveCPU, each adding the fraction F of its capacity that keeps every
 * network on its path (graph_net_path) and the master within capacity. Fills r like
 * p001_app_rate (found = Found(p), app_rate_tps = CandRate(p)). */
int p001_greedy_rate(const struct graph *g, const struct p001_caps *c, int master, const bool *use,
		     struct p001_rates *r, struct err *e) WUR;

enum p001_method { P001_MAXFLOW, P001_GREEDY };

/* Master selection (Section 4.2, Figure 2): the rates of every host as master and the best one
 * (largest AppRate; ties to the lowest index). */
struct p001_masters {
	int nhost;
	int best;			/* host index of the selected master */
	struct p001_rates *per_master;	/* [nhost] */
};
int p001_select_master(const struct graph *g, const struct p001_caps *c, enum p001_method how,
		       struct p001_masters *out, struct err *e) WUR;
void p001_masters_release(struct p001_masters *m);	/* accepts a zeroed struct */

/* The simulator (Section 4.5) on g: resource index i < nhost is host i's processor, then
 * nnet local networks, then nlink links. Network service times are out_fraction / W_Net
 * (stage 1) and (1 - out_fraction) / W_Net (stage 3); processor ones 1 / W. Fills r (release
 * with mwsim_result_release). depth: tasks outstanding per slave (1: request/reply). */
int p001_simulate(const struct graph *g, const struct p001_caps *c, const struct p001_app *app,
		  int master, const bool *use, int64_t tasks, int depth, struct mwsim_result *r,
		  struct err *e) WUR;
/* A link on the route between the master and one slave that G does not hold: a host pair
 * whose capacity a scenario changes (paper 001 Sec. 4.5's network stages for that route).
 * Each xres is one more FIFO resource, numbered after G's (p001_res_xlink); slaves whose
 * routes cross the same link give the same xres. Its stage 1 and 3 service times are
 * eq. 8's 1 / W_Net for the slave's own bytes each way, out_bytes / bw_Bps and
 * in_bytes / bw_Bps, plus lat_s each way; the link comes after G's networks on the route
 * (store and forward). burst_bytes > 0 makes it a token bucket filled at bw_Bps that
 * passes peak_Bps while it holds tokens. */
struct p001_xlink {
	int host;			/* the slave's host index in G */
	int xres;			/* which extra resource, 0.. */
	double bw_Bps;			/* capacity left to the run, > 0 */
	double lat_s;			/* latency added to each transfer, >= 0 */
	double out_bytes, in_bytes;	/* hand-out and result bytes per task of this slave */
	double burst_bytes;		/* token bucket size, 0 none */
	double peak_Bps;		/* rate while it holds tokens, >= bw_Bps */
};

/* p001_simulate with nx extra links x[0..nx) on the routes of their slaves (NULL, 0: none).
 * nxres: the extra resources (every x[k].xres < nxres). A slave has at most one extra link.
 * Returns as p001_simulate, and -E_USAGE for a bad extra link. */
int p001_simulate_links(const struct graph *g, const struct p001_caps *c, const struct p001_app *app,
			int master, const bool *use, const struct p001_xlink *x, int nx, int nxres,
			int64_t tasks, int depth, struct mwsim_result *r, struct err *e) WUR;

/* Resource index of a local network / link in a p001_simulate result. */
int p001_res_net(const struct graph *g, int net);
int p001_res_link(const struct graph *g, int link);
int p001_res_xlink(const struct graph *g, int xres);	/* an extra link of p001_simulate_links */

/* Slave selection (Sections 4.4 and 4.6, Figure 3): start from Found(m) of the max-flow
 * rates; simulate; while the simulated rate falls short of the predicted AppRate by more than
 * tolerance (a fraction, e.g. 0.05), add the unused host with the largest W_SlaveCPU whose path
 * to m has every network below saturation (simulated utilisation < 0.99, capacity left in the
 * flow model) and simulate again; stop when there is none or the gain is below tolerance
 * (then the last addition is taken back). */
struct p001_slaves {
	int nhost;
	bool *use;			/* [nhost] the selected slaves */
	int rounds;			/* simulations run */
	double predicted_tps;		/* max-flow AppRate of the initial Found(m) */
	double simulated_tps;		/* simulated steady-state rate of the selection */
	struct mwsim_result sim;	/* the selection's simulation */
};
int p001_select_slaves(const struct graph *g, const struct p001_caps *c, const struct p001_app *app,
		       int master, int64_t tasks, int depth, double tolerance,
		       struct p001_slaves *out, struct err *e) WUR;
void p001_slaves_release(struct p001_slaves *s);	/* accepts a zeroed struct */

/* ---- Table 1 parameters from a profiled master/slave run ---- */

struct p001_derived {
	int master;			/* the master rank (given or detected) */
	int nranks;
	int64_t tasks;			/* hand-out/result cycles found */
	double t_slave_s;		/* T_SlaveCPU: mean slave busy time per task */
	double t_master_s;		/* T_MasterCPU: master busy time per task */
	double size_taskxfer_bytes;	/* Size_TaskXfer: bytes per task, both directions */
	double out_fraction;		/* hand-out share of those bytes */
	double *t_slave_rank_s;		/* [nranks] per-slave mean; NAN for the master and idle ranks */
	int64_t *tasks_rank;		/* [nranks] cycles per slave */
	double *out_bytes_rank;		/* [nranks] mean hand-out bytes per task; NAN without tasks */
	double *in_bytes_rank;		/* [nranks] mean result bytes per task; NAN without tasks */
	int64_t skipped_msgs;		/* messages not between the master and a slave, or unpaired */
};

/* Derive Table 1's application parameters from the profile's messages (any order; src, dst,
 * bytes and t_ns are used, a message with src or dst outside 0..nranks-1 is skipped) and busy
 * phases (any order, run_ns unused; overlapping phases of one rank are merged) of ranks
 * 0..nranks-1. A task is one cycle on a master-slave pair: one or more master->slave messages
 * (the hand-out) followed by one or more slave->master messages (the result). T_SlaveCPU is
 * the slave's busy time between the last hand-out message and the first result message;
 * T_MasterCPU the master's busy time between the first and the last message of the run,
 * divided by the tasks. master < 0: the rank that takes part in the most messages. Fills d
 * (release with p001_derived_release). Returns 0, or negative with e set: -E_USAGE bad
 * arguments, -E_FORMAT no complete cycle. */
int p001_derive(const struct prof_msg *msgs, size_t nmsg, const struct prof_busy *busy,
		size_t nbusy, int nranks, int master, struct p001_derived *d, struct err *e) WUR;
void p001_derived_release(struct p001_derived *d);	/* accepts a zeroed struct */

#endif
