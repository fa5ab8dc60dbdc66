/* graph: the ENV logical network (paper 001, Section 3) in memory, as DOT, PDF, SVG and TSV.
 *
 * The only module that touches Graphviz (cgraph to write and read DOT, gvc to draw).
 *
 * Model: every host belongs to exactly one local network (a cluster of hosts sharing one
 * capacity); local networks are joined by non-local links, either directly (net -- net) or
 * through router nodes (net -- router -- net).  Each local network and each link carries a
 * bandwidth (bytes/s), optionally a capacity in application units (tasks/s, paper 001's W_Net),
 * a latency, a confidence and a note.  Hosts may carry the work capacities of paper 001
 * (W_SlaveCPU and W_MasterCPU in tasks/s).
 *
 * DOT layout (docs/formats.md, "topology"): an undirected graph with graph attribute
 * contend_topology="1"; each local network is a subgraph "cluster_<net>" holding an anchor
 * node "net:<net>" (kind="anchor") and its hosts (kind="host"), each host joined to the anchor
 * by an edge kind="member"; routers are nodes kind="router" outside clusters; non-local links
 * are edges kind="link" between anchors and routers.  Numbers are machine-readable attributes
 * (bw_Bps, cap_tps, lat_ns, confidence, slave_tps, master_tps); label attributes are for people
 * and ignored on reading.
 *
 * Not thread-safe: Graphviz keeps global error state. */
#ifndef INFER_GRAPH_H
#define INFER_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"

#define GRAPH_UNTESTED (-1.0)		/* confidence of a value that was never measured */
#define GRAPH_NAME_MAX 200		/* longest node, network or link name in bytes */
#define GRAPH_NOTE_MAX 1000		/* longest note in bytes */
#define GRAPH_DOT_MAX_BYTES (16u << 20)	/* largest DOT file graph_read_dot accepts */

/* The numbers on one shared network resource (a local network or a non-local link). */
struct graph_attr {
	double bw_Bps;		/* available bandwidth in bytes/s; NAN when unknown */
	double cap_tps;		/* capacity in application units (tasks/s); NAN when not given */
	int64_t lat_ns;		/* one-way latency in ns; -1 when unknown */
	double confidence;	/* 0..1, or GRAPH_UNTESTED (any negative value) */
	char *note;		/* free text, owned, may be NULL */
};

struct graph_net {			/* a local network: cluster of hosts with a shared capacity */
	char *name;			/* owned; DOT subgraph "cluster_<name>", anchor "net:<name>" */
	struct graph_attr attr;
};

struct graph_host {
	char *name;			/* owned; unique among host and router names */
	int net;			/* index into graph.nets */
	double slave_tps;		/* W_SlaveCPU (paper 001 eq. 6) in tasks/s; NAN when not given */
	double master_tps;		/* W_MasterCPU (paper 001 eq. 7) in tasks/s; NAN when not given */
	char *note;			/* owned, may be NULL */
};

struct graph_router {
	char *name;			/* owned; unique among host and router names */
	char *note;			/* owned, may be NULL */
};

enum graph_end_kind { GRAPH_END_NET, GRAPH_END_ROUTER };

struct graph_end {
	enum graph_end_kind kind;
	int idx;			/* index into graph.nets or graph.routers */
};

struct graph_link {			/* a non-local link */
	char *name;			/* owned; unique among links */
	struct graph_end a, b;
	struct graph_attr attr;
};

struct graph {
	struct graph_net *nets;
	struct graph_host *hosts;
	struct graph_router *routers;
	struct graph_link *links;
	int nnet, nhost, nrouter, nlink;
	int max_items;			/* cap on each of the four arrays, set at init */
	long refused;			/* additions refused because a cap was reached */
	size_t cap_net_, cap_host_, cap_router_, cap_link_;	/* allocated sizes (internal) */
};

/* An attribute with nothing known: bw and cap NAN, latency -1, untested, no note. */
struct graph_attr graph_attr_unknown(void);

/* Start an empty graph holding at most max_items of each kind (<= 0: 100000).
 * Release with graph_release. Cannot fail. (Not "graph_init": libgvc exports that name.) */
void graph_init_empty(struct graph *g, int max_items);
/* Free everything the graph owns; the struct may be reused after graph_init. Accepts NULL. */
void graph_release(struct graph *g);

/* Add a local network / host / router / link; the strings and the note inside attr are
 * copied. Return the new index (>= 0), or negative with e set: -E_USAGE for an empty,
 * too long or duplicate name, a bad index or a bad number (negative bandwidth, confidence
 * above 1); -E_LIMIT when the cap is reached (also counted in g->refused). */
int graph_add_net(struct graph *g, const char *name, const struct graph_attr *attr,
		  struct err *e) WUR;
int graph_add_host(struct graph *g, const char *name, int net, double slave_tps,
		   double master_tps, const char *note, struct err *e) WUR;
int graph_add_router(struct graph *g, const char *name, const char *note, struct err *e) WUR;
int graph_add_link(struct graph *g, const char *name, struct graph_end a, struct graph_end b,
		   const struct graph_attr *attr, struct err *e) WUR;

/* Index of a name, or -1. */
int graph_find_net(const struct graph *g, const char *name);
int graph_find_host(const struct graph *g, const char *name);
int graph_find_router(const struct graph *g, const char *name);
int graph_find_link(const struct graph *g, const char *name);

/* The name of a link end (a network or router name; borrowed from g). */
const char *graph_end_name(const struct graph *g, struct graph_end end);

/* Write DOT to path (created or replaced). 0, or negative with e set. */
int graph_write_dot(const struct graph *g, const char *path, struct err *e) WUR;
/* Read DOT written by graph_write_dot and possibly edited by hand into g (initialised here
 * with max_items; release with graph_release even on failure). Every machine-readable
 * attribute is checked; the first bad one fails the read with e naming the node, edge or
 * cluster and the attribute. Networks come in the order their first node appears in the
 * file, hosts grouped by network, links in file order. Returns 0 or negative (-E_IO, -E_FORMAT, -E_LIMIT). */
int graph_read_dot(struct graph *g, const char *path, int max_items, struct err *e) WUR;
/* Draw with the dot layout into path; format is "pdf" or "svg" (any gvc format works).
 * 0, or negative with e set (the Graphviz message when it gives one). */
int graph_render(const struct graph *g, const char *format, const char *path,
		 struct err *e) WUR;
/* Write the "topology" v1 TSV (docs/formats.md): one row per local network, host
 * membership and non-local link. 0, or negative with e set. */
int graph_write_tsv(const struct graph *g, const char *path, struct err *e) WUR;

/* Compare two graphs: true when they have the same networks, hosts, routers and links
 * (matched by name, in any order) and every number agrees within a relative 1e-12. When they differ
 * and why is non-NULL, a description of the first difference is written there. */
bool graph_equal(const struct graph *a, const struct graph *b, char *why, size_t why_len);

/* The shortest path (fewest links) between two local networks through links, routers and
 * other local networks (a path crossing a third network uses that network too): fills
 * links_out with up to max link indices in order from net_a to net_b and returns their
 * number (0 when net_a == net_b), or -1 when no path exists or it is longer than max. */
int graph_net_path(const struct graph *g, int net_a, int net_b, int *links_out, int max);

#endif
