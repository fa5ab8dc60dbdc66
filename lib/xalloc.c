/* xalloc: allocation wrappers that die on out-of-memory, with overflow-checked sizes. */
#include "lib/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"

static _Noreturn void
oom(size_t n)
{
	die("out of memory (asked for %zu bytes)", n);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom(n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	size_t n;	/* total bytes */
	void *p;

	if (!size_mul_ok(nmemb, size, &n))
		die("size overflow (%zu x %zu)", nmemb, size);
	p = calloc(n ? n : 1, 1);
	if (p == NULL)
		oom(n);
	return p;
}

void *
xmallocarray(size_t nmemb, size_t size)
{
	size_t n;	/* total bytes */

	if (!size_mul_ok(nmemb, size, &n))
		die("size overflow (%zu x %zu)", nmemb, size);
	return xmalloc(n);
}

void *
xreallocarray(void *p, size_t nmemb, size_t size)
{
	size_t n;	/* total bytes */
	void *q;

	if (!size_mul_ok(nmemb, size, &n))
		die("size overflow (%zu x %zu)", nmemb, size);
	q = realloc(p, n ? n : 1);
	if (q == NULL)
		oom(n);
	return q;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);	/* bytes to copy */
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	va_list aq;
	int n;		/* length without the NUL */
	char *p;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		BUG("vsnprintf failed for '%s'", fmt);
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void *
xgrow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 8;	/* new capacity in elements */

	if (need <= *cap)
		return p;
	while (ncap < need) {
		if (!size_mul_ok(ncap, 2, &ncap))
			die("size overflow growing to %zu elements", need);
	}
	p = xreallocarray(p, ncap, size);
	*cap = ncap;
	return p;
}
