/* rd: a bounded reader for untrusted bytes with a sticky error. */
#include "lib/rd.h"

#include <string.h>

void
rd_bytes(struct rd *r, void *out, size_t n)
{
	if (!rd_need_(r, n)) {
		memset(out, 0, n);
		return;
	}
	memcpy(out, r->p, n);
	r->p += n, r->left -= n;
}

void
rd_skip(struct rd *r, size_t n)
{
	if (!rd_need_(r, n))
		return;
	r->p += n, r->left -= n;
}

const uint8_t *
rd_ptr(struct rd *r, size_t n)
{
	const uint8_t *p;

	if (!rd_need_(r, n))
		return NULL;
	p = r->p;
	r->p += n, r->left -= n;
	return p;
}

struct rd
rd_sub(struct rd *r, size_t n)
{
	struct rd s = { NULL, 0, true };

	if (!rd_need_(r, n))
		return s;
	s = rd_make(r->p, n);
	r->p += n, r->left -= n;
	return s;
}
