/* sampler: CPU samples of a process tree and of the node, from /proc.
 *
 * A sample of the tree is one row per thread of the root process and of every
 * descendant (found through /proc/PID/task/TID/children): state, utime and stime in
 * clock ticks (/proc/PID/task/TID/stat), run and run-queue-wait nanoseconds
 * (/proc/PID/task/TID/schedstat), voluntary and involuntary context switches
 * (/proc/PID/task/TID/status, read every SAMPLER_STATUS_EVERY samples: it costs about
 * four times stat and schedstat together; the counts are repeated in between). Files of
 * known threads are kept open and re-read with pread, so a sample costs a few reads per
 * thread. */
#ifndef COLLECT_SAMPLER_H
#define COLLECT_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/err.h"
#include "lib/tsv.h"

#define SAMPLER_STATUS_EVERY 10u	/* samples between two reads of a thread's status */

/* Columns of RUN/samples/rank-<R>.tsv.gz (format "samples" v1) and of
 * RUN/samples/node-<host>.tsv.gz (format "nodeload" v1), NULL-terminated. */
extern const char *const sampler_cols[];
extern const char *const sampler_node_cols[];

/* One thread's reading. */
struct sampler_task {
	pid_t pid, tid;
	char state;		/* R S D Z T t X I ... */
	uint64_t utime_ticks, stime_ticks;
	uint64_t run_ns, wait_ns;
	uint64_t vcsw, ivcsw;
};

struct sampler;

/* Watch the tree rooted at root; at most max_tasks threads are followed (more are
 * counted in sampler_stats, not fatal). Free with sampler_free. */
struct sampler *sampler_new(pid_t root, size_t max_tasks);
void sampler_free(struct sampler *s);

/* Take one sample: fills the sampler's task list (borrowed until the next call) and
 * returns the number of threads read. Threads that vanish while being read are skipped. */
size_t sampler_take(struct sampler *s, const struct sampler_task **tasks);
/* The pids of the processes seen by the last sample (borrowed), count in *n. */
const pid_t *sampler_pids(const struct sampler *s, size_t *n);
/* Counters: threads refused by the cap, reads that failed. */
void sampler_stats(const struct sampler *s, long *over_cap, long *read_errors);

/* Write one row per task of the last sample. 0 or negative with e set. */
int sampler_write(struct tsv_w *t, int64_t t_mono_ns, int64_t t_real_ns,
		  const struct sampler_task *tasks, size_t n, struct err *e) WUR;

/* The node's load: /proc/loadavg and the "cpu" line of /proc/stat. */
struct sampler_node {
	double load1, load5, load15;
	int64_t nrunning, nprocs;
	uint64_t cpu[8];	/* user nice system idle iowait irq softirq steal, in ticks */
};
/* Read the node's load; 0, or -E_IO / -E_FORMAT with e set. fds are kept open in a
 * static pair (call from one thread only). */
int sampler_node_take(struct sampler_node *n, struct err *e) WUR;
int sampler_node_write(struct tsv_w *t, int64_t t_mono_ns, int64_t t_real_ns,
		       const struct sampler_node *n, struct err *e) WUR;

/* Parsers, exposed for the unit tests. Each returns 0, or -E_FORMAT. */
int sampler_parse_stat(const char *text, char *state, pid_t *ppid, uint64_t *utime,
		       uint64_t *stime) WUR;
int sampler_parse_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns) WUR;
int sampler_parse_status(const char *text, uint64_t *vcsw, uint64_t *ivcsw) WUR;
int sampler_parse_loadavg(const char *text, struct sampler_node *n) WUR;
int sampler_parse_procstat(const char *text, struct sampler_node *n) WUR;

#endif
