/* coloc: the CPU stretch of co-located ranks (predict/coloc.h). */
#include "predict/coloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/tsv.h"
#include "lib/xalloc.h"
#include "parse/rankmap.h"

static int
cmp_start(const void *x, const void *y)
{
	const struct prof_busy *a = *(const struct prof_busy *const *)x, *b = *(const struct prof_busy *const *)y;

	return (a->t_start_ns > b->t_start_ns) - (a->t_start_ns < b->t_start_ns);
}

/* The share of a CPU each of n equally busy processes gets from cores cores. */
static double
share(double n, double cores)
{
	return n <= cores ? 1 : cores / n;
}

/* The rule both stretches share: the competitors' extra demand sd * cap - 1 joins the rank
 * and its neighbours' demand others on the node's cores. */
static double
stretch(double sd, double cap, double others, const struct coloc_rank *c)
{
	double extra, m, cores;

	if (!(cap > 0))
		cap = 1;
	extra = sd * cap - 1;	/* the competitors' demand, in busy processes */
	if (!(extra > 0))
		return sd;
	m = 1 + (others > 0 ? others : 0);
	cores = c != NULL && c->cores > 0 ? c->cores : 1;
	return share(m, cores) / share(m + extra, cores) / cap;
}

double
coloc_stretch(double sd, double cap, const struct coloc_rank *c)
{
	return stretch(sd, cap, c != NULL ? c->others_busy : 0, c);
}

double
coloc_stretch_run(double sd, double cap, const struct coloc_rank *c)
{
	return stretch(sd, cap, c != NULL ? c->others_runnable : 0, c);
}

/* The busy phases of every rank, sorted by start: rank p->ranks[i]'s are ph[off[i]..off[i +
 * 1]). One pass over the phases and one sort per rank, instead of a pass over all of them
 * per pair of neighbours (which grew with ranks times phases). Phases of ranks the profile
 * does not list are left out. The caller frees *ph and *off. */
void
coloc_phases_by_rank(const struct prof *p, const struct prof_busy ***ph, long **off)
{
	long *o = xcalloc((size_t)p->nranks + 2, sizeof *o), *at;
	const struct prof_busy **a = xmallocarray((size_t)p->nbusy + 1, sizeof *a);
	int *ix = xmallocarray((size_t)p->nbusy + 1, sizeof *ix);

	for (long k = 0; k < p->nbusy; k++) {
		const struct prof_rank *r = prof_rank(p, p->busy[k].rank);

		ix[k] = r != NULL ? (int)(r - p->ranks) : -1;
		if (ix[k] >= 0)
			o[ix[k] + 2]++;
	}
	for (int i = 0; i < p->nranks; i++)
		o[i + 2] += o[i + 1];
	at = o + 1;	/* at[i]: where rank i's next phase goes; it ends at rank i's end, the start of i + 1 */
	for (long k = 0; k < p->nbusy; k++)	/* in file order, as the sort had them before */
		if (ix[k] >= 0)
			a[at[ix[k]]++] = &p->busy[k];
	for (int i = 0; i < p->nranks; i++)
		qsort(a + o[i], (size_t)(o[i + 1] - o[i]), sizeof *a, cmp_start);
	free(ix);
	*ph = a;
	*off = o;
}

/* The share of a's busy time during which b was busy too; -1 when a was never busy. */
static double
overlap(const struct prof_busy *const *a, long na, const struct prof_busy *const *b, long nb)
{
	double busy = 0, both = 0;
	long j = 0;

	for (long i = 0; i < na; i++) {
		busy += (double)(a[i]->t_end_ns - a[i]->t_start_ns);
		while (j < nb && b[j]->t_end_ns <= a[i]->t_start_ns)
			j++;
		for (long k = j; k < nb && b[k]->t_start_ns < a[i]->t_end_ns; k++) {
			int64_t s = a[i]->t_start_ns > b[k]->t_start_ns ? a[i]->t_start_ns : b[k]->t_start_ns;
			int64_t e = a[i]->t_end_ns < b[k]->t_end_ns ? a[i]->t_end_ns : b[k]->t_end_ns;

			if (e > s)
				both += (double)(e - s);
		}
	}
	return busy > 0 ? both / busy : -1;
}

int
coloc_shared(const struct prof *p)
{
	int n = 0;

	for (int i = 0; i < p->nranks; i++)
		for (int j = 0; j < p->nranks; j++)
			if (j != i && strcmp(p->ranks[i].host, p->ranks[j].host) == 0) {
				n++;
				break;
			}
	return n;
}

void
coloc_read(const struct prof *p, struct coloc_rank *c)
{
	const struct prof_busy **ph = NULL;
	long *off = NULL;

	if (p->have_phases)
		coloc_phases_by_rank(p, &ph, &off);
	for (int i = 0; i < p->nranks; i++) {
		const struct prof_rank *ri = &p->ranks[i];
		int first = -1;

		c[i] = (struct coloc_rank){ 0, 0, 1, 0 };
		for (int j = 0; j < p->nranks; j++) {
			const struct prof_rank *rj = &p->ranks[j];
			double u = (rj->comp_pct + rj->comm_pct) / 100;
			double run = u;	/* j's runnable share of the run */

			if (strcmp(ri->host, rj->host) != 0)
				continue;
			if (first < 0)
				first = j;
			c[i].nlocal++;
			if (j == i)
				continue;
			if (rj->run_ns >= 0 && rj->wait_ns >= 0 && rj->exec_ns > 0 &&
			    (double)rj->run_ns + (double)rj->wait_ns > 0)	/* 0 0: no schedstat */
				run = ((double)rj->run_ns + (double)rj->wait_ns) / (double)rj->exec_ns;
			if (run > 0)
				c[i].others_runnable += fmin(run, 1);
			if (p->have_phases) {	/* how much of i's busy time j was busy too */
				double o = overlap(ph + off[i], off[i + 1] - off[i], ph + off[j], off[j + 1] - off[j]);

				if (o >= 0)
					u = o;
			}
			if (u > 0)
				c[i].others_busy += fmin(u, 1);
		}
		if (first >= 0 && first < i) {	/* the node's first rank read its meta already */
			c[i].cores = c[first].cores;
		} else if (p->run != NULL && first >= 0) {
			struct rankmap *m = rankmap_new();
			char *path = xasprintf("%s/meta/rank-%d.tsv", p->run, p->ranks[first].rank);
			struct err e;

			if (rankmap_load_meta(m, path, &e) == 0) {
				double cap = rankmap_cpu_capacity(m, p->ranks[first].rank);

				if (cap > 0)
					c[i].cores = cap;
			}
			free(path);
			rankmap_free(m);
		}
	}
	free(ph);
	free(off);
}

bool
coloc_whole_cpu(const struct prof *p, const struct coloc_rank *c, int i)
{
	char *path;
	double cap;

	if (!(c[i].cores >= c[i].nlocal))
		return false;
	if (p->run == NULL)
		return true;
	path = xasprintf("%s/meta/rank-%d.tsv", p->run, p->ranks[i].rank);
	cap = tsv_kv_positive(path, "meta", "cpu_capacity", 1);
	free(path);
	return cap >= 1;
}
