/* ordq: jobs run on worker threads and handed back in the order they were pushed.
 *
 * A step whose output must come out in one order (rows of a file, byte for byte the same
 * whatever the thread count) but whose work per piece is independent pushes the pieces
 * here: nthreads workers run them at once, oldest first, and ordq_pop returns them in push
 * order. With nthreads 0 a push runs its job at once on the caller's thread, so the result
 * is the same, only later. */
#ifndef LIB_ORDQ_H
#define LIB_ORDQ_H

#include <stddef.h>

struct ordq;

/* A queue of at most cap jobs pushed and not yet popped (cap >= 1), run by run(job) on
 * nthreads threads (0: on the caller's thread, in ordq_push). run must be safe to call on
 * several jobs at once. When a thread cannot be started the jobs run on fewer (or in
 * ordq_push). Free with ordq_free. */
struct ordq *ordq_new(size_t nthreads, size_t cap, void (*run)(void *job));
/* Queue job (borrowed until ordq_pop returns it). The queue must not be full: pop first
 * while ordq_pending(q) == cap (a full push is our bug, BUG). */
void ordq_push(struct ordq *q, void *job);
/* Jobs pushed and not popped. */
size_t ordq_pending(const struct ordq *q);
/* The oldest job pushed, once it has run (waits for it); NULL when none is pending. */
void *ordq_pop(struct ordq *q);
/* Stop the threads (after the pending jobs have run) and free q; the jobs not popped are
 * the caller's. Accepts NULL. */
void ordq_free(struct ordq *q);

#endif
