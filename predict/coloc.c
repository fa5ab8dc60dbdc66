/* coloc: the CPU stretch of co-located ranks (predict/coloc.h). */
#include "predict/coloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
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

double
coloc_stretch(double sd, double cap, const struct coloc_rank *c)
{
	double extra, m, cores;

	if (!(cap > 0))
		cap = 1;
	extra = sd * cap - 1;	/* the competitors' demand, in busy processes */
	if (!(extra > 0))
		return sd;
	m = 1 + (c != NULL && c->others_busy > 0 ? c->others_busy : 0);
	cores = c != NULL && c->cores > 0 ? c->cores : 1;
	return share(m, cores) / share(m + extra, cores) / cap;
}

/* The busy phases of rank, sorted by start: a borrowed array of n pointers, owned by the
 * caller. */
static const struct prof_busy **
phases_of(const struct prof *p, int rank, long *n)
{
	const struct prof_busy **ph = xmallocarray((size_t)p->nbusy + 1, sizeof *ph);

	*n = 0;
	for (long k = 0; k < p->nbusy; k++)
		if (p->busy[k].rank == rank)
			ph[(*n)++] = &p->busy[k];
	qsort(ph, (size_t)*n, sizeof *ph, cmp_start);
	return ph;
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
	for (int i = 0; i < p->nranks; i++) {
		const struct prof_rank *ri = &p->ranks[i];
		int first = -1;

		c[i] = (struct coloc_rank){ 0, 0, 1 };
		for (int j = 0; j < p->nranks; j++) {
			const struct prof_rank *rj = &p->ranks[j];
			double u = (rj->comp_pct + rj->comm_pct) / 100;

			if (strcmp(ri->host, rj->host) != 0)
				continue;
			if (first < 0)
				first = j;
			c[i].nlocal++;
			if (j == i)
				continue;
			if (p->have_phases) {	/* how much of i's busy time j was busy too */
				long na, nb;
				const struct prof_busy **a = phases_of(p, ri->rank, &na);
				const struct prof_busy **b = phases_of(p, rj->rank, &nb);
				double o = overlap(a, na, b, nb);

				free(a);
				free(b);
				if (o >= 0)
					u = o;
			}
			if (u > 0)
				c[i].others_busy += fmin(u, 1);
		}
		if (p->run != NULL && first >= 0) {
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
}
