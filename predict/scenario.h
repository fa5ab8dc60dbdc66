/* scenario: what-if scenario files (INI, read with inih) for `contend predict`.
 *
 * A scenario names what changes relative to the dedicated run: competing processes and
 * CPU capacity per node, new bandwidth, latency and competing traffic per link, the
 * partitioning policy, background queueing load and policy costs. docs/scenario.md is
 * the user's reference; this header is the contract for the models.
 *
 * The whole file is parsed into a struct scen, then validated; nothing is applied by
 * this module. A file with any error gives one message naming file, line and key and no
 * struct. Quantities carry units in the file ("10 Mbit/s", "50 us", "1.5 s") and are
 * stored here in the units their field names say. Unset reals are NAN, unset counts -1. */
#ifndef PREDICT_SCENARIO_H
#define PREDICT_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/u64map.h"

#define SCEN_MAX_NODES 256	/* [node]/[rank] sections per file */
#define SCEN_MAX_LINKS 256	/* [link] sections per file */
#define SCEN_MAX_COMM 16	/* communicating competitors per node */
#define SCEN_MAX_NAME 128	/* bytes in a host name */
#define SCEN_MAX_CAND 256	/* candidate hosts in [select] */
#define SCEN_LINK_INDEX 8	/* links from which scen_link_for looks up a hash, not a list */

enum scen_part {		/* work partitioning policy (paper 000, Section 6) */
	SCEN_PART_UNSET = 0,
	SCEN_PART_LOAD,		/* load-dependent: eq. 5 */
	SCEN_PART_CONSTRAINT,	/* constraint-based: eqs. 8, 9 */
	SCEN_PART_UNIFORM,	/* uniform: eqs. 11, 12 */
};

enum scen_delay {		/* which delay_comm curves paper 000's eq. 2 uses */
	SCEN_DELAY_ALPHAFARM = 0,	/* the paper's Fig. 2 curves (default) */
	SCEN_DELAY_NONDEDICATED,	/* the paper's constant 0.25 (Section 4.2) */
	SCEN_DELAY_CONSTANT,		/* delay_comm = constant X */
	SCEN_DELAY_FILE,		/* curves from a calibration file */
};

/* One competing communicating process (paper 000, Section 4). */
struct scen_comm {
	double comm_frac;	/* fraction of its time communicating, [0, 1] */
	double comp_frac;	/* fraction computing, [0, 1]; comm + comp <= 1 */
	int64_t burst_msgs;	/* messages per burst, -1 unset */
	int64_t burst_bytes;	/* bytes per message in a burst, -1 unset */
};

/* A [node HOST] or [rank R] section. */
struct scen_node {
	char host[SCEN_MAX_NAME];	/* host name; empty for a [rank] section */
	int rank;			/* world rank for a [rank] section, else -1 */
	int line;			/* line of the section header */
	int cpu_procs;			/* competing CPU-bound processes, -1 unset */
	double load_avg;		/* competing load average (paper 003), NAN unset */
	int ncomm;			/* communicating competitors */
	struct scen_comm comm[SCEN_MAX_COMM];
	double comm_bw_Bps;		/* available bandwidth on their links (k of eq. 2), NAN */
	double capacity;		/* share of a CPU the application may use, (0, 1], NAN */
	double weight;			/* node weight w_a (paper 000), > 0, NAN */
	int64_t serial_ns;		/* serial benchmark time on this node, -1 unset */
	double work_frac;		/* work fraction f_a under contention (eq. 9), NAN */
	double lambda_per_s;		/* background arrival rate (paper 004), NAN */
	int64_t service_mean_ns;	/* mean background service time (exponential), -1 */
	double service_pa;		/* hyperexponential: probability of type a, NAN */
	int64_t service_a_ns;		/* hyperexponential: mean service of type a, -1 */
	int64_t service_b_ns;		/* hyperexponential: mean service of type b, -1 */
	double speed;			/* relative speed delta_j (paper 004), > 0, NAN */
	double cost;			/* c_j, cost per unit time of using it (eq. 35), NAN */
	int nlist[3];			/* items written in comm_fraction, compute_fraction, burst */
};

/* A [link A-B] section: an undirected host pair. */
struct scen_link {
	char a[SCEN_MAX_NAME], b[SCEN_MAX_NAME];	/* the two hosts */
	int line;			/* line of the section header */
	double bw_Bps;			/* new bandwidth, NAN unset (then the measured one) */
	int64_t lat_ns;			/* new latency, -1 unset (then the measured one) */
	int competing_flows;		/* competing TCP flows sharing it fairly, -1 unset */
	double competing_Bps;		/* competing traffic rate, NAN unset */
	int64_t burst_bytes;		/* a token bucket of this size over bandwidth, -1 unset
					 * (a strict link) */
	int64_t mss_bytes;		/* TCP payload of a full segment, -1 unset (SCEN_MSS) */
	int64_t overhead_bytes;		/* bytes a segment's frame carries beyond its payload, -1
					 * unset (SCEN_FRAME_OVERHEAD) */
	/* scen_load gives bw_Bps, competing_Bps and burst_bytes in bytes of TCP payload: the
	 * file's values (rates on the wire, as tc's tbf and a NIC count them) times
	 * payload_share = mss / (mss + overhead); the file's bandwidth stays in line_Bps */
	double payload_share;
	double line_Bps;		/* the file's bandwidth, NAN unset */
};

/* What a message of wire bytes (its payload and its MPI's headers) takes of l, in the
 * payload bytes l's bw_Bps is given in: every TCP segment it needs (at least one) carries
 * frame_overhead bytes more on the wire, so a message of a few hundred bytes takes far more
 * than its size, one of many full segments mss / (mss + overhead) of it more. Only where
 * each message goes in segments of its own (a stream with a backlog may pack several in
 * one); a message of 0 bytes takes one frame. */
double scen_link_wire_bytes(const struct scen_link *l, double wire);

/* A full TCP segment at Ethernet's MTU of 1500 with the timestamps option Linux sends: 1500
 * less IPv4's 20 and TCP's 32 bytes of header. */
#define SCEN_MSS 1448
/* What tc's tbf counts of such a frame beyond its payload: the Ethernet header (14), IPv4
 * (20), TCP with timestamps (32). A physical port also sends a preamble, the FCS and the
 * gap between frames (24 more: 90). */
#define SCEN_FRAME_OVERHEAD 66

struct scen {
	char *path;			/* the file, owned */
	char *name;			/* basename without .ini, owned: RUN/predict/<name>.tsv */
	char *description;		/* owned, NULL unset */
	enum scen_part part;
	enum scen_delay delay;
	double delay_const;		/* SCEN_DELAY_CONSTANT's value */
	char *delay_file;		/* SCEN_DELAY_FILE's path (relative to the scenario), owned */
	double comm_busy_frac;		/* share of added link time that is CPU busy, NAN: measured */
	int64_t measured_ns;		/* measured time under this scenario, -1 unknown */
	char *measured_run;		/* a run directory measured under this scenario, owned */
	double x;			/* cost per unit time of run time (eq. 35), NAN */
	int64_t deadline_ns;		/* G_T (paper 004 constrained form), -1 */
	double budget;			/* G_C (paper 004 constrained form), NAN */
	int max_procs;			/* processors to select at most, -1 unset */
	double sleep_credit;		/* share of a sleeping rank's idle time the platform's
					 * scheduler credits back, [0, 1] (p003; docs/predict.md):
					 * 1 (scen_load's default) the paper's 4.4BSD scheduler, 0 one
					 * that keeps no credit for sleep (Linux EEVDF); not a file
					 * key: the command layer sets it (predict --sleep-credit) */
	double observer_ns_per_pkt;	/* what collect's capture cost a rank per packet it sent,
					 * ns (bench/observer_cost.sh), 0 (scen_load's default) none;
					 * not a file key: the command layer sets it (predict
					 * --observer-cost) */
	int ncand;			/* candidate hosts for --select */
	char *cand[SCEN_MAX_CAND];	/* owned */
	char *master;			/* fixed master host for --select, owned, NULL */
	int nnodes;
	struct scen_node *nodes;	/* owned, nnodes entries */
	int nlinks;
	struct scen_link *links;	/* owned, nlinks entries */
	struct u64map link_at;		/* owned: a hash of a link's two hosts -> its index, for
					 * scen_link_for from SCEN_LINK_INDEX links on; empty
					 * below, or when two links share a hash (it searches) */
};

/* Parse and validate the file at path into *s (zeroed first). Returns 0, or negative with
 * e naming file, line and key ("'x.ini' line 7: key 'bandwidth': ..."); on failure *s
 * holds nothing to free. Free a parsed scenario with scen_free. */
int scen_load(struct scen *s, const char *path, struct err *e) WUR;
/* The same from a string; name stands for the file in messages and scen.name. */
int scen_load_string(struct scen *s, const char *text, const char *name, struct err *e) WUR;
void scen_free(struct scen *s);

/* The section that applies to a rank on a host: a [rank R] section wins over [node HOST].
 * NULL when none. Borrowed from s. */
const struct scen_node *scen_node_for(const struct scen *s, int rank, const char *host);
/* The [link] section for an unordered host pair, NULL when none. The models ask once per
 * message: with SCEN_LINK_INDEX links or more the answer comes from a hash of the names,
 * not a search of every link (messages times links). */
const struct scen_link *scen_link_for(const struct scen *s, const char *h1, const char *h2);
/* True when a node section changes the CPU seen by the application. */
bool scen_node_loaded(const struct scen_node *n);

/* Value parsers with units, exposed for tests and the command layer. Each returns 0, or
 * -E_FORMAT with e saying what was expected. */
int scen_parse_duration_ns(const char *v, int64_t *out, struct err *e) WUR;	/* "50 us", "2 ms", "1.5 s" */
int scen_parse_bw_Bps(const char *v, double *out, struct err *e) WUR;	/* "10 Mbit/s", "1.2 MB/s" */
int scen_parse_bytes(const char *v, int64_t *out, struct err *e) WUR;	/* "1000 B", "4 KiB", "8 kB" */
int scen_parse_rate_per_s(const char *v, double *out, struct err *e) WUR;	/* "0.2 /s", "3 /min" */
int scen_parse_fraction(const char *v, double *out, struct err *e) WUR;	/* "45%" or "0.45" */

const char *scen_part_name(enum scen_part p);

#endif
