/* parse stage: captures and samples in, RUN/profile/ out (the logic of `contend parse`). */
#include "parse/stage.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "lib/clock.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/ordq.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "parse/coverage.h"
#include "parse/flows.h"
#include "parse/generic.h"
#include "parse/msg.h"
#include "parse/part.h"
#include "parse/pcapin.h"
#include "parse/phases.h"
#include "parse/rollup.h"
#include "parse/rankmap.h"
#include "parse/tail.h"
#include "parse/tcpr.h"

#define WARN_KEEP 1000		/* warning messages kept for warnings.tsv (all are counted) */

#define PARSE_MAX_EVENTS (1u << 23)	/* send and arrival times kept for the waits */

/* One rank's message times, for the waits of parse/phases.h. */
struct rank_times {
	int64_t *send_ns, *arr_ns;
	size_t nsend, narr, csend, carr;	/* counts and allocated entries */
};

/* Messages are formatted into messages.tsv's rows on -j threads, a batch at a time, and
 * written in the order they came: the same file whatever the thread count. */
#define ROW_BATCH 4096			/* messages per batch */
#define ROW_BATCHES 8			/* batches at the row threads at once */
#define ROW_BATCH_MAX (64u << 20)	/* bytes of one batch's rows (about 100 a row) */

struct msg_batch {
	struct msg m[ROW_BATCH];
	size_t n;			/* messages in m */
	struct buf rows;		/* their rows, made by msg_batch_run */
	int rc;				/* 0, or negative with e set: the rows do not fit */
	struct err e;
};

struct ctx {
	const struct parse_opts *o;
	struct tsv_w msgs, conns;
	struct ordq *rowq;		/* batches of messages being formatted */
	struct msg_batch *batch;	/* the one being filled, or NULL */
	struct msg_batch *batch_free[ROW_BATCHES + 1];	/* batches not in use */
	size_t nbatch_free;
	struct rollup prof;
	struct rankmap *rm;
	int warnings;			/* partial-result warnings printed */
	char **warn_msgs;		/* their messages, for warnings.tsv (the first WARN_KEEP) */
	size_t nwarn_msgs, warn_cap;
	struct err werr;		/* first write error */
	bool write_failed;
	uint64_t ranks_unsampled;	/* ranks left out of ranks.tsv: no CPU samples */
	uint64_t links_unsampled, links_unsampled_msgs;	/* links left out with them */
	uint64_t pcap_files, pcap_truncated, pcap_damaged, pcap_unreadable;
	/* messages of connections captured at both ends (parse/part.h, struct part_sum) */
	uint64_t twin_msgs, twin_first, twin_last, twin_unmatched;
	/* messages whose first segment waited in its sender's outgoing queue (msg.queued_ns) */
	uint64_t msgs_queued, queued_ns, msgs_queue_unknown;
	/* rendezvous messages answered behind their receiver's own data (MSG_F_BEHIND), asked
	 * after answering the receiver (MSG_F_AFTER_ANSWER) */
	uint64_t msgs_behind, msgs_after_answer;
	uint64_t samples_files, samples_failed, samples_bad_rows, samples_truncated;
	uint64_t samples_damaged;	/* files whose gzip data is damaged: rows before it kept */
	uint64_t samples_rejected;	/* files with too many bad rows to be used */
	uint64_t samples_out_of_run;	/* rows whose t_mono_ns is outside their rank's run */
	uint64_t samples_system_idle;	/* intervals idle only by the user-share weighting */
	uint64_t samples_utime_ticks, samples_stime_ticks;
	uint64_t samples_polling;	/* intervals idle because the trace says the rank waited */
	struct rank_times *times;	/* per world rank: its send and arrival times */
	size_t ntimes;			/* entries of times */
	uint64_t nevents;		/* times kept, all ranks */
	uint64_t events_capped;		/* times past PARSE_MAX_EVENTS, not kept */
	bool see_local;			/* RUN/meta/run.tsv: collected with --see-local */
	char launcher[16];		/* RUN/meta/run.tsv's launcher, "" unknown */
	uint64_t ucx_ompi_like;		/* MPICH-read UCX messages with context id 65535 */
	int64_t run_last_msg_ns;	/* the run's last message's last byte, INT64_MIN none */
	int64_t run_gap_ns;		/* the run's longest gap between message times when a
					 * rank did not end on its own (parse/tail.h), 0 */
	uint64_t tail_hung, tail_cut;	/* ranks whose end hung (parse/tail.h); of them cut */
	char tail_list[256];		/* "R=SECONDS,..." of the hung ranks, for stats.tsv */
	struct cov_stats cov;		/* which rank pairs the capture could see */
	char cov_note[COV_NOTE_MAX + 16];
};

static const char *const msg_cols[] = { "t_first_ns", "t_last_ns", "src", "dst", "cid", "comm_src",
	"tag", "tag_name", "bytes", "wire_bytes", "mpi", "proto", "ranksrc", "flags", "conn", "queued_ns",
	NULL };
static const char *const conn_cols[] = { "conn", "kind", "ip0", "port0", "ip1", "port1", "rank0",
	"rank1", "ranksrc", "saw_syn", "pkts0", "frame_bytes0", "payload_bytes0", "gap_bytes0", "pkts1",
	"frame_bytes1", "payload_bytes1", "gap_bytes1", "t_first_ns", "t_last_ns", "rtt_ns", "ttl0",
	"ttl1", "mac0", "mac1", "vlan", NULL };

static void
warn_partial(struct ctx *c, const char *msg)
{
	if (c->o->table != NULL)
		fflush(c->o->table);	/* a warning about the table comes after it */
	warnx_("parse: %s", msg);
	c->warnings++;
	if (c->nwarn_msgs < WARN_KEEP) {
		c->warn_msgs = xgrow(c->warn_msgs, &c->warn_cap, c->nwarn_msgs + 1, sizeof *c->warn_msgs);
		c->warn_msgs[c->nwarn_msgs++] = xstrdup(msg);
	}
}

/* warn_partial for a callback (err_sayf, the framing engine, phases). */
static void
say_partial(void *c, const char *msg)
{
	warn_partial(c, msg);
}

static void
flags_str(unsigned f, char *out, size_t len)
{
	snprintf(out, len, "%s%s%s%s%s%s", f & MSG_F_GAP ? "gap," : "", f & MSG_F_TRUNC ? "trunc," : "",
		 f & MSG_F_RESYNC ? "resync," : "", f & MSG_F_BEHIND ? "behind," : "",
		 f & MSG_F_AFTER_ANSWER ? "after-answer," : "", f ? "" : "-");
	if (f && strlen(out) > 0)
		out[strlen(out) - 1] = '\0';
}

/* The time a rank sent or received m, kept for its waits. */
static void
keep_time(struct ctx *c, int32_t rank, bool arrival, int64_t t_ns)
{
	struct rank_times *rt;

	if (rank < 0 || rank >= ROLLUP_MAX_RANKS)
		return;
	if (c->nevents >= PARSE_MAX_EVENTS) {
		c->events_capped++;
		return;
	}
	if ((size_t)rank >= c->ntimes) {
		size_t n = c->ntimes;

		c->times = xgrow(c->times, &n, (size_t)rank + 1, sizeof *c->times);
		memset(c->times + c->ntimes, 0, (n - c->ntimes) * sizeof *c->times);
		c->ntimes = n;
	}
	rt = &c->times[rank];
	if (arrival) {
		rt->arr_ns = xgrow(rt->arr_ns, &rt->carr, rt->narr + 1, sizeof *rt->arr_ns);
		rt->arr_ns[rt->narr++] = t_ns;
	} else {
		rt->send_ns = xgrow(rt->send_ns, &rt->csend, rt->nsend + 1, sizeof *rt->send_ns);
		rt->send_ns[rt->nsend++] = t_ns;
	}
	c->nevents++;
}

/* A message between two ranks: its sender sent at its first byte, its receiver had it at
 * its last. */
static void
keep_times(struct ctx *c, const struct msg *m)
{
	if (m->src_world < 0 || m->dst_world < 0 || m->src_world == m->dst_world)
		return;
	keep_time(c, m->src_world, false, m->t_first_ns);
	keep_time(c, m->dst_world, true, m->t_last_ns);
}

/* Columns of a NULL-terminated list. */
static int
ncols(const char *const *cols)
{
	int n = 0;

	while (cols[n] != NULL)
		n++;
	return n;
}

/* One row of messages.tsv. Called on the row threads (msg_batch_run): reads nothing shared. */
static void
msg_row(struct tsv_w *t, const struct msg *m)
{
	char fl[64];
	const char *tn = m->tag == INT32_MIN ? NULL : msg_tag_name_cid(m->mpi, m->cid, m->tag);

	tsv_w_i64(t, m->t_first_ns);
	tsv_w_i64(t, m->t_last_ns);
	tsv_w_i64(t, m->src_world);
	tsv_w_i64(t, m->dst_world);
	tsv_w_i64(t, m->cid);
	tsv_w_i64(t, m->comm_src);
	if (m->tag == INT32_MIN)
		tsv_w_str(t, NULL);
	else
		tsv_w_i64(t, m->tag);
	tsv_w_str(t, tn);
	tsv_w_u64(t, m->bytes);
	tsv_w_u64(t, m->wire_bytes);
	tsv_w_str(t, msg_mpi_name(m->mpi));
	tsv_w_str(t, msg_proto_name(m->proto));
	tsv_w_str(t, rank_src_name(m->ranksrc));
	flags_str(m->flags, fl, sizeof fl);
	tsv_w_str(t, fl);
	tsv_w_i64(t, m->conn);
	if (m->queued_ns < 0)
		tsv_w_str(t, NULL);
	else
		tsv_w_i64(t, m->queued_ns);
}

/* A batch's rows, made on a row thread. */
static void
msg_batch_run(void *arg)
{
	struct msg_batch *b = arg;
	struct tsv_w t;

	buf_clear(&b->rows);
	tsv_w_mem(&t, &b->rows, ncols(msg_cols));
	b->rc = 0;
	for (size_t i = 0; i < b->n && b->rc == 0; i++) {
		msg_row(&t, &b->m[i]);
		b->rc = tsv_w_end(&t, &b->e);
	}
}

/* Rows made on a row thread (rc: 0, or negative with e saying why they could not be
 * made) appended to t; the first failure is kept as the parse's write error. */
static void
rows_out(struct ctx *c, struct tsv_w *t, const struct buf *rows, int rc, const struct err *e)
{
	if (c->write_failed)
		return;
	if (rc < 0) {
		c->werr = *e;
		c->write_failed = true;
	} else if (tsv_w_rows(t, rows->data, rows->len, &c->werr) < 0) {
		c->write_failed = true;
	}
}

/* The oldest batch's rows into messages.tsv; the batch is free again. */
static void
msgs_write_oldest(struct ctx *c)
{
	struct msg_batch *b = ordq_pop(c->rowq);

	if (b == NULL)
		return;
	rows_out(c, &c->msgs, &b->rows, b->rc, &b->e);
	b->n = 0;
	c->batch_free[c->nbatch_free++] = b;
}

/* The current batch to the row threads (its rows come out in order, msgs_write_oldest). */
static void
msgs_flush(struct ctx *c)
{
	if (c->batch == NULL || c->batch->n == 0)
		return;
	while (ordq_pending(c->rowq) == ROW_BATCHES)
		msgs_write_oldest(c);
	ordq_push(c->rowq, c->batch);
	c->batch = NULL;
}

static void
on_msg(void *vc, const struct msg *m)
{
	struct ctx *c = vc;

	rollup_msg(&c->prof, m);
	keep_times(c, m);
	/* the run's last message between two ranks: launcher and other non-MPI traffic of a
	 * rank (one end unknown) goes on while a job is torn down, protocol records are not
	 * messages */
	if (m->src_world >= 0 && m->dst_world >= 0 && m->src_world != m->dst_world &&
	    m->proto != PROTO_CTRL && m->t_last_ns > c->run_last_msg_ns)
		c->run_last_msg_ns = m->t_last_ns;
	if (m->mpi == MSG_MPICH && m->cid == 0xffff)	/* see warn_ompi_ucx */
		c->ucx_ompi_like++;
	c->msgs_behind += (m->flags & MSG_F_BEHIND) != 0;
	c->msgs_after_answer += (m->flags & MSG_F_AFTER_ANSWER) != 0;
	if (m->queued_ns < 0) {
		c->msgs_queue_unknown++;
	} else if (m->queued_ns > 0) {
		c->msgs_queued++;
		c->queued_ns += (uint64_t)m->queued_ns;
	}
	if (c->write_failed)
		return;
	if (c->batch == NULL) {
		while (c->nbatch_free == 0)
			msgs_write_oldest(c);
		c->batch = c->batch_free[--c->nbatch_free];
	}
	c->batch->m[c->batch->n++] = *m;
	if (c->batch->n == ROW_BATCH)
		msgs_flush(c);
}

/* Start the row threads of messages.tsv: threads of them (0: rows made on this one). */
static void
msgs_rows_start(struct ctx *c, size_t threads)
{
	c->rowq = ordq_new(threads, ROW_BATCHES, msg_batch_run);
	for (size_t i = 0; i < ROW_BATCHES + 1; i++) {
		struct msg_batch *b = xcalloc(1, sizeof *b);

		buf_init(&b->rows, ROW_BATCH_MAX);
		c->batch_free[c->nbatch_free++] = b;
	}
}

/* Write every batch left and stop the row threads. */
static void
msgs_rows_end(struct ctx *c)
{
	msgs_flush(c);
	while (ordq_pending(c->rowq) > 0)
		msgs_write_oldest(c);
	ordq_free(c->rowq);
	c->rowq = NULL;
	if (c->batch != NULL)
		c->batch_free[c->nbatch_free++] = c->batch;
	c->batch = NULL;
	for (size_t i = 0; i < c->nbatch_free; i++) {
		buf_release(&c->batch_free[i]->rows);
		free(c->batch_free[i]);
	}
	c->nbatch_free = 0;
}

static void
addr_str(int af, const uint8_t *a, char *out, size_t len)
{
	if (inet_ntop(af, a, out, (socklen_t)len) == NULL)
		snprintf(out, len, "-");
}

static void
mac_str(const uint8_t *m, bool has, char *out, size_t len)
{
	if (!has)
		snprintf(out, len, "-");
	else
		snprintf(out, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void
on_conn(void *vc, const struct flows_conn *k)
{
	struct ctx *c = vc;
	char a[INET6_ADDRSTRLEN], mac[2][20];
	int d;

	rollup_rtt(&c->prof, k->rtt_ns);
	if (c->write_failed)
		return;
	tsv_w_i64(&c->conns, k->conn);
	tsv_w_str(&c->conns, k->kind);
	for (d = 0; d < 2; d++) {
		addr_str(k->af, k->addr[d], a, sizeof a);
		tsv_w_str(&c->conns, a);
		tsv_w_i64(&c->conns, k->port[d]);
	}
	tsv_w_i64(&c->conns, k->rank[0]);
	tsv_w_i64(&c->conns, k->rank[1]);
	tsv_w_str(&c->conns, rank_src_name(k->ranksrc));
	tsv_w_i64(&c->conns, k->saw_syn);
	for (d = 0; d < 2; d++) {
		tsv_w_u64(&c->conns, k->pkts[d]);
		tsv_w_u64(&c->conns, k->frame_bytes[d]);
		tsv_w_u64(&c->conns, k->payload_bytes[d]);
		tsv_w_u64(&c->conns, k->gap_bytes[d]);
	}
	tsv_w_i64(&c->conns, k->t_first_ns);
	tsv_w_i64(&c->conns, k->t_last_ns);
	tsv_w_i64(&c->conns, k->rtt_ns);
	tsv_w_i64(&c->conns, k->ttl[0]);
	tsv_w_i64(&c->conns, k->ttl[1]);
	for (d = 0; d < 2; d++) {
		mac_str(k->mac[d], k->has_mac[d], mac[d], sizeof mac[d]);
		tsv_w_str(&c->conns, mac[d]);
	}
	tsv_w_i64(&c->conns, k->vlan);
	if (tsv_w_end(&c->conns, &c->werr) < 0)
		c->write_failed = true;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files in dir ("dir/name") whose names start with prefix and contain infix, not hidden;
 * sorted; at most PARSE_MAX_FILES; free with fs_list_free. An unreadable dir gives none. */
static char **
list_dir(const char *dir, const char *prefix, const char *infix, size_t *n)
{
	const struct fs_pattern pat = { .prefix = prefix, .infix = infix, .paths = true };

	return fs_list(dir, &pat, PARSE_MAX_FILES, n, NULL);
}

static int
open_out(struct tsv_w *t, const char *dir, const char *name, const char *format,
	 const char *const *cols, struct err *e)
{
	char *path = xasprintf("%s/%s", dir, name);
	int rc = tsv_w_open(t, path, format, 1, cols, false, true, e);

	free(path);
	return rc;
}

static int32_t
rank_from_name(const char *path)
{
	const char *s = strrchr(path, '/');
	char *end;
	long v;

	s = s ? s + 1 : path;
	if (strncmp(s, "rank-", 5) != 0)
		return -1;
	v = strtol(s + 5, &end, 10);
	if (end == s + 5 || v < 0 || v >= ROLLUP_MAX_RANKS)
		return -1;
	return (int32_t)v;
}

/* One rank's samples, read into phases on a row thread (sample_run). */
struct sample_job {
	const char *path;		/* borrowed */
	struct phases_opts po;
	struct rank_times *rt;		/* its message times for the waits, or NULL */
	enum phases_wait_rule waits;	/* which of their gaps are waits */
	struct rank_cpu rc;
	int rcode;			/* phases_from_samples_opt's */
	struct err e;
	struct buf rows;		/* its phases.tsv rows */
	int wrc;			/* 0, or negative with we set: the rows do not fit */
	struct err we;
};

#define SAMPLE_JOBS 8			/* ranks read at once, at most */
#define SAMPLE_ROWS_MAX (256u << 20)	/* bytes of one rank's phases.tsv rows */

static void
sample_run(void *arg)
{
	struct sample_job *j = arg;
	struct phases_wait *waits = NULL;
	struct tsv_w t;

	if (j->rt != NULL) {
		j->po.nwaits = phases_waits(j->rt->send_ns, j->rt->nsend, j->rt->arr_ns, j->rt->narr,
					    j->waits, &waits);
		j->po.waits = waits;
	}
	j->rcode = phases_from_samples_opt(j->path, &j->po, &j->rc, &j->e);
	free(waits);
	j->wrc = 0;
	if (j->rcode < 0)
		return;
	buf_init(&j->rows, SAMPLE_ROWS_MAX);
	tsv_w_mem(&t, &j->rows, ncols(phases_cols));
	j->wrc = phases_write(&j->rc, &t, &j->we);
}

/* A rank whose end hung after the run's last message (parse/tail.h): say so, count it and,
 * unless --keep-tail, read its samples again cut at that message. */
static void
tail_check(struct ctx *c, struct sample_job *j, int32_t rank)
{
	struct tail_rank tr;
	const char *sig = NULL;
	struct rank_times *rt = (size_t)rank < c->ntimes ? &c->times[rank] : NULL;
	int64_t tail_ns;
	size_t used = strlen(c->tail_list);
	char how[64];		/* how it ended, for the warning */

	tr.how_ended = c->rm ? rankmap_how_ended(c->rm, rank, &sig) : NULL;
	tr.t_end_ns = j->rc.t_last_ns;
	tr.t_run_last_msg_ns = c->run_last_msg_ns;
	tr.has_msgs = rt != NULL && rt->nsend + rt->narr > 0;
	tr.longest_gap_ns = 0;	/* first without the gap test, which only makes it stricter: */
	if (!tail_hung(&tr, NULL))	/* the gap is worked out for the few ranks that ended oddly */
		return;
	tr.longest_gap_ns = tail_longest_gap(rt->send_ns, rt->nsend, rt->arr_ns, rt->narr);
	tr.send_gap_ns = tail_longest_send_gap(rt->send_ns, rt->nsend, rt->arr_ns, rt->narr);
	tr.run_gap_ns = c->run_gap_ns;
	if (!tail_hung(&tr, &tail_ns))
		return;
	c->tail_hung++;
	if (used + 32 < sizeof c->tail_list)
		snprintf(c->tail_list + used, sizeof c->tail_list - used, "%s%d=%.3f", used ? "," : "",
			 (int)rank, (double)tail_ns / 1e9);
	else if (used + 4 < sizeof c->tail_list && strcmp(c->tail_list + used - 3, "...") != 0)
		snprintf(c->tail_list + used, sizeof c->tail_list - used, ",...");
	if (strcmp(tr.how_ended, "running") == 0)
		snprintf(how, sizeof how, "was still running when its agent was killed,");
	else
		snprintf(how, sizeof how, "was ended by %s", sig ? sig : "a signal");
	fflush(stdout);
	warnx_("parse: rank %d %s %.1f s after the run's last message (its longest gap between "
	       "messages: %.2f s, before a send of its own %.2f s; the run's %.3f s), as when an MPI "
	       "library hangs in MPI_Finalize: %s", (int)rank, how,
	       (double)tail_ns / 1e9, (double)tr.longest_gap_ns / 1e9, (double)tr.send_gap_ns / 1e9,
	       (double)c->run_gap_ns / 1e9,
	       c->o->keep_tail ? "kept (--keep-tail), its exec time holds the hang" :
	       "its exec time is cut at that message (--keep-tail keeps it)");
	if (c->o->keep_tail)
		return;
	/* again with the cut: the file is read twice only for a hung rank */
	rank_cpu_release(&j->rc);
	buf_release(&j->rows);
	j->po.cut_real_ns = c->run_last_msg_ns;
	sample_run(j);
	if (j->rcode == 0)
		c->tail_cut++;
}

/* What a rank's samples gave, in file order: counters, warnings, phases.tsv, rollup. */
static void
sample_done(struct ctx *c, struct sample_job *j, struct tsv_w *t)
{
	struct rollup_rank *pr;
	struct rank_cpu *rc = &j->rc;
	int64_t taken;		/* samples its agent took (its meta), -1 unknown */
	int32_t rank;

	if (j->rcode < 0) {
		c->samples_failed++;
		warn_partial(c, j->e.msg);
		goto out;
	}
	c->samples_files++;
	c->samples_bad_rows += rc->bad_rows;
	c->samples_out_of_run += rc->out_of_run;
	c->samples_system_idle += rc->system_idle;
	c->samples_polling += rc->polling;
	c->samples_utime_ticks += (uint64_t)rc->utime_ticks;
	c->samples_stime_ticks += (uint64_t)rc->stime_ticks;
	c->samples_truncated += rc->truncated;
	c->samples_damaged += rc->damaged;
	taken = c->rm ? rankmap_samples_taken(c->rm, rank_from_name(j->path)) : -1;
	if (!phases_judge(rc, j->path, taken, say_partial, c)) {
		c->samples_rejected++;
		goto out;
	}
	rank = rc->rank >= 0 ? (int32_t)rc->rank : rank_from_name(j->path);
	if (rank >= 0) {
		tail_check(c, j, rank);
		if (j->rcode < 0) {
			c->samples_failed++;
			warn_partial(c, j->e.msg);
			goto out;
		}
	}
	if (rc->rank < 0) {
		/* phases_write wrote the rows without it: write them again */
		struct tsv_w mt;

		rc->rank = rank;
		buf_clear(&j->rows);
		tsv_w_mem(&mt, &j->rows, ncols(phases_cols));
		j->wrc = phases_write(rc, &mt, &j->we);
	}
	rows_out(c, t, &j->rows, j->wrc, &j->we);
	pr = rollup_rank(&c->prof, rank);
	if (pr != NULL && rc->samples > 0) {
		pr->has_cpu = true;
		pr->t_first_ns = rc->t_first_ns;
		pr->t_last_ns = rc->t_last_ns;
		pr->busy_ns = rc->busy_ns;
		pr->n_busy = (int64_t)rc->n_busy;
		pr->n_idle = (int64_t)rc->n_idle;
		pr->avg_busy_ns = (int64_t)llround(rc->avg_busy_ns);
		pr->avg_idle_ns = (int64_t)llround(rc->avg_idle_ns);
		pr->cpu_frac = rc->cpu_frac;
		pr->run_ns = rc->run_ns;
		pr->wait_ns = rc->wait_ns;
	}
out:
	rank_cpu_release(rc);
	buf_release(&j->rows);
	free(j);
}

/* c->run_gap_ns: the run's longest gap between two message times of any ranks, for the
 * tail rule (parse/tail.h), when some rank did not end on its own (otherwise no rank's
 * end is cut and the copy of every time is not made). Before the sample threads, which
 * sort each rank's times in place. */
static void
run_gap(struct ctx *c)
{
	size_t n = 0, k = 0;
	int64_t *all;		/* every rank's send and arrival times */
	bool odd = false;

	for (size_t r = 0; r < c->ntimes && !odd && c->rm != NULL; r++)
		odd = tail_ended_oddly(rankmap_how_ended(c->rm, (int32_t)r, NULL));
	if (!odd)
		return;
	for (size_t r = 0; r < c->ntimes; r++)
		n += c->times[r].nsend + c->times[r].narr;
	all = xmallocarray(n + 1, sizeof *all);
	for (size_t r = 0; r < c->ntimes; r++) {
		const struct rank_times *rt = &c->times[r];

		if (rt->nsend > 0)
			memcpy(all + k, rt->send_ns, rt->nsend * sizeof *all);
		k += rt->nsend;
		if (rt->narr > 0)
			memcpy(all + k, rt->arr_ns, rt->narr * sizeof *all);
		k += rt->narr;
	}
	c->run_gap_ns = tail_longest_gap(all, n, NULL, 0);
	free(all);
}

/* CPU phases of every samples file: into the rollup and phases.tsv. The files are read on
 * threads threads (0: here), a rank each, and their results taken in file order. */
static void
do_samples(struct ctx *c, char **files, size_t n, const char *outdir, size_t threads)
{
	struct tsv_w t;
	struct err e;
	struct ordq *q;
	bool *taken;		/* per world rank: a file of it is being read (its times are sorted) */
	size_t i;

	if (open_out(&t, outdir, "phases.tsv", PHASES_FORMAT, phases_cols, &e) < 0) {
		warn_partial(c, e.msg);
		return;
	}
	run_gap(c);
	q = ordq_new(threads, SAMPLE_JOBS, sample_run);
	taken = xcalloc(c->ntimes ? c->ntimes : 1, sizeof *taken);
	for (i = 0; i < n; i++) {
		struct sample_job *j = xcalloc(1, sizeof *j);
		int32_t rank = rank_from_name(files[i]);
		double thr, cap;	/* busy threshold for this rank; its node's CPU capacity */
		int64_t t0, t1;		/* the rank's run, CLOCK_MONOTONIC (its meta) */

		/* A rank whose node may use only part of a core (a cgroup quota, as collect records
		 * in cpu_capacity) can run at most that share of an interval: the busy threshold is
		 * a fraction of what it could have run, unless the user set one. */
		thr = c->o->busy_threshold;
		cap = c->rm ? rankmap_cpu_capacity(c->rm, rank) : 0;
		if (!c->o->busy_threshold_set && cap > 0 && cap < 1)
			thr *= cap;
		j->path = files[i];
		j->po = (struct phases_opts){ .busy_threshold = thr, .count_system = !c->o->user_only };
		if (rank >= 0 && (size_t)rank < c->ntimes && !c->o->user_only) {
			if (taken[rank]) {
				/* two files of one rank: the first must be done with its times */
				while (ordq_pending(q) > 0)
					sample_done(c, ordq_pop(q), &t);
			}
			taken[rank] = true;
			j->rt = &c->times[rank];
			j->waits = c->o->waits;
			if (j->waits == PHASES_WAITS_AUTO)	/* a quota throttles its polling */
				j->waits = cap > 0 && cap < 1 ? PHASES_WAITS_SEND : PHASES_WAITS_ANY;
		}
		if (c->rm != NULL && rankmap_run_window(c->rm, rank, &t0, &t1) == 0)
			phases_opts_window(&j->po, t0, t1);
		while (ordq_pending(q) == SAMPLE_JOBS)
			sample_done(c, ordq_pop(q), &t);
		ordq_push(q, j);
	}
	while (ordq_pending(q) > 0)
		sample_done(c, ordq_pop(q), &t);
	ordq_free(q);
	free(taken);
	if (tsv_w_close(&t, &e) < 0)
		warn_partial(c, e.msg);
}

static void
w_kv_u(struct tsv_w *t, const char *k, uint64_t v)
{
	struct err e;

	tsv_w_str(t, k);
	tsv_w_u64(t, v);
	if (tsv_w_end(t, &e) < 0)
		return;	/* sticky: reported again by close */
}

static void
w_kv_s(struct tsv_w *t, const char *k, const char *v)
{
	struct err e;

	tsv_w_str(t, k);
	tsv_w_str(t, v);
	if (tsv_w_end(t, &e) < 0)
		return;	/* sticky: reported again by close */
}

static void
w_kv_f(struct tsv_w *t, const char *k, double v)
{
	struct err e;

	tsv_w_str(t, k);
	tsv_w_f64(t, v);
	if (tsv_w_end(t, &e) < 0)
		return;	/* sticky: reported again by close */
}

static const char *const kv_cols[] = { "key", "value", NULL };

static void
write_stats(struct ctx *c, const struct flows_stats *s, const char *outdir)
{
	static const char *const dname[FLOWS_NDEC] = { "generic", "ompi", "mpich", "ompi_ucx" };
	struct tsv_w t;
	struct err e;
	char key[64];
	int i;

	if (open_out(&t, outdir, "stats.tsv", "stats", kv_cols, &e) < 0) {
		warn_partial(c, e.msg);
		return;
	}
	w_kv_u(&t, "pcap_files", c->pcap_files);
	w_kv_u(&t, "pcap_unreadable", c->pcap_unreadable);
	w_kv_u(&t, "pcap_truncated", c->pcap_truncated);
	w_kv_u(&t, "pcap_damaged", c->pcap_damaged);
	w_kv_u(&t, "packets", s->packets);
	w_kv_u(&t, "bytes", s->frame_bytes);
	for (i = 0; i <= PKT_LINK_UNSUP; i++) {
		snprintf(key, sizeof key, "packets_%s", pkt_kind_name((enum pkt_kind)i));
		w_kv_u(&t, key, s->kinds[i]);
	}
	w_kv_u(&t, "tcp_payload_bytes", s->tcp_payload_bytes);
	w_kv_u(&t, "streams", s->conns);
	w_kv_u(&t, "streams_max_concurrent", s->conns_max_concurrent);
	w_kv_u(&t, "streams_midstream", s->conns_midstream);
	w_kv_u(&t, "streams_port_reuse", s->conns_port_reuse);
	w_kv_u(&t, "streams_duplicate", s->conns_dup);
	if (s->conns_dup > 0) {	/* only then: a run captured on one node reads as before */
		w_kv_u(&t, "msgs_both_ends", c->twin_msgs);
		w_kv_u(&t, "msgs_rx_arrival", c->twin_last);
		w_kv_u(&t, "msgs_tx_first", c->twin_first);
		w_kv_u(&t, "msgs_both_ends_unmatched", c->twin_unmatched);
	}
	w_kv_u(&t, "msgs_queued", c->msgs_queued);
	w_kv_u(&t, "queued_ns", c->queued_ns);
	w_kv_u(&t, "msgs_queue_unknown", c->msgs_queue_unknown);
	w_kv_u(&t, "msgs_behind", c->msgs_behind);
	w_kv_u(&t, "msgs_after_answer", c->msgs_after_answer);
	w_kv_u(&t, "streams_cap_hits", s->conns_cap_hits);
	w_kv_u(&t, "orphan_packets", s->orphan_pkts);
	w_kv_u(&t, "segments", s->tcp.segments);
	w_kv_u(&t, "bytes_delivered", s->tcp.bytes_delivered);
	w_kv_u(&t, "retransmissions", s->tcp.retrans_segs);
	w_kv_u(&t, "retransmitted_bytes", s->tcp.retrans_bytes);
	w_kv_u(&t, "conflicting_bytes", s->tcp.conflict_bytes);
	w_kv_u(&t, "out_of_order_segments", s->tcp.ooo_segs);
	w_kv_u(&t, "gaps", s->tcp.gaps);
	w_kv_u(&t, "gap_bytes", s->tcp.gap_bytes);
	w_kv_u(&t, "truncations", s->tcp.cut_segs);
	w_kv_u(&t, "buffer_cap_hits", s->tcp.cap_hits);
	w_kv_u(&t, "acked_holes", s->tcp.acked_holes);
	w_kv_u(&t, "bytes_after_fin", s->tcp.after_fin_bytes);
	w_kv_u(&t, "bytes_before_start", s->tcp.before_start_bytes);
	for (i = LAUNCH_ORTE_OOB; i < LAUNCH_NKINDS; i++) {
		snprintf(key, sizeof key, "launcher_%s_streams", launch_kind_name((enum launch_kind)i));
		w_kv_u(&t, key, s->launcher_conns[i]);
		snprintf(key, sizeof key, "launcher_%s_bytes", launch_kind_name((enum launch_kind)i));
		w_kv_u(&t, key, s->launcher_bytes[i]);
	}
	w_kv_u(&t, "non_mpi_streams", s->dec_conns[MSG_GENERIC]);
	w_kv_u(&t, "non_mpi_bytes", s->dec_bytes[MSG_GENERIC]);
	for (i = 0; i < FLOWS_NDEC; i++) {
		snprintf(key, sizeof key, "%s_streams", dname[i]);
		w_kv_u(&t, key, s->dec_conns[i]);
		snprintf(key, sizeof key, "%s_bytes", dname[i]);
		w_kv_u(&t, key, s->dec_bytes[i]);
		snprintf(key, sizeof key, "%s_msgs", dname[i]);
		w_kv_u(&t, key, s->dec[i].msgs);
		snprintf(key, sizeof key, "%s_ctrl", dname[i]);
		w_kv_u(&t, key, s->dec[i].ctrl);
		snprintf(key, sizeof key, "%s_resyncs", dname[i]);
		w_kv_u(&t, key, s->dec[i].resyncs);
		snprintf(key, sizeof key, "%s_bad", dname[i]);
		w_kv_u(&t, key, s->dec[i].bad);
		snprintf(key, sizeof key, "%s_gaps", dname[i]);
		w_kv_u(&t, key, s->dec[i].gaps);
		snprintf(key, sizeof key, "%s_fallback", dname[i]);
		w_kv_u(&t, key, s->dec[i].fallback);
	}
	w_kv_u(&t, "msgs_unknown_rank", c->prof.unknown_rank_msgs);
	w_kv_u(&t, "bytes_unknown_rank", c->prof.unknown_rank_bytes);
	w_kv_u(&t, "ranks_unsampled", c->ranks_unsampled);
	w_kv_u(&t, "links_unsampled", c->links_unsampled);
	w_kv_u(&t, "links_unsampled_msgs", c->links_unsampled_msgs);
	w_kv_u(&t, "msgs_ctrl", c->prof.ctrl_msgs);
	w_kv_u(&t, "links_cap_hits", c->prof.links_over_cap);
	w_kv_u(&t, "samples_files", c->samples_files);
	w_kv_u(&t, "samples_failed", c->samples_failed);
	w_kv_u(&t, "samples_truncated", c->samples_truncated);
	w_kv_u(&t, "samples_bad_rows", c->samples_bad_rows);
	w_kv_u(&t, "samples_out_of_run", c->samples_out_of_run);
	w_kv_u(&t, "samples_damaged", c->samples_damaged);
	w_kv_u(&t, "samples_rejected", c->samples_rejected);
	w_kv_u(&t, "samples_system_idle", c->samples_system_idle);
	w_kv_u(&t, "samples_polling", c->samples_polling);
	w_kv_u(&t, "trace_times_capped", c->events_capped);
	w_kv_u(&t, "samples_utime_ticks", c->samples_utime_ticks);
	w_kv_u(&t, "samples_stime_ticks", c->samples_stime_ticks);
	if (c->rm != NULL) {
		const struct rankmap_stats *r = rankmap_stats(c->rm);

		w_kv_u(&t, "sockmap_rows", r->rows);
		w_kv_u(&t, "sockmap_bad_rows", r->bad_rows);
		w_kv_u(&t, "sockmap_conflicts", r->conflicts);
		w_kv_u(&t, "sockmap_cap_hits", r->over_cap);
		w_kv_u(&t, "meta_problems", r->problems);
	}
	w_kv_u(&t, "coverage_ranks", c->cov.ranks);
	w_kv_u(&t, "coverage_hosts", c->cov.hosts);
	w_kv_u(&t, "pairs", c->cov.pairs);
	w_kv_u(&t, "pairs_remote", c->cov.pairs_remote);
	w_kv_u(&t, "pairs_remote_seen", c->cov.pairs_remote_seen);
	w_kv_u(&t, "pairs_local", c->cov.pairs_local);
	w_kv_u(&t, "pairs_local_seen", c->cov.pairs_local_seen);
	w_kv_u(&t, "pairs_local_hidden", c->cov.pairs_local_hidden);
	w_kv_u(&t, "msgs_remote", c->cov.msgs_remote);
	w_kv_u(&t, "msgs_local", c->cov.msgs_local);
	w_kv_u(&t, "msgs_unplaced", c->cov.msgs_unplaced);
	w_kv_u(&t, "see_local", c->see_local);
	w_kv_s(&t, "local_path", c->cov.local_path);
	w_kv_s(&t, "coverage", c->cov.coverage);
	w_kv_s(&t, "coverage_note", c->cov_note);
	if (c->tail_hung > 0) {
		/* only then: a run that ended well writes the same stats.tsv as before */
		w_kv_u(&t, "tail_hung_ranks", c->tail_hung);
		w_kv_u(&t, "tail_cut_ranks", c->tail_cut);
		w_kv_u(&t, "tail_cut_at_ns", (uint64_t)c->run_last_msg_ns);
		w_kv_s(&t, "tail_hung", c->tail_list);
	}
	w_kv_u(&t, "warnings", (uint64_t)c->warnings);
	/* Last, so that a stats.tsv cut short has no verdict: "yes" only when nothing was
	 * damaged or missing; later stages treat anything else as partial. */
	w_kv_s(&t, "complete", c->warnings == 0 && !c->write_failed ? "yes" : "partial");
	if (tsv_w_close(&t, &e) < 0)
		warn_partial(c, e.msg);
}

/* warnings.tsv: every warning of this parse, for the report's front page. */
static void
write_warnings(struct ctx *c, const char *outdir)
{
	static const char *const cols[] = { "stage", "message", NULL };
	struct tsv_w t;
	struct err e;

	if (open_out(&t, outdir, "warnings.tsv", "warnings", cols, &e) < 0) {
		warn_partial(c, e.msg);
		return;
	}
	for (size_t i = 0; i < c->nwarn_msgs; i++) {
		tsv_w_str(&t, "parse");
		tsv_w_str(&t, c->warn_msgs[i]);
		if (tsv_w_end(&t, &e) < 0)
			break;	/* sticky: reported by close */
	}
	if (c->warnings > (int)c->nwarn_msgs) {
		char *m = xasprintf("%d more warnings (see stats.tsv)", c->warnings - (int)c->nwarn_msgs);

		tsv_w_str(&t, "parse");
		tsv_w_str(&t, m);
		free(m);
		if (tsv_w_end(&t, &e) < 0)
			warn_partial(c, e.msg);
	}
	if (tsv_w_close(&t, &e) < 0)
		warn_partial(c, e.msg);
}

static void
write_netparams(struct ctx *c, const struct netparams *np, const char *outdir)
{
	struct tsv_w t;
	struct err e;

	if (open_out(&t, outdir, "netparams.tsv", "netparams", kv_cols, &e) < 0) {
		warn_partial(c, e.msg);
		return;
	}
	w_kv_f(&t, "lat_ns", np->lat_ns);
	w_kv_s(&t, "lat_source", np->lat_source);
	w_kv_u(&t, "lat_samples", np->lat_samples);
	w_kv_f(&t, "rtt_median_ns", np->rtt_median_ns);
	w_kv_f(&t, "bw_Bps", np->bw_Bps);
	w_kv_s(&t, "bw_source", np->bw_source);
	w_kv_u(&t, "bw_samples", np->bw_samples);
	w_kv_u(&t, "idle_gap_ns", (uint64_t)c->o->idle_gap_ns);
	w_kv_f(&t, "busy_threshold", c->o->busy_threshold);
	w_kv_s(&t, "busy_counts", c->o->user_only ? "CPU time weighted by the user share" : "all CPU time");
	if (c->o->waits == PHASES_WAITS_ANY)	/* absent: from a send only */
		w_kv_s(&t, "waits", "after a send or an arrival");
	else if (c->o->waits == PHASES_WAITS_AUTO)
		w_kv_s(&t, "waits", "after a send under a CPU quota, else after a send or an arrival");
	if (tsv_w_close(&t, &e) < 0)
		warn_partial(c, e.msg);
}

static double
pct(double part, int64_t whole)
{
	return whole > 0 && part >= 0 ? 100.0 * part / (double)whole : NAN;
}

static bool
sampled(const struct rollup *p, int32_t rank)
{
	return rank >= 0 && (size_t)rank < p->nranks && p->ranks[rank].has_cpu;
}

/* v with one decimal, or "n/a" when unknown (NaN): the table never shows "nan". */
static void
num_or_na(char *out, size_t len, double v)
{
	if (isnan(v))
		snprintf(out, len, "n/a");
	else
		snprintf(out, len, "%.1f", v);
}

/* A percentage for ranks.tsv: -1 when unknown (no CPU samples, or no time span). */
static double
pct_or_unknown(double part, int64_t whole)
{
	double v = pct(part, whole);

	return isnan(v) ? -1 : v;
}

static void
write_ranks_links(struct ctx *c, const struct netparams *np, const char *outdir, FILE *table)
{
	static const char *const rcols[] = { "rank", "host", "exec_ns", "comp_pct", "comm_pct",
		"idle_pct", "avg_busy_ns", "avg_idle_ns", "n_busy", "n_idle", "cpu_pct", "run_ns",
		"wait_ns", "msgs_sent", "bytes_sent", "msgs_recv", "bytes_recv", NULL };
	static const char *const lcols[] = { "src", "dst", "msgs", "bytes", "avg_bytes", "active_ns",
		"t_first_ns", "t_last_ns", NULL };
	struct tsv_w t;
	struct err e;
	struct rollup_link **lv;
	bool any_cpu = false;
	size_t i;

	/* In a run with CPU samples, a rank without them cannot be split into computation and
	 * communication: its row (and its links) are left out and counted in stats.tsv. With
	 * no samples at all every rank is written, with -1 for what the samples would give. */
	for (i = 0; i < c->prof.nranks; i++)
		any_cpu |= c->prof.ranks[i].present && c->prof.ranks[i].has_cpu;
	if (open_out(&t, outdir, "ranks.tsv", "ranks", rcols, &e) < 0) {
		warn_partial(c, e.msg);
	} else {
		if (tsv_w_comment(&t, &e, "comm = min(busy, n_msgs * %.0f ns + bytes / %.6g B/s); "
				  "comp = busy - comm; idle = exec - busy", np->lat_ns, np->bw_Bps) < 0)
			c->write_failed = true;
		if (table != NULL) {
			/* busy and idle are per-phase averages (paper 003's busytimephase and
			 * idletimephase), not totals: the names say so */
			fprintf(table, "%5s %-12s %10s %6s %6s %6s %11s %11s %8s %10s\n", "rank", "host",
				"exec_s", "comp%", "comm%", "idle%", "avg_busy_ms", "avg_idle_ms", "msgs",
				"avg_KB");
		}
		for (i = 0; i < c->prof.nranks; i++) {
			const struct rollup_rank *r = &c->prof.ranks[i];
			const char *host = c->rm ? rankmap_host(c->rm, (int32_t)i) : NULL;
			struct rollup_split sp;
			uint64_t nm = r->msgs_sent;

			if (!r->present)
				continue;
			if (any_cpu && !r->has_cpu) {
				c->ranks_unsampled++;
				continue;
			}
			rollup_split(r, np->lat_ns, np->bw_Bps, &sp);
			tsv_w_i64(&t, (int64_t)i);
			tsv_w_str(&t, host);
			tsv_w_i64(&t, sp.exec_ns);
			tsv_w_f64(&t, pct_or_unknown(sp.comp_ns, sp.exec_ns));
			tsv_w_f64(&t, pct_or_unknown(sp.comm_ns, sp.exec_ns));
			tsv_w_f64(&t, pct_or_unknown(sp.idle_ns, sp.exec_ns));
			tsv_w_i64(&t, r->has_cpu ? r->avg_busy_ns : -1);
			tsv_w_i64(&t, r->has_cpu ? r->avg_idle_ns : -1);
			tsv_w_i64(&t, r->has_cpu ? r->n_busy : -1);
			tsv_w_i64(&t, r->has_cpu ? r->n_idle : -1);
			tsv_w_f64(&t, r->has_cpu ? 100.0 * r->cpu_frac : -1);
			tsv_w_i64(&t, r->has_cpu ? r->run_ns : -1);
			tsv_w_i64(&t, r->has_cpu ? r->wait_ns : -1);
			tsv_w_u64(&t, r->msgs_sent);
			tsv_w_u64(&t, r->bytes_sent);
			tsv_w_u64(&t, r->msgs_recv);
			tsv_w_u64(&t, r->bytes_recv);
			if (tsv_w_end(&t, &e) < 0)
				c->write_failed = true;
			if (table != NULL) {
				char f[5][16];	/* the columns that can be unknown: "n/a" */

				num_or_na(f[0], sizeof f[0], pct(sp.comp_ns, sp.exec_ns));
				num_or_na(f[1], sizeof f[1], pct(sp.comm_ns, sp.exec_ns));
				num_or_na(f[2], sizeof f[2], pct(sp.idle_ns, sp.exec_ns));
				num_or_na(f[3], sizeof f[3], r->has_cpu ? (double)r->avg_busy_ns / 1e6 : NAN);
				num_or_na(f[4], sizeof f[4], r->has_cpu ? (double)r->avg_idle_ns / 1e6 : NAN);
				fprintf(table, "%5zu %-12.12s %10.3f %6s %6s %6s %11s %11s %8" PRIu64
					" %10.1f\n", i, host ? host : "-", (double)sp.exec_ns / 1e9, f[0], f[1],
					f[2], f[3], f[4], nm,
					nm ? (double)r->bytes_sent / (double)nm / 1024.0 : 0.0);
			}
		}
		if (tsv_w_close(&t, &e) < 0)
			warn_partial(c, e.msg);
		if (c->ranks_unsampled > 0) {
			char *m = xasprintf("%" PRIu64 " rank%s with messages but no CPU samples, left out "
					    "of ranks.tsv and links.tsv (counted in stats.tsv)",
					    c->ranks_unsampled, c->ranks_unsampled == 1 ? "" : "s");

			if (c->o->run != NULL)
				warn_partial(c, m);	/* a piece of RUN is missing */
			else
				note("parse: %s", m);
			free(m);
		}
	}
	if (open_out(&t, outdir, "links.tsv", "links", lcols, &e) < 0) {
		warn_partial(c, e.msg);
		return;
	}
	lv = rollup_links_sorted(&c->prof);
	for (i = 0; i < c->prof.nlinks; i++) {
		if (any_cpu && (!sampled(&c->prof, lv[i]->src) || !sampled(&c->prof, lv[i]->dst))) {
			c->links_unsampled++;
			c->links_unsampled_msgs += lv[i]->msgs;
			continue;
		}
		tsv_w_i64(&t, lv[i]->src);
		tsv_w_i64(&t, lv[i]->dst);
		tsv_w_u64(&t, lv[i]->msgs);
		tsv_w_u64(&t, lv[i]->bytes);
		tsv_w_u64(&t, lv[i]->bytes / lv[i]->msgs);
		tsv_w_i64(&t, lv[i]->active_ns);
		tsv_w_i64(&t, lv[i]->t_first_ns);
		tsv_w_i64(&t, lv[i]->t_last_ns);
		if (tsv_w_end(&t, &e) < 0)
			c->write_failed = true;
	}
	free(lv);
	if (tsv_w_close(&t, &e) < 0)
		warn_partial(c, e.msg);
}

/* From RUN/meta/run.tsv: see_local (node-local messages were sent over TCP) and the
 * launcher. An unreadable run.tsv leaves them unknown (the rank map reports damage). */
static void
read_run_meta(struct ctx *c, const char *run)
{
	static const char *const cols[] = { "key", "value", NULL };
	char *path = xasprintf("%s/meta/run.tsv", run);
	struct tsv_r t;
	struct err e;

	if (tsv_r_open(&t, path, "meta", 1, cols, &e) == 0) {
		while (tsv_r_next(&t, &e) == 1) {
			const char *k = tsv_r_str(&t, 0), *v = tsv_r_str(&t, 1);

			if (k == NULL || v == NULL)
				continue;
			if (strcmp(k, "see_local") == 0)
				c->see_local = strcmp(v, "1") == 0;
			else if (strcmp(k, "launcher") == 0)
				snprintf(c->launcher, sizeof c->launcher, "%s", v);
		}
		tsv_r_close(&t);
	}
	free(path);
}

/* Open MPI may run over UCX (pml ucx): its streams are UCX's, which the MPICH decoder
 * frames exactly, but Open MPI lays out the UCP tag differently (docs/mpi-decoders.md), so
 * the ranks, tags and communicators read with MPICH's layout are wrong. Say so when the run
 * is Open MPI's and '--mpi mpich' forced that layout, and when a run of unknown launcher (a
 * bare capture) has UCX messages of MPICH context id 65535: Open MPI's collective tags
 * (-16 the barrier, ...) fill those bits, MPICH's own context ids do not reach them. */
static void
warn_ompi_ucx(struct ctx *c, const struct flows_stats *s)
{
	char *m;

	if (strcmp(c->launcher, "openmpi") == 0 && s->dec_conns[MSG_MPICH] > 0)
		m = xasprintf("an Open MPI run over UCX (pml ucx): %" PRIu64 " UCX streams read with "
			      "MPICH's tag layout; message sizes and times are right, ranks, tags and "
			      "communicators are not (docs/mpi-decoders.md; parse with '--mpi auto' or "
			      "'--mpi ompi-ucx')", s->dec_conns[MSG_MPICH]);
	else if (c->launcher[0] == '\0' && c->ucx_ompi_like > 0)
		m = xasprintf("%" PRIu64 " UCX messages carry MPICH context id 65535, as Open MPI's "
			      "collective tags do when read with MPICH's tag layout: if this is an Open "
			      "MPI run over UCX (pml ucx), parse it with '--mpi ompi-ucx'",
			      c->ucx_ompi_like);
	else
		return;
	warn_partial(c, m);
	free(m);
}

/* Which rank pairs could be seen and were: c->cov, c->cov_note and coverage.tsv. */
static void
write_coverage(struct ctx *c, const char *outdir)
{
	static const char *const cols[] = { "rank0", "rank1", "host0", "host1", "node", "msgs", "state",
		NULL };
	int32_t nranks = c->rm ? rankmap_max_rank(c->rm) + 1 : 0;
	const char **host;
	struct rollup_link **lv = rollup_links_sorted(&c->prof);
	struct cov_link *links = xmallocarray(c->prof.nlinks ? c->prof.nlinks : 1, sizeof *links);
	struct cov_pair *rows;
	size_t nrows;
	struct tsv_w t;
	struct err e;

	if (nranks < 0)
		nranks = 0;
	host = xcalloc(nranks > 0 ? (size_t)nranks : 1, sizeof *host);
	for (int32_t r = 0; r < nranks; r++)
		host[r] = rankmap_host(c->rm, r);
	for (size_t i = 0; i < c->prof.nlinks; i++)
		links[i] = (struct cov_link){ lv[i]->src, lv[i]->dst, lv[i]->msgs };
	cov_compute(nranks, host, links, c->prof.nlinks, c->see_local, &c->cov, &rows, &nrows);
	cov_note(&c->cov, c->see_local, c->cov_note, sizeof c->cov_note);
	if (open_out(&t, outdir, "coverage.tsv", "coverage", cols, &e) < 0) {
		warn_partial(c, e.msg);
	} else {
		if (tsv_w_comment(&t, &e, "%s", c->cov_note) < 0)
			c->write_failed = true;
		for (size_t i = 0; i < nrows; i++) {
			tsv_w_i64(&t, rows[i].r0);
			tsv_w_i64(&t, rows[i].r1);
			tsv_w_str(&t, host[rows[i].r0]);
			tsv_w_str(&t, host[rows[i].r1]);
			tsv_w_str(&t, rows[i].same_node ? "same" : "other");
			tsv_w_u64(&t, rows[i].msgs);
			tsv_w_str(&t, cov_state_name(rows[i].state));
			if (tsv_w_end(&t, &e) < 0)
				c->write_failed = true;
		}
		if (tsv_w_close(&t, &e) < 0)
			warn_partial(c, e.msg);
	}
	free(rows);
	free(links);
	free(host);
	free(lv);
}

/* ---- parts: captures parsed at once on threads, then merged in order ---- */

/* The rank owning an endpoint; safe from several threads once the map is sorted
 * (rankmap_lookup sorts it on its first call, made before any thread starts). */
static int32_t
rank_of_map(void *rm, int af, const uint8_t addr[16], uint16_t port)
{
	return rm ? rankmap_lookup(rm, af, addr, port) : -1;
}

struct jobq {
	char **paths, **names;		/* captures and their part names */
	size_t n;
	const char *dir;		/* where the parts go */
	const struct flows_config *cfg;
	struct rankmap *rm;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* a part is done */
	size_t next;			/* next capture to take */
	bool *done;			/* per capture: its part is written (or failed) */
	char **errs;			/* per capture: why its part could not be written, or NULL */
	pthread_t *th;
	size_t nth;			/* threads started */
};

static void *
part_worker(void *arg)
{
	struct jobq *q = arg;

	for (;;) {
		size_t i;
		struct err e;
		char *why = NULL;

		pthread_mutex_lock(&q->mu);
		i = q->next++;
		pthread_mutex_unlock(&q->mu);
		if (i >= q->n)
			return NULL;
		if (part_parse(q->paths[i], q->dir, q->names[i], q->cfg, rank_of_map, q->rm, &e) < 0)
			why = xstrdup(e.msg);
		pthread_mutex_lock(&q->mu);
		q->errs[i] = why;
		q->done[i] = true;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
	}
}

/* CPUs this process may run on. */
static long
cpus_available(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

/* Start parsing every capture into its part, jobs at once (0: the CPUs available). With one
 * job the parts are all made here, before it returns; with more, jobs threads make them
 * while the caller waits for each (parts_wait). The merge starts once all are made: a
 * connection captured at both ends takes times from a later part. Finish with parts_end. */
static void
parts_start(struct jobq *q, char **paths, char **names, size_t n, const char *dir,
	    const struct flows_config *cfg, struct rankmap *rm, long jobs)
{
	*q = (struct jobq){ .paths = paths, .names = names, .n = n, .dir = dir, .cfg = cfg, .rm = rm };
	if (rm != NULL)
		(void)rankmap_lookup(rm, AF_INET, (const uint8_t[16]){ 0 }, 0);	/* sorts it */
	if (jobs <= 0)
		jobs = cpus_available();
	q->errs = xcalloc(n ? n : 1, sizeof *q->errs);
	q->done = xcalloc(n ? n : 1, sizeof *q->done);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	if (jobs <= 1 || n <= 1) {
		part_worker(q);
		return;
	}
	q->th = xcalloc((size_t)jobs < n ? (size_t)jobs : n, sizeof *q->th);
	for (q->nth = 0; q->nth < (size_t)jobs && q->nth < n; q->nth++)
		if (pthread_create(&q->th[q->nth], NULL, part_worker, q) != 0)
			break;
	if (q->nth == 0)
		part_worker(q);	/* no thread could start: make them here */
}

/* Wait for part i. Returns 0, or -E_IO with e set when it could not be written (what is
 * missing then is not in the captures but on our disk): no capture is started after it. */
static int
parts_wait(struct jobq *q, size_t i, struct err *e)
{
	int rc = 0;

	pthread_mutex_lock(&q->mu);
	while (!q->done[i])
		pthread_cond_wait(&q->cv, &q->mu);
	if (q->errs[i] != NULL) {
		rc = err_set(e, E_IO, "%s", q->errs[i]);
		q->next = q->n;
	}
	pthread_mutex_unlock(&q->mu);
	return rc;
}

static void
parts_end(struct jobq *q)
{
	for (size_t i = 0; i < q->nth; i++)
		pthread_join(q->th[i], NULL);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	for (size_t i = 0; i < q->n; i++)
		free(q->errs[i]);
	free(q->errs);
	free(q->done);
	free(q->th);
}

/* The capture files of node (RUN/capture/NODE.*), sorted; caller frees. */
static char **
node_captures(const char *run, const char *node, size_t *n)
{
	char *d = xasprintf("%s/capture", run), *pre = xasprintf("%s.", node);
	char **v = list_dir(d, pre, ".pcap", n);

	free(d);
	free(pre);
	return v;
}

/* --part NODE: that node's captures into RUN/profile/parts/ (or -o DIR/parts). Returns 0,
 * or negative with e set. */
static int
parse_part_only(const struct parse_opts *o, const struct flows_config *cfg, const char *outdir,
		struct err *e)
{
	char node[256], *dir, **caps, **names;
	struct rankmap *rm;
	struct jobq q;
	struct err me;
	size_t n, i;
	int rc = 0;

	if (strcmp(o->part, ".") == 0) {
		if (gethostname(node, sizeof node - 1) != 0)
			return err_set(e, E_IO, "cannot read this node's name");
		node[sizeof node - 1] = '\0';
	} else {
		snprintf(node, sizeof node, "%s", o->part);
	}
	caps = node_captures(o->run, node, &n);
	if (n == 0) {
		fs_list_free(caps, n);
		return err_set(e, E_IO, "no capture of node '%s' in '%s/capture' (NODE.pcap[.gz])", node,
			       o->run);
	}
	dir = xasprintf("%s/parts", outdir);
	rm = rankmap_new();
	/* ranks of the endpoints; the map's problems are the merge's to report */
	if (rankmap_load_run(rm, o->run, &me) < 0)
		note("parse: %s (the merge reports it)", me.msg);
	names = xcalloc(n, sizeof *names);
	for (i = 0; i < n; i++)
		names[i] = xstrdup(strrchr(caps[i], '/') + 1);
	if ((rc = fs_mkdir_p(dir, e)) >= 0) {
		rc = 0;
		parts_start(&q, caps, names, n, dir, cfg, rm, o->jobs);
		for (i = 0; i < n && rc == 0; i++)
			rc = parts_wait(&q, i, e);
		parts_end(&q);
		if (rc == 0)
			note("parse: %zu part%s of node '%s' in '%s'", n, n == 1 ? "" : "s", node, dir);
	}
	fs_list_free(caps, n);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	rankmap_free(rm);
	free(dir);
	return rc;
}

/* --merge: the part names in DIR (NAME.stats.tsv), in the order of their captures. */
static char **
list_parts(const char *dir, size_t *n)
{
	static const char suffix[] = ".stats.tsv";
	char **v = list_dir(dir, "", suffix, n);
	size_t i;

	for (i = 0; i < *n; i++) {
		char *b = strrchr(v[i], '/') + 1, *name;
		size_t len = strlen(b);

		if (len > sizeof suffix - 1 && strcmp(b + len - (sizeof suffix - 1), suffix) == 0)
			len -= sizeof suffix - 1;
		name = xasprintf("%.*s", (int)len, b);
		free(v[i]);
		v[i] = name;
	}
	if (*n > 1)
		qsort(v, *n, sizeof *v, str_cmp);
	return v;
}

/* Every capture of RUN/capture has a part in names: else a warning (a node's part is
 * missing from the merge). */
static void
check_parts(struct ctx *c, char **caps, size_t ncaps, char **names, size_t n, const char *dir)
{
	for (size_t i = 0; i < ncaps; i++) {
		const char *b = strrchr(caps[i], '/') + 1;

		/* names is NULL when the parts directory cannot be read: bsearch may not see it */
		if (n == 0 || bsearch(&b, names, n, sizeof *names, str_cmp) == NULL)
			err_sayf(say_partial, c, "'%s' has no part in '%s' (run 'contend parse --part "
				 "NODE' on its node)", caps[i], dir);
	}
}

/* Threads that make rows after the captures: -j, and none (this one) for -j 1. */
static size_t
row_threads(const struct parse_opts *o)
{
	long jobs = o->jobs > 0 ? o->jobs : cpus_available();

	return jobs > 1 ? (size_t)jobs : 0;
}

/* The inputs of a parse: RUN's captures and samples (owned) or the options' (borrowed). */
struct inputs {
	char **pcaps, **samples;
	size_t npcaps, nsamples;
	bool owned;
};

static void
inputs_release(struct inputs *in)
{
	if (!in->owned)
		return;
	fs_list_free(in->pcaps, in->npcaps);
	fs_list_free(in->samples, in->nsamples);
}

/* RUN's captures and launcher (which decides whose UCX streams are). Returns 0, or
 * negative with e set when RUN is not a run directory. */
static int
open_run(struct ctx *c, const char *run, struct flows_config *cfg, struct inputs *in, struct err *e)
{
	/* A directory with none of a run's parts is not a run: write nothing there. */
	static const char *const parts[] = { "capture", "samples", "meta", "sockets" };
	struct stat sb;
	bool any = false;
	char *d;

	if (stat(run, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return err_set(e, E_IO, "cannot open run directory '%s'", run);
	for (size_t i = 0; i < 4 && !any; i++) {
		d = xasprintf("%s/%s", run, parts[i]);
		any = stat(d, &sb) == 0 && S_ISDIR(sb.st_mode);
		free(d);
	}
	if (!any)
		return err_set(e, E_FORMAT, "'%s' is not a run directory (no capture/, samples/, meta/ or "
			       "sockets/; 'contend collect -o DIR' writes one)", run);
	d = xasprintf("%s/capture", run);
	in->pcaps = list_dir(d, "", ".pcap", &in->npcaps);
	free(d);
	in->owned = true;
	read_run_meta(c, run);
	cfg->ucx_is_ompi = strcmp(c->launcher, "openmpi") == 0;	/* pml ucx, if UCX at all */
	return 0;
}

/* RUN's samples and rank map; what is missing or damaged there is a warning. */
static void
load_run(struct ctx *c, const char *run, bool merge, struct inputs *in)
{
	const char *const *pm;
	const struct rankmap_stats *rs;
	struct err e;
	char *d = xasprintf("%s/samples", run);
	size_t nprob;

	in->samples = list_dir(d, "rank-", ".tsv", &in->nsamples);
	free(d);
	c->rm = rankmap_new();
	if (rankmap_load_run(c->rm, run, &e) < 0)
		warn_partial(c, e.msg);
	nprob = rankmap_problems(c->rm, &pm);
	rs = rankmap_stats(c->rm);
	for (size_t i = 0; i < nprob; i++)
		warn_partial(c, pm[i]);
	if (rs->problems > nprob)
		err_sayf(say_partial, c, "%" PRIu64 " more problems in '%s/meta'", rs->problems - nprob, run);
	if (rs->bad_rows > 0 && rankmap_first_bad_socket(c->rm) != NULL)
		err_sayf(say_partial, c, "%" PRIu64 " bad rows in '%s/sockets' skipped (first: %s)",
			 rs->bad_rows, run, rankmap_first_bad_socket(c->rm));
	if (in->npcaps == 0 && !merge)
		err_sayf(say_partial, c, "'%s/capture': no captures (*.pcap, *.pcap.gz)", run);
	if (in->nsamples == 0)
		err_sayf(say_partial, c, "'%s/samples': no samples (rank-*.tsv.gz)", run);
}

/* OUTDIR made, and messages.tsv and conns.tsv opened in it. Returns 0, or negative with e
 * set (a profile is there and force is not set, or the directory cannot be written). */
static int
open_outputs(struct ctx *c, const char *outdir, bool force, struct err *e)
{
	char *path = xasprintf("%s/messages.tsv", outdir);
	bool exists = access(path, F_OK) == 0;

	free(path);
	if (!force && exists)
		return err_set(e, E_USAGE, "'%s' exists (use --force to overwrite)", outdir);
	if (fs_mkdir_p(outdir, e) < 0 || open_out(&c->msgs, outdir, "messages.tsv", "messages", msg_cols, e) < 0)
		return -E_IO;
	if (open_out(&c->conns, outdir, "conns.tsv", "conns", conn_cols, e) < 0) {
		(void)tsv_w_close(&c->msgs, NULL);
		return -E_IO;
	}
	return 0;
}

/* Each capture parsed alone into a part (on as many threads as asked), then the parts
 * merged in capture order into messages.tsv and conns.tsv: the same profile whatever the
 * thread count, and the same as a merge of parts made on the nodes (--part, --merge).
 * Returns the merge (caller frees with part_merge_free), or NULL with e set when a part
 * could not be written. */
static struct part_merge *
merge_parts(struct ctx *c, const struct flows_config *cfg, const struct inputs *in,
	    const char *outdir, struct parse_times *tm, double *t_step, struct err *e)
{
	const struct parse_opts *o = c->o;
	struct flows_cb cb = { .msg = on_msg, .conn = on_conn, .rank_of = NULL, .ctx = c };
	struct part_merge *merge;
	struct jobq q;
	char **names, *partdir;
	size_t nnames, nok, i;
	double t;	/* s */
	int rc = 0;

	if (o->merge) {
		partdir = xasprintf("%s/parts", outdir);
		names = list_parts(partdir, &nnames);
		if (nnames == 0)
			err_sayf(say_partial, c, "'%s': no parts (run 'contend parse --part NODE' on "
				 "each node)", partdir);
		check_parts(c, in->pcaps, in->npcaps, names, nnames, partdir);
	} else {
		partdir = xasprintf("%s/.parts-%ld", outdir, (long)getpid());
		if (fs_mkdir_p(partdir, e) < 0) {
			free(partdir);
			return NULL;
		}
		nnames = in->npcaps;
		names = xcalloc(nnames ? nnames : 1, sizeof *names);
		for (i = 0; i < nnames; i++)
			names[i] = xasprintf("%zu", i);
		parts_start(&q, in->pcaps, names, nnames, partdir, cfg, c->rm, o->jobs);
	}
	merge = part_merge_new(&cb, cfg, say_partial);
	/* every part first: a connection captured at both ends takes times from both copies */
	for (nok = 0; nok < nnames && !o->merge; nok++)
		if ((rc = parts_wait(&q, nok, e)) < 0)
			break;
	if (o->merge)
		nok = nnames;
	t = clock_mono_s();
	tm->wait_s += t - *t_step;
	part_merge_twins(merge, partdir, names, nok);
	for (i = 0; i < nok; i++) {
		struct err me;

		if (part_merge_add(merge, partdir, names[i], &me) < 0)
			warn_partial(c, me.msg);
		if (!o->merge)
			part_remove(partdir, names[i]);
	}
	*t_step = clock_mono_s();
	tm->merge_s += *t_step - t;
	if (!o->merge) {
		parts_end(&q);
		for (; i < nnames; i++)
			part_remove(partdir, names[i]);	/* after a part that failed: the rest */
		rmdir(partdir);
	}
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(partdir);
	if (rc < 0) {
		part_merge_free(merge);
		return NULL;
	}
	return merge;
}

static void
ctx_release(struct ctx *c)
{
	for (size_t i = 0; i < c->nwarn_msgs; i++)
		free(c->warn_msgs[i]);
	free(c->warn_msgs);
	rollup_release(&c->prof);
	for (size_t i = 0; i < c->ntimes; i++) {
		free(c->times[i].send_ns);
		free(c->times[i].arr_ns);
	}
	free(c->times);
	rankmap_free(c->rm);
}

void
parse_opts_init(struct parse_opts *o)
{
	memset(o, 0, sizeof *o);
	o->idle_gap_ns = GENERIC_DEFAULT_IDLE_GAP_NS;
	o->busy_threshold = PARSE_DEFAULT_BUSY_THRESHOLD;
}

int
parse_run(const struct parse_opts *o, struct parse_summary *s, struct err *e)
{
	struct ctx c;
	struct inputs in = { 0 };
	struct flows_config cfg = { .mpi = o->mpi, .max_conns = o->max_streams,
				    .max_buf_bytes = o->max_buffer };
	struct part_merge *merge = NULL;
	const struct part_sum *sum;
	struct err we;
	char *outdir;
	double t_start = clock_mono_s(), t_step;	/* s */
	int rc;

	memset(s, 0, sizeof *s);
	/* Segments held behind capture holes are allocated and freed by the thousand: keep
	 * freed memory in the heap instead of returning it to the kernel (and faulting it in
	 * again) each time. The held bytes are capped per direction, so this bounds nothing. */
	mallopt(M_MMAP_THRESHOLD, 8 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	memset(&c, 0, sizeof c);
	c.o = o;
	c.run_last_msg_ns = INT64_MIN;
	rollup_init(&c.prof);
	generic_set_idle_gap(o->idle_gap_ns);
	outdir = o->outdir ? xstrdup(o->outdir) : xasprintf("%s/profile", o->run);
	if (o->run != NULL) {
		if ((rc = open_run(&c, o->run, &cfg, &in, e)) < 0)
			goto out;
		if (o->part != NULL) {
			s->parts_only = true;
			rc = parse_part_only(o, &cfg, outdir, e);
			goto out;
		}
		load_run(&c, o->run, o->merge, &in);
	} else {
		in = (struct inputs){ .pcaps = o->pcaps, .npcaps = o->npcaps, .samples = o->samples,
				      .nsamples = o->nsamples };
	}
	if ((rc = open_outputs(&c, outdir, o->force, e)) < 0)
		goto out;
	msgs_rows_start(&c, row_threads(o));
	t_step = clock_mono_s();
	merge = merge_parts(&c, &cfg, &in, outdir, &s->times, &t_step, e);
	msgs_rows_end(&c);
	if (tsv_w_close(&c.msgs, &we) < 0 || tsv_w_close(&c.conns, &we) < 0) {
		c.write_failed = true;
		c.werr = we;
	}
	if (merge == NULL) {
		rc = -E_IO;
		goto out;
	}
	sum = part_merge_sum(merge);
	c.pcap_files = sum->pcap_files;
	c.pcap_unreadable = sum->pcap_unreadable;
	c.pcap_truncated = sum->pcap_truncated;
	c.pcap_damaged = sum->pcap_damaged;
	c.twin_msgs = sum->twin_msgs;
	c.twin_first = sum->twin_first;
	c.twin_last = sum->twin_last;
	c.twin_unmatched = sum->twin_unmatched;
	s->st = sum->st;
	s->times.merge_s += clock_mono_s() - t_step;
	t_step = clock_mono_s();
	do_samples(&c, in.samples, in.nsamples, outdir, row_threads(o));
	s->times.samples_s = clock_mono_s() - t_step;
	t_step = clock_mono_s();
	rollup_netparams(&c.prof, o->lat_ns, o->bw_Bps, &s->np);
	write_netparams(&c, &s->np, outdir);
	write_ranks_links(&c, &s->np, outdir, o->table);
	write_coverage(&c, outdir);
	warn_ompi_ucx(&c, &s->st);
	write_warnings(&c, outdir);	/* after the last warning */
	write_stats(&c, &s->st, outdir);
	s->times.out_s = clock_mono_s() - t_step;
	s->times.total_s = clock_mono_s() - t_start;
	snprintf(s->cov_note, sizeof s->cov_note, "%s", c.cov_note);
	rc = c.warnings ? 1 : 0;
	if (c.write_failed) {
		warnx_("parse: %s", c.werr.msg);
		rc = 1;
	}
out:
	part_merge_free(merge);
	ctx_release(&c);
	inputs_release(&in);
	free(outdir);
	return rc;
}
