/* cpucap: how much CPU a process may use: its affinity mask and its cgroup CPU quota. */
#ifndef COLLECT_CPUCAP_H
#define COLLECT_CPUCAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cpucap {
	int cpus_allowed;	/* CPUs in the affinity mask, 0 when unknown */
	int64_t quota_us;	/* tightest cgroup CPU quota on the path to the root, -1 when none */
	int64_t period_us;	/* its period, -1 when none */
	char cgroup[512];	/* the cpu controller's cgroup path ("/" at the root), "" when unknown */
	double capacity_cpus;	/* min(cpus_allowed, quota/period): CPUs' worth the process may
				 * run at once; 0 when unknown */
};

/* Read the capacity of pid (0: the caller) from sched_getaffinity and /proc/PID/cgroup
 * with the cgroup v1 cpu controller (cpu.cfs_quota_us, cpu.cfs_period_us) or v2 (cpu.max)
 * under /sys/fs/cgroup, taking the tightest quota of the cgroup and its ancestors.
 * Never fails: what cannot be read stays unknown (see the fields). */
void cpucap_read(pid_t pid, struct cpucap *out);

/* The scheduler's time slice, in ns, into *ns with the file it came from into *src: EEVDF's
 * base_slice_ns (/proc/sys/kernel/sched_base_slice_ns where a kernel has it, else debugfs
 * sched/base_slice_ns, Linux 6.6 on), or CFS's sched_min_granularity_ns (/proc/sys/kernel
 * before 5.13, debugfs sched/min_granularity_ns after). 0 found; -1 when none is readable
 * (debugfs unmounted or locked down): *ns and *src untouched. */
int cpucap_slice_ns(int64_t *ns, const char **src);

/* Where the observer (every thread of the calling process) runs, so that its CPU does not
 * come out of the ranks' where the node has cores to spare: with more CPUs allowed than
 * local_ranks (the node's ranks, > 0), the process moves to the last allowed CPU, which
 * the launchers' by-core mappings give to a rank last. Call it after the application was
 * started, which keeps the mask it inherited. Writes the CPUs the observer may use to
 * cpus and returns 1 when they are spare ones; 0 when it shares the ranks' CPUs (every
 * allowed CPU runs a rank, or local_ranks is unknown); either way a cgroup CPU quota
 * still counts the observer with the ranks (the caller says so). */
int cpucap_place_observer(int local_ranks, char *cpus, size_t cpuslen);

/* Call fn(tid, arg) for every thread of the calling process (settings such as the CPU mask
 * and the scheduling policy are per thread). Returns how many calls returned nonzero, or
 * -1 when the thread list cannot be read. */
int cpucap_each_thread(int (*fn)(pid_t tid, void *arg), void *arg);

#endif
