/* rankmap: ties TCP endpoints to world ranks from what collect wrote: the socket map
 * (RUN/sockets/rank-<R>.tsv: a rank's local ip:port) and the rank meta files
 * (RUN/meta/rank-<R>.tsv: host and addrs). Read with the distrust due to any input:
 * damaged rows are counted and skipped. */
#ifndef PARSE_RANKMAP_H
#define PARSE_RANKMAP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

#define RANKMAP_MAX_ENDPOINTS (1u << 20)	/* endpoints kept; more are counted */
#define RANKMAP_MAX_RANKS (1 << 20)		/* highest rank believed + 1 */
#define RANKMAP_MAX_PROBLEMS 1000		/* problem messages kept; more are counted */

struct rankmap;

struct rankmap_stats {
	uint64_t files;		/* socket and meta files read */
	uint64_t rows;		/* socket rows kept */
	uint64_t bad_rows;	/* rows that did not parse */
	uint64_t conflicts;	/* one endpoint claimed by two ranks (then unknown) */
	uint64_t over_cap;	/* rows past RANKMAP_MAX_ENDPOINTS */
	uint64_t file_errors;	/* files that could not be read (warnings) */
	uint64_t problems;	/* meta values that failed a check (rankmap_problems) */
};

/* An empty map. Free with rankmap_free. */
struct rankmap *rankmap_new(void);
/* Add every RUN/meta/rank-*.tsv and RUN/sockets/rank-*.tsv[.gz] under run_dir. Returns 0,
 * or negative with e naming the first file that failed (the rest were still read).
 * The meta files are checked against the run (docs/formats.md): a rank in [0, nranks) of
 * meta/run.tsv, named like its file, one file per rank, every rank with one, cpu_capacity
 * in (0, cpus_allowed] and equal to the quota (then the quota's exact value is kept); a file
 * that fails is not used, and each
 * failure is a problem (rankmap_problems) naming file and line. */
int rankmap_load_run(struct rankmap *m, const char *run_dir, struct err *e) WUR;
/* Add one sockets file / one rank meta file (checked as above, against what is loaded
 * so far). 0 or negative with e set. */
int rankmap_load_sockets(struct rankmap *m, const char *path, struct err *e) WUR;
int rankmap_load_meta(struct rankmap *m, const char *path, struct err *e) WUR;
/* Add one endpoint by hand (af AF_INET/AF_INET6, addr in network order; a zero address is a
 * wildcard listener, matched through the rank's addrs). */
void rankmap_add(struct rankmap *m, int af, const uint8_t addr[16], uint16_t port, int32_t rank);
/* The rank owning (af, addr, port), -1 unknown or ambiguous. */
int32_t rankmap_lookup(const struct rankmap *m, int af, const uint8_t addr[16], uint16_t port);
/* Host of a rank from its meta file, or NULL. Borrowed until rankmap_free. */
const char *rankmap_host(const struct rankmap *m, int32_t rank);
/* CPU capacity of a rank's node from its meta file (cpu_capacity: cores' worth it may use,
 * e.g. 0.5 under a 50 % cgroup quota), 0 when unknown. */
double rankmap_cpu_capacity(const struct rankmap *m, int32_t rank);
/* Highest rank seen in any file, -1 if none. */
int32_t rankmap_max_rank(const struct rankmap *m);
const struct rankmap_stats *rankmap_stats(const struct rankmap *m);
/* The problems the checks found, in file order; *msgs borrowed until rankmap_free. */
size_t rankmap_problems(const struct rankmap *m, const char *const **msgs);
/* The first bad sockets row's message (file and line), NULL when none. */
const char *rankmap_first_bad_socket(const struct rankmap *m);
/* A rank's run on CLOCK_MONOTONIC from its meta file: 0, or -1 when unknown. */
int rankmap_run_window(const struct rankmap *m, int32_t rank, int64_t *start_mono_ns,
		       int64_t *end_mono_ns) WUR;
/* The samples a rank's agent says it took (meta samples_taken), -1 when unknown. */
int64_t rankmap_samples_taken(const struct rankmap *m, int32_t rank);
/* How a rank ended, from its meta file (how_ended: "running", "exited", "signaled",
 * "not-started"), NULL when unknown. *signal_name (may be NULL) is set to its
 * exit_signal_name ("SIGTERM"), or NULL when the file gives none. Both borrowed until
 * rankmap_free. */
const char *rankmap_how_ended(const struct rankmap *m, int32_t rank, const char **signal_name);
/* nranks of the run (meta/run.tsv, else the rank meta files), 0 when unknown. */
int64_t rankmap_nranks(const struct rankmap *m);
void rankmap_free(struct rankmap *m);

#endif
