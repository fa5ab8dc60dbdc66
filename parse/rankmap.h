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

struct rankmap;

struct rankmap_stats {
	uint64_t files;		/* socket and meta files read */
	uint64_t rows;		/* socket rows kept */
	uint64_t bad_rows;	/* rows that did not parse */
	uint64_t conflicts;	/* one endpoint claimed by two ranks (then unknown) */
	uint64_t over_cap;	/* rows past RANKMAP_MAX_ENDPOINTS */
	uint64_t file_errors;	/* files that could not be read (warnings) */
};

/* An empty map. Free with rankmap_free. */
struct rankmap *rankmap_new(void);
/* Add every RUN/sockets/rank-*.tsv[.gz] and RUN/meta/rank-*.tsv under run_dir. Returns 0,
 * or negative with e naming the first file that failed (the rest were still read). */
int rankmap_load_run(struct rankmap *m, const char *run_dir, struct err *e) WUR;
/* Add one sockets file / one rank meta file. 0 or negative with e set. */
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
void rankmap_free(struct rankmap *m);

#endif
