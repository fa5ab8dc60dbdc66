/* fsutil: small file-system helpers shared by the stages. */
#include "lib/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/xalloc.h"

int
fs_mkdir_p(const char *path, struct err *e)
{
	char *p = xstrdup(path);	/* cut at each '/' in turn */
	int rc = 0;

	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				rc = err_sys(e, E_IO, "cannot create '%s'", p);
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	free(p);
	return rc;
}

int
fs_copy_file(const char *from, const char *to, struct err *e)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out;
	int rc = 0;

	if (in < 0)
		return err_sys(e, E_IO, "cannot open '%s'", from);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		rc = err_sys(e, E_IO, "cannot create '%s'", to);
		close(in);
		return rc;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				rc = err_sys(e, E_IO, "cannot read '%s'", from);
			break;
		}
		for (ssize_t w = 0; w < n;) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				rc = err_sys(e, E_IO, "cannot write '%s'", to);
				break;
			}
			w += k;
		}
		if (rc < 0)
			break;
	}
	close(in);
	if (close(out) < 0 && rc == 0)
		rc = err_sys(e, E_IO, "cannot write '%s'", to);
	return rc;
}

int
fs_move_file(const char *from, const char *to, struct err *e)
{
	int rc;

	if (rename(from, to) == 0)
		return 0;
	if (errno != EXDEV)
		return err_sys(e, E_IO, "cannot move '%s' to '%s'", from, to);
	rc = fs_copy_file(from, to, e);
	unlink(from);
	return rc;
}
