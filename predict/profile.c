/* profile: read a run's profile and topology tables for the models, with full checks. */
#include "predict/profile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/dec.h"
#include "lib/fsutil.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"

/* Count a damaged row, keeping the first message. */
PRINTF(3, 4) static void
damage(struct prof *p, const struct tsv_r *t, const char *fmt, ...)
{
	if (p->damaged++ == 0) {
		char msg[ERR_MSG_MAX / 2];
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		snprintf(p->first_damage, sizeof p->first_damage, "'%.200s' line %ld: %s", t->path,
			 t->line_no, msg);
	}
}

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Column indices by name; all were required at open, so none is -1. */
static void
cols_of(const struct tsv_r *t, const char *const *names, int *idx)
{
	for (int i = 0; names[i] != NULL; i++) {
		idx[i] = tsv_r_col(t, names[i]);
		if (idx[i] < 0)
			BUG("required column '%s' missing after open", names[i]);
	}
}

/* tsv_r_i64, with a plain decimal field (nearly all of them) converted here: strtoll's
 * locale and errno work was the largest single cost of loading a million-message run.
 * dec_i64 takes exactly the fields tsv_r_i64 takes, with the same value; anything else
 * goes to tsv_r_i64 for its verdict and message. */
static int
get_i64(struct tsv_r *t, int col, int64_t *v, struct err *e)
{
	if (col >= 0 && col < t->ncols && t->fields[col] != NULL && dec_i64(t->fields[col], v) == 0)
		return 0;
	return tsv_r_i64(t, col, v, e);
}

/* An optional label column's integer, where a bad value only means "unknown": 0, or -1
 * without the cost of an error message (idle phases have no run_ns, control records no
 * tag). */
static int
label_i64(const struct tsv_r *t, int col, int64_t *v)
{
	if (col < 0 || col >= t->ncols || t->fields[col] == NULL)
		return -1;
	return dec_i64(t->fields[col], v);
}

/* Next row: 1 row, 0 end, negative fatal. Damaged lines are counted and skipped. */
static int
next_row(struct prof *p, struct tsv_r *t, struct err *e)
{
	for (;;) {
		struct err e2;
		int rc = tsv_r_next(t, &e2);

		if (rc >= 0)
			return rc;
		if (rc == -E_TRUNC) {
			p->truncated++;
			return 0;
		}
		if (rc == -E_IO) {
			if (e != NULL)
				*e = e2;
			return rc;
		}
		if (p->damaged++ == 0)
			snprintf(p->first_damage, sizeof p->first_damage, "%s", e2.msg);
	}
}

static const char *const rank_cols[] = {
	"rank", "host", "exec_ns", "comp_pct", "comm_pct", "idle_pct", "avg_busy_ns", "avg_idle_ns",
	"n_busy", "n_idle", "cpu_pct", "run_ns", "wait_ns", "msgs_sent", "bytes_sent", "msgs_recv",
	"bytes_recv", NULL,
};

static int
cmp_rank(const void *a, const void *b)
{
	const struct prof_rank *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int
read_ranks(struct prof *p, const char *path, struct err *e)
{
	struct tsv_r t;
	int idx[17];
	size_t cap = 0;
	int rc;

	if ((rc = tsv_r_open(&t, path, "ranks", 1, rank_cols, e)) < 0)
		return rc;
	cols_of(&t, rank_cols, idx);
	while ((rc = next_row(p, &t, e)) == 1) {
		struct prof_rank r;
		int64_t rank;
		const char *host;
		struct err fe;

		memset(&r, 0, sizeof r);
		if (get_i64(&t, idx[0], &rank, &fe) < 0 || get_i64(&t, idx[2], &r.exec_ns, &fe) < 0 ||
		    tsv_r_f64(&t, idx[3], &r.comp_pct, &fe) < 0 || tsv_r_f64(&t, idx[4], &r.comm_pct, &fe) < 0 ||
		    tsv_r_f64(&t, idx[5], &r.idle_pct, &fe) < 0 || tsv_r_f64(&t, idx[6], &r.avg_busy_ns, &fe) < 0 ||
		    tsv_r_f64(&t, idx[7], &r.avg_idle_ns, &fe) < 0 || get_i64(&t, idx[8], &r.n_busy, &fe) < 0 ||
		    get_i64(&t, idx[9], &r.n_idle, &fe) < 0 || tsv_r_f64(&t, idx[10], &r.cpu_pct, &fe) < 0 ||
		    get_i64(&t, idx[11], &r.run_ns, &fe) < 0 || get_i64(&t, idx[12], &r.wait_ns, &fe) < 0 ||
		    get_i64(&t, idx[13], &r.msgs_sent, &fe) < 0 || get_i64(&t, idx[14], &r.bytes_sent, &fe) < 0 ||
		    get_i64(&t, idx[15], &r.msgs_recv, &fe) < 0 || get_i64(&t, idx[16], &r.bytes_recv, &fe) < 0) {
			if (p->damaged++ == 0)
				snprintf(p->first_damage, sizeof p->first_damage, "%s", fe.msg);
			continue;
		}
		host = tsv_r_str(&t, idx[1]);
		if (rank < 0 || rank >= PROF_MAX_RANKS) {
			damage(p, &t, "rank %lld is out of range", (long long)rank);
			continue;
		}
		if (host == NULL || host[0] == '\0' || strcmp(host, "-") == 0 || strlen(host) >= PROF_HOST_MAX) {
			damage(p, &t, "rank %lld has no usable host name", (long long)rank);
			continue;
		}
		if (r.exec_ns <= 0 || r.comp_pct < 0 || r.comp_pct > 100.5 || r.comm_pct < 0 ||
		    r.comm_pct > 100.5 || r.idle_pct < 0 || r.idle_pct > 100.5 ||
		    r.comp_pct + r.comm_pct + r.idle_pct > 102 || !(r.avg_busy_ns >= 0) ||
		    !(r.avg_idle_ns >= 0) || r.n_busy < 0 || r.n_idle < 0 || r.run_ns < 0 || r.wait_ns < 0 ||
		    r.msgs_sent < 0 || r.bytes_sent < 0 || r.msgs_recv < 0 || r.bytes_recv < 0 ||
		    !isfinite(r.avg_busy_ns) || !isfinite(r.avg_idle_ns)) {
			damage(p, &t, "rank %lld has an implausible value (negative, or percentages past 100)",
			       (long long)rank);
			continue;
		}
		r.rank = (int)rank;
		r.pkts_sent = -1;	/* read_conns */
		memcpy(r.host, host, strlen(host) + 1);
		if (p->nranks == PROF_MAX_RANKS) {
			damage(p, &t, "more than %d ranks", PROF_MAX_RANKS);
			continue;
		}
		p->ranks = xgrow(p->ranks, &cap, (size_t)p->nranks + 1, sizeof *p->ranks);
		p->ranks[p->nranks++] = r;
	}
	tsv_r_close(&t);
	if (rc < 0)
		return rc;
	if (p->nranks > 1)
		qsort(p->ranks, (size_t)p->nranks, sizeof *p->ranks, cmp_rank);
	for (int i = 1; i < p->nranks; i++) {
		if (p->ranks[i].rank == p->ranks[i - 1].rank)
			return err_set(e, E_FORMAT, "'%s': rank %d appears twice", path, p->ranks[i].rank);
	}
	if (p->nranks == 0)
		return err_set(e, E_FORMAT, "'%s' has no usable rank row%s%s", path,
			       p->damaged ? "; first problem: " : "", p->damaged ? p->first_damage : "");
	return 0;
}

static const char *const conn_cols[] = { "rank0", "rank1", NULL };

/* Each rank's packets sent on the connections between ranks (conns.tsv: pkts0 are sent by
 * end 0), into pkts_sent. Connections to no rank (the launcher's, other traffic) are left
 * out. A damaged row is counted and skipped; a rank with no connection sent 0. A file
 * without the packet counts (an older parse) leaves them unknown. */
static int
read_conns(struct prof *p, const char *path, struct err *e)
{
	struct tsv_r t;
	int idx[4];
	int rc;

	if ((rc = tsv_r_open(&t, path, "conns", 1, conn_cols, e)) < 0)
		return rc;
	cols_of(&t, conn_cols, idx);
	idx[2] = tsv_r_col(&t, "pkts0");
	idx[3] = tsv_r_col(&t, "pkts1");
	if (idx[2] < 0 || idx[3] < 0) {
		tsv_r_close(&t);
		return 0;
	}
	for (int i = 0; i < p->nranks; i++)
		p->ranks[i].pkts_sent = 0;
	while ((rc = next_row(p, &t, e)) == 1) {
		int64_t r0, r1, k0, k1;
		const struct prof_rank *a, *b;

		if (label_i64(&t, idx[0], &r0) < 0 || label_i64(&t, idx[1], &r1) < 0 || r0 < 0 || r1 < 0 ||
		    r0 == r1)
			continue;	/* not between two ranks */
		a = prof_rank(p, (int)r0);
		b = prof_rank(p, (int)r1);
		if (a == NULL || b == NULL || label_i64(&t, idx[2], &k0) < 0 || label_i64(&t, idx[3], &k1) < 0 ||
		    k0 < 0 || k1 < 0) {
			damage(p, &t, "connection between ranks %lld and %lld has no usable packet counts",
			       (long long)r0, (long long)r1);
			continue;
		}
		p->ranks[a - p->ranks].pkts_sent += k0;
		p->ranks[b - p->ranks].pkts_sent += k1;
	}
	tsv_r_close(&t);
	return rc < 0 ? rc : 0;
}

static const char *const link_cols[] = {
	"src", "dst", "msgs", "bytes", "avg_bytes", "active_ns", "t_first_ns", "t_last_ns", NULL,
};

static int
cmp_link(const void *a, const void *b)
{
	const struct prof_link *x = a, *y = b;

	if (x->src != y->src)
		return (x->src > y->src) - (x->src < y->src);
	return (x->dst > y->dst) - (x->dst < y->dst);
}

static int
read_links(struct prof *p, const char *path, struct err *e)
{
	struct tsv_r t;
	int idx[8];
	size_t cap = 0;
	int rc;

	if ((rc = tsv_r_open(&t, path, "links", 1, link_cols, e)) < 0)
		return rc;
	cols_of(&t, link_cols, idx);
	while ((rc = next_row(p, &t, e)) == 1) {
		struct prof_link l;
		int64_t src, dst;
		struct err fe;

		if (get_i64(&t, idx[0], &src, &fe) < 0 || get_i64(&t, idx[1], &dst, &fe) < 0 ||
		    get_i64(&t, idx[2], &l.msgs, &fe) < 0 || get_i64(&t, idx[3], &l.bytes, &fe) < 0 ||
		    tsv_r_f64(&t, idx[4], &l.avg_bytes, &fe) < 0 || get_i64(&t, idx[5], &l.active_ns, &fe) < 0 ||
		    get_i64(&t, idx[6], &l.t_first_ns, &fe) < 0 || get_i64(&t, idx[7], &l.t_last_ns, &fe) < 0) {
			if (p->damaged++ == 0)
				snprintf(p->first_damage, sizeof p->first_damage, "%s", fe.msg);
			continue;
		}
		if (prof_rank(p, (int)src) == NULL || prof_rank(p, (int)dst) == NULL || src == dst ||
		    src < 0 || dst < 0 || src >= PROF_MAX_RANKS || dst >= PROF_MAX_RANKS) {
			damage(p, &t, "link %lld -> %lld names a rank not in ranks.tsv", (long long)src,
			       (long long)dst);
			continue;
		}
		if (l.msgs < 0 || l.bytes < 0 || !(l.avg_bytes >= 0) || !isfinite(l.avg_bytes) ||
		    l.active_ns < 0 || l.t_last_ns < l.t_first_ns ||
		    (l.msgs > 0 && fabs(l.avg_bytes * (double)l.msgs - (double)l.bytes) > (double)l.msgs + 1)) {
			damage(p, &t, "link %lld -> %lld has an implausible value (negative, or avg_bytes "
			       "not bytes/msgs)", (long long)src, (long long)dst);
			continue;
		}
		if (p->nlinks == PROF_MAX_LINKS) {
			damage(p, &t, "more than %d links", PROF_MAX_LINKS);
			continue;
		}
		l.src = (int)src;
		l.dst = (int)dst;
		p->links = xgrow(p->links, &cap, (size_t)p->nlinks + 1, sizeof *p->links);
		p->links[p->nlinks++] = l;
	}
	tsv_r_close(&t);
	if (rc < 0)
		return rc;
	if (p->nlinks > 1)
		qsort(p->links, (size_t)p->nlinks, sizeof *p->links, cmp_link);
	{
		int w = 0;	/* keep the first row of each pair, count the others */

		for (int i = 0; i < p->nlinks; i++) {
			if (w > 0 && p->links[w - 1].src == p->links[i].src && p->links[w - 1].dst == p->links[i].dst) {
				if (p->damaged++ == 0)
					snprintf(p->first_damage, sizeof p->first_damage,
						 "'%.200s': link %d -> %d appears twice", path, p->links[i].src,
						 p->links[i].dst);
				continue;
			}
			p->links[w++] = p->links[i];
		}
		p->nlinks = w;
	}
	return 0;
}

static int
read_netparams(struct prof *p, const char *path, struct err *e)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct tsv_r t;
	int ik, iv;
	int rc;
	bool got_lat = false, got_bw = false;

	if ((rc = tsv_r_open(&t, path, "netparams", 1, cols, e)) < 0)
		return rc;
	ik = tsv_r_col(&t, "key");
	iv = tsv_r_col(&t, "value");
	snprintf(p->lat_how, sizeof p->lat_how, "-");
	snprintf(p->bw_how, sizeof p->bw_how, "-");
	while ((rc = next_row(p, &t, e)) == 1) {
		char key[64];
		const char *k = tsv_r_str(&t, ik);
		struct err fe;

		snprintf(key, sizeof key, "%s", k ? k : "");
		if (strcmp(key, "lat_ns") == 0) {
			double lat;	/* ns; a measured mean may carry a fraction */

			if (tsv_r_f64(&t, iv, &lat, &fe) < 0 || !(lat >= 0) || lat > 3.6e12) {
				damage(p, &t, "lat_ns is not a latency in nanoseconds");
				continue;
			}
			p->lat_ns = llround(lat);
			got_lat = true;
		} else if (strcmp(key, "bw_Bps") == 0) {
			if (tsv_r_f64(&t, iv, &p->bw_Bps, &fe) < 0 || !(p->bw_Bps > 0) || !isfinite(p->bw_Bps)) {
				damage(p, &t, "bw_Bps is not a bandwidth in bytes/s");
				continue;
			}
			got_bw = true;
		} else if (strncmp(key, "lat_", 4) == 0 && strcmp(p->lat_how, "-") == 0) {
			const char *v = tsv_r_str(&t, iv);

			snprintf(p->lat_how, sizeof p->lat_how, "%s", v ? v : "-");
		} else if (strncmp(key, "bw_", 3) == 0 && strcmp(p->bw_how, "-") == 0) {
			const char *v = tsv_r_str(&t, iv);

			snprintf(p->bw_how, sizeof p->bw_how, "%s", v ? v : "-");
		}
	}
	tsv_r_close(&t);
	p->have_net = got_lat && got_bw;
	return rc < 0 ? rc : 0;
}

/* coverage and coverage_note of stats.tsv: whether the trace holds every rank pair's
 * messages. Other keys are parse's own business. */
static int
read_coverage(struct prof *p, const char *path, struct err *e)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct tsv_r t;
	int rc;

	if ((rc = tsv_r_open(&t, path, "stats", 1, cols, e)) < 0)
		return rc;
	while ((rc = next_row(p, &t, e)) == 1) {
		const char *k = tsv_r_str(&t, 0), *v = tsv_r_str(&t, 1);

		if (k == NULL || v == NULL)
			continue;
		if (strcmp(k, "coverage") == 0)
			snprintf(p->coverage, sizeof p->coverage, "%s", v);
		else if (strcmp(k, "coverage_note") == 0)
			snprintf(p->coverage_note, sizeof p->coverage_note, "%s", v);
	}
	tsv_r_close(&t);
	return rc < 0 ? rc : 0;
}

static int
read_topology(struct prof *p, const char *path, struct err *e)
{
	static const char *const cols[] = { "kind", "a", "b", "bw_Bps", "lat_ns", "cap_tps", NULL };
	struct tsv_r t;
	int ik, ia, ib, ibw, ilat, icap;
	size_t cap = 0;
	int rc;

	if ((rc = tsv_r_open(&t, path, "topology", 1, cols, e)) < 0)
		return rc;
	ik = tsv_r_col(&t, "kind");
	ia = tsv_r_col(&t, "a");
	ib = tsv_r_col(&t, "b");
	ibw = tsv_r_col(&t, "bw_Bps");
	ilat = tsv_r_col(&t, "lat_ns");
	icap = tsv_r_col(&t, "cap_tps");
	while ((rc = next_row(p, &t, e)) == 1) {
		struct prof_topo o;
		const char *s;
		struct err fe;

		memset(&o, 0, sizeof o);
		s = tsv_r_str(&t, ik);
		if (s == NULL || (strcmp(s, "net") != 0 && strcmp(s, "member") != 0 && strcmp(s, "link") != 0)) {
			damage(p, &t, "kind is not net, member or link");
			continue;
		}
		snprintf(o.kind, sizeof o.kind, "%s", s);
		s = tsv_r_str(&t, ia);
		if (s == NULL || s[0] == '\0' || strlen(s) >= PROF_HOST_MAX) {
			damage(p, &t, "column a is empty or too long");
			continue;
		}
		memcpy(o.a, s, strlen(s) + 1);
		s = tsv_r_str(&t, ib);
		if (s == NULL || strlen(s) >= PROF_HOST_MAX) {
			damage(p, &t, "column b is too long");
			continue;
		}
		memcpy(o.b, s, strlen(s) + 1);
		o.bw_Bps = NAN;
		o.lat_ns = -1;
		o.cap_tps = NAN;
		s = tsv_r_str(&t, ibw);
		if (s != NULL && strcmp(s, "-") != 0 && strcmp(s, "nan") != 0 &&
		    (tsv_r_f64(&t, ibw, &o.bw_Bps, &fe) < 0 || !(o.bw_Bps > 0))) {
			damage(p, &t, "bw_Bps is not a bandwidth");
			continue;
		}
		s = tsv_r_str(&t, ilat);
		if (s != NULL && strcmp(s, "-") != 0 && (get_i64(&t, ilat, &o.lat_ns, &fe) < 0 || o.lat_ns < -1)) {
			damage(p, &t, "lat_ns is not a latency");
			continue;
		}
		s = tsv_r_str(&t, icap);
		if (s != NULL && strcmp(s, "-") != 0 && strcmp(s, "nan") != 0 &&
		    (tsv_r_f64(&t, icap, &o.cap_tps, &fe) < 0 || !(o.cap_tps >= 0))) {
			damage(p, &t, "cap_tps is not a capacity");
			continue;
		}
		if (p->ntopo == PROF_MAX_TOPO) {
			damage(p, &t, "more than %d topology rows", PROF_MAX_TOPO);
			continue;
		}
		p->topo = xgrow(p->topo, &cap, (size_t)p->ntopo + 1, sizeof *p->topo);
		p->topo[p->ntopo++] = o;
	}
	tsv_r_close(&t);
	p->have_topo = rc >= 0;
	return rc < 0 ? rc : 0;
}

static const char *const msg_cols[] = { "t_first_ns", "src", "dst", "bytes", NULL };

/* The index + 1 of a tag_name in p->names, added when new; 0 for "-", "" and past the cap. */
const char *const prof_proto_names[PROF_NPROTO] = {
	"eager", "sync", "rndv-put", "rndv-frag", "ctrl", "unknown", "other",
};

#define PROTO_CTRL 4	/* prof_proto_names index of "ctrl" */

static uint8_t
proto_index(const char *s)
{
	for (int i = 0; i < PROF_NPROTO - 1; i++)
		if (s[0] == prof_proto_names[i][0] && strcmp(s, prof_proto_names[i]) == 0)
			return (uint8_t)i;
	return PROF_NPROTO - 1;
}

static uint8_t
name_index(struct prof *p, const char *name)
{
	/* "-" on most rows: told without a call */
	if (name[0] == '\0' || (name[0] == '-' && name[1] == '\0') || strlen(name) >= sizeof p->names[0])
		return 0;
	for (int i = 0; i < p->nnames; i++)
		if (strcmp(p->names[i], name) == 0)
			return (uint8_t)(i + 1);
	if (p->nnames == PROF_MAX_NAMES)
		return 0;
	snprintf(p->names[p->nnames], sizeof p->names[0], "%s", name);
	return (uint8_t)++p->nnames;
}

static int
read_messages(struct prof *p, const char *path, struct err *e)
{
	struct tsv_r t;
	int it, il, is, id, ib, iw, itag, icid, iname, iproto, iflags;
	size_t cap = 0;
	int rc;

	if ((rc = tsv_r_open(&t, path, "messages", 1, msg_cols, e)) < 0)
		return rc;
	it = tsv_r_col(&t, "t_first_ns");
	il = tsv_r_col(&t, "t_last_ns");	/* optional: -1 when absent, as the next four */
	itag = tsv_r_col(&t, "tag");
	icid = tsv_r_col(&t, "cid");
	iname = tsv_r_col(&t, "tag_name");
	iproto = tsv_r_col(&t, "proto");
	is = tsv_r_col(&t, "src");
	id = tsv_r_col(&t, "dst");
	ib = tsv_r_col(&t, "bytes");
	iw = tsv_r_col(&t, "wire_bytes");	/* optional */
	iflags = tsv_r_col(&t, "flags");	/* optional */
	while ((rc = next_row(p, &t, e)) == 1) {
		int64_t tns, tlast, src, dst, bytes, wire, tag = 0, cid = -1;
		bool have_tag;
		uint8_t proto;	/* prof_proto_names index */
		struct err fe;

		if (get_i64(&t, it, &tns, &fe) < 0 || get_i64(&t, is, &src, &fe) < 0 ||
		    get_i64(&t, id, &dst, &fe) < 0 || get_i64(&t, ib, &bytes, &fe) < 0) {
			if (p->damaged++ == 0)
				snprintf(p->first_damage, sizeof p->first_damage, "%s", fe.msg);
			continue;
		}
		if (src < -1 || dst < -1 || src >= PROF_MAX_RANKS || dst >= PROF_MAX_RANKS || bytes < 0 ||
		    tns < 0) {
			damage(p, &t, "message has an implausible rank, size or time");
			continue;
		}
		/* the last byte's time only widens the message; a bad one is not worth the row */
		if (label_i64(&t, il, &tlast) < 0 || tlast < tns)
			tlast = tns;
		/* tag and communicator are labels: an unknown or bad one leaves the message */
		have_tag = label_i64(&t, itag, &tag) == 0 && tag >= INT32_MIN &&
			   tag <= INT32_MAX;
		if (label_i64(&t, icid, &cid) < 0 || cid < -1 || cid > INT32_MAX)
			cid = -1;
		/* the headers: a label too, and never more than 4 GB */
		if (label_i64(&t, iw, &wire) < 0 || wire < bytes || wire - bytes > UINT32_MAX)
			wire = bytes;
		if (p->nmsgs == PROF_MAX_MSGS) {
			p->capped++;
			continue;
		}
		proto = iproto >= 0 ? proto_index(tsv_r_str(&t, iproto)) : PROF_NPROTO - 2;
		p->msgs = xgrow(p->msgs, &cap, (size_t)p->nmsgs + 1, sizeof *p->msgs);
		p->msgs[p->nmsgs++] = (struct prof_msg){
			.t_ns = tns, .t_last_ns = tlast, .src = (int32_t)src, .dst = (int32_t)dst,
			.bytes = bytes, .tag = have_tag ? (int32_t)tag : 0, .cid = (int32_t)cid,
			.have_tag = have_tag,
			.ctrl = iproto >= 0 && proto == PROTO_CTRL,
			.name = iname >= 0 ? name_index(p, tsv_r_str(&t, iname)) : 0,
			.proto = proto,
			.hdr = (uint32_t)(wire - bytes),
			.after_answer = iflags >= 0 && strstr(tsv_r_str(&t, iflags), "after-answer") != NULL,
		};
	}
	tsv_r_close(&t);
	p->have_msgs = rc >= 0;
	return rc < 0 ? rc : 0;
}

static const char *const phase_cols[] = { "rank", "kind", "t_start_ns", "t_end_ns", NULL };

static int
read_phases(struct prof *p, const char *path, struct err *e)
{
	struct tsv_r t;
	int ir, ik, i0, i1, irun, iwait;
	size_t cap = 0, icap = 0;
	int rc;

	if ((rc = tsv_r_open(&t, path, "phases", 1, phase_cols, e)) < 0)
		return rc;
	irun = tsv_r_col(&t, "run_ns");	/* optional */
	iwait = tsv_r_col(&t, "wait_ns");	/* optional */
	ir = tsv_r_col(&t, "rank");
	ik = tsv_r_col(&t, "kind");
	i0 = tsv_r_col(&t, "t_start_ns");
	i1 = tsv_r_col(&t, "t_end_ns");
	p->t_phase0_ns = INT64_MAX;
	p->t_phase1_ns = INT64_MIN;
	while ((rc = next_row(p, &t, e)) == 1) {
		int64_t rank, t0, t1, run, wait;
		const char *kind;
		struct prof_busy ph;
		bool busy;
		struct err fe;

		if (get_i64(&t, ir, &rank, &fe) < 0 || get_i64(&t, i0, &t0, &fe) < 0 ||
		    get_i64(&t, i1, &t1, &fe) < 0) {
			if (p->damaged++ == 0)
				snprintf(p->first_damage, sizeof p->first_damage, "%s", fe.msg);
			continue;
		}
		kind = tsv_r_str(&t, ik);
		busy = kind[0] == 'b' && strcmp(kind, "busy") == 0;
		if ((!busy && (kind[0] != 'i' || strcmp(kind, "idle") != 0)) || rank < 0 ||
		    rank >= PROF_MAX_RANKS || t0 < 0 || t1 < t0) {
			damage(p, &t, "phase has an unknown kind, a bad rank or ends before it starts");
			continue;
		}
		if (t0 < p->t_phase0_ns)
			p->t_phase0_ns = t0;
		if (t1 > p->t_phase1_ns)
			p->t_phase1_ns = t1;
		if (label_i64(&t, irun, &run) < 0 || run < 0)
			run = -1;
		if (label_i64(&t, iwait, &wait) < 0 || wait < 0)
			wait = -1;
		ph = (struct prof_busy){ .rank = (int32_t)rank, .t_start_ns = t0, .t_end_ns = t1, .run_ns = run,
					 .wait_ns = wait };
		if ((busy ? p->nbusy : p->nidle) == PROF_MAX_BUSY) {
			p->capped++;
			continue;
		}
		if (busy) {
			p->busy = xgrow(p->busy, &cap, (size_t)p->nbusy + 1, sizeof *p->busy);
			p->busy[p->nbusy++] = ph;
		} else {
			p->idle = xgrow(p->idle, &icap, (size_t)p->nidle + 1, sizeof *p->idle);
			p->idle[p->nidle++] = ph;
		}
	}
	tsv_r_close(&t);
	if (p->t_phase0_ns == INT64_MAX)
		p->t_phase0_ns = p->t_phase1_ns = 0;
	p->have_phases = rc >= 0;
	return rc < 0 ? rc : 0;
}

int
prof_load(struct prof *p, const char *run, struct err *e)
{
	struct err ce;
	char *path;
	int rc;

	memset(p, 0, sizeof *p);
	p->run = xstrdup(run);
	p->lat_ns = -1;
	p->bw_Bps = NAN;
	path = xasprintf("%s/profile/ranks.tsv", run);
	if (!exists(path)) {
		rc = err_set(e, E_IO, "no profile in '%s' (no '%s'; run 'contend parse %s' first)", run,
			     path, run);
		free(path);
		return rc;
	}
	rc = read_ranks(p, path, e);
	free(path);
	if (rc < 0)
		return rc;
	path = xasprintf("%s/profile/links.tsv", run);
	if (exists(path)) {
		rc = read_links(p, path, e);
		p->have_links = rc == 0;
	}
	free(path);
	if (rc < 0)
		return rc;
	/* conns.tsv only gives the packets (busy_shares in replay.c): a file it cannot read leaves them
	 * unknown and costs the rest of the profile nothing */
	path = xasprintf("%s/profile/conns.tsv", run);
	if (exists(path) && read_conns(p, path, &ce) < 0) {
		for (int i = 0; i < p->nranks; i++)
			p->ranks[i].pkts_sent = -1;
		if (p->damaged++ == 0)
			snprintf(p->first_damage, sizeof p->first_damage, "'%s' is not a usable conns file", path);
	}
	free(path);
	path = xasprintf("%s/profile/netparams.tsv", run);
	if (exists(path))
		rc = read_netparams(p, path, e);
	free(path);
	if (rc < 0)
		return rc;
	path = xasprintf("%s/profile/stats.tsv", run);
	if (exists(path))
		rc = read_coverage(p, path, e);
	free(path);
	if (rc < 0)
		return rc;
	path = xasprintf("%s/topology.tsv", run);
	if (exists(path))
		rc = read_topology(p, path, e);
	free(path);
	if (rc < 0)
		return rc;
	if ((path = fs_plain_or_gz(run, "profile/messages.tsv")) != NULL)
		rc = read_messages(p, path, e);
	free(path);
	if (rc < 0)
		return rc;
	if ((path = fs_plain_or_gz(run, "profile/phases.tsv")) != NULL)
		rc = read_phases(p, path, e);
	free(path);
	return rc;
}

void
prof_free(struct prof *p)
{
	if (p == NULL)
		return;
	free(p->run);
	free(p->ranks);
	free(p->links);
	free(p->topo);
	free(p->msgs);
	free(p->busy);
	free(p->idle);
	memset(p, 0, sizeof *p);
}

const struct prof_rank *
prof_rank(const struct prof *p, int rank)
{
	int lo = 0, hi = p->nranks - 1;

	/* the usual case, ranks 0..n-1 all present: no search (replay asks per message) */
	if (rank >= 0 && rank < p->nranks && p->ranks[rank].rank == rank)
		return &p->ranks[rank];
	/* read_ranks sorts the rows and rejects duplicates before anyone looks ranks up */
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (p->ranks[mid].rank == rank)
			return &p->ranks[mid];
		if (p->ranks[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

int
prof_rank_span(const struct prof *p)
{
	return p->nranks > 0 ? p->ranks[p->nranks - 1].rank + 1 : 0;
}

int64_t
prof_start_together(struct prof *p)
{
	int span = prof_rank_span(p);
	int64_t *first, last = INT64_MIN, early = INT64_MAX;

	if (!p->have_phases || p->nranks < 2 || span <= 0)
		return p->skew_ns;
	first = xmallocarray((size_t)span, sizeof *first);
	for (int r = 0; r < span; r++)
		first[r] = INT64_MAX;
	for (int pass = 0; pass < 2; pass++) {
		const struct prof_busy *ph = pass == 0 ? p->busy : p->idle;
		long n = pass == 0 ? p->nbusy : p->nidle;

		for (long k = 0; k < n; k++)
			if (ph[k].rank < span && ph[k].t_start_ns < first[ph[k].rank])
				first[ph[k].rank] = ph[k].t_start_ns;
	}
	for (int i = 0; i < p->nranks; i++) {
		int64_t f = first[p->ranks[i].rank];

		if (f == INT64_MAX) {	/* a rank without phases: its start is not known */
			free(first);
			return p->skew_ns;
		}
		last = f > last ? f : last;
		early = f < early ? f : early;
	}
	for (int i = 0; i < p->nranks; i++) {
		struct prof_rank *rk = &p->ranks[i];
		int64_t cut = last - first[rk->rank] - rk->early_ns;
		double k;

		if (cut <= 0 || cut >= rk->exec_ns)
			continue;
		k = (double)rk->exec_ns / (double)(rk->exec_ns - cut);
		rk->exec_ns -= cut;
		rk->early_ns += cut;
		rk->comp_pct = fmin(rk->comp_pct * k, 100);
		rk->comm_pct = fmin(rk->comm_pct * k, 100 - rk->comp_pct);
		rk->idle_pct = fmax(100 - rk->comp_pct - rk->comm_pct, 0);
		rk->cpu_pct *= k;
		if (rk->n_idle > 0)
			rk->avg_idle_ns = rk->idle_pct / 100 * (double)rk->exec_ns / (double)rk->n_idle;
	}
	free(first);
	p->skew_ns = last - early;
	return p->skew_ns;
}

int64_t
prof_dedicated_ns(const struct prof *p)
{
	int64_t m = 0;

	for (int i = 0; i < p->nranks; i++)
		if (p->ranks[i].exec_ns > m)
			m = p->ranks[i].exec_ns;
	return m;
}

int
prof_nhosts(const struct prof *p)
{
	int n = 0;

	for (int i = 0; i < p->nranks; i++)
		n += prof_host_first(p, i);
	return n;
}

bool
prof_host_first(const struct prof *p, int i)
{
	for (int j = 0; j < i; j++)
		if (strcmp(p->ranks[j].host, p->ranks[i].host) == 0)
			return false;
	return true;
}

bool
prof_has_host(const struct prof *p, const char *host)
{
	for (int i = 0; i < p->nranks; i++)
		if (strcmp(p->ranks[i].host, host) == 0)
			return true;
	return false;
}

/* Rank indices by host name, then by index. */
static int
cmp_rank_host(const void *a, const void *b, void *ctx)
{
	const struct prof *p = ctx;
	int x = *(const int *)a, y = *(const int *)b, c = strcmp(p->ranks[x].host, p->ranks[y].host);

	return c != 0 ? c : (x > y) - (x < y);
}

int *
prof_host_ids(const struct prof *p, int *nhosts)
{
	int *by = xmallocarray((size_t)p->nranks + 1, sizeof *by);	/* rank indices by host */
	int *id = xmallocarray((size_t)p->nranks + 1, sizeof *id);
	int n = 0;

	for (int i = 0; i < p->nranks; i++)
		by[i] = i;
	qsort_r(by, (size_t)p->nranks, sizeof *by, cmp_rank_host, (void *)p);
	/* id[i] first holds the first rank index on i's host: the smallest of its group */
	for (int k = 0; k < p->nranks; k++)
		id[by[k]] = k > 0 && strcmp(p->ranks[by[k]].host, p->ranks[by[k - 1]].host) == 0 ? id[by[k - 1]] : by[k];
	for (int i = 0; i < p->nranks; i++)
		id[i] = id[i] == i ? n++ : id[id[i]];
	free(by);
	*nhosts = n;
	return id;
}

static int
cmp_msg_time(const void *a, const void *b, void *ctx)
{
	const struct prof *p = ctx;
	int64_t x = p->msgs[*(const long *)a].t_ns, y = p->msgs[*(const long *)b].t_ns;

	return (x > y) - (x < y);
}

long *
prof_msgs_by_time(const struct prof *p)
{
	long *idx;

	if (p->nmsgs <= 0)
		return NULL;
	idx = xcalloc((size_t)p->nmsgs, sizeof *idx);
	for (long i = 0; i < p->nmsgs; i++)
		idx[i] = i;
	qsort_r(idx, (size_t)p->nmsgs, sizeof *idx, cmp_msg_time, (void *)p);
	return idx;
}
