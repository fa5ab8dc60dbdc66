/* probe: ENV's active procedure: ping-pong, solo and pairwise transfers from a root host. */
#include "infer/probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/agent.h"
#include "lib/clock.h"
#include "lib/fsutil.h"
#include "lib/sortnum.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"

#define CHUNK_BYTES (256 * 1024)

struct probe_opts
probe_opts_default(void)
{
	struct probe_opts o = {
		.size_bytes = 1 << 20,
		.max_size_bytes = 256LL << 20,
		.min_time_ns = 300000000,
		.reps = 3,
		.pings = 20,
		.timeout_ns = 60000000000LL,
		.shared_below = 0.75,
		.indep_above = 0.85,
		.root_limit = 0.7,
	};
	return o;
}

static void
sleep_ns(int64_t ns)
{
	struct timespec ts = clock_ns_ts(ns);

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int
write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
read_all(int fd, void *p, size_t n)
{
	char *c = p;

	while (n > 0) {
		ssize_t r = recv(fd, c, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* A command: one byte and a 64-bit big-endian length. */
static int
send_cmd(int fd, char op, uint64_t len)
{
	uint8_t b[9];

	b[0] = (uint8_t)op;
	for (int i = 0; i < 8; i++)
		b[1 + i] = (uint8_t)(len >> (56 - 8 * i));
	return write_all(fd, b, sizeof b);
}

/* ---- the agents that are not the root ----------------------------------------------------- */

/* Serve the root's commands on fd until it says quit or goes away. */
static void
serve(int fd)
{
	char *buf = xmalloc(CHUNK_BYTES);
	uint8_t b[9];

	while (read_all(fd, b, sizeof b) == 0) {
		uint64_t len = 0;
		char ack = 'k';

		for (int i = 0; i < 8; i++)
			len = len << 8 | b[1 + i];
		if (b[0] == 'Q')
			break;
		if (b[0] == 'S') {
			while (len > 0) {
				ssize_t r = recv(fd, buf, len < CHUNK_BYTES ? len : CHUNK_BYTES, 0);

				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0)
					goto out;
				len -= (uint64_t)r;
			}
		} else if (b[0] != 'P') {
			break;
		}
		if (write_all(fd, &ack, 1) < 0)
			break;
	}
out:
	free(buf);
}

static int
listen_any(int *port, struct err *e)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	socklen_t sl = sizeof sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return err_sys(e, E_IO, "socket");
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
		close(fd);
		return err_sys(e, E_IO, "cannot listen on a TCP port");
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

/* The host's non-loopback IPv4 addresses as a comma list. */
static void
my_addrs(char *out, size_t n)
{
	struct ifaddrs *ifa, *i;
	size_t off = 0;

	out[0] = '\0';
	if (getifaddrs(&ifa) != 0)
		return;
	for (i = ifa; i; i = i->ifa_next) {
		char a[INET_ADDRSTRLEN];
		int w;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		if (!inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, a, sizeof a) ||
		    strncmp(a, "127.", 4) == 0)
			continue;
		w = snprintf(out + off, n - off, "%s%s", off ? "," : "", a);
		if (w < 0 || (size_t)w >= n - off)
			break;
		off += (size_t)w;
	}
	freeifaddrs(ifa);
}

static int
write_agent_file(const char *dir, int rank, const char *host, int port, const char *addrs,
		 struct err *e)
{
	static const char *const cols[] = { "key", "value", NULL };
	char *tmp = xasprintf("%s/.agent-%d.tmp", dir, rank);
	char *path = xasprintf("%s/agent-%d.tsv", dir, rank);
	struct tsv_w t;
	char num[32];
	int rc;

	if ((rc = tsv_w_open(&t, tmp, "meta", 1, cols, false, true, e)) == 0) {
		const char *kv[4][2] = { { "rank", NULL }, { "host", host }, { "port", NULL },
					 { "addrs", addrs } };

		for (int i = 0; i < 4 && rc == 0; i++) {
			tsv_w_str(&t, kv[i][0]);
			if (i == 0 || i == 2) {
				snprintf(num, sizeof num, "%d", i == 0 ? rank : port);
				tsv_w_str(&t, num);
			} else {
				tsv_w_str(&t, kv[i][1][0] ? kv[i][1] : "-");
			}
			rc = tsv_w_end(&t, e);
		}
		if (tsv_w_close(&t, rc == 0 ? e : NULL) < 0 && rc == 0)
			rc = -E_IO;
	}
	if (rc == 0 && rename(tmp, path) != 0)
		rc = err_sys(e, E_IO, "cannot rename '%s'", tmp);
	free(tmp);
	free(path);
	return rc;
}

struct peer {
	int rank;
	char host[256];
	char addr[64];
	int port;
	int fd;			/* to it, -1 when not connected */
	bool use;		/* measured (first agent of a host other than the root's) */
	double solo_Bps;
	int64_t size_bytes;	/* transfer size for it */
	int64_t lat_ns;
};

static int
read_agent_file(const char *path, struct peer *pe)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct tsv_r t;
	struct err e;
	int rc, got = 0;

	if (tsv_r_open(&t, path, "meta", 1, cols, &e) < 0)
		return -1;
	while ((rc = tsv_r_next(&t, &e)) == 1) {
		char k[16];
		const char *v;

		snprintf(k, sizeof k, "%s", tsv_r_str(&t, 0));
		v = tsv_r_str(&t, 1);
		if (strcmp(k, "host") == 0) {
			snprintf(pe->host, sizeof pe->host, "%s", v);
			got |= 1;
		} else if (strcmp(k, "port") == 0) {
			char *end;
			long p = strtol(v, &end, 10);

			if (*end == '\0' && p > 0 && p < 65536) {
				pe->port = (int)p;
				got |= 2;
			}
		} else if (strcmp(k, "addrs") == 0) {
			const char *c = strchr(v, ',');
			size_t l = c ? (size_t)(c - v) : strlen(v);

			if (l > 0 && l < sizeof pe->addr && strcmp(v, "-") != 0) {
				memcpy(pe->addr, v, l);
				pe->addr[l] = '\0';
				got |= 4;
			}
		}
	}
	tsv_r_close(&t);
	return got == 7 ? 0 : -1;
}

static int
connect_to(const struct peer *pe)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)pe->port) };
	int fd, one = 1;

	if (inet_pton(AF_INET, pe->addr, &sa.sin_addr) != 1)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

/* ---- the root's measurements --------------------------------------------------------------- */

static int64_t
ping(int fd)
{
	char c;
	int64_t t0 = clock_mono_ns();

	if (send_cmd(fd, 'P', 0) < 0 || read_all(fd, &c, 1) < 0)
		return -1;
	return clock_mono_ns() - t0;
}

/* Send len bytes and wait for the receipt: the rate in bytes/s, or -1. */
static double
transfer(int fd, int64_t len)
{
	static char buf[CHUNK_BYTES];
	int64_t t0 = clock_mono_ns(), left = len;
	char c;

	if (send_cmd(fd, 'S', (uint64_t)len) < 0)
		return -1;
	while (left > 0) {
		size_t n = left < CHUNK_BYTES ? (size_t)left : CHUNK_BYTES;

		if (write_all(fd, buf, n) < 0)
			return -1;
		left -= (int64_t)n;
	}
	if (read_all(fd, &c, 1) < 0)
		return -1;
	return (double)len * 1e9 / (double)(clock_mono_ns() - t0);
}

struct xfer_job {
	int fd;
	int64_t len;
	pthread_barrier_t *start;
	double rate_Bps;
};

static void *
xfer_thread(void *arg)
{
	struct xfer_job *j = arg;

	pthread_barrier_wait(j->start);
	j->rate_Bps = transfer(j->fd, j->len);
	return NULL;
}

/* Transfers to a and b at the same time; each sized to last about as long as the other
 * would alone, so that for most of the time both run. */
static int
pair_once(struct peer *a, struct peer *b, const struct probe_opts *o, double *ra, double *rb)
{
	pthread_barrier_t bar;
	struct xfer_job ja, jb;
	pthread_t ta, tb;
	double secs = 2.0 * (double)o->min_time_ns / 1e9;

	ja = (struct xfer_job){ a->fd, (int64_t)(a->solo_Bps * secs), &bar, -1 };
	jb = (struct xfer_job){ b->fd, (int64_t)(b->solo_Bps * secs), &bar, -1 };
	if (ja.len < 65536)
		ja.len = 65536;
	if (jb.len < 65536)
		jb.len = 65536;
	if (ja.len > o->max_size_bytes)
		ja.len = o->max_size_bytes;
	if (jb.len > o->max_size_bytes)
		jb.len = o->max_size_bytes;
	pthread_barrier_init(&bar, NULL, 2);
	if (pthread_create(&ta, NULL, xfer_thread, &ja) != 0) {
		pthread_barrier_destroy(&bar);
		return -1;
	}
	if (pthread_create(&tb, NULL, xfer_thread, &jb) != 0) {
		/* release the first thread: it waits at the barrier for a partner */
		jb.fd = -1;
		pthread_barrier_wait(&bar);
		pthread_join(ta, NULL);
		pthread_barrier_destroy(&bar);
		return -1;
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_barrier_destroy(&bar);
	*ra = ja.rate_Bps;
	*rb = jb.rate_Bps;
	return *ra > 0 && *rb > 0 ? 0 : -1;
}

static int
measure(struct peer *pe, int np, const struct probe_opts *o, double *ratio, double *sum,
	struct err *e)
{
	double v[100];

	for (int i = 0; i < np; i++) {
		struct peer *p = &pe[i];
		int64_t len = o->size_bytes;
		int n = 0;

		if (!p->use)
			continue;
		for (int k = 0; k < o->pings; k++) {
			int64_t r = ping(p->fd);

			if (r < 0)
				return err_set(e, E_IO, "agent '%s' (rank %d) stopped answering", p->host, p->rank);
			v[n++ % 100] = (double)r;
		}
		qsort(v, (size_t)(n < 100 ? n : 100), sizeof v[0], sortnum_cmp_f64);
		p->lat_ns = (int64_t)(v[0] / 2);
		/* grow the transfer until it lasts long enough to be stable */
		for (;;) {
			double r = transfer(p->fd, len);
			double secs;

			if (r <= 0)
				return err_set(e, E_IO, "transfer to '%s' failed", p->host);
			secs = (double)len / r;
			if (secs * 1e9 >= (double)o->min_time_ns || len >= o->max_size_bytes)
				break;
			len = (int64_t)((double)len * fmin(8.0, fmax(2.0, 1.2 * (double)o->min_time_ns / 1e9 / secs)));
			if (len > o->max_size_bytes)
				len = o->max_size_bytes;
		}
		p->size_bytes = len;
		for (n = 0; n < o->reps; n++) {
			v[n] = transfer(p->fd, len);
			if (v[n] <= 0)
				return err_set(e, E_IO, "transfer to '%s' failed", p->host);
		}
		p->solo_Bps = sortnum_median(v, (size_t)n);
		verbose("infer: probe: %s alone: %.3f MB/s (%lld bytes), latency %.1f us", p->host,
			p->solo_Bps / 1e6, (long long)len, (double)p->lat_ns / 1e3);
	}
	for (int i = 0; i < np; i++)
		for (int j = i + 1; j < np; j++) {
			double rs[100], ss[100];
			int n;

			if (!pe[i].use || !pe[j].use)
				continue;
			for (n = 0; n < o->reps; n++) {
				double ra, rb;

				if (pair_once(&pe[i], &pe[j], o, &ra, &rb) < 0)
					return err_set(e, E_IO, "pair transfer to '%s' and '%s' failed",
						       pe[i].host, pe[j].host);
				rs[n] = (ra / pe[i].solo_Bps + rb / pe[j].solo_Bps) / 2;
				ss[n] = ra + rb;
			}
			ratio[i * np + j] = ratio[j * np + i] = sortnum_median(rs, (size_t)n);
			sum[i * np + j] = sum[j * np + i] = sortnum_median(ss, (size_t)n);
			verbose("infer: probe: %s and %s together: ratio %.2f, %.3f MB/s in all", pe[i].host,
				pe[j].host, ratio[i * np + j], sum[i * np + j] / 1e6);
		}
	return 0;
}

static int
root_run(const char *dir, const struct agent_env *env, const struct probe_opts *o,
	 struct graph *g, struct err *e)
{
	int np = env->size > 0 ? env->size : 1, rc = 0, nh = 0;
	struct peer *pe = xcalloc((size_t)np, sizeof *pe);
	int64_t deadline = clock_mono_ns() + o->timeout_ns;
	double *ratio, *sum, *solo, *pr, *ps;
	int64_t *lat;
	const char **names;
	int *idx;

	for (int r = 1; r < np; r++) {
		char *path = xasprintf("%s/agent-%d.tsv", dir, r);

		pe[r].rank = r;
		pe[r].fd = -1;
		while (read_agent_file(path, &pe[r]) < 0) {
			if (clock_mono_ns() > deadline) {
				rc = err_set(e, E_IO, "agent of rank %d did not appear in '%s' within %.0f s",
					     r, dir, (double)o->timeout_ns / 1e9);
				break;
			}
			sleep_ns(50000000);
		}
		free(path);
		if (rc < 0)
			break;
	}
	/* one agent per host, none on the root's own host */
	for (int r = 1; r < np && rc == 0; r++) {
		bool dup = strcmp(pe[r].host, env->host) == 0;

		for (int q = 1; q < r && !dup; q++)
			dup = strcmp(pe[q].host, pe[r].host) == 0;
		pe[r].fd = connect_to(&pe[r]);
		if (pe[r].fd < 0)
			rc = err_sys(e, E_IO, "cannot connect to the agent of rank %d at %s:%d", r,
				     pe[r].addr, pe[r].port);
		pe[r].use = !dup;
	}
	ratio = xmallocarray((size_t)np * (size_t)np, sizeof *ratio);
	sum = xmallocarray((size_t)np * (size_t)np, sizeof *sum);
	for (int i = 0; i < np * np; i++)
		ratio[i] = sum[i] = NAN;
	if (rc == 0)
		rc = measure(pe, np, o, ratio, sum, e);
	for (int r = 1; r < np; r++)
		if (pe[r].fd >= 0) {
			if (send_cmd(pe[r].fd, 'Q', 0) < 0)
				verbose("infer: probe: rank %d went away early", r);
			close(pe[r].fd);
		}
	if (rc == 0) {
		/* the root first, then the measured hosts */
		idx = xmallocarray((size_t)np, sizeof *idx);
		names = xmallocarray((size_t)np, sizeof *names);
		solo = xmallocarray((size_t)np, sizeof *solo);
		lat = xmallocarray((size_t)np, sizeof *lat);
		names[0] = env->host;
		solo[0] = NAN;
		lat[0] = 0;
		idx[nh++] = 0;
		for (int r = 1; r < np; r++)
			if (pe[r].use) {
				names[nh] = pe[r].host;
				solo[nh] = pe[r].solo_Bps;
				lat[nh] = pe[r].lat_ns;
				idx[nh++] = r;
			}
		pr = xmallocarray((size_t)nh * (size_t)nh, sizeof *pr);
		ps = xmallocarray((size_t)nh * (size_t)nh, sizeof *ps);
		for (int i = 0; i < nh; i++)
			for (int j = 0; j < nh; j++) {
				pr[i * nh + j] = ratio[idx[i] * np + idx[j]];
				ps[i * nh + j] = sum[idx[i] * np + idx[j]];
			}
		rc = probe_build_graph(nh, names, solo, lat, pr, ps, o, g, e);
		free(pr);
		free(ps);
		free(idx);
		free(names);
		free(solo);
		free(lat);
	}
	{
		char *done = xasprintf("%s/done", dir);
		FILE *f = fopen(done, "w");

		if (f)
			fclose(f);
		free(done);
	}
	free(ratio);
	free(sum);
	free(pe);
	return rc;
}

int
probe_agent(const char *topo, const struct probe_opts *o, struct graph *g, struct err *e)
{
	struct agent_env env;
	char *dir, *done, addrs[1024];
	int rc, lfd, port = 0;
	int64_t deadline;

	if ((rc = agent_env_detect(&env, e)) < 0)
		return rc;
	dir = xasprintf("%s/probe", topo);
	if ((rc = fs_mkdir_p(dir, e)) < 0) {
		free(dir);
		return rc;
	}
	if (env.rank == 0) {
		char *stale = xasprintf("%s/done", dir);

		unlink(stale);
		free(stale);
		rc = root_run(dir, &env, o, g, e);
		free(dir);
		return rc < 0 ? rc : 1;
	}
	lfd = listen_any(&port, e);
	if (lfd < 0) {
		free(dir);
		return lfd;
	}
	my_addrs(addrs, sizeof addrs);
	if ((rc = write_agent_file(dir, env.rank, env.host, port, addrs, e)) < 0) {
		close(lfd);
		free(dir);
		return rc;
	}
	done = xasprintf("%s/done", dir);
	deadline = clock_mono_ns() + o->timeout_ns;
	for (;;) {
		struct pollfd pfd = { lfd, POLLIN, 0 };
		int n = poll(&pfd, 1, 200);

		if (n > 0) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0) {
				serve(fd);
				close(fd);
				break;
			}
		}
		if (access(done, F_OK) == 0)
			break;
		if (clock_mono_ns() > deadline) {
			rc = err_set(e, E_IO, "rank %d: the root never connected within %.0f s", env.rank,
				     (double)o->timeout_ns / 1e9);
			break;
		}
	}
	close(lfd);
	free(done);
	free(dir);
	return rc < 0 ? rc : 0;
}

/* ---- from measurements to the graph ------------------------------------------------------- */

static int
uf_find(int *par, int x)
{
	while (par[x] != x)
		x = par[x] = par[par[x]];
	return x;
}

/* The ENV pairwise test's data and outcome while the graph is built. */
struct probe_build {
	int n;
	const char *const *names;
	const double *solo, *ratio, *sum;
	const int64_t *lat;
	const struct probe_opts *o;
	double mid;		/* between shared_below and indep_above */
	int *par;		/* hosts grouped by a shared bottleneck (union-find) */
	int nindep, nlimited;	/* pairs independent; pairs limited by the root's own output */
	double conf_indep;	/* the least confidence of an independent pair */
};

/* Pairs that fell towards half together share a bottleneck, unless the root's own output
 * limited them. */
static void
group_hosts(struct probe_build *b)
{
	const struct probe_opts *o = b->o;
	int n = b->n;
	double best = 0;

	for (int i = 0; i < n; i++) {
		b->par[i] = i;
		if (i > 0 && b->solo[i] > best)
			best = b->solo[i];
	}
	b->conf_indep = 1;
	for (int i = 1; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			double m = b->ratio[i * n + j];

			if (isnan(m))
				continue;
			if (m <= o->shared_below && b->sum[i * n + j] < o->root_limit * best) {
				int x = uf_find(b->par, i), y = uf_find(b->par, j);

				b->par[x > y ? x : y] = x < y ? x : y;
			} else if (m <= o->shared_below) {
				b->nlimited++;
			} else {
				double c = fmin(1, fabs(m - b->mid) / 0.15);

				b->nindep++;
				if (c < b->conf_indep)
					b->conf_indep = c;
			}
		}
}

/* The root's network: the root and every host with no shared partner. Returns its index or
 * a negative error. */
static int
add_root_net(struct probe_build *b, struct graph *g, struct err *e)
{
	int n = b->n, k = 0;
	struct graph_attr a = graph_attr_unknown();
	double v[PROBE_MAX_HOSTS];
	char note[GRAPH_NOTE_MAX], name[GRAPH_NAME_MAX + 1];

	for (int i = 1; i < n; i++) {
		bool alone = true;

		for (int j = 1; j < n; j++)
			if (j != i && uf_find(b->par, j) == uf_find(b->par, i))
				alone = false;
		if (alone && k < PROBE_MAX_HOSTS)
			v[k++] = b->solo[i];
	}
	if (k > 0) {
		qsort(v, (size_t)k, sizeof v[0], sortnum_cmp_f64);
		a.bw_Bps = v[k / 2];
	}
	for (int i = 1; i < n; i++)
		if (b->lat[i] >= 0 && (a.lat_ns < 0 || b->lat[i] < a.lat_ns))
			a.lat_ns = b->lat[i];
	if (b->nindep > 0)
		a.confidence = b->conf_indep;
	snprintf(note, sizeof note, "%s; %d pairs independent, %d limited by the root's own "
		 "output; bandwidth: median solo rate from the root",
		 b->nindep ? "no shared bottleneck among these hosts (ENV pairwise test)" :
			     "untested: no pair of these hosts was probed together",
		 b->nindep, b->nlimited);
	a.note = note;
	snprintf(name, sizeof name, "lan-%s", b->names[0]);
	return graph_add_net(g, name, &a, e);
}

/* A new shared network for the group whose root is r, and its link to the root's network.
 * Its capacity is what its pairs achieved together. Returns its index or a negative error. */
static int
add_shared_net(struct probe_build *b, int r, int root_net, struct graph *g, struct err *e)
{
	const struct probe_opts *o = b->o;
	int n = b->n, nc = 0, nl = 0, ns = 0, nt = 0, k = 0, net, rc;
	double caps[PROBE_MAX_HOSTS * PROBE_MAX_HOSTS / 2], lats[PROBE_MAX_HOSTS], so[PROBE_MAX_HOSTS];
	double cmin = 1;
	struct graph_attr a;
	char note[GRAPH_NOTE_MAX], name[GRAPH_NAME_MAX + 1], ln[2 * GRAPH_NAME_MAX + 8];

	for (int x = 1; x < n; x++)
		if (uf_find(b->par, x) == r) {
			if (nl < PROBE_MAX_HOSTS)
				lats[nl++] = (double)b->lat[x];
			for (int y = x + 1; y < n; y++)
				if (uf_find(b->par, y) == r && !isnan(b->ratio[x * n + y])) {
					nt++;
					if (b->ratio[x * n + y] <= o->shared_below) {
						ns++;
						cmin = fmin(cmin, fabs(b->ratio[x * n + y] - b->mid) / 0.15);
						if (nc < (int)(sizeof caps / sizeof caps[0]))
							caps[nc++] = b->sum[x * n + y];
					}
				}
		}
	qsort(caps, (size_t)nc, sizeof caps[0], sortnum_cmp_f64);
	qsort(lats, (size_t)nl, sizeof lats[0], sortnum_cmp_f64);
	a = graph_attr_unknown();
	/* the summed rates of a pair overstate a little (the one left alone speeds up at the
	 * end), its members' solo rates understate a little (a round trip per transfer): the
	 * capacity is the mean of the two medians */
	for (int x = 1; x < n; x++)
		if (uf_find(b->par, x) == r && k < PROBE_MAX_HOSTS)
			so[k++] = b->solo[x];
	qsort(so, (size_t)k, sizeof so[0], sortnum_cmp_f64);
	a.bw_Bps = nc ? (caps[nc / 2] + so[k / 2]) / 2 : NAN;
	a.confidence = nt ? fmin(1, cmin) * ns / nt : GRAPH_UNTESTED;
	snprintf(note, sizeof note, "shared bottleneck: %d of %d probed pairs fell towards "
		 "half together (ENV test from %s); capacity: mean of the pairs' summed rates and the hosts' solo rates", ns, nt,
		 b->names[0]);
	a.note = note;
	snprintf(name, sizeof name, "shared%d", g->nnet);
	net = graph_add_net(g, name, &a, e);
	if (net < 0)
		return net;
	a.lat_ns = nl ? (int64_t)lats[nl / 2] : -1;
	snprintf(note, sizeof note, "from %s's network to %s: the shared capacity; latency "
		 "from ping-pong", b->names[0], name);
	a.note = note;
	snprintf(ln, sizeof ln, "%.90s--%.90s", g->nets[root_net].name, name);
	rc = graph_add_link(g, ln, (struct graph_end){ GRAPH_END_NET, root_net },
			    (struct graph_end){ GRAPH_END_NET, net }, &a, e);
	return rc < 0 ? rc : net;
}

int
probe_build_graph(int n, const char *const *names, const double *solo, const int64_t *lat,
		  const double *ratio, const double *sum, const struct probe_opts *o,
		  struct graph *g, struct err *e)
{
	struct probe_build b = { .n = n, .names = names, .solo = solo, .ratio = ratio, .sum = sum,
				 .lat = lat, .o = o, .mid = (o->shared_below + o->indep_above) / 2 };
	int *net = xmallocarray((size_t)n, sizeof *net);
	int rc = 0, root_net;

	b.par = xmallocarray((size_t)n, sizeof *b.par);
	graph_init_empty(g, 0);
	for (int i = 0; i < n; i++)
		net[i] = -1;
	group_hosts(&b);
	root_net = add_root_net(&b, g, e);
	if (root_net < 0)
		rc = root_net;
	for (int i = 0; i < n && rc == 0; i++) {
		int r = uf_find(b.par, i);
		char hn[300];
		bool grouped = false;

		for (int j = 1; j < n && i > 0; j++)
			if (j != i && uf_find(b.par, j) == r)
				grouped = true;
		if (grouped && net[r] < 0) {
			rc = net[r] = add_shared_net(&b, r, root_net, g, e);
			if (rc < 0)
				break;
			rc = 0;
		}
		if (i == 0)
			snprintf(hn, sizeof hn, "ENV root (rank 0)");
		else
			snprintf(hn, sizeof hn, "alone from the root: %.3f MB/s, one-way latency %.1f us",
				 solo[i] / 1e6, (double)lat[i] / 1e3);
		rc = graph_add_host(g, names[i], grouped ? net[r] : root_net, NAN, NAN, hn, e);
		if (rc >= 0)
			rc = 0;
	}
	free(b.par);
	free(net);
	return rc;
}

/* ---- on the testbed ---------------------------------------------------------------------- */

int
probe_on_testbed(int k, const char *topo, const struct probe_opts *o, struct err *e)
{
	static const char *const cols[] = { "key", "value", NULL };
	char *cfg = xasprintf("/run/contend-testbed/%d/config.tsv", k);
	char self[PATH_MAX], abs_topo[PATH_MAX], kbuf[16], nbuf[16], sz[32], mt[32], reps[16], to[32];
	struct tsv_r t;
	int rc, nws = -1, status;
	pid_t pid;

	if ((rc = tsv_r_open(&t, cfg, "meta", 1, cols, e)) < 0) {
		err_prefix(e, "testbed %d is not up", k);
		free(cfg);
		return rc;
	}
	free(cfg);
	while ((rc = tsv_r_next(&t, e)) == 1)
		if (strcmp(tsv_r_str(&t, 0), "nws") == 0) {
			char *end;
			long v = strtol(tsv_r_str(&t, 1), &end, 10);

			if (*end == '\0' && v > 0 && v <= PROBE_MAX_HOSTS)
				nws = (int)v;
		}
	tsv_r_close(&t);
	if (nws < 0)
		return err_set(e, E_FORMAT, "testbed %d: no workstation count in its config", k);
	{
		ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);

		if (l < 0)
			return err_sys(e, E_IO, "cannot find this program");
		self[l] = '\0';
	}
	if ((rc = fs_mkdir_p(topo, e)) < 0)
		return rc;
	if (realpath(topo, abs_topo) == NULL)
		return err_sys(e, E_IO, "cannot resolve '%s'", topo);
	snprintf(kbuf, sizeof kbuf, "%d", k);
	snprintf(nbuf, sizeof nbuf, "%d", nws);
	snprintf(sz, sizeof sz, "%lld", (long long)o->size_bytes);
	snprintf(mt, sizeof mt, "%lldns", (long long)o->min_time_ns);
	snprintf(reps, sizeof reps, "%d", o->reps);
	snprintf(to, sizeof to, "%lldns", (long long)o->timeout_ns);
	pid = fork();
	if (pid < 0)
		return err_sys(e, E_IO, "fork");
	if (pid == 0) {
		char *argv[] = { self, "testbed", "--instance", kbuf, "mpirun", "-np", nbuf, "--", self,
				 "infer", "--probe", "-o", abs_topo, "--size", sz, "--min-time", mt,
				 "--reps", reps, "--timeout", to,
				 err_verbosity >= 2 ? "-v" : err_verbosity == 0 ? "-q" : "--no-render", NULL };

		if (err_verbosity == 1)	/* "--no-render" was a placeholder: drop it */
			argv[21] = NULL;
		execv(self, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_sys(e, E_IO, "waitpid");
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
