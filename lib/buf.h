/* buf: a growable byte buffer with a hard maximum set at creation. */
#ifndef LIB_BUF_H
#define LIB_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

struct buf {
	uint8_t *data;		/* owned; NULL until the first append */
	size_t len;		/* bytes in use */
	size_t cap;		/* bytes allocated */
	size_t max;		/* hard maximum of len, set by buf_init */
};

/* Start empty with a cap of max bytes (no allocation yet). */
void buf_init(struct buf *b, size_t max);
/* Append n bytes. Returns 0, or -E_LIMIT (nothing appended) when len would pass max. */
int buf_add(struct buf *b, const void *p, size_t n) WUR;
/* Append a formatted string (no NUL kept). -E_LIMIT as buf_add. */
int buf_printf(struct buf *b, const char *fmt, ...) WUR PRINTF(2, 3);
/* Drop the first n bytes (n <= len), keeping the rest. */
void buf_consume(struct buf *b, size_t n);
/* Empty it, keep the memory. */
void buf_clear(struct buf *b);
/* Free the memory; b is reusable after buf_init. Accepts a zeroed buf. */
void buf_release(struct buf *b);

#endif
