/* tb_state: a testbed instance's layout, names and state directory (config, journal, processes). */
#ifndef TESTBED_TB_STATE_H
#define TESTBED_TB_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/err.h"

#define TB_MAX_WS 32		/* workstations per instance */
#define TB_LAUNCH (-1)		/* tb_cgroup_dir: the launchers' cgroup */
#define TB_MAX_INSTANCE 99	/* instances 0..99: subnets 10.100.x.0 .. 10.199.x.0 */
#define TB_STATE_ROOT "/run/contend-testbed"
#define TB_CGROUP_ROOT "/sys/fs/cgroup"
#define TB_JOURNAL_CAP 4096	/* journal rows read back; more are counted and ignored */
#define TB_PROCS_CAP 1024	/* recorded processes per instance */

/* One workstation. */
struct tb_ws {
	char cpus[32];		/* cpuset list of the cores it runs on, e.g. "0" or "0-1" */
	int cpu_pct;		/* CPU capacity in percent of one core (cpu.cfs_quota_us/period) */
	int64_t rate_bps;	/* cap on its link in bit/s each direction, 0 for none */
	int64_t burst_bytes;	/* the cap's token bucket, 0 for the default (10 ms at the rate,
				 * at least 16 KiB) */
	int subnet;		/* 1 or 2 */
};

/* An instance's layout: what `up` builds. Index 0 of ws is unused. */
struct tb_conf {
	int instance;		/* 0..TB_MAX_INSTANCE */
	int nws;		/* workstations, 1..TB_MAX_WS */
	bool routed;		/* two subnets on two bridges joined by a router namespace */
	int64_t uplink_bps[3];	/* [1], [2]: cap on a subnet's link to the router, bit/s, 0 none */
	struct tb_ws ws[TB_MAX_WS + 1];
};

/* The default layout: workstation i pinned to core (i-1) mod ncpu, every one the same
 * capacity 100 / ceil(nws / ncpu) percent, no link caps; routed: the first ceil(nws/2) on
 * subnet 1, the rest on subnet 2. */
void tb_conf_default(struct tb_conf *c, int instance, int nws, bool routed, int ncpu);

/* Instance from the environment variable CONTEND_TESTBED (default 0). -E_USAGE when bad. */
int tb_instance_from_env(int *instance, struct err *e) WUR;

/* Names (written into buf, always NUL-terminated). ws 0 means the router namespace. */
void tb_name_ws(int instance, int ws, char *buf, size_t len);		/* c<K>ws<i>, c<K>rt */
void tb_name_veth(int instance, int ws, char *buf, size_t len);		/* c<K>v<i> (root side) */
void tb_name_bridge(int instance, int subnet, char *buf, size_t len);	/* c<K>br0, c<K>br1 */
void tb_name_uplink(int instance, int subnet, char *buf, size_t len);	/* c<K>r<s> (bridge side) */
/* Address of host `host` (1..254) on subnet s: 10.<100+K>.<s>.<host>. */
void tb_addr(int instance, int subnet, int host, char *buf, size_t len);
/* The prefix every instance name starts with, "c<K>" (followed by a letter). */
void tb_name_prefix(int instance, char *buf, size_t len);
/* The instance's cgroup directory for a controller ("cpu", "cpuset"); ws 0 = the parent,
 * TB_LAUNCH the launchers' (tb_cpu.h). */
void tb_cgroup_dir(int instance, const char *controller, int ws, char *buf, size_t len);
/* State directory /run/contend-testbed/<K> and a file in it. */
void tb_state_path(int instance, const char *file, char *buf, size_t len);

/* Which workstation `host` names: "c<K>ws<i>", "ws<i>", "<i>" or its address.
 * Returns 1..nws, or -1. */
int tb_conf_find(const struct tb_conf *c, const char *host);

/* Create the state directory if needed and take the instance's lock (flock, exclusive);
 * returns the lock fd (close it to release) or negative with e set. */
int tb_state_lock(int instance, struct err *e) WUR;

/* Read the saved layout. Returns 1 when read, 0 when there is none, negative when the file
 * is damaged (e says where). */
int tb_conf_load(int instance, struct tb_conf *c, struct err *e) WUR;
int tb_conf_save(const struct tb_conf *c, struct err *e) WUR;

/* The journal: one row per object `up` is about to create, written before creating it so
 * that `down` finds it after a crash. kind: netns, ipcns, link, cgroup, hosts, file. */
int tb_journal_add(int instance, const char *kind, const char *name, struct err *e) WUR;
struct tb_jrow {
	char kind[16];
	char name[256];
};
/* Read up to cap rows into rows (caller's array); *n set. Rows past cap are counted in
 * *dropped. Returns 0 (also when there is no journal) or negative on a damaged file. */
int tb_journal_load(int instance, struct tb_jrow *rows, int cap, int *n, int *dropped,
		    struct err *e) WUR;

/* A process the testbed started (competing load). */
struct tb_proc {
	pid_t pid;
	uint64_t start_ticks;	/* its start time from /proc/PID/stat, to tell pid reuse */
	char kind[16];		/* spin, sink, source */
	int ws;			/* the workstation it runs in */
	int owner;		/* the workstation given to `load` (unload WS stops these) */
};
int tb_procs_load(int instance, struct tb_proc *procs, int cap, int *n, struct err *e) WUR;
/* Rewrite the whole list. */
int tb_procs_save(int instance, const struct tb_proc *procs, int n, struct err *e) WUR;

/* Remove the state directory and the files in it (config, journal, procs, agent, lock).
 * Returns 0 or -E_IO. */
int tb_state_remove(int instance, struct err *e) WUR;

#endif
