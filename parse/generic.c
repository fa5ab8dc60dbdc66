/* generic: runs of bytes in one direction as messages (paper 003, Section 3.1). */
#include "parse/generic.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/xalloc.h"
#include "parse/msg.h"

static int64_t idle_gap_ns = GENERIC_DEFAULT_IDLE_GAP_NS;	/* see generic_set_idle_gap */

struct generic {
	struct msg_sink sink;
	struct dec_stats *st;
	int conn;
	int64_t idle_gap_ns;
	int32_t rank[2];	/* from conn_info (socket map), -1 unknown */
	int open_dir;		/* direction of the open run, -1 none */
	const int64_t *ts_now;	/* conn_info.ts_now */
	struct msg m;		/* the open run */
};

void
generic_set_idle_gap(int64_t ns)
{
	if (ns > 0)
		idle_gap_ns = ns;
}

int64_t
generic_idle_gap(void)
{
	return idle_gap_ns;
}

static int
generic_detect(const uint8_t *p, size_t n, int dir)
{
	(void)p, (void)n, (void)dir;
	return 1;	/* anything, as the last resort */
}

static void *
generic_open(const struct conn_info *ci, const struct msg_sink *sink, struct dec_stats *st)
{
	struct generic *g = xcalloc(1, sizeof *g);

	g->sink = *sink;
	g->st = st;
	g->conn = ci->conn;
	g->rank[0] = ci->rank[0];
	g->rank[1] = ci->rank[1];
	g->idle_gap_ns = idle_gap_ns;
	g->open_dir = -1;
	g->ts_now = ci->ts_now;
	return g;
}

static void
finish(struct generic *g)
{
	if (g->open_dir < 0)
		return;
	g->st->msgs++;
	g->sink.emit(g->sink.ctx, &g->m);
	g->open_dir = -1;
}

static void
start(struct generic *g, int dir, int64_t t_ns)
{
	struct msg *m = &g->m;

	m->t_first_ns = t_ns;
	m->t_last_ns = t_ns;
	m->tsval = g->ts_now != NULL ? g->ts_now[dir] : -1;
	m->queued_ns = -1;
	m->src_world = g->rank[dir];
	m->dst_world = g->rank[!dir];
	m->cid = -1;
	m->comm_src = -1;
	m->tag = INT32_MIN;
	m->bytes = 0;
	m->wire_bytes = 0;
	m->mpi = MSG_GENERIC;
	m->proto = PROTO_UNKNOWN;
	m->ranksrc = (m->src_world >= 0 || m->dst_world >= 0) ? RANKSRC_SOCKMAP : RANKSRC_NONE;
	m->flags = 0;
	m->conn = g->conn;
	m->dir = dir;
	g->open_dir = dir;
}

/* Extend or start the run of direction dir with n bytes seen at t_ns. */
static struct msg *
run_for(struct generic *g, int dir, int64_t t_ns)
{
	if (g->open_dir >= 0 && (g->open_dir != dir || t_ns - g->m.t_last_ns > g->idle_gap_ns))
		finish(g);
	if (g->open_dir < 0)
		start(g, dir, t_ns);
	if (t_ns > g->m.t_last_ns)
		g->m.t_last_ns = t_ns;
	return &g->m;
}

static void
generic_data(void *state, int dir, const uint8_t *p, size_t n, int64_t t_ns)
{
	struct msg *m = run_for(state, dir & 1, t_ns);

	(void)p;
	m->bytes += n;
	m->wire_bytes += n;
}

static void
generic_gap(void *state, int dir, uint64_t n, int64_t t_ns)
{
	struct generic *g = state;
	struct msg *m = run_for(g, dir & 1, t_ns);

	g->st->gaps++;
	m->bytes += n;
	m->wire_bytes += n;
	m->flags |= MSG_F_GAP;
}

/* Bytes a capture left out on purpose: their length is all this decoder reads. */
static void
generic_skip(void *state, int dir, uint64_t n, int64_t t_ns)
{
	struct msg *m = run_for(state, dir & 1, t_ns);

	m->bytes += n;
	m->wire_bytes += n;
}

static void
generic_close(void *state, int64_t t_ns)
{
	struct generic *g = state;

	(void)t_ns;
	finish(g);
	free(g);
}

static void
generic_ranks(void *state, int32_t rank[2])
{
	struct generic *g = state;

	rank[0] = g->rank[0];
	rank[1] = g->rank[1];
}

const struct decoder dec_generic = {
	.name = "generic",
	.detect = generic_detect,
	.open = generic_open,
	.data = generic_data,
	.gap = generic_gap,
	.skip = generic_skip,
	.close = generic_close,
	.ranks = generic_ranks,
};
