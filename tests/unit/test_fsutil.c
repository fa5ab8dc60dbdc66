/* Unit tests for lib/fsutil: fs_list's patterns, order and cap; fs_plain_or_gz. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/fsutil.h"
#include "tests/unit/check.h"

/* A directory under the scratch one holding the given files (empty contents). */
static const char *
dir_with(const char *sub, const char *const *names)
{
	static char path[512];

	snprintf(path, sizeof path, "%s/%s", check_tmpdir(), sub);
	if (mkdir(path, 0755) != 0) {
		perror(path);
		exit(2);
	}
	for (size_t i = 0; names[i] != NULL; i++)
		check_put(path, names[i], "");
	return path;
}

/* The list as one string, "a b c", for comparing. */
static void
joined(char **v, size_t n, char *out, size_t len)
{
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", v[i]);
}

/* parse's captures: prefix and infix anywhere (overlapping the prefix), hidden left out. */
TEST(prefix_infix_paths)
{
	static const char *const names[] = { "c3ws2.pcap.gz", "c3ws1.pcap", ".c3ws1.x.pcap",
		"c3ws1.1.pcap.gz", "c3ws1.tsv", "c3ws10.pcap", NULL };
	const char *d = dir_with("caps", names);
	const struct fs_pattern p = { .prefix = "c3ws1.", .infix = ".pcap", .paths = true };
	char want[1024], got[1024];
	size_t n = 99;
	char **v = fs_list(d, &p, 100, &n, NULL);

	CHECK(v != NULL);
	CHECK(n == 2);
	snprintf(want, sizeof want, "%s/c3ws1.1.pcap.gz %s/c3ws1.pcap", d, d);
	joined(v, n, got, sizeof got);
	CHECK_STR(got, want);
	fs_list_free(v, n);
}

/* report's files: prefix and suffix with something between them, hidden names kept. */
TEST(prefix_suffix_names)
{
	static const char *const names[] = { "rank-1.tsv", "rank-0.tsv", "rank-.tsv", "rank-2.tsv.gz",
		"node-a.tsv", ".tsv", ".old.tsv", "b.tsv", NULL };
	const char *d = dir_with("meta", names);
	const struct fs_pattern rank = { .prefix = "rank-", .suffix = ".tsv", .hidden = true };
	const struct fs_pattern any = { .prefix = "", .suffix = ".tsv", .hidden = true };
	const struct fs_pattern shown = { .suffix = ".tsv" };
	char got[1024];
	size_t n;
	char **v = fs_list(d, &rank, 100, &n, NULL);

	joined(v, n, got, sizeof got);
	CHECK_STR(got, "rank-0.tsv rank-1.tsv");
	fs_list_free(v, n);
	v = fs_list(d, &any, 100, &n, NULL);
	joined(v, n, got, sizeof got);
	CHECK_STR(got, ".old.tsv b.tsv node-a.tsv rank-.tsv rank-0.tsv rank-1.tsv");
	fs_list_free(v, n);
	v = fs_list(d, &shown, 100, &n, NULL);
	joined(v, n, got, sizeof got);
	CHECK_STR(got, "b.tsv node-a.tsv rank-.tsv rank-0.tsv rank-1.tsv");
	fs_list_free(v, n);
}

/* At most max names, still sorted; an empty match is an empty array, not an error. */
TEST(cap_and_empty)
{
	static const char *const names[] = { "f3", "f1", "f2", "f0", "g", NULL };
	const char *d = dir_with("cap", names);
	const struct fs_pattern f = { .prefix = "f" };
	const struct fs_pattern none = { .prefix = "zz" };
	size_t n;
	char **v = fs_list(d, &f, 2, &n, NULL);

	CHECK(n == 2);
	if (CHECKED(v != NULL))
		CHECK(strcmp(v[0], v[1]) < 0);
	fs_list_free(v, n);
	v = fs_list(d, &f, 100, &n, NULL);
	CHECK(n == 4);
	fs_list_free(v, n);
	v = fs_list(d, &none, 100, &n, NULL);
	CHECK(v != NULL);
	CHECK(n == 0);
	fs_list_free(v, n);
}

/* A directory that cannot be opened: NULL, no names, the error said. */
TEST(missing_dir)
{
	const struct fs_pattern any = { .hidden = true };
	struct err e = { .code = 0 };
	char path[512];
	size_t n = 7;
	char **v;

	snprintf(path, sizeof path, "%s/no-such-dir", check_tmpdir());
	v = fs_list(path, &any, 100, &n, &e);
	CHECK(v == NULL);
	CHECK(n == 0);
	CHECK(e.code == -E_IO);
	CHECK(strstr(e.msg, "no-such-dir") != NULL);
	CHECK(fs_list(path, &any, 100, &n, NULL) == NULL);
	fs_list_free(NULL, 0);
}

/* The plain file before its .gz, the .gz alone, and neither; a file there that cannot be
 * read still counts (its reader says so), a directory of that name too. */
TEST(plain_or_gz)
{
	static const char *const names[] = { "both.tsv", "both.tsv.gz", "gz.tsv.gz", "locked.tsv", NULL };
	const char *d = dir_with("gz", names);
	char want[1024], *p;

	p = fs_plain_or_gz(d, "both.tsv");
	snprintf(want, sizeof want, "%s/both.tsv", d);
	CHECK_STR(p != NULL ? p : "(null)", want);
	free(p);
	p = fs_plain_or_gz(d, "gz.tsv");
	snprintf(want, sizeof want, "%s/gz.tsv.gz", d);
	CHECK_STR(p != NULL ? p : "(null)", want);
	free(p);
	CHECK(fs_plain_or_gz(d, "none.tsv") == NULL);
	snprintf(want, sizeof want, "%s/locked.tsv", d);
	CHECK(chmod(want, 0) == 0);
	p = fs_plain_or_gz(d, "locked.tsv");
	CHECK_STR(p != NULL ? p : "(null)", want);
	free(p);
	CHECK(fs_plain_or_gz("/no/such/dir", "x.tsv") == NULL);
}

int
main(void)
{
	RUN(prefix_infix_paths);
	RUN(prefix_suffix_names);
	RUN(cap_and_empty);
	RUN(missing_dir);
	RUN(plain_or_gz);
	return check_done();
}
