/* err: error reporting in the house style. */
#include "lib/err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *err_progname = "contend";
int err_verbosity = 1;

int
err_set(struct err *e, int code, const char *fmt, ...)
{
	if (e != NULL) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
		e->code = -code;
	}
	return -code;
}

int
err_sys(struct err *e, int code, const char *fmt, ...)
{
	int saved = errno;	/* errno of the failed call, before vsnprintf can touch it */

	if (e != NULL) {
		va_list ap;
		size_t n;

		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
		n = strlen(e->msg);
		snprintf(e->msg + n, sizeof e->msg - n, ": %s", strerror(saved));
		e->code = -code;
	}
	errno = saved;
	return -code;
}

void
err_prefix(struct err *e, const char *fmt, ...)
{
	char head[ERR_MSG_MAX];	/* the new context */
	char old[ERR_MSG_MAX];	/* the message it goes in front of */
	va_list ap;

	if (e == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof old);
	{
		size_t hn = strnlen(head, sizeof e->msg - 3);	/* room kept for ": " */

		memcpy(e->msg, head, hn);
		memcpy(e->msg + hn, ": ", 2);
		snprintf(e->msg + hn + 2, sizeof e->msg - hn - 2, "%s", old);
	}
}

void
err_sayf(void (*say)(void *arg, const char *msg), void *arg, const char *fmt, ...)
{
	char m[ERR_SAY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	say(arg, m);
}

static void PRINTF(1, 0)
vsay(const char *fmt, va_list ap)
{
	/* what stdout holds comes first, so that the two never interleave mid-line when
	 * redirected to one file */
	fflush(stdout);
	fprintf(stderr, "%s: ", err_progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	exit(1);
}

void
die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	exit(2);
}

void
bug_(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: BUG at %s:%d: ", err_progname, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void
note(const char *fmt, ...)
{
	va_list ap;

	if (err_verbosity < 1)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void
verbose(const char *fmt, ...)
{
	va_list ap;

	if (err_verbosity < 2)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}
