/* test_tsv: the project's TSV files (lib/tsv.h): round trips with escaping, header checks,
 * damaged rows (counted, later rows still read), strict fields, a cut gzip file. */
#include "lib/tsv.h"

#include <inttypes.h>
#include <stdint.h>
#include <unistd.h>

#include "lib/buf.h"
#include "tests/unit/check.h"

static const char *const cols[] = { "i", "u", "f", "s", NULL };

static char *
tmp(const char *name)
{
	static char paths[8][512];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof paths[0], "%s/%s", check_tmpdir(), name);
	return p;
}

static int
write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (f == NULL)
		return -1;
	ok = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int
write_str(const char *path, const char *s)
{
	return write_file(path, s, strlen(s));
}

struct row {
	int64_t i;
	uint64_t u;
	double f;
	const char *s;		/* as written */
	const char *back;	/* as read back */
};

static const struct row rows[] = {
	{ 0, 0, 0.0, "plain", "plain" },
	{ INT64_MIN, UINT64_MAX, -1.5, "tab\there", "tab\there" },
	{ INT64_MAX, 1, 1e-300, "new\nline", "new\nline" },
	{ -1, 42, 123456789.125, "back\\slash\\", "back\\slash\\" },
	{ 7, 7, 0.1, "cr\rend", "cr\rend" },
	{ 8, 8, 2.5, "", "-" },		/* empty is written as "-" */
	{ 9, 9, 3.0, NULL, "-" },
	{ 10, 10, 4.0, "\\t is not a tab", "\\t is not a tab" },
};
#define NROWS (sizeof rows / sizeof rows[0])

static void
roundtrip(bool compress)
{
	const char *path = tmp(compress ? "rt.tsv.gz" : "rt.tsv");
	static const char *const required[] = { "s", "i", NULL };
	struct tsv_w w;
	struct tsv_r r;
	struct err e = { { 0 }, 0 };
	size_t n = 0;
	int rc;

	CHECK(tsv_w_open(&w, path, "test", 2, cols, compress, true, &e) == 0);
	CHECK(tsv_w_comment(&w, &e, "made by %s\twith a tab", "test_tsv") == 0);
	for (size_t k = 0; k < NROWS; k++) {
		tsv_w_i64(&w, rows[k].i);
		tsv_w_u64(&w, rows[k].u);
		tsv_w_f64(&w, rows[k].f);
		tsv_w_str(&w, rows[k].s);
		CHECK(tsv_w_end(&w, &e) == 0);
	}
	CHECK(tsv_w_close(&w, &e) == 0);
	CHECK(gz_path_is_gzip(path) == compress);

	CHECK(tsv_r_open(&r, path, "test", 2, required, &e) == 0);
	CHECK(r.version == 2);
	CHECK(r.ncols == 4);
	CHECK(tsv_r_col(&r, "f") == 2);
	CHECK(tsv_r_col(&r, "nope") == -1);
	while ((rc = tsv_r_next(&r, &e)) == 1) {
		int64_t i = 0;
		uint64_t u = 0;
		double f = 0;

		CHECK(n < NROWS);
		if (n >= NROWS)
			break;
		if (CHECKED(tsv_r_i64(&r, 0, &i, &e) == 0))
			CHECK(i == rows[n].i);
		if (CHECKED(tsv_r_u64(&r, 1, &u, &e) == 0))
			CHECK(u == rows[n].u);
		CHECK(tsv_r_f64(&r, 2, &f, &e) == 0);
		CHECK(fabs(f - rows[n].f) <= fabs(rows[n].f) * 1e-8);	/* %.9g */
		CHECK_STR(tsv_r_str(&r, 3), rows[n].back);
		CHECK(r.line_no == (long)n + 4);	/* header, columns, one comment */
		n++;
	}
	CHECK(rc == 0);
	CHECK(n == NROWS);
	CHECK(tsv_r_next(&r, &e) == 0);
	tsv_r_close(&r);
	tsv_r_close(&r);	/* twice is harmless */
}

TEST(roundtrip_plain)
{
	roundtrip(false);
}

TEST(roundtrip_gzip)
{
	roundtrip(true);
}

/* The file's bytes, NUL-terminated, into out (cap bytes); their length, or -1. */
static long
file_bytes(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL)
		return -1;
	n = fread(out, 1, cap - 1, f);
	fclose(f);
	out[n] = '\0';
	return (long)n;
}

/* Rows made in memory (on another thread, in parse) and appended whole give the same
 * bytes as rows written field by field; past the buffer's cap the error is sticky. */
static void
some_rows(struct tsv_w *t, int first, int n)
{
	static const char *const strs[] = { "plain", "tab\there", NULL, "", "back\\slash\nline" };
	struct err e;

	for (int i = first; i < first + n; i++) {
		tsv_w_i64(t, -(int64_t)i * 1000003);
		tsv_w_u64(t, UINT64_MAX - (uint64_t)i);
		tsv_w_f64(t, i / 7.0);
		tsv_w_str(t, strs[i % 5]);
		CHECK(tsv_w_end(t, &e) == 0);
	}
}

TEST(rows_made_in_memory)
{
	const char *pa = tmp("direct.tsv"), *pb = tmp("via-mem.tsv");
	static char a[8192], b[8192];
	struct tsv_w t, m;
	struct buf mb;
	struct err e;

	CHECK(tsv_w_open(&t, pa, "test", 1, cols, false, true, &e) == 0);
	some_rows(&t, 0, 30);
	CHECK(tsv_w_close(&t, &e) == 0);
	CHECK(tsv_w_open(&t, pb, "test", 1, cols, false, true, &e) == 0);
	buf_init(&mb, 1 << 20);
	for (int k = 0; k < 3; k++) {
		buf_clear(&mb);
		tsv_w_mem(&m, &mb, 4);
		some_rows(&m, 10 * k, 10);
		CHECK(tsv_w_close(&m, &e) == 0);	/* nothing to close */
		CHECK(tsv_w_rows(&t, mb.data, mb.len, &e) == 0);
	}
	CHECK(tsv_w_close(&t, &e) == 0);
	CHECK(file_bytes(pa, a, sizeof a) > 1000);
	CHECK(file_bytes(pb, b, sizeof b) > 1000);
	CHECK_STR(b, a);
	/* a cap too small: the row that does not fit fails, and every later one */
	buf_release(&mb);
	buf_init(&mb, 60);
	tsv_w_mem(&m, &mb, 4);
	tsv_w_i64(&m, 1);
	tsv_w_u64(&m, 2);
	tsv_w_f64(&m, 3);
	tsv_w_str(&m, "x");
	CHECK(tsv_w_end(&m, &e) == 0);
	some_rows(&m, 0, 0);
	tsv_w_i64(&m, 1);
	tsv_w_u64(&m, UINT64_MAX);
	tsv_w_f64(&m, 3);
	tsv_w_str(&m, "a string long enough to pass the cap of sixty bytes");
	CHECK(tsv_w_end(&m, &e) == -E_LIMIT);
	tsv_w_i64(&m, 1);
	tsv_w_u64(&m, 2);
	tsv_w_f64(&m, 3);
	tsv_w_str(&m, "x");
	CHECK(tsv_w_end(&m, &e) == -E_LIMIT);
	CHECK(mb.len <= 60);
	buf_release(&mb);
}

/* Escaped strings never put a raw tab or newline in a row. */
TEST(escaping_on_disk)
{
	const char *path = tmp("esc.tsv");
	static const char *const one[] = { "a", "b", NULL };
	struct tsv_w w;
	struct err e;
	char line[256];
	FILE *f;
	int nline = 0;

	CHECK(tsv_w_open(&w, path, "esc", 1, one, false, true, &e) == 0);
	tsv_w_str(&w, "x\ty\nz\\");
	tsv_w_f64(&w, NAN);
	CHECK(tsv_w_end(&w, &e) == 0);
	CHECK(tsv_w_close(&w, &e) == 0);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		nline++;
		if (nline == 1)
			CHECK_STR(line, "# contend-esc 1\n");
		if (nline == 3)
			CHECK_STR(line, "x\\ty\\nz\\\\\tnan\n");
	}
	fclose(f);
	CHECK(nline == 3);
}

/* Several escaped columns of one row held at once, and a column read twice, stay intact
 * until the next row. */
TEST(strings_held_together)
{
	const char *path = tmp("held.tsv");
	static const char *const two[] = { "kind", "name", NULL };
	static const char *const req[] = { "kind", "name", NULL };
	struct tsv_w w;
	struct tsv_r r;
	struct err e;
	const char *k, *n;

	CHECK(tsv_w_open(&w, path, "held", 1, two, false, true, &e) == 0);
	tsv_w_str(&w, "netns\\x");
	tsv_w_str(&w, "a\tb");
	CHECK(tsv_w_end(&w, &e) == 0);
	tsv_w_str(&w, "link");
	tsv_w_str(&w, "c9v1");
	CHECK(tsv_w_end(&w, &e) == 0);
	CHECK(tsv_w_close(&w, &e) == 0);
	CHECK(tsv_r_open(&r, path, "held", 1, req, &e) == 0);
	CHECK(tsv_r_next(&r, &e) == 1);
	k = tsv_r_str(&r, 0);
	n = tsv_r_str(&r, 1);
	CHECK_STR(k, "netns\\x");
	CHECK_STR(n, "a\tb");
	CHECK_STR(tsv_r_str(&r, 0), "netns\\x");	/* unescaped once only */
	CHECK(tsv_r_next(&r, &e) == 1);
	CHECK_STR(tsv_r_str(&r, 0), "link");
	CHECK_STR(tsv_r_str(&r, 1), "c9v1");
	CHECK(tsv_r_next(&r, &e) == 0);
	tsv_r_close(&r);
}

TEST(refuse_existing)
{
	const char *path = tmp("exists.tsv");
	struct tsv_w w;
	struct err e = { { 0 }, 0 };

	CHECK(write_str(path, "precious") == 0);
	CHECK(tsv_w_open(&w, path, "test", 1, cols, false, false, &e) == -E_IO);
	CHECK(strstr(e.msg, "exists.tsv") != NULL);
	CHECK(tsv_w_close(&w, &e) == 0);	/* nothing open: fine */
}

TEST(full_disk)
{
	struct tsv_w w;
	struct err e = { { 0 }, 0 };
	int rc = 0;

	if (access("/dev/full", W_OK) != 0)
		SKIP_TEST("no /dev/full");
	CHECK(tsv_w_open(&w, "/dev/full", "test", 1, cols, true, true, &e) == 0);
	for (int k = 0; k < 10000 && rc == 0; k++) {
		tsv_w_i64(&w, k);
		tsv_w_u64(&w, (uint64_t)k);
		tsv_w_f64(&w, k * 0.5);
		tsv_w_str(&w, "some text to fill the compressor's buffer");
		rc = tsv_w_end(&w, &e);
		if (rc == 0 && k % 1000 == 999)
			rc = tsv_w_flush(&w, &e);
	}
	CHECK(rc == -E_IO);
	CHECK(tsv_w_close(&w, &e) == -E_IO);
	CHECK(strstr(e.msg, "/dev/full") != NULL);
}

TEST(wrong_format_and_versions)
{
	const char *path = tmp("fmt.tsv");
	struct tsv_r r;
	struct err e = { { 0 }, 0 };

	CHECK(write_str(path, "# contend-messages 1\na\tb\n1\t2\n") == 0);
	CHECK(tsv_r_open(&r, path, "phases", 1, NULL, &e) == -E_FORMAT);
	CHECK(strstr(e.msg, "not a contend-phases file") != NULL);
	CHECK(tsv_r_open(&r, path, "messages", 1, NULL, &e) == 0);
	tsv_r_close(&r);
	/* A prefix of the name is not the name. */
	CHECK(tsv_r_open(&r, path, "message", 1, NULL, &e) == -E_FORMAT);

	CHECK(write_str(path, "# contend-messages 3\na\n") == 0);
	CHECK(tsv_r_open(&r, path, "messages", 2, NULL, &e) == -E_UNSUP);
	CHECK(strstr(e.msg, "version 3") != NULL);
	CHECK(strstr(e.msg, "up to 2") != NULL);

	static const char *const bad_versions[] = {
		"# contend-messages 0\na\n", "# contend-messages x\na\n",
		"# contend-messages 1x\na\n", "# contend-messages -1\na\n",
		"# contend-messages \na\n", "# contend-messages 99999999999999999999\na\n",
	};
	for (size_t k = 0; k < sizeof bad_versions / sizeof bad_versions[0]; k++) {
		CHECK(write_str(path, bad_versions[k]) == 0);
		CHECK(tsv_r_open(&r, path, "messages", 2, NULL, &e) == -E_FORMAT);
		CHECK(strstr(e.msg, "bad version") != NULL);
	}
	CHECK(write_str(path, "") == 0);
	CHECK(tsv_r_open(&r, path, "messages", 1, NULL, &e) == -E_FORMAT);
	CHECK(strstr(e.msg, "empty") != NULL);
	CHECK(write_str(path, "# contend-messages 1\n") == 0);
	CHECK(tsv_r_open(&r, path, "messages", 1, NULL, &e) == -E_TRUNC);
	CHECK(tsv_r_open(&r, tmp("missing.tsv"), "messages", 1, NULL, &e) == -E_IO);
}

TEST(missing_column)
{
	const char *path = tmp("cols.tsv");
	static const char *const need[] = { "src", "bytes", NULL };
	struct tsv_r r;
	struct err e = { { 0 }, 0 };
	struct buf b;

	CHECK(write_str(path, "# contend-links 1\nsrc\tdst\n1\t2\n") == 0);
	CHECK(tsv_r_open(&r, path, "links", 1, need, &e) == -E_FORMAT);
	CHECK(strstr(e.msg, "no column 'bytes'") != NULL);
	/* More columns than TSV_MAX_COLS. */
	buf_init(&b, 1 << 20);
	CHECK(buf_printf(&b, "# contend-links 1\n") == 0);
	for (int k = 0; k <= TSV_MAX_COLS; k++)
		CHECK(buf_printf(&b, "c%d%s", k, k < TSV_MAX_COLS ? "\t" : "\n") == 0);
	CHECK(buf_add(&b, "", 1) == 0);
	CHECK(write_str(path, (char *)b.data) == 0);
	buf_release(&b);
	CHECK(tsv_r_open(&r, path, "links", 1, NULL, &e) == -E_FORMAT);
	CHECK(strstr(e.msg, "columns") != NULL);
}

/* Damaged rows: each is one error naming the line; the rows after it still read. */
TEST(damaged_rows)
{
	const char *path = tmp("damaged.tsv");
	struct tsv_r r;
	struct err e = { { 0 }, 0 };
	int64_t v;
	static const char text[] =
		"# contend-t 1\n"
		"a\tb\n"
		"1\t2\n"		/* line 3 */
		"3\n"			/* line 4: too few */
		"# a comment\n"
		"\n"			/* an empty line is skipped */
		"5\t6\n"		/* line 7 */
		"7\t8\t9\n"		/* line 8: too many */
		"10\t11";		/* line 9, no final newline */

	CHECK(write_str(path, text) == 0);
	CHECK(tsv_r_open(&r, path, "t", 1, NULL, &e) == 0);
	if (CHECKED(tsv_r_next(&r, &e) == 1) && CHECKED(tsv_r_i64(&r, 1, &v, &e) == 0))
		CHECK(v == 2);
	CHECK(tsv_r_next(&r, &e) == -E_FORMAT);
	CHECK(strstr(e.msg, "line 4") != NULL);
	CHECK(strstr(e.msg, "1 fields, expected 2") != NULL);
	/* No current row after a failure. */
	CHECK(tsv_r_i64(&r, 0, &v, &e) == -E_FORMAT);
	CHECK_STR(tsv_r_str(&r, 0), "");
	if (CHECKED(tsv_r_next(&r, &e) == 1))
		CHECK(r.line_no == 7);
	if (CHECKED(tsv_r_i64(&r, 0, &v, &e) == 0))
		CHECK(v == 5);
	if (CHECKED(tsv_r_next(&r, &e) == -E_FORMAT))
		CHECK(strstr(e.msg, "line 8") != NULL);
	if (CHECKED(tsv_r_next(&r, &e) == 1) && CHECKED(tsv_r_i64(&r, 1, &v, &e) == 0))
		CHECK(v == 11);
	CHECK(tsv_r_next(&r, &e) == 0);
	tsv_r_close(&r);
}

TEST(nul_and_long_lines)
{
	const char *path = tmp("long.tsv");
	struct tsv_r r;
	struct err e = { { 0 }, 0 };
	struct buf b;
	char *big = malloc(TSV_MAX_LINE + 10);
	int64_t v;

	memset(big, '7', TSV_MAX_LINE + 9);
	big[TSV_MAX_LINE + 9] = '\0';
	buf_init(&b, 4u << 20);
	CHECK(buf_printf(&b, "# contend-t 1\na\n1\n") == 0);
	CHECK(buf_add(&b, "2\0002\n", 4) == 0);			/* line 4: a NUL */
	CHECK(buf_printf(&b, "%s\n3\n", big) == 0);		/* line 5: too long */
	CHECK(write_file(path, b.data, b.len) == 0);
	buf_release(&b);
	free(big);
	CHECK(tsv_r_open(&r, path, "t", 1, NULL, &e) == 0);
	CHECK(tsv_r_next(&r, &e) == 1);
	if (CHECKED(tsv_r_next(&r, &e) == -E_FORMAT)) {
		CHECK(strstr(e.msg, "NUL"));
		CHECK(strstr(e.msg, "line 4"));
	}
	if (CHECKED(tsv_r_next(&r, &e) == -E_LIMIT))
		CHECK(strstr(e.msg, "line 5"));
	CHECK(strstr(e.msg, "long.tsv") != NULL);
	if (CHECKED(tsv_r_next(&r, &e) == 1) && CHECKED(tsv_r_i64(&r, 0, &v, &e) == 0))
		CHECK(v == 3);
	CHECK(tsv_r_next(&r, &e) == 0);
	tsv_r_close(&r);
}

/* Strict numbers: each of these is refused, with the column and line named. */
TEST(bad_fields)
{
	const char *path = tmp("fields.tsv");
	struct tsv_r r;
	struct err e = { { 0 }, 0 };
	static const char *const bad_int[] = {
		"12x", " 5", "+5", "1e3", "99999999999999999999", "-", "--1", "0x10", "5 ", "",
	};
	static const char *const bad_uint[] = {
		"-1", " -1", "-0", "+1", "18446744073709551616", "1.0", "abc", " 1",
	};
	static const char *const bad_real[] = { "abc", "1e999", " 1", "1.5x", "" };
	int64_t i;
	uint64_t u;
	double d;

	for (size_t k = 0; k < sizeof bad_int / sizeof bad_int[0]; k++) {
		char text[128];

		snprintf(text, sizeof text, "# contend-t 1\nn\tx\n%s\t1\n", bad_int[k]);
		CHECK(write_str(path, text) == 0);
		CHECK(tsv_r_open(&r, path, "t", 1, NULL, &e) == 0);
		CHECK(tsv_r_next(&r, &e) == 1);
		CHECK(tsv_r_i64(&r, 0, &i, &e) == -E_FORMAT);
		CHECK(strstr(e.msg, "line 3"));
		CHECK(strstr(e.msg, "column 'n'"));
		CHECK(strstr(e.msg, "not an integer"));
		tsv_r_close(&r);
	}
	for (size_t k = 0; k < sizeof bad_uint / sizeof bad_uint[0]; k++) {
		char text[128];

		snprintf(text, sizeof text, "# contend-t 1\nn\tx\n%s\t1\n", bad_uint[k]);
		CHECK(write_str(path, text) == 0);
		CHECK(tsv_r_open(&r, path, "t", 1, NULL, &e) == 0);
		CHECK(tsv_r_next(&r, &e) == 1);
		u = 12345;
		CHECK(tsv_r_u64(&r, 0, &u, &e) == -E_FORMAT);
		CHECK(u == 12345);	/* untouched on failure */
		CHECK(strstr(e.msg, "column 'n'") != NULL);
		if (bad_uint[k][0] == '-')
			CHECK(strstr(e.msg, "negative") != NULL);
		tsv_r_close(&r);
	}
	for (size_t k = 0; k < sizeof bad_real / sizeof bad_real[0]; k++) {
		char text[128];

		snprintf(text, sizeof text, "# contend-t 1\nn\tx\n%s\t1\n", bad_real[k]);
		CHECK(write_str(path, text) == 0);
		CHECK(tsv_r_open(&r, path, "t", 1, NULL, &e) == 0);
		CHECK(tsv_r_next(&r, &e) == 1);
		if (CHECKED(tsv_r_f64(&r, 0, &d, &e) == -E_FORMAT))
			CHECK(strstr(e.msg, "not a number"));
		tsv_r_close(&r);
	}
	/* Good edge values, and columns out of range. */
	CHECK(write_str(path, "# contend-t 1\na\tb\tc\n-9223372036854775808\t18446744073709551615\tnan\n") == 0);
	CHECK(tsv_r_open(&r, path, "t", 1, NULL, &e) == 0);
	CHECK(tsv_r_next(&r, &e) == 1);
	if (CHECKED(tsv_r_i64(&r, 0, &i, &e) == 0))
		CHECK(i == INT64_MIN);
	if (CHECKED(tsv_r_u64(&r, 1, &u, &e) == 0))
		CHECK(u == UINT64_MAX);
	if (CHECKED(tsv_r_f64(&r, 2, &d, &e) == 0))
		CHECK(isnan(d));
	if (CHECKED(tsv_r_i64(&r, 3, &i, &e) == -E_FORMAT))
		CHECK(strstr(e.msg, "no such column"));
	CHECK(tsv_r_i64(&r, -1, &i, &e) == -E_FORMAT);
	CHECK_STR(tsv_r_str(&r, 9), "");
	tsv_r_close(&r);
}

/* A gzip file cut in the middle keeps the rows before the cut. */
TEST(cut_gzip)
{
	const char *path = tmp("cut-src.tsv.gz"), *cut = tmp("cut.tsv.gz");
	struct tsv_w w;
	struct tsv_r r;
	struct err e = { { 0 }, 0 };
	FILE *f;
	uint8_t *disk;
	long flushed_size = 0;	/* file size after the flush following row 2999 */
	long disk_len;
	int rc;
	int64_t n = 0;

	CHECK(tsv_w_open(&w, path, "test", 1, cols, true, true, &e) == 0);
	for (int64_t k = 0; k < 6000; k++) {
		tsv_w_i64(&w, k);
		tsv_w_u64(&w, (uint64_t)(k * 7));
		tsv_w_f64(&w, (double)k / 4);
		tsv_w_str(&w, "row\twith a tab");
		CHECK(tsv_w_end(&w, &e) == 0);
		if (k == 2999) {
			CHECK(tsv_w_flush(&w, &e) == 0);
			f = fopen(path, "rb");
			if (f) {
				fseek(f, 0, SEEK_END);
				flushed_size = ftell(f);
				fclose(f);
			}
		}
	}
	CHECK(tsv_w_close(&w, &e) == 0);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	if (f == NULL)
		return;
	fseek(f, 0, SEEK_END);
	disk_len = ftell(f);
	rewind(f);
	disk = malloc((size_t)disk_len);
	CHECK(fread(disk, 1, (size_t)disk_len, f) == (size_t)disk_len);
	fclose(f);
	CHECK(flushed_size > 0);
	CHECK(flushed_size + 50 < disk_len);
	CHECK(write_file(cut, disk, (size_t)flushed_size + 50) == 0);
	free(disk);

	CHECK(tsv_r_open(&r, cut, "test", 1, NULL, &e) == 0);
	while ((rc = tsv_r_next(&r, &e)) == 1) {
		int64_t i;
		uint64_t u;

		if (CHECKED(tsv_r_i64(&r, 0, &i, &e) == 0))
			CHECK(i == n);
		if (CHECKED(tsv_r_u64(&r, 1, &u, &e) == 0))
			CHECK(u == (uint64_t)n * 7);
		CHECK_STR(tsv_r_str(&r, 3), "row\twith a tab");
		n++;
	}
	CHECK(rc == -E_TRUNC);
	CHECK(gzr_truncated(r.r));
	CHECK(n >= 3000);
	CHECK(n < 6000);
	CHECK(tsv_r_next(&r, &e) == 0);
	tsv_r_close(&r);
}

/* tsv_kv_lookup: the last row with the key wins; absent, damaged and foreign files differ. */
TEST(kv_lookup)
{
	const char *path = tmp("stats.tsv");
	struct err e = { { 0 }, 0 };
	char v[8];

	CHECK(write_str(path, "# contend-stats 1\nkey\tvalue\nwarnings\t0\ncomplete\tpartial\n"
			"complete\tyes-but-longer\n") == 0);
	CHECK(tsv_kv_lookup(path, "stats", "complete", v, sizeof v, &e) == 1);
	CHECK_STR(v, "yes-but");	/* cut to fit */
	CHECK(tsv_kv_lookup(path, "stats", "nothing", v, sizeof v, &e) == 0);
	CHECK(tsv_kv_lookup(path, "meta", "complete", v, sizeof v, &e) == -E_FORMAT);
	CHECK(tsv_kv_lookup(tmp("absent.tsv"), "stats", "complete", v, sizeof v, &e) == -E_IO);
	CHECK(write_str(path, "# contend-stats 1\nkey\tvalue\ncomplete\tyes\tthird\n") == 0);
	CHECK(tsv_kv_lookup(path, "stats", "complete", v, sizeof v, &e) == -E_FORMAT);
}

/* A file a run may lack: absent is 1 with e untouched, there but not the format is
 * tsv_r_open's error, there and right is open. */
TEST(open_optional)
{
	static const char *const need[] = { "a", NULL };
	const char *path = tmp("opt.tsv");
	struct tsv_r t;
	struct err e = { 0 };

	remove(path);
	CHECK(tsv_r_open_opt(&t, path, "opt", 1, need, &e) == 1);
	CHECK(e.msg[0] == '\0');
	CHECK(write_file(path, "garbage\n", 8) == 0);
	CHECK(tsv_r_open_opt(&t, path, "opt", 1, need, &e) == -E_FORMAT);
	CHECK(strstr(e.msg, "opt.tsv") != NULL);
	CHECK(write_file(path, "# contend-opt 1\na\n1\n", 21) == 0);
	if (CHECKED(tsv_r_open_opt(&t, path, "opt", 1, need, &e) == 0))
		tsv_r_close(&t);
}

int
main(void)
{
	RUN(roundtrip_plain);
	RUN(roundtrip_gzip);
	RUN(escaping_on_disk);
	RUN(rows_made_in_memory);
	RUN(strings_held_together);
	RUN(refuse_existing);
	RUN(full_disk);
	RUN(wrong_format_and_versions);
	RUN(missing_column);
	RUN(damaged_rows);
	RUN(nul_and_long_lines);
	RUN(bad_fields);
	RUN(cut_gzip);
	RUN(kv_lookup);
	RUN(open_optional);
	return check_done();
}
