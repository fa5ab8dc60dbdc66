/* fsutil: small file-system helpers shared by the stages. */
#include "lib/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* True when p keeps name. */
static bool
fs_keeps(const struct fs_pattern *p, const char *name)
{
	size_t ln = strlen(name), lp = p->prefix ? strlen(p->prefix) : 0;
	size_t ls = p->suffix ? strlen(p->suffix) : 0;

	if (name[0] == '.' && !p->hidden)
		return false;
	if (p->prefix != NULL && strncmp(name, p->prefix, lp) != 0)
		return false;
	if (p->infix != NULL && strstr(name, p->infix) == NULL)
		return false;
	return p->suffix == NULL || (ln > lp + ls && strcmp(name + ln - ls, p->suffix) == 0);
}

static int
fs_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **
fs_list(const char *dir, const struct fs_pattern *p, size_t max, size_t *n, struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v;
	size_t cap = 0;

	*n = 0;
	if (d == NULL) {
		err_sys(e, E_IO, "cannot open '%s'", dir);
		return NULL;
	}
	v = xgrow(NULL, &cap, 1, sizeof *v);	/* not NULL when empty: NULL is the error */
	while (*n < max && (de = readdir(d)) != NULL) {
		if (!fs_keeps(p, de->d_name))
			continue;
		v = xgrow(v, &cap, *n + 1, sizeof *v);
		v[(*n)++] = p->paths ? xasprintf("%s/%s", dir, de->d_name) : xstrdup(de->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(v, *n, sizeof *v, fs_name_cmp);
	return v;
}

void
fs_list_free(char **v, size_t n)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

char *
fs_plain_or_gz(const char *dir, const char *name)
{
	struct stat st;
	char *path = xasprintf("%s/%s", dir, name);

	if (stat(path, &st) == 0)
		return path;
	free(path);
	path = xasprintf("%s/%s.gz", dir, name);
	if (stat(path, &st) == 0)
		return path;
	free(path);
	return NULL;
}
