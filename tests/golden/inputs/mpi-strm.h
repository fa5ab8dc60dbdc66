/* mpi-strm: test helpers for the MPI decoders: load a stream file written by mpi-extract.py
 * and its .expect list, replay it through a decoder in pieces of random sizes, and collect
 * the messages. Included by tests/unit/test_ompi.c and test_mpich.c only. */
#ifndef TESTS_MPI_STRM_H
#define TESTS_MPI_STRM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gzio.h"
#include "lib/xalloc.h"
#include "parse/msg.h"

struct strm_rec {
	int dir;		/* 0 initiator -> acceptor, 1 back */
	int gap;		/* 1: len bytes missing, no payload */
	int64_t t_ns;
	uint32_t len;
	uint8_t *p;		/* owned, NULL for gaps */
};

struct strm {
	uint16_t port[2];
	int syn;
	struct strm_rec *r;
	size_t n, cap;
};

struct exp_msg {
	int dir, cid, src, tag;
	uint64_t bytes;
	char proto[16];
};

struct got {
	struct msg *m;
	size_t n, cap;
};

/* Path of a file under tests/golden/inputs, from $TOP (set by tests/run.sh) or ".". */
static inline char *
strm_path(const char *name)
{
	const char *top = getenv("TOP");

	return xasprintf("%s/tests/golden/inputs/%s", top ? top : ".", name);
}

static inline long
strm_read(struct gzr *g, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		long k = gzr_read(g, (uint8_t *)p + got, n - got, NULL);

		if (k <= 0)
			return got ? (long)got : k;
		got += (size_t)k;
	}
	return (long)got;
}

/* Load name into s; 0 or -1. */
static inline int
strm_load(const char *name, struct strm *s)
{
	char *path = strm_path(name);
	struct gzr *g = gzr_open(path, NULL);
	uint8_t h[13];

	free(path);
	memset(s, 0, sizeof *s);
	if (g == NULL)
		return -1;
	if (strm_read(g, h, 13) != 13 || memcmp(h, "MPISTRM1", 8) != 0) {
		gzr_close(g);
		return -1;
	}
	s->port[0] = (uint16_t)(h[8] | h[9] << 8);
	s->port[1] = (uint16_t)(h[10] | h[11] << 8);
	s->syn = h[12];
	for (;;) {
		uint8_t rh[13];
		struct strm_rec *r;
		uint64_t t = 0;
		int i;

		if (strm_read(g, rh, 13) != 13)
			break;
		s->r = xgrow(s->r, &s->cap, s->n + 1, sizeof *s->r);
		r = &s->r[s->n++];
		r->dir = rh[0] & 1;
		r->gap = (rh[0] & 0x80) != 0;
		for (i = 7; i >= 0; i--)
			t = t << 8 | rh[1 + i];
		r->t_ns = (int64_t)t;
		r->len = (uint32_t)rh[9] | (uint32_t)rh[10] << 8 | (uint32_t)rh[11] << 16 |
			 (uint32_t)rh[12] << 24;
		r->p = NULL;
		if (!r->gap) {
			r->p = xmalloc(r->len ? r->len : 1);
			if (strm_read(g, r->p, r->len) != (long)r->len) {
				gzr_close(g);
				return -1;
			}
		}
	}
	gzr_close(g);
	return 0;
}

static inline void
strm_free(struct strm *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->r[i].p);
	free(s->r);
	memset(s, 0, sizeof *s);
}

/* Load the .expect list; returns the count, or -1. Caller frees *e. */
static inline long
expect_load(const char *name, struct exp_msg **e)
{
	char *path = strm_path(name), line[256];
	FILE *f = fopen(path, "r");
	size_t n = 0, cap = 0;

	free(path);
	*e = NULL;
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f)) {
		struct exp_msg x;
		unsigned long long b;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%d %d %d %d %llu %15s", &x.dir, &x.cid, &x.src, &x.tag, &b,
			   x.proto) != 6)
			continue;
		x.bytes = b;
		*e = xgrow(*e, &cap, n + 1, sizeof **e);
		(*e)[n++] = x;
	}
	fclose(f);
	return (long)n;
}

static void
got_emit(void *ctx, const struct msg *m)
{
	struct got *g = ctx;

	g->m = xgrow(g->m, &g->cap, g->n + 1, sizeof *g->m);
	g->m[g->n++] = *m;
}

static inline uint32_t
strm_rand(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Replay s through dec in random pieces (seed 0: whole records); messages into g. */
static inline void
strm_run(const struct decoder *dec, const struct strm *s, uint32_t seed, struct got *g,
	 struct dec_stats *st, int32_t ranks[2])
{
	static const uint32_t maxpiece[] = { 1, 2, 5, 13, 64, 1500, 100000 };
	struct conn_info ci;
	struct msg_sink sink = { got_emit, g };
	void *state;
	size_t i;
	uint32_t x = seed ? seed : 1;

	memset(&ci, 0, sizeof ci);
	memset(st, 0, sizeof *st);
	ci.conn = 7;
	ci.af = 2;
	ci.port[0] = s->port[0];
	ci.port[1] = s->port[1];
	ci.saw_syn = s->syn != 0;
	ci.rank[0] = ci.rank[1] = -1;
	state = dec->open(&ci, &sink, st);
	for (i = 0; i < s->n; i++) {
		const struct strm_rec *r = &s->r[i];
		uint32_t off = 0, mp = maxpiece[strm_rand(&x) % 7];

		if (r->gap) {
			dec->gap(state, r->dir, r->len, r->t_ns);
			continue;
		}
		while (off < r->len) {
			uint32_t k = seed ? 1 + strm_rand(&x) % mp : r->len;

			if (k > r->len - off)
				k = r->len - off;
			dec->data(state, r->dir, r->p + off, k, r->t_ns);
			off += k;
		}
	}
	if (ranks && dec->ranks)
		dec->ranks(state, ranks);
	dec->close(state, s->n ? s->r[s->n - 1].t_ns : 0);
}

/* Messages of direction dir, in order, into out (caller frees); returns the count. */
static inline size_t
got_dir(const struct got *g, int dir, struct msg **out)
{
	size_t i, n = 0;

	*out = xcalloc(g->n + 1, sizeof **out);
	for (i = 0; i < g->n; i++)
		if (g->m[i].dir == dir)
			(*out)[n++] = g->m[i];
	return n;
}

/* What strm_check expects of one decoder. */
struct strm_want {
	const struct decoder *dec;
	uint32_t seed_mul;		/* piece-size seeds are seed * seed_mul */
	enum rank_src ranksrc;		/* how the decoder learns ranks */
	enum msg_mpi mpi;
	uint64_t min_hdr_bytes;		/* wire bytes a message takes beyond its payload, at least */
};

/* Compare what want->dec rebuilt from name with name's .expect list, under seeds
 * 0..nseeds-1 of random piece sizes; w0/w1 are the world ranks of the two ends.
 * Needs tests/unit/check.h (CHECK) included first. */
static void
strm_check(const struct strm_want *want, const char *name, const char *expect, int w0, int w1,
	   int nseeds)
{
	struct strm s;
	struct exp_msg *e;
	long ne = expect_load(expect, &e);
	uint32_t seed;

	CHECK(strm_load(name, &s) == 0);
	CHECK(ne > 0);
	if (ne <= 0 || s.n == 0)
		return;
	for (seed = 0; seed < (uint32_t)nseeds; seed++) {
		struct got g = { 0 };
		struct dec_stats st;
		int32_t ranks[2];
		int d;
		long k = 0;

		strm_run(want->dec, &s, seed * want->seed_mul, &g, &st, ranks);
		CHECK(g.n == (size_t)ne);
		CHECK(st.msgs == (uint64_t)ne);
		CHECK(st.bad == 0 && st.resyncs == 0 && st.fallback == 0 && st.gaps == 0);
		CHECK(ranks[0] == w0 && ranks[1] == w1);
		for (d = 0; d < 2; d++) {
			struct msg *m;
			size_t n = got_dir(&g, d, &m), i;

			for (i = 0; i < n && k < ne; i++, k++) {
				const struct exp_msg *x = &e[k];

				CHECK(x->dir == d);
				CHECK(m[i].cid == x->cid);
				CHECK(m[i].comm_src == x->src);
				CHECK(m[i].tag == x->tag);
				CHECK(m[i].bytes == x->bytes);
				CHECK_STR(msg_proto_name(m[i].proto), x->proto);
				CHECK(m[i].src_world == (d ? w1 : w0));
				CHECK(m[i].dst_world == (d ? w0 : w1));
				CHECK(m[i].ranksrc == want->ranksrc);
				CHECK(m[i].mpi == want->mpi && m[i].conn == 7 && m[i].flags == 0);
				CHECK(m[i].t_first_ns > 0 && m[i].t_first_ns <= m[i].t_last_ns);
				CHECK(m[i].wire_bytes >= m[i].bytes + want->min_hdr_bytes);
			}
			free(m);
		}
		CHECK(k == ne);
		free(g.m);
	}
	free(e);
	strm_free(&s);
}

/* What a UCX stream of mpi-known.c must hold, as the program says: world rank 1 initiated
 * the connection, so rank 0's messages travel in direction 1 and rank 1's one point-to-point
 * message (tag 8, 1000 bytes) in direction 0. */
struct known_msg {
	int cid, src, tag;
	uint64_t bytes;
	const char *proto;
};

/* Replay name through dec and check rank 0's point-to-point messages against want[0..nwant)
 * in order, rank 1's tag 8, and that the collectives (MPICH: odd context ids; Open MPI:
 * negative tags) are named, barrier, bcast and allreduce among them. */
static inline void
strm_check_known(const struct decoder *dec, enum msg_mpi mpi, const char *name,
		 const struct known_msg *want, size_t nwant)
{
	struct strm s;
	struct got g = { 0 };
	struct dec_stats st;
	size_t i, w = 0;
	int saw_barrier = 0, saw_bcast = 0, saw_allreduce = 0, saw_8 = 0;

	CHECK(strm_load(name, &s) == 0);
	strm_run(dec, &s, 777, &g, &st, NULL);
	for (i = 0; i < g.n; i++) {
		const struct msg *m = &g.m[i];
		const char *cn = msg_tag_name_cid(mpi, m->cid, m->tag);

		CHECK(m->mpi == mpi);
		if (mpi == MSG_MPICH ? (m->cid & 1) != 0 : m->tag < 0) {	/* collectives */
			CHECK(cn != NULL);
			saw_barrier |= cn && strcmp(cn, "barrier") == 0 && m->bytes == 0;
			saw_bcast |= cn && strcmp(cn, "bcast") == 0 && m->bytes == 1000;
			saw_allreduce |= cn && strcmp(cn, "allreduce") == 0;
			continue;
		}
		CHECK(cn == NULL);
		if (m->dir == 0) {
			CHECK(m->tag == 8 && m->bytes == 1000 && m->src_world == 1 && m->dst_world == 0);
			saw_8++;
			continue;
		}
		CHECK(w < nwant);
		if (w >= nwant)
			break;
		CHECK(m->cid == want[w].cid);
		CHECK(m->comm_src == want[w].src);
		CHECK(m->tag == want[w].tag);
		CHECK(m->bytes == want[w].bytes);
		CHECK_STR(msg_proto_name(m->proto), want[w].proto);
		CHECK(m->src_world == 0 && m->dst_world == 1);
		w++;
	}
	CHECK(w == nwant);
	CHECK(saw_8 == 1);
	CHECK(saw_barrier && saw_bcast && saw_allreduce);
	free(g.m);
	strm_free(&s);
}

#endif
