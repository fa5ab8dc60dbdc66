/* xalloc: allocation wrappers that die on out-of-memory, with overflow-checked sizes. */
#ifndef LIB_XALLOC_H
#define LIB_XALLOC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* All of these die with "out of memory" rather than return NULL; free with free(). */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);		/* zeroed; nmemb*size checked */
void *xmallocarray(size_t nmemb, size_t size);		/* nmemb*size checked */
void *xreallocarray(void *p, size_t nmemb, size_t size);	/* nmemb*size checked */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A formatted string in fresh memory (caller frees). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same from a va_list, which it uses up (the caller still calls va_end). */
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Checked size arithmetic: true and *out set when no overflow, false otherwise. */
static inline bool
size_mul_ok(size_t a, size_t b, size_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}
static inline bool
size_add_ok(size_t a, size_t b, size_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}

/* Grow an array of `*cap` elements of `size` bytes so it holds at least `need`;
 * doubles, dies on overflow or out-of-memory. Returns the (possibly moved) array. */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);

#endif
