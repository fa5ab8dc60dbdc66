/* test_gzio: compressed I/O (lib/gzio.h): round trips, truncated and damaged gzip, a writer
 * killed with SIGKILL, refusing to overwrite, a full disk, over-long lines, the FILE * view. */
#include "lib/gzio.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "lib/buf.h"
#include "lib/clock.h"
#include "tests/unit/check.h"

static char *
tmp(const char *name)
{
	static char paths[8][512];	/* a few live at once */
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof paths[0], "%s/%s", check_tmpdir(), name);
	return p;
}

/* Deterministic text that does not compress to nothing: nlines lines. */
static char *
make_text(int nlines, size_t *len)
{
	struct buf b;
	uint32_t x = 12345;	/* LCG state */

	buf_init(&b, (size_t)1 << 30);
	for (int i = 0; i < nlines; i++) {
		x = x * 1103515245u + 12345u;
		if (buf_printf(&b, "rec %06d %08x %u\n", i, x, x % 977) < 0)
			abort();
	}
	if (buf_add(&b, "", 1) < 0)
		abort();
	*len = b.len - 1;
	return (char *)b.data;
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

static uint8_t *
read_whole(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	struct buf b;
	uint8_t tmpb[8192];
	size_t got;

	buf_init(&b, (size_t)1 << 30);
	if (f == NULL)
		return NULL;
	while ((got = fread(tmpb, 1, sizeof tmpb, f)) > 0)
		if (buf_add(&b, tmpb, got) < 0)
			abort();
	fclose(f);
	*n = b.len;
	if (b.data == NULL)
		b.data = calloc(1, 1);
	return b.data;
}

/* Everything gzr delivers from path, with the final return code in *last. */
static uint8_t *
gzr_all(const char *path, size_t *n, long *last, bool *truncated)
{
	struct err e = { { 0 }, 0 };
	struct gzr *r = gzr_open(path, &e);
	struct buf b;
	uint8_t chunk[7777];	/* an odd size on purpose */
	long got;

	buf_init(&b, (size_t)1 << 30);
	*n = 0;
	if (r == NULL) {
		*last = e.code;
		return NULL;
	}
	while ((got = gzr_read(r, chunk, sizeof chunk, &e)) > 0)
		if (buf_add(&b, chunk, (size_t)got) < 0)
			abort();
	*last = got;
	*truncated = gzr_truncated(r);
	/* After the end (clean or not) reads keep returning 0. */
	if (gzr_read(r, chunk, sizeof chunk, &e) != 0)
		*last = 999;
	gzr_close(r);
	*n = b.len;
	if (b.data == NULL)
		b.data = calloc(1, 1);
	return b.data;
}

/* Write text through gzw in uneven pieces. */
static int
write_text(const char *path, bool compress, const char *text, size_t len)
{
	struct err e = { { 0 }, 0 };
	struct gzw *w = gzw_open(path, compress, true, 0, &e);
	size_t off = 0, piece = 1;

	if (w == NULL)
		return -1;
	while (off < len) {
		size_t n = piece < len - off ? piece : len - off;

		if (gzw_write(w, text + off, n, &e) < 0) {
			gzw_close(w, NULL);
			return -1;
		}
		off += n;
		piece = piece * 7 % 100003 + 1;	/* some pieces pass the 64 KiB plain buffer */
	}
	return gzw_close(w, &e);
}

TEST(roundtrip_plain)
{
	size_t len, n;
	char *text = make_text(20000, &len);
	const char *path = tmp("plain.txt");
	uint8_t *disk, *back;
	long last;
	bool trunc = true;

	CHECK(write_text(path, false, text, len) == 0);
	disk = read_whole(path, &n);
	CHECK(disk != NULL);
	CHECK(n == len);
	if (CHECKED(disk))	/* plain is byte for byte */
		CHECK(memcmp(disk, text, len) == 0);
	CHECK(!gz_path_is_gzip(path));
	back = gzr_all(path, &n, &last, &trunc);
	CHECK(back != NULL);
	CHECK(n == len);
	if (CHECKED(back))
		CHECK(memcmp(back, text, len) == 0);
	CHECK(last == 0);
	CHECK(!trunc);
	free(disk), free(back), free(text);
}

TEST(roundtrip_gzip)
{
	size_t len, n;
	char *text = make_text(20000, &len);
	const char *path = tmp("text.gz");
	uint8_t *disk, *back;
	long last;
	bool trunc = true;
	struct err e;
	struct gzr *r;

	CHECK(write_text(path, true, text, len) == 0);
	disk = read_whole(path, &n);
	CHECK(disk != NULL);
	CHECK(n > 18);
	CHECK(n < len);
	if (CHECKED(disk) && CHECKED(n > 1)) {	/* the gzip magic */
		CHECK(disk[0] == 0x1f);
		CHECK(disk[1] == 0x8b);
	}
	CHECK(gz_path_is_gzip(path));
	back = gzr_all(path, &n, &last, &trunc);
	CHECK(back != NULL);
	CHECK(n == len);
	if (CHECKED(back))
		CHECK(memcmp(back, text, len) == 0);
	CHECK(last == 0);
	CHECK(!trunc);
	r = gzr_open(path, &e);
	CHECK(r != NULL);
	if (CHECKED(r))
		CHECK(gzr_is_gzip(r));
	gzr_close(r);
	free(disk), free(back), free(text);
}

TEST(printf_and_empty)
{
	const char *path = tmp("printf.gz");
	struct err e = { { 0 }, 0 };
	struct gzw *w = gzw_open(path, true, true, 0, &e);
	char big[3000];
	size_t n;
	long last;
	bool trunc;
	uint8_t *back;

	memset(big, 'z', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	CHECK(w != NULL);
	CHECK(gzw_fd(w) >= 0);
	CHECK(gzw_printf(w, &e, "%d-%s|", 7, "x") == 0);
	CHECK(gzw_printf(w, &e, "%s", big) == 0);	/* past the stack buffer */
	CHECK(gzw_close(w, &e) == 0);
	back = gzr_all(path, &n, &last, &trunc);
	CHECK(back != NULL);
	CHECK(n == 4 + 2999);
	if (CHECKED(back))
		CHECK(memcmp(back, "7-x|zzz", 7) == 0);
	if (CHECKED(back) && CHECKED(n > 0))
		CHECK(back[n - 1] == 'z');
	free(back);
	/* An empty gzip stream and an empty plain file both read as nothing. */
	w = gzw_open(tmp("empty.gz"), true, true, 0, &e);
	CHECK(w != NULL);
	if (CHECKED(w))
		CHECK(gzw_close(w, &e) == 0);
	back = gzr_all(tmp("empty.gz"), &n, &last, &trunc);
	CHECK(back != NULL);
	CHECK(n == 0);
	CHECK(last == 0);
	CHECK(!trunc);
	free(back);
	CHECK(write_file(tmp("empty"), "", 0) == 0);
	back = gzr_all(tmp("empty"), &n, &last, &trunc);
	CHECK(back != NULL);
	CHECK(n == 0);
	CHECK(last == 0);
	free(back);
	CHECK(gzw_fd(NULL) == -1);
	CHECK(gzw_close(NULL, NULL) == 0);
	gzr_close(NULL);
}

/* Bytes of text written before each explicit flush, and the file size right after it. */
struct flushpt {
	size_t text_len;
	off_t file_len;
};

static int
write_with_flushes(const char *path, const char *text, size_t len, struct flushpt *pts, int npts)
{
	struct err e = { { 0 }, 0 };
	struct gzw *w = gzw_open(path, true, true, 0, &e);
	size_t step = len / (size_t)npts;

	if (w == NULL)
		return -1;
	for (int i = 0; i < npts; i++) {
		size_t off = step * (size_t)i;
		size_t n = i == npts - 1 ? len - off : step;
		struct stat st;

		if (gzw_write(w, text + off, n, &e) < 0 || gzw_flush(w, &e) < 0 ||
		    fstat(gzw_fd(w), &st) < 0) {
			gzw_close(w, NULL);
			return -1;
		}
		pts[i].text_len = off + n;
		pts[i].file_len = st.st_size;
	}
	return gzw_close(w, &e);
}

TEST(truncated_gzip)
{
	size_t len, n, disk_len;
	char *text = make_text(30000, &len);
	const char *path = tmp("cut-src.gz");
	const char *cut = tmp("cut.gz");
	struct flushpt pts[6];
	uint8_t *disk, *back;
	long last;
	bool trunc;

	CHECK(write_with_flushes(path, text, len, pts, 6) == 0);
	disk = read_whole(path, &disk_len);
	CHECK(disk != NULL);
	if (disk == NULL)
		return;
	/* Cut a little after each flush point: all text before that flush must come out,
	 * then -E_TRUNC. */
	for (int i = 0; i < 5; i++) {
		size_t at = (size_t)pts[i].file_len + 100;

		CHECK(at < disk_len);
		CHECK(write_file(cut, disk, at) == 0);
		back = gzr_all(cut, &n, &last, &trunc);
		CHECK(back != NULL);
		CHECK(n >= pts[i].text_len);
		CHECK(n < len);
		CHECK(back != NULL);
		if (CHECKED(back))	/* a prefix, nothing invented */
			CHECK(memcmp(back, text, n) == 0);
		CHECK(last == -E_TRUNC);
		CHECK(trunc);
		free(back);
	}
	/* Only the 8-byte trailer missing: every byte, then truncated. */
	CHECK(write_file(cut, disk, disk_len - 8) == 0);
	back = gzr_all(cut, &n, &last, &trunc);
	CHECK(back != NULL);
	CHECK(n == len);
	if (CHECKED(back))
		CHECK(memcmp(back, text, len) == 0);
	CHECK(last == -E_TRUNC);
	CHECK(trunc);
	free(back);
	/* Cut inside the 10-byte gzip header. */
	CHECK(write_file(cut, disk, 5) == 0);
	back = gzr_all(cut, &n, &last, &trunc);
	CHECK(back != NULL);
	CHECK(n == 0);
	CHECK(last == -E_TRUNC);
	free(back);
	free(disk), free(text);
}

/* gzr_line on a cut file: the complete lines before the cut, then -E_TRUNC. */
TEST(truncated_gzip_lines)
{
	size_t len, disk_len;
	char *text = make_text(30000, &len);
	const char *path = tmp("cutl-src.gz");
	const char *cut = tmp("cutl.gz");
	struct flushpt pts[4];
	uint8_t *disk;
	struct err e = { { 0 }, 0 };
	struct gzr *r;
	char *line;
	size_t llen;
	int rc, nlines = 0;
	size_t covered = 0;	/* bytes of text matched by the lines read */

	CHECK(write_with_flushes(path, text, len, pts, 4) == 0);
	disk = read_whole(path, &disk_len);
	CHECK(disk != NULL);
	if (CHECKED(disk))
		CHECK(write_file(cut, disk, (size_t)pts[1].file_len + 1) == 0);
	r = gzr_open(cut, &e);
	CHECK(r != NULL);
	if (r == NULL)
		return;
	while ((rc = gzr_line(r, &line, &llen, 1000, &e)) == 1) {
		CHECK(covered + llen < len);	/* bounded */
		CHECK(memcmp(line, text + covered, llen) == 0);
		covered += llen + 1;
		nlines++;
	}
	CHECK(rc == -E_TRUNC);
	CHECK(e.code == -E_TRUNC);
	CHECK(strstr(e.msg, "truncated") != NULL);
	{
		size_t whole = pts[1].text_len;	/* the flush may fall inside a line */

		while (whole > 0 && text[whole - 1] != '\n')
			whole--;
		CHECK(covered >= whole);
	}
	CHECK(nlines >= 14000);
	CHECK(nlines < 30000);
	CHECK(gzr_line(r, &line, &llen, 1000, &e) == 0);	/* then the end */
	gzr_close(r);
	free(disk), free(text);
}

TEST(corrupt_gzip)
{
	size_t len, n, disk_len;
	char *text = make_text(20000, &len);
	const char *path = tmp("corrupt-src.gz");
	const char *bad = tmp("corrupt.gz");
	uint8_t *disk, *back;
	long last;
	bool trunc;

	CHECK(write_text(path, true, text, len) == 0);
	disk = read_whole(path, &disk_len);
	CHECK(disk != NULL);
	CHECK(disk_len > 1000);
	if (disk == NULL)
		return;
	/* A wrong CRC in the trailer: all data comes out, then -E_FORMAT. */
	disk[disk_len - 8] ^= 0x55;
	CHECK(write_file(bad, disk, disk_len) == 0);
	back = gzr_all(bad, &n, &last, &trunc);
	CHECK(last == -E_FORMAT);
	CHECK(!trunc);
	CHECK(back != NULL);
	CHECK(n <= len);
	if (CHECKED(back))
		CHECK(memcmp(back, text, n) == 0);
	free(back);
	disk[disk_len - 8] ^= 0x55;
	/* Garbage in the middle of the deflate data. */
	memset(disk + disk_len / 2, 0xff, 64);
	CHECK(write_file(bad, disk, disk_len) == 0);
	back = gzr_all(bad, &n, &last, &trunc);
	CHECK(last == -E_FORMAT);
	CHECK(!trunc);
	CHECK(n < len);
	free(back);
	/* An unknown compression method in the header. */
	free(disk);
	disk = read_whole(path, &disk_len);
	disk[2] = 7;
	CHECK(write_file(bad, disk, disk_len) == 0);
	back = gzr_all(bad, &n, &last, &trunc);
	CHECK(last == -E_FORMAT);
	CHECK(n == 0);
	free(back);
	free(disk), free(text);
}

static uint8_t *fread_all(FILE *f, size_t *n);

/* What inflate can give of n bytes before it stops, one output byte at a time (the
 * reference for "everything before the damage"). */
static size_t
inflate_prefix(const uint8_t *p, size_t n, bool *data_error)
{
	z_stream zs;
	uint8_t out;
	size_t got = 0;

	*data_error = false;

	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return 0;
	zs.next_in = (uint8_t *)p;
	zs.avail_in = (uInt)n;
	for (;;) {
		int ret;

		zs.next_out = &out;
		zs.avail_out = 1;
		ret = inflate(&zs, Z_NO_FLUSH);
		got += 1 - zs.avail_out;
		if (ret != Z_OK) {
			/* a data error before the end, not only a wrong check after it */
			*data_error = ret == Z_DATA_ERROR && zs.msg != NULL &&
				      strncmp(zs.msg, "incorrect", 9) != 0;
			break;
		}
	}
	inflateEnd(&zs);
	return got;
}

/* Damage in the middle of a large stream: every byte before it is delivered (gzread lost
 * the whole buffer it was filling), the error names the compressed offset, and the FILE *
 * view reads the same prefix as a short file. */
TEST(damage_keeps_prefix)
{
	size_t len, n, disk_len, want = 0;
	char *text = make_text(60000, &len);
	const char *path = tmp("mid-src.gz"), *bad = tmp("mid.gz");
	uint8_t *disk, *back;
	long last;
	bool trunc = true;

	CHECK(write_text(path, true, text, len) == 0);
	disk = read_whole(path, &disk_len);
	CHECK(disk != NULL);
	CHECK(disk_len > 100000);
	if (disk == NULL)
		return;
	{
		/* 16 bytes that inflate rejects in the last fifth (most damage only garbles the
		 * output until the check fails: corrupt_gzip covers that) */
		uint8_t *orig = malloc(disk_len);
		bool data_error = false;

		memcpy(orig, disk, disk_len);
		for (size_t at = disk_len - disk_len / 5; at + 16 < disk_len && !data_error; at += 997) {
			memcpy(disk, orig, disk_len);
			memset(disk + at, 0xff, 16);
			want = inflate_prefix(disk, disk_len, &data_error);
		}
		free(orig);
		CHECK(data_error);
	}
	CHECK(write_file(bad, disk, disk_len) == 0);
	CHECK(want > len / 2);
	CHECK(want < len);
	back = gzr_all(bad, &n, &last, &trunc);
	CHECK(last == -E_FORMAT);
	CHECK(!trunc);
	CHECK(n == want);
	/* the damaged block itself may decode to wrong bytes before inflate notices */
	CHECK(back != NULL);
	if (CHECKED(back))
		CHECK(memcmp(back, text, len / 2) == 0);
	free(back);
	{
		struct err e = { { 0 }, 0 };
		struct gzr *r = gzr_open(bad, &e);
		uint8_t chunk[4096];
		long got;

		CHECK(r != NULL);
		if (CHECKED(r != NULL))
			CHECK(gzr_damage(r) == NULL);
		while (r && (got = gzr_read(r, chunk, sizeof chunk, &e)) > 0)
			;
		CHECK(e.code == -E_FORMAT);
		CHECK(strstr(e.msg, "damaged at compressed byte") != NULL);
		CHECK(r != NULL);
		if (CHECKED(r))
			CHECK(gzr_damage(r) != NULL);
		if (CHECKED(r))
			CHECK_STR(gzr_damage(r), e.msg);
		gzr_close(r);
	}
	{
		struct err e = { { 0 }, 0 };
		struct gzr *r = gzr_open(bad, &e);
		FILE *f = r ? gzr_fopen(r, &trunc) : NULL;

		CHECK(f != NULL);
		if (f != NULL) {
			back = fread_all(f, &n);
			CHECK(n == want);
			CHECK(!ferror(f));
			CHECK(!trunc);
			CHECK(gzr_damage(r) != NULL);
			fclose(f);
			free(back);
		}
	}
	free(disk), free(text);
}

TEST(concatenated_members)
{
	const char *a = tmp("a.gz"), *both = tmp("ab.gz");
	size_t na, n;
	uint8_t *da, *back;
	long last;
	bool trunc;

	CHECK(write_text(a, true, "first\n", 6) == 0);
	da = read_whole(a, &na);
	{
		uint8_t *two = malloc(2 * na);

		memcpy(two, da, na);
		memcpy(two + na, da, na);
		CHECK(write_file(both, two, 2 * na) == 0);
		free(two);
	}
	back = gzr_all(both, &n, &last, &trunc);
	CHECK(back != NULL);
	CHECK(n == 12);
	if (CHECKED(back))
		CHECK(memcmp(back, "first\nfirst\n", 12) == 0);
	CHECK(last == 0);
	free(back), free(da);
}

/* A flushed but unfinished stream is readable while the writer is still open. */
TEST(flush_readable_before_close)
{
	const char *path = tmp("open.gz");
	struct err e = { { 0 }, 0 };
	struct gzw *w = gzw_open(path, true, true, 0, &e);
	size_t n;
	long last;
	bool trunc;
	uint8_t *back;

	CHECK(w != NULL);
	if (CHECKED(w))
		CHECK(gzw_write(w, "one\ntwo\n", 8, &e) == 0);
	if (CHECKED(w))
		CHECK(gzw_flush(w, &e) == 0);
	back = gzr_all(path, &n, &last, &trunc);
	CHECK(back != NULL);
	CHECK(n == 8);
	if (CHECKED(back))
		CHECK(memcmp(back, "one\ntwo\n", 8) == 0);
	CHECK(last == -E_TRUNC);
	free(back);
	CHECK(gzw_write(w, "three\n", 6, &e) == 0);
	CHECK(gzw_close(w, &e) == 0);
	back = gzr_all(path, &n, &last, &trunc);
	CHECK(back != NULL);
	CHECK(n == 14);
	CHECK(last == 0);
	CHECK(!trunc);
	free(back);
}

/* The child: write numbered records with a 1 ms flush interval; after each write that
 * grew the file (a flush happened inside it), tell the parent the record number. */
static void
killed_writer(const char *path, int tell_fd)
{
	struct err e;
	struct gzw *w = gzw_open(path, true, true, 1000000, &e);
	off_t size = 0;

	if (w == NULL)
		_exit(3);
	for (int32_t i = 0; i < 1500; i++) {	/* < 64 KiB of text: never a full-buffer write */
		struct stat st;

		if (gzw_printf(w, &e, "record %06d payload %08x\n", i, (unsigned)i * 2654435761u) < 0)
			_exit(4);
		if (fstat(gzw_fd(w), &st) == 0 && st.st_size > size) {
			size = st.st_size;
			if (write(tell_fd, &i, sizeof i) != sizeof i)
				_exit(5);
		}
		usleep(100);
	}
	for (;;)
		pause();	/* never finishes the stream: the parent kills it */
}

TEST(sigkill_writer)
{
	const char *path = tmp("killed.gz");
	int fds[2];
	pid_t pid;
	int32_t flushed = -1, v;	/* last record known to be flushed */
	int reports = 0;
	int64_t deadline;
	struct err e = { { 0 }, 0 };
	struct gzr *r;
	char *line;
	size_t llen;
	int rc, nrec = 0;
	int st;

	CHECK(pipe(fds) == 0);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0);
	if (pid < 0)
		return;
	if (pid == 0) {
		close(fds[0]);
		killed_writer(path, fds[1]);
	}
	close(fds[1]);
	/* Kill it in the middle of writing, after a few flushes. */
	deadline = clock_mono_ns() + 5000000000LL;
	while (reports < 5 && clock_mono_ns() < deadline && read(fds[0], &v, sizeof v) == sizeof v) {
		flushed = v;
		reports++;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st));
	CHECK(WTERMSIG(st) == SIGKILL);
	while (read(fds[0], &v, sizeof v) == sizeof v)	/* flushes reported before it died */
		flushed = v;
	close(fds[0]);
	CHECK(flushed >= 0);
	r = gzr_open(path, &e);
	CHECK(r != NULL);
	if (r == NULL)
		return;
	CHECK(gzr_is_gzip(r));
	while ((rc = gzr_line(r, &line, &llen, 200, &e)) == 1) {
		char want[64];

		snprintf(want, sizeof want, "record %06d payload %08x", nrec,
			 (unsigned)nrec * 2654435761u);
		CHECK_STR(line, want);
		nrec++;
	}
	CHECK(rc == -E_TRUNC);		/* the stream was never finished */
	CHECK(nrec > flushed);		/* every record up to the last flush */
	gzr_close(r);
}

TEST(refuse_existing)
{
	const char *path = tmp("exists.txt");
	struct err e = { { 0 }, 0 };
	struct gzw *w;
	size_t n;
	uint8_t *back;

	CHECK(write_file(path, "keep me", 7) == 0);
	w = gzw_open(path, true, false, 0, &e);
	CHECK(w == NULL);
	CHECK(e.code == -E_IO);
	CHECK(strstr(e.msg, "exists.txt") != NULL);
	CHECK(strstr(e.msg, "exists") != NULL);
	back = read_whole(path, &n);
	CHECK(back != NULL);
	CHECK(n == 7);
	if (CHECKED(back))	/* untouched */
		CHECK(memcmp(back, "keep me", 7) == 0);
	free(back);
	w = gzw_open(path, false, false, 0, &e);
	CHECK(w == NULL);
	w = gzw_open(path, false, true, 0, &e);		/* overwrite */
	CHECK(w != NULL);
	if (CHECKED(w != NULL))
		CHECK(gzw_write(w, "new", 3, &e) == 0);
	if (CHECKED(w != NULL))
		CHECK(gzw_close(w, &e) == 0);
	back = read_whole(path, &n);
	CHECK(back != NULL);
	CHECK(n == 3);
	if (CHECKED(back))
		CHECK(memcmp(back, "new", 3) == 0);
	free(back);
	w = gzw_open("/nonexistent-dir/x.gz", true, true, 0, &e);
	CHECK(w == NULL);
	CHECK(e.code == -E_IO);
}

static void
full_disk(bool compress)
{
	struct err e = { { 0 }, 0 };
	struct gzw *w = gzw_open("/dev/full", compress, true, 0, &e);
	char rec[100];
	int rc = 0;

	CHECK(w != NULL);
	if (w == NULL)
		return;
	memset(rec, 'r', sizeof rec);
	for (int i = 0; i < 100 && rc == 0; i++)
		rc = gzw_write(w, rec, sizeof rec, &e);
	if (rc == 0)
		rc = gzw_flush(w, &e);
	CHECK(rc == -E_IO);
	CHECK(e.code == -E_IO);
	CHECK(strstr(e.msg, "/dev/full") != NULL);
	CHECK(strstr(e.msg, "No space") != NULL);
	CHECK(gzw_write(w, "x", 1, &e) == -E_IO);	/* sticky */
	CHECK(gzw_flush(w, &e) == -E_IO);
	CHECK(gzw_close(w, &e) == -E_IO);
}

TEST(disk_full)
{
	if (access("/dev/full", W_OK) != 0)
		SKIP_TEST("no /dev/full");
	full_disk(true);
	full_disk(false);
}

static int
write_raw(const char *path, bool compress, const char *s)
{
	return write_text(path, compress, s, strlen(s));
}

static void
long_lines(bool compress)
{
	const char *path = tmp(compress ? "lines.gz" : "lines.txt");
	struct buf text;
	char a[201], b[102], exact[101];
	struct err e = { { 0 }, 0 };
	struct gzr *r;
	char *line;
	size_t len;

	memset(a, 'a', 200), a[200] = '\0';
	memset(b, 'b', 101), b[101] = '\0';
	memset(exact, 'e', 100), exact[100] = '\0';
	buf_init(&text, 1 << 20);
	CHECK(buf_printf(&text, "short\n%s\n%s\nafter\n\n%s", a, exact, b) == 0);
	CHECK(buf_add(&text, "", 1) == 0);
	CHECK(write_raw(path, compress, (char *)text.data) == 0);
	buf_release(&text);
	r = gzr_open(path, &e);
	CHECK(r != NULL);
	if (r == NULL)
		return;
	CHECK(gzr_line(r, &line, &len, 100, &e) == 1);
	CHECK(len == 5);
	CHECK_STR(line, "short");
	CHECK(gzr_line(r, &line, &len, 100, &e) == -E_LIMIT);	/* 200 > 100 */
	CHECK(e.code == -E_LIMIT);
	CHECK(strstr(e.msg, "longer than 100") != NULL);
	CHECK(gzr_line(r, &line, &len, 100, &e) == 1);
	CHECK(len == 100);	/* exactly the cap */
	CHECK(gzr_line(r, &line, &len, 100, &e) == 1);
	CHECK_STR(line, "after");					/* the rest was skipped */
	CHECK(gzr_line(r, &line, &len, 100, &e) == 1);
	CHECK(len == 0);	/* an empty line */
	CHECK(gzr_line(r, &line, &len, 100, &e) == -E_LIMIT);	/* last, no newline */
	CHECK(gzr_line(r, &line, &len, 100, &e) == 0);
	CHECK(gzr_line(r, &line, &len, 100, &e) == 0);
	gzr_close(r);
}

TEST(line_limits)
{
	long_lines(false);
	long_lines(true);
}

TEST(line_across_chunks)
{
	const char *path = tmp("chunky.gz");
	size_t big = 200000;	/* several 64 KiB read-ahead chunks */
	char *s = malloc(big + 20);
	struct err e = { { 0 }, 0 };
	struct gzr *r;
	char *line;
	size_t len;
	bool same = true;

	for (size_t i = 0; i < big; i++)
		s[i] = (char)('a' + i % 26);
	memcpy(s + big, "\nx\0y\nlast", 10);	/* a NUL inside a line, a last line without \n */
	CHECK(write_text(path, true, s, big + 9) == 0);
	r = gzr_open(path, &e);
	CHECK(r != NULL);
	if (r == NULL) {
		free(s);
		return;
	}
	CHECK(gzr_line(r, &line, &len, 1 << 20, &e) == 1);
	CHECK(len == big);
	for (size_t i = 0; i < big && same; i++)
		same = line[i] == s[i];
	CHECK(same);
	CHECK(line[big] == '\0');
	CHECK(gzr_line(r, &line, &len, 1 << 20, &e) == 1);
	CHECK(len == 3);
	CHECK(line[0] == 'x');
	CHECK(line[1] == '\0');
	CHECK(line[2] == 'y');
	CHECK(gzr_line(r, &line, &len, 1 << 20, &e) == 1);
	CHECK(len == 4);
	CHECK_STR(line, "last");
	CHECK(gzr_line(r, &line, &len, 1 << 20, &e) == 0);
	gzr_close(r);
	free(s);
}

static uint8_t *
fread_all(FILE *f, size_t *n)
{
	struct buf b;
	uint8_t chunk[3000];
	size_t got;

	buf_init(&b, (size_t)1 << 30);
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		if (buf_add(&b, chunk, got) < 0)
			abort();
	*n = b.len;
	if (b.data == NULL)
		b.data = calloc(1, 1);
	return b.data;
}

TEST(fopen_view)
{
	size_t len, n, disk_len;
	char *text = make_text(20000, &len);
	const char *path = tmp("fopen.gz"), *cut = tmp("fopen-cut.gz");
	struct err e = { { 0 }, 0 };
	struct gzr *r;
	FILE *f;
	bool trunc = true;
	uint8_t *back, *disk;

	CHECK(write_text(path, true, text, len) == 0);
	r = gzr_open(path, &e);
	CHECK(r != NULL);
	f = r ? gzr_fopen(r, &trunc) : NULL;
	CHECK(f != NULL);
	if (f == NULL)
		return;
	back = fread_all(f, &n);
	CHECK(n == len);
	CHECK(memcmp(back, text, len) == 0);
	CHECK(!ferror(f));
	fclose(f);
	CHECK(!trunc);
	free(back);
	/* A cut file reads as a short file, with the flag set. */
	disk = read_whole(path, &disk_len);
	CHECK(write_file(cut, disk, disk_len / 2) == 0);
	r = gzr_open(cut, &e);
	f = r ? gzr_fopen(r, &trunc) : NULL;
	CHECK(f != NULL);
	if (f != NULL) {
		back = fread_all(f, &n);
		CHECK(n > 0);
		CHECK(n < len);
		if (CHECKED(n > 0)) {
			CHECK(n < len);
			CHECK(memcmp(back, text, n) == 0);
		}
		fclose(f);
		CHECK(trunc);
		free(back);
	}
	free(disk), free(text);
}

TEST(open_missing)
{
	struct err e = { { 0 }, 0 };

	CHECK(gzr_open(tmp("no-such-file"), &e) == NULL);
	CHECK(e.code == -E_IO);
	CHECK(strstr(e.msg, "no-such-file") != NULL);
	CHECK(!gz_path_is_gzip(tmp("no-such-file")));
	CHECK(strlen(gzio_zlib_version()) > 0);
}

int
main(void)
{
	RUN(roundtrip_plain);
	RUN(roundtrip_gzip);
	RUN(printf_and_empty);
	RUN(truncated_gzip);
	RUN(truncated_gzip_lines);
	RUN(corrupt_gzip);
	RUN(damage_keeps_prefix);
	RUN(concatenated_members);
	RUN(flush_readable_before_close);
	RUN(sigkill_writer);
	RUN(refuse_existing);
	RUN(disk_full);
	RUN(line_limits);
	RUN(line_across_chunks);
	RUN(fopen_view);
	RUN(open_missing);
	return check_done();
}
