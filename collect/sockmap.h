/* sockmap: which local TCP endpoints belong to which process of a rank.
 *
 * A scan lists the socket inodes of each process (/proc/PID/fd, "socket:[N]") and finds
 * them in the TCP tables of the process's network namespace (sock_diag netlink, or
 * /proc/PID/net/tcp and tcp6).
 * Each (pid, local, remote, state) is written once, when first seen or when its state
 * changes, as a row of RUN/sockets/rank-<R>.tsv (format "sockets" v1). */
#ifndef COLLECT_SOCKMAP_H
#define COLLECT_SOCKMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/err.h"
#include "lib/tsv.h"

extern const char *const sockmap_cols[];

/* One row of /proc/net/tcp{,6}. Addresses are printable (IPv4-mapped IPv6 as IPv4). */
struct sockmap_entry {
	char local_ip[46], remote_ip[46];
	unsigned local_port, remote_port;
	int state;		/* TCP state number (1 ESTABLISHED ... 10 LISTEN) */
	uint64_t inode;
};

struct sockmap;

/* For rank; remembers at most max_rows distinct rows (more are counted, not fatal). */
struct sockmap *sockmap_new(int rank, size_t max_rows);
void sockmap_free(struct sockmap *m);
/* Scan pids (the rank's processes) and write new rows to t with time t_real_ns.
 * The TCP tables are read only when force, when the processes' set of socket inodes
 * changed since the last read, or every few scans (a state change of a socket that stays
 * open is seen late, never missed at a forced scan). Returns the number of rows written,
 * or negative with e set when writing failed. Processes that vanish during the scan are
 * skipped. */
int sockmap_scan(struct sockmap *m, const pid_t *pids, size_t npids, int64_t t_real_ns,
		 bool force, struct tsv_w *t, struct err *e) WUR;
/* Where the TCP tables are read from. SOCKMAP_AUTO (the default) asks the kernel's
 * sock_diag netlink interface (one walk of the established hash per address family, no
 * text: a fraction of what formatting /proc/PID/net/tcp costs on a machine with a large
 * hash) when the process shares the agent's network namespace, and falls back to /proc
 * when netlink is refused. */
enum sockmap_source { SOCKMAP_AUTO, SOCKMAP_PROC };
void sockmap_set_source(struct sockmap *m, enum sockmap_source src);
/* The source of the last table read ("netlink", "proc", or "none" before any), and in
 * *reads how many table reads the scans made. */
const char *sockmap_tables(const struct sockmap *m, long *reads);
/* Counters: rows refused by the cap, table lines (or netlink messages) that did not
 * parse. */
void sockmap_stats(const struct sockmap *m, long *over_cap, long *bad_lines);

/* Parse one data line of /proc/net/tcp or tcp6. 0, or -E_FORMAT. */
int sockmap_parse_line(const char *line, bool v6, struct sockmap_entry *out) WUR;
/* The name of a TCP state number ("ESTABLISHED", "LISTEN", ...), "UNKNOWN" otherwise. */
const char *sockmap_state_name(int state);

#endif
