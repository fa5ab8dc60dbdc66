/* framecut: per-packet keep lengths for a framed capture (see framecut.h). */
#include "collect/framecut.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "collect/kcut.h"
#include "collect/kcut_map.h"
#include "lib/xalloc.h"
#include "parse/pkt.h"
#include "parse/tcpr.h"

struct fdir {
	struct tcpr_dir td;
	struct wire_dir wd;
	bool started;		/* wd set up (first segment with data or SYN seen) */
	bool fin;
	bool kset;		/* a body range was handed to the kernel */
	bool kchecked;		/* the protocol was known once: kself set */
	bool kself;		/* Open MPI or UCX from its start: the kernel may follow it itself */
	uint32_t ks;		/* its end (sequence number) */
};

struct fconn {
	struct fconn *next;	/* hash chain */
	struct pkt_key key;
	struct fdir d[2];	/* by key end that sends */
	int syn_end;		/* key end whose SYN (without ACK) was seen, -1 none */
};

/* What the reassembly delivers while one packet is judged. */
struct judge {
	struct framecut *f;
	struct fdir *fd;
	int64_t cur;		/* stream offset of the next byte delivered */
	int64_t lo, hi;		/* the packet's payload, as stream offsets */
	int64_t keep_hi;	/* end of the packet's last byte to keep */
};

struct framecut {
	int linktype;
	size_t max_conns, nconns, nbuckets;
	struct fconn **tab;
	struct framecut_stats st;
	struct tcpr_stats tst;
	struct kcut *kc;	/* the kernel cut, or NULL */
};

struct framecut *
framecut_new(int linktype, size_t max_conns)
{
	struct framecut *f = xcalloc(1, sizeof *f);

	f->linktype = linktype;
	f->max_conns = max_conns ? max_conns : FRAMECUT_MAX_CONNS;
	f->nbuckets = 1024;
	while (f->nbuckets < f->max_conns)
		f->nbuckets <<= 1;
	f->tab = xcalloc(f->nbuckets, sizeof *f->tab);
	return f;
}

static void
on_data(void *ctx, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct judge *j = ctx;
	size_t k = wire_feed(&j->fd->wd, p, n, &j->f->st.wire);
	int64_t end = j->cur + (int64_t)k;

	(void)t_ns;
	if (k > 0 && j->cur < j->hi && end > j->lo && end > j->keep_hi)
		j->keep_hi = end < j->hi ? end : j->hi;
	j->cur += (int64_t)n;
}

static void
on_gap(void *ctx, uint64_t n, int64_t t_ns)
{
	struct judge *j = ctx;

	(void)t_ns;
	j->f->st.holes++;
	wire_gap(&j->fd->wd, n, &j->f->st.wire);
	j->cur += (int64_t)n;
}

/* Body the kernel left out: the framing skips it as it would skip uncaptured body. */
static void
on_cut(void *ctx, uint64_t n, int64_t t_ns)
{
	struct judge *j = ctx;
	uint64_t lost = j->f->st.wire.lost;

	(void)t_ns;
	wire_gap(&j->fd->wd, n, &j->f->st.wire);
	if (j->f->st.wire.lost != lost)
		j->f->st.kcut_mismatch++;
	j->cur += (int64_t)n;
}

/* Hand the kernel the body direction e of c skips next, or take back a range once the
 * framing is lost. The range starts at the next byte not yet delivered (never inside
 * the always kept prefix) and ends where the next header starts. */
static void
decide(struct framecut *f, struct fconn *c, int e)
{
	struct fdir *fd = &c->d[e];
	const struct pkt_key *k = &c->key;
	int af = k->af == AF_INET6 ? 6 : 4;
	const struct wire_dir *w = &fd->wd;
	/* an Open MPI or UCX direction is seeded as soon as the next header's place is known,
	 * even with no body ahead (the range is empty): the program follows from there */
	unsigned follow = w->proto == WIRE_OMPI ? KCUT_FOLLOW_OMPI :
			  w->proto == WIRE_MPICH ? KCUT_FOLLOW_UCX : 0;
	bool seed = follow != 0 && !fd->kset &&
		    (w->st == WS_SKIP || (w->st == WS_HDR && w->hlen == 0));

	if (f->kc == NULL || !fd->started || !fd->td.started)
		return;
	if (!fd->kchecked && w->st != WS_DETECT) {
		/* the kernel begins following at what looks like a handshake or UCX's magic:
		 * not one */
		fd->kchecked = true;
		fd->kself = follow != 0 && w->known;
		if (!fd->kself)
			kcut_del(f->kc, af, k->addr[e], k->addr[!e], k->port[e], k->port[!e]);
	}
	if (w->confirm == 0 && (seed || (w->st == WS_SKIP && w->left >= KCUT_MIN_SKIP)) &&
	    w->off >= WIRE_PREFIX && w->off == fd->td.next) {
		uint64_t left = w->st != WS_SKIP ? 0 :
				w->left < (UINT64_C(1) << 30) ? w->left : UINT64_C(1) << 30;
		uint32_t lo = fd->td.isn + (uint32_t)fd->td.next;
		uint32_t s = lo + (uint32_t)left;

		if (fd->kset && fd->ks == s)
			return;
		kcut_set(f->kc, af, k->addr[e], k->addr[!e], k->port[e], k->port[!e], lo, s,
			 follow);
		fd->kset = true;
		fd->ks = s;
	} else if ((fd->kset || fd->kself) && (w->st == WS_LOST || w->st == WS_OTHER)) {
		kcut_del(f->kc, af, k->addr[e], k->addr[!e], k->port[e], k->port[!e]);
		fd->kset = fd->kself = false;
	}
}

static void
count_dirs(struct framecut_stats *st, const struct fconn *c)
{
	for (int d = 0; d < 2; d++)
		if (c->d[d].started)
			st->dirs[c->d[d].wd.proto]++;
}

static struct fconn **
find(struct framecut *f, const struct pkt_key *k)
{
	struct fconn **pp = &f->tab[pkt_key_hash(k) & (f->nbuckets - 1)];

	while (*pp != NULL && memcmp(&(*pp)->key, k, sizeof *k) != 0)
		pp = &(*pp)->next;
	return pp;
}

static void
drop(struct framecut *f, struct fconn **pp)
{
	struct fconn *c = *pp;
	int af = c->key.af == AF_INET6 ? 6 : 4;

	count_dirs(&f->st, c);
	for (int e = 0; e < 2; e++)
		if (c->d[e].kset || c->d[e].kself)
			kcut_del(f->kc, af, c->key.addr[e], c->key.addr[!e], c->key.port[e],
				 c->key.port[!e]);
	*pp = c->next;
	tcpr_dir_release(&c->d[0].td);
	tcpr_dir_release(&c->d[1].td);
	free(c);
	f->nconns--;
}

size_t
framecut_keep(struct framecut *f, const uint8_t *p, size_t caplen, size_t origlen)
{
	struct pkt pk;
	struct pkt_key k;
	struct fconn **pp, *c;
	struct fdir *fd;
	struct judge j;
	struct tcpr_out out = { on_data, on_gap, f->kc ? on_cut : NULL, &j };
	size_t hdr, keep;
	int src;
	bool syn, cut_in;

	f->st.packets++;
	f->st.bytes_in += caplen;
	if (pkt_decode(f->linktype, p, caplen, origlen, &pk) != PKT_TCP ||
	    (pk.payload_len < pk.payload_wire && f->kc == NULL)) {
		f->st.bytes_kept += caplen;	/* not TCP, or cut already: as it is */
		return caplen;
	}
	cut_in = pk.payload_len < pk.payload_wire;	/* by the kernel: body it was told of */
	if (cut_in) {
		f->st.kcut_seen++;
		f->st.kcut_seen_bytes += pk.payload_wire - pk.payload_len;
	}
	hdr = (size_t)(pk.payload - p);
	syn = (pk.flags & PKT_TCP_SYN) != 0;
	keep = hdr + pk.payload_len;
	if (pk.payload_wire == 0 && !syn && !(pk.flags & (PKT_TCP_FIN | PKT_TCP_RST)))
		goto done;	/* a bare ACK: nothing to judge */
	pkt_key_make(&pk, &k, &src);
	pp = find(f, &k);
	c = *pp;
	if (c == NULL) {
		if (pk.payload_wire == 0 && !syn)
			goto done;	/* a FIN or RST of a connection not followed */
		if (f->nconns >= f->max_conns) {
			f->st.untracked++;
			goto done;
		}
		c = xcalloc(1, sizeof *c);
		c->key = k;
		c->syn_end = -1;
		tcpr_dir_init(&c->d[0].td, FRAMECUT_HOLD_BYTES, FRAMECUT_HOLD_SEGS);
		tcpr_dir_init(&c->d[1].td, FRAMECUT_HOLD_BYTES, FRAMECUT_HOLD_SEGS);
		*pp = c;
		f->nconns++;
		f->st.conns++;
	}
	if (syn && !(pk.flags & PKT_TCP_ACK))
		c->syn_end = src;
	fd = &c->d[src];
	if (!fd->started && (syn || pk.payload_wire > 0)) {
		fd->started = true;
		wire_init(&fd->wd, syn, c->syn_end >= 0 && c->syn_end != src, &f->st.wire);
	}
	memset(&j, 0, sizeof j);
	j.f = f;
	if (c->d[!src].td.started && (pk.flags & PKT_TCP_ACK)) {
		/* holes the peer acknowledged are not coming: the other direction goes on */
		j.fd = &c->d[!src];
		j.cur = (int64_t)j.fd->td.next;
		tcpr_dir_ack(&j.fd->td, pk.ack, 0, &out, &f->tst);
		decide(f, c, !src);
	}
	j.fd = fd;
	j.cur = (int64_t)fd->td.next;
	j.lo = fd->td.started ? tcpr_dir_offset(&fd->td, pk.seq + (syn ? 1 : 0)) : 0;
	j.hi = j.lo + (int64_t)pk.payload_len;
	j.keep_hi = j.lo;
	tcpr_dir_segment(&fd->td, pk.seq, pk.flags, pk.payload, pk.payload_len, pk.payload_wire, 0,
			 &out, &f->tst);
	decide(f, c, src);
	if (pk.payload_len > 0 && !cut_in) {
		if ((int64_t)fd->td.next < j.hi) {
			f->st.whole_ahead++;	/* held ahead of a hole: not judged yet */
		} else {
			keep = hdr + (size_t)(j.keep_hi - j.lo);
		}
	}
	if (pk.flags & PKT_TCP_FIN)
		fd->fin = true;
	if ((pk.flags & PKT_TCP_RST) || (c->d[0].fin && c->d[1].fin))
		drop(f, find(f, &k));
done:
	if (keep > caplen)
		keep = caplen;
	if (keep < caplen)
		f->st.cut++;
	f->st.bytes_kept += keep;
	return keep;
}

void
framecut_use_kcut(struct framecut *f, struct kcut *k)
{
	f->kc = k;
}

void
framecut_stats(const struct framecut *f, struct framecut_stats *out)
{
	*out = f->st;
	for (size_t b = 0; b < f->nbuckets; b++)
		for (const struct fconn *c = f->tab[b]; c != NULL; c = c->next)
			count_dirs(out, c);
}

void
framecut_free(struct framecut *f)
{
	if (f == NULL)
		return;
	for (size_t b = 0; b < f->nbuckets; b++)
		while (f->tab[b] != NULL)
			drop(f, &f->tab[b]);
	free(f->tab);
	free(f);
}
