/* test_plot: quoting for gnuplot, hostile names through a real gnuplot, failures reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "report/plot.h"
#include "report/spawn.h"

static char dir[256];	/* scratch directory of this program */

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static long
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Exactly two single quotes, the outer ones. */
static bool
quotes_balanced(const char *q)
{
	size_t n = strlen(q);

	if (n < 2 || q[0] != '\'' || q[n - 1] != '\'')
		return false;
	for (size_t i = 1; i + 1 < n; i++)
		if (q[i] == '\'')
			return false;
	return true;
}

TEST(quote_basic)
{
	char q[PLOT_Q_MAX];

	CHECK_STR(plot_quote(q, sizeof q, "ws1"), "'ws1'");
	CHECK_STR(plot_quote(q, sizeof q, "it's"), "'it\xe2\x80\x99s'");
	CHECK(quotes_balanced(plot_quote(q, sizeof q, "''''x'''")));
	CHECK_STR(plot_quote(q, sizeof q, NULL), "''");
	CHECK_STR(plot_quote(q, sizeof q, "a\nb\tc\rd\x1b"), "'a b c d '");
	CHECK_STR(plot_quote(q, sizeof q, "back\\slash"), "'back\\slash'");
	CHECK_STR(plot_quote(q, sizeof q, "caf\xc3\xa9"), "'caf\xc3\xa9'");
	CHECK_STR(plot_quote(q, sizeof q, "50%"), "'50%'");
	CHECK_STR(plot_quote_tic(q, sizeof q, "50% it's"), "'50%% it\xe2\x80\x99s'");
}

TEST(quote_truncates_balanced)
{
	char q[16];
	char many[64];

	memset(many, '\'', sizeof many - 1);
	many[sizeof many - 1] = '\0';
	plot_quote(q, sizeof q, many);
	CHECK(strlen(q) < sizeof q);
	CHECK(quotes_balanced(q));
	plot_quote(q, sizeof q, "abcdefghijklmnopqrstuvwxyz");
	CHECK(quotes_balanced(q));
	CHECK(strlen(q) == sizeof q - 1);
	/* a multi-byte character is never cut in half */
	plot_quote(q, 7, "ab\xc3\xa9\xc3\xa9");
	CHECK_STR(q, "'ab\xc3\xa9'");
	CHECK(quotes_balanced(plot_quote(q, 3, "x")));
}

TEST(rows_numbers_only)
{
	struct plot p;

	plot_init(&p);
	plot_begin_data(&p, "d");
	plot_row(&p, "%d %.3f %g", 1, 2.5, -1e-9);
	plot_row(&p, "nan inf -inf");
	CHECK(p.failed == 0);
	plot_row(&p, "%s", "EOD");
	CHECK(p.failed != 0);
	plot_release(&p);

	plot_init(&p);
	plot_row(&p, "1 `touch x`");
	CHECK(p.failed != 0);
	plot_release(&p);

	plot_init(&p);
	plot_begin_data(&p, "bad name");
	CHECK(p.failed != 0);
	plot_release(&p);
}

/* Names built to break out of a gnuplot string or run a command if they were not quoted. */
static const char *hostile[10];
static char marker[8][300];

static void
make_hostile(void)
{
	for (int i = 0; i < 8; i++)
		snprintf(marker[i], sizeof marker[i], "%s/marker%d", dir, i);
	static char h[10][700];
	snprintf(h[0], sizeof h[0], "ws`touch %s`1", marker[0]);
	snprintf(h[1], sizeof h[1], "x'; system('touch %s'); print '", marker[1]);
	snprintf(h[2], sizeof h[2], "system(\"touch %s\")", marker[2]);
	snprintf(h[3], sizeof h[3], "a\nsystem('touch %s')\n", marker[3]);
	snprintf(h[4], sizeof h[4], "m='`touch %s`'; @m ''", marker[4]);
	snprintf(h[5], sizeof h[5], "back\\' ; !touch %s", marker[5]);
	snprintf(h[6], sizeof h[6], "quote\"dq\\\" {^_@&} %%s %%n");
	snprintf(h[7], sizeof h[7], "EOD");
	snprintf(h[8], sizeof h[8], "'''''; system('touch %s') #", marker[6]);
	snprintf(h[9], sizeof h[9], "''; @m '' `touch %s`", marker[7]);
	for (int i = 0; i < 10; i++)
		hostile[i] = h[i];
}

TEST(hostile_names_not_executed)
{
	struct plot p;
	struct err e;
	char q[PLOT_Q_MAX], pdf[320], png[320];
	int rc;

	make_hostile();
	snprintf(pdf, sizeof pdf, "%s/hostile '`x`.pdf", dir);
	snprintf(png, sizeof png, "%s/hostile '`x`.png", dir);
	plot_init(&p);
	plot_cmd(&p, "set title %s", plot_quote(q, sizeof q, hostile[0]));
	plot_cmd(&p, "set xlabel %s", plot_quote(q, sizeof q, hostile[1]));
	plot_cmd(&p, "set ylabel %s", plot_quote(q, sizeof q, hostile[2]));
	plot_cmd(&p, "set label %s at graph 0.1,0.9", plot_quote(q, sizeof q, hostile[3]));
	plot_cmd(&p, "set label %s at graph 0.1,0.8", plot_quote(q, sizeof q, hostile[4]));
	plot_cmd(&p, "set label %s at graph 0.1,0.7", plot_quote(q, sizeof q, hostile[5]));
	plot_cmd(&p, "set xtics (%s 1, %s 2)", plot_quote_tic(q, sizeof q, hostile[6]), "'two'");
	plot_cmd(&p, "set xtics add (%s 3)", plot_quote_tic(q, sizeof q, hostile[7]));
	plot_cmd(&p, "set ytics (%s 1)", plot_quote_tic(q, sizeof q, hostile[1]));
	plot_cmd(&p, "set label %s at graph 0.1,0.6", plot_quote(q, sizeof q, hostile[6]));
	plot_cmd(&p, "set label %s at graph 0.1,0.5", plot_quote(q, sizeof q, hostile[8]));
	plot_cmd(&p, "m = 'x'");
	plot_cmd(&p, "set label %s at graph 0.1,0.4", plot_quote(q, sizeof q, hostile[9]));
	plot_cmd(&p, "set x2tics (%s 2)", plot_quote_tic(q, sizeof q, hostile[8]));
	plot_begin_data(&p, "d");
	for (int i = 1; i <= 3; i++)
		plot_row(&p, "%d %d", i, i * i);
	plot_end_data(&p);
	plot_cmd(&p, "plot $d using 1:2 with linespoints title %s", plot_quote(q, sizeof q, hostile[1]));
	rc = plot_render(&p, pdf, png, &e);
	if (rc < 0)
		printf("# %s\n", e.msg);
	CHECK(rc == 0);
	CHECK(file_size(pdf) > 1000);
	CHECK(file_size(png) > 1000);
	for (int i = 0; i < 8; i++)
		CHECK(!exists(marker[i]));
	plot_release(&p);
	/* The names are on the page as text. */
	{
		char txt[400];
		FILE *f;
		char page[8192];
		size_t n = 0;

		snprintf(txt, sizeof txt, "%s/hostile.txt", dir);
		char *argv[] = { "pdftotext", "-raw", pdf, txt, NULL };	/* no shell: the path has backticks */

		if (spawn_run(argv, &e) == 0 && (f = fopen(txt, "r")) != NULL) {
			n = fread(page, 1, sizeof page - 1, f);
			fclose(f);
		}
		page[n] = '\0';
		CHECK(strstr(page, "system(\"touch") != NULL);
		CHECK(strstr(page, "EOD") != NULL);
		CHECK(strstr(page, "{^_@&}") != NULL);
	}
}

/* The check above can see execution: the same text unquoted does run. */
TEST(unquoted_would_run)
{
	struct plot p;
	struct err e;
	char pdf[320], m[300];

	snprintf(pdf, sizeof pdf, "%s/control.pdf", dir);
	snprintf(m, sizeof m, "%s/control-marker", dir);
	plot_init(&p);
	plot_cmd(&p, "set title `touch %s`", m);
	plot_cmd(&p, "plot x");
	if (plot_render(&p, pdf, NULL, &e) < 0)
		printf("# %s\n", e.msg);
	CHECK(exists(m));
	plot_release(&p);
}

TEST(gnuplot_missing)
{
	struct plot p;
	struct err e;
	char pdf[320], empty[300];
	char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	int rc;

	snprintf(empty, sizeof empty, "%s/empty", dir);
	mkdir(empty, 0755);
	snprintf(pdf, sizeof pdf, "%s/missing.pdf", dir);
	unsetenv("CONTEND_GNUPLOT");
	setenv("PATH", empty, 1);
	plot_init(&p);
	plot_cmd(&p, "plot x");
	rc = plot_render(&p, pdf, NULL, &e);
	CHECK(rc == -E_IO);
	CHECK(strstr(e.msg, "gnuplot") != NULL);
	CHECK(strstr(e.msg, "No such file") != NULL);
	CHECK(strchr(e.msg, '\n') == NULL);
	if (old_path) {
		setenv("PATH", old_path, 1);
		free(old_path);
	}
	/* an override that exists but fails */
	setenv("CONTEND_GNUPLOT", "false", 1);
	rc = plot_render(&p, pdf, NULL, &e);
	CHECK(rc == -E_IO);
	CHECK(strstr(e.msg, "'false' failed (exit 1)") != NULL);
	setenv("CONTEND_GNUPLOT", "/nonexistent/gnuplot", 1);
	rc = plot_render(&p, pdf, NULL, &e);
	CHECK(rc == -E_IO);
	CHECK(strstr(e.msg, "/nonexistent/gnuplot") != NULL);
	unsetenv("CONTEND_GNUPLOT");
	plot_release(&p);
}

TEST(gnuplot_error_reported)
{
	struct plot p;
	struct err e;
	char pdf[320];
	int rc;

	snprintf(pdf, sizeof pdf, "%s/bad.pdf", dir);
	plot_init(&p);
	plot_cmd(&p, "set nosuchoption 3");
	plot_cmd(&p, "plot x");
	rc = plot_render(&p, pdf, NULL, &e);
	CHECK(rc == -E_IO);
	CHECK(strstr(e.msg, "'gnuplot' failed (exit 1)") != NULL);
	CHECK(strstr(e.msg, "bad.pdf") != NULL);
	CHECK(strchr(e.msg, '\n') == NULL);
	plot_release(&p);
}

TEST(spawn_stderr)
{
	char *argv[] = { "sh", "-c", "echo 'first line' >&2; echo 'an error here' >&2; exit 3", NULL };
	struct err e;

	CHECK(spawn_run(argv, &e) == -E_IO);
	CHECK(strstr(e.msg, "exit 3") != NULL);
	CHECK(strstr(e.msg, "an error here") != NULL);
}

int
main(void)
{
	char cmd[400];

	signal(SIGPIPE, SIG_IGN);
	snprintf(dir, sizeof dir, "%s", check_tmpdir());
	RUN(quote_basic);
	RUN(quote_truncates_balanced);
	RUN(rows_numbers_only);
	RUN(hostile_names_not_executed);
	RUN(unquoted_would_run);
	RUN(gnuplot_missing);
	RUN(gnuplot_error_reported);
	RUN(spawn_stderr);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return check_done();
}
