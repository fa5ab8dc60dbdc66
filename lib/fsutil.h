/* fsutil: small file-system helpers shared by the stages (directories, copies, moves). */
#ifndef LIB_FSUTIL_H
#define LIB_FSUTIL_H

#include "lib/err.h"

/* Create path and its missing parents (mode 0755); existing directories are fine.
 * Returns 0, or -E_IO with e naming the directory that could not be made. */
int fs_mkdir_p(const char *path, struct err *e) WUR;
/* Copy the file from to to (created or truncated, mode 0644). 0 or -E_IO with e set;
 * on failure to may hold a partial copy. */
int fs_copy_file(const char *from, const char *to, struct err *e) WUR;
/* Move from to to: rename, or copy and unlink across file systems. 0 or -E_IO. */
int fs_move_file(const char *from, const char *to, struct err *e) WUR;

#endif
