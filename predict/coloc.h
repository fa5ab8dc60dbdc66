/* coloc: several ranks on one node. A node's ranks share its CPUs with each other and with
 * the scenario's competitors, so a competitor slows each of them less than it would slow a
 * rank alone on the node, and not at all while the node has a core to spare. */
#ifndef CONTEND_PREDICT_COLOC_H
#define CONTEND_PREDICT_COLOC_H

#include "predict/profile.h"

/* What a rank's node holds besides the rank itself. */
struct coloc_rank {
	int nlocal;		/* the node's ranks, this one included (>= 1) */
	double others_busy;	/* the other local ranks' busy share of this rank's busy time
				 * (from the phases; else their busy fractions), summed */
	double cores;		/* cores' worth the node's ranks may use (meta cpu_capacity),
				 * 1 when the run does not say */
	double others_runnable;	/* the other local ranks' runnable share of the run, summed:
				 * each one's run + run-queue wait over its exec time (schedstat,
				 * polling included), at most 1; its busy fraction when the profile
				 * has no schedstat figures */
};

/* Fill c[0..p->nranks) from the profile (hosts, busy fractions) and the run's meta files
 * (RUN/meta/rank-R.tsv cpu_capacity of the node's first rank). */
void coloc_read(const struct prof *p, struct coloc_rank *c);
/* The busy phases of every rank, sorted by start: rank p->ranks[i]'s are ph[off[i]..off[i +
 * 1]) (ranks the profile does not list left out). The caller frees *ph and *off. */
void coloc_phases_by_rank(const struct prof *p, const struct prof_busy ***ph, long **off);
/* Whether rank i's node gave each of its ranks a whole CPU: no more ranks than cores'
 * worth (c[i] from coloc_read) and no CPU limit below one in the rank's meta file
 * (RUN/meta/rank-R.tsv cpu_capacity; unsaid: none). Under a quota, or with more ranks than
 * cores, a rank's run-queue wait is its neighbours' and its limit's. */
bool coloc_whole_cpu(const struct prof *p, const struct coloc_rank *c, int i);
/* Ranks sharing a node with another rank; 0 when every node has one. */
int coloc_shared(const struct prof *p);
/* The CPU stretch of a rank's busy time, from sd (the scenario's slowdown of a rank alone
 * on one core of the node: k + 1 for k CPU-bound competitors, divided by cap) and cap (the
 * scenario's CPU capacity, 1 when unset): the competitors' extra demand sd * cap - 1 shares
 * the node's cores with the rank and the busy share of its neighbours, against the share
 * they had in the run. A rank alone on a node of at most one core gets sd back. */
double coloc_stretch(double sd, double cap, const struct coloc_rank *c);
/* The same rule with the neighbours' runnable share of the whole run (others_runnable) in
 * place of their busy share of this rank's busy time: for a model that stretches a rank's
 * whole time rather than its busy phases (paper 000's eq. 4), or that takes the CPU to be
 * held whenever a process is runnable (paper 003's Section 2.1). An MPI library that polls
 * while its rank waits keeps that rank on the node's CPU between its busy phases, so its
 * neighbour shared the node with it even where their busy phases do not overlap. A rank
 * alone on its node gets what coloc_stretch gives. */
double coloc_stretch_run(double sd, double cap, const struct coloc_rank *c);

#endif
