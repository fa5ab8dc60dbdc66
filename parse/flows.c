/* flows: connection table, decoder choice and message hand-off for parse. */
#include "parse/flows.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/clock.h"
#include "lib/xalloc.h"

#define PREFIX_MAX 96		/* first bytes kept per direction for classification */
#define PEND_MAX (256u << 10)	/* bytes held before a decoder is chosen */
#define LINGER_NS (10 * NS_PER_S)	/* closed connections are kept this long (capture time) */
#define SEEN_MAX (4u << 20)	/* connections remembered from earlier captures */
#define DEFAULT_MAX_CONNS 65536

/* The MPI decoders tried on each connection, in order (parse/ompi.c, parse/mpich.c). */
const struct decoder *const flows_mpi_decoders[] = { &dec_ompi, &dec_mpich, NULL };


enum cstate {
	CS_PENDING,		/* collecting first bytes to choose a decoder */
	CS_DECODING,		/* bytes go to dec */
	CS_LAUNCHER,		/* launcher traffic: counted, not decoded */
	CS_IGNORED,		/* parsed from an earlier capture */
};

struct pend {			/* bytes (or a gap) received before the decoder was chosen */
	struct pend *next;
	int dir;
	int64_t ts;			/* the TCP timestamp of the segment (conn_info.ts_now) */
	bool gap;
	bool cut;			/* the gap is a cut made by the capture on purpose */
	uint64_t n;
	int64_t t_ns;
	uint8_t data[];
};

struct conn;
struct side {
	struct conn *c;
	int dir;
};

struct conn {
	struct conn *hnext;		/* hash chain */
	struct conn *lnext, *lprev;	/* closed list, oldest first */
	struct flows *f;
	struct pkt_key key;
	int key_init;			/* which key end is the initiator */
	struct flows_conn info;
	struct tcpr_dir td[2];		/* by direction (0: initiator -> acceptor) */
	struct tcpr_out out[2];
	struct side side[2];
	enum cstate state;
	const struct decoder *dec;
	int dec_idx;			/* enum msg_mpi of dec */
	void *ds;			/* decoder state */
	enum launch_kind launch;
	struct pend *pend, **pend_tail;
	size_t pend_bytes;
	uint8_t prefix[2][PREFIX_MAX];
	size_t prefix_len[2];
	bool fin[2];
	bool closed;
	int64_t t_syn_ns, t_synack_ns, t_closed_ns;
	uint32_t syn_isn;		/* initiator's ISN when its SYN was seen */
	struct flows_ts ts[2];		/* each direction's TCP timestamps */
	int64_t ts_now[2];		/* conn_info.ts_now: the segment being delivered's */
};

struct seen {			/* a connection parsed from an earlier capture */
	struct seen *next;
	struct pkt_key key;
	uint32_t isn;
	bool has_isn;
	int capture;
};

struct flows {
	struct flows_config cfg;
	struct flows_cb cb;
	struct flows_stats st;
	struct conn **tab;		/* hash buckets */
	size_t nbuckets;		/* power of two */
	size_t nconns;			/* in the table (open or lingering) */
	size_t nopen;
	struct conn *lhead, *ltail;	/* closed, by close time */
	struct seen **seen;		/* buckets, same count */
	size_t nseen;
	int capture;			/* index of the current capture */
	int next_idx;			/* next connection index */
	int64_t last_t_ns;
};

struct flows *
flows_new(const struct flows_config *cfg, const struct flows_cb *cb)
{
	struct flows *f = xcalloc(1, sizeof *f);

	f->cfg = *cfg;
	if (f->cfg.max_conns == 0)
		f->cfg.max_conns = DEFAULT_MAX_CONNS;
	f->cb = *cb;
	f->nbuckets = 1024;
	while (f->nbuckets < f->cfg.max_conns && f->nbuckets < ((size_t)1 << 24))
		f->nbuckets <<= 1;
	f->tab = xcalloc(f->nbuckets, sizeof *f->tab);
	f->seen = xcalloc(f->nbuckets, sizeof *f->seen);
	return f;
}

const struct flows_stats *
flows_stats(const struct flows *f)
{
	return &f->st;
}

/* ---- decoder side ---- */

static void
sink_emit(void *ctx, const struct msg *m)
{
	struct conn *c = ctx;
	struct msg x = *m;
	int d = x.dir & 1;

	x.conn = c->info.conn;
	if (x.src_world < 0 && c->info.rank[d] >= 0) {
		x.src_world = c->info.rank[d];
		if (x.ranksrc == RANKSRC_NONE)
			x.ranksrc = RANKSRC_SOCKMAP;
	}
	if (x.dst_world < 0 && c->info.rank[!d] >= 0) {
		x.dst_world = c->info.rank[!d];
		if (x.ranksrc == RANKSRC_NONE)
			x.ranksrc = RANKSRC_SOCKMAP;
	}
	c->f->cb.msg(c->f->cb.ctx, &x);
}

static int
decoder_index(const struct decoder *d)
{
	if (d == &dec_generic)
		return MSG_GENERIC;
	if (strcmp(d->name, "ompi") == 0)
		return MSG_OMPI;
	if (strcmp(d->name, "mpich") == 0)
		return MSG_MPICH;
	if (d == &dec_ompi_ucx)
		return FLOWS_DEC_OMPI_UCX;
	return MSG_GENERIC;
}

static bool
candidate(const struct flows *f, const struct decoder *d)
{
	switch (f->cfg.mpi) {
	case FLOWS_MPI_AUTO: return true;
	case FLOWS_MPI_GENERIC: return false;
	case FLOWS_MPI_OMPI: return strcmp(d->name, "ompi") == 0;
	case FLOWS_MPI_MPICH:
	case FLOWS_MPI_OMPI_UCX: return strcmp(d->name, "mpich") == 0;
	}
	return false;
}

static void
free_pending(struct conn *c)
{
	struct pend *p, *n;

	for (p = c->pend; p != NULL; p = n) {
		n = p->next;
		free(p);
	}
	c->pend = NULL;
	c->pend_tail = &c->pend;
	c->pend_bytes = 0;
}

/* Choose what the connection is, once enough first bytes are in (or when forced). */
static void dec_missing(struct conn *c, int dir, bool cut, uint64_t n, int64_t t_ns);

static void
choose(struct flows *f, struct conn *c, bool force)
{
	const uint8_t *pp[2] = { c->prefix[0], c->prefix[1] };
	size_t n[2] = { c->prefix_len[0], c->prefix_len[1] };
	const struct decoder *best = &dec_generic;
	int best_score = 0, i, d;
	enum launch_kind lk;
	struct conn_info ci;
	struct msg_sink sink = { sink_emit, c };
	struct pend *p;

	if (!force && !(n[0] && n[1]) && n[0] < PREFIX_MAX && n[1] < PREFIX_MAX &&
	    c->pend_bytes < PEND_MAX)
		return;
	lk = launch_detect(pp, n);
	if (lk > LAUNCH_MORE) {
		c->state = CS_LAUNCHER;
		c->launch = lk;
		f->st.launcher_conns[lk]++;
		c->info.launch = (int)lk;
		c->info.bytes += c->pend_bytes;
		free_pending(c);
		return;
	}
	for (i = 0; flows_mpi_decoders[i] != NULL; i++) {
		const struct decoder *dec = flows_mpi_decoders[i];

		if (!candidate(f, dec))
			continue;
		for (d = 0; d < 2; d++) {
			int s = n[d] ? dec->detect(pp[d], n[d], d) : 0;

			if (s > best_score)
				best_score = s, best = dec;
		}
	}
	/* UCX streams look the same whichever MPI sends them; the run says whose they are. */
	if (best == &dec_mpich && (f->cfg.mpi == FLOWS_MPI_OMPI_UCX ||
				   (f->cfg.mpi == FLOWS_MPI_AUTO && f->cfg.ucx_is_ompi)))
		best = &dec_ompi_ucx;
	memset(&ci, 0, sizeof ci);
	ci.conn = c->info.conn;
	ci.af = c->info.af;
	memcpy(ci.addr, c->info.addr, sizeof ci.addr);
	ci.port[0] = c->info.port[0];
	ci.port[1] = c->info.port[1];
	ci.saw_syn = c->info.saw_syn;
	ci.rank[0] = c->info.rank[0];
	ci.rank[1] = c->info.rank[1];
	ci.ts_now = c->ts_now;
	c->dec = best;
	c->dec_idx = decoder_index(best);
	f->st.dec_conns[c->dec_idx]++;
	c->info.dec_idx = c->dec_idx;
	c->ds = best->open(&ci, &sink, &c->info.dec);
	c->state = CS_DECODING;
	for (p = c->pend; p != NULL; p = p->next) {
		c->ts_now[p->dir] = p->ts;
		if (p->gap) {
			dec_missing(c, p->dir, p->cut, p->n, p->t_ns);
		} else {
			c->info.bytes += p->n;
			c->dec->data(c->ds, p->dir, p->data, (size_t)p->n, p->t_ns);
		}
	}
	free_pending(c);
}

static void
pend_add(struct conn *c, int dir, bool gap, bool cut, const uint8_t *p, uint64_t n, int64_t t_ns)
{
	struct pend *e = xmalloc(sizeof *e + (gap ? 0 : (size_t)n));

	e->next = NULL;
	e->dir = dir;
	e->gap = gap;
	e->cut = cut;
	e->n = n;
	e->t_ns = t_ns;
	e->ts = c->td[dir].tag_out;
	if (!gap) {
		memcpy(e->data, p, (size_t)n);
		c->pend_bytes += (size_t)n;
	}
	*c->pend_tail = e;
	c->pend_tail = &e->next;
}

static void
side_data(void *ctx, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct side *s = ctx;
	struct conn *c = s->c;
	struct flows *f = c->f;

	c->ts_now[s->dir] = c->td[s->dir].tag_out;
	switch (c->state) {
	case CS_DECODING:
		c->info.bytes += n;
		c->dec->data(c->ds, s->dir, p, n, t_ns);
		break;
	case CS_LAUNCHER:
		c->info.bytes += n;
		break;
	case CS_PENDING: {
		size_t room = PREFIX_MAX - c->prefix_len[s->dir];
		size_t k = n < room ? n : room;

		memcpy(c->prefix[s->dir] + c->prefix_len[s->dir], p, k);
		c->prefix_len[s->dir] += k;
		pend_add(c, s->dir, false, false, p, n, t_ns);
		choose(f, c, false);
		break;
	}
	case CS_IGNORED:
		break;
	}
}

/* A decoder's view of missing bytes: a cut made on purpose goes to its skip() when it has
 * one (it may skip bytes it did not need), anything else is a gap. */
static void
dec_missing(struct conn *c, int dir, bool cut, uint64_t n, int64_t t_ns)
{
	if (cut && c->dec->skip != NULL)
		c->dec->skip(c->ds, dir, n, t_ns);
	else
		c->dec->gap(c->ds, dir, n, t_ns);
}

static void
side_missing(struct side *s, bool cut, uint64_t n, int64_t t_ns)
{
	struct conn *c = s->c;

	if (!cut)
		c->info.gap_bytes[s->dir] += n;
	c->ts_now[s->dir] = c->td[s->dir].tag_out;
	switch (c->state) {
	case CS_DECODING:
		dec_missing(c, s->dir, cut, n, t_ns);
		break;
	case CS_PENDING:
		/* the first bytes are not all there: decide on what we have */
		pend_add(c, s->dir, true, cut, NULL, n, t_ns);
		choose(c->f, c, true);
		break;
	case CS_LAUNCHER:
		c->info.bytes += n;
		break;
	case CS_IGNORED:
		break;
	}
}

static void
side_gap(void *ctx, uint64_t n, int64_t t_ns)
{
	side_missing(ctx, false, n, t_ns);
}

static void
side_cut(void *ctx, uint64_t n, int64_t t_ns)
{
	side_missing(ctx, true, n, t_ns);
}

/* ---- TCP timestamps ---- */

#define TS_MS_NS 1000000
#define TS_US_NS 1000
#define TS_SPREAD_MIN_NS (200 * NS_PER_MS)	/* a queue wait nobody would believe above */

int64_t
flows_ts_add(struct flows_ts *ts, uint32_t tsval, int64_t t_ns)
{
	static const int64_t tick[2] = { TS_MS_NS, TS_US_NS };

	if (ts->n == 0) {
		ts->ext = (int64_t)tsval + ((int64_t)1 << 32);
		ts->t0_ns = t_ns;
	} else {
		/* a step of the clock either way, taken the short way round 2^32 */
		ts->ext += (int32_t)(tsval - ts->last);
	}
	ts->last = tsval;
	ts->t1_ns = t_ns;
	for (int u = 0; u < 2; u++) {
		int64_t off = t_ns - ts->ext * tick[u];

		if (ts->n == 0 || off < ts->min_off[u])
			ts->min_off[u] = off;
		if (ts->n == 0 || off > ts->max_off[u])
			ts->max_off[u] = off;
	}
	ts->n++;
	return ts->ext;
}

int64_t
flows_ts_unit(const struct flows_ts *ts, int64_t *zero_ns)
{
	int64_t spread_ms, spread_us, span, limit;
	int u;

	*zero_ns = 0;
	if (ts->n == 0)
		return 0;
	/* a ms clock read as us drifts by the span, a us clock read as ms by 999 times it */
	spread_ms = ts->max_off[0] - ts->min_off[0];
	spread_us = ts->max_off[1] - ts->min_off[1];
	u = spread_ms <= spread_us ? 0 : 1;
	span = ts->t1_ns - ts->t0_ns;
	limit = span / 2 > TS_SPREAD_MIN_NS ? span / 2 : TS_SPREAD_MIN_NS;
	if ((u == 0 ? spread_ms : spread_us) > limit)
		return 0;
	*zero_ns = ts->min_off[u];
	return u == 0 ? TS_MS_NS : TS_US_NS;
}

/* ---- the table ---- */

static struct conn **
find_slot(struct flows *f, const struct pkt_key *k)
{
	struct conn **pp = &f->tab[pkt_key_hash(k) & (f->nbuckets - 1)];

	while (*pp != NULL && memcmp(&(*pp)->key, k, sizeof *k) != 0)
		pp = &(*pp)->hnext;
	return pp;
}

static bool
seen_before(const struct flows *f, const struct pkt_key *k, bool has_isn, uint32_t isn)
{
	const struct seen *s;

	for (s = f->seen[pkt_key_hash(k) & (f->nbuckets - 1)]; s != NULL; s = s->next) {
		if (s->capture >= f->capture || memcmp(&s->key, k, sizeof *k) != 0)
			continue;
		if (s->has_isn && has_isn && s->isn != isn)
			continue;	/* the same ports reused by another connection */
		return true;
	}
	return false;
}

static void
remember(struct flows *f, const struct conn *c)
{
	struct seen *s, **b;

	if (c->state == CS_IGNORED || f->nseen >= SEEN_MAX)
		return;
	s = xcalloc(1, sizeof *s);
	s->key = c->key;
	s->isn = c->syn_isn;
	s->has_isn = c->info.saw_syn;
	s->capture = f->capture;
	b = &f->seen[pkt_key_hash(&c->key) & (f->nbuckets - 1)];
	s->next = *b;
	*b = s;
	f->nseen++;
}

/* End the connection's streams: flush reassembly into the decoder and close it. */
static void
conn_close(struct flows *f, struct conn *c, int64_t t_ns)
{
	int d;

	if (c->closed)
		return;
	for (d = 0; d < 2; d++)
		tcpr_dir_flush(&c->td[d], t_ns, &c->out[d], &c->info.tcp);
	if (c->state == CS_PENDING && (c->prefix_len[0] || c->prefix_len[1] || c->pend))
		choose(f, c, true);
	if (c->state == CS_DECODING) {
		int32_t r[2] = { -1, -1 };

		if (c->dec->ranks != NULL)
			c->dec->ranks(c->ds, r);
		for (d = 0; d < 2; d++) {
			if (r[d] >= 0 && c->dec_idx != MSG_GENERIC) {
				c->info.rank[d] = r[d];
				c->info.ranksrc = c->dec_idx == MSG_OMPI ? RANKSRC_HANDSHAKE : RANKSRC_UCPTAG;
			}
		}
		c->dec->close(c->ds, t_ns);
		c->ds = NULL;
		c->info.kind = c->dec->name;
	} else if (c->state == CS_LAUNCHER) {
		c->info.kind = launch_kind_name(c->launch);
	} else if (c->state == CS_IGNORED) {
		c->info.kind = "duplicate";
	}
	free_pending(c);
	for (d = 0; d < 2; d++) {
		tcpr_dir_release(&c->td[d]);
		c->info.ts_unit_ns[d] = flows_ts_unit(&c->ts[d], &c->info.ts_zero_ns[d]);
	}
	c->closed = true;
	c->t_closed_ns = t_ns;
	f->nopen--;
	/* onto the closed list, to be forgotten after LINGER_NS */
	c->lprev = f->ltail;
	c->lnext = NULL;
	if (f->ltail)
		f->ltail->lnext = c;
	else
		f->lhead = c;
	f->ltail = c;
}

/* n counters of src added to (or taken from) dst: the stats structs are all uint64_t. */
static void
add_u64s(uint64_t *dst, const uint64_t *src, size_t n, bool take)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = take ? dst[i] - src[i] : dst[i] + src[i];
}

_Static_assert(sizeof(struct tcpr_stats) % sizeof(uint64_t) == 0, "tcpr_stats: uint64_t only");
_Static_assert(sizeof(struct dec_stats) % sizeof(uint64_t) == 0, "dec_stats: uint64_t only");

void
flows_stats_conn(struct flows_stats *st, const struct flows_conn *k, bool take)
{
	uint64_t *b = NULL;

	if (k->dec_idx >= 0 && k->dec_idx < FLOWS_NDEC) {
		b = &st->dec_bytes[k->dec_idx];
		add_u64s(&st->dec_conns[k->dec_idx], &(uint64_t){ 1 }, 1, take);
		add_u64s((uint64_t *)&st->dec[k->dec_idx], (const uint64_t *)&k->dec,
			 sizeof k->dec / sizeof(uint64_t), take);
	} else if (k->launch >= 0 && k->launch < LAUNCH_NKINDS) {
		b = &st->launcher_bytes[k->launch];
		add_u64s(&st->launcher_conns[k->launch], &(uint64_t){ 1 }, 1, take);
	}
	if (b != NULL)
		add_u64s(b, &k->bytes, 1, take);
	add_u64s((uint64_t *)&st->tcp, (const uint64_t *)&k->tcp, sizeof k->tcp / sizeof(uint64_t), take);
}

/* A connection's own counters into the table's totals (its count was added when it was
 * classified). */
static void
conn_fold(struct flows_stats *st, const struct flows_conn *k)
{
	struct flows_conn x = *k;

	if (x.dec_idx >= 0)
		st->dec_conns[x.dec_idx]--;
	else if (x.launch >= 0)
		st->launcher_conns[x.launch]--;
	flows_stats_conn(st, &x, false);
}

/* Drop a closed connection from the table, reporting it. */
static void
conn_forget(struct flows *f, struct conn *c)
{
	struct conn **pp = find_slot(f, &c->key);

	if (!c->closed)
		conn_close(f, c, f->last_t_ns);
	conn_fold(&f->st, &c->info);
	if (f->cb.conn != NULL && c->state != CS_IGNORED)
		f->cb.conn(f->cb.ctx, &c->info);
	remember(f, c);
	if (*pp == c)
		*pp = c->hnext;
	if (c->lprev)
		c->lprev->lnext = c->lnext;
	else
		f->lhead = c->lnext;
	if (c->lnext)
		c->lnext->lprev = c->lprev;
	else
		f->ltail = c->lprev;
	f->nconns--;
	free(c);
}

static struct conn *
conn_new(struct flows *f, const struct pkt_key *k, const struct pkt *p, int src_end, int64_t t_ns)
{
	struct conn *c = xcalloc(1, sizeof *c);
	int init_end, d;

	c->f = f;
	c->key = *k;
	/* who opened it: the SYN's sender, the SYN/ACK's receiver, else the higher
	 * (ephemeral) port, else the first sender */
	if ((p->flags & (PKT_TCP_SYN | PKT_TCP_ACK)) == PKT_TCP_SYN)
		init_end = src_end;
	else if (p->flags & PKT_TCP_SYN)
		init_end = !src_end;
	else if (k->port[0] != k->port[1])
		init_end = k->port[0] > k->port[1] ? 0 : 1;
	else
		init_end = src_end;
	c->key_init = init_end;
	c->info.conn = f->next_idx++;
	c->info.af = k->af;
	memcpy(c->info.addr[0], k->addr[init_end], 16);
	memcpy(c->info.addr[1], k->addr[!init_end], 16);
	c->info.port[0] = k->port[init_end];
	c->info.port[1] = k->port[!init_end];
	c->info.saw_syn = (p->flags & PKT_TCP_SYN) != 0;
	c->info.kind = "none";
	c->info.t_first_ns = t_ns;
	c->info.rtt_ns = -1;
	c->info.vlan = p->vlan;
	c->info.ranksrc = RANKSRC_NONE;
	c->info.dec_idx = -1;
	c->info.launch = -1;
	c->info.open_syn = (p->flags & (PKT_TCP_SYN | PKT_TCP_ACK)) == PKT_TCP_SYN;
	c->info.open_seq = p->seq;
	for (d = 0; d < 2; d++) {
		c->info.rank[d] = f->cb.rank_of ? f->cb.rank_of(f->cb.ctx, k->af, c->info.addr[d],
							     c->info.port[d]) : -1;
		if (c->info.rank[d] >= 0)
			c->info.ranksrc = RANKSRC_SOCKMAP;
		tcpr_dir_init(&c->td[d], f->cfg.max_buf_bytes, f->cfg.max_segs);
		c->side[d].c = c;
		c->side[d].dir = d;
		c->out[d].data = side_data;
		c->out[d].gap = side_gap;
		c->out[d].cut = side_cut;
		c->out[d].ctx = &c->side[d];
	}
	c->pend_tail = &c->pend;
	c->state = CS_PENDING;
	f->st.conns++;
	if (!c->info.saw_syn)
		f->st.conns_midstream++;
	f->nconns++;
	f->nopen++;
	if (f->nopen > f->st.conns_max_concurrent)
		f->st.conns_max_concurrent = f->nopen;
	return c;
}

void
flows_tcp(struct flows *f, const struct pkt *p, int64_t t_ns, uint32_t origlen)
{
	struct pkt_key k;
	struct conn **slot, *c;
	int src_end, dir;
	bool syn_only = (p->flags & (PKT_TCP_SYN | PKT_TCP_ACK)) == PKT_TCP_SYN;

	if (t_ns > f->last_t_ns)
		f->last_t_ns = t_ns;
	while (f->lhead != NULL && t_ns - f->lhead->t_closed_ns > LINGER_NS)
		conn_forget(f, f->lhead);
	f->st.tcp_payload_bytes += p->payload_wire;
	pkt_key_make(p, &k, &src_end);
	slot = find_slot(f, &k);
	c = *slot;
	if (c != NULL && syn_only) {
		/* a new SYN on a known 4-tuple: the ports were reused */
		bool other = c->closed || !c->info.saw_syn || c->syn_isn != p->seq;

		if (other && !(c->info.saw_syn && c->syn_isn == p->seq)) {
			f->st.conns_port_reuse++;
			conn_forget(f, c);
			c = NULL;
			slot = find_slot(f, &k);
		}
	}
	if (c == NULL) {
		if (!(p->flags & PKT_TCP_SYN) && p->payload_wire == 0) {
			f->st.orphan_pkts++;
			return;
		}
		if (f->nconns >= f->cfg.max_conns) {
			/* make room from the closed ones first */
			if (f->lhead != NULL) {
				conn_forget(f, f->lhead);
				slot = find_slot(f, &k);
			} else {
				f->st.conns_cap_hits++;
				return;
			}
		}
		c = conn_new(f, &k, p, src_end, t_ns);
		*slot = c;
		if (seen_before(f, &k, syn_only, p->seq)) {
			c->state = CS_IGNORED;
			f->st.conns_dup++;
		}
	}
	dir = src_end == c->key_init ? 0 : 1;
	c->info.pkts[dir]++;
	c->info.frame_bytes[dir] += origlen;
	c->info.payload_bytes[dir] += p->payload_wire;
	c->info.ttl[dir] = p->ttl;
	if (p->has_mac) {
		memcpy(c->info.mac[dir], p->smac, 6);
		c->info.has_mac[dir] = true;
	}
	if (t_ns > c->info.t_last_ns)
		c->info.t_last_ns = t_ns;
	/* the handshake: SYN (dir 0) -> SYN/ACK (dir 1) -> ACK (dir 0) */
	if (syn_only && dir == 0 && c->t_syn_ns == 0) {
		c->t_syn_ns = t_ns;
		c->syn_isn = p->seq;
		c->info.syn_isn = p->seq;
		c->info.saw_syn = true;
	} else if ((p->flags & (PKT_TCP_SYN | PKT_TCP_ACK)) == (PKT_TCP_SYN | PKT_TCP_ACK) && dir == 1 &&
		   c->t_syn_ns != 0 && c->t_synack_ns == 0) {
		c->t_synack_ns = t_ns;
	} else if (dir == 0 && !(p->flags & PKT_TCP_SYN) && (p->flags & PKT_TCP_ACK) &&
		   c->t_synack_ns != 0 && c->info.rtt_ns < 0) {
		c->info.rtt_ns = t_ns - c->t_syn_ns;
	}
	if (c->closed || c->state == CS_IGNORED)
		return;
	c->td[dir].tag_in = p->has_ts ? flows_ts_add(&c->ts[dir], p->tsval, t_ns) : -1;
	tcpr_dir_segment(&c->td[dir], p->seq, p->flags, p->payload, p->payload_len, p->payload_wire,
			 t_ns, &c->out[dir], &c->info.tcp);
	if ((p->flags & PKT_TCP_ACK) && c->td[!dir].head != NULL)
		tcpr_dir_ack(&c->td[!dir], p->ack, t_ns, &c->out[!dir], &c->info.tcp);
	if (p->flags & PKT_TCP_FIN)
		c->fin[dir] = true;
	if ((p->flags & PKT_TCP_RST) || (c->fin[0] && c->fin[1]))
		conn_close(f, c, t_ns);
}

void
flows_frame(struct flows *f, int linktype, const uint8_t *data, uint32_t caplen, uint32_t origlen,
	    int64_t t_ns)
{
	struct pkt p;
	enum pkt_kind k = pkt_decode(linktype, data, caplen, origlen, &p);

	f->st.packets++;
	f->st.frame_bytes += origlen;
	f->st.kinds[k]++;
	if (k == PKT_TCP)
		flows_tcp(f, &p, t_ns, origlen);
}

static int
conn_idx_cmp(const void *a, const void *b)
{
	const struct conn *x = *(const struct conn *const *)a, *y = *(const struct conn *const *)b;

	return (x->info.conn > y->info.conn) - (x->info.conn < y->info.conn);
}

void
flows_end_capture(struct flows *f)
{
	struct conn **open = xcalloc(f->nopen ? f->nopen : 1, sizeof *open);
	size_t i, n = 0;

	/* close in connection order, so the output does not depend on the hash */
	for (i = 0; i < f->nbuckets; i++) {
		struct conn *c;

		for (c = f->tab[i]; c != NULL; c = c->hnext)
			if (!c->closed && n < f->nopen)
				open[n++] = c;
	}
	if (n > 1)
		qsort(open, n, sizeof *open, conn_idx_cmp);
	for (i = 0; i < n; i++)
		conn_close(f, open[i], f->last_t_ns);
	free(open);
	while (f->lhead != NULL)
		conn_forget(f, f->lhead);
	f->capture++;
}

void
flows_free(struct flows *f)
{
	size_t i;

	if (f == NULL)
		return;
	flows_end_capture(f);
	for (i = 0; i < f->nbuckets; i++) {
		struct seen *s, *n;

		for (s = f->seen[i]; s != NULL; s = n) {
			n = s->next;
			free(s);
		}
	}
	free(f->seen);
	free(f->tab);
	free(f);
}
