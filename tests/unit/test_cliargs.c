/* test_cliargs: option helpers of the command layer (cli/args.c): units, ranges, and
 * the exit status 2 with a one-line message on bad input (checked in a child process). */
#include "cli/cli.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/err.h"
#include "tests/unit/check.h"

enum kind { K_DUR, K_BYTES, K_I64, K_F64 };

/* Parse arg as kind in a child; returns its exit status (-1 on a signal) and the first
 * line it wrote to stderr (msg). Exit 0 means the value was accepted. */
static int
parse_in_child(enum kind kind, const char *arg, char *msg, size_t msglen)
{
	char path[] = "/tmp/contend-cliargs-XXXXXX";
	int fd = mkstemp(path);
	pid_t pid;
	int st = 0;
	FILE *f;

	if (fd < 0)
		return -2;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 2);
		switch (kind) {
		case K_DUR: (void)cli_duration_ns(arg, "--interval", 1000000); break;
		case K_BYTES: (void)cli_bytes(arg, "--snaplen"); break;
		case K_I64: (void)cli_i64(arg, "--ranks", -10, 1000); break;
		case K_F64: (void)cli_f64(arg, "--threshold", 0, 1); break;
		}
		_exit(0);
	}
	close(fd);
	waitpid(pid, &st, 0);
	msg[0] = '\0';
	f = fopen(path, "r");
	if (f != NULL) {
		if (fgets(msg, (int)msglen, f) == NULL)
			msg[0] = '\0';
		fclose(f);
	}
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Bad input: exit 2 and one line naming the option and the argument. */
static int
refused(enum kind kind, const char *arg)
{
	char msg[512];
	const char *opt = kind == K_DUR ? "'--interval'" : kind == K_BYTES ? "'--snaplen'" :
			  kind == K_I64 ? "'--ranks'" : "'--threshold'";
	int st = parse_in_child(kind, arg, msg, sizeof msg);

	if (st != 2)
		return 0;
	if (strncmp(msg, "contend: ", 9) != 0 || strstr(msg, opt) == NULL)
		return 0;
	return strchr(msg, '\n') == msg + strlen(msg) - 1;	/* exactly one line */
}

TEST(duration_units)
{
	CHECK(cli_duration_ns("20ms", "-i", 1) == 20000000);
	CHECK(cli_duration_ns("1.5s", "-i", 1) == 1500000000);
	CHECK(cli_duration_ns("500us", "-i", 1) == 500000);
	CHECK(cli_duration_ns("100ns", "-i", 1000) == 100);
	CHECK(cli_duration_ns("7", "-i", 1000000) == 7000000);		/* the default unit */
	CHECK(cli_duration_ns("2.5", "-i", 1000000000) == 2500000000LL);
	CHECK(cli_duration_ns("0", "-i", 1000000) == 0);
	CHECK(cli_duration_ns("1e3ms", "-i", 1) == 1000000000);
	CHECK(cli_duration_ns("9000000000s", "-i", 1) == 9000000000000000000LL);
	CHECK(cli_duration_ns("0.0000015ms", "-i", 1) == 2);		/* rounded, not cut */
}

TEST(duration_bad)
{
	static const char *const bad[] = {
		"", "ms", "-5ms", "-1", "5xs", "5 ms", "5m", "20MS", "nan", "inf", "1e300s",
		"10000000000s", "5ms ", "s5",
	};

	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		CHECK(refused(K_DUR, bad[k]));
		if (!refused(K_DUR, bad[k]))
			fprintf(stderr, "accepted duration '%s'\n", bad[k]);
	}
	{
		char msg[512];

		CHECK(parse_in_child(K_DUR, "5m", msg, sizeof msg) == 2);
		CHECK(strstr(msg, "unknown unit in '5m'") != NULL);
		if (CHECKED(parse_in_child(K_DUR, "20ms", msg, sizeof msg) == 0))
			CHECK(msg[0] == '\0');
	}
}

TEST(bytes_units)
{
	CHECK(cli_bytes("262144", "-s") == 262144);
	CHECK(cli_bytes("64k", "-s") == 65536);
	CHECK(cli_bytes("64K", "-s") == 65536);
	CHECK(cli_bytes("4M", "-s") == 4194304);
	CHECK(cli_bytes("4m", "-s") == 4194304);
	CHECK(cli_bytes("1G", "-s") == 1073741824);
	CHECK(cli_bytes("1.5k", "-s") == 1536);
	CHECK(cli_bytes("10kB", "-s") == 10240);
	CHECK(cli_bytes("512B", "-s") == 512);
	CHECK(cli_bytes("0", "-s") == 0);
}

TEST(bytes_bad)
{
	static const char *const bad[] = {
		"", "k", "-1", "-1k", "1T", "12 k", "nan", "inf", "1e30G", "1kk", "1kBB", "4Mi",
	};

	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		CHECK(refused(K_BYTES, bad[k]));
		if (!refused(K_BYTES, bad[k]))
			fprintf(stderr, "accepted size '%s'\n", bad[k]);
	}
}

TEST(integers_and_reals)
{
	char msg[512];

	CHECK(cli_i64("42", "-n", 0, 100) == 42);
	CHECK(cli_i64("-10", "-n", -10, 100) == -10);
	CHECK(cli_f64("0.5", "-t", 0, 1) == 0.5);
	CHECK(cli_f64("1", "-t", 0, 1) == 1.0);
	CHECK(refused(K_I64, "4x"));
	CHECK(refused(K_I64, ""));
	CHECK(refused(K_I64, "99999999999999999999"));
	CHECK(refused(K_I64, "1001"));
	CHECK(refused(K_I64, "-11"));
	CHECK(refused(K_I64, "1.5"));
	CHECK(parse_in_child(K_I64, "1001", msg, sizeof msg) == 2);
	CHECK(strstr(msg, "outside [-10, 1000]") != NULL);
	CHECK(refused(K_F64, "nan"));
	CHECK(refused(K_F64, "inf"));
	CHECK(refused(K_F64, "x"));
	CHECK(refused(K_F64, "1.01"));
	CHECK(refused(K_F64, "-0.1"));
	CHECK(refused(K_F64, "0.5x"));
}

static const char usage_t[] = "usage: contend t [-n N]\nexample text\n";

/* Run cli_getopt over argv in a child; exit status, stdout and stderr first lines. */
static int
getopt_in_child(char **argv, char *out, char *errl, size_t n)
{
	static const struct option longopts[] = {
		{ "num", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	char po[] = "/tmp/contend-getopt-o-XXXXXX", pe[] = "/tmp/contend-getopt-e-XXXXXX";
	int fo = mkstemp(po), fe = mkstemp(pe);
	int argc = 0;
	pid_t pid;
	int st = 0;
	FILE *f;

	while (argv[argc] != NULL)
		argc++;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int c;

		dup2(fo, 1);
		dup2(fe, 2);
		optind = 0;
		while ((c = cli_getopt(argc, argv, "n:h", longopts, usage_t)) != -1)
			if (c == 'n')
				printf("n=%s\n", optarg);
		fflush(stdout);
		_exit(0);
	}
	close(fo), close(fe);
	waitpid(pid, &st, 0);
	out[0] = errl[0] = '\0';
	if ((f = fopen(po, "r")) != NULL) {
		if (fgets(out, (int)n, f) == NULL)
			out[0] = '\0';
		fclose(f);
	}
	if ((f = fopen(pe, "r")) != NULL) {
		if (fgets(errl, (int)n, f) == NULL)
			errl[0] = '\0';
		fclose(f);
	}
	unlink(po), unlink(pe);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(getopt)
{
	char out[256], errl[256];

	CHECK(getopt_in_child((char *[]){ "t", "-n", "5", NULL }, out, errl, sizeof out) == 0);
	CHECK_STR(out, "n=5\n");
	CHECK(errl[0] == '\0');
	CHECK(getopt_in_child((char *[]){ "t", "--num=7", NULL }, out, errl, sizeof out) == 0);
	CHECK(strcmp(out, "n=7\n") == 0);
	CHECK(getopt_in_child((char *[]){ "t", "--help", NULL }, out, errl, sizeof out) == 0);
	CHECK(strcmp(out, "usage: contend t [-n N]\n") == 0);
	CHECK(getopt_in_child((char *[]){ "t", "-h", NULL }, out, errl, sizeof out) == 0);
	CHECK(strcmp(out, "usage: contend t [-n N]\n") == 0);
	CHECK(getopt_in_child((char *[]){ "t", "-z", NULL }, out, errl, sizeof out) == 2);
	CHECK(strstr(errl, "unknown option '-z'") != NULL);
	CHECK(out[0] == '\0');
	CHECK(getopt_in_child((char *[]){ "t", "--zap", NULL }, out, errl, sizeof out) == 2);
	CHECK(strstr(errl, "unknown option '--zap'") != NULL);
	CHECK(getopt_in_child((char *[]){ "t", "-n", NULL }, out, errl, sizeof out) == 2);
	CHECK(strstr(errl, "option '-n' needs a value") != NULL);
	CHECK(getopt_in_child((char *[]){ "t", "--num", NULL }, out, errl, sizeof out) == 2);
	CHECK(strstr(errl, "'--num' needs a value") != NULL);
	CHECK(getopt_in_child((char *[]){ "t", "--help=3", NULL }, out, errl, sizeof out) == 2);
	CHECK(strstr(errl, "option '--help' takes no value") != NULL);
	CHECK(out[0] == '\0');
	CHECK(getopt_in_child((char *[]){ "t", "--num=3", "-n", NULL }, out, errl, sizeof out) == 2);
	CHECK_STR(out, "n=3\n");
	CHECK(strstr(errl, "option '-n' needs a value") != NULL);
}

int
main(void)
{
	RUN(duration_units);
	RUN(duration_bad);
	RUN(bytes_units);
	RUN(bytes_bad);
	RUN(integers_and_reals);
	RUN(getopt);
	return check_done();
}
