/* test_err: error out-parameters and command-layer output (lib/err.h). */
#include "lib/err.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/check.h"

/* CHECK_STR on a char array trips -Wformat-truncation (its buffer size is known); compare here. */
#define CHECK_EQS(a, b) CHECK(strcmp((a), (b)) == 0)

TEST(set)
{
	struct err e = { { 0 }, 0 };

	CHECK(err_set(&e, E_FORMAT, "cannot read '%s' at %d", "x.tsv", 3) == -E_FORMAT);
	CHECK(e.code == -E_FORMAT);
	CHECK_EQS(e.msg, "cannot read 'x.tsv' at 3");
	CHECK(err_set(NULL, E_IO, "nobody listens") == -E_IO);	/* NULL is allowed */
}

TEST(set_long_message_truncated)
{
	struct err e;
	char big[2000];

	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	CHECK(err_set(&e, E_LIMIT, "%s", big) == -E_LIMIT);
	CHECK(strlen(e.msg) == ERR_MSG_MAX - 1);
}

TEST(sys_keeps_errno)
{
	struct err e = { { 0 }, 0 };
	int rc;

	errno = ENOENT;
	rc = err_sys(&e, E_IO, "cannot open '%s'", "nowhere");
	CHECK(rc == -E_IO);
	CHECK(e.code == -E_IO);
	CHECK(errno == ENOENT);
	CHECK(strncmp(e.msg, "cannot open 'nowhere': ", 23) == 0);
	CHECK_EQS(e.msg + 23, strerror(ENOENT));
	errno = EACCES;
	CHECK(err_sys(NULL, E_PERM, "x") == -E_PERM);
	CHECK(errno == EACCES);
}

TEST(prefix)
{
	struct err e = { { 0 }, 0 };

	err_set(&e, E_FORMAT, "line 3: bad field");
	err_prefix(&e, "reading '%s'", "a.tsv");
	CHECK_EQS(e.msg, "reading 'a.tsv': line 3: bad field");
	CHECK(e.code == -E_FORMAT);	/* the code is kept */
	err_prefix(NULL, "nothing");
}

TEST(prefix_long)
{
	struct err e = { { 0 }, 0 };
	char big[1000];

	memset(big, 'p', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	err_set(&e, E_IO, "old message");
	err_prefix(&e, "%s", big);
	CHECK(strlen(e.msg) == ERR_MSG_MAX - 1);	/* still terminated inside msg */
	CHECK(e.msg[0] == 'p');
	memset(big, 'o', sizeof big - 1);
	err_set(&e, E_IO, "%s", big);			/* full old message */
	err_prefix(&e, "ctx");
	CHECK(strncmp(e.msg, "ctx: ooo", 8) == 0);
	CHECK(strlen(e.msg) == ERR_MSG_MAX - 1);
}

/* Run fn in a child with stderr captured to a file; returns the exit status
 * (-1 if killed by a signal) and the first line written in line. */
static int
child(void (*fn)(void), char *line, size_t n)
{
	char path[] = "/tmp/contend-err-XXXXXX";
	int fd = mkstemp(path);
	pid_t pid;
	int st;
	FILE *f;

	if (fd < 0)
		return -2;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 2);
		fn();
		_exit(0);
	}
	close(fd);
	waitpid(pid, &st, 0);
	line[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		if (fgets(line, (int)n, f) == NULL)
			line[0] = '\0';
		fclose(f);
	}
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
do_die(void)
{
	die("cannot open '%s'", "x");
}

static void
do_die_usage(void)
{
	die_usage("bad option '%s'", "-z");
}

static void
do_bug(void)
{
	BUG("broken %d", 7);
}

static void
do_quiet(void)
{
	err_verbosity = 0;
	note("should not appear");
	verbose("nor this");
	warnx_("but warnings do");
}

static void
do_verbose(void)
{
	err_verbosity = 2;
	verbose("shown at %d", 2);
}

static void
do_normal(void)
{
	err_verbosity = 1;
	verbose("hidden");
	note("note %s", "shown");
}

TEST(command_layer_output)
{
	char line[600];

	CHECK(child(do_die, line, sizeof line) == 1);
	CHECK_EQS(line, "contend: cannot open 'x'\n");
	CHECK(child(do_die_usage, line, sizeof line) == 2);
	CHECK_EQS(line, "contend: bad option '-z'\n");
	CHECK(child(do_bug, line, sizeof line) == -1);	/* abort() */
	CHECK(strstr(line, "BUG at") != NULL);
	CHECK(strstr(line, "broken 7") != NULL);
	CHECK(child(do_quiet, line, sizeof line) == 0);
	CHECK_EQS(line, "contend: but warnings do\n");
	CHECK(child(do_verbose, line, sizeof line) == 0);
	CHECK_EQS(line, "contend: shown at 2\n");
	CHECK(child(do_normal, line, sizeof line) == 0);
	CHECK_EQS(line, "contend: note shown\n");
}

/* err_sayf's sink: keeps the message and counts the calls. */
struct said {
	char msg[2 * ERR_SAY_MAX];
	int n;
};

static void
keep(void *arg, const char *msg)
{
	struct said *s = arg;

	snprintf(s->msg, sizeof s->msg, "%s", msg);
	s->n++;
}

TEST(sayf_formats_and_cuts)
{
	struct said s = { "", 0 };
	char big[2 * ERR_SAY_MAX];

	err_sayf(keep, &s, "'%s': %d rows", "a.tsv", 3);
	CHECK(s.n == 1);
	CHECK_EQS(s.msg, "'a.tsv': 3 rows");
	memset(big, 'b', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	err_sayf(keep, &s, "x%s", big);
	CHECK(s.n == 2);
	CHECK(strlen(s.msg) == ERR_SAY_MAX - 1);
	CHECK(s.msg[0] == 'x');
	CHECK(s.msg[1] == 'b');
}

int
main(void)
{
	RUN(set);
	RUN(set_long_message_truncated);
	RUN(sys_keeps_errno);
	RUN(prefix);
	RUN(prefix_long);
	RUN(command_layer_output);
	RUN(sayf_formats_and_cuts);
	return check_done();
}
