/* runmeta: the run directory's key/value files (format "meta" v1) and its layout.
 *
 * A meta file is a contend TSV file with the columns key and value, one row per key.
 * Files are written whole to a temporary name and renamed into place, so a reader sees
 * either the previous version or the new one, never half of one. */
#ifndef COLLECT_RUNMETA_H
#define COLLECT_RUNMETA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

#define RUNMETA_MAX_KEYS 256	/* cap on rows per meta file; past it runmeta_set is counted */

struct runmeta_kv {
	char *key;	/* owned */
	char *val;	/* owned */
};

struct runmeta {
	struct runmeta_kv *kv;	/* owned, n used of cap */
	size_t n, cap;
	long dropped;		/* keys refused because of RUNMETA_MAX_KEYS */
};

void runmeta_init(struct runmeta *m);
/* Set key to a formatted value, replacing an earlier one. Newlines and tabs are escaped
 * by the TSV writer. */
void runmeta_set(struct runmeta *m, const char *key, const char *fmt, ...) PRINTF(3, 4);
void runmeta_set_i64(struct runmeta *m, const char *key, int64_t v);
/* The value of key, borrowed until the next change of m, or NULL when absent. */
const char *runmeta_get(const struct runmeta *m, const char *key);
/* The value of key as an integer: 0, or -E_FORMAT when absent or not an integer. */
int runmeta_get_i64(const struct runmeta *m, const char *key, int64_t *v) WUR;
/* Write m to path atomically (path.tmp.<pid> then rename). When excl, fail with -E_IO
 * (EEXIST in the message) if path already exists. Returns 0 or negative with e set. */
int runmeta_write(const struct runmeta *m, const char *path, bool excl, struct err *e) WUR;
/* Read path into m (m is initialised here). 0, or negative with e set; on a damaged row
 * -E_FORMAT naming the line (m keeps the rows before it; release it either way). */
int runmeta_read(struct runmeta *m, const char *path, struct err *e) WUR;
void runmeta_release(struct runmeta *m);

/* A host name made safe for a file name: characters outside [A-Za-z0-9._-] become '_',
 * empty becomes "unknown". out has room for outlen bytes (truncated to fit). */
void runmeta_safe_name(const char *in, char *out, size_t outlen);

#endif
