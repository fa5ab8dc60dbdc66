/* tail: the rule for a rank whose end hung after the run's last message. */
#include "parse/tail.h"

#include <stdlib.h>
#include <string.h>

bool
tail_ended_oddly(const char *how)
{
	return how != NULL && (strcmp(how, "signaled") == 0 || strcmp(how, "running") == 0);
}

bool
tail_hung(const struct tail_rank *r, int64_t *tail_ns)
{
	int64_t tail;		/* ns from the run's last message to the rank's last sample */
	int64_t gap;		/* ns: the longest pause the tail must exceed 4 times */

	if (!tail_ended_oddly(r->how_ended))
		return false;
	if (!r->has_msgs || r->t_run_last_msg_ns == INT64_MIN || r->t_end_ns <= r->t_run_last_msg_ns)
		return false;
	tail = r->t_end_ns - r->t_run_last_msg_ns;
	if (tail <= TAIL_MIN_NS)
		return false;
	/* the pause the tail is held against: its own longest, or the run's and its own work's
	 * when both are shorter (its longer gaps were waits while the run went on) */
	gap = r->longest_gap_ns;
	if (r->run_gap_ns > 0) {
		int64_t alt = r->run_gap_ns > r->send_gap_ns ? r->run_gap_ns : r->send_gap_ns;

		if (alt < gap)
			gap = alt;
	}
	/* compared as a quotient: TAIL_GAP_FACTOR * gap may not fit */
	if (gap > 0 && tail / TAIL_GAP_FACTOR <= gap)
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

/* The longest stretch between consecutive times of the two merged, or (to_send) of those
 * that end in a send. */
static int64_t
longest(int64_t *send_ns, size_t nsend, int64_t *arr_ns, size_t narr, bool to_send)
{
	size_t i = 0, j = 0;
	int64_t prev = 0, gap = 0;
	bool have = false;

	if (nsend > 1)
		qsort(send_ns, nsend, sizeof *send_ns, cmp_i64);
	if (narr > 1)
		qsort(arr_ns, narr, sizeof *arr_ns, cmp_i64);
	while (i < nsend || j < narr) {
		bool send = j >= narr || (i < nsend && send_ns[i] <= arr_ns[j]);
		int64_t t = send ? send_ns[i++] : arr_ns[j++];

		if (have && (send || !to_send) && t - prev > gap)
			gap = t - prev;
		prev = t;
		have = true;
	}
	return gap;
}

int64_t
tail_longest_gap(int64_t *send_ns, size_t nsend, int64_t *arr_ns, size_t narr)
{
	return longest(send_ns, nsend, arr_ns, narr, false);
}

int64_t
tail_longest_send_gap(int64_t *send_ns, size_t nsend, int64_t *arr_ns, size_t narr)
{
	return longest(send_ns, nsend, arr_ns, narr, true);
}
