/* tb_sys: running iproute2 programs, small file helpers, process identity and entering a workstation. */
#include "testbed/tb_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Directories tried after PATH: root's programs are there even when PATH lacks them. */
static const char *const sbin_dirs[] = { "/usr/sbin", "/sbin", NULL };

/* In a forked child: exec argv like execvp, then the sbin directories. Returns on failure. */
static void
exec_search(const char *const argv[])
{
	char path[512];

	execvp(argv[0], (char *const *)argv);
	if (strchr(argv[0], '/') != NULL)
		return;
	for (int k = 0; sbin_dirs[k] != NULL; k++) {
		snprintf(path, sizeof path, "%s/%s", sbin_dirs[k], argv[0]);
		execv(path, (char *const *)argv);
	}
}

bool
tb_have_program(const char *name)
{
	const char *p = getenv("PATH");
	char path[512];

	if (strchr(name, '/') != NULL)
		return access(name, X_OK) == 0;
	while (p != NULL && *p != '\0') {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);

		if (n > 0 && (size_t)snprintf(path, sizeof path, "%.*s/%s", (int)n, p, name) < sizeof path &&
		    access(path, X_OK) == 0)
			return true;
		p = colon ? colon + 1 : NULL;
	}
	for (int k = 0; sbin_dirs[k] != NULL; k++) {
		snprintf(path, sizeof path, "%s/%s", sbin_dirs[k], name);
		if (access(path, X_OK) == 0)
			return true;
	}
	return false;
}

/* Read all of fd into buf (cut at len - 1, the rest drained); NUL-terminates. */
static void
drain(int fd, char *buf, size_t len)
{
	size_t n = 0;
	char junk[512];

	for (;;) {
		ssize_t r;

		if (n + 1 < len)
			r = read(fd, buf + n, len - 1 - n);
		else
			r = read(fd, junk, sizeof junk);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (n + 1 < len)
			n += (size_t)r;
	}
	if (len > 0)
		buf[n] = '\0';
}

/* Join argv with spaces for messages. */
static void
cmdline(const char *const argv[], char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; argv[k] != NULL && n + 1 < len; k++) {
		int w = snprintf(buf + n, len - n, "%s%s", k ? " " : "", argv[k]);

		if (w < 0)
			break;
		n += (size_t)w;
	}
}

/* Trim trailing whitespace and turn inner newlines into "; " so the message is one line. */
static void
one_line(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
		s[--n] = '\0';
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

static int
run(const char *const argv[], char *out, size_t outlen, struct err *e)
{
	int errp[2], outp[2] = { -1, -1 };
	char errbuf[400];	/* the first bytes of the program's stderr */
	char line[256];
	pid_t pid;
	int status;

	if (pipe2(errp, O_CLOEXEC) < 0)
		return err_sys(e, E_IO, "cannot create a pipe");
	if (out != NULL && pipe2(outp, O_CLOEXEC) < 0) {
		close(errp[0]);
		close(errp[1]);
		return err_sys(e, E_IO, "cannot create a pipe");
	}
	pid = fork();
	if (pid < 0) {
		close(errp[0]);
		close(errp[1]);
		if (out != NULL) {
			close(outp[0]);
			close(outp[1]);
		}
		return err_sys(e, E_IO, "cannot fork");
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, 0);
			if (out == NULL)
				dup2(null, 1);
		}
		if (out != NULL)
			dup2(outp[1], 1);
		dup2(errp[1], 2);
		exec_search(argv);
		dprintf(2, "cannot run '%s': %s", argv[0], strerror(errno));
		_exit(127);
	}
	close(errp[1]);
	if (out != NULL) {
		close(outp[1]);
		drain(outp[0], out, outlen);	/* small outputs: stderr fits the pipe meanwhile */
		close(outp[0]);
	}
	drain(errp[0], errbuf, sizeof errbuf);
	close(errp[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_sys(e, E_IO, "cannot wait for '%s'", argv[0]);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	cmdline(argv, line, sizeof line);
	one_line(errbuf);
	if (WIFSIGNALED(status))
		return err_set(e, E_IO, "'%s' killed by signal %d%s%s", line, WTERMSIG(status),
			       errbuf[0] ? ": " : "", errbuf);
	return err_set(e, E_IO, "'%s' failed (exit %d)%s%s", line, WEXITSTATUS(status),
		       errbuf[0] ? ": " : "", errbuf);
}

int
tb_run(const char *const argv[], struct err *e)
{
	return run(argv, NULL, 0, e);
}

int
tb_run_out(const char *const argv[], char *out, size_t outlen, struct err *e)
{
	return run(argv, out, outlen, e);
}

int
tb_write_file(const char *path, const char *text, struct err *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t len = strlen(text), off = 0;

	if (fd < 0)
		return err_sys(e, E_IO, "cannot open '%s'", path);
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int r = err_sys(e, E_IO, "cannot write '%s'", path);

			close(fd);
			return r;
		}
		off += (size_t)w;
	}
	if (close(fd) < 0)
		return err_sys(e, E_IO, "cannot write '%s'", path);
	return 0;
}

long
tb_read_file(const char *path, char *buf, size_t len, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return err_sys(e, E_IO, "cannot open '%s'", path);
	while (n + 1 < len) {
		ssize_t r = read(fd, buf + n, len - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int rc = err_sys(e, E_IO, "cannot read '%s'", path);

			close(fd);
			return rc;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (len > 0)
		buf[n] = '\0';
	return (long)n;
}

bool
tb_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int
tb_proc_start(pid_t pid, uint64_t *ticks)
{
	char path[64];
	char buf[1024];
	const char *p;
	int field = 2;	/* the field the cursor is in after the ')' of comm */

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (tb_read_file(path, buf, sizeof buf, NULL) <= 0)
		return -1;
	p = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	if (p == NULL)
		return -1;
	p++;
	while (*p != '\0' && field < 22) {
		if (*p == ' ') {
			field++;
			while (*p == ' ')
				p++;
			continue;
		}
		p++;
	}
	if (field != 22 || *p < '0' || *p > '9')
		return -1;
	{
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || (*end != ' ' && *end != '\0' && *end != '\n'))
			return -1;
		*ticks = v;
	}
	return 0;
}

bool
tb_proc_is(pid_t pid, uint64_t ticks)
{
	uint64_t now;

	return tb_proc_start(pid, &now) == 0 && now == ticks;
}

/* True when pid is a zombie or gone (a zombie that is our child is reaped). */
static bool
proc_gone(pid_t pid, uint64_t ticks)
{
	char path[64], buf[512];
	const char *p;

	waitpid(pid, NULL, WNOHANG);
	if (!tb_proc_is(pid, ticks))
		return true;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (tb_read_file(path, buf, sizeof buf, NULL) <= 0)
		return true;
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

int
tb_proc_stop(pid_t pid, uint64_t ticks, int grace_ms)
{
	if (proc_gone(pid, ticks))
		return 0;
	kill(pid, SIGTERM);
	for (int waited = 0; waited < grace_ms; waited += 10) {
		if (proc_gone(pid, ticks))
			return 1;
		tb_sleep_ms(10);
	}
	if (tb_proc_is(pid, ticks))
		kill(pid, SIGKILL);
	for (int waited = 0; waited < 1000; waited += 10) {
		if (proc_gone(pid, ticks))
			break;
		tb_sleep_ms(10);
	}
	return 1;
}

int
tb_enter(const char *netns, const char *const cgroup_dirs[], struct err *e)
{
	char path[512];
	int fd;

	snprintf(path, sizeof path, "/run/netns/%s", netns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, errno == EACCES || errno == EPERM ? E_PERM : E_IO,
			       "cannot open network namespace '%s'", path);
	if (setns(fd, CLONE_NEWNET) < 0) {
		int r = err_sys(e, errno == EPERM ? E_PERM : E_IO, "cannot enter network namespace '%s'",
				netns);

		close(fd);
		return r;
	}
	close(fd);
	/* the workstation's IPC namespace (tb_net.h), where `up` made one: shared memory of
	 * System V and of UCX then stays within the workstation */
	snprintf(path, sizeof path, "%s/%s", TB_IPCNS_DIR, netns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		int r = setns(fd, CLONE_NEWIPC);

		close(fd);
		if (r < 0)
			return err_sys(e, errno == EPERM ? E_PERM : E_IO, "cannot enter the IPC namespace '%s'",
				       path);
	}
	/* a UTS namespace of its own so that gethostname() names the workstation, as the
	 * launchers and per-node tools expect of a separate machine */
	if (unshare(CLONE_NEWUTS) < 0)
		return err_sys(e, E_IO, "cannot create a UTS namespace for '%s'", netns);
	if (sethostname(netns, strlen(netns)) < 0)
		return err_sys(e, E_IO, "cannot set the host name '%s'", netns);
	return tb_join_cgroups(cgroup_dirs, e);
}

int
tb_join_cgroups(const char *const dirs[], struct err *e)
{
	char path[512], pid[32];

	snprintf(pid, sizeof pid, "%d\n", (int)getpid());
	for (int k = 0; dirs != NULL && dirs[k] != NULL; k++) {
		snprintf(path, sizeof path, "%s/cgroup.procs", dirs[k]);
		if (tb_write_file(path, pid, e) < 0) {
			err_prefix(e, "cannot join cgroup '%s'", dirs[k]);
			return -E_IO;
		}
	}
	return 0;
}

int
tb_self_exe(char *buf, size_t len, struct err *e)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n < 0)
		return err_sys(e, E_IO, "cannot read '/proc/self/exe'");
	if ((size_t)n >= len - 1)
		return err_set(e, E_LIMIT, "path of the executable is too long");
	buf[n] = '\0';
	return 0;
}

void
tb_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
