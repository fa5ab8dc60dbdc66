/* gzio: compressed file I/O over zlib.
 *
 * Writing goes through zlib's gzFile; we add O_EXCL creation, a sticky write error and
 * time-based sync flushes. Reading drives inflate() directly rather than gzread: gzread
 * drops everything it decompressed in the call that meets damaged data (up to its whole
 * output buffer), and a reader of a damaged run must keep every byte before the damage. */
#include "lib/gzio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/clock.h"
#include "lib/xalloc.h"

struct gzw {
	char *path;		/* for messages */
	int fd;			/* plain: the file; gzip: dup kept for gzw_fd */
	gzFile gz;		/* NULL for plain output */
	int64_t flush_ns;	/* flush interval, 0 = none */
	int64_t last_flush_ns;	/* CLOCK_MONOTONIC of the last flush */
	int failed;		/* sticky negative error code, 0 if fine */
	char failmsg[ERR_MSG_MAX];
	struct buf plainbuf;	/* plain output is buffered here between flushes */
};

struct gzr {
	char *path;
	int fd;
	bool gzip;		/* the file had the gzip magic */
	bool truncated;
	bool eof;		/* nothing more will be delivered */
	int pending;		/* an error to return once the bytes before it are read, 0 none */
	char damage[ERR_MSG_MAX];	/* why the data stopped, "" when it did not */
	z_stream zs;		/* gzip only */
	bool member_end;	/* a gzip member just ended: another may follow */
	uint64_t in_bytes;	/* compressed bytes read from fd */
	uint8_t in[65536];	/* compressed input */
	struct buf line;	/* gzr_line assembles lines here */
	uint8_t chunk[65536];	/* read-ahead for gzr_line */
	size_t chunk_pos, chunk_len;
};

/* The flush clock: the coarse monotonic clock (a few ms of resolution, no system call) is
 * plenty for flush intervals of the order of a second and is read on every write. */
static int64_t
mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_COARSE);
}

struct gzw *
gzw_open(const char *path, bool compress, bool overwrite, int64_t flush_ns, struct err *e)
{
	return gzw_open_level(path, compress, overwrite, flush_ns, GZW_DEFAULT_LEVEL, e);
}

struct gzw *
gzw_open_level(const char *path, bool compress, bool overwrite, int64_t flush_ns, int level,
	       struct err *e)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL);
	int fd;
	struct gzw *w;
	char mode[8];

	if (level < 1 || level > 9) {
		err_set(e, E_USAGE, "compression level %d is not 1 to 9", level);
		return NULL;
	}
	snprintf(mode, sizeof mode, "wb%d", level);
	fd = open(path, flags, 0644);
	if (fd < 0) {
		err_sys(e, E_IO, "cannot create '%s'", path);
		return NULL;
	}
	w = xcalloc(1, sizeof *w);
	w->path = xstrdup(path);
	w->fd = fd;
	w->flush_ns = flush_ns;
	w->last_flush_ns = mono_ns();
	buf_init(&w->plainbuf, (size_t)1 << 30);
	if (compress) {
		int gfd = dup(fd);	/* gzclose closes its own descriptor */

		if (gfd < 0 || (w->gz = gzdopen(gfd, mode)) == NULL) {
			err_sys(e, E_IO, "cannot start gzip on '%s'", path);
			if (gfd >= 0)
				close(gfd);
			close(fd);
			free(w->path);
			free(w);
			return NULL;
		}
		gzbuffer(w->gz, 128 * 1024);
	}
	return w;
}

int
gzw_fd(const struct gzw *w)
{
	return w ? w->fd : -1;
}

static int
gzw_fail(struct gzw *w, struct err *e, int code, const char *what)
{
	if (!w->failed) {
		int zerr = 0;
		const char *zmsg = w->gz ? gzerror(w->gz, &zerr) : NULL;

		if (zerr == Z_ERRNO || zmsg == NULL || zerr == 0)
			snprintf(w->failmsg, sizeof w->failmsg, "%s '%s': %s", what, w->path,
				 strerror(errno ? errno : EIO));
		else
			snprintf(w->failmsg, sizeof w->failmsg, "%s '%s': %s", what, w->path, zmsg);
		w->failed = -code;
	}
	return err_set(e, -w->failed, "%s", w->failmsg);
}

static int
plain_drain(struct gzw *w, struct err *e)
{
	size_t off = 0;	/* bytes of plainbuf written so far */

	while (off < w->plainbuf.len) {
		ssize_t n = write(w->fd, w->plainbuf.data + off, w->plainbuf.len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return gzw_fail(w, e, E_IO, "cannot write");
		}
		off += (size_t)n;
	}
	buf_clear(&w->plainbuf);
	return 0;
}

int
gzw_flush(struct gzw *w, struct err *e)
{
	if (w->failed)
		return err_set(e, -w->failed, "%s", w->failmsg);
	w->last_flush_ns = mono_ns();
	if (w->gz) {
		errno = 0;
		if (gzflush(w->gz, Z_SYNC_FLUSH) != Z_OK)
			return gzw_fail(w, e, E_IO, "cannot write");
		return 0;
	}
	return plain_drain(w, e);
}

int
gzw_write(struct gzw *w, const void *p, size_t n, struct err *e)
{
	if (w->failed)
		return err_set(e, -w->failed, "%s", w->failmsg);
	if (w->gz) {
		const uint8_t *q = p;	/* gzwrite takes unsigned lengths: write in pieces */

		while (n > 0) {
			unsigned piece = n > (1u << 30) ? (1u << 30) : (unsigned)n;

			errno = 0;
			if (gzwrite(w->gz, q, piece) != (int)piece)
				return gzw_fail(w, e, E_IO, "cannot write");
			q += piece;
			n -= piece;
		}
	} else {
		if (buf_add(&w->plainbuf, p, n) < 0) {
			int rc = plain_drain(w, e);

			if (rc < 0)
				return rc;
			if (buf_add(&w->plainbuf, p, n) < 0)
				return gzw_fail(w, e, E_LIMIT, "write too large for");
		}
		if (w->plainbuf.len >= 64 * 1024 && plain_drain(w, e) < 0)
			return w->failed;
	}
	if (w->flush_ns > 0 && mono_ns() - w->last_flush_ns >= w->flush_ns)
		return gzw_flush(w, e);
	return 0;
}

int
gzw_printf(struct gzw *w, struct err *e, const char *fmt, ...)
{
	char small[512];	/* most records fit */
	va_list ap;
	int n;
	int rc;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return err_set(e, E_FORMAT, "bad format writing '%s'", w->path);
	if ((size_t)n < sizeof small)
		return gzw_write(w, small, (size_t)n, e);
	{
		char *big = xmalloc((size_t)n + 1);

		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		rc = gzw_write(w, big, (size_t)n, e);
		free(big);
	}
	return rc;
}

int
gzw_close(struct gzw *w, struct err *e)
{
	int rc;

	if (w == NULL)
		return 0;
	rc = w->failed ? err_set(e, -w->failed, "%s", w->failmsg) : 0;
	if (w->gz) {
		errno = 0;
		if (gzclose(w->gz) != Z_OK && rc == 0)
			rc = err_sys(e, E_IO, "cannot finish '%s'", w->path);
	} else if (rc == 0) {
		rc = plain_drain(w, e);
	}
	if (close(w->fd) != 0 && rc == 0)
		rc = err_sys(e, E_IO, "cannot close '%s'", w->path);
	buf_release(&w->plainbuf);
	free(w->path);
	free(w);
	return rc;
}

struct gzr *
gzr_dopen(int fd, const char *name, struct err *e)
{
	uint8_t magic[2] = { 0, 0 };	/* first two bytes of the file */
	struct gzr *r;
	ssize_t n = pread(fd, magic, 2, 0);

	r = xcalloc(1, sizeof *r);
	r->path = xstrdup(name);
	r->fd = fd;
	r->gzip = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	/* 16 + MAX_WBITS: gzip framing only (a plain file is read as it is, below) */
	if (r->gzip && inflateInit2(&r->zs, 16 + MAX_WBITS) != Z_OK) {
		err_set(e, E_IO, "cannot read '%s': %s", name, r->zs.msg ? r->zs.msg : "zlib");
		close(fd);
		free(r->path);
		free(r);
		return NULL;
	}
	buf_init(&r->line, (size_t)1 << 30);
	return r;
}

struct gzr *
gzr_open(const char *path, struct err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		err_sys(e, E_IO, "cannot open '%s'", path);
		return NULL;
	}
	return gzr_dopen(fd, path, e);
}

bool
gzr_is_gzip(const struct gzr *r)
{
	return r->gzip;
}

bool
gzr_truncated(const struct gzr *r)
{
	return r->truncated;
}

/* Read from fd, retrying on EINTR: bytes, 0 at the end, -1 with errno. */
static ssize_t
read_some(int fd, void *p, size_t n)
{
	ssize_t got;

	do
		got = read(fd, p, n);
	while (got < 0 && errno == EINTR);
	return got;
}

/* Remember an error for after the bytes already produced; returns -code. */
static int
set_pending(struct gzr *r, struct err *e, int code, const char *fmt, ...) PRINTF(4, 5);

static int
set_pending(struct gzr *r, struct err *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->damage, sizeof r->damage, fmt, ap);
	va_end(ap);
	r->pending = code;
	r->eof = true;
	return err_set(e, code, "%s", r->damage);
}

/* Inflate into p until something comes out, the input ends or the data is damaged. */
static long
gz_inflate(struct gzr *r, void *p, size_t n, struct err *e)
{
	r->zs.next_out = p;
	r->zs.avail_out = (uInt)n;
	while (r->zs.avail_out == n) {
		int ret;

		if (r->zs.avail_in == 0) {
			ssize_t got = read_some(r->fd, r->in, sizeof r->in);

			if (got < 0) {
				(void)set_pending(r, e, E_IO, "cannot read '%s': %s", r->path,
						  strerror(errno));
				break;
			}
			if (got == 0) {
				if (r->member_end)
					r->eof = true;	/* a clean end after a whole member */
				else {
					r->truncated = true;
					(void)set_pending(r, e, E_TRUNC, "'%s' is truncated (compressed "
							  "stream ends early)", r->path);
				}
				break;
			}
			r->in_bytes += (uint64_t)got;
			r->zs.next_in = r->in;
			r->zs.avail_in = (uInt)got;
		}
		if (r->member_end) {
			/* after a member: another member, or trailing bytes that gzip(1) ignores */
			if (r->zs.next_in[0] != 0x1f) {
				r->eof = true;
				break;
			}
			inflateReset(&r->zs);
			r->member_end = false;
		}
		ret = inflate(&r->zs, Z_NO_FLUSH);
		if (ret == Z_STREAM_END) {
			r->member_end = true;
		} else if (ret != Z_OK && ret != Z_BUF_ERROR) {
			uint64_t at = r->in_bytes - r->zs.avail_in;	/* offset of the damage */
			const char *why = r->zs.msg ? r->zs.msg : "bad data";

			/* A wrong check in the trailer finds damage somewhere in the member,
			 * after its data was delivered: no place to name, only that some of it
			 * is wrong. */
			if (strncmp(why, "incorrect", 9) == 0)
				(void)set_pending(r, e, E_FORMAT, "'%s' is damaged: its gzip check fails "
						  "at compressed byte %llu (%s), so part of its data is "
						  "wrong", r->path, (unsigned long long)at, why);
			else
				(void)set_pending(r, e, E_FORMAT, "'%s' is damaged at compressed byte "
						  "%llu (%s)", r->path, (unsigned long long)at, why);
			break;
		}
	}
	if (r->zs.avail_out < n)
		return (long)(n - r->zs.avail_out);
	return r->pending ? -r->pending : 0;
}

long
gzr_read(struct gzr *r, void *p, size_t n, struct err *e)
{
	if (r->pending) {
		/* the bytes before the error were delivered by the last call: now the error */
		int code = r->pending;

		r->pending = 0;
		return err_set(e, code, "%s", r->damage);
	}
	if (r->eof || n == 0)
		return 0;
	if (n > (1u << 30))
		n = 1u << 30;
	if (r->gzip) {
		long got = gz_inflate(r, p, n, e);

		if (got < 0)
			r->pending = 0;	/* returned now */
		return got;
	}
	{
		ssize_t got = read_some(r->fd, p, n);

		if (got > 0)
			return (long)got;
		r->eof = true;
		if (got == 0)
			return 0;
		snprintf(r->damage, sizeof r->damage, "cannot read '%s': %s", r->path,
			 strerror(errno));
		return err_set(e, E_IO, "%s", r->damage);
	}
}

const char *
gzr_damage(const struct gzr *r)
{
	return r->damage[0] ? r->damage : NULL;
}

int
gzr_line(struct gzr *r, char **line, size_t *len, size_t max_len, struct err *e)
{
	bool too_long = false;	/* this line passed max_len; drop the rest of it */

	buf_clear(&r->line);
	for (;;) {
		uint8_t *nl;
		size_t avail;	/* bytes of chunk not yet consumed */

		if (r->chunk_pos == r->chunk_len) {
			long got = gzr_read(r, r->chunk, sizeof r->chunk, e);

			if (got < 0)
				return (int)got;
			if (got == 0) {
				if (r->line.len == 0 && !too_long)
					return 0;
				break;	/* a last line without newline */
			}
			r->chunk_pos = 0;
			r->chunk_len = (size_t)got;
		}
		avail = r->chunk_len - r->chunk_pos;
		nl = memchr(r->chunk + r->chunk_pos, '\n', avail);
		{
			size_t take = nl ? (size_t)(nl - (r->chunk + r->chunk_pos)) : avail;

			if (!too_long) {
				if (r->line.len + take > max_len)
					too_long = true;
				else if (buf_add(&r->line, r->chunk + r->chunk_pos, take) < 0)
					too_long = true;
			}
			r->chunk_pos += take + (nl ? 1 : 0);
		}
		if (nl)
			break;
	}
	if (too_long)
		return err_set(e, E_LIMIT, "'%s': line longer than %zu bytes", r->path, max_len);
	if (buf_add(&r->line, "", 1) < 0)
		return err_set(e, E_LIMIT, "'%s': line too long", r->path);
	*line = (char *)r->line.data;
	*len = r->line.len - 1;
	return 1;
}

void
gzr_close(struct gzr *r)
{
	if (r == NULL)
		return;
	if (r->gzip)
		inflateEnd(&r->zs);
	close(r->fd);
	buf_release(&r->line);
	free(r->path);
	free(r);
}

struct cookie {
	struct gzr *r;
	bool *truncated;
};

static ssize_t
cookie_read(void *c, char *p, size_t n)
{
	struct cookie *k = c;
	long got = gzr_read(k->r, p, n, NULL);

	if (got == -E_TRUNC || got == -E_FORMAT) {
		if (k->truncated && got == -E_TRUNC)
			*k->truncated = true;
		return 0;	/* a short file: the reader keeps what came before */
	}
	return got < 0 ? -1 : got;
}

static int
cookie_close(void *c)
{
	struct cookie *k = c;

	gzr_close(k->r);
	free(k);
	return 0;
}

FILE *
gzr_fopen(struct gzr *r, bool *truncated)
{
	cookie_io_functions_t io = { cookie_read, NULL, NULL, cookie_close };
	struct cookie *k = xcalloc(1, sizeof *k);
	FILE *f;

	k->r = r;
	k->truncated = truncated;
	if (truncated != NULL)
		*truncated = false;	/* so a caller's uninitialised flag means nothing */
	f = fopencookie(k, "r", io);
	if (f == NULL) {
		free(k);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 256 * 1024);
	return f;
}

bool
gz_path_is_gzip(const char *path)
{
	uint8_t magic[2] = { 0, 0 };
	FILE *f = fopen(path, "rb");
	bool yes;

	if (f == NULL)
		return false;
	yes = fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	fclose(f);
	return yes;
}

const char *
gzio_zlib_version(void)
{
	return zlibVersion();
}
