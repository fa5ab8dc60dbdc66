/* err: error reporting in the house style (lower-case, no final period, subject quoted). */
#ifndef LIB_ERR_H
#define LIB_ERR_H

#include <stdarg.h>
#include <stddef.h>

#define ERR_MSG_MAX 512

/* An optional error out-parameter for library code: functions fill it (when non-NULL)
 * and return a negative code; only the command layer prints it. */
struct err {
	char msg[ERR_MSG_MAX];	/* the one-line message, NUL-terminated */
	int code;		/* negative error code, 0 when unset */
};

#define WUR __attribute__((warn_unused_result))
#define PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Error codes returned (negated) by library functions. */
enum {
	E_OK = 0,
	E_IO = 1,	/* an operating-system call failed (errno kept in the message) */
	E_FORMAT = 2,	/* input is malformed or damaged */
	E_TRUNC = 3,	/* input ends early; what came before is good */
	E_LIMIT = 4,	/* a cap was reached */
	E_USAGE = 5,	/* a bad argument or option */
	E_UNSUP = 6,	/* valid but not supported */
	E_PERM = 7,	/* permission or capability missing */
};

/* Fill e (if non-NULL) with code and message; returns -code so callers can `return err_set(...)`. */
int err_set(struct err *e, int code, const char *fmt, ...) PRINTF(3, 4);
/* As err_set, appending ": strerror(errno)". */
int err_sys(struct err *e, int code, const char *fmt, ...) PRINTF(3, 4);
/* Prefix an existing message with more context ("reading 'x': <old>"). */
void err_prefix(struct err *e, const char *fmt, ...) PRINTF(2, 3);

/* A message a printf-style caller formats for a function that takes a finished one (a
 * warning counted by a stage, a row of a file): at most ERR_SAY_MAX - 1 bytes, the rest cut,
 * handed to say(arg, msg). */
#define ERR_SAY_MAX (2 * ERR_MSG_MAX)
void err_sayf(void (*say)(void *arg, const char *msg), void *arg, const char *fmt, ...) PRINTF(3, 4);

/* Program name used in messages; set once by main. */
extern const char *err_progname;

/* Command-layer output.  die prints "contend: msg" and exits 1; die_usage exits 2. */
void warnx_(const char *fmt, ...) PRINTF(1, 2);
_Noreturn void die(const char *fmt, ...) PRINTF(1, 2);
_Noreturn void die_usage(const char *fmt, ...) PRINTF(1, 2);
/* Our own bug: prints file:line and aborts. */
_Noreturn void bug_(const char *file, int line, const char *fmt, ...) PRINTF(3, 4);
#define BUG(...) bug_(__FILE__, __LINE__, __VA_ARGS__)

/* Set by --quiet / --verbose at the command layer. 0 quiet, 1 normal, 2 verbose. */
extern int err_verbosity;
/* Progress and notes on stderr, honouring err_verbosity. */
void note(const char *fmt, ...) PRINTF(1, 2);
void verbose(const char *fmt, ...) PRINTF(1, 2);

#endif
