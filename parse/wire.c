/* wire: the bytes of an MPI byte stream the decoders read (see wire.h). */
#include "parse/wire.h"

#include <string.h>

#include "parse/mpich.h"
#include "parse/msg.h"
#include "parse/ompi.h"

#define DETECT_LEN OMPI_HS_LEN	/* enough to tell either protocol's first bytes */
#define DETECT_SURE 100		/* a decoder's detect() score for a stream start it is sure of */
#define MPICH_REPLY_SCORE 60	/* mpich_detect: the acceptor's connection reply */

static int
frame(enum wire_proto p, const uint8_t *b, size_t n, uint64_t *total, uint64_t *keep)
{
	return p == WIRE_OMPI ? ompi_frame(b, n, total, keep) : mpich_record(b, n, total, keep);
}

static bool
plausible(enum wire_proto p, const uint8_t *b, size_t n)
{
	if (p == WIRE_OMPI)	/* a SEND frame: count 0 (bytes 2-3) */
		return n > 3 && b[1] == 1 && b[2] == 0 && b[3] == 0 && ompi_frame_plausible(b, n);
	return n > 4 && b[4] == 0 && mpich_record_plausible(b, n);	/* len < 16 MiB */
}

static void
lose(struct wire_dir *w, struct wire_stats *st)
{
	if (!w->known)
		w->proto = WIRE_UNKNOWN;	/* a candidate that did not hold */
	w->st = WS_LOST;
	w->hlen = 0;
	w->confirm = 0;
	w->scanned = 0;
	st->lost++;
}

void
wire_init(struct wire_dir *w, bool from_start, bool acceptor, struct wire_stats *st)
{
	memset(w, 0, sizeof *w);
	w->acceptor = acceptor;
	w->st = WS_DETECT;
	if (!from_start)
		lose(w, st);
}

/* The first DETECT_LEN bytes are in w->hdr: name the protocol and set where its framing
 * starts. */
static void
detect(struct wire_dir *w)
{
	int dir = w->acceptor ? 1 : 0;
	int s;

	w->st = WS_HDR;
	w->known = true;
	if (dec_ompi.detect(w->hdr, w->hlen, dir) >= DETECT_SURE) {
		w->proto = WIRE_OMPI;
		w->st = WS_KEEP;
		w->left = OMPI_HS_LEN;
		w->skip_after = 0;
		return;
	}
	s = dec_mpich.detect(w->hdr, w->hlen, dir);
	if (s >= DETECT_SURE) {
		w->proto = WIRE_MPICH;
		w->st = WS_KEEP;
		w->left = MPICH_MAGIC_LEN;
		w->skip_after = 0;
	} else if (s >= MPICH_REPLY_SCORE) {
		w->proto = WIRE_MPICH;
	} else {
		w->proto = WIRE_OTHER;
		w->st = WS_OTHER;
	}
}

/* Search p[0..n) for a believable header; returns its index, or n. */
static size_t
scan(struct wire_dir *w, const uint8_t *p, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		if ((w->proto == WIRE_OMPI || w->proto == WIRE_UNKNOWN) &&
		    plausible(WIRE_OMPI, p + j, n - j)) {
			w->proto = WIRE_OMPI;
			return j;
		}
		if ((w->proto == WIRE_MPICH || w->proto == WIRE_UNKNOWN) &&
		    plausible(WIRE_MPICH, p + j, n - j)) {
			w->proto = WIRE_MPICH;
			return j;
		}
	}
	return n;
}

/* A header whose last byte came: judged at once, so that a cut right after it (a capture
 * that kept up to there) lands in its body. */
static bool
hdr_ready(const struct wire_dir *w)
{
	uint64_t total, keep;

	return w->st == WS_HDR && w->hlen > 0 && frame(w->proto, w->hdr, w->hlen, &total, &keep) <= 0;
}

/* A whole header was read (its frame or record total bytes, the first rkeep of them
 * kept): what follows it. */
static void
hdr_done(struct wire_dir *w, uint64_t total, uint64_t rkeep, struct wire_stats *st)
{
	w->hlen = 0;
	if (w->confirm > 0 && --w->confirm == 0) {
		st->found++;
		w->known = true;
	}
	w->left = total - rkeep;
	w->st = w->left > 0 ? WS_SKIP : WS_HDR;
}

/* Feed p[0..n) to the framing; returns the end of the last byte to keep. */
static size_t
run(struct wire_dir *w, const uint8_t *p, size_t n, struct wire_stats *st)
{
	size_t i = 0, keep = 0;

	while (i < n || hdr_ready(w)) {
		size_t avail = n - i, k;

		switch (w->st) {
		case WS_DETECT: {
			uint8_t first[DETECT_LEN];
			size_t nfirst;

			k = DETECT_LEN - w->hlen < avail ? DETECT_LEN - w->hlen : avail;
			memcpy(w->hdr + w->hlen, p + i, k);
			w->hlen += k, i += k, keep = i;
			if (w->hlen < DETECT_LEN)
				break;
			detect(w);
			nfirst = w->hlen;
			memcpy(first, w->hdr, nfirst);
			w->hlen = 0;
			if (w->st != WS_OTHER)
				run(w, first, nfirst, st);	/* kept whole: the prefix */
			break;
		}
		case WS_HDR: {
			uint64_t total, rkeep;
			int need;

			/* A header wholly in p is judged in place rather than collected stage
			 * by stage into w->hdr: frame() reads the same bytes either way, once
			 * instead of once a stage. A header that fails or goes past p is
			 * collected as below (a failure is judged where the stages leave it). */
			if (w->hlen == 0 && avail > 0 &&
			    frame(w->proto, p + i, avail < WIRE_HDR_MAX ? avail : WIRE_HDR_MAX, &total,
				  &rkeep) == 0) {
				i += (size_t)rkeep, keep = i;
				hdr_done(w, total, rkeep, st);
				break;
			}
			need = frame(w->proto, w->hdr, w->hlen, &total, &rkeep);

			if (need > 0) {
				if ((size_t)need > WIRE_HDR_MAX) {
					lose(w, st);
					break;
				}
				k = (size_t)need - w->hlen < avail ? (size_t)need - w->hlen : avail;
				memcpy(w->hdr + w->hlen, p + i, k);
				w->hlen += k, i += k, keep = i;
				break;
			}
			if (need < 0) {
				lose(w, st);
				break;
			}
			hdr_done(w, total, rkeep, st);
			break;
		}
		case WS_KEEP:
			k = w->left < avail ? (size_t)w->left : avail;
			w->left -= k, i += k, keep = i;
			if (w->left == 0) {
				w->left = w->skip_after;
				w->st = w->left > 0 ? WS_SKIP : WS_HDR;
			}
			break;
		case WS_SKIP:
			k = w->left < avail ? (size_t)w->left : avail;
			w->left -= k, i += k;
			if (w->confirm > 0) {
				keep = i;
				st->lost_bytes += k;
			}
			if (w->left == 0)
				w->st = WS_HDR;
			break;
		case WS_LOST:
			k = scan(w, p + i, avail);
			w->scanned += k;
			st->lost_bytes += k;
			i += k, keep = i;
			if (k < avail) {
				w->st = WS_HDR;
				w->hlen = 0;
				w->confirm = WIRE_CONFIRM;
			} else if (w->scanned > WIRE_SCAN_MAX) {
				w->st = WS_OTHER;
				st->gave_up++;
			}
			break;
		case WS_OTHER:
			i = n;
			break;
		}
	}
	return keep;
}

size_t
wire_feed(struct wire_dir *w, const uint8_t *p, size_t n, struct wire_stats *st)
{
	size_t keep = run(w, p, n, st);

	if (w->off < WIRE_PREFIX) {
		uint64_t pre = WIRE_PREFIX - w->off;

		if (pre > keep)
			keep = pre < n ? (size_t)pre : n;
	}
	w->off += n;
	return keep;
}

void
wire_gap(struct wire_dir *w, uint64_t n, struct wire_stats *st)
{
	w->off += n;
	switch (w->st) {
	case WS_SKIP:
		if (n < w->left) {
			w->left -= n;
			return;
		}
		if (n == w->left) {
			w->left = 0;
			w->st = WS_HDR;
			return;
		}
		lose(w, st);
		return;
	case WS_LOST:
		w->scanned += n;
		return;
	case WS_OTHER:
		return;
	case WS_DETECT:
		w->hlen = 0;
		lose(w, st);	/* the protocol is unknown: both are searched for */
		return;
	case WS_HDR:
	case WS_KEEP:
		lose(w, st);
		return;
	}
}

const char *
wire_proto_name(enum wire_proto p)
{
	switch (p) {
	case WIRE_OMPI: return "ompi";
	case WIRE_MPICH: return "mpich";
	case WIRE_OTHER: return "other";
	case WIRE_UNKNOWN: break;
	}
	return "unknown";
}
