/* capture: packet capture with libpcap on the node's interfaces, written as one
 * nanosecond pcap file (plain, or gzip through lib/gzio), in a thread of its own.
 * This is the only module that captures with libpcap. */
#ifndef COLLECT_CAPTURE_H
#define COLLECT_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/framecut.h"
#include "collect/kcut.h"
#include "lib/err.h"

#define CAPTURE_MAX_IFACES 16
/* Keeps TCP; drops ssh and NFS (the run directory may sit on NFS, and capturing our
 * own writes would feed back into the capture). */
#define CAPTURE_DEFAULT_FILTER "tcp and not port 22 and not port 2049"
#define CAPTURE_DEFAULT_FILTER_PORTS { 22, 2049 }	/* the ports it drops (collect/kcut) */
#define CAPTURE_DEFAULT_SNAPLEN 262144
#define CAPTURE_DEFAULT_BUFFER ((int64_t)32 << 20)
#define CAPTURE_DEFAULT_BATCH_MS 200
#define CAPTURE_DEFAULT_ALIGN_NS ((int64_t)50 * 1000000)
#define CAPTURE_ALIGNED_BATCH_MS 20	/* the block timeout when read on the grid */

struct capture_opts {
	const char *ifaces[CAPTURE_MAX_IFACES];	/* borrowed for the capture's life */
	size_t nifaces;
	int snaplen;			/* bytes captured per packet */
	bool framed;			/* write only what the MPI decoders read of each packet
					 * (collect/framecut); the rest of a snaplen capture */
	bool kernel_cut;		/* framed: have the kernel leave out the body too
					 * (collect/kcut) where it can */
	bool kernel_cut_late;		/* load the kernel cut's program in a thread of its own
					 * and attach it once loaded, while the capture already
					 * runs (the kernel's verifier takes its CPU); else
					 * capture_start returns with it attached */
	const char *filter;		/* pcap filter expression; "" keeps everything */
	int64_t buffer_bytes;		/* kernel buffer per interface */
	bool compress;			/* gzip the pcap stream */
	int compress_level;		/* zlib level 1..9 when compressing; 0: GZW_DEFAULT_LEVEL */
	bool batch;			/* no immediate mode: the kernel hands over blocks of
					 * packets (TPACKET_V3) when full or batch_ms old */
	int batch_ms;			/* block timeout in batch mode; 0: CAPTURE_DEFAULT_BATCH_MS */
	bool overwrite;			/* replace an existing file */
	int64_t flush_ns;		/* flush at least this often while packets arrive */
	int64_t align_ns;		/* batch mode: read the blocks on the shared real-time
					 * grid of this period (clock_grid_next_mono) instead of
					 * when each one is handed over; 0: when handed over */
};

struct capture_result {
	uint64_t recv, drop, ifdrop;	/* pcap_stats summed over the interfaces */
	uint64_t packets, bytes;	/* packets and captured bytes written */
	uint64_t captured_bytes;	/* bytes captured before a framed capture cut them */
	bool framed;			/* a framed capture: fc holds its counters */
	struct framecut_stats fc;
	char kernel_cut[ERR_MSG_MAX + 32];		/* "yes", "no: why" or "unavailable: why" */
	struct kcut_counters kc;	/* when kernel_cut is "yes" */
	int64_t kernel_cut_ready_ns;	/* from capture_start to the kernel cut attached; -1 when
					 * it never was */
	uint64_t kernel_cut_conns_before;	/* TCP connections already seen then (their
						 * traffic before it was cut in user space alone) */
	int linktype;			/* DLT_ value of the file */
	bool nano;			/* nanosecond timestamps */
	char stats[512];		/* per interface: "eth0:recv/drop/ifdrop,..." */
	int64_t thread_utime_ns;	/* CPU time of the capture thread (getrusage RUSAGE_THREAD) */
	int64_t thread_stime_ns;
	char write_error[ERR_MSG_MAX];		/* "" unless writing the file failed */
};

struct capture;

/* Open the interfaces, set the filter, create path and start the capture thread.
 * Returns 0 with *out set, or negative with e set: -E_PERM when the capability to
 * capture is missing (e says which and how to grant it), -E_USAGE for an unknown
 * interface or a bad filter, -E_IO when the file cannot be created. */
int capture_start(struct capture **out, const char *path, const struct capture_opts *o,
		  struct err *e) WUR;
/* Stop the thread after reading what the kernel still holds, close the file and fill r.
 * A kernel cut still loading is waited for, then freed unused. Returns 0, or negative
 * with e set when writing failed (r is filled either way). Frees c. */
int capture_stop(struct capture *c, struct capture_result *r, struct err *e);
/* Stop capturing on iface (one of the interfaces the capture was started with), keeping
 * what it captured so far; its pcap_stats still count in capture_stop's result. Done by
 * the capture thread within one round (at most about 50 ms). Returns 0, or -E_USAGE with
 * e set when iface is not captured or is the last interface still captured. */
int capture_drop_iface(struct capture *c, const char *iface, struct err *e) WUR;
/* Write to out (gzip when compress; replaced only when overwrite) what a framed capture
 * would have kept of the capture in (pcap or pcapng, plain or gzip): the same packets,
 * each cut to the bytes parse reads. st gets the counters. Returns 0, or negative with e
 * set; a damaged input still has its packets before the damage written. */
int capture_trim(const char *in, const char *out, bool compress, bool overwrite,
		 struct framecut_stats *st, struct err *e) WUR;
/* Whether the kernel cuts too (struct capture_result.kernel_cut) as capture_start left it:
 * with kernel_cut_late "loading" while the program loads (capture_stop's result says). */
const char *capture_kernel_cut(const struct capture *c);
/* What o keeps of each packet: "framed", "full" or "cut" (at o->snaplen). */
const char *capture_payload_name(const struct capture_opts *o);
/* A one-line summary of the libpcap in use. */
const char *capture_lib_version(void);

/* Interfaces that carry a job's traffic when none were named: the up, non-loopback
 * interfaces with an address, plus loopback when several ranks share the node
 * (with_loopback); loopback alone when every rank is on this node (only_loopback).
 * Names are written into names[] (each up to 63 bytes + NUL); returns the count, or
 * negative with e set. */
int capture_pick_ifaces(bool only_loopback, bool with_loopback,
			char names[][64], size_t max, struct err *e) WUR;
/* Which of the candidate interfaces cand[0..n-1] carry a route to one of the peers'
 * addresses (peer_addrs: a comma list of numeric IPv4/IPv6 addresses, as in the rank
 * files' addrs; "-" and unparsable or unroutable entries are skipped): keep[i] is set
 * for those, and for loopback when keep_loopback. The route of each address is asked of
 * the kernel (capture_route_iface). Returns how many addresses were routed through a
 * candidate. */
int capture_ifaces_for_peers(char cand[][64], size_t n, const char *peer_addrs,
			     bool keep_loopback, bool keep[]);
/* The host's addresses (IPv4 and IPv6, not loopback, not link-local) as a comma list,
 * and "iface=mac" pairs. "" when none. */
void capture_host_addrs(char *out, size_t outlen);
void capture_host_macs(char *out, size_t outlen);
/* The interface the kernel routes addr (numeric IPv4/IPv6) through from this host, in out;
 * 0, or negative when it cannot tell. */
int capture_route_iface(const char *addr, char *out, size_t outlen);

#endif
