/* rankmap: endpoint -> world rank from collect's socket map and rank meta files. */
#include "parse/rankmap.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/tsv.h"
#include "lib/xalloc.h"

struct ep {
	uint8_t af;
	uint8_t addr[16];
	uint16_t port;
	int32_t rank;		/* -2: claimed by two ranks */
};

struct rinfo {
	char *host;
	double cpu_capacity;	/* cores' worth of CPU the rank may use (meta), 0 unknown */
	struct ep *addrs;	/* the host's addresses (port 0) */
	size_t naddrs;
};

struct rankmap {
	struct ep *eps;
	size_t neps, cap;
	bool sorted;
	struct rinfo *ranks;	/* indexed by rank */
	size_t nranks;
	int32_t max_rank;
	struct rankmap_stats st;
};

struct rankmap *
rankmap_new(void)
{
	struct rankmap *m = xcalloc(1, sizeof *m);

	m->max_rank = -1;
	m->sorted = true;
	return m;
}

static int
ep_cmp(const void *a, const void *b)
{
	const struct ep *x = a, *y = b;
	int c = (int)x->af - (int)y->af;

	if (c)
		return c;
	c = memcmp(x->addr, y->addr, 16);
	if (c)
		return c;
	return (int)x->port - (int)y->port;
}

static void
note_rank(struct rankmap *m, int32_t rank)
{
	if (rank > m->max_rank)
		m->max_rank = rank;
}

void
rankmap_add(struct rankmap *m, int af, const uint8_t addr[16], uint16_t port, int32_t rank)
{
	struct ep *e;

	if (m->neps >= RANKMAP_MAX_ENDPOINTS) {
		m->st.over_cap++;
		return;
	}
	m->eps = xgrow(m->eps, &m->cap, m->neps + 1, sizeof *m->eps);
	e = &m->eps[m->neps++];
	memset(e, 0, sizeof *e);
	e->af = (uint8_t)af;
	memcpy(e->addr, addr, af == AF_INET ? 4 : 16);
	e->port = port;
	e->rank = rank;
	m->sorted = false;
	note_rank(m, rank);
	m->st.rows++;
}

/* Text address to (af, 16 bytes); IPv4-mapped IPv6 becomes IPv4. */
static bool
parse_addr(const char *s, int *af, uint8_t out[16])
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	memset(out, 0, 16);
	if (inet_pton(AF_INET, s, out) == 1) {
		*af = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, out) == 1) {
		*af = AF_INET6;
		if (memcmp(out, mapped, 12) == 0) {
			memmove(out, out + 12, 4);
			memset(out + 4, 0, 12);
			*af = AF_INET;
		}
		return true;
	}
	return false;
}

static void
sort_eps(struct rankmap *m)
{
	size_t i, o = 0;

	if (m->sorted)
		return;
	qsort(m->eps, m->neps, sizeof *m->eps, ep_cmp);
	/* merge duplicates; two ranks on one endpoint make it ambiguous */
	for (i = 0; i < m->neps; i++) {
		if (o > 0 && ep_cmp(&m->eps[o - 1], &m->eps[i]) == 0) {
			if (m->eps[o - 1].rank != m->eps[i].rank && m->eps[o - 1].rank != -2) {
				m->eps[o - 1].rank = -2;
				m->st.conflicts++;
			}
			continue;
		}
		m->eps[o++] = m->eps[i];
	}
	m->neps = o;
	m->sorted = true;
}

int
rankmap_load_sockets(struct rankmap *m, const char *path, struct err *e)
{
	static const char *const req[] = { "rank", "local_ip", "local_port", NULL };
	struct tsv_r t;
	int rc, c_rank, c_ip, c_port;

	rc = tsv_r_open(&t, path, "sockets", 1, req, e);
	if (rc < 0) {
		m->st.file_errors++;
		return rc;
	}
	m->st.files++;
	c_rank = tsv_r_col(&t, "rank");
	c_ip = tsv_r_col(&t, "local_ip");
	c_port = tsv_r_col(&t, "local_port");
	for (;;) {
		int64_t rank, port;
		uint8_t a[16];
		int af;
		struct err fe;

		rc = tsv_r_next(&t, e);
		if (rc == 0)
			break;
		if (rc == -E_IO || rc == -E_TRUNC) {
			m->st.file_errors++;
			break;
		}
		if (rc < 0 || tsv_r_i64(&t, c_rank, &rank, &fe) < 0 || tsv_r_i64(&t, c_port, &port, &fe) < 0 ||
		    rank < 0 || rank >= RANKMAP_MAX_RANKS || port < 0 || port > 65535 ||
		    !parse_addr(tsv_r_str(&t, c_ip), &af, a)) {
			m->st.bad_rows++;
			continue;
		}
		rankmap_add(m, af, a, (uint16_t)port, (int32_t)rank);
	}
	tsv_r_close(&t);
	return rc < 0 ? rc : 0;
}

int
rankmap_load_meta(struct rankmap *m, const char *path, struct err *e)
{
	static const char *const req[] = { "key", "value", NULL };
	struct tsv_r t;
	int rc;
	int64_t rank = -1;
	char *host = NULL, *addrs = NULL;
	double capacity = 0;	/* cpu_capacity key, 0 when absent or damaged */

	rc = tsv_r_open(&t, path, "meta", 1, req, e);
	if (rc < 0) {
		m->st.file_errors++;
		return rc;
	}
	m->st.files++;
	while ((rc = tsv_r_next(&t, e)) != 0) {
		const char *k;

		if (rc == -E_IO || rc == -E_TRUNC)
			break;
		if (rc < 0) {
			m->st.bad_rows++;
			continue;
		}
		k = tsv_r_str(&t, 0);
		if (strcmp(k, "rank") == 0) {
			struct err fe;

			if (tsv_r_i64(&t, 1, &rank, &fe) < 0)
				rank = -1;
		} else if (strcmp(k, "host") == 0) {
			free(host);
			host = xstrdup(tsv_r_str(&t, 1));
		} else if (strcmp(k, "addrs") == 0) {
			free(addrs);
			addrs = xstrdup(tsv_r_str(&t, 1));
		} else if (strcmp(k, "cpu_capacity") == 0) {
			struct err fe;

			if (tsv_r_f64(&t, 1, &capacity, &fe) < 0 || !(capacity > 0 && capacity <= 4096))
				capacity = 0;
		}
	}
	tsv_r_close(&t);
	if (rank >= 0 && rank < RANKMAP_MAX_RANKS) {
		struct rinfo *ri;

		if ((size_t)rank >= m->nranks) {
			size_t n = m->nranks;

			m->ranks = xgrow(m->ranks, &n, (size_t)rank + 1, sizeof *m->ranks);
			memset(m->ranks + m->nranks, 0, (n - m->nranks) * sizeof *m->ranks);
			m->nranks = n;
		}
		ri = &m->ranks[rank];
		free(ri->host);
		ri->host = host;
		host = NULL;
		ri->cpu_capacity = capacity;
		note_rank(m, (int32_t)rank);
		if (addrs != NULL) {
			char *s = addrs, *comma;

			for (;;) {
				struct ep ep;
				int af;
				size_t cap = ri->naddrs;

				comma = strchr(s, ',');
				if (comma)
					*comma = '\0';
				memset(&ep, 0, sizeof ep);
				if (parse_addr(s, &af, ep.addr) && ri->naddrs < 256) {
					ep.af = (uint8_t)af;
					ri->addrs = xgrow(ri->addrs, &cap, ri->naddrs + 1, sizeof *ri->addrs);
					ri->addrs[ri->naddrs++] = ep;
				}
				if (!comma)
					break;
				s = comma + 1;
			}
		}
	} else if (rc >= 0) {
		m->st.bad_rows++;
	}
	free(host);
	free(addrs);
	return rc < 0 ? rc : 0;
}

static int
load_dir(struct rankmap *m, const char *dir, const char *suffix_any, bool meta, struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int first = 0;

	(void)suffix_any;
	if (d == NULL)
		return err_sys(e, E_IO, "cannot open '%s'", dir);
	while ((de = readdir(d)) != NULL) {
		char *path;
		int rc;
		struct err fe;

		if (strncmp(de->d_name, "rank-", 5) != 0 || strstr(de->d_name, ".tsv") == NULL)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		rc = meta ? rankmap_load_meta(m, path, &fe) : rankmap_load_sockets(m, path, &fe);
		if (rc < 0 && first == 0) {
			first = rc;
			if (e != NULL)
				*e = fe;
		}
		free(path);
	}
	closedir(d);
	return first;
}

int
rankmap_load_run(struct rankmap *m, const char *run_dir, struct err *e)
{
	char *sd = xasprintf("%s/sockets", run_dir), *md = xasprintf("%s/meta", run_dir);
	int r1 = load_dir(m, sd, ".tsv", false, e);
	struct err e2;
	int r2 = load_dir(m, md, ".tsv", true, r1 < 0 ? &e2 : e);

	free(sd);
	free(md);
	sort_eps(m);
	return r1 < 0 ? r1 : r2;
}

int32_t
rankmap_lookup(const struct rankmap *cm, int af, const uint8_t addr[16], uint16_t port)
{
	struct rankmap *m = (struct rankmap *)cm;	/* sorting on first use is not a visible change */
	struct ep key, *hit;
	int32_t found = -1;
	size_t r, i;

	sort_eps(m);
	memset(&key, 0, sizeof key);
	key.af = (uint8_t)af;
	memcpy(key.addr, addr, af == AF_INET ? 4 : 16);
	key.port = port;
	hit = bsearch(&key, m->eps, m->neps, sizeof *m->eps, ep_cmp);
	if (hit != NULL)
		return hit->rank >= 0 ? hit->rank : -1;
	/* a wildcard listener (0.0.0.0 or ::) of a rank that owns the address */
	memset(key.addr, 0, 16);
	hit = bsearch(&key, m->eps, m->neps, sizeof *m->eps, ep_cmp);
	if (hit == NULL || hit->rank < 0)
		return -1;
	r = (size_t)hit->rank;
	if (r >= m->nranks || m->ranks[r].naddrs == 0)
		return hit->rank;	/* no addresses to check against */
	for (i = 0; i < m->ranks[r].naddrs; i++) {
		const struct ep *a = &m->ranks[r].addrs[i];

		if (a->af == af && memcmp(a->addr, addr, af == AF_INET ? 4 : 16) == 0)
			found = hit->rank;
	}
	return found;
}

const char *
rankmap_host(const struct rankmap *m, int32_t rank)
{
	if (rank < 0 || (size_t)rank >= m->nranks)
		return NULL;
	return m->ranks[rank].host;
}

int32_t
rankmap_max_rank(const struct rankmap *m)
{
	return m->max_rank;
}

const struct rankmap_stats *
rankmap_stats(const struct rankmap *m)
{
	return &m->st;
}

void
rankmap_free(struct rankmap *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nranks; i++) {
		free(m->ranks[i].host);
		free(m->ranks[i].addrs);
	}
	free(m->ranks);
	free(m->eps);
	free(m);
}

double
rankmap_cpu_capacity(const struct rankmap *m, int32_t rank)
{
	if (m == NULL || rank < 0 || (size_t)rank >= m->nranks)
		return 0;
	return m->ranks[rank].cpu_capacity;
}
