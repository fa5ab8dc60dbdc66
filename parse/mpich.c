/* mpich: the MPICH 4.0 ch4:ucx decoder: UCP tag messages over UCX 1.13's TCP transport.
 *
 * Follows pmodels/mpich@v4.0.2 and openucx/ucx@v1.13.1 as Debian 12 ships them:
 *   ucx src/uct/tcp/tcp.h, tcp_cm.c, tcp_ep.c  magic 0xCAFEBABE12345678 (initiator only),
 *       then records [u8 am_id][u32 len][len bytes]; am 32 connection events, am 33 PUT_REQ
 *       {u64 addr, u64 length, u32 sn} followed by `length` raw bytes not counted in len,
 *       am 34 PUT_ACK, am 35 keepalive
 *   ucx src/ucp/core/ucp_types.h, tag/eager.h, rndv/rndv.h  UCP active messages (legacy
 *       protocols): EAGER_ONLY/FIRST/MIDDLE, EAGER_SYNC_ONLY/FIRST, EAGER_SYNC_ACK,
 *       RNDV_RTS/ATS/RTR/DATA/ATP
 *   mpich src/mpid/ch4/netmod/ucx/ucx_impl.h  ucp tag = context_id << 48 | rank << 32 | tag
 * All fields little-endian. See docs/mpi-decoders.md.
 *
 * The sender's world rank is in the UCP tag only for MPI_COMM_WORLD (context 0, or 1 for its
 * collectives); once seen for a direction it names that direction's sender for every
 * message. Messages whose ends are not yet known wait in a small queue until they are (or
 * the connection closes). */
#include "parse/mpich.h"

#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/rd.h"
#include "lib/xalloc.h"

#define UCT_MAGIC UINT64_C(0xCAFEBABE12345678)
#define MAGIC_LEN MPICH_MAGIC_LEN
#define AM_HDR_LEN 5		/* uct_tcp_am_hdr_t, packed */
#define HDR_MAX (AM_HDR_LEN + 64)

/* UCP AM ids (ucp_types.h, 1.13.1) and UCT TCP internal ids (tcp.h). */
#define AM_WIREUP 1
#define AM_EAGER_ONLY 2
#define AM_EAGER_FIRST 3
#define AM_EAGER_MIDDLE 4
#define AM_EAGER_SYNC_ONLY 6
#define AM_EAGER_SYNC_FIRST 7
#define AM_EAGER_SYNC_ACK 8
#define AM_RNDV_RTS 9
#define AM_RNDV_ATS 10
#define AM_RNDV_RTR 11
#define AM_RNDV_DATA 12
#define AM_RNDV_ATP 16
#define AM_UCP_LAST 26
#define AM_TCP_CM 32
#define AM_TCP_PUT_REQ 33
#define AM_TCP_PUT_ACK 34
#define AM_TCP_KEEPALIVE 35

#define PUT_REQ_LEN 20
#define CM_MAX 64		/* longest connection event: 13 + sockaddr_in6 (28) */
#define PEND_MAX 256		/* messages in flight per direction */
#define WIN_MAX 4		/* RTR windows kept per message */
#define QUEUE_MAX 1024		/* messages waiting for their ranks */
#define SCAN_WIN 4096
#define RECORD_MIN AM_HDR_LEN

enum ust {
	US_MAGIC,	/* initiator's 8-byte magic */
	US_HDR,		/* collecting an AM header and the part of its body we decode */
	US_BODY,	/* rest of an AM body, or PUT_REQ raw data */
	US_SCAN,
	US_DEAD,
};

struct rtr_win {
	uint64_t addr, size_bytes, off_bytes;
};

struct umsg {
	bool used;
	uint64_t tag;		/* ucp tag */
	uint64_t len_bytes, got_bytes;
	uint64_t msg_id;	/* eager multi-fragment id */
	uint64_t sreq, rreq;	/* sender / receiver request ids (rendezvous) */
	struct rtr_win win[WIN_MAX];
	int nwin;
	bool sync, rndv, put_data, frag_data, multi;
	int64_t t_first_ns, t_last_ns;
	uint64_t wire_bytes;
	unsigned flags;
	uint64_t age;
};

struct udir {
	enum ust st;
	uint8_t hdr[HDR_MAX];
	size_t hlen;
	uint64_t body_left;
	uint64_t rec_bytes;	/* wire bytes of the current record */
	int64_t t_rec_ns;
	int cur;		/* pending message the body feeds, -1 none */
	bool eager_now;		/* current record is a whole eager message: emit at its end */
	struct msg now;		/* that message */
	unsigned next_flags;
	struct buf scan;
	uint64_t scanned_bytes;
	struct umsg *pend;	/* messages in flight: npend slots, at most PEND_MAX */
	size_t npend, pend_cap;
	uint64_t nage;
	int32_t world;		/* sender's world rank learned from a UCP tag, -1 unknown */
	int64_t t_last_ns;
};

struct mpich {
	struct conn_info ci;
	struct msg_sink sink;
	struct dec_stats *st;
	struct udir d[2];
	struct msg *queue;	/* messages waiting for ranks, at most QUEUE_MAX */
	size_t nqueue, queue_cap;
};

static void feed(struct mpich *u, int d, const uint8_t *p, size_t n, int64_t t_ns);

/* Header bytes decoded for each AM id (the rest of the body is skipped), or -1 unknown. */
static int
am_hdr_len(uint8_t id)
{
	switch (id) {
	case AM_WIREUP: return 20;
	case AM_EAGER_ONLY: return 8;
	case AM_EAGER_FIRST: return 24;
	case AM_EAGER_MIDDLE: return 16;
	case AM_EAGER_SYNC_ONLY: return 24;
	case AM_EAGER_SYNC_FIRST: return 40;
	case AM_EAGER_SYNC_ACK: return 9;
	case AM_RNDV_RTS: return 41;
	case AM_RNDV_ATS: return 17;
	case AM_RNDV_RTR: return 40;
	case AM_RNDV_DATA: return 16;
	case AM_RNDV_ATP: return 17;
	case AM_TCP_CM: return 4;
	case AM_TCP_PUT_REQ: return PUT_REQ_LEN;
	case AM_TCP_PUT_ACK: return 4;
	case AM_TCP_KEEPALIVE: return 0;
	default: return id >= 1 && id <= AM_UCP_LAST ? 0 : -1;
	}
}

/* Is p[0..n) (n >= RECORD_MIN) the start of a believable record? */
static bool
record_ok(const uint8_t *p, size_t n)
{
	struct rd r = rd_make(p, n);
	uint8_t id = rd_u8(&r);
	uint32_t len = rd_le32(&r);
	int hl = am_hdr_len(id);

	if (r.err || hl < 0 || len < (uint32_t)hl || len > MPICH_AM_MAX)
		return false;
	switch (id) {
	case AM_TCP_CM: {
		uint32_t ev = rd_le32(&r);

		return len <= 64 && (r.err || (ev >= 1 && ev <= 4));
	}
	case AM_TCP_PUT_REQ: {
		uint64_t length;

		rd_skip(&r, 8);
		length = rd_le64(&r);
		return len == PUT_REQ_LEN && (r.err || length <= MPICH_MSG_MAX);
	}
	case AM_TCP_PUT_ACK:
		return len == 4;
	case AM_EAGER_SYNC_ACK:
		return len == 9;
	case AM_RNDV_ATS:
	case AM_RNDV_ATP:
		return len == 17;
	case AM_EAGER_ONLY:
	case AM_EAGER_FIRST:
	case AM_EAGER_MIDDLE:
	case AM_EAGER_SYNC_ONLY:
	case AM_EAGER_SYNC_FIRST:
	case AM_RNDV_RTS:
	case AM_RNDV_RTR:
	case AM_RNDV_DATA:
	case AM_WIREUP:
		return true;
	default:
		return false;	/* rarer ids are not trusted for resynchronisation */
	}
}

static int
mpich_detect(const uint8_t *p, size_t n, int dir)
{
	static const uint8_t magic[MAGIC_LEN] = { 0x78, 0x56, 0x34, 0x12, 0xbe, 0xba, 0xfe, 0xca };
	size_t k = n < MAGIC_LEN ? n : MAGIC_LEN;

	if (k > 0 && memcmp(p, magic, k) == 0)
		return k == MAGIC_LEN ? 100 : 50;
	if (dir == 1 && n >= 9 && p[0] == AM_TCP_CM && record_ok(p, n))
		return 60;	/* the acceptor's connection reply */
	return 0;
}

static void
dir_init(struct udir *ud, enum ust start)
{
	memset(ud, 0, sizeof *ud);
	ud->st = start;
	ud->cur = -1;
	ud->world = -1;
	buf_init(&ud->scan, SCAN_WIN);
}

static void *
mpich_open(const struct conn_info *ci, const struct msg_sink *sink, struct dec_stats *st)
{
	struct mpich *u = xcalloc(1, sizeof *u);

	u->ci = *ci;
	u->sink = *sink;
	u->st = st;
	dir_init(&u->d[0], ci->saw_syn ? US_MAGIC : US_SCAN);
	dir_init(&u->d[1], ci->saw_syn ? US_HDR : US_SCAN);
	if (!ci->saw_syn)
		u->d[0].next_flags = u->d[1].next_flags = MSG_F_RESYNC;
	return u;
}

static int32_t
world_of(const struct mpich *u, int d, enum rank_src *how)
{
	if (u->d[d].world >= 0) {
		*how = RANKSRC_UCPTAG;
		return u->d[d].world;
	}
	if (u->ci.rank[d] >= 0) {
		*how = RANKSRC_SOCKMAP;
		return u->ci.rank[d];
	}
	*how = RANKSRC_NONE;
	return -1;
}

static void
fill_ranks(const struct mpich *u, struct msg *m)
{
	enum rank_src a, b;

	m->src_world = world_of(u, m->dir, &a);
	m->dst_world = world_of(u, 1 - m->dir, &b);
	m->ranksrc = a != RANKSRC_NONE ? a : b;
}

static void
flush_queue(struct mpich *u)
{
	size_t i;

	for (i = 0; i < u->nqueue; i++) {
		fill_ranks(u, &u->queue[i]);
		u->st->msgs++;
		u->sink.emit(u->sink.ctx, &u->queue[i]);
	}
	u->nqueue = 0;
}

/* Hand m on now if both ends are known, else queue it (the queue is flushed when full). */
static void
emit(struct mpich *u, struct msg *m)
{
	m->mpi = MSG_MPICH;
	m->conn = u->ci.conn;
	fill_ranks(u, m);
	if (m->src_world >= 0 && m->dst_world >= 0 && u->nqueue == 0) {
		u->st->msgs++;
		u->sink.emit(u->sink.ctx, m);
		return;
	}
	if (u->nqueue == QUEUE_MAX)
		flush_queue(u);
	u->queue = xgrow(u->queue, &u->queue_cap, u->nqueue + 1, sizeof *u->queue);
	u->queue[u->nqueue++] = *m;
}

/* A UCP tag seen in direction d: learn the sender's world rank from MPI_COMM_WORLD. */
static void
learn(struct mpich *u, int d, uint64_t tag)
{
	uint32_t ctx = (uint32_t)(tag >> 48);
	int32_t rank = (int32_t)((tag >> 32) & 0xffff);

	if (ctx > 1 || u->d[d].world >= 0)
		return;
	u->d[d].world = rank;
	if (u->d[1 - d].world >= 0 || u->ci.rank[1 - d] >= 0)
		flush_queue(u);
}

static void
msg_from_tag(struct msg *m, uint64_t tag)
{
	m->cid = (int32_t)(tag >> 48);
	m->comm_src = (int32_t)((tag >> 32) & 0xffff);
	m->tag = (int32_t)(uint32_t)tag;
}

static void
emit_pending(struct mpich *u, int d, struct umsg *pm, unsigned extra)
{
	struct msg m;

	memset(&m, 0, sizeof m);
	msg_from_tag(&m, pm->tag);
	m.t_first_ns = pm->t_first_ns;
	m.t_last_ns = pm->t_last_ns;
	m.bytes = pm->len_bytes;
	m.wire_bytes = pm->wire_bytes;
	if (pm->put_data)
		m.proto = PROTO_RNDV_PUT;
	else if (pm->frag_data)
		m.proto = PROTO_RNDV_FRAG;
	else if (pm->sync)
		m.proto = PROTO_SYNC;
	else if (pm->rndv)
		m.proto = PROTO_UNKNOWN;
	else
		m.proto = PROTO_EAGER;
	m.flags = pm->flags | extra;
	m.dir = d;
	pm->used = false;
	emit(u, &m);
}

static int
pend_new(struct mpich *u, int d)
{
	struct udir *ud = &u->d[d];
	int i, old = -1;

	for (i = 0; i < (int)ud->npend; i++) {
		if (!ud->pend[i].used)
			break;
		if (old < 0 || ud->pend[i].age < ud->pend[old].age)
			old = i;
	}
	if (i == (int)ud->npend && ud->npend < PEND_MAX) {	/* grow lazily */
		ud->pend = xgrow(ud->pend, &ud->pend_cap, ud->npend + 1, sizeof *ud->pend);
		ud->npend++;
	} else if (i == (int)ud->npend) {
		u->st->bad++;
		emit_pending(u, d, &ud->pend[old], MSG_F_TRUNC);
		i = old;
	}
	memset(&ud->pend[i], 0, sizeof ud->pend[i]);
	ud->pend[i].used = true;
	ud->pend[i].age = ud->nage++;
	return i;
}

enum key { K_MSGID, K_SREQ, K_RREQ };

static int
pend_find(struct udir *ud, enum key k, uint64_t v)
{
	int i, best = -1;

	for (i = 0; i < (int)ud->npend; i++) {
		struct umsg *pm = &ud->pend[i];
		uint64_t have;

		if (!pm->used)
			continue;
		have = k == K_MSGID ? pm->msg_id : k == K_SREQ ? pm->sreq : pm->rreq;
		if (k == K_MSGID && !pm->multi)
			continue;
		if (k != K_MSGID && !pm->rndv)
			continue;
		if (have == v && (best < 0 || pm->age > ud->pend[best].age))
			best = i;
	}
	return best;
}

static int
pend_by_addr(struct udir *ud, uint64_t addr)
{
	int i, k;

	for (i = 0; i < (int)ud->npend; i++) {
		struct umsg *pm = &ud->pend[i];

		if (!pm->used)
			continue;
		for (k = 0; k < pm->nwin; k++)
			if (addr >= pm->win[k].addr && addr - pm->win[k].addr < pm->win[k].size_bytes)
				return i;
	}
	return -1;
}

static void
lose_framing(struct mpich *u, int d)
{
	struct udir *ud = &u->d[d];

	u->st->resyncs++;
	ud->st = US_SCAN;
	ud->hlen = 0;
	ud->cur = -1;
	ud->eager_now = false;
	ud->scanned_bytes = 0;
	buf_clear(&ud->scan);
	ud->next_flags |= MSG_F_RESYNC;
}

/* The record of direction d ended with a byte captured at t_ns. */
static void
record_done(struct mpich *u, int d, int64_t t_ns)
{
	struct udir *ud = &u->d[d];

	if (ud->eager_now) {
		ud->now.t_last_ns = t_ns;
		emit(u, &ud->now);
	} else if (ud->cur >= 0 && ud->pend[ud->cur].used) {
		struct umsg *pm = &ud->pend[ud->cur];

		pm->t_last_ns = t_ns;
		if (pm->got_bytes >= pm->len_bytes)
			emit_pending(u, d, pm, 0);
	}
	ud->eager_now = false;
	ud->cur = -1;
	ud->hlen = 0;
	ud->st = US_HDR;
}

/* Start a message with a pending slot (multi-record eager or rendezvous). */
static struct umsg *
start_pending(struct mpich *u, int d, uint64_t tag, uint64_t len)
{
	struct udir *ud = &u->d[d];
	int i = pend_new(u, d);
	struct umsg *pm = &ud->pend[i];

	pm->tag = tag;
	pm->len_bytes = len;
	if (len > MPICH_MSG_MAX) {
		u->st->bad++;
		pm->len_bytes = MPICH_MSG_MAX;
	}
	pm->t_first_ns = pm->t_last_ns = ud->t_rec_ns;
	pm->wire_bytes = ud->rec_bytes;
	pm->flags = ud->next_flags;
	ud->next_flags = 0;
	ud->cur = i;
	learn(u, d, tag);
	return pm;
}

/* The decoded header of the current record of direction d is complete: act on it. */
static void
record_start(struct mpich *u, int d)
{
	struct udir *ud = &u->d[d];
	struct rd r = rd_make(ud->hdr, ud->hlen);
	uint8_t id = rd_u8(&r);
	uint32_t len = rd_le32(&r);
	uint64_t body = len - (ud->hlen - AM_HDR_LEN);	/* body bytes after the decoded part */
	struct udir *peer = &u->d[1 - d];
	struct umsg *pm;
	int i;

	ud->cur = -1;
	ud->eager_now = false;
	ud->rec_bytes = AM_HDR_LEN + (uint64_t)len;
	ud->body_left = body;
	switch (id) {
	case AM_EAGER_ONLY:
	case AM_EAGER_SYNC_ONLY: {
		uint64_t tag = rd_le64(&r);

		memset(&ud->now, 0, sizeof ud->now);
		msg_from_tag(&ud->now, tag);
		ud->now.t_first_ns = ud->t_rec_ns;
		ud->now.bytes = body;
		ud->now.wire_bytes = ud->rec_bytes;
		ud->now.proto = id == AM_EAGER_ONLY ? PROTO_EAGER : PROTO_SYNC;
		ud->now.flags = ud->next_flags;
		ud->now.dir = d;
		ud->next_flags = 0;
		ud->eager_now = true;
		learn(u, d, tag);
		break;
	}
	case AM_EAGER_FIRST:
	case AM_EAGER_SYNC_FIRST: {
		uint64_t tag = rd_le64(&r), total = rd_le64(&r), msg_id = rd_le64(&r);

		pm = start_pending(u, d, tag, total);
		pm->msg_id = msg_id;
		pm->multi = true;
		pm->sync = id == AM_EAGER_SYNC_FIRST;
		break;
	}
	case AM_EAGER_MIDDLE: {
		uint64_t msg_id = rd_le64(&r);

		i = pend_find(ud, K_MSGID, msg_id);
		if (i < 0) {
			u->st->bad++;
			break;
		}
		ud->cur = i;
		ud->pend[i].wire_bytes += ud->rec_bytes;
		break;
	}
	case AM_RNDV_RTS: {
		uint64_t tag = rd_le64(&r), sreq;

		rd_skip(&r, 8);	/* sender ep id */
		sreq = rd_le64(&r);
		rd_skip(&r, 8);	/* sender buffer address */
		pm = start_pending(u, d, tag, rd_le64(&r));
		pm->sreq = sreq;
		pm->rndv = true;
		ud->cur = -1;	/* the rkey that follows is not data */
		break;
	}
	case AM_RNDV_RTR: {
		uint64_t sreq = rd_le64(&r), rreq = rd_le64(&r), addr = rd_le64(&r);
		uint64_t size = rd_le64(&r), off = rd_le64(&r);

		u->st->ctrl++;
		i = pend_find(peer, K_SREQ, sreq);
		if (i < 0)
			break;
		pm = &peer->pend[i];
		pm->rreq = rreq;
		if (pm->nwin == WIN_MAX) {
			memmove(pm->win, pm->win + 1, sizeof pm->win[0] * (WIN_MAX - 1));
			pm->nwin--;
		}
		pm->win[pm->nwin].addr = addr;
		pm->win[pm->nwin].size_bytes = size;
		pm->win[pm->nwin].off_bytes = off;
		pm->nwin++;
		break;
	}
	case AM_RNDV_DATA: {
		uint64_t rreq = rd_le64(&r);

		i = pend_find(ud, K_RREQ, rreq);
		if (i < 0) {
			u->st->bad++;
			break;
		}
		ud->cur = i;
		ud->pend[i].frag_data = true;
		ud->pend[i].wire_bytes += ud->rec_bytes;
		break;
	}
	case AM_TCP_PUT_REQ: {
		uint64_t addr = rd_le64(&r), length = rd_le64(&r);

		ud->body_left = length;	/* raw bytes outside len */
		ud->rec_bytes += length;
		i = length ? pend_by_addr(ud, addr) : -1;
		if (i < 0) {
			u->st->ctrl++;	/* e.g. the zero-length flush PUT */
			if (length)
				u->st->bad++;
			break;
		}
		ud->cur = i;
		ud->pend[i].put_data = true;
		ud->pend[i].wire_bytes += ud->rec_bytes;
		break;
	}
	case AM_RNDV_ATP: {	/* the sender says all data went out: finish the message */
		uint64_t rreq = rd_le64(&r);

		u->st->ctrl++;
		i = pend_find(ud, K_RREQ, rreq);
		if (i >= 0) {
			ud->pend[i].flags |= MSG_F_GAP;	/* its data were not all seen here */
			emit_pending(u, d, &ud->pend[i], 0);
		}
		break;
	}
	default:	/* wireup, sync ack, ATS, put ack, keepalive, RMA, stream, AM */
		u->st->ctrl++;
		break;
	}
	ud->st = US_BODY;
}

/* Header bytes the record whose first hlen bytes are hdr needs: > hlen for more, 0 when
 * complete, -1 when it is not a record we accept. */
static int
record_need(const uint8_t *hdr, size_t hlen)
{
	struct rd r = rd_make(hdr, hlen);
	uint8_t id;
	uint32_t len;
	int hl;

	if (hlen < AM_HDR_LEN)
		return AM_HDR_LEN;
	id = rd_u8(&r);
	len = rd_le32(&r);
	hl = am_hdr_len(id);
	if (hl < 0 || len < (uint32_t)hl || len > MPICH_AM_MAX)
		return -1;
	if (id == AM_TCP_PUT_REQ && len != PUT_REQ_LEN)
		return -1;
	if (id == AM_TCP_CM) {	/* kept whole (framed captures keep it): it names a listener */
		if (len > CM_MAX)
			return -1;
		hl = (int)len;
	}
	if ((size_t)(AM_HDR_LEN + hl) > hlen)
		return AM_HDR_LEN + hl;
	if (id == AM_TCP_PUT_REQ) {
		uint64_t length;

		rd_skip(&r, 8);
		length = rd_le64(&r);
		if (length > MPICH_MSG_MAX)
			return -1;	/* absurd length: counted, framing searched again */
	}
	return 0;
}

static int
hdr_need(const struct udir *ud)
{
	return record_need(ud->hdr, ud->hlen);
}

int
mpich_record(const uint8_t *p, size_t n, uint64_t *total, uint64_t *keep)
{
	size_t h = AM_HDR_LEN;
	struct rd r;
	uint8_t id;
	uint32_t len;

	for (;;) {
		int need;

		if (h > n)
			return (int)h;
		need = record_need(p, h);
		if (need < 0)
			return -1;
		if (need == 0)
			break;
		h = (size_t)need;
	}
	r = rd_make(p, h);
	id = rd_u8(&r);
	len = rd_le32(&r);
	*total = AM_HDR_LEN + (uint64_t)len;
	if (id == AM_TCP_PUT_REQ) {	/* the raw data follows, not counted in len */
		rd_skip(&r, 8);
		*total += rd_le64(&r);
	}
	*keep = h;
	return 0;
}

bool
mpich_record_plausible(const uint8_t *p, size_t n)
{
	return n >= RECORD_MIN && record_ok(p, n);
}

static size_t
scan_push(struct mpich *u, int d, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct udir *ud = &u->d[d];
	size_t room = SCAN_WIN - ud->scan.len, take = n < room ? n : room, i;

	if (buf_add(&ud->scan, p, take) < 0)
		take = 0;
	for (i = 0; i + RECORD_MIN + 4 <= ud->scan.len; i++) {
		const uint8_t *c = ud->scan.data + i;
		size_t left = ud->scan.len - i;
		uint32_t len;
		uint64_t next;

		if (!record_ok(c, left))
			continue;
		/* the record after it must look right too when it is in the window */
		len = (uint32_t)c[1] | (uint32_t)c[2] << 8 | (uint32_t)c[3] << 16 | (uint32_t)c[4] << 24;
		next = AM_HDR_LEN + (uint64_t)len;
		if (c[0] == AM_TCP_PUT_REQ)
			continue;	/* its raw data length is too weak a check */
		if (next + RECORD_MIN > left) {
			if (next <= SCAN_WIN && ud->scan.len < SCAN_WIN)
				break;	/* wait for more bytes */
		} else if (!record_ok(c + next, left - next)) {
			continue;
		}
		{
			uint8_t *tmp = xmalloc(left);

			memcpy(tmp, c, left);
			ud->scanned_bytes += i;
			buf_clear(&ud->scan);
			ud->st = US_HDR;
			ud->hlen = 0;
			feed(u, d, tmp, left, t_ns);
			free(tmp);
			return take;
		}
	}
	if (i > 0) {
		ud->scanned_bytes += i;
		buf_consume(&ud->scan, i);
	}
	if (ud->scan.len == SCAN_WIN) {	/* nothing believable in a full window */
		ud->scanned_bytes += 1;
		buf_consume(&ud->scan, 1);
	}
	if (ud->scanned_bytes > MPICH_SCAN_MAX) {
		ud->st = US_DEAD;
		u->st->fallback++;
		buf_release(&ud->scan);
	}
	return take;
}

/* The header collected in direction d is not one we accept: search again from its second
 * byte (the collected bytes may hold the next header). Recursion through feed is bounded:
 * every level consumes at least one byte of a fixed-size window. */
static void
bad_header(struct mpich *u, int d, int64_t t_ns)
{
	uint8_t tmp[HDR_MAX];
	size_t rest = u->d[d].hlen - 1;

	memcpy(tmp, u->d[d].hdr + 1, rest);
	u->st->bad++;
	lose_framing(u, d);
	feed(u, d, tmp, rest, t_ns);
}

static void
feed(struct mpich *u, int d, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct udir *ud = &u->d[d];

	while (n > 0) {
		switch (ud->st) {
		case US_MAGIC: {
			size_t k = MAGIC_LEN - ud->hlen < n ? MAGIC_LEN - ud->hlen : n;
			struct rd r;

			memcpy(ud->hdr + ud->hlen, p, k);
			ud->hlen += k, p += k, n -= k;
			if (ud->hlen < MAGIC_LEN)
				break;
			r = rd_make(ud->hdr, MAGIC_LEN);
			if (rd_le64(&r) == UCT_MAGIC) {
				ud->hlen = 0;
				ud->st = US_HDR;
			} else {	/* no magic: maybe records already */
				uint8_t tmp[MAGIC_LEN];

				memcpy(tmp, ud->hdr, MAGIC_LEN);
				u->st->bad++;
				lose_framing(u, d);
				feed(u, d, tmp, MAGIC_LEN, t_ns);
			}
			break;
		}
		case US_HDR: {
			int need = hdr_need(ud);
			size_t k;

			if (need < 0) {
				bad_header(u, d, t_ns);
				break;
			}
			if (need == 0) {
				record_start(u, d);
				if (ud->body_left == 0)
					record_done(u, d, t_ns);
				break;
			}
			if (ud->hlen == 0)
				ud->t_rec_ns = t_ns;
			k = (size_t)need - ud->hlen < n ? (size_t)need - ud->hlen : n;
			memcpy(ud->hdr + ud->hlen, p, k);
			ud->hlen += k, p += k, n -= k;
			need = hdr_need(ud);
			if (need == 0) {
				record_start(u, d);
				if (ud->body_left == 0)
					record_done(u, d, t_ns);
			} else if (need < 0) {
				bad_header(u, d, t_ns);
			}
			break;
		}
		case US_BODY: {
			size_t k = ud->body_left < n ? (size_t)ud->body_left : n;

			if (ud->cur >= 0 && ud->pend[ud->cur].used)
				ud->pend[ud->cur].got_bytes += k;
			ud->body_left -= k, p += k, n -= k;
			if (ud->body_left == 0)
				record_done(u, d, t_ns);
			break;
		}
		case US_SCAN: {
			size_t k = scan_push(u, d, p, n, t_ns);

			p += k, n -= k;
			break;
		}
		case US_DEAD:
			return;
		}
	}
}

static void
mpich_data(void *state, int dir, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct mpich *u = state;

	if (dir != 0 && dir != 1)
		return;
	u->d[dir].t_last_ns = t_ns;
	feed(u, dir, p, n, t_ns);
}

/* n bytes of direction dir missing: not captured (a gap: the messages it touches are
 * flagged, the framing is searched for again past the body), or left out on purpose by
 * the capture (cut): inside the current record's body or PUT data, whose length its header
 * gave, they are data not needed. */
static void
missing(struct mpich *u, int dir, uint64_t n, int64_t t_ns, bool cut)
{
	struct udir *ud;

	if ((dir != 0 && dir != 1) || n == 0)
		return;
	ud = &u->d[dir];
	if (cut && (ud->st != US_BODY || n > ud->body_left))
		cut = false;	/* not where the capture leaves bytes out: damage */
	if (!cut)
		u->st->gaps++;
	ud->t_last_ns = t_ns;
	if (ud->st == US_DEAD)
		return;
	if (ud->st == US_BODY && n <= ud->body_left) {
		if (ud->cur >= 0 && ud->pend[ud->cur].used) {
			ud->pend[ud->cur].got_bytes += n;
			if (!cut)
				ud->pend[ud->cur].flags |= MSG_F_GAP;
		}
		if (ud->eager_now && !cut)
			ud->now.flags |= MSG_F_GAP;
		ud->body_left -= n;
		if (ud->body_left == 0)
			record_done(u, dir, t_ns);
		return;
	}
	if (ud->st == US_BODY && ud->cur >= 0 && ud->pend[ud->cur].used)
		ud->pend[ud->cur].flags |= MSG_F_GAP;
	lose_framing(u, dir);
	ud->next_flags |= MSG_F_GAP;
}

static void
mpich_gap(void *state, int dir, uint64_t n, int64_t t_ns)
{
	missing(state, dir, n, t_ns, false);
}

static void
mpich_skip(void *state, int dir, uint64_t n, int64_t t_ns)
{
	missing(state, dir, n, t_ns, true);
}

static void
mpich_close(void *state, int64_t t_ns)
{
	struct mpich *u = state;
	int d, i;

	if (u == NULL)
		return;
	(void)t_ns;
	for (d = 0; d < 2; d++) {
		struct udir *ud = &u->d[d];

		if (ud->st == US_BODY && ud->eager_now) {	/* an eager record cut short */
			ud->now.flags |= MSG_F_TRUNC;
			ud->now.wire_bytes -= ud->body_left;
			record_done(u, d, ud->t_last_ns);
		}
		for (;;) {
			int old = -1;

			for (i = 0; i < (int)ud->npend; i++)
				if (ud->pend[i].used && (old < 0 || ud->pend[i].age < ud->pend[old].age))
					old = i;
			if (old < 0)
				break;
			emit_pending(u, d, &ud->pend[old], MSG_F_TRUNC);
		}
		free(ud->pend);
		buf_release(&ud->scan);
	}
	flush_queue(u);
	free(u->queue);
	free(u);
}

static void
mpich_ranks(void *state, int32_t rank[2])
{
	const struct mpich *u = state;
	enum rank_src how;

	rank[0] = world_of(u, 0, &how);
	rank[1] = world_of(u, 1, &how);
}

const struct decoder dec_mpich = {
	.name = "mpich",
	.detect = mpich_detect,
	.open = mpich_open,
	.data = mpich_data,
	.gap = mpich_gap,
	.skip = mpich_skip,
	.close = mpich_close,
	.ranks = mpich_ranks,
};
