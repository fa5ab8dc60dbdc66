/* gzio: compressed file I/O over zlib (the only module that touches zlib).
 *
 * Writer: plain or gzip, with a sync flush whenever flush_ns has passed since the
 * last one, so a writer killed with SIGKILL leaves a prefix that decompresses.
 * Reader: plain or gzip (detected by magic); a gzip stream that stops early is
 * reported as truncated (-E_TRUNC) and damaged compressed data as -E_FORMAT, in both
 * cases after every byte before the cut or the damage was delivered. */
#ifndef LIB_GZIO_H
#define LIB_GZIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/buf.h"
#include "lib/err.h"

struct gzw;
struct gzr;

/* Create (O_EXCL unless overwrite) path; gzip when compress. flush_ns 0 means flush
 * only on gzw_flush/close. Returns NULL with e set on failure. Close with gzw_close. */
struct gzw *gzw_open(const char *path, bool compress, bool overwrite, int64_t flush_ns,
		     struct err *e) WUR;
/* The zlib level gzw_open uses. */
#define GZW_DEFAULT_LEVEL 6
/* gzw_open with a zlib compression level, 1 (fastest) to 9 (smallest); ignored for
 * plain output. A level outside 1..9 fails with -E_USAGE before creating path. */
struct gzw *gzw_open_level(const char *path, bool compress, bool overwrite, int64_t flush_ns,
			   int level, struct err *e) WUR;
/* Write n bytes; 0 or negative (-E_IO, e.g. disk full) with e set. After a failure every
 * later write fails too and the file keeps what was flushed before. */
int gzw_write(struct gzw *w, const void *p, size_t n, struct err *e) WUR;
int gzw_printf(struct gzw *w, struct err *e, const char *fmt, ...) WUR PRINTF(3, 4);
/* Sync-flush now: all written bytes become readable by gzr. */
int gzw_flush(struct gzw *w, struct err *e) WUR;
/* Finish the stream and close; returns the first error seen. Accepts NULL. */
int gzw_close(struct gzw *w, struct err *e);
/* Underlying descriptor (for fsync), -1 if none. */
int gzw_fd(const struct gzw *w);

/* Open path for reading, gzip or plain. NULL with e set on failure. Close with gzr_close. */
struct gzr *gzr_open(const char *path, struct err *e) WUR;
/* Open an already-open descriptor (takes ownership). */
struct gzr *gzr_dopen(int fd, const char *name, struct err *e) WUR;
/* Read up to n bytes: returns bytes read (>0), 0 at a clean end, -E_TRUNC when the
 * gzip stream was cut short, -E_FORMAT when damaged (e says at which compressed byte),
 * -E_IO on a read error. The error comes after every byte before it; later calls return 0. */
long gzr_read(struct gzr *r, void *p, size_t n, struct err *e) WUR;
/* Why the data stopped early (the message of the -E_TRUNC, -E_FORMAT or -E_IO read), or
 * NULL when it did not. Borrowed until gzr_close. */
const char *gzr_damage(const struct gzr *r);
/* Next line without its '\n' (a final line without '\n' counts), NUL-terminated,
 * borrowed until the next call. Returns 1, 0 at end, negative as gzr_read;
 * -E_LIMIT when a line exceeds max_len bytes (the rest of it is skipped). */
int gzr_line(struct gzr *r, char **line, size_t *len, size_t max_len, struct err *e) WUR;
bool gzr_is_gzip(const struct gzr *r);
/* Set once a read returned -E_TRUNC. */
bool gzr_truncated(const struct gzr *r);
void gzr_close(struct gzr *r);

/* A stdio stream over gzr for libraries that want FILE * (libpcap's pcap_fopen_offline).
 * The stream owns r; fclose closes it. A truncated or damaged gzip stream reads as a
 * short file (gzr_damage(r), valid until fclose, says why); *truncated (if non-NULL, must
 * outlive the stream) is cleared here and set when the stream was cut. Returns NULL (r still the caller's) when the stream cannot be made. */
FILE *gzr_fopen(struct gzr *r, bool *truncated);

/* The zlib version string. */
const char *gzio_zlib_version(void);

/* True when the file at path starts with the gzip magic. */
bool gz_path_is_gzip(const char *path);

#endif
