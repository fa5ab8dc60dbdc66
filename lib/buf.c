/* buf: a growable byte buffer with a hard maximum set at creation. */
#include "lib/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

void
buf_init(struct buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

int
buf_add(struct buf *b, const void *p, size_t n)
{
	size_t need;	/* bytes in use after the append */

	if (!size_add_ok(b->len, n, &need) || need > b->max)
		return -E_LIMIT;
	if (n == 0)
		return 0;
	if (need > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;	/* new allocation in bytes */

		while (ncap < need)
			ncap = ncap > b->max / 2 ? b->max : ncap * 2;
		b->data = xreallocarray(b->data, ncap, 1);
		b->cap = ncap;
	}
	memcpy(b->data + b->len, p, n);
	b->len = need;
	return 0;
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	char small[256];	/* most lines fit here */
	va_list ap;
	int n;			/* formatted length */
	int rc;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -E_FORMAT;
	if ((size_t)n < sizeof small)
		return buf_add(b, small, (size_t)n);
	{
		char *big = xmalloc((size_t)n + 1);

		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		rc = buf_add(b, big, (size_t)n);
		free(big);
	}
	return rc;
}

void
buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

void
buf_clear(struct buf *b)
{
	b->len = 0;
}

void
buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}
