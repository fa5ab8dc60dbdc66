/* spawn: run an external program (gnuplot, pdfunite, pdftoppm) with fork and exec, no shell,
 * its standard error kept for the error message. */
#ifndef REPORT_SPAWN_H
#define REPORT_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/err.h"

#define SPAWN_ERR_KEEP 4096	/* bytes of the child's stderr kept for the message */

struct spawn {
	pid_t pid;		/* the child, -1 when none */
	int in_fd;		/* write end of its stdin pipe, -1 when not asked for or closed */
	int err_fd;		/* unlinked temporary file holding its stderr */
	char prog[64];		/* program name for messages */
};

/* Start argv[0] (looked up in PATH by execvp, never through a shell) with argv. With
 * want_stdin, s->in_fd is a pipe to its stdin (write it with spawn_write); otherwise its stdin
 * is /dev/null. Its stdout goes to /dev/null, its stderr to a temporary file.
 * Returns 0, or negative with e set: -E_IO when the program cannot be run (not found, not
 * executable: the message names it and says why). Always finish with spawn_wait. */
int spawn_start(struct spawn *s, char *const argv[], bool want_stdin, struct err *e) WUR;
/* Write n bytes to its stdin. Returns 0, or -E_IO when it is gone (EPIPE; the caller must
 * ignore SIGPIPE) or the write fails. */
int spawn_write(struct spawn *s, const void *p, size_t n, struct err *e) WUR;
/* Close its stdin, wait for it, release everything. Returns 0 when it exited with status 0,
 * else -E_IO with e naming the program, its exit status or signal and the first line of
 * its stderr that says what went wrong. Accepts a spawn that failed to start. */
int spawn_wait(struct spawn *s, struct err *e);
/* Run argv to completion without stdin: spawn_start then spawn_wait. */
int spawn_run(char *const argv[], struct err *e) WUR;

#endif
