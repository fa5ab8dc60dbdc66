/* tail: the rule for a rank whose end hung after the run's last message. */
#include "parse/tail.h"

#include <stdlib.h>
#include <string.h>

bool
tail_hung(const struct tail_rank *r, int64_t *tail_ns)
{
	int64_t tail;		/* ns from the run's last message to the rank's last sample */

	if (r->how_ended == NULL ||
	    (strcmp(r->how_ended, "signaled") != 0 && strcmp(r->how_ended, "running") != 0))
		return false;
	if (!r->has_msgs || r->t_run_last_msg_ns == INT64_MIN || r->t_end_ns <= r->t_run_last_msg_ns)
		return false;
	tail = r->t_end_ns - r->t_run_last_msg_ns;
	if (tail <= TAIL_MIN_NS)
		return false;
	/* compared as a quotient: TAIL_GAP_FACTOR * gap may not fit */
	if (r->longest_gap_ns > 0 && tail / TAIL_GAP_FACTOR <= r->longest_gap_ns)
		return false;
	if (tail_ns != NULL)
		*tail_ns = tail;
	return true;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t
tail_longest_gap(int64_t *send_ns, size_t nsend, int64_t *arr_ns, size_t narr)
{
	size_t i = 0, j = 0;
	int64_t prev = 0, gap = 0;
	bool have = false;

	if (nsend > 1)
		qsort(send_ns, nsend, sizeof *send_ns, cmp_i64);
	if (narr > 1)
		qsort(arr_ns, narr, sizeof *arr_ns, cmp_i64);
	while (i < nsend || j < narr) {
		int64_t t = j >= narr || (i < nsend && send_ns[i] <= arr_ns[j]) ? send_ns[i++] : arr_ns[j++];

		if (have && t - prev > gap)
			gap = t - prev;
		prev = t;
		have = true;
	}
	return gap;
}
