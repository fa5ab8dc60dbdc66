/* tcpr: per-direction TCP reassembly with bounded buffering (RFC 9293 sequence space). */
#include "parse/tcpr.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "parse/pkt.h"

/* A segment further ahead than this from the next expected byte is not of this stream
 * (or the capture lost so much that waiting is pointless): it is ignored and counted. */
#define TCPR_WINDOW_BYTES ((uint64_t)1 << 30)

struct tcpr_seg {
	struct tcpr_seg *next;
	uint64_t off;		/* stream offset of data[0] */
	size_t len;		/* bytes */
	int64_t t_ns;		/* capture time of the packet that carried it */
	int64_t tag;		/* tcpr_dir.tag_in when it was handed in */
	bool missing;		/* bytes known to exist but not captured (snaplen cut) */
	uint8_t data[];		/* len bytes unless missing */
};

void
tcpr_dir_init(struct tcpr_dir *d, size_t max_buf_bytes, size_t max_segs)
{
	memset(d, 0, sizeof *d);
	d->max_buf_bytes = max_buf_bytes ? max_buf_bytes : TCPR_DEFAULT_MAX_BUF;
	d->max_segs = max_segs ? max_segs : TCPR_DEFAULT_MAX_SEGS;
	d->tag_in = d->tag_out = -1;
}

int64_t
tcpr_dir_offset(const struct tcpr_dir *d, uint32_t seq)
{
	uint32_t ref = d->isn + (uint32_t)d->next;	/* sequence number of d->next */
	int32_t delta = (int32_t)(seq - ref);

	return (int64_t)d->next + delta;
}

/* Advance a payload pointer that may be NULL (a segment with no captured bytes). */
static const uint8_t *
adv(const uint8_t *p, size_t n)
{
	return p == NULL ? NULL : p + n;
}

static void
emit_gap(struct tcpr_dir *d, uint64_t n, int64_t t_ns, const struct tcpr_out *out,
	 struct tcpr_stats *st)
{
	if (n == 0)
		return;
	st->gaps++;
	st->gap_bytes += n;
	d->next += n;
	out->gap(out->ctx, n, t_ns);
}

/* n bytes the capture cut on purpose (snaplen, or a framed capture's skipped payload). */
static void
emit_cut(struct tcpr_dir *d, uint64_t n, int64_t t_ns, const struct tcpr_out *out,
	 struct tcpr_stats *st)
{
	if (n == 0)
		return;
	if (out->cut == NULL) {
		emit_gap(d, n, t_ns, out, st);
		return;
	}
	st->cut_bytes += n;
	d->next += n;
	out->cut(out->ctx, n, t_ns);
}

static void
emit_data(struct tcpr_dir *d, const uint8_t *p, size_t n, int64_t t_ns, const struct tcpr_out *out,
	  struct tcpr_stats *st)
{
	if (n == 0)
		return;
	st->bytes_delivered += n;
	d->next += n;
	out->data(out->ctx, p, n, t_ns);
}

static void
drain(struct tcpr_dir *d, const struct tcpr_out *out, struct tcpr_stats *st)
{
	struct tcpr_seg *s;
	int64_t tag = d->tag_out;	/* the segment being handed in, if any */

	while ((s = d->head) != NULL && s->off == d->next) {
		d->head = s->next;
		d->held_bytes -= s->len;
		d->held_segs--;
		d->tag_out = s->tag;
		if (s->missing)
			emit_cut(d, s->len, s->t_ns, out, st);
		else
			emit_data(d, s->data, s->len, s->t_ns, out, st);
		free(s);
	}
	d->tag_out = tag;
}

/* Give up waiting for the first hole: deliver it as a gap, then what follows it. */
static void
skip_hole(struct tcpr_dir *d, const struct tcpr_out *out, struct tcpr_stats *st)
{
	if (d->head == NULL)
		return;
	emit_gap(d, d->head->off - d->next, d->head->t_ns, out, st);
	drain(d, out, st);
}

static void
hold(struct tcpr_seg **pp, struct tcpr_dir *d, uint64_t off, const uint8_t *p, size_t n,
     bool missing, int64_t t_ns)
{
	struct tcpr_seg *s = xmalloc(sizeof *s + (missing ? 0 : n));

	s->off = off;
	s->len = n;
	s->t_ns = t_ns;
	s->tag = d->tag_in;
	s->missing = missing;
	if (!missing)
		memcpy(s->data, p, n);
	s->next = *pp;
	*pp = s;
	d->held_bytes += n;
	d->held_segs++;
}

static size_t
count_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i, diff = 0;

	if (memcmp(a, b, n) == 0)
		return 0;
	for (i = 0; i < n; i++)
		diff += a[i] != b[i];
	return diff;
}

/* Hold [off, off+n) (off >= d->next) around what is already held: only the pieces not
 * held yet are added (the first copy wins). Returns true when any byte was held before. */
static bool
insert(struct tcpr_dir *d, uint64_t off, const uint8_t *p, size_t n, bool missing, int64_t t_ns,
       struct tcpr_stats *st)
{
	struct tcpr_seg **pp = &d->head;
	bool overlap = false;

	while (n > 0) {
		struct tcpr_seg *s = *pp;
		size_t k;

		if (s == NULL || off + n <= s->off) {
			hold(pp, d, off, p, n, missing, t_ns);
			break;
		}
		if (off < s->off) {
			k = (size_t)(s->off - off);
			hold(pp, d, off, p, k, missing, t_ns);
			pp = &(*pp)->next;
			off += k, n -= k;
			if (!missing)
				p = adv(p, k);
			continue;
		}
		if (off < s->off + s->len) {
			size_t in_s = (size_t)(off - s->off);

			k = (size_t)(s->off + s->len - off);
			if (k > n)
				k = n;
			overlap = true;
			st->retrans_bytes += k;
			if (!missing && !s->missing)
				st->conflict_bytes += count_diff(s->data + in_s, p, k);
			off += k, n -= k;
			if (!missing)
				p = adv(p, k);
		}
		pp = &s->next;
	}
	return overlap;
}

void
tcpr_dir_segment(struct tcpr_dir *d, uint32_t seq, uint8_t flags, const uint8_t *p, size_t caplen,
		 size_t wirelen, int64_t t_ns, const struct tcpr_out *out, struct tcpr_stats *st)
{
	int64_t soff;
	uint64_t off, end;
	size_t n;

	if (d->closed)
		return;
	d->tag_out = d->tag_in;
	if (caplen > wirelen)
		caplen = wirelen;
	if (!d->started) {
		if (!(flags & PKT_TCP_SYN) && wirelen == 0 && !(flags & PKT_TCP_FIN))
			return;	/* a bare ACK says nothing about where this direction's data starts */
		d->started = true;
		d->syn = (flags & PKT_TCP_SYN) != 0;
		d->isn = d->syn ? seq + 1 : seq;
	}
	if (flags & PKT_TCP_SYN)
		seq++;	/* the SYN takes one sequence number; data (if any) follows */
	soff = tcpr_dir_offset(d, seq);
	if (wirelen > 0)
		st->segments++;
	if (soff < 0) {
		size_t before = (size_t)((uint64_t)-soff < wirelen ? (uint64_t)-soff : wirelen);

		st->before_start_bytes += before;
		soff = 0;
		if (before >= caplen)
			caplen = 0, p = NULL;
		else
			p = adv(p, before), caplen -= before;
		wirelen -= before;
	}
	off = (uint64_t)soff;
	if (off > d->next + TCPR_WINDOW_BYTES) {
		st->before_start_bytes += wirelen;	/* far outside the stream: not ours */
		return;
	}
	end = off + wirelen;
	if ((flags & PKT_TCP_FIN) && !d->fin) {
		d->fin = true;
		d->fin_off = end;
	}
	if (d->fin && end > d->fin_off) {
		uint64_t past = end - (off > d->fin_off ? off : d->fin_off);

		st->after_fin_bytes += past;
		wirelen -= (size_t)past;
		if (caplen > wirelen)
			caplen = wirelen;
		end = off + wirelen;
	}
	if (wirelen == 0)
		return;
	if (caplen < wirelen)
		st->cut_segs++;
	/* the part already delivered: a retransmission (first copy won) */
	if (off < d->next) {
		uint64_t old = d->next - off;

		st->retrans_segs++;
		if (old >= wirelen) {
			st->retrans_bytes += wirelen;
			return;
		}
		st->retrans_bytes += old;
		if (old >= caplen)
			caplen = 0, p = NULL;
		else
			p = adv(p, (size_t)old), caplen -= (size_t)old;
		wirelen -= (size_t)old;
		off = d->next;
	}
	/* in order: hand over directly the bytes before the first held segment */
	if (off == d->next) {
		uint64_t room = d->head ? d->head->off - off : UINT64_MAX;

		n = caplen < room ? caplen : (size_t)room;
		emit_data(d, p, n, t_ns, out, st);
		p = adv(p, n), caplen -= n, wirelen -= n, off += n;
		if (caplen == 0 && wirelen > 0 && d->head == NULL) {
			emit_cut(d, wirelen, t_ns, out, st);	/* the snaplen cut */
			return;
		}
		if (wirelen == 0) {
			drain(d, out, st);
			return;
		}
	} else {
		st->ooo_segs++;
	}
	/* keep the held bytes and segments under their caps */
	while (d->head != NULL && (d->held_bytes + wirelen > d->max_buf_bytes ||
				   d->held_segs + 2 > d->max_segs)) {
		st->cap_hits++;
		skip_hole(d, out, st);
	}
	if (off < d->next) {	/* skipping holes delivered past the start of this segment */
		uint64_t old = d->next - off;

		if (old >= wirelen) {
			st->retrans_bytes += wirelen;
			return;
		}
		if (old >= caplen)
			caplen = 0, p = NULL;
		else
			p = adv(p, (size_t)old), caplen -= (size_t)old;
		wirelen -= (size_t)old;
		off = d->next;
	}
	if (d->head == NULL && wirelen > d->max_buf_bytes) {
		st->cap_hits++;
		emit_gap(d, off - d->next, t_ns, out, st);
		emit_data(d, p, caplen, t_ns, out, st);
		emit_cut(d, wirelen - caplen, t_ns, out, st);
		return;
	}
	{
		bool ov = false;

		if (caplen > 0)
			ov |= insert(d, off, p, caplen, false, t_ns, st);
		if (wirelen > caplen)
			ov |= insert(d, off + caplen, NULL, wirelen - caplen, true, t_ns, st);
		if (ov)
			st->retrans_segs++;
	}
	drain(d, out, st);
	/* one segment may have been held as several pieces around older ones */
	while (d->head != NULL && d->held_segs > d->max_segs) {
		st->cap_hits++;
		skip_hole(d, out, st);
	}
}

void
tcpr_dir_ack(struct tcpr_dir *d, uint32_t ack, int64_t t_ns, const struct tcpr_out *out,
	     struct tcpr_stats *st)
{
	int64_t aoff;

	(void)t_ns;
	if (!d->started || d->closed || d->head == NULL)
		return;
	aoff = tcpr_dir_offset(d, ack);
	while (d->head != NULL && aoff > 0 && d->head->off <= (uint64_t)aoff) {
		st->acked_holes++;
		skip_hole(d, out, st);
	}
}

void
tcpr_dir_flush(struct tcpr_dir *d, int64_t t_ns, const struct tcpr_out *out, struct tcpr_stats *st)
{
	(void)t_ns;
	while (d->head != NULL)
		skip_hole(d, out, st);
	d->closed = true;
}

void
tcpr_dir_release(struct tcpr_dir *d)
{
	struct tcpr_seg *s, *n;

	for (s = d->head; s != NULL; s = n) {
		n = s->next;
		free(s);
	}
	d->head = NULL;
	d->held_bytes = 0;
	d->held_segs = 0;
}
