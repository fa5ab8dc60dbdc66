/* rd: a bounded reader for untrusted bytes with a sticky error.
 *
 * Decode a header in straight-line code, then check rd.err once:
 *
 *	struct rd r = rd_make(p, len);
 *	uint32_t jobid = rd_le32(&r), vpid = rd_le32(&r);
 *	if (r.err) return ...;
 *
 * A read past the end returns 0 (or leaves the output zeroed), sets err and
 * leaves the cursor where it was; every later read also fails. */
#ifndef LIB_RD_H
#define LIB_RD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rd {
	const uint8_t *p;	/* next unread byte (borrowed) */
	size_t left;		/* bytes left from p */
	bool err;		/* sticky: a read went past the end */
};

static inline struct rd
rd_make(const void *p, size_t len)
{
	struct rd r = { (const uint8_t *)p, len, false };

	return r;
}

/* True when n bytes are available; otherwise false, err set and nothing consumed. */
static inline bool
rd_need_(struct rd *r, size_t n)
{
	if (r->err || r->left < n) {
		r->err = true;
		return false;
	}
	return true;
}

static inline size_t rd_left(const struct rd *r) { return r->err ? 0 : r->left; }

static inline uint8_t
rd_u8(struct rd *r)
{
	uint8_t v;

	if (!rd_need_(r, 1))
		return 0;
	v = r->p[0];
	r->p += 1, r->left -= 1;
	return v;
}

static inline uint16_t
rd_be16(struct rd *r)
{
	uint16_t v;

	if (!rd_need_(r, 2))
		return 0;
	v = (uint16_t)((unsigned)r->p[0] << 8 | r->p[1]);
	r->p += 2, r->left -= 2;
	return v;
}

static inline uint16_t
rd_le16(struct rd *r)
{
	uint16_t v;

	if (!rd_need_(r, 2))
		return 0;
	v = (uint16_t)((unsigned)r->p[1] << 8 | r->p[0]);
	r->p += 2, r->left -= 2;
	return v;
}

static inline uint32_t
rd_be32(struct rd *r)
{
	uint32_t v;

	if (!rd_need_(r, 4))
		return 0;
	v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4, r->left -= 4;
	return v;
}

static inline uint32_t
rd_le32(struct rd *r)
{
	uint32_t v;

	if (!rd_need_(r, 4))
		return 0;
	v = (uint32_t)r->p[3] << 24 | (uint32_t)r->p[2] << 16 | (uint32_t)r->p[1] << 8 | r->p[0];
	r->p += 4, r->left -= 4;
	return v;
}

static inline uint64_t
rd_be64(struct rd *r)
{
	uint64_t hi, lo;

	if (!rd_need_(r, 8))	/* all or nothing: a short read must not move the cursor */
		return 0;
	hi = rd_be32(r);
	lo = rd_be32(r);
	return hi << 32 | lo;
}

static inline uint64_t
rd_le64(struct rd *r)
{
	uint64_t hi, lo;

	if (!rd_need_(r, 8))
		return 0;
	lo = rd_le32(r);
	hi = rd_le32(r);
	return hi << 32 | lo;
}

/* Host byte order, for kernel interfaces (netlink) whose integers are native. */
static inline uint16_t
rd_ne16(struct rd *r)
{
	uint16_t v = 0;

	if (!rd_need_(r, 2))
		return 0;
	memcpy(&v, r->p, 2);
	r->p += 2, r->left -= 2;
	return v;
}

static inline uint32_t
rd_ne32(struct rd *r)
{
	uint32_t v = 0;

	if (!rd_need_(r, 4))
		return 0;
	memcpy(&v, r->p, 4);
	r->p += 4, r->left -= 4;
	return v;
}

/* The helpers below are inline too: a packet's headers take a dozen of these calls, and a
 * call each would cost more than the reads (the capture thread decodes every packet). */

/* Copy n bytes into out (zero-filled on failure). */
static inline void
rd_bytes(struct rd *r, void *out, size_t n)
{
	if (!rd_need_(r, n)) {
		memset(out, 0, n);
		return;
	}
	memcpy(out, r->p, n);
	r->p += n, r->left -= n;
}

/* Skip n bytes. */
static inline void
rd_skip(struct rd *r, size_t n)
{
	if (!rd_need_(r, n))
		return;
	r->p += n, r->left -= n;
}

/* Borrow n bytes: returns a pointer into the buffer, or NULL (and err) if short. */
static inline const uint8_t *
rd_ptr(struct rd *r, size_t n)
{
	const uint8_t *p;

	if (!rd_need_(r, n))
		return NULL;
	p = r->p;
	r->p += n, r->left -= n;
	return p;
}

/* Split off the next n bytes as their own reader and advance past them.
 * On a short read the sub-reader has err set too. */
static inline struct rd
rd_sub(struct rd *r, size_t n)
{
	struct rd s = { NULL, 0, true };

	if (!rd_need_(r, n))
		return s;
	s = rd_make(r->p, n);
	r->p += n, r->left -= n;
	return s;
}

#endif
