/* tb_cpu: a workstation's CPU share: cgroup v1 cpuset (pinning) and cpu (quota) directories. */
#ifndef TESTBED_TB_CPU_H
#define TESTBED_TB_CPU_H

#include "lib/err.h"
#include "testbed/tb_state.h"

/* Why the cgroup v1 cpu and cpuset controllers cannot be used, or NULL when they can. */
const char *tb_cpu_missing(void);

/* The cores the machine offers (from the root cpuset), at least 1. */
int tb_cpu_count(void);

/* Create (journalled) and set the cgroups of every workstation of c:
 * cpuset.cpus = ws.cpus, cpuset.mems as the root's, cpu.cfs_quota_us = cpu_pct% of
 * cpu.cfs_period_us (10 ms; 100 ms below 10 %), no quota for a share of all of its cores;
 * and the launchers' (TB_LAUNCH): every CPU, no quota, the default weight. Returns 0 or
 * negative with e set. */
int tb_cpu_up(const struct tb_conf *c, struct err *e) WUR;

/* Move the calling process into the launchers' cgroups of the instance (tb_cpu_up), so that
 * mpirun and what it starts on the host share the workstations' cores fairly. Returns 0 or
 * negative with e set (E_UNSUP: a testbed made before that cgroup existed). */
int tb_cpu_join_launch(int instance, struct err *e) WUR;

/* The two cgroup directories of workstation ws (cpuset, cpu) into dirs[0..1], dirs[2] NULL.
 * bufs holds the strings (2 x 256 bytes). */
void tb_cpu_dirs(int instance, int ws, char bufs[2][256], const char *dirs[3]);

/* Stop every process in the instance's cgroups (SIGTERM, then SIGKILL after grace_ms):
 * they were all put there by the testbed (exec, rsh, load). Adds how many to *stopped. */
int tb_cpu_stop_tasks(int instance, int grace_ms, int *stopped, struct err *e) WUR;

/* Remove the instance's cgroup directories (workstations, then the parent) for both
 * controllers. Adds the number removed to *removed. Returns 0 or -E_IO (e.g. still busy). */
int tb_cpu_remove(int instance, int *removed, struct err *e) WUR;

#endif
