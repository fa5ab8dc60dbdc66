/* part: captures parsed apart into files, and their merge (see part.h for the contract). */
#include "parse/part.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "lib/clock.h"
#include "lib/rd.h"
#include "lib/tsv.h"
#include "lib/u64map.h"
#include "lib/xalloc.h"
#include "parse/generic.h"
#include "parse/pcapin.h"

#define NFLOWS (sizeof(struct flows_stats) / sizeof(uint64_t))	/* counters of flows_stats */
#define NTCP (sizeof(struct tcpr_stats) / sizeof(uint64_t))
#define NDEC (sizeof(struct dec_stats) / sizeof(uint64_t))
#define SEEN_MAX (4u << 20)	/* connections remembered for duplicates, as parse/flows.c */
#define TWIN_MAX (4u << 20)	/* messages of a part's twins held at once (24 bytes each) */

_Static_assert(sizeof(struct flows_stats) % sizeof(uint64_t) == 0, "flows_stats: uint64_t only");

/* The messages file is binary, for speed (a part holds every message of its capture):
 * a header of MSGS_MAGIC, the version and the record size (little-endian u32), then one
 * record per message, little-endian: t_first_ns, t_last_ns (i64), src, dst, cid, comm_src,
 * tag (i32), bytes, wire_bytes (u64), mpi, proto, ranksrc, dir (u8), flags, conn (u32),
 * tsval (i64). */
#define MSGS_MAGIC "ctdpartm"
#define MSG_REC 72		/* bytes per record */
#define TSVAL_MAX ((int64_t)1 << 40)	/* an unwrapped TSval past this is damage */
#define MSGS_CHUNK 4096		/* records read at once */

/* Connection columns: these, then tcp_0.. (struct tcpr_stats) and dec_0.. (struct
 * dec_stats), in struct order. A constant table: parts are written from several threads. */
#define NCONN0 37
#define NCONN (NCONN0 + NTCP + NDEC)
static const char *const conn_cols_[] = { "conn", "kind", "af", "ip0", "port0", "ip1", "port1",
	"rank0", "rank1", "ranksrc", "saw_syn", "pkts0", "frame_bytes0", "payload_bytes0", "gap_bytes0",
	"pkts1", "frame_bytes1", "payload_bytes1", "gap_bytes1", "t_first_ns", "t_last_ns", "rtt_ns",
	"ttl0", "ttl1", "mac0", "mac1", "vlan", "open_syn", "open_seq", "syn_isn", "dec", "launch",
	"bytes", "ts_unit0", "ts_zero0", "ts_unit1", "ts_zero1", "tcp_0", "tcp_1", "tcp_2", "tcp_3", "tcp_4", "tcp_5", "tcp_6", "tcp_7", "tcp_8",
	"tcp_9", "tcp_10", "tcp_11", "tcp_12", "tcp_13", "dec_0", "dec_1", "dec_2", "dec_3", "dec_4",
	"dec_5", NULL };

_Static_assert(sizeof conn_cols_ / sizeof conn_cols_[0] == NCONN + 1,
	       "conn_cols_: one tcp_ and dec_ column per counter of tcpr_stats and dec_stats");

static const char *const kv_cols[] = { "key", "value", NULL };

static const char *const *
conn_cols(void)
{
	return conn_cols_;
}

/* The parse options that shape a part, as text: parts made with others do not merge. */
static void
options_str(const struct flows_config *cfg, char *out, size_t len)
{
	snprintf(out, len, "mpi=%d ucx_ompi=%d max_conns=%zu max_buf=%zu max_segs=%zu idle_gap_ns=%" PRId64,
		 (int)cfg->mpi, (int)cfg->ucx_is_ompi, cfg->max_conns, cfg->max_buf_bytes, cfg->max_segs, generic_idle_gap());
}

static char *
part_path(const char *dir, const char *name, const char *what)
{
	return xasprintf("%s/%s.%s", dir, name, what);
}

/* ---- writing a part ---- */

struct pw {
	FILE *msgs;
	uint64_t nmsgs;
	struct tsv_w conns, stats;
	bool failed;
	struct err e;		/* first write error */
	int32_t (*rank_of)(void *, int, const uint8_t *, uint16_t);
	void *rctx;
};

static void
row_end(struct pw *w, struct tsv_w *t)
{
	struct err e;

	if (tsv_w_end(t, &e) < 0 && !w->failed) {
		w->failed = true;
		w->e = e;
	}
}

static uint8_t *
put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	return p + n;
}

static void
pw_msg(void *ctx, const struct msg *m)
{
	struct pw *w = ctx;
	uint8_t r[MSG_REC], *p = r;

	if (w->failed)
		return;
	p = put_le(p, (uint64_t)m->t_first_ns, 8);
	p = put_le(p, (uint64_t)m->t_last_ns, 8);
	p = put_le(p, (uint32_t)m->src_world, 4);
	p = put_le(p, (uint32_t)m->dst_world, 4);
	p = put_le(p, (uint32_t)m->cid, 4);
	p = put_le(p, (uint32_t)m->comm_src, 4);
	p = put_le(p, (uint32_t)m->tag, 4);
	p = put_le(p, m->bytes, 8);
	p = put_le(p, m->wire_bytes, 8);
	p = put_le(p, (uint64_t)m->mpi, 1);
	p = put_le(p, (uint64_t)m->proto, 1);
	p = put_le(p, (uint64_t)m->ranksrc, 1);
	p = put_le(p, (uint64_t)m->dir, 1);
	p = put_le(p, m->flags, 4);
	p = put_le(p, (uint32_t)m->conn, 4);
	p = put_le(p, (uint64_t)m->tsval, 8);
	assert(p == r + MSG_REC);
	if (fwrite(r, MSG_REC, 1, w->msgs) != 1) {
		w->failed = true;
		err_sys(&w->e, E_IO, "cannot write a part's messages");
	}
	w->nmsgs++;
}

static void
pw_conn(void *ctx, const struct flows_conn *k)
{
	struct pw *w = ctx;
	struct tsv_w *t = &w->conns;
	char a[INET6_ADDRSTRLEN];
	int d;
	size_t i;

	if (w->failed)
		return;
	tsv_w_i64(t, k->conn);
	tsv_w_str(t, k->kind);
	tsv_w_i64(t, k->af == AF_INET6 ? 6 : 4);
	for (d = 0; d < 2; d++) {
		if (inet_ntop(k->af, k->addr[d], a, sizeof a) == NULL)
			snprintf(a, sizeof a, "-");
		tsv_w_str(t, a);
		tsv_w_i64(t, k->port[d]);
	}
	tsv_w_i64(t, k->rank[0]);
	tsv_w_i64(t, k->rank[1]);
	tsv_w_i64(t, k->ranksrc);
	tsv_w_i64(t, k->saw_syn);
	for (d = 0; d < 2; d++) {
		tsv_w_u64(t, k->pkts[d]);
		tsv_w_u64(t, k->frame_bytes[d]);
		tsv_w_u64(t, k->payload_bytes[d]);
		tsv_w_u64(t, k->gap_bytes[d]);
	}
	tsv_w_i64(t, k->t_first_ns);
	tsv_w_i64(t, k->t_last_ns);
	tsv_w_i64(t, k->rtt_ns);
	tsv_w_i64(t, k->ttl[0]);
	tsv_w_i64(t, k->ttl[1]);
	for (d = 0; d < 2; d++) {
		uint64_t v = 0;

		for (i = 0; i < 6; i++)
			v = v << 8 | k->mac[d][i];
		tsv_w_i64(t, k->has_mac[d] ? (int64_t)v : -1);
	}
	tsv_w_i64(t, k->vlan);
	tsv_w_i64(t, k->open_syn);
	tsv_w_u64(t, k->open_seq);
	tsv_w_u64(t, k->syn_isn);
	tsv_w_i64(t, k->dec_idx);
	tsv_w_i64(t, k->launch);
	tsv_w_u64(t, k->bytes);
	for (d = 0; d < 2; d++) {
		tsv_w_i64(t, k->ts_unit_ns[d]);
		tsv_w_i64(t, k->ts_zero_ns[d]);
	}
	for (i = 0; i < NTCP; i++)
		tsv_w_u64(t, ((const uint64_t *)&k->tcp)[i]);
	for (i = 0; i < NDEC; i++)
		tsv_w_u64(t, ((const uint64_t *)&k->dec)[i]);
	row_end(w, t);
}

static int32_t
pw_rank_of(void *ctx, int af, const uint8_t addr[16], uint16_t port)
{
	struct pw *w = ctx;

	return w->rank_of ? w->rank_of(w->rctx, af, addr, port) : -1;
}

static void
kv_u(struct pw *w, const char *k, uint64_t v)
{
	tsv_w_str(&w->stats, k);
	tsv_w_u64(&w->stats, v);
	row_end(w, &w->stats);
}

/* A warning row of the part's stats (err_sayf's say: arg is the struct pw). */
static void
kv_warn(void *arg, const char *msg)
{
	struct pw *w = arg;

	tsv_w_str(&w->stats, "warning");
	tsv_w_str(&w->stats, msg);
	row_end(w, &w->stats);
}

/* Read one capture into f; damage is a warning in the part. */
static void
read_capture(struct pw *w, struct part_sum *s, struct flows *f, const char *path)
{
	struct err e;
	struct pcapin *in = pcapin_open(path, &e);
	struct pcapin_pkt pk;
	uint64_t n = 0, bytes = 0, bytes_seen = 0;
	double t_last = clock_mono_s(), t0 = t_last;
	int rc;

	if (in == NULL) {
		s->pcap_unreadable++;
		kv_warn(w, e.msg);
		return;
	}
	s->pcap_files++;
	while ((rc = pcapin_next(in, &pk, &e)) == 1) {
		flows_frame(f, pk.linktype, pk.data, pk.caplen, pk.origlen, pk.t_ns);
		bytes += pk.caplen + 16;
		/* look at the clock every 64k packets or 64 MB, print at most once a second */
		if (((++n & 0xffff) == 0 || bytes - bytes_seen >= (64u << 20)) && err_verbosity > 0) {
			double t = clock_mono_s();

			bytes_seen = bytes;
			if (t - t_last >= 1.0) {
				note("parse: '%s': %" PRIu64 " packets, %.0f MB, %.0f MB/s", path, n,
				     (double)bytes / 1e6, (double)bytes / 1e6 / (t - t0));
				t_last = t;
			}
		}
	}
	if (rc < 0) {
		if (rc == -E_TRUNC)
			s->pcap_truncated++;
		else
			s->pcap_damaged++;
		kv_warn(w, e.msg);
	}
	if (flows_stats(f)->kinds[PKT_LINK_UNSUP] > 0)
		err_sayf(kv_warn, w, "'%s': link type %d is not one parse decodes (Ethernet, Linux "
			 "cooked SLL and SLL2, BSD loopback, raw IP): its %" PRIu64 " packets are not "
			 "read (packets_link-unsupported in stats.tsv)", path, pcapin_linktype(in),
			 flows_stats(f)->kinds[PKT_LINK_UNSUP]);
	pcapin_close(in);
	flows_end_capture(f);
}

int
part_parse(const char *path, const char *dir, const char *name, const struct flows_config *cfg,
	   int32_t (*rank_of)(void *, int, const uint8_t *, uint16_t), void *rctx, struct err *e)
{
	struct pw w;
	struct part_sum s;
	struct flows_cb cb = { pw_msg, pw_conn, pw_rank_of, &w };
	struct flows *f;
	char *p[3], key[32], key_opts[160];
	int rc = 0;
	size_t i;

	memset(&w, 0, sizeof w);
	memset(&s, 0, sizeof s);
	w.rank_of = rank_of;
	w.rctx = rctx;
	p[0] = part_path(dir, name, "msgs.bin");
	p[1] = part_path(dir, name, "conns.tsv");
	p[2] = part_path(dir, name, "stats.tsv");
	if ((w.msgs = fopen(p[0], "wb")) == NULL) {
		err_sys(e, E_IO, "cannot create '%s'", p[0]);
		rc = -1;
	} else if (tsv_w_open(&w.conns, p[1], "part-conns", PART_VERSION, conn_cols(), false, true, e) < 0) {
		rc = -1, fclose(w.msgs);
	} else if (tsv_w_open(&w.stats, p[2], "part-stats", PART_VERSION, kv_cols, false, true, e) < 0) {
		rc = -1, fclose(w.msgs), tsv_w_close(&w.conns, NULL);
	}
	if (rc < 0)
		goto out;
	{
		uint8_t h[16], *q = h;

		memcpy(q, MSGS_MAGIC, 8);
		q = put_le(q + 8, PART_VERSION, 4);
		put_le(q, MSG_REC, 4);
		setvbuf(w.msgs, NULL, _IOFBF, 1 << 20);
		if (fwrite(h, sizeof h, 1, w.msgs) != 1) {
			w.failed = true;
			err_sys(&w.e, E_IO, "cannot write '%s'", p[0]);
		}
	}
	tsv_w_str(&w.stats, "version");
	tsv_w_str(&w.stats, CONTEND_VERSION);
	row_end(&w, &w.stats);
	tsv_w_str(&w.stats, "capture");
	tsv_w_str(&w.stats, path);
	row_end(&w, &w.stats);
	options_str(cfg, key_opts, sizeof key_opts);
	tsv_w_str(&w.stats, "options");
	tsv_w_str(&w.stats, key_opts);
	row_end(&w, &w.stats);
	f = flows_new(cfg, &cb);
	read_capture(&w, &s, f, path);
	flows_end_capture(f);
	s.st = *flows_stats(f);
	flows_free(f);
	kv_u(&w, "pcap_files", s.pcap_files);
	kv_u(&w, "pcap_unreadable", s.pcap_unreadable);
	kv_u(&w, "pcap_truncated", s.pcap_truncated);
	kv_u(&w, "pcap_damaged", s.pcap_damaged);
	kv_u(&w, "msgs", w.nmsgs);
	for (i = 0; i < NFLOWS; i++) {
		snprintf(key, sizeof key, "flows_%zu", i);
		kv_u(&w, key, ((const uint64_t *)&s.st)[i]);
	}
	tsv_w_str(&w.stats, "complete");
	tsv_w_str(&w.stats, "yes");
	row_end(&w, &w.stats);
	if (fclose(w.msgs) != 0 && !w.failed) {
		w.failed = true;
		err_sys(&w.e, E_IO, "cannot write '%s'", p[0]);
	}
	if (tsv_w_close(&w.conns, w.failed ? NULL : e) < 0)
		rc = -1;
	if (tsv_w_close(&w.stats, w.failed ? NULL : e) < 0)
		rc = -1;
	if (w.failed) {
		*e = w.e;
		rc = -1;
	}
out:
	for (i = 0; i < 3; i++)
		free(p[i]);
	return rc;
}

void
part_remove(const char *dir, const char *name)
{
	static const char *const what[] = { "msgs.bin", "conns.tsv", "stats.tsv" };

	for (size_t i = 0; i < 3; i++) {
		char *p = part_path(dir, name, what[i]);

		unlink(p);
		free(p);
	}
}

/* ---- the merge ---- */

/* A connection of an earlier part, as parse/flows.c remembers it. */
struct seen {
	struct seen *next;
	uint8_t key[38];	/* af, then the two (address, port) ends in byte order */
	uint32_t isn;
	bool has_isn;
	bool lo_init;		/* the key's first end is the connection's initiator */
	uint32_t part;		/* the part that holds it (part_merge_twins only) */
	uint32_t conn;		/* its index in that part */
};

/* The later copy of a kept connection, captured at its other end (part_merge_twins). */
struct twin_msg {
	int64_t t_first_ns, t_last_ns;	/* that copy's times of the message */
	int64_t queued_ns;	/* that copy's queue wait (queued_of) */
	uint32_t check;		/* msg_check of the message */
};

struct twin {
	uint32_t part;		/* the part of the kept copy */
	struct twin_msg *v[2];	/* by the kept copy's direction, in the order rebuilt */
	size_t n[2], cap[2], next[2];	/* held, allocated, the next to match */
	bool off[2];		/* the copies stopped agreeing: no more times taken */
};

struct twin_rec {		/* a message of a twin, spilled until its kept part is added */
	uint32_t twin;		/* index in twins */
	uint32_t dir;		/* in the kept copy's directions */
	struct twin_msg msg;
};

#define SEEN_BUCKETS (1u << 16)

struct part_merge {
	struct flows_cb cb;
	char opts[160];		/* options_str of this parse; "" to take any */
	void (*warn)(void *, const char *);
	struct part_sum sum;
	struct seen **seen;	/* SEEN_BUCKETS chains */
	size_t nseen;
	int conn_base;		/* connections numbered by the parts before */
	uint32_t nadded;	/* parts added so far: the index of the next */
	struct u64map twin_of;	/* (part << 32 | conn) of a kept connection -> twins[] */
	struct twin *twins;
	size_t ntwins, twins_cap;
	size_t twin_msgs;	/* messages held in twins (at most TWIN_MAX) */
	FILE **spill;		/* by part: the messages of its twins, until it is added */
	size_t nspill, spill_cap;
};

static void seen_free(struct seen **tab);
static void twins_free(struct part_merge *m, uint32_t part);

struct part_merge *
part_merge_new(const struct flows_cb *cb, const struct flows_config *cfg,
	       void (*warn)(void *, const char *))
{
	struct part_merge *m = xcalloc(1, sizeof *m);

	if (cfg != NULL)
		options_str(cfg, m->opts, sizeof m->opts);
	m->cb = *cb;
	m->warn = warn;
	m->seen = xcalloc(SEEN_BUCKETS, sizeof *m->seen);
	m->twin_of = (struct u64map)U64MAP_INIT;
	return m;
}

const struct part_sum *
part_merge_sum(const struct part_merge *m)
{
	return &m->sum;
}

void
part_merge_free(struct part_merge *m)
{
	if (m == NULL)
		return;
	seen_free(m->seen);
	twins_free(m, UINT32_MAX);
	free(m->twins);
	free(m->spill);
	u64map_release(&m->twin_of);
	free(m);
}

/* The connection's key with its ends in a fixed order, whichever end opened it; returns
 * whether the initiator's end came first. */
static bool
seen_key(const struct flows_conn *k, uint8_t key[38])
{
	uint8_t e[2][18];
	int lo;

	for (int d = 0; d < 2; d++) {
		memcpy(e[d], k->addr[d], 16);
		e[d][16] = (uint8_t)(k->port[d] >> 8);
		e[d][17] = (uint8_t)k->port[d];
	}
	lo = memcmp(e[0], e[1], 18) <= 0 ? 0 : 1;
	memset(key, 0, 38);
	key[0] = (uint8_t)k->af;
	memcpy(key + 1, e[lo], 18);
	memcpy(key + 19, e[!lo], 18);
	return lo == 0;
}

static struct seen **
seen_bucket(struct seen **tab, const uint8_t key[38])
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < 38; i++)
		h = (h ^ key[i]) * 1099511628211ull;
	return &tab[h & (SEEN_BUCKETS - 1)];
}

/* As parse/flows.c's seen_before, for the packet that opened k: the entry of tab, of a
 * part before before, that k is a copy of, or NULL. */
static const struct seen *
seen_find(struct seen **tab, const struct flows_conn *k, uint32_t before)
{
	uint8_t key[38];
	const struct seen *s;

	seen_key(k, key);
	for (s = *seen_bucket(tab, key); s != NULL; s = s->next) {
		if (s->part >= before || memcmp(s->key, key, sizeof key) != 0)
			continue;
		if (s->has_isn && k->open_syn && s->isn != k->open_seq)
			continue;
		return s;
	}
	return NULL;
}

/* k, of part, into tab (which holds *n entries, at most SEEN_MAX). */
static void
remember(struct seen **tab, size_t *n, const struct flows_conn *k, uint32_t part)
{
	struct seen *s, **b;

	if (*n >= SEEN_MAX)
		return;
	s = xcalloc(1, sizeof *s);
	s->lo_init = seen_key(k, s->key);
	s->isn = k->syn_isn;
	s->has_isn = k->saw_syn;
	s->part = part;
	s->conn = (uint32_t)k->conn;
	b = seen_bucket(tab, s->key);
	s->next = *b;
	*b = s;
	(*n)++;
}

static void
seen_free(struct seen **tab)
{
	if (tab == NULL)
		return;
	for (size_t i = 0; i < SEEN_BUCKETS; i++) {
		struct seen *s, *n;

		for (s = tab[i]; s != NULL; s = n) {
			n = s->next;
			free(s);
		}
	}
	free(tab);
}

static int
cols_of(struct tsv_r *t, const char *const *names, int *col)
{
	int n;

	for (n = 0; names[n] != NULL; n++)
		col[n] = tsv_r_col(t, names[n]);
	return n;
}

/* One connection row into k (strings borrowed until the next row). */
static int
read_conn(struct tsv_r *t, const int *col, struct flows_conn *k, struct err *e)
{
	int64_t v[NCONN];
	uint64_t u[NTCP + NDEC + 3];
	int d;
	size_t i;

	memset(k, 0, sizeof *k);
	for (i = 0; i < NCONN0; i++) {
		if (i == 1 || i == 3 || i == 5)
			continue;	/* strings */
		if (i == 28 || i == 29 || i == 32) {
			if (tsv_r_u64(t, col[i], &u[i == 28 ? 0 : i == 29 ? 1 : 2], e) < 0)
				return -1;
			continue;
		}
		if (tsv_r_i64(t, col[i], &v[i], e) < 0)
			return -1;
	}
	for (i = 0; i < NTCP + NDEC; i++)
		if (tsv_r_u64(t, col[NCONN0 + i], &u[3 + i], e) < 0)
			return -1;
	k->conn = (int)v[0];
	k->kind = tsv_r_str(t, col[1]);
	k->af = v[2] == 6 ? AF_INET6 : AF_INET;
	for (d = 0; d < 2; d++) {
		if (inet_pton(k->af, tsv_r_str(t, col[3 + 2 * d]), k->addr[d]) != 1)
			return err_set(e, E_FORMAT, "'%s' line %ld: bad address", t->path, t->line_no);
		k->port[d] = (uint16_t)v[4 + 2 * d];
	}
	k->rank[0] = (int32_t)v[7];
	k->rank[1] = (int32_t)v[8];
	k->ranksrc = (enum rank_src)v[9];
	k->saw_syn = v[10] != 0;
	for (d = 0; d < 2; d++) {
		k->pkts[d] = (uint64_t)v[11 + 4 * d];
		k->frame_bytes[d] = (uint64_t)v[12 + 4 * d];
		k->payload_bytes[d] = (uint64_t)v[13 + 4 * d];
		k->gap_bytes[d] = (uint64_t)v[14 + 4 * d];
	}
	k->t_first_ns = v[19];
	k->t_last_ns = v[20];
	k->rtt_ns = v[21];
	k->ttl[0] = (uint8_t)v[22];
	k->ttl[1] = (uint8_t)v[23];
	for (d = 0; d < 2; d++) {
		k->has_mac[d] = v[24 + d] >= 0;
		for (i = 0; i < 6 && k->has_mac[d]; i++)
			k->mac[d][i] = (uint8_t)((uint64_t)v[24 + d] >> (8 * (5 - i)));
	}
	k->vlan = (uint16_t)v[26];
	k->open_syn = v[27] != 0;
	k->open_seq = (uint32_t)u[0];
	k->syn_isn = (uint32_t)u[1];
	k->dec_idx = (int)v[30];
	k->launch = (int)v[31];
	k->bytes = u[2];
	for (d = 0; d < 2; d++) {
		k->ts_unit_ns[d] = v[33 + 2 * d];
		k->ts_zero_ns[d] = v[34 + 2 * d];
		if (k->ts_unit_ns[d] != 1000000 && k->ts_unit_ns[d] != 1000)
			k->ts_unit_ns[d] = 0;	/* none, or damage: no queue times */
	}
	if (k->dec_idx < -1 || k->dec_idx >= FLOWS_NDEC || k->launch < -1 || k->launch >= LAUNCH_NKINDS ||
	    k->ranksrc < RANKSRC_NONE || k->ranksrc > RANKSRC_SOCKMAP || k->conn < 0)
		return err_set(e, E_FORMAT, "'%s' line %ld: a value out of range", t->path, t->line_no);
	memcpy(&k->tcp, &u[3], sizeof k->tcp);
	memcpy(&k->dec, &u[3 + NTCP], sizeof k->dec);
	return 0;
}

/* The part's counters and warnings (warnings go out as they are read). */
static int
merge_stats(struct part_merge *m, const char *path, struct part_sum *s, bool quiet, struct err *e)
{
	struct tsv_r t;
	bool complete = false, version_ok = false, opts_seen = false;
	size_t nflows = 0;
	int rc;

	memset(s, 0, sizeof *s);
	if (tsv_r_open(&t, path, "part-stats", PART_VERSION, kv_cols, e) < 0)
		return -1;
	while ((rc = tsv_r_next(&t, e)) == 1) {
		const char *k = tsv_r_str(&t, 0), *v = tsv_r_str(&t, 1);
		uint64_t *dst = NULL;
		size_t i;

		if (strcmp(k, "version") == 0) {
			version_ok = strcmp(v, CONTEND_VERSION) == 0;
			if (!version_ok) {
				rc = err_set(e, E_FORMAT, "'%s': a part of contend %s, not %s", path, v,
					     CONTEND_VERSION);
				break;
			}
		} else if (strcmp(k, "options") == 0) {
			opts_seen = true;
			if (m->opts[0] != '\0' && strcmp(v, m->opts) != 0) {
				rc = err_set(e, E_FORMAT, "'%s': made with other parse options (%s), not "
					     "these (%s); not merged", path, v, m->opts);
				break;
			}
		} else if (strcmp(k, "warning") == 0) {
			if (!quiet)
				m->warn(m->cb.ctx, v);
		} else if (strcmp(k, "complete") == 0) {
			complete = strcmp(v, "yes") == 0;
		} else if (strcmp(k, "pcap_files") == 0) {
			dst = &s->pcap_files;
		} else if (strcmp(k, "pcap_unreadable") == 0) {
			dst = &s->pcap_unreadable;
		} else if (strcmp(k, "pcap_truncated") == 0) {
			dst = &s->pcap_truncated;
		} else if (strcmp(k, "pcap_damaged") == 0) {
			dst = &s->pcap_damaged;
		} else if (strcmp(k, "msgs") == 0) {
			dst = &s->nmsgs;
		} else if (sscanf(k, "flows_%zu", &i) == 1 && i < NFLOWS) {
			dst = &((uint64_t *)&s->st)[i];
			nflows++;
		}
		if (dst != NULL && tsv_r_u64(&t, 1, dst, e) < 0) {
			rc = -1;
			break;
		}
	}
	tsv_r_close(&t);
	if (rc < 0)
		return -1;
	if (!complete || !version_ok || nflows != NFLOWS || (m->opts[0] != '\0' && !opts_seen))
		return err_set(e, E_FORMAT, "'%s': not a whole part (cut short, or of another version)",
			       path);
	return 0;
}

static void
sum_add(struct part_sum *to, const struct part_sum *s)
{
	uint64_t *a = (uint64_t *)&to->st;
	const uint64_t *b = (const uint64_t *)&s->st;
	size_t mc = offsetof(struct flows_stats, conns_max_concurrent) / sizeof(uint64_t);

	to->pcap_files += s->pcap_files;
	to->pcap_unreadable += s->pcap_unreadable;
	to->pcap_truncated += s->pcap_truncated;
	to->pcap_damaged += s->pcap_damaged;
	for (size_t i = 0; i < NFLOWS; i++)
		a[i] = i == mc ? (a[i] > b[i] ? a[i] : b[i]) : a[i] + b[i];
}

/* One record of a messages file into x (x->conn unset) and the part's connection index
 * into *conn; false when a value is out of range. */
static bool
msg_rec_read(const uint8_t *rec, struct msg *x, uint32_t *conn)
{
	struct rd r = rd_make(rec, MSG_REC);

	x->t_first_ns = (int64_t)rd_le64(&r);
	x->t_last_ns = (int64_t)rd_le64(&r);
	x->src_world = (int32_t)rd_le32(&r);
	x->dst_world = (int32_t)rd_le32(&r);
	x->cid = (int32_t)rd_le32(&r);
	x->comm_src = (int32_t)rd_le32(&r);
	x->tag = (int32_t)rd_le32(&r);
	x->bytes = rd_le64(&r);
	x->wire_bytes = rd_le64(&r);
	x->mpi = (enum msg_mpi)rd_u8(&r);
	x->proto = (enum msg_proto)rd_u8(&r);
	x->ranksrc = (enum rank_src)rd_u8(&r);
	x->dir = rd_u8(&r);
	x->flags = rd_le32(&r);
	*conn = rd_le32(&r);
	x->tsval = (int64_t)rd_le64(&r);
	if (x->tsval < 0 || x->tsval > TSVAL_MAX)
		x->tsval = -1;
	x->queued_ns = -1;
	x->conn = -1;
	return !r.err && x->mpi <= MSG_MPICH && x->proto <= PROTO_CTRL && x->ranksrc <= RANKSRC_SOCKMAP &&
	       x->dir <= 1;
}

/* A connection's TCP timestamp clocks in a part (struct flows_conn.ts_*), by direction. */
struct conn_ts {
	int64_t unit_ns[2], zero_ns[2];
};

/* How long x's first segment waited between its sender's TCP, which stamped it, and the
 * capture: its capture time less its TSval, less the smallest such difference of its
 * direction (c). Under 1.5 ticks of the clock (its grain) is none (0); -1 unknown. */
static int64_t
queued_of(const struct msg *x, const struct conn_ts *c)
{
	int64_t unit = c->unit_ns[x->dir & 1], q;

	if (x->tsval < 0 || unit == 0)
		return -1;
	if (__builtin_sub_overflow(x->t_first_ns, x->tsval * unit, &q) ||
	    __builtin_sub_overflow(q, c->zero_ns[x->dir & 1], &q) || q < 0)
		return -1;	/* not that direction's clock: damage */
	return q < unit * 3 / 2 ? 0 : q;
}

/* k's clocks into cts[0..n) at its index. */
static void
conn_ts_set(struct conn_ts *cts, size_t n, const struct flows_conn *k)
{
	if (k->conn < 0 || (size_t)k->conn >= n)
		return;
	for (int d = 0; d < 2; d++) {
		cts[k->conn].unit_ns[d] = k->ts_unit_ns[d];
		cts[k->conn].zero_ns[d] = k->ts_zero_ns[d];
	}
}

/* A part's messages file opened past its header, or NULL with e set. */
static FILE *
msgs_open(const char *path, struct err *e)
{
	FILE *f = fopen(path, "rb");
	uint8_t h[16];
	struct rd r;
	size_t n;

	if (f == NULL) {
		err_sys(e, E_IO, "cannot open '%s'", path);
		return NULL;
	}
	n = fread(h, 1, sizeof h, f);
	r = rd_make(h + 8, n >= 8 ? n - 8 : 0);
	if (n != sizeof h || memcmp(h, MSGS_MAGIC, 8) != 0 || rd_le32(&r) != PART_VERSION ||
	    rd_le32(&r) != MSG_REC) {
		fclose(f);
		err_set(e, E_FORMAT, "'%s': not a part's messages of this version", path);
		return NULL;
	}
	return f;
}

/* ---- connections captured at both ends ---- */

/* What must agree between the two copies of one message: its size, tag and protocol (the
 * times differ, and so may the flags: one capture may end inside it). */
static uint32_t
msg_check(const struct msg *x)
{
	uint64_t h = 1469598103934665603ull;
	uint64_t v[5] = { x->bytes, x->wire_bytes, (uint32_t)x->tag, (uint32_t)x->cid,
			  (uint64_t)x->proto << 8 | (uint64_t)x->mpi };

	for (size_t i = 0; i < 5; i++)
		h = (h ^ v[i]) * 1099511628211ull;
	return (uint32_t)(h ^ h >> 32);
}

/* Free the twins of the kept copies of part (UINT32_MAX: all). */
static void
twins_free(struct part_merge *m, uint32_t part)
{
	for (size_t i = 0; i < m->ntwins; i++) {
		struct twin *w = &m->twins[i];

		if (part != UINT32_MAX && w->part != part)
			continue;
		for (int d = 0; d < 2; d++) {
			m->twin_msgs -= w->n[d];
			free(w->v[d]);
			w->v[d] = NULL;
			w->n[d] = w->cap[d] = 0;
		}
	}
	for (size_t i = 0; i < m->nspill; i++) {
		if (m->spill[i] != NULL && (part == UINT32_MAX || part == i)) {
			fclose(m->spill[i]);
			m->spill[i] = NULL;
		}
	}
}

/* x, of the part being merged and its connection conn: when a later part holds the same
 * connection captured at its other end, the earlier of the two first-byte times is the
 * sender's and the later of the two last-byte times the receiver's (a byte is captured
 * where it leaves before where it arrives, on the clock the captures share). */
static void
twin_apply(struct part_merge *m, uint32_t conn, struct msg *x)
{
	long t = m->ntwins ? u64map_get(&m->twin_of, (uint64_t)m->nadded << 32 | conn) : -1;
	struct twin *w;
	const struct twin_msg *o;
	int d = x->dir;

	if (t < 0)
		return;
	w = &m->twins[t];
	if (!w->off[d] && (w->next[d] >= w->n[d] || w->v[d][w->next[d]].check != msg_check(x)))
		w->off[d] = true;	/* the decodes differ from here (a loss, a cap): stop */
	if (w->off[d]) {
		m->sum.twin_unmatched++;
		return;
	}
	o = &w->v[d][w->next[d]++];
	m->sum.twin_msgs++;
	if (o->t_first_ns < x->t_first_ns) {
		x->t_first_ns = o->t_first_ns;
		x->queued_ns = o->queued_ns;	/* measured where the send was seen */
		m->sum.twin_first++;
	}
	if (o->t_last_ns > x->t_last_ns) {
		x->t_last_ns = o->t_last_ns;
		m->sum.twin_last++;
	}
}

/* The spill file of the twins of part, made on first use; NULL when none can be made. */
static FILE *
spill_of(struct part_merge *m, uint32_t part)
{
	if (part >= m->nspill) {
		m->spill = xgrow(m->spill, &m->spill_cap, (size_t)part + 1, sizeof *m->spill);
		while (m->nspill <= part)
			m->spill[m->nspill++] = NULL;
	}
	if (m->spill[part] == NULL)
		m->spill[part] = tmpfile();
	return m->spill[part];
}

/* The messages of part's later copies (twin index and direction flip by connection, -1
 * none) into the spill files of the parts that hold their kept copies: the merge holds
 * one part's twins at a time. Errors: the merge of the part says them; nothing more is
 * read. A spill that cannot be written leaves its messages unmatched. */
static void
twins_read(struct part_merge *m, const char *path, const long *tw, const bool *flip,
	   const struct conn_ts *cts, size_t nconn)
{
	struct err e;
	FILE *f = msgs_open(path, &e);
	uint8_t *buf;
	size_t n;

	if (f == NULL)
		return;
	buf = xmallocarray(MSGS_CHUNK, MSG_REC);
	while ((n = fread(buf, 1, (size_t)MSGS_CHUNK * MSG_REC, f)) >= MSG_REC) {
		for (size_t i = 0; i < n / MSG_REC; i++) {
			struct msg x;
			uint32_t conn;
			struct twin_rec r;
			FILE *s;

			if (!msg_rec_read(buf + i * MSG_REC, &x, &conn) || conn >= nconn)
				goto out;
			if (tw[conn] < 0)
				continue;
			memset(&r, 0, sizeof r);	/* padding too: the record is written whole */
			r.twin = (uint32_t)tw[conn];
			r.dir = (uint32_t)(x.dir ^ flip[conn]);
			r.msg.t_first_ns = x.t_first_ns;
			r.msg.t_last_ns = x.t_last_ns;
			r.msg.queued_ns = queued_of(&x, &cts[conn]);
			r.msg.check = msg_check(&x);
			if ((s = spill_of(m, m->twins[r.twin].part)) != NULL)
				(void)fwrite(&r, sizeof r, 1, s);	/* ferror checked when read back */
		}
	}
out:
	free(buf);
	fclose(f);
}

/* The twins of part from its spill file into memory, at most TWIN_MAX messages (matching
 * stops where the held ones end); none when the file could not be written whole. */
static void
twins_load(struct part_merge *m, uint32_t part)
{
	FILE *s = part < m->nspill ? m->spill[part] : NULL;
	struct twin_rec r;

	if (s == NULL)
		return;
	m->spill[part] = NULL;
	if (fflush(s) != 0 || ferror(s) || fseek(s, 0, SEEK_SET) != 0) {	/* none kept */
		fclose(s);
		return;
	}
	while (m->twin_msgs < TWIN_MAX && fread(&r, sizeof r, 1, s) == 1) {
		struct twin *w;

		if (r.twin >= m->ntwins || r.dir > 1)
			break;
		w = &m->twins[r.twin];
		w->v[r.dir] = xgrow(w->v[r.dir], &w->cap[r.dir], w->n[r.dir] + 1, sizeof *w->v[r.dir]);
		w->v[r.dir][w->n[r.dir]++] = r.msg;
		m->twin_msgs++;
	}
	fclose(s);
}

/* The messages of a part, but those of connections in dup, to the merge's callback. */
static int
merge_msgs(struct part_merge *m, const char *path, uint64_t nmsgs, const bool *dup,
	   const struct conn_ts *cts, size_t ndup, struct err *e)
{
	FILE *f = msgs_open(path, e);
	uint8_t *buf;
	uint64_t seen = 0;
	size_t n;
	int rc = 0;

	if (f == NULL)
		return -1;
	buf = xmallocarray(MSGS_CHUNK, MSG_REC);
	while (rc == 0 && (n = fread(buf, 1, (size_t)MSGS_CHUNK * MSG_REC, f)) > 0) {
		if (n % MSG_REC != 0) {
			rc = err_set(e, E_TRUNC, "'%s': cut inside message %" PRIu64, path, seen + n / MSG_REC);
			break;
		}
		for (size_t i = 0; i < n / MSG_REC; i++) {
			struct msg x;
			uint32_t conn;

			seen++;
			if (!msg_rec_read(buf + i * MSG_REC, &x, &conn) || conn >= ndup) {
				rc = err_set(e, E_FORMAT, "'%s': message %" PRIu64 " has a value out of range",
					     path, seen);
				break;
			}
			if (dup[conn])
				continue;
			x.queued_ns = queued_of(&x, &cts[conn]);
			twin_apply(m, conn, &x);
			x.conn = m->conn_base + (int)conn;
			m->cb.msg(m->cb.ctx, &x);
		}
	}
	if (rc == 0 && ferror(f))
		rc = err_sys(e, E_IO, "cannot read '%s'", path);
	if (rc == 0 && seen != nmsgs)
		rc = err_set(e, E_TRUNC, "'%s': %" PRIu64 " messages of %" PRIu64 " (cut short)", path,
			     seen, nmsgs);
	free(buf);
	fclose(f);
	return rc;
}

void
part_merge_twins(struct part_merge *m, const char *dir, char *const *names, size_t n)
{
	struct seen **tab = xcalloc(SEEN_BUCKETS, sizeof *tab);	/* the kept connections */
	size_t ntab = 0;

	for (size_t i = 0; i < n && i < UINT32_MAX; i++) {
		char *p[3] = { part_path(dir, names[i], "msgs.bin"), part_path(dir, names[i], "conns.tsv"),
			part_path(dir, names[i], "stats.tsv") };
		int ccol[NCONN + 1], r;
		struct part_sum s;
		struct tsv_r t;
		struct err e;
		long *tw = NULL;	/* by connection: its twin, -1 none */
		bool *flip = NULL;	/* by connection: its initiator is the kept copy's acceptor */
		struct conn_ts *cts = NULL;	/* by connection: its clocks */
		bool any = false;
		size_t nconn = 0, j;

		/* parts the merge will refuse are left out here too (it says why) */
		if (merge_stats(m, p[2], &s, true, &e) < 0 ||
		    tsv_r_open(&t, p[1], "part-conns", PART_VERSION, conn_cols(), &e) < 0)
			goto next;
		cols_of(&t, conn_cols(), ccol);
		nconn = s.st.conns;
		tw = xmallocarray(nconn ? nconn : 1, sizeof *tw);
		flip = xcalloc(nconn ? nconn : 1, sizeof *flip);
		cts = xcalloc(nconn ? nconn : 1, sizeof *cts);
		for (j = 0; j < nconn; j++)
			tw[j] = -1;
		while ((r = tsv_r_next(&t, &e)) == 1) {
			struct flows_conn k;
			const struct seen *o;
			uint8_t key[38];
			long w;

			if (read_conn(&t, ccol, &k, &e) < 0 || (size_t)k.conn >= nconn)
				break;
			conn_ts_set(cts, nconn, &k);
			if ((o = seen_find(tab, &k, (uint32_t)i)) == NULL) {
				remember(tab, &ntab, &k, (uint32_t)i);
				continue;
			}
			w = u64map_put(&m->twin_of, (uint64_t)o->part << 32 | o->conn, (long)m->ntwins);
			if ((size_t)w == m->ntwins) {
				m->twins = xgrow(m->twins, &m->twins_cap, m->ntwins + 1, sizeof *m->twins);
				m->twins[m->ntwins++] = (struct twin){ .part = o->part };
			}
			tw[k.conn] = w;
			flip[k.conn] = seen_key(&k, key) != o->lo_init;
			any = true;
		}
		tsv_r_close(&t);
		if (any)
			twins_read(m, p[0], tw, flip, cts, nconn);
next:
		free(tw);
		free(flip);
		free(cts);
		for (j = 0; j < 3; j++)
			free(p[j]);
	}
	seen_free(tab);
}

int
part_merge_add(struct part_merge *m, const char *dir, const char *name, struct err *e)
{
	char *p[3] = { part_path(dir, name, "msgs.bin"), part_path(dir, name, "conns.tsv"),
		part_path(dir, name, "stats.tsv") };
	struct part_sum s;
	struct tsv_r t;
	int ccol[NCONN + 1];
	bool *dup = NULL;	/* by the part's connection index: parsed from an earlier part */
	struct conn_ts *cts = NULL;	/* by the part's connection index: its clocks */
	size_t ndup = 0, i;
	uint64_t ndups = 0;
	int rc = -1, r;

	twins_load(m, m->nadded);
	/* the counters first: a part cut short or of another version is not merged at all */
	if (merge_stats(m, p[2], &s, false, e) < 0)
		goto out;
	/* which connections an earlier part already had */
	if (tsv_r_open(&t, p[1], "part-conns", PART_VERSION, conn_cols(), e) < 0)
		goto out;
	cols_of(&t, conn_cols(), ccol);
	ndup = s.st.conns;
	dup = xcalloc(ndup ? ndup : 1, sizeof *dup);
	cts = xcalloc(ndup ? ndup : 1, sizeof *cts);
	while ((r = tsv_r_next(&t, e)) == 1) {
		struct flows_conn k;

		if (read_conn(&t, ccol, &k, e) < 0 || (size_t)k.conn >= ndup) {
			if ((size_t)k.conn >= ndup)
				err_set(e, E_FORMAT, "'%s' line %ld: connection %d of %zu", p[1], t.line_no,
					k.conn, ndup);
			r = -1;
			break;
		}
		conn_ts_set(cts, ndup, &k);
		if (seen_find(m->seen, &k, m->nadded) != NULL) {
			dup[k.conn] = true;
			ndups++;
			flows_stats_conn(&s.st, &k, true);
		}
	}
	tsv_r_close(&t);
	if (r < 0)
		goto out;
	s.st.conns_dup += ndups;
	/* the messages, in the order they were rebuilt */
	if (merge_msgs(m, p[0], s.nmsgs, dup, cts, ndup, e) < 0)
		goto out;
	/* the connections, in the order they were finished; then remembered for later parts */
	if (tsv_r_open(&t, p[1], "part-conns", PART_VERSION, conn_cols(), e) < 0)
		goto out;
	while ((r = tsv_r_next(&t, e)) == 1) {
		struct flows_conn k;

		if (read_conn(&t, ccol, &k, e) < 0) {
			r = -1;
			break;
		}
		if (dup[k.conn])
			continue;
		remember(m->seen, &m->nseen, &k, m->nadded);
		k.conn += m->conn_base;
		if (m->cb.conn != NULL)
			m->cb.conn(m->cb.ctx, &k);
	}
	tsv_r_close(&t);
	if (r < 0)
		goto out;
	sum_add(&m->sum, &s);
	m->conn_base += (int)s.st.conns;
	rc = 0;
out:
	twins_free(m, m->nadded);
	m->nadded++;
	free(dup);
	free(cts);
	for (i = 0; i < 3; i++)
		free(p[i]);
	return rc;
}
