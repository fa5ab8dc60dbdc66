/* ordq: a ring of jobs, run oldest first by a few threads, popped in push order. */
#include "lib/ordq.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/err.h"
#include "lib/xalloc.h"

struct ordq {
	void (*run)(void *);
	void **job;		/* cap slots, a ring */
	bool *done;		/* per slot: its job has run */
	size_t cap;
	size_t head;		/* pushes before the oldest pending job (its slot: head % cap) */
	size_t next;		/* pushes before the next job to start */
	size_t tail;		/* pushes so far */
	bool stop;
	pthread_mutex_t mu;
	pthread_cond_t work;	/* a job was pushed, or stop */
	pthread_cond_t ran;	/* a job has run */
	pthread_t *th;
	size_t nth;		/* threads started */
};

static void *
worker(void *arg)
{
	struct ordq *q = arg;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		size_t i;

		while (q->next == q->tail && !q->stop)
			pthread_cond_wait(&q->work, &q->mu);
		if (q->next == q->tail)
			break;	/* stop, and nothing left to run */
		i = q->next++ % q->cap;
		pthread_mutex_unlock(&q->mu);
		q->run(q->job[i]);
		pthread_mutex_lock(&q->mu);
		q->done[i] = true;
		pthread_cond_broadcast(&q->ran);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct ordq *
ordq_new(size_t nthreads, size_t cap, void (*run)(void *job))
{
	struct ordq *q = xcalloc(1, sizeof *q);

	if (cap == 0)
		BUG("ordq of no slots");
	q->run = run;
	q->cap = cap;
	q->job = xcalloc(cap, sizeof *q->job);
	q->done = xcalloc(cap, sizeof *q->done);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->ran, NULL);
	q->th = xcalloc(nthreads ? nthreads : 1, sizeof *q->th);
	for (q->nth = 0; q->nth < nthreads; q->nth++)
		if (pthread_create(&q->th[q->nth], NULL, worker, q) != 0)
			break;
	return q;
}

void
ordq_push(struct ordq *q, void *job)
{
	size_t i;

	pthread_mutex_lock(&q->mu);
	if (q->tail - q->head >= q->cap)
		BUG("ordq pushed when full (%zu jobs)", q->cap);
	i = q->tail % q->cap;
	q->job[i] = job;
	q->done[i] = false;
	q->tail++;
	if (q->nth == 0) {
		/* no workers: run it now, here */
		q->next++;
		pthread_mutex_unlock(&q->mu);
		q->run(job);
		pthread_mutex_lock(&q->mu);
		q->done[i] = true;
	} else {
		pthread_cond_signal(&q->work);
	}
	pthread_mutex_unlock(&q->mu);
}

size_t
ordq_pending(const struct ordq *q)
{
	return q->tail - q->head;	/* only the caller's thread changes either */
}

void *
ordq_pop(struct ordq *q)
{
	void *job;
	size_t i;

	pthread_mutex_lock(&q->mu);
	if (q->head == q->tail) {
		pthread_mutex_unlock(&q->mu);
		return NULL;
	}
	i = q->head % q->cap;
	while (!q->done[i])
		pthread_cond_wait(&q->ran, &q->mu);
	job = q->job[i];
	q->head++;
	pthread_mutex_unlock(&q->mu);
	return job;
}

void
ordq_free(struct ordq *q)
{
	if (q == NULL)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = true;
	pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->mu);
	for (size_t i = 0; i < q->nth; i++)
		pthread_join(q->th[i], NULL);
	pthread_cond_destroy(&q->ran);
	pthread_cond_destroy(&q->work);
	pthread_mutex_destroy(&q->mu);
	free(q->th);
	free(q->done);
	free(q->job);
	free(q);
}
