/* frame: the engine of the record-framed MPI decoders (state machine, messages in flight,
 * ranks, gaps, resynchronisation, close); the wire formats live in the decoders.
 *
 * Bytes that are not consumed yet are held per direction in one buffer (q) of fixed size,
 * allocated once: the tail of a piece whose record start cannot be judged yet, and the
 * bytes after a rejected header's first, which are searched again. The state machine drains
 * q before the caller's bytes, so nothing is replayed by recursion and a resynchronisation
 * costs no allocation; every position is judged once, with the bytes that follow it in the
 * stream whatever the packet boundaries. */
#include "parse/frame.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

static size_t
q_cap(const struct frame_proto *pr)
{
	return 2 * pr->resync_max + FRAME_HDR_MAX;
}

/* World rank of the sender in direction d, and where it came from. */
static int32_t
world_of(const struct frame *f, int d, enum rank_src *how)
{
	if (f->d[d].world_known) {
		*how = f->d[d].world_src;
		return f->d[d].world;
	}
	if (f->ci.rank[d] >= 0) {
		*how = RANKSRC_SOCKMAP;
		return f->ci.rank[d];
	}
	*how = RANKSRC_NONE;
	return -1;
}

static void
fill_ranks(const struct frame *f, struct msg *m)
{
	enum rank_src a, b;

	m->src_world = world_of(f, m->dir, &a);
	m->dst_world = world_of(f, 1 - m->dir, &b);
	m->ranksrc = a != RANKSRC_NONE ? a : b;
}

static void
flush_queue(struct frame *f)
{
	size_t i;

	for (i = 0; i < f->nqueue; i++) {
		fill_ranks(f, &f->queue[i]);
		f->st->msgs++;
		f->sink.emit(f->sink.ctx, &f->queue[i]);
	}
	f->nqueue = 0;
}

/* Hand m (m->dir set) on now, or, with wait_ranks, queue it while an end is unknown (the
 * queue is flushed when full). */
static void
emit(struct frame *f, struct msg *m)
{
	m->mpi = f->pr->mpi;
	m->conn = f->ci.conn;
	fill_ranks(f, m);
	if (!f->pr->wait_ranks || (m->src_world >= 0 && m->dst_world >= 0 && f->nqueue == 0)) {
		f->st->msgs++;
		f->sink.emit(f->sink.ctx, m);
		return;
	}
	if (f->nqueue == FRAME_QUEUE_MAX)
		flush_queue(f);
	f->queue = xgrow(f->queue, &f->queue_cap, f->nqueue + 1, sizeof *f->queue);
	f->queue[f->nqueue++] = *m;
}

void
frame_set_world(struct frame *f, int d, int32_t r, enum rank_src src)
{
	if (f->d[d].world_known)
		return;
	f->d[d].world_known = true;
	f->d[d].world = r;
	f->d[d].world_src = src;
	if (f->d[1 - d].world_known || f->ci.rank[1 - d] >= 0)
		flush_queue(f);
}

void
frame_pend_emit(struct frame *f, int d, int i, unsigned extra)
{
	struct frame_msg *pm = &f->d[d].pend[i];
	struct msg m;

	memset(&m, 0, sizeof m);
	m.t_first_ns = pm->t_first_ns;
	m.t_last_ns = pm->t_last_ns;
	m.tsval = pm->tsval;
	m.queued_ns = -1;
	m.cid = pm->cid;
	m.comm_src = pm->comm_src;
	m.tag = pm->tag;
	m.bytes = pm->len_bytes;
	m.wire_bytes = pm->wire_bytes;
	if (pm->put_data)
		m.proto = PROTO_RNDV_PUT;
	else if (pm->frag_data)
		m.proto = PROTO_RNDV_FRAG;
	else if (pm->sync_if_whole && pm->got_bytes >= pm->len_bytes)
		m.proto = PROTO_SYNC;
	else
		m.proto = pm->proto;
	m.flags = pm->flags | extra;
	m.dir = d;
	pm->used = false;
	emit(f, &m);
}

struct frame_msg *
frame_pend_new(struct frame *f, int d, uint64_t len_bytes, uint64_t len_max)
{
	struct frame_dir *fd = &f->d[d];
	struct frame_msg *pm;
	int i, old = -1;

	for (i = 0; i < (int)fd->npend; i++) {
		if (!fd->pend[i].used)
			break;
		if (old < 0 || fd->pend[i].age < fd->pend[old].age)
			old = i;
	}
	if (i == (int)fd->npend && fd->npend < FRAME_PEND_MAX) {	/* grow lazily */
		fd->pend = xgrow(fd->pend, &fd->pend_cap, fd->npend + 1, sizeof *fd->pend);
		fd->npend++;
	} else if (i == (int)fd->npend) {	/* cap reached: the oldest is given up as truncated */
		f->st->bad++;
		frame_pend_emit(f, d, old, MSG_F_TRUNC);
		i = old;
	}
	pm = &fd->pend[i];
	memset(pm, 0, sizeof *pm);
	pm->used = true;
	pm->age = fd->nage++;
	pm->len_bytes = len_bytes;
	if (len_bytes > len_max) {	/* absurd: capped and counted */
		f->st->bad++;
		pm->len_bytes = len_max;
	}
	pm->proto = PROTO_UNKNOWN;
	pm->t_first_ns = pm->t_last_ns = fd->t_rec_ns;
	pm->tsval = fd->ts_rec;
	pm->wire_bytes = fd->rec_bytes;
	pm->flags = fd->next_flags;
	fd->next_flags = 0;
	fd->cur = i;
	return pm;
}

int
frame_pend_by_key(const struct frame_dir *fd, int k, uint64_t v)
{
	int i, best = -1;

	for (i = 0; i < (int)fd->npend; i++)	/* the newest wins if a stale one shares the key */
		if (fd->pend[i].used && fd->pend[i].keyed & 1u << k && fd->pend[i].key[k] == v &&
		    (best < 0 || fd->pend[i].age > fd->pend[best].age))
			best = i;
	return best;
}

int
frame_pend_by_addr(const struct frame_dir *fd, uint64_t addr, uint64_t *off)
{
	int i, k;

	for (i = 0; i < (int)fd->npend; i++) {
		const struct frame_msg *pm = &fd->pend[i];

		if (!pm->used)
			continue;
		for (k = 0; k < pm->nwin; k++)
			if (addr >= pm->win[k].addr && addr - pm->win[k].addr < pm->win[k].size_bytes) {
				*off = pm->win[k].off_bytes + (addr - pm->win[k].addr);
				return i;
			}
	}
	return -1;
}

void
frame_win_add(struct frame_msg *pm, uint64_t addr, uint64_t size_bytes, uint64_t off_bytes)
{
	if (pm->nwin == FRAME_WIN_MAX) {	/* keep the newest windows */
		memmove(pm->win, pm->win + 1, sizeof pm->win[0] * (FRAME_WIN_MAX - 1));
		pm->nwin--;
	}
	pm->win[pm->nwin].addr = addr;
	pm->win[pm->nwin].size_bytes = size_bytes;
	pm->win[pm->nwin].off_bytes = off_bytes;
	pm->nwin++;
}

void
frame_feeds(struct frame *f, int d, int i)
{
	f->d[d].cur = i;
	f->d[d].pend[i].wire_bytes += f->d[d].rec_bytes;
	f->d[d].t_data_ns = f->d[d].t_rec_ns;
}

void
frame_body(struct frame *f, int d, uint64_t body_bytes)
{
	f->d[d].body_left = body_bytes;
	f->d[d].rec_bytes = f->d[d].hlen + body_bytes;
}

struct msg *
frame_eager(struct frame *f, int d)
{
	struct frame_dir *fd = &f->d[d];

	memset(&fd->now, 0, sizeof fd->now);
	fd->now.t_first_ns = fd->t_rec_ns;
	fd->now.tsval = fd->ts_rec;
	fd->now.queued_ns = -1;
	fd->now.wire_bytes = fd->rec_bytes;
	fd->now.proto = PROTO_EAGER;
	fd->now.flags = fd->next_flags;
	fd->now.dir = d;
	fd->next_flags = 0;
	fd->eager = true;
	return &fd->now;
}

static void
dir_init(const struct frame_proto *pr, struct frame_dir *fd, int d, bool start)
{
	memset(fd, 0, sizeof *fd);
	fd->st = !start ? FS_SCAN : pr->pre_len[d] > 0 ? FS_PRE : FS_HDR;
	fd->cur = -1;
	fd->ts_rec = -1;
	if (!start)
		fd->next_flags = MSG_F_RESYNC;
}

void *
frame_open(const struct frame_proto *pr, const struct conn_info *ci,
	   const struct msg_sink *sink, struct dec_stats *st)
{
	struct frame *f = xcalloc(1, sizeof *f);

	assert(pr->anchor_off < (int)pr->resync_max);
	assert(pr->pre_len[0] <= FRAME_HDR_MAX && pr->pre_len[1] <= FRAME_HDR_MAX);
	f->pr = pr;
	f->ci = *ci;
	f->sink = *sink;
	f->st = st;
	dir_init(pr, &f->d[0], 0, ci->saw_syn);
	dir_init(pr, &f->d[1], 1, ci->saw_syn);
	return f;
}

/* Framing is lost in direction d: look for the next record start. The held bytes stay:
 * they follow what was consumed. */
static void
lose_framing(struct frame *f, int d)
{
	struct frame_dir *fd = &f->d[d];

	f->st->resyncs++;
	fd->st = FS_SCAN;
	fd->hlen = 0;
	fd->cur = -1;
	fd->eager = false;
	fd->scanned_bytes = 0;
	fd->next_flags |= MSG_F_RESYNC;
}

/* Put p[0..n) back in front of the held bytes of fd (they came before them). */
static void
hold_front(const struct frame_proto *pr, struct frame_dir *fd, const uint8_t *p, size_t n)
{
	if (fd->q == NULL)
		fd->q = xmalloc(q_cap(pr));
	if (fd->qoff >= n) {
		fd->qoff -= n;
	} else {
		assert(fd->nq - fd->qoff + n <= q_cap(pr));
		memmove(fd->q + n, fd->q + fd->qoff, fd->nq - fd->qoff);
		fd->nq = fd->nq - fd->qoff + n;
		fd->qoff = 0;
	}
	memcpy(fd->q + fd->qoff, p, n);
}

/* The record of direction d ended with a byte captured at t_ns. */
static void
record_done(struct frame *f, int d, int64_t t_ns)
{
	struct frame_dir *fd = &f->d[d];

	if (fd->eager) {
		fd->now.t_last_ns = t_ns;
		emit(f, &fd->now);
	} else if (fd->cur >= 0 && fd->pend[fd->cur].used) {
		struct frame_msg *pm = &fd->pend[fd->cur];

		pm->t_last_ns = t_ns;
		if (pm->got_bytes >= pm->len_bytes)
			frame_pend_emit(f, d, fd->cur, 0);
	}
	fd->eager = false;
	fd->cur = -1;
	fd->hlen = 0;
	fd->st = FS_HDR;
}

/* The header collected in direction d is not one the decoder accepts: search again from
 * its second byte (the collected bytes may hold the next header). */
static void
bad_header(struct frame *f, int d)
{
	struct frame_dir *fd = &f->d[d];
	uint8_t tmp[FRAME_HDR_MAX];
	size_t rest = fd->hlen > 0 ? fd->hlen - 1 : 0;

	memcpy(tmp, fd->hdr + 1, rest);
	f->st->bad++;
	lose_framing(f, d);
	hold_front(f->pr, fd, tmp, rest);
}

static void
preamble_done(struct frame *f, int d)
{
	struct frame_dir *fd = &f->d[d];
	uint8_t tmp[FRAME_HDR_MAX];
	size_t n = fd->hlen;
	int r = f->pr->preamble(f, d, fd->hdr);

	fd->hlen = 0;
	if (r == 0) {
		fd->st = FS_HDR;
		return;
	}
	f->st->bad++;
	if (r < 0) {
		fd->st = FS_DEAD;
		f->st->fallback++;
		return;
	}
	memcpy(tmp, fd->hdr, n);	/* not a preamble: maybe records already */
	lose_framing(f, d);
	hold_front(f->pr, fd, tmp, n);
}

/* Framing of direction d was lost n more positions ago: give up past the cap. */
static void
scan_account(struct frame *f, struct frame_dir *fd, size_t n)
{
	fd->scanned_bytes += n;
	if (fd->scanned_bytes > f->pr->scan_max) {
		fd->st = FS_DEAD;
		f->st->fallback++;
	}
}

static enum frame_judge
judge(const struct frame_proto *pr, const uint8_t *p, size_t n)
{
	enum frame_judge v;

	if (pr->anchor_off >= 0) {
		if (n <= (size_t)pr->anchor_off)
			return FRAME_MORE;
		if (p[pr->anchor_off] != pr->anchor)
			return FRAME_NO;
	}
	v = pr->resync(p, n);
	return v == FRAME_MORE && n >= pr->resync_max ? FRAME_NO : v;
}

/* Search the held bytes of direction d for a record start, taking more of *p as the
 * judgement needs them. Returns false when it waits for the next piece. */
static bool
scan_held(struct frame *f, int d, const uint8_t **p, size_t *n)
{
	const struct frame_proto *pr = f->pr;
	struct frame_dir *fd = &f->d[d];

	while (fd->qoff < fd->nq && fd->st == FS_SCAN) {
		size_t have = fd->nq - fd->qoff, want;

		switch (judge(pr, fd->q + fd->qoff, have)) {
		case FRAME_YES:
			fd->st = FS_HDR;
			fd->hlen = 0;
			return true;
		case FRAME_NO:
			fd->qoff++;
			scan_account(f, fd, 1);
			break;
		case FRAME_MORE:
			if (*n == 0)
				return false;
			want = pr->resync_max - have < *n ? pr->resync_max - have : *n;
			if (fd->nq + want > q_cap(pr)) {
				memmove(fd->q, fd->q + fd->qoff, have);
				fd->nq = have;
				fd->qoff = 0;
			}
			memcpy(fd->q + fd->nq, *p, want);
			fd->nq += want, *p += want, *n -= want;
			break;
		}
	}
	return true;
}

/* Search p[0..n) of direction d for a record start. Returns the bytes consumed: up to the
 * start found (state FS_HDR), else all, the tail that cannot be judged yet held. With an
 * anchor byte only the places memchr finds it are judged. */
static size_t
scan_piece(struct frame *f, int d, const uint8_t *p, size_t n)
{
	const struct frame_proto *pr = f->pr;
	struct frame_dir *fd = &f->d[d];
	size_t j = 0;

	while (j < n) {
		if (pr->anchor_off >= 0) {
			size_t a = (size_t)pr->anchor_off;
			const uint8_t *at;

			if (n - j <= a)
				break;
			at = memchr(p + j + a, pr->anchor, n - j - a);
			if (at == NULL) {
				j = n - a;
				break;
			}
			j = (size_t)(at - p) - a;
		}
		switch (judge(pr, p + j, n - j)) {
		case FRAME_YES:
			fd->scanned_bytes += j;
			fd->st = FS_HDR;
			fd->hlen = 0;
			return j;
		case FRAME_NO:
			j++;
			continue;
		case FRAME_MORE:
			break;
		}
		break;
	}
	scan_account(f, fd, j);
	if (fd->st == FS_DEAD)
		return n;
	hold_front(pr, fd, p + j, n - j);
	return n;
}

/* Take up to avail bytes of src in the current state; returns how many. */
static size_t
consume(struct frame *f, int d, const uint8_t *src, size_t avail, size_t need, int64_t t_ns)
{
	struct frame_dir *fd = &f->d[d];
	size_t k = 0;

	switch (fd->st) {
	case FS_PRE:
		k = f->pr->pre_len[d] - fd->hlen < avail ? f->pr->pre_len[d] - fd->hlen : avail;
		memcpy(fd->hdr + fd->hlen, src, k);
		fd->hlen += k;
		break;
	case FS_HDR:
		if (fd->hlen == 0) {
			fd->t_rec_ns = t_ns;
			fd->ts_rec = f->ci.ts_now != NULL ? f->ci.ts_now[d] : -1;
		}
		k = need - fd->hlen < avail ? need - fd->hlen : avail;
		memcpy(fd->hdr + fd->hlen, src, k);
		fd->hlen += k;
		break;
	case FS_BODY:
		k = fd->body_left < avail ? (size_t)fd->body_left : avail;
		if (fd->cur >= 0 && fd->pend[fd->cur].used)
			fd->pend[fd->cur].got_bytes += k;
		fd->body_left -= k;
		break;
	case FS_SCAN:
	case FS_DEAD:
		break;
	}
	return k;
}

static void
feed(struct frame *f, int d, const uint8_t *p, size_t n, int64_t t_ns)
{
	const struct frame_proto *pr = f->pr;
	struct frame_dir *fd = &f->d[d];

	for (;;) {
		const uint8_t *src;
		size_t avail, k, need = 0;

		/* first what the bytes read so far call for */
		if (fd->st == FS_PRE && fd->hlen == pr->pre_len[d]) {
			preamble_done(f, d);
			continue;
		}
		if (fd->st == FS_HDR) {
			int v = pr->need(fd->hdr, fd->hlen);

			if (v < 0) {
				bad_header(f, d);
				continue;
			}
			if (v == 0) {
				fd->cur = -1;
				fd->eager = false;
				pr->start(f, d);
				fd->st = FS_BODY;
				continue;
			}
			assert(v <= FRAME_HDR_MAX);
			need = (size_t)v;
		}
		if (fd->st == FS_BODY && fd->body_left == 0) {
			record_done(f, d, t_ns);
			continue;
		}
		if (fd->st == FS_DEAD) {
			fd->nq = fd->qoff = 0;
			return;
		}
		/* then the next bytes: the held ones first */
		if (fd->qoff < fd->nq) {
			if (fd->st == FS_SCAN) {
				if (!scan_held(f, d, &p, &n))
					return;
				continue;
			}
			src = fd->q + fd->qoff;
			avail = fd->nq - fd->qoff;
		} else {
			fd->nq = fd->qoff = 0;
			if (n == 0)
				return;
			if (fd->st == FS_SCAN) {
				k = scan_piece(f, d, p, n);
				p += k, n -= k;
				continue;
			}
			src = p;
			avail = n;
		}
		k = consume(f, d, src, avail, need, t_ns);
		if (src == p)
			p += k, n -= k;
		else
			fd->qoff += k;
	}
}

void
frame_data(void *state, int dir, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct frame *f = state;

	if (dir != 0 && dir != 1)
		return;
	f->d[dir].t_last_ns = t_ns;
	feed(f, dir, p, n, t_ns);
}

/* Bytes of the record whose header is being collected in fd that are still to come after
 * the hlen collected, when the header read so far tells its length; else -1. */
static int64_t
hdr_record_left(const struct frame_proto *pr, const struct frame_dir *fd)
{
	uint64_t total;

	if (pr->need(fd->hdr, fd->hlen) <= 0)
		return -1;
	total = pr->total(fd->hdr, fd->hlen);
	return total > fd->hlen ? (int64_t)(total - fd->hlen) : -1;
}

/* n bytes of direction dir missing: not captured (a gap: the messages it touches are
 * flagged, a record whose header was cut is skipped by its length, the framing is searched
 * for again past what the headers told), or left out on purpose by the capture (cut):
 * inside the current record's body, whose size its header gave, they are data not needed. */
static void
missing(struct frame *f, int dir, uint64_t n, int64_t t_ns, bool cut)
{
	struct frame_dir *fd;
	int64_t left;

	if ((dir != 0 && dir != 1) || n == 0)
		return;
	fd = &f->d[dir];
	if (cut && (fd->st != FS_BODY || n > fd->body_left))
		cut = false;	/* not where the capture leaves bytes out: damage */
	if (!cut)
		f->st->gaps++;
	fd->t_last_ns = t_ns;
	if (fd->st == FS_DEAD)
		return;
	if (fd->st == FS_HDR && (left = hdr_record_left(f->pr, fd)) >= 0) {
		/* the header is cut but its length is known: skip the record by that length */
		fd->next_flags |= MSG_F_GAP;
		fd->hlen = 0;
		fd->eager = false;
		fd->cur = -1;
		if (n < (uint64_t)left) {
			fd->body_left = (uint64_t)left - n;
			fd->st = FS_BODY;
			return;
		}
		n -= (uint64_t)left;
		if (n == 0)
			return;
	}
	if (fd->st == FS_BODY) {
		/* the record's size is known from its header: the gap covers body_left of it */
		uint64_t k = n < fd->body_left ? n : fd->body_left;

		if (fd->cur >= 0 && fd->pend[fd->cur].used) {
			fd->pend[fd->cur].got_bytes += k;
			if (!cut)
				fd->pend[fd->cur].flags |= MSG_F_GAP;
		}
		if (fd->eager && !cut)
			fd->now.flags |= MSG_F_GAP;
		fd->body_left -= k;
		n -= k;
		if (fd->body_left == 0)
			record_done(f, dir, t_ns);
		if (n == 0)
			return;
	}
	/* past what the headers told: the next record start is in the gap */
	lose_framing(f, dir);
	fd->next_flags |= MSG_F_GAP;
	fd->nq = fd->qoff = 0;	/* held bytes do not continue across the gap */
}

void
frame_gap(void *state, int dir, uint64_t n, int64_t t_ns)
{
	missing(state, dir, n, t_ns, false);
}

void
frame_skip(void *state, int dir, uint64_t n, int64_t t_ns)
{
	missing(state, dir, n, t_ns, true);
}

void
frame_close(void *state, int64_t t_ns)
{
	struct frame *f = state;
	int d, i;

	if (f == NULL)
		return;
	(void)t_ns;
	for (d = 0; d < 2; d++) {
		struct frame_dir *fd = &f->d[d];

		if (fd->st == FS_BODY && fd->eager) {	/* an eager record cut short */
			fd->now.flags |= MSG_F_TRUNC;
			fd->now.wire_bytes -= fd->body_left;
			if (f->pr->trunc_bytes_seen)
				fd->now.bytes -= fd->body_left;
			record_done(f, d, fd->t_last_ns);
		}
		for (;;) {	/* oldest first */
			int old = -1;

			for (i = 0; i < (int)fd->npend; i++)
				if (fd->pend[i].used && (old < 0 || fd->pend[i].age < fd->pend[old].age))
					old = i;
			if (old < 0)
				break;
			frame_pend_emit(f, d, old, MSG_F_TRUNC);
		}
		free(fd->pend);
		free(fd->q);
	}
	flush_queue(f);
	free(f->queue);
	free(f);
}

void
frame_ranks(void *state, int32_t rank[2])
{
	const struct frame *f = state;
	enum rank_src how;

	rank[0] = world_of(f, 0, &how);
	rank[1] = world_of(f, 1, &how);
}
