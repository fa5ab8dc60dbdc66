/* Unit tests for parse/coverage: which rank pairs share a node, which were seen. */
#include "parse/coverage.h"

#include "tests/unit/check.h"

/* 2 nodes, 2 ranks each (round-robin: 0 2 on a, 1 3 on b), only cross-node traffic seen:
 * the two same-node pairs are hidden. */
TEST(shared_memory_pairs_are_hidden)
{
	const char *host[4] = { "a", "b", "a", "b" };
	struct cov_link l[] = { { 0, 1, 5 }, { 1, 0, 5 }, { 2, 3, 7 }, { 0, 3, 1 }, { 1, 2, 2 },
				{ 3, 2, 1 }, { 0, 0, 9 }, { -1, 2, 4 } };
	struct cov_stats s;
	struct cov_pair *rows;
	size_t n;
	char note[COV_NOTE_MAX + 1];

	cov_compute(4, host, l, sizeof l / sizeof l[0], false, &s, &rows, &n);
	CHECK(s.ranks == 4);
	CHECK(s.hosts == 2);
	CHECK(s.pairs == 6);
	CHECK(s.pairs_local == 2);
	CHECK(s.pairs_local_seen == 0);
	CHECK(s.pairs_local_hidden == 2);
	CHECK(s.pairs_remote == 4);
	CHECK(s.pairs_remote_seen == 4);
	CHECK(s.msgs_remote == 21);
	CHECK(s.msgs_local == 0);
	CHECK(s.msgs_unplaced == 0);
	CHECK_STR(s.coverage, "partial");
	CHECK_STR(s.local_path, "shared memory");
	CHECK(n == 6);
	if (CHECKED(n == 6)) {
		CHECK(rows[0].r0 == 0);
		CHECK(rows[0].r1 == 1);
		CHECK(rows[0].msgs == 10);
		CHECK(!rows[0].same_node);
	}
	if (CHECKED(n == 6)) {
		CHECK(rows[1].r0 == 0);
		CHECK(rows[1].r1 == 2);
		CHECK(rows[1].same_node);
		CHECK(rows[1].state == COV_HIDDEN);
	}
	if (CHECKED(n == 6)) {
		CHECK(rows[5].r0 == 2);
		CHECK(rows[5].r1 == 3);
		CHECK(rows[5].msgs == 8);
	}
	cov_note(&s, false, note, sizeof note);
	CHECK(strncmp(note, "partial: 2 of 6 rank pairs (33 %)", 33) == 0);
	free(rows);
}

/* A node pair seen over TCP shows the MPI used TCP there: the silent one is quiet. */
TEST(local_tcp_makes_silent_pairs_quiet)
{
	const char *host[4] = { "a", "a", "a", "b" };
	struct cov_link l[] = { { 0, 1, 3 }, { 2, 3, 1 } };
	struct cov_stats s;
	struct cov_pair *rows;
	size_t n;
	char note[COV_NOTE_MAX + 1];

	cov_compute(4, host, l, 2, false, &s, &rows, &n);
	CHECK(s.pairs_local == 3);
	CHECK(s.pairs_local_seen == 1);
	CHECK(s.pairs_local_hidden == 0);
	CHECK_STR(s.coverage, "full");
	CHECK_STR(s.local_path, "tcp");
	CHECK(n == 4);	/* 0-1 seen, 0-2 and 1-2 quiet, 2-3 seen */
	if (CHECKED(n == 4)) {
		CHECK(rows[1].r0 == 0);
		CHECK(rows[1].r1 == 2);
		CHECK(rows[1].state == COV_QUIET);
	}
	cov_note(&s, false, note, sizeof note);
	CHECK(strstr(note, "full: 3 of 6") == note);
	free(rows);
	/* with --see-local nothing seen between a node's ranks is still quiet, not hidden */
	cov_compute(4, host, l + 1, 1, true, &s, &rows, &n);
	CHECK(s.pairs_local_hidden == 0);
	CHECK(s.pairs_local_seen == 0);
	CHECK_STR(s.coverage, "full");
	cov_note(&s, true, note, sizeof note);
	CHECK(strstr(note, "--see-local") != NULL);
	free(rows);
}

TEST(unknown_nodes)
{
	const char *host[3] = { "a", NULL, "b" };
	struct cov_link l[] = { { 0, 1, 3 }, { 0, 2, 1 } };
	struct cov_stats s;
	struct cov_pair *rows;
	size_t n;
	char note[COV_NOTE_MAX + 1];

	cov_compute(3, host, l, 2, false, &s, &rows, &n);
	CHECK(s.ranks == 2);
	CHECK(s.pairs == 1);
	CHECK(s.pairs_local == 0);
	CHECK(s.msgs_unplaced == 3);
	CHECK_STR(s.coverage, "full");
	cov_note(&s, false, note, sizeof note);
	CHECK(strstr(note, "one rank per node") != NULL);
	free(rows);
	cov_compute(0, NULL, l, 2, false, &s, &rows, &n);
	CHECK_STR(s.coverage, "unknown");
	CHECK(n == 0);
	CHECK(s.msgs_unplaced == 4);
	cov_note(&s, false, note, sizeof note);
	CHECK(strncmp(note, "unknown", 7) == 0);
	CHECK(strlen(note) <= COV_NOTE_MAX);
	free(rows);
}

int
main(void)
{
	RUN(shared_memory_pairs_are_hidden);
	RUN(local_tcp_makes_silent_pairs_quiet);
	RUN(unknown_nodes);
	return check_done();
}
