/* simgrid: write a SimGrid platform (simgrid.dtd, platform version 4.1) and SMPI
 * time-independent traces (the action format of SimGrid 3.32's
 * src/smpi/internals/smpi_replay.cpp: "RANK ACTION ARGS", one per line). */
#include "export/simgrid.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/fsutil.h"
#include "lib/xalloc.h"

#define SG_DEFAULT_BW_Bps 125e6	/* a host link when nothing was measured: 1 Gbit/s */
#define SG_DEFAULT_LAT_NS 50000	/* and its one-way latency */
#define SG_TAG_NONE 0		/* the tag of a message without one */
#define SG_TAG_NEG_BASE 1000000	/* Open MPI's negative collective tags -t become this + t */

/* A file of dir opened for writing; NULL with e set. */
static FILE *
open_in(const char *dir, const char *name, struct err *e)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (f == NULL)
		err_sys(e, E_IO, "cannot create '%s'", path);
	free(path);
	return f;
}

static int
close_in(FILE *f, const char *dir, const char *name, struct err *e)
{
	if (ferror(f) | (fclose(f) != 0))
		return err_sys(e, E_IO, "cannot write '%s/%s'", dir, name);
	return 0;
}

/* Host names go into XML attributes and the hostfile: keep letters, digits, '-', '_', '.'. */
static void
safe_name(char *out, size_t n, const char *in)
{
	size_t i;

	for (i = 0; i + 1 < n && in[i] != '\0'; i++) {
		char c = in[i];

		out[i] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
			  c == '_' || c == '.') ? c : '_';
	}
	out[i] = '\0';
	if (i == 0)
		snprintf(out, n, "host");
}

/* Each host's name for SimGrid: safe_name, made unique with "-INDEX" when two hosts'
 * names differ only in the bytes safe_name replaces. Caller frees. */
static char (*sg_names(const struct xtrace *x))[PROF_HOST_MAX]
{
	char (*n)[PROF_HOST_MAX] = xcalloc((size_t)x->nhosts, sizeof *n);

	for (int h = 0; h < x->nhosts; h++) {
		safe_name(n[h], sizeof n[h] - 12, x->hosts[h]);
		for (int k = 0; k < h; k++) {
			if (strcmp(n[k], n[h]) == 0) {
				size_t len = strlen(n[h]);

				snprintf(n[h] + len, sizeof n[h] - len, "-%d", h);
				break;
			}
		}
	}
	return n;
}

/* The bandwidth of host h's local network from topology.tsv; NAN unknown. */
static double
topo_bw(const struct xtrace *x, int h)
{
	const struct prof *p = &x->p;

	if (!p->have_topo)
		return NAN;
	for (int i = 0; i < p->ntopo; i++) {
		if (strcmp(p->topo[i].kind, "member") != 0 || strcmp(p->topo[i].a, x->hosts[h]) != 0)
			continue;
		for (int j = 0; j < p->ntopo; j++)
			if (strcmp(p->topo[j].kind, "net") == 0 && strcmp(p->topo[j].a, p->topo[i].b) == 0)
				return p->topo[j].bw_Bps;
	}
	return NAN;
}

static int
write_platform(const struct xtrace *x, const char (*names)[PROF_HOST_MAX], const char *dir, double speed,
	       struct err *e)
{
	FILE *f = open_in(dir, "platform.xml", e);
	double bw = x->p.have_net && x->p.bw_Bps > 0 && isfinite(x->p.bw_Bps) ? x->p.bw_Bps : SG_DEFAULT_BW_Bps;
	int64_t lat = x->p.have_net && x->p.lat_ns >= 0 ? x->p.lat_ns : SG_DEFAULT_LAT_NS;

	if (f == NULL)
		return -E_IO;
	fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
		   "<!-- written by contend %s -->\n<platform version=\"4.1\">\n"
		   "  <config>\n"
		   "    <prop id=\"smpi/bw-factor\" value=\"0:1\"/>\n"
		   "    <prop id=\"smpi/lat-factor\" value=\"0:1\"/>\n"
		   "    <prop id=\"smpi/host-speed\" value=\"%.6gf\"/>\n"
		   "  </config>\n"
		   "  <zone id=\"run\" routing=\"Full\">\n", CONTEND_VERSION, speed);
	for (int h = 0; h < x->nhosts; h++) {
		double hb = topo_bw(x, h);

		fprintf(f, "    <host id=\"%s\" speed=\"%.6gf\"/>\n", names[h], speed);
		fprintf(f, "    <link id=\"link-%s\" bandwidth=\"%.6gBps\" latency=\"%.6gs\"/>\n", names[h],
			hb > 0 && isfinite(hb) ? hb : bw, (double)lat / 2 / 1e9);
	}
	for (int h = 0; h < x->nhosts; h++) {
		for (int k = h + 1; k < x->nhosts; k++)
			fprintf(f, "    <route src=\"%s\" dst=\"%s\"><link_ctn id=\"link-%s\"/><link_ctn id=\"link-%s\"/></route>\n",
				names[h], names[k], names[h], names[k]);
	}
	fputs("  </zone>\n</platform>\n", f);
	return close_in(f, dir, "platform.xml", e);
}

/* Seconds of busy time of the rank at index i in [a, b); *cur is a cursor into its phases. */
static double
busy_s(const struct xtrace *x, int i, int64_t a, int64_t b, long *cur)
{
	double ns = 0;

	while (*cur < x->ph_first[i + 1] && x->ph[*cur].t1_ns <= a)
		(*cur)++;
	for (long k = *cur; k < x->ph_first[i + 1] && x->ph[k].t0_ns < b; k++) {
		int64_t lo = x->ph[k].t0_ns > a ? x->ph[k].t0_ns : a, hi = x->ph[k].t1_ns < b ? x->ph[k].t1_ns : b;

		if (x->ph[k].busy && hi > lo)
			ns += (double)(hi - lo);
	}
	return ns / 1e9;
}

static long
sg_tag(const struct prof_msg *m)
{
	if (!m->have_tag)
		return SG_TAG_NONE;
	return m->tag < 0 ? SG_TAG_NEG_BASE - (long)m->tag : (long)m->tag;
}

struct act {
	int64_t t_ns;
	bool send;
	long m;			/* index into p.msgs */
};

static int
cmp_act(const void *a, const void *b)
{
	const struct act *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	if (x->send != y->send)
		return x->send ? -1 : 1;	/* post the send before blocking in a receive */
	return (x->m > y->m) - (x->m < y->m);
}

static void
compute(FILE *f, int id, double s, double speed, struct simgrid_stats *st)
{
	if (s <= 0)
		return;
	fprintf(f, "%d compute %.9g\n", id, s * speed);
	st->computes++;
	st->busy_s += s;
}

/* DIR/rank-<id>.txt for p.ranks[i], written as rank id (its index: SMPI's ranks are 0..n-1). */
static int
write_rank(const struct xtrace *x, const char *dir, int i, double speed, struct simgrid_stats *st, struct err *e)
{
	int rank = x->p.ranks[i].rank;
	char name[32];
	struct act *acts;
	long n = 0, cur = x->ph_first[i];
	int64_t t, t_end;
	FILE *f;

	acts = xcalloc((size_t)(x->rmsgs_first[i + 1] - x->rmsgs_first[i]) + 1, sizeof *acts);
	for (long k = x->rmsgs_first[i]; k < x->rmsgs_first[i + 1]; k++) {
		const struct prof_msg *m = &x->p.msgs[x->rmsgs[k]];

		if (m->src == rank)
			acts[n++] = (struct act){ .t_ns = m->t_ns, .send = true, .m = x->rmsgs[k] };
		else
			acts[n++] = (struct act){ .t_ns = m->t_last_ns, .send = false, .m = x->rmsgs[k] };
	}
	qsort(acts, (size_t)n, sizeof *acts, cmp_act);
	snprintf(name, sizeof name, "rank-%d.txt", i);
	if ((f = open_in(dir, name, e)) == NULL) {
		free(acts);
		return -E_IO;
	}
	/* time runs from the rank's first phase (its start) to its last */
	t = x->ph_first[i] < x->ph_first[i + 1] ? x->ph[x->ph_first[i]].t0_ns : x->t0_ns;
	t_end = x->ph_first[i] < x->ph_first[i + 1] ? x->ph[x->ph_first[i + 1] - 1].t1_ns : x->t1_ns;
	fprintf(f, "%d init\n", i);
	for (long k = 0; k < n; k++) {
		const struct prof_msg *m = &x->p.msgs[acts[k].m];

		if (acts[k].t_ns > t) {
			compute(f, i, busy_s(x, i, t, acts[k].t_ns, &cur), speed, st);
			t = acts[k].t_ns;
		}
		if (acts[k].send) {
			fprintf(f, "%d isend %d %ld %" PRId64 "\n", i, xtrace_rank(x, m->dst), sg_tag(m), m->bytes);
			st->sends++;
		} else {
			fprintf(f, "%d recv %d %ld %" PRId64 "\n", i, xtrace_rank(x, m->src), sg_tag(m), m->bytes);
			st->recvs++;
		}
	}
	if (t_end > t)
		compute(f, i, busy_s(x, i, t, t_end, &cur), speed, st);
	fprintf(f, "%d finalize\n", i);
	free(acts);
	return close_in(f, dir, name, e);
}

int
simgrid_write(const struct xtrace *x, const char *dir, double speed, struct simgrid_stats *st, struct err *e)
{
	const struct prof *p = &x->p;
	char(*names)[PROF_HOST_MAX];
	FILE *f;
	int rc;

	memset(st, 0, sizeof *st);
	st->measured_ns = prof_dedicated_ns(p);
	if ((rc = fs_mkdir_p(dir, e)) < 0)
		return rc;
	names = sg_names(x);
	rc = write_platform(x, (const char(*)[PROF_HOST_MAX])names, dir, speed, e);
	if (rc == 0 && (f = open_in(dir, "hostfile", e)) == NULL)
		rc = -E_IO;
	if (rc == 0) {
		for (int i = 0; i < p->nranks; i++)
			fprintf(f, "%s\n", names[x->host_of[i]]);
		rc = close_in(f, dir, "hostfile", e);
	}
	free(names);
	if (rc < 0)
		return rc;
	for (int i = 0; i < p->nranks; i++)
		if ((rc = write_rank(x, dir, i, speed, st, e)) < 0)
			return rc;
	if ((f = open_in(dir, "traces.txt", e)) == NULL)
		return -E_IO;
	for (int i = 0; i < p->nranks; i++)
		fprintf(f, "rank-%d.txt\n", i);
	if ((rc = close_in(f, dir, "traces.txt", e)) < 0)
		return rc;
	if ((f = open_in(dir, "replay.sh", e)) == NULL)
		return -E_IO;
	fprintf(f, "#!/bin/sh\n# Replay the run in SimGrid's SMPI (written by contend export --format simgrid).\n"
		   "# Prints SMPI's \"Simulation time\"; the measured run took %.6f s.\n"
		   "cd \"$(dirname \"$0\")\" || exit 1\n"
		   "exec smpirun -np %d -platform platform.xml -hostfile hostfile -replay traces.txt \"$@\"\n",
		(double)st->measured_ns / 1e9, p->nranks);
	if ((rc = close_in(f, dir, "replay.sh", e)) < 0)
		return rc;
	{
		char *path = xasprintf("%s/replay.sh", dir);

		chmod(path, 0755);
		free(path);
	}
	if ((f = open_in(dir, "README", e)) == NULL)
		return -E_IO;
	fprintf(f, "SimGrid export of %s by contend %s.\n\n"
		   "ranks %d on %d hosts; rank R of the replay is the R-th rank of ranks.tsv\n"
		   "host speed %.6g flop/s: a compute of F flops stands for F / speed seconds of busy time\n"
		   "measured_s %.6f (the longest rank, first to last CPU sample)\n"
		   "busy_s %.6f (all ranks' busy time, as computes)\n"
		   "messages %ld (left out: %ld with an unknown end, %ld protocol records)\n\n"
		   "run: sh replay.sh   (or: smpirun -np %d -platform platform.xml -hostfile hostfile -replay traces.txt)\n",
		p->run, CONTEND_VERSION, p->nranks, x->nhosts, speed, (double)st->measured_ns / 1e9, st->busy_s,
		x->nmsgs, x->msgs_unknown, x->msgs_ctrl, p->nranks);
	return close_in(f, dir, "README", e);
}
