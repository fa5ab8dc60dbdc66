/* test_ordq: jobs run on threads come back in push order (lib/ordq.h). */
#include "lib/ordq.h"

#include <stdint.h>
#include <time.h>

#include "tests/unit/check.h"

struct job {
	int id;		/* push order */
	int64_t out;	/* what run computed */
	int runs;	/* times run */
};

/* Uneven work, later jobs often faster than earlier ones: threads finish out of order. */
static void
run(void *arg)
{
	struct job *j = arg;
	struct timespec ts = { 0, (long)((j->id * 7919) % 13) * 20000 };	/* 0-240 us */
	uint64_t v = (uint64_t)j->id;	/* unsigned: the mixing wraps on purpose */

	nanosleep(&ts, NULL);
	for (int i = 0; i < 1000; i++)
		v = v * 31 + (uint64_t)i;
	j->out = (int64_t)v;
	j->runs++;
}

static int64_t
expect(int id)
{
	uint64_t v = (uint64_t)id;

	for (int i = 0; i < 1000; i++)
		v = v * 31 + (uint64_t)i;
	return (int64_t)v;
}

/* Push n jobs through a queue of cap slots on nth threads, popping when full; every job
 * must come back once, run once, in push order. */
static int
through(size_t nth, size_t cap, int n)
{
	struct ordq *q = ordq_new(nth, cap, run);
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	int popped = 0, bad = 0;
	struct job *j;

	for (int i = 0; i < n; i++) {
		jobs[i].id = i;
		while (ordq_pending(q) == cap) {
			j = ordq_pop(q);
			bad += j == NULL || j->id != popped || j->runs != 1 || j->out != expect(j->id);
			popped++;
		}
		ordq_push(q, &jobs[i]);
	}
	while ((j = ordq_pop(q)) != NULL) {
		bad += j->id != popped || j->runs != 1 || j->out != expect(j->id);
		popped++;
	}
	bad += popped != n;
	bad += ordq_pending(q) != 0;
	ordq_free(q);
	free(jobs);
	return bad;
}

TEST(push_order_whatever_the_threads)
{
	CHECK(through(0, 1, 50) == 0);
	CHECK(through(0, 4, 50) == 0);
	CHECK(through(1, 1, 50) == 0);
	CHECK(through(2, 3, 200) == 0);
	CHECK(through(3, 7, 300) == 0);
	CHECK(through(7, 16, 300) == 0);
	CHECK(through(7, 2, 100) == 0);	/* fewer slots than threads */
}

TEST(no_threads_runs_in_push)
{
	struct ordq *q = ordq_new(0, 2, run);
	struct job j = { .id = 5 };

	ordq_push(q, &j);
	CHECK(j.runs == 1);	/* already run, before any pop */
	CHECK(j.out == expect(5));
	CHECK(ordq_pending(q) == 1);
	CHECK(ordq_pop(q) == &j);
	CHECK(ordq_pop(q) == NULL);
	ordq_free(q);
}

TEST(free_with_jobs_pending)
{
	struct ordq *q = ordq_new(2, 8, run);
	struct job jobs[8] = { { 0 } };

	for (int i = 0; i < 8; i++) {
		jobs[i].id = i;
		ordq_push(q, &jobs[i]);
	}
	ordq_free(q);	/* runs what is pending, then stops */
	for (int i = 0; i < 8; i++)
		CHECK(jobs[i].runs == 1);
	ordq_free(NULL);
}

int
main(void)
{
	RUN(push_order_whatever_the_threads);
	RUN(no_threads_runs_in_push);
	RUN(free_with_jobs_pending);
	return check_done();
}
