/* test_xalloc: allocation wrappers (lib/xalloc.h): checked sizes, growth, and dying on overflow. */
#include "lib/xalloc.h"

#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/check.h"

/* Run fn in a child with stderr silenced; its exit status, or -1 if it did not exit. */
static int
exit_status_of(void (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0) {
		freopen("/dev/null", "w", stderr);
		fn();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(size_arithmetic)
{
	size_t out = 0;

	if (CHECKED(size_mul_ok(1000, 1000, &out)))
		CHECK(out == 1000000);
	CHECK(!size_mul_ok(SIZE_MAX / 2 + 1, 2, &out));
	if (CHECKED(size_mul_ok(0, SIZE_MAX, &out)))
		CHECK(out == 0);
	if (CHECKED(size_add_ok(SIZE_MAX - 1, 1, &out)))
		CHECK(out == SIZE_MAX);
	CHECK(!size_add_ok(SIZE_MAX, 1, &out));
}

TEST(basic)
{
	int *a = xcalloc(10, sizeof *a);
	char *s, *t, *f;

	for (int i = 0; i < 10; i++)
		CHECK(a[i] == 0);
	a = xreallocarray(a, 20, sizeof *a);
	a[19] = 7;
	CHECK(a[19] == 7);
	free(a);
	free(xmalloc(0));		/* zero bytes still gives a pointer to free */
	free(xmallocarray(0, 8));
	s = xstrdup("hello");
	CHECK_STR(s, "hello");
	t = xstrndup("hello", 3);
	CHECK_STR(t, "hel");
	free(t);
	t = xstrndup("hi", 10);		/* n beyond the string: stops at its NUL */
	CHECK_STR(t, "hi");
	f = xasprintf("%s-%d-%05.1f", s, 42, 3.14159);
	CHECK_STR(f, "hello-42-003.1");
	free(s), free(t), free(f);
}

TEST(asprintf_long)
{
	char big[5000];
	char *s;

	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	s = xasprintf("<%s>", big);
	CHECK(strlen(s) == sizeof big + 1);
	CHECK(s[0] == '<');
	CHECK(s[sizeof big] == '>');
	free(s);
}

TEST(grow)
{
	size_t cap = 0;
	long *v = NULL;

	v = xgrow(v, &cap, 1, sizeof *v);
	CHECK(cap >= 1);
	CHECK(v != NULL);
	for (size_t i = 0; i < 1000; i++) {
		v = xgrow(v, &cap, i + 1, sizeof *v);
		CHECK(cap >= i + 1);
		v[i] = (long)i;
	}
	CHECK(v[999] == 999);
	CHECK(v[0] == 0);
	{
		size_t before = cap;
		long *same = xgrow(v, &cap, 10, sizeof *v);	/* already big enough */

		CHECK(same == v);
		CHECK(cap == before);
	}
	free(v);
}

static void
mul_overflow(void)
{
	(void)xmallocarray(SIZE_MAX / 4, 8);
}

static void
calloc_overflow(void)
{
	(void)xcalloc(SIZE_MAX / 2, 3);
}

static void
realloc_overflow(void)
{
	(void)xreallocarray(NULL, 3, SIZE_MAX / 2);
}

static void
grow_overflow(void)
{
	size_t cap = 8;
	void *p = xmalloc(64);

	(void)xgrow(p, &cap, SIZE_MAX, 8);
}

TEST(overflow_dies)
{
	CHECK(exit_status_of(mul_overflow) == 1);
	CHECK(exit_status_of(calloc_overflow) == 1);
	CHECK(exit_status_of(realloc_overflow) == 1);
	CHECK(exit_status_of(grow_overflow) == 1);
}

int
main(void)
{
	RUN(size_arithmetic);
	RUN(basic);
	RUN(asprintf_long);
	RUN(grow);
	RUN(overflow_dies);
	return check_done();
}
