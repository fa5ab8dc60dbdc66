/* test_accuracy: reading a bench/accuracy results directory (report/accuracy.c): rows, -1
 * unknowns, damaged and duplicate rows, error_pct checked against the times, the summary and
 * its file, the papers' figures, figure names, and the pages built from hostile names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "lib/tsv.h"
#include "report/accuracy.h"

#define HEAD "# contend-accuracy 1\n" \
	"workload\tscenario\tmodel\tdedicated_ns\tpredicted_ns\tmeasured_ns\tmeasured_min_ns\t" \
	"measured_max_ns\treps\terror_pct\tdescription\n"
#define FIG3_HEAD "# contend-fig3 1\n" \
	"workload\texec_ns\tcomp_pct\tcomm_pct\tidle_pct\tavg_busy_ns\tavg_idle_ns\tlink_msgs\t" \
	"link_avg_bytes\tranks\n"

static int ndirs;

/* Write text to dir/name; nothing when text is NULL. 0, or -1. */
static int
put_file(const char *dir, const char *name, const char *text)
{
	char f[600];
	FILE *fp;

	if (text == NULL)
		return 0;
	snprintf(f, sizeof f, "%s/%s", dir, name);
	if ((fp = fopen(f, "w")) == NULL)
		return -1;
	fputs(text, fp);
	return fclose(fp) == 0 ? 0 : -1;
}

/* A fresh results directory holding accuracy.tsv (and fig3.tsv when fig3 != NULL). */
static const char *
make_dir(const char *acc, const char *fig3)
{
	static char path[512];

	snprintf(path, sizeof path, "%s/d%d", check_tmpdir(), ndirs++);
	if (mkdir(path, 0755) < 0 || put_file(path, "accuracy.tsv", acc) < 0 ||
	    put_file(path, "fig3.tsv", fig3) < 0)
		return NULL;
	return path;
}

TEST(rows_and_unknowns)
{
	struct acc_data d;
	struct err e;
	const char *dir = make_dir(HEAD
		"stencil\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t+10.0\tone CPU-bound competitor\n"
		"farm\tcpu1\tp003\t2000\t-1\t3000\t2900\t3100\t5\t-\tone CPU-bound competitor\n"
		"farm\tagg\tp000\t2000\t2850\t3000\t-1\t-1\t4\t-5.0\tserial\\tand parallel\n",
		FIG3_HEAD "stencil\t1000\t70.5\t20\t9.5\t45000000\t-1\t400\t32768\t4\n");

	CHECK(dir != NULL);
	CHECK(acc_load(&d, dir, &e) == 0);
	CHECK(d.nrows == 3);
	CHECK(d.damaged == 0);
	CHECK(d.inconsistent == 0);
	CHECK(d.nscen == 2);
	CHECK(d.nwork == 2);
	CHECK(d.nmodel == 2);
	CHECK_STR(d.scen[0], "cpu1");
	CHECK_STR(d.work[1], "farm");
	CHECK_STR(d.model[1], "p000");
	CHECK_NEAR(d.rows[0].error_pct, 10.0, 1e-9);
	CHECK(isnan(d.rows[1].predicted_ns));
	CHECK(isnan(d.rows[1].error_pct));
	CHECK(d.rows[1].reps == 5);
	CHECK(isnan(d.rows[2].measured_min_ns));
	CHECK(isnan(d.rows[2].measured_max_ns));
	CHECK_STR(d.rows[2].description, "serial\tand parallel");
	CHECK(d.have_fig3);
	CHECK(d.nfig3 == 1);
	CHECK(isnan(d.fig3[0].avg_idle_ns));
	CHECK(d.fig3[0].link_msgs == 400);
	CHECK(d.fig3[0].ranks == 4);
	acc_free(&d);
}

TEST(summary_and_file)
{
	struct acc_data d;
	struct acc_sum s[8];
	struct err e;
	int n;
	const char *dir = make_dir(HEAD
		"a\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t10.0\tx\n"
		"b\tcpu1\tp003\t1000\t970\t1000\t900\t1200\t5\t-3.0\tx\n"
		"c\tcpu1\tp003\t1000\t-1\t1000\t900\t1200\t5\t-\tx\n"
		"a\tagg\tp000\t1000\t1200\t1500\t1400\t1600\t3\t-20.0\ty\n"
		"a\tother\tp003\t1000\t-1\t-1\t-1\t-1\t0\t-\tz\n", NULL);

	CHECK(acc_load(&d, dir, &e) == 0);
	CHECK(!d.have_fig3);
	CHECK(strstr(d.fig3_why, "fig3.tsv") != NULL);
	n = acc_summarize(&d, s, 8);
	CHECK(n == 3);
	CHECK_STR(s[0].scenario, "cpu1");
	CHECK_STR(s[0].model, "p003");
	CHECK(s[0].nrows == 3);
	CHECK(s[0].n == 2);
	CHECK_NEAR(s[0].avg_abs_pct, 6.5, 1e-9);
	CHECK_NEAR(s[0].max_abs_pct, 10.0, 1e-9);
	CHECK_NEAR(s[0].paper_avg_pct, 2.3, 1e-9);
	CHECK_NEAR(s[0].paper_max_pct, 7.8, 1e-9);
	CHECK_STR(s[1].scenario, "agg");
	CHECK_NEAR(s[1].avg_abs_pct, 20.0, 1e-9);
	CHECK(isnan(s[1].paper_avg_pct));
	CHECK_NEAR(s[1].paper_max_pct, 15.0, 1e-9);
	if (CHECKED(s[2].n == 0)) {
		CHECK(isnan(s[2].avg_abs_pct));
		CHECK(isnan(s[2].max_abs_pct));
	}
	CHECK(isnan(s[2].paper_avg_pct));
	CHECK(acc_summarize(&d, s, 1) == 1);	/* the cap holds */
	n = acc_summarize(&d, s, 8);
	{
		char path[600];
		struct tsv_r t;
		static const char *const cols[] = { "scenario", "model", "n", "avg_abs_error_pct", NULL };
		double v;
		int rows = 0;

		snprintf(path, sizeof path, "%s/summary.tsv", dir);
		CHECK(acc_write_summary(path, s, n, &e) == 0);
		CHECK(tsv_r_open(&t, path, "accuracy-summary", 1, cols, &e) == 0);
		while (tsv_r_next(&t, &e) == 1) {
			if (rows == 0) {
				CHECK(tsv_r_f64(&t, tsv_r_col(&t, "avg_abs_error_pct"), &v, &e) == 0);
				CHECK_NEAR(v, 6.5, 1e-6);
			}
			if (rows == 2)
				CHECK_STR(tsv_r_str(&t, tsv_r_col(&t, "avg_abs_error_pct")), "-");
			rows++;
		}
		CHECK(rows == 3);
		tsv_r_close(&t);
	}
	acc_free(&d);
}

TEST(damaged_rows_counted)
{
	struct acc_data d;
	struct err e;
	const char *dir = make_dir(HEAD
		"a\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t10.0\tx\n"
		"short\trow\n"					/* wrong number of fields */
		"b\tcpu1\tp003\tabc\t1100\t1000\t900\t1200\t5\t10.0\tx\n"	/* not a number */
		"c\tcpu1\tp003\t-5\t1100\t1000\t900\t1200\t5\t10.0\tx\n"	/* negative, not -1 */
		"d\tcpu1\tp003\t1000\t1100\t1000\t1200\t900\t5\t10.0\tx\n"	/* min > max */
		"e\tcpu1\tp003\t1000\t1100\t1000\t1005\t1200\t5\t10.0\tx\n"	/* mean below min */
		"f\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t-2\t10.0\tx\n"	/* negative reps */
		"g\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\tten\tx\n"	/* error_pct text */
		"g2\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t++10.0\tx\n"
		"g3\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t+nan\tx\n"
		"g4\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t 10.0\tx\n"
		"g5\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t10.0%\tx\n"
		"\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t10.0\tx\n"	/* empty workload */
		"a\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t10.0\tagain\n"	/* duplicate */
		"h\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t3.0\tx\n"	/* inconsistent: kept */
		"i\tcpu1\tp003\t1000\t-1\t1000\t900\t1200\t5\t3.0\tx\n",	/* error without prediction */
		FIG3_HEAD "a\t-1\t1\t1\t1\t1\t1\t1\t1\t1\n" "b\t1000\t170\t1\t1\t1\t1\t1\t1\t1\n"
		"c\t1000\t1\t1\t1\t1\t1\t1\t1\t0\n");

	CHECK(acc_load(&d, dir, &e) == 0);
	CHECK(d.nrows == 3);
	CHECK(d.damaged == 13 + 3);
	CHECK(strstr(d.first_damage, "line 4") != NULL);
	CHECK(d.inconsistent == 2);
	CHECK(strstr(d.first_inconsistent, "10.00") != NULL);
	CHECK_NEAR(d.rows[1].error_pct, 10.0, 1e-9);	/* recomputed, not the file's 3.0 */
	CHECK(!d.have_fig3);
	CHECK(strstr(d.fig3_why, "no usable row") != NULL);
	acc_free(&d);
}

TEST(errors)
{
	struct acc_data d;
	struct err e;
	const char *dir;

	dir = make_dir(NULL, NULL);
	CHECK(acc_load(&d, dir, &e) == -E_IO);
	CHECK(strstr(e.msg, "accuracy.tsv") != NULL);
	acc_free(&d);
	dir = make_dir("# contend-messages 1\na\tb\n", NULL);
	CHECK(acc_load(&d, dir, &e) == -E_FORMAT);
	acc_free(&d);
	dir = make_dir(HEAD, NULL);
	CHECK(acc_load(&d, dir, &e) == -E_FORMAT);
	CHECK(strstr(e.msg, "no usable row") != NULL);
	CHECK(strstr(e.msg, "accuracy.tsv") != NULL);
	acc_free(&d);
	dir = make_dir(HEAD "a\tb\n", NULL);
	CHECK(acc_load(&d, dir, &e) == -E_FORMAT);
	CHECK(strstr(e.msg, "1 damaged") != NULL);
	acc_free(&d);
	dir = make_dir("# contend-accuracy 1\nworkload\tscenario\n", NULL);
	CHECK(acc_load(&d, dir, &e) == -E_FORMAT);	/* a column missing */
	acc_free(&d);
	dir = make_dir("# contend-accuracy 9\n", NULL);
	CHECK(acc_load(&d, dir, &e) == -E_UNSUP);
	acc_free(&d);
	acc_free(&d);	/* twice is harmless */
}

TEST(caps)
{
	char *acc = malloc(200000);
	size_t o = 0;
	struct acc_data d;
	struct err e;
	const char *dir;

	o += (size_t)snprintf(acc + o, 200000 - o, "%s", HEAD);
	for (int i = 0; i < ACC_MAX_SCEN + 3; i++)
		o += (size_t)snprintf(acc + o, 200000 - o, "w\ts%d\tp003\t1000\t1100\t1000\t900\t1200\t5\t10.0\tx\n", i);
	for (int i = 0; i < ACC_MAX_MODEL + 2; i++)
		o += (size_t)snprintf(acc + o, 200000 - o, "w\ts0\tm%d\t1000\t1100\t1000\t900\t1200\t5\t10.0\tx\n", i);
	dir = make_dir(acc, NULL);
	CHECK(acc_load(&d, dir, &e) == 0);
	CHECK(d.nscen == ACC_MAX_SCEN);
	CHECK(d.nmodel == ACC_MAX_MODEL);
	CHECK(d.rows_dropped == 3 + 3);	/* p003 plus m0..m4 fill the models; m5..m7 dropped */
	acc_free(&d);
	free(acc);
}

TEST(paper_and_stem)
{
	struct acc_data d;
	double a, m;
	char stem[32];

	if (CHECKED(acc_paper("link", "p003", &a, &m))) {
		CHECK(fabs(a - 2.0) < 1e-9);
		CHECK(fabs(m - 7.4) < 1e-9);
	}
	if (CHECKED(acc_paper("both", "p003", &a, &m))) {
		CHECK(fabs(a - 5.7) < 1e-9);
		CHECK(fabs(m - 11.8) < 1e-9);
	}
	if (CHECKED(!acc_paper("cpu1", "p000", &a, &m))) {
		CHECK(isnan(a));
		CHECK(isnan(m));
	}
	memset(&d, 0, sizeof d);
	d.nscen = 2;
	snprintf(d.scen[0], sizeof d.scen[0], "../a b/'c");
	snprintf(d.scen[1], sizeof d.scen[1], "cpu1-x_2");
	acc_scen_stem(&d, 0, stem, sizeof stem);
	CHECK_STR(stem, "fig4-___a_b__c");
	acc_scen_stem(&d, 1, stem, sizeof stem);
	CHECK_STR(stem, "fig4-cpu1-x_2");
	acc_scen_stem(&d, 1, stem, 8);
	CHECK_STR(stem, "fig4-cp");
}

/* Pages from hostile names: built, only quoted strings carry the names. */
TEST(pages_build)
{
	struct acc_data d;
	struct acc_sum s[8];
	struct err e;
	struct plot p;
	char why[ERR_MSG_MAX];
	int n;
	const char *dir = make_dir(HEAD
		"x'`touch /tmp/acc-marker`\tcpu1\tp003\t1000\t1100\t1000\t900\t1200\t5\t10.0\tsystem(\"id\") '\n"
		"EOD\tcpu1\tp000\t1000\t-1\t1000\t900\t1200\t5\t-\t@m\n"
		"nodedicated\tcpu1\tp003\t-1\t1100\t1000\t900\t1200\t5\t10.0\tx\n",
		FIG3_HEAD "x'y\t1000\t70.5\t20\t9.5\t45000000\t-1\t400\t32768\t4\n");

	CHECK(acc_load(&d, dir, &e) == 0);
	n = acc_summarize(&d, s, 8);
	plot_init(&p);
	CHECK(acc_page_fig3(&d, &p, why, sizeof why) == 1);
	CHECK(p.failed == 0);
	plot_release(&p);
	plot_init(&p);
	CHECK(acc_page_scenario(&d, 0, &p, why, sizeof why) == 1);
	CHECK(p.failed == 0);
	CHECK(buf_add(&p.body, "", 1) == 0);	/* a NUL for strstr */
	CHECK(strstr((const char *)p.body.data, "$na << EOD") != NULL);
	CHECK(strstr((const char *)p.body.data, "nodedicated: no dedicated time") != NULL);
	CHECK(strstr((const char *)p.body.data, "'x\xe2\x80\x99`touch") != NULL);	/* quote made U+2019 */
	CHECK(strstr((const char *)p.body.data, "\nEOD\t") == NULL);
	plot_release(&p);
	plot_init(&p);
	CHECK(acc_page_summary(&d, s, n, &p, why, sizeof why) == 1);
	CHECK(p.failed == 0);
	plot_release(&p);
	plot_init(&p);
	CHECK(acc_page_summary(&d, s, 0, &p, why, sizeof why) == 0);
	plot_release(&p);
	acc_free(&d);
}

int
main(void)
{
	RUN(rows_and_unknowns);
	RUN(summary_and_file);
	RUN(damaged_rows_counted);
	RUN(errors);
	RUN(caps);
	RUN(paper_and_stem);
	RUN(pages_build);
	return check_done();
}
