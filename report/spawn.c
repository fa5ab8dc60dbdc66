/* spawn: fork/exec of the report's helper programs, with stderr captured for messages. */
#include "report/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int
tmp_err_fd(void)
{
	char path[] = "/tmp/contend-stderr-XXXXXX";	/* removed at once: only the fd lives on */
	const char *dir = getenv("TMPDIR");
	int fd;

#ifdef O_TMPFILE
	fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#else
	(void)dir;
#endif
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

int
spawn_start(struct spawn *s, char *const argv[], bool want_stdin, struct err *e)
{
	int in[2] = { -1, -1 };		/* stdin pipe */
	int st[2] = { -1, -1 };		/* exec status pipe: the child writes errno if exec fails */
	int child_errno = 0;
	ssize_t n;

	s->pid = -1;
	s->in_fd = -1;
	snprintf(s->prog, sizeof s->prog, "%s", argv[0]);
	s->err_fd = tmp_err_fd();
	if (s->err_fd < 0)
		return err_sys(e, E_IO, "cannot create a temporary file for '%s'", s->prog);
	if ((want_stdin && pipe2(in, O_CLOEXEC) < 0) || pipe2(st, O_CLOEXEC) < 0) {
		err_sys(e, E_IO, "cannot create a pipe for '%s'", s->prog);
		goto fail;
	}
	s->pid = fork();
	if (s->pid < 0) {
		err_sys(e, E_IO, "cannot start '%s'", s->prog);
		goto fail;
	}
	if (s->pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		if (want_stdin)
			dup2(in[0], 0);
		else if (nul >= 0)
			dup2(nul, 0);
		if (nul >= 0)
			dup2(nul, 1);
		dup2(s->err_fd, 2);
		execvp(argv[0], argv);
		child_errno = errno;
		if (write(st[1], &child_errno, sizeof child_errno) < 0)
			_exit(127);
		_exit(127);
	}
	close(st[1]);
	st[1] = -1;
	if (want_stdin) {
		close(in[0]);
		in[0] = -1;
		s->in_fd = in[1];
	}
	do
		n = read(st[0], &child_errno, sizeof child_errno);
	while (n < 0 && errno == EINTR);
	close(st[0]);
	if (n == (ssize_t)sizeof child_errno) {
		spawn_wait(s, NULL);
		errno = child_errno;
		return err_sys(e, E_IO, "cannot run '%s'", argv[0]);
	}
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (st[i] >= 0)
			close(st[i]);
	}
	close(s->err_fd);
	s->err_fd = -1;
	s->pid = -1;
	return -E_IO;
}

int
spawn_write(struct spawn *s, const void *p, size_t n, struct err *e)
{
	const char *c = p;

	if (s->in_fd < 0)
		return err_set(e, E_IO, "'%s' has no input open", s->prog);
	while (n > 0) {
		ssize_t w = write(s->in_fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return err_sys(e, E_IO, "cannot write to '%s'", s->prog);
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The most telling line of the child's stderr: the first one that mentions an error,
 * else the last non-empty one. Control characters become spaces. */
static void
err_line(int fd, char *out, size_t cap)
{
	char text[SPAWN_ERR_KEEP + 1];	/* the start of the child's stderr */
	ssize_t n;
	char *line, *pick = NULL, *last = NULL;

	out[0] = '\0';
	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return;
	n = read(fd, text, SPAWN_ERR_KEEP);
	if (n <= 0)
		return;
	text[n] = '\0';
	line = text;
	while (line != NULL && *line != '\0') {
		char *nl = strchr(line, '\n');
		const char *p;

		if (nl != NULL)
			*nl = '\0';
		for (p = line; *p == ' ' || *p == '\t' || *p == '^'; p++)
			;
		if (*p != '\0' && strncmp(p, "gnuplot>", 8) != 0) {
			last = line;
			if (pick == NULL && (strstr(line, "rror") != NULL || strstr(line, "nvalid") != NULL ||
					     strstr(line, "annot") != NULL || strstr(line, "not ") != NULL))
				pick = line;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (pick == NULL)
		pick = last;
	if (pick == NULL)
		return;
	while (*pick == ' ' || *pick == '\t')
		pick++;
	{
		size_t len = strnlen(pick, cap - 1);

		memcpy(out, pick, len);
		out[len] = '\0';
	}
	for (char *q = out; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = ' ';
}

int
spawn_wait(struct spawn *s, struct err *e)
{
	int status = 0;
	int rc = 0;
	char why[300];		/* line from its stderr */

	if (s->in_fd >= 0) {
		close(s->in_fd);
		s->in_fd = -1;
	}
	if (s->pid > 0) {
		while (waitpid(s->pid, &status, 0) < 0) {
			if (errno != EINTR) {
				rc = err_sys(e, E_IO, "cannot wait for '%s'", s->prog);
				break;
			}
		}
		if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			err_line(s->err_fd, why, sizeof why);
			if (WIFSIGNALED(status))
				rc = err_set(e, E_IO, "'%s' killed by signal %d%s%s", s->prog,
					     WTERMSIG(status), why[0] ? ": " : "", why);
			else
				rc = err_set(e, E_IO, "'%s' failed (exit %d)%s%s", s->prog,
					     WEXITSTATUS(status), why[0] ? ": " : "", why);
		}
	}
	s->pid = -1;
	if (s->err_fd >= 0) {
		close(s->err_fd);
		s->err_fd = -1;
	}
	return rc;
}

int
spawn_run(char *const argv[], struct err *e)
{
	struct spawn s;
	int rc = spawn_start(&s, argv, false, e);

	if (rc < 0)
		return rc;
	return spawn_wait(&s, e);
}
