/* check: the unit-test harness. Each tests/unit/test_<module>.c has a main that calls
 * RUN(name) for each TEST(name) and returns check_done(). One output line per test:
 * "PASS <file>/<name>", "FAIL <file>/<name>: <file:line> <expression>" (the first failed
 * check; one condition per check, so that the line says which one) or
 * "SKIP <file>/<name>: skipped: <why>" (SKIP_TEST). */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int check_failed_;	/* checks failed in the current test */
static int check_tests_failed_;	/* tests failed in this program */
static char check_first_[512];	/* the first failure of the current test */
static char check_skip_[1024];	/* why the current test could not run ("": it ran) */

#define TEST(name) static void test_##name(void)

#define CHECK(cond) do { \
	if (!(cond)) { \
		if (check_failed_++ == 0) \
			snprintf(check_first_, sizeof check_first_, "%s:%d: %s", __FILE__, __LINE__, #cond); \
	} \
} while (0)

/* CHECK as an expression: records a failure like CHECK and yields whether cond held, so
 * that a check which needs it can wait for it:
 *	if (CHECKED(p != NULL))
 *		CHECK(p->n == 1); */
#define CHECKED(cond) check_that_((cond) ? 1 : 0, __FILE__, __LINE__, #cond)

static inline int
check_that_(int ok, const char *file, int line, const char *expr)
{
	if (!ok && check_failed_++ == 0)
		snprintf(check_first_, sizeof check_first_, "%s:%d: %s", file, line, expr);
	return ok;
}

/* CHECK with a printf-style message in place of the expression, for a condition whose
 * text alone does not say what was expected (a choice between values, say), and the
 * value that was found. */
#define CHECK_MSG(cond, ...) do { \
	if (!(cond)) { \
		if (check_failed_++ == 0) { \
			int n_ = snprintf(check_first_, sizeof check_first_, "%s:%d: ", __FILE__, __LINE__); \
			snprintf(check_first_ + n_, sizeof check_first_ - (size_t)n_, __VA_ARGS__); \
		} \
	} \
} while (0)

/* Compare two doubles within an absolute tolerance, reporting both values. */
#define CHECK_NEAR(a, b, tol) do { \
	double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= (tol))) { \
		if (check_failed_++ == 0) \
			snprintf(check_first_, sizeof check_first_, "%s:%d: %s = %.9g, expected %.9g (tol %g)", \
				 __FILE__, __LINE__, #a, a_, b_, (double)(tol)); \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0) { \
		if (check_failed_++ == 0) \
			snprintf(check_first_, sizeof check_first_, "%s:%d: %s = \"%.200s\", expected \"%.200s\"", \
				 __FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} \
} while (0)

/* Leave the current test as skipped (printf-style reason): a test that could not run
 * says so instead of passing. */
#define SKIP_TEST(...) do { \
	snprintf(check_skip_, sizeof check_skip_, __VA_ARGS__); \
	return; \
} while (0)

#define RUN(name) do { \
	check_failed_ = 0; \
	check_skip_[0] = '\0'; \
	test_##name(); \
	if (check_failed_) { \
		check_tests_failed_++; \
		printf("FAIL %s/%s: %s\n", check_prog_(__FILE__), #name, check_first_); \
	} else if (check_skip_[0] != '\0') { \
		printf("SKIP %s/%s: skipped: %s\n", check_prog_(__FILE__), #name, check_skip_); \
	} else { \
		printf("PASS %s/%s\n", check_prog_(__FILE__), #name); \
	} \
	fflush(stdout); \
} while (0)

static inline const char *
check_prog_(const char *file)
{
	const char *s = strrchr(file, '/');

	return s ? s + 1 : file;
}

static char check_dir_[] = "/tmp/contend-unit-XXXXXX";
static int check_dir_made_;	/* mkdtemp already ran (its suffix may itself end in 'X') */

/* A scratch directory for a test program, made on first use; check_done removes it when
 * every test passed and keeps it (saying where) when one failed. */
static inline const char *
check_tmpdir(void)
{
	if (!check_dir_made_) {
		if (mkdtemp(check_dir_) == NULL) {
			perror("mkdtemp");
			exit(2);
		}
		check_dir_made_ = 1;
	}
	return check_dir_;
}

/* Write text to dir/name (created or truncated); exits 2 when it cannot. */
static inline void
check_put(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

static int
check_rm_(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

/* main's return value: 1 when a test failed. Removes the scratch directory, or keeps it
 * for a look when a test failed. */
static inline int
check_done(void)
{
	if (check_dir_made_ && check_tests_failed_)
		fprintf(stderr, "kept %s for a look\n", check_dir_);
	else if (check_dir_made_ && nftw(check_dir_, check_rm_, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "could not remove %s\n", check_dir_);
	return check_tests_failed_ ? 1 : 0;
}

#endif
