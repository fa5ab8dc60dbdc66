/* passive: the ENV logical network of a recorded run, inferred from its packets alone.
 *
 * ENV (paper 001, Section 3; docs/infer.md) measures each host's bandwidth from a root alone,
 * then two transfers at once: when both rates fall towards half, the two paths share a
 * bottleneck. A run already holds such experiments: wherever two of the application's bulk
 * transfers overlap in time, each one's rate during the overlap is compared with its rate
 * while the other was idle. Structure comes from the link layer: a remote address whose
 * frames carry the peer's own MAC is on the same segment; one whose frames carry another MAC
 * is behind a router (that MAC is the gateway's); IP TTLs give the hop count. Round trips
 * come from TCP handshakes and data/ACK pairs.
 *
 * Rates are bytes over time spans, never per packet: veth and NICs hand the capture
 * segmentation-offloaded packets of tens of kilobytes.
 *
 * Use: pasv_init, pasv_add_host (+ addresses and MACs), pasv_packet for every decoded TCP
 * segment of every capture (or pasv_flow_add for synthetic timelines), pasv_build_graph.
 * Not thread-safe. */
#ifndef INFER_PASSIVE_H
#define INFER_PASSIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "infer/graph.h"
#include "lib/err.h"
#include "parse/pkt.h"

#define PASV_MAX_HOSTS 256
#define PASV_MAX_ADDRS 16	/* addresses per host */
#define PASV_MAX_MACS 8		/* MACs per host */

struct pasv_opts {
	int64_t gap_min_ns;	/* a transfer is idle after a silence longer than
				 * max(gap_min_ns, 4 x its 95th-percentile packet gap), capped by
				 * gap_max_ns (a loss stall below TCP's least RTO stays active) */
	int64_t gap_max_ns;
	int64_t min_span_ns;	/* least overlap and least solo time for a pair test */
	int64_t min_piece_ns;	/* pieces of overlap or solo time shorter than this are dropped */
	int64_t min_flow_bytes;	/* transfers carrying less are not tested */
	double shared_below;	/* mean overlap/solo ratio at or below which: shared */
	double indep_above;	/* at or above which: independent (between: inconclusive) */
	double conserve;	/* a shared pair's aggregate overlap rate is at least this times
				 * the faster solo rate (a shared capacity is divided, not lost);
				 * below it: inconclusive */
	int64_t conf_ns;	/* overlap that gives confidence 1 - 1/e */
	double exonerate;	/* a common end host is not the bottleneck when it was seen moving
				 * this many times the pair's aggregate rate */
	int64_t peak_window_ns;	/* window for a host's peak rate */
	size_t max_samples;	/* cap on stored (time, bytes) samples over all transfers */
	int max_pairs;		/* cap on pair tests */
};

/* The defaults documented in docs/infer.md. */
struct pasv_opts pasv_opts_default(void);

/* One direction of data between two hosts: its (time, bytes) samples. */
struct pasv_sample {
	int64_t t_ns;		/* when the bytes had arrived (end of the packet) */
	int64_t bytes;		/* payload bytes */
};

struct pasv_flow {
	int src, dst;		/* host indices */
	struct pasv_sample *s;	/* owned, in time order after pasv_flows_sort */
	size_t n, cap_;
	int64_t bytes;		/* total payload */
	bool from_receiver;	/* samples taken at the receiving host's capture */
};

enum pasv_verdict { PASV_UNTESTED = 0, PASV_SHARED, PASV_INDEPENDENT, PASV_INCONCLUSIVE };

/* ENV's test on one pair of overlapping transfers. */
struct pasv_pair {
	int f, g;			/* flow indices */
	int64_t overlap_ns;		/* both active */
	int64_t solo_f_ns, solo_g_ns;	/* one active, the other idle */
	double rate_f_overlap_Bps, rate_f_solo_Bps;
	double rate_g_overlap_Bps, rate_g_solo_Bps;
	double ratio_f, ratio_g;	/* overlap rate / solo rate; NAN when not measured */
	enum pasv_verdict verdict;
	double confidence;		/* 0..1; GRAPH_UNTESTED when untested */
	const char *why;		/* static text: why untested, or what decided */
};

struct pasv_host {
	char name[GRAPH_NAME_MAX + 1];
	uint8_t addr[PASV_MAX_ADDRS][16];
	int addr_af[PASV_MAX_ADDRS];
	int naddr;
	uint8_t mac[PASV_MAX_MACS][6];
	int nmac;
	bool has_capture;	/* a capture was taken on this host */
	char ranks[64];		/* comma list of its ranks, "" when unknown */
	int cluster;		/* after pasv_build_graph: its local network */
	double peak_out_Bps, peak_in_Bps;	/* after analysis */
};

struct pasv_conn;		/* connection state for round trips (internal) */

struct pasv {
	struct pasv_opts o;
	struct pasv_host *hosts;	/* PASV_MAX_HOSTS */
	int nhost;
	int root;			/* ENV's root (the host of rank 0), -1 unknown */
	struct pasv_flow *flows;
	int nflow, cap_flow_;
	size_t nsamples;
	/* pairwise link-layer evidence, PASV_MAX_HOSTS^2 each, indexed [a * PASV_MAX_HOSTS + b]
	 * for packets from a seen at b's capture */
	uint32_t *same_seg;		/* frames carrying a's own MAC */
	uint32_t *via_gw;		/* frames carrying some other MAC (a gateway) */
	int16_t *gw;			/* index into gw_mac of the gateway MAC, -1 none */
	int16_t *hops;			/* least hop count from TTL, -1 unknown */
	int64_t *rtt_ns;		/* least round trip, -1 unknown (symmetric) */
	uint8_t (*gw_mac)[6];
	int ngw;
	struct pasv_conn *conns;
	int nconn, cap_conn_;
	struct pasv_pair *pairs;	/* after pasv_analyze */
	int npair, cap_pair_;
	/* counts */
	uint64_t packets, unknown_addr, not_tcp, over_cap, loopback, rtt_samples;
	long pairs_refused;
};

/* Start an empty analysis with options o (NULL: defaults). Release with pasv_release. */
void pasv_init(struct pasv *p, const struct pasv_opts *o);
void pasv_release(struct pasv *p);

/* Add a host (name copied): its index, or negative with e set (-E_LIMIT past
 * PASV_MAX_HOSTS, -E_USAGE for an empty, too long or duplicate name). */
int pasv_add_host(struct pasv *p, const char *name, bool has_capture, struct err *e) WUR;
int pasv_find_host(const struct pasv *p, const char *name);
/* Add an address ("10.1.2.3", "fe80::1") or a MAC ("aa:bb:cc:dd:ee:ff") to host h.
 * 0, or negative with e set (-E_FORMAT unparsable, -E_LIMIT too many: counted, harmless). */
int pasv_add_addr(struct pasv *p, int h, const char *text, struct err *e) WUR;
int pasv_add_mac(struct pasv *p, int h, const char *text, struct err *e) WUR;
/* Host owning an address (network order, af AF_INET/AF_INET6), or -1. */
int pasv_host_of(const struct pasv *p, int af, const uint8_t *addr);

/* Feed one decoded TCP segment seen at host cap_host's capture at time t_ns. Segments between
 * unknown addresses are counted and skipped. Call capture by capture, each in time order. */
void pasv_packet(struct pasv *p, int cap_host, const struct pkt *k, int64_t t_ns);

/* Add bytes of src -> dst arriving at t_ns directly (synthetic timelines, tests). -E_LIMIT
 * (counted) past the sample cap. */
int pasv_flow_add(struct pasv *p, int src, int dst, int64_t t_ns, int64_t bytes,
		  bool from_receiver, struct err *e) WUR;
/* Index of the flow src -> dst, or -1. */
int pasv_find_flow(const struct pasv *p, int src, int dst);

/* ENV's test on flows f and g of p (flows sorted by pasv_analyze or pasv_flows_sort). */
void pasv_pair_test(const struct pasv *p, int f, int g, struct pasv_pair *out);
void pasv_flows_sort(struct pasv *p);

/* Sort the flows, compute peaks, run every pair test worth running. Idempotent. */
void pasv_analyze(struct pasv *p);

/* Build the ENV graph into g (initialised here; release with graph_release even on
 * failure): runs pasv_analyze, groups hosts into local networks by link-layer evidence,
 * places shared bottlenecks, routers and links. 0, or negative with e set. */
int pasv_build_graph(struct pasv *p, struct graph *g, struct err *e) WUR;

/* The name of a verdict ("shared", "independent", "inconclusive", "untested"). */
const char *pasv_verdict_name(enum pasv_verdict v);

#endif
