/* fsutil: small file-system helpers shared by the stages (directories, copies, moves). */
#ifndef LIB_FSUTIL_H
#define LIB_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"

/* Create path and its missing parents (mode 0755); existing directories are fine.
 * Returns 0, or -E_IO with e naming the directory that could not be made. */
int fs_mkdir_p(const char *path, struct err *e) WUR;
/* Copy the file from to to (created or truncated, mode 0644). 0 or -E_IO with e set;
 * on failure to may hold a partial copy. */
int fs_copy_file(const char *from, const char *to, struct err *e) WUR;
/* Move from to to: rename, or copy and unlink across file systems. 0 or -E_IO. */
int fs_move_file(const char *from, const char *to, struct err *e) WUR;

/* DIR/NAME, else DIR/NAME.gz, whichever exists (readable or not: a file there that cannot
 * be read is the reader's error to report, not a missing one); NULL when neither. Caller
 * frees. */
char *fs_plain_or_gz(const char *dir, const char *name);

/* Which names fs_list keeps: every test that is set must pass. */
struct fs_pattern {
	const char *prefix;	/* the name begins with it, or NULL */
	const char *infix;	/* the name contains it anywhere (within the prefix too), or NULL */
	const char *suffix;	/* the name ends in it, longer than prefix and suffix together, or
				 * NULL */
	bool hidden;		/* names beginning with '.' are kept too */
	bool paths;		/* "dir/name" rather than the bare name */
};

/* The entries of dir that p keeps, in strcmp order: at most max, the first max the
 * directory gives. *n receives their number. Returns the array (possibly empty; free it
 * with fs_list_free), or NULL with *n = 0 and e set (-E_IO) when dir cannot be opened. */
char **fs_list(const char *dir, const struct fs_pattern *p, size_t max, size_t *n, struct err *e);
/* Free fs_list's array of n names; accepts NULL. */
void fs_list_free(char **v, size_t n);

#endif
