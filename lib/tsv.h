/* tsv: the project's TSV files.
 *
 * Layout (docs/formats.md):
 *	# contend-<format> <version>
 *	col1<TAB>col2<TAB>...
 *	rows, one per line; integers are decimal (nanoseconds and bytes), reals in %.9g,
 *	strings with \t \n \\ escaped.
 * Lines starting with '#' after the column line are comments.  Files may be gzip-compressed.
 * Reading checks the header line, the version range and the column names, and every
 * field as it is asked for: our own files are untrusted input too. */
#ifndef LIB_TSV_H
#define LIB_TSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/gzio.h"

#define TSV_MAX_COLS 64
#define TSV_MAX_LINE (1u << 20)

struct tsv_w {
	struct gzw *w;		/* NULL for a writer into memory (tsv_w_mem) */
	struct buf *mem;	/* its rows, borrowed */
	char *path;
	int ncols;		/* columns per row */
	int col;		/* next column in the current row */
	int failed;		/* sticky error (negative) */
	struct err e;		/* its message */
};

/* Create path and write the two header lines. format is e.g. "messages" (written as
 * "contend-messages"); cols is a NULL-terminated list of column names. compress: gzip.
 * Returns 0 or negative with e set. Finish with tsv_w_close. */
int tsv_w_open(struct tsv_w *t, const char *path, const char *format, int version,
	       const char *const *cols, bool compress, bool overwrite, struct err *e) WUR;
/* Add one field to the current row. Errors are sticky and reported by tsv_w_end/close. */
void tsv_w_i64(struct tsv_w *t, int64_t v);
void tsv_w_u64(struct tsv_w *t, uint64_t v);
void tsv_w_f64(struct tsv_w *t, double v);	/* %.9g; NaN written as "nan" */
void tsv_w_str(struct tsv_w *t, const char *s);	/* escaped; NULL written as "-" */
/* End the row; a row with the wrong number of fields is our bug (BUG). */
int tsv_w_end(struct tsv_w *t, struct err *e) WUR;
/* A comment line "# text" (only between rows). */
int tsv_w_comment(struct tsv_w *t, struct err *e, const char *fmt, ...) WUR PRINTF(3, 4);
int tsv_w_flush(struct tsv_w *t, struct err *e) WUR;
int tsv_w_close(struct tsv_w *t, struct err *e);
/* A writer of rows of ncols fields into b (borrowed, b's cap applies), without header: rows
 * formatted on another thread, for tsv_w_rows. Past b's cap the error is sticky as for a
 * file (-E_LIMIT). Nothing to close. */
void tsv_w_mem(struct tsv_w *t, struct buf *b, int ncols);
/* Append n bytes of whole rows made by a memory writer of the same columns to t. */
int tsv_w_rows(struct tsv_w *t, const void *rows, size_t n, struct err *e) WUR;

struct tsv_r {
	struct gzr *r;
	char *path;
	int version;		/* from the header line */
	int ncols;
	char *colnames[TSV_MAX_COLS];	/* owned */
	char *fields[TSV_MAX_COLS];	/* current row, borrowed until next tsv_r_next */
	uint64_t unescaped;	/* columns of the current row tsv_r_str has unescaped in place */
	long line_no;		/* 1-based line number of the current row */
};

/* Open and check the header: the format must match, version in [1, max_version].
 * required: NULL-terminated column names that must be present (others allowed).
 * Returns 0, or negative with e set and nothing left open: -E_IO (cannot open),
 * -E_FORMAT (not this format, bad version, a required column missing), -E_UNSUP
 * (version newer than max_version), -E_TRUNC (ends inside the header). */
int tsv_r_open(struct tsv_r *t, const char *path, const char *format, int max_version,
	       const char *const *required, struct err *e) WUR;
/* tsv_r_open for a file a run may lack: 0 open, 1 when there is no file at path (nothing
 * open, e untouched), or tsv_r_open's negative return when it is there but cannot be read
 * as format. */
int tsv_r_open_opt(struct tsv_r *t, const char *path, const char *format, int max_version,
		   const char *const *required, struct err *e) WUR;
/* Next row: 1, 0 at the end, negative on a damaged line (-E_FORMAT: wrong number of
 * fields or a NUL byte; -E_LIMIT: longer than TSV_MAX_LINE; e names file and line; the
 * caller may count it and call tsv_r_next again) or an I/O, truncation or damaged
 * compression error (-E_IO, -E_TRUNC, -E_FORMAT from gzio: stop; tell them apart with
 * gzr_truncated). After any return other than 1 there is no current row. */
int tsv_r_next(struct tsv_r *t, struct err *e) WUR;
/* Index of a column by name, or -1. */
int tsv_r_col(const struct tsv_r *t, const char *name);
/* Field parsers for the current row: 0, or -E_FORMAT with e naming file, line and column
 * (also for a column out of range or no current row). Strict: no blanks, no '+', the
 * whole field; u64 refuses a minus sign; f64 takes what %.9g writes, "nan" and "inf". */
int tsv_r_i64(struct tsv_r *t, int col, int64_t *v, struct err *e) WUR;
int tsv_r_u64(struct tsv_r *t, int col, uint64_t *v, struct err *e) WUR;
int tsv_r_f64(struct tsv_r *t, int col, double *v, struct err *e) WUR;
/* Unescaped string, borrowed until the next tsv_r_next (several columns may be held at
 * once); "" for a column out of range or no current row. */
const char *tsv_r_str(struct tsv_r *t, int col);
void tsv_r_close(struct tsv_r *t);

/* The value of the last row whose key is key in a key/value file of format (columns key
 * value) at path, into out (cap bytes, cut to fit). 1 found, 0 not found; negative with e
 * set when the file cannot be read or a line of it is damaged (then out says nothing). */
int tsv_kv_lookup(const char *path, const char *format, const char *key, char *out, size_t cap,
		  struct err *e) WUR;
/* tsv_kv_lookup's value as a positive finite number, or dflt when the file, the key or
 * such a number is missing. */
double tsv_kv_positive(const char *path, const char *format, const char *key, double dflt);

#endif
