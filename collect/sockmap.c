/* sockmap: local TCP endpoints of a rank's processes, from /proc and sock_diag. */
#include "collect/sockmap.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/rd.h"
#include "lib/xalloc.h"

const char *const sockmap_cols[] = { "t_real_ns", "rank", "pid", "local_ip", "local_port",
	"remote_ip", "remote_port", "state", NULL };

#define MAX_INODES 65536	/* sockets of one rank looked up per scan */

struct row {
	pid_t pid;
	struct sockmap_entry s;
};

struct owner {
	uint64_t inode;
	pid_t pid;
};

struct sockmap {
	int rank;
	size_t max_rows;
	struct row *rows;	/* written so far */
	size_t nrows, rows_cap;
	struct owner *own;	/* scratch: socket inodes of this scan, sorted by inode */
	size_t nown, own_cap;
	struct owner *prev;	/* the inodes of the last scan that read the tables */
	size_t nprev, prev_cap;
	unsigned skipped;	/* scans in a row that did not read the tables */
	unsigned settle;	/* scans that must still read the tables after a change */
	long over_cap, bad_lines;
	enum sockmap_source want;	/* SOCKMAP_AUTO: netlink, else /proc */
	const char *used;	/* "netlink", "proc" or "none": the last table read's source */
	long table_reads;
	int nl_fd;		/* sock_diag socket; -1 not open yet, -2 unusable */
	uint32_t nl_seq;
	uint8_t *nl_buf;	/* NL_BUF_BYTES, allocated with the socket */
};

#define NL_BUF_BYTES 32768
/* Every TCP state but TIME_WAIT (6) and NEW_SYN_RECV (12): those have no socket inode. */
#define DIAG_STATES (0x1fffu & ~(1u << 6) & ~(1u << 12))

/* Reading the TCP tables walks the kernel's whole established hash, whose size follows
 * the machine's memory, not the number of sockets: /proc/PID/net/tcp cost about 6 ms of
 * CPU per file on a 24 GiB machine, far more than the sock_diag dump, and made the socket
 * map most of an agent's own cost. The tables are read only when the rank's set of
 * socket inodes changed, when forced, or after this many scans in a row without a read
 * (so a state change is seen within SOCKMAP_REFRESH_SCANS scans). */
#define SOCKMAP_REFRESH_SCANS 8
/* A new socket may not be in the tables yet (created, not yet connected) or be half-way
 * (SYN_SENT): after a change, and while a socket is in neither ESTABLISHED nor LISTEN, the
 * tables are read at this many more scans. */
#define SOCKMAP_SETTLE_SCANS 2

struct sockmap *
sockmap_new(int rank, size_t max_rows)
{
	struct sockmap *m = xcalloc(1, sizeof *m);

	m->rank = rank;
	m->max_rows = max_rows;
	m->want = SOCKMAP_AUTO;
	m->used = "none";
	m->nl_fd = -1;
	return m;
}

void
sockmap_set_source(struct sockmap *m, enum sockmap_source src)
{
	m->want = src;
}

const char *
sockmap_tables(const struct sockmap *m, long *reads)
{
	*reads = m->table_reads;
	return m->used;
}

void
sockmap_free(struct sockmap *m)
{
	if (m == NULL)
		return;
	free(m->rows);
	free(m->own);
	free(m->prev);
	free(m->nl_buf);
	if (m->nl_fd >= 0)
		close(m->nl_fd);
	free(m);
}

void
sockmap_stats(const struct sockmap *m, long *over_cap, long *bad_lines)
{
	*over_cap = m->over_cap;
	*bad_lines = m->bad_lines;
}

const char *
sockmap_state_name(int state)
{
	static const char *const names[] = { "UNKNOWN", "ESTABLISHED", "SYN_SENT", "SYN_RECV",
		"FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN",
		"CLOSING", "NEW_SYN_RECV" };

	if (state < 0 || state >= (int)(sizeof names / sizeof names[0]))
		return "UNKNOWN";
	return names[state];
}

static int
hex_u32(const char **p, unsigned ndigits, uint32_t *v)
{
	uint32_t x = 0;

	for (unsigned i = 0; i < ndigits; i++) {
		char c = (*p)[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			return -E_FORMAT;
		x = x << 4 | d;
	}
	*p += ndigits;
	*v = x;
	return 0;
}

/* a: 4 (IPv4) or 16 bytes in network order; IPv4-mapped IPv6 is printed as IPv4. */
static void
format_ip(const uint8_t *a, bool v6, char *ip, size_t iplen)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (!v6)
		inet_ntop(AF_INET, a, ip, (socklen_t)iplen);
	else if (memcmp(a, mapped, 12) == 0)
		inet_ntop(AF_INET, a + 12, ip, (socklen_t)iplen);
	else
		inet_ntop(AF_INET6, a, ip, (socklen_t)iplen);
}

/* "0100007F:1F90": the address words are the kernel's in-memory network-order words
 * printed as native integers, so copying each word back as a native integer restores
 * the network byte order. */
static int
parse_endpoint(const char **p, bool v6, char *ip, size_t iplen, unsigned *port)
{
	uint8_t a[16];
	uint32_t w, pv;
	int nw = v6 ? 4 : 1;

	for (int i = 0; i < nw; i++) {
		if (hex_u32(p, 8, &w) < 0)
			return -E_FORMAT;
		memcpy(a + 4 * i, &w, 4);
	}
	if (**p != ':')
		return -E_FORMAT;
	(*p)++;
	if (hex_u32(p, 4, &pv) < 0)
		return -E_FORMAT;
	*port = pv;
	format_ip(a, v6, ip, iplen);
	return 0;
}

int
sockmap_parse_line(const char *line, bool v6, struct sockmap_entry *out)
{
	const char *p = line;
	char *end;
	uint32_t st;
	unsigned long long inode;

	memset(out, 0, sizeof *out);
	while (*p == ' ')
		p++;
	/* "sl:" */
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p++ != ':')
		return -E_FORMAT;
	while (*p == ' ')
		p++;
	if (parse_endpoint(&p, v6, out->local_ip, sizeof out->local_ip, &out->local_port) < 0)
		return -E_FORMAT;
	if (*p++ != ' ')
		return -E_FORMAT;
	if (parse_endpoint(&p, v6, out->remote_ip, sizeof out->remote_ip, &out->remote_port) < 0)
		return -E_FORMAT;
	if (*p++ != ' ' || hex_u32(&p, 2, &st) < 0)
		return -E_FORMAT;
	out->state = (int)st;
	/* tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode */
	for (int field = 0; field < 5; field++) {
		while (*p == ' ')
			p++;
		while (*p != ' ' && *p != '\0')
			p++;
	}
	while (*p == ' ')
		p++;
	errno = 0;
	inode = strtoull(p, &end, 10);
	if (errno || end == p)
		return -E_FORMAT;
	out->inode = inode;
	return 0;
}

static void
collect_inodes(struct sockmap *m, pid_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
	d = opendir(path);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char link[64];
		char lpath[320];
		ssize_t n;
		unsigned long long ino;
		char *end;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(lpath, sizeof lpath, "/proc/%ld/fd/%s", (long)pid, de->d_name);
		n = readlink(lpath, link, sizeof link - 1);
		if (n <= 8)
			continue;
		link[n] = '\0';
		if (strncmp(link, "socket:[", 8) != 0)
			continue;
		errno = 0;
		ino = strtoull(link + 8, &end, 10);
		if (errno || *end != ']')
			continue;
		if (m->nown >= MAX_INODES) {
			m->over_cap++;
			continue;
		}
		m->own = xgrow(m->own, &m->own_cap, m->nown + 1, sizeof *m->own);
		m->own[m->nown].inode = ino;
		m->own[m->nown].pid = pid;
		m->nown++;
	}
	closedir(d);
}

/* The process holding inode, or 0; m->own is sorted by inode (a socket shared by several
 * processes gives the one with the lowest pid). */
static pid_t
owner_of(const struct sockmap *m, uint64_t inode)
{
	size_t lo = 0, hi = m->nown;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->own[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nown && m->own[lo].inode == inode ? m->own[lo].pid : 0;
}

static bool
seen(struct sockmap *m, pid_t pid, const struct sockmap_entry *s)
{
	for (size_t i = 0; i < m->nrows; i++) {
		const struct row *r = &m->rows[i];

		if (r->pid == pid && r->s.local_port == s->local_port &&
		    r->s.remote_port == s->remote_port && r->s.state == s->state &&
		    strcmp(r->s.local_ip, s->local_ip) == 0 && strcmp(r->s.remote_ip, s->remote_ip) == 0)
			return true;
	}
	return false;
}

/* Write s when it belongs to one of the scanned processes and was not written in this
 * state before: 1 when written, 0 when not, negative with e set when writing failed. */
static int
take_entry(struct sockmap *m, const struct sockmap_entry *s, int64_t t_real_ns, struct tsv_w *t,
	   struct err *e)
{
	pid_t pid;
	int rc;

	if (s->inode == 0 || (pid = owner_of(m, s->inode)) == 0)
		return 0;
	if (s->state != 1 && s->state != 10 && m->settle < 1)
		m->settle = 1;	/* ESTABLISHED, LISTEN: settled */
	if (seen(m, pid, s))
		return 0;
	if (m->nrows >= m->max_rows) {
		m->over_cap++;
		return 0;
	}
	m->rows = xgrow(m->rows, &m->rows_cap, m->nrows + 1, sizeof *m->rows);
	m->rows[m->nrows].pid = pid;
	m->rows[m->nrows].s = *s;
	m->nrows++;
	tsv_w_i64(t, t_real_ns);
	tsv_w_i64(t, m->rank);
	tsv_w_i64(t, pid);
	tsv_w_str(t, s->local_ip);
	tsv_w_i64(t, s->local_port);
	tsv_w_str(t, s->remote_ip);
	tsv_w_i64(t, s->remote_port);
	tsv_w_str(t, sockmap_state_name(s->state));
	rc = tsv_w_end(t, e);
	return rc < 0 ? rc : 1;
}

/* One inet_diag_msg (linux/inet_diag.h) into out. 0, or -E_FORMAT. */
static int
diag_entry(struct rd *b, struct sockmap_entry *out)
{
	uint8_t src[16], dst[16];
	uint8_t family;

	memset(out, 0, sizeof *out);
	family = rd_u8(b);
	out->state = rd_u8(b);
	rd_skip(b, 2);		/* timer, retransmits */
	out->local_port = rd_be16(b);
	out->remote_port = rd_be16(b);
	rd_bytes(b, src, sizeof src);
	rd_bytes(b, dst, sizeof dst);
	rd_skip(b, 4 + 8 + 4 * 4);	/* interface, cookie; expires, rqueue, wqueue, uid */
	out->inode = rd_ne32(b);
	if (b->err || (family != AF_INET && family != AF_INET6))
		return -E_FORMAT;
	format_ip(src, family == AF_INET6, out->local_ip, sizeof out->local_ip);
	format_ip(dst, family == AF_INET6, out->remote_ip, sizeof out->remote_ip);
	return 0;
}

/* The agent's sock_diag socket, opened on first use; false when the kernel refuses it. */
static bool
nl_ready(struct sockmap *m)
{
	struct timeval tv = { 1, 0 };	/* a dump answers at once; never hang a scan */

	if (m->nl_fd >= 0)
		return true;
	if (m->nl_fd == -2)
		return false;
	m->nl_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (m->nl_fd < 0) {
		m->nl_fd = -2;
		return false;
	}
	(void)setsockopt(m->nl_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	m->nl_buf = xmalloc(NL_BUF_BYTES);
	return true;
}

/* Netlink answers for the agent's own network namespace: usable for pid only when pid
 * shares it. */
static bool
same_netns(pid_t pid)
{
	char mine[64], theirs[64], path[64];
	ssize_t n1, n2;

	snprintf(path, sizeof path, "/proc/%ld/ns/net", (long)pid);
	n1 = readlink("/proc/self/ns/net", mine, sizeof mine - 1);
	n2 = readlink(path, theirs, sizeof theirs - 1);
	if (n1 <= 0 || n2 <= 0)
		return false;
	mine[n1] = theirs[n2] = '\0';
	return strcmp(mine, theirs) == 0;
}

/* Dump the TCP sockets of one address family through sock_diag (one walk of the
 * established hash in the kernel, no text). Rows written, or negative with e set when
 * writing failed; *unusable when netlink failed (the caller reads /proc instead; rows
 * already written stay, and are not written twice). */
static int
diag_table(struct sockmap *m, int family, int64_t t_real_ns, struct tsv_w *t, struct err *e,
	   bool *unusable)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} req;
	int written = 0;

	memset(&req, 0, sizeof req);
	req.nh.nlmsg_len = sizeof req;
	req.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = ++m->nl_seq;
	req.r.sdiag_family = (uint8_t)family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = DIAG_STATES;
	if (send(m->nl_fd, &req, sizeof req, 0) != (ssize_t)sizeof req) {
		*unusable = true;
		return 0;
	}
	for (;;) {
		ssize_t n = recv(m->nl_fd, m->nl_buf, NL_BUF_BYTES, 0);
		struct rd r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*unusable = true;
			return written;
		}
		r = rd_make(m->nl_buf, (size_t)n);
		while (rd_left(&r) >= NLMSG_HDRLEN) {
			struct rd msg = r;
			uint32_t len = rd_ne32(&msg), seq;
			uint16_t type = rd_ne16(&msg);
			struct sockmap_entry s;
			int rc;

			rd_skip(&msg, 2);	/* flags */
			seq = rd_ne32(&msg);
			if (len < NLMSG_HDRLEN || len > rd_left(&r)) {
				m->bad_lines++;	/* a damaged datagram: drop its rest */
				break;
			}
			msg = rd_sub(&r, len);
			rd_skip(&r, NLMSG_ALIGN(len) - len < rd_left(&r) ? NLMSG_ALIGN(len) - len : rd_left(&r));
			rd_skip(&msg, NLMSG_HDRLEN);
			if (seq != m->nl_seq)
				continue;	/* the rest of a dump an earlier write error cut short */
			if (type == NLMSG_DONE)
				return written;
			if (type == NLMSG_ERROR) {
				*unusable = true;
				return written;
			}
			if (type != SOCK_DIAG_BY_FAMILY)
				continue;
			if (diag_entry(&msg, &s) < 0) {
				m->bad_lines++;
				continue;
			}
			rc = take_entry(m, &s, t_real_ns, t, e);
			if (rc < 0)
				return rc;
			written += rc;
		}
	}
}

static int
scan_table(struct sockmap *m, pid_t ns_pid, bool v6, int64_t t_real_ns, struct tsv_w *t,
	   struct err *e)
{
	char path[64];
	FILE *f;
	char line[512];
	int written = 0;
	bool first = true;

	snprintf(path, sizeof path, "/proc/%ld/net/%s", (long)ns_pid, v6 ? "tcp6" : "tcp");
	f = fopen(path, "re");
	if (f == NULL)
		return 0;	/* gone, or no IPv6 */
	while (fgets(line, sizeof line, f) != NULL) {
		struct sockmap_entry s;
		int rc;

		if (first) {	/* the column line */
			first = false;
			continue;
		}
		if (sockmap_parse_line(line, v6, &s) < 0) {
			m->bad_lines++;
			continue;
		}
		rc = take_entry(m, &s, t_real_ns, t, e);
		if (rc < 0) {
			fclose(f);
			return rc;
		}
		written += rc;
	}
	fclose(f);
	return written;
}

static int
owner_cmp(const void *a, const void *b)
{
	const struct owner *x = a, *y = b;

	if (x->inode != y->inode)
		return x->inode < y->inode ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static bool
same_as_prev(const struct sockmap *m)
{
	if (m->nown != m->nprev)
		return false;
	for (size_t i = 0; i < m->nown; i++)
		if (m->own[i].inode != m->prev[i].inode || m->own[i].pid != m->prev[i].pid)
			return false;
	return true;
}

int
sockmap_scan(struct sockmap *m, const pid_t *pids, size_t npids, int64_t t_real_ns,
	     bool force, struct tsv_w *t, struct err *e)
{
	int total = 0;

	m->nown = 0;
	for (size_t i = 0; i < npids; i++)
		collect_inodes(m, pids[i]);
	if (m->nown == 0)
		return 0;
	qsort(m->own, m->nown, sizeof *m->own, owner_cmp);
	if (!same_as_prev(m))
		m->settle = SOCKMAP_SETTLE_SCANS;
	else if (!force && m->settle == 0 && m->skipped + 1 < SOCKMAP_REFRESH_SCANS) {
		m->skipped++;
		return 0;
	} else if (m->settle > 0)
		m->settle--;
	m->skipped = 0;
	m->prev = xgrow(m->prev, &m->prev_cap, m->nown, sizeof *m->prev);
	memcpy(m->prev, m->own, m->nown * sizeof *m->own);
	m->nprev = m->nown;
	/* The processes of a rank share a network namespace: read its tables through the
	 * first process that is still there. */
	for (size_t i = 0; i < npids; i++) {
		char path[64];
		int a, b;

		snprintf(path, sizeof path, "/proc/%ld/net/tcp", (long)pids[i]);
		if (access(path, R_OK) != 0)
			continue;
		m->table_reads++;
		if (m->want != SOCKMAP_PROC && same_netns(pids[i]) && nl_ready(m)) {
			bool unusable = false;

			a = diag_table(m, AF_INET, t_real_ns, t, e, &unusable);
			if (a < 0)
				return a;
			b = unusable ? 0 : diag_table(m, AF_INET6, t_real_ns, t, e, &unusable);
			if (b < 0)
				return b;
			if (!unusable) {
				m->used = "netlink";
				total = a + b;
				break;
			}
			close(m->nl_fd);	/* refused: /proc from now on */
			m->nl_fd = -2;
		}
		m->used = "proc";
		a = scan_table(m, pids[i], false, t_real_ns, t, e);
		if (a < 0)
			return a;
		b = scan_table(m, pids[i], true, t_real_ns, t, e);
		if (b < 0)
			return b;
		total = a + b;
		break;
	}
	return total;
}
