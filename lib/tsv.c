/* tsv: the project's TSV files, written and read back with distrust. */
#include "lib/tsv.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/xalloc.h"

int
tsv_w_open(struct tsv_w *t, const char *path, const char *format, int version,
	   const char *const *cols, bool compress, bool overwrite, struct err *e)
{
	int rc;

	memset(t, 0, sizeof *t);
	for (t->ncols = 0; cols[t->ncols] != NULL; t->ncols++)
		if (t->ncols >= TSV_MAX_COLS)
			BUG("too many columns for '%s'", format);
	t->w = gzw_open(path, compress, overwrite, NS_PER_S, e);
	if (t->w == NULL)
		return e ? e->code : -E_IO;
	t->path = xstrdup(path);
	rc = gzw_printf(t->w, e, "# contend-%s %d\n", format, version);
	for (int i = 0; rc == 0 && i < t->ncols; i++)
		rc = gzw_printf(t->w, e, "%s%c", cols[i], i + 1 < t->ncols ? '\t' : '\n');
	if (rc < 0) {
		gzw_close(t->w, NULL);
		t->w = NULL;
		free(t->path);
		t->path = NULL;
	}
	return rc;
}

/* n bytes to the file or to memory; sets the sticky error. */
static int
w_put(struct tsv_w *t, const char *s, size_t n)
{
	if (t->w == NULL) {
		if (buf_add(t->mem, s, n) == 0)
			return 0;
		t->failed = err_set(&t->e, E_LIMIT, "rows of more than %zu bytes in memory",
				    t->mem->max);
		return t->failed;
	}
	if (gzw_write(t->w, s, n, &t->e) < 0)
		t->failed = t->e.code;
	return t->failed;
}

static void
w_raw(struct tsv_w *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->col > 0 && w_put(t, "\t", 1) < 0)
		return;
	w_put(t, s, n);
	t->col++;
}

/* v in decimal, with a minus sign when neg, ending at end (exclusive); returns its start.
 * Integers are most of what the profile files hold: printf's parsing of a format for each
 * one cost more than the rest of writing a row. */
static char *
w_dec(char *end, uint64_t v, bool neg)
{
	char *p = end;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	if (neg)
		*--p = '-';
	return p;
}

/* A number field ending at end, its separator written with it in one piece. */
static void
w_num(struct tsv_w *t, char *p, char *end)
{
	if (t->failed)
		return;
	if (t->col > 0)
		*--p = '\t';
	w_put(t, p, (size_t)(end - p));
	t->col++;
}

void
tsv_w_i64(struct tsv_w *t, int64_t v)
{
	char s[32];

	w_num(t, w_dec(s + sizeof s, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0), s + sizeof s);
}

void
tsv_w_u64(struct tsv_w *t, uint64_t v)
{
	char s[32];

	w_num(t, w_dec(s + sizeof s, v, false), s + sizeof s);
}

void
tsv_w_f64(struct tsv_w *t, double v)
{
	char s[48];
	int n = isnan(v) ? snprintf(s, sizeof s, "nan") : snprintf(s, sizeof s, "%.9g", v);

	w_raw(t, s, (size_t)n);
}

void
tsv_w_str(struct tsv_w *t, const char *s)
{
	char stack[256];	/* escaped copy for short strings */
	char *out = stack;
	size_t n = 0, cap = sizeof stack;

	if (s == NULL || *s == '\0')
		s = "-";	/* an empty field would be ambiguous */
	if (s[strcspn(s, "\t\n\r\\")] == '\0') {
		w_raw(t, s, strlen(s));	/* nothing to escape: most strings */
		return;
	}
	for (const char *p = s; *p; p++) {
		const char *rep = NULL;	/* escape sequence, if any */
		char one[2] = { *p, 0 };

		if (*p == '\t')
			rep = "\\t";
		else if (*p == '\n')
			rep = "\\n";
		else if (*p == '\r')
			rep = "\\r";
		else if (*p == '\\')
			rep = "\\\\";
		else
			rep = one;
		if (n + 3 > cap) {
			char *bigger = xmallocarray(cap, 2);

			memcpy(bigger, out, n);
			if (out != stack)
				free(out);
			out = bigger;
			cap *= 2;
		}
		memcpy(out + n, rep, strlen(rep));
		n += strlen(rep);
	}
	if (n == 0) {
		out[0] = '-';	/* an empty field would be ambiguous */
		n = 1;
	}
	w_raw(t, out, n);
	if (out != stack)
		free(out);
}

int
tsv_w_end(struct tsv_w *t, struct err *e)
{
	if (!t->failed && t->col != t->ncols)
		BUG("row of %d fields in '%s', which has %d columns", t->col,
		    t->path ? t->path : "(memory)", t->ncols);
	t->col = 0;
	if (t->failed)
		return err_set(e, -t->failed, "%s", t->e.msg);
	if (w_put(t, "\n", 1) < 0)
		return err_set(e, -t->failed, "%s", t->e.msg);
	return 0;
}

void
tsv_w_mem(struct tsv_w *t, struct buf *b, int ncols)
{
	memset(t, 0, sizeof *t);
	t->mem = b;
	t->ncols = ncols;
}

int
tsv_w_rows(struct tsv_w *t, const void *rows, size_t n, struct err *e)
{
	if (t->col != 0)
		BUG("rows added inside a row of '%s'", t->path ? t->path : "(memory)");
	if (t->failed)
		return err_set(e, -t->failed, "%s", t->e.msg);
	if (w_put(t, rows, n) < 0)
		return err_set(e, -t->failed, "%s", t->e.msg);
	return 0;
}

int
tsv_w_comment(struct tsv_w *t, struct err *e, const char *fmt, ...)
{
	char s[1024];
	va_list ap;

	if (t->failed)
		return err_set(e, -t->failed, "%s", t->e.msg);
	va_start(ap, fmt);
	vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	return gzw_printf(t->w, e, "# %s\n", s);
}

int
tsv_w_flush(struct tsv_w *t, struct err *e)
{
	if (t->failed)
		return err_set(e, -t->failed, "%s", t->e.msg);
	return gzw_flush(t->w, e);
}

int
tsv_w_close(struct tsv_w *t, struct err *e)
{
	int rc = 0;

	if (t->w == NULL)
		return 0;
	if (t->failed)
		rc = err_set(e, -t->failed, "%s", t->e.msg);
	if (gzw_close(t->w, rc ? NULL : e) < 0 && rc == 0)
		rc = e ? e->code : -E_IO;
	t->w = NULL;
	free(t->path);
	t->path = NULL;
	return rc;
}

/* Cut line (len bytes, NUL-terminated) at its tabs into fields: their number, or -1 past
 * max. One pass over the bytes: rows of fifteen short fields are the common case. */
static int
split(char *line, size_t len, char **fields, int max)
{
	char *end = line + len;
	int n = 1;	/* fields found */

	fields[0] = line;
	for (char *p = line; p < end; p++) {
		if (*p != '\t')
			continue;
		if (n == max)
			return -1;
		*p = '\0';
		fields[n++] = p + 1;
	}
	return n;
}

int
tsv_r_open(struct tsv_r *t, const char *path, const char *format, int max_version,
	   const char *const *required, struct err *e)
{
	char *line;
	size_t len;
	char want[128];		/* "# contend-<format> " */
	char *fields[TSV_MAX_COLS];
	int rc;
	int n;

	memset(t, 0, sizeof *t);
	t->r = gzr_open(path, e);
	if (t->r == NULL)
		return e ? e->code : -E_IO;
	t->path = xstrdup(path);
	snprintf(want, sizeof want, "# contend-%s ", format);
	rc = gzr_line(t->r, &line, &len, TSV_MAX_LINE, e);
	if (rc <= 0) {
		if (rc == 0)
			rc = err_set(e, E_FORMAT, "'%s' is empty (expected a contend-%s file)",
				     path, format);
		goto fail;
	}
	if (strncmp(line, want, strlen(want)) != 0) {
		rc = err_set(e, E_FORMAT, "'%s' is not a contend-%s file", path, format);
		goto fail;
	}
	{
		char *end;
		long v;

		errno = 0;
		v = strtol(line + strlen(want), &end, 10);
		if (errno || *end != '\0' || v < 1 || v > 1000000) {
			rc = err_set(e, E_FORMAT, "'%s' line 1: bad version", path);
			goto fail;
		}
		if (v > max_version) {
			rc = err_set(e, E_UNSUP, "'%s' is contend-%s version %ld; this contend reads up to %d",
				     path, format, v, max_version);
			goto fail;
		}
		t->version = (int)v;
	}
	rc = gzr_line(t->r, &line, &len, TSV_MAX_LINE, e);
	if (rc <= 0) {
		if (rc == 0)
			rc = err_set(e, E_TRUNC, "'%s' ends before its column line", path);
		goto fail;
	}
	n = split(line, strlen(line), fields, TSV_MAX_COLS);
	if (n < 0) {
		rc = err_set(e, E_FORMAT, "'%s' line 2: more than %d columns", path, TSV_MAX_COLS);
		goto fail;
	}
	t->ncols = n;
	for (int i = 0; i < n; i++)
		t->colnames[i] = xstrdup(fields[i]);
	t->line_no = 2;
	for (int i = 0; required && required[i]; i++) {
		if (tsv_r_col(t, required[i]) < 0) {
			rc = err_set(e, E_FORMAT, "'%s' has no column '%s'", path, required[i]);
			goto fail;
		}
	}
	return 0;
fail:
	tsv_r_close(t);
	return rc;
}

int
tsv_r_col(const struct tsv_r *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (strcmp(t->colnames[i], name) == 0)
			return i;
	return -1;
}

/* Forget the current row, so a field asked for after a failed tsv_r_next is an error
 * rather than a pointer into a reused line buffer. */
static void
clear_fields(struct tsv_r *t)
{
	/* only the columns: field() and tsv_r_str never look past ncols */
	memset(t->fields, 0, (size_t)t->ncols * sizeof t->fields[0]);
}

int
tsv_r_open_opt(struct tsv_r *t, const char *path, const char *format, int max_version,
	       const char *const *required, struct err *e)
{
	struct err e2;
	int rc = tsv_r_open(t, path, format, max_version, required, &e2);

	if (rc == 0)
		return 0;
	if (access(path, F_OK) != 0)
		return 1;
	*e = e2;
	return rc;
}

int
tsv_r_next(struct tsv_r *t, struct err *e)
{
	char *line;
	size_t len;
	int rc;
	int n;

	t->unescaped = 0;
	for (;;) {
		rc = gzr_line(t->r, &line, &len, TSV_MAX_LINE, e);
		t->line_no++;
		if (rc == -E_LIMIT) {
			clear_fields(t);
			return err_set(e, E_LIMIT, "'%s' line %ld: longer than %u bytes", t->path,
				       t->line_no, TSV_MAX_LINE);	/* damaged line, caller may go on */
		}
		if (rc <= 0) {
			clear_fields(t);
			return rc;
		}
		if (line[0] == '#' || len == 0)
			continue;
		break;
	}
	clear_fields(t);
	if (strlen(line) != len)
		return err_set(e, E_FORMAT, "'%s' line %ld: NUL byte in a text file", t->path,
			       t->line_no);
	n = split(line, len, t->fields, TSV_MAX_COLS);
	if (n != t->ncols) {
		clear_fields(t);	/* a partial row must not be read as the current one */
		return err_set(e, E_FORMAT, "'%s' line %ld: %d fields, expected %d", t->path,
			       t->line_no, n < 0 ? TSV_MAX_COLS + 1 : n, t->ncols);
	}
	return 1;
}

static int
bad_field(struct tsv_r *t, int col, const char *what, struct err *e)
{
	return err_set(e, E_FORMAT, "'%s' line %ld: column '%s': %s", t->path, t->line_no,
		       col >= 0 && col < t->ncols ? t->colnames[col] : "?", what);
}

/* The field for col, or NULL with e set when there is no such column or no current row. */
static const char *
field(struct tsv_r *t, int col, struct err *e)
{
	if (col < 0 || col >= t->ncols) {
		bad_field(t, col, "no such column", e);
		return NULL;
	}
	if (t->fields[col] == NULL) {
		bad_field(t, col, "no current row", e);
		return NULL;
	}
	return t->fields[col];
}

int
tsv_r_i64(struct tsv_r *t, int col, int64_t *v, struct err *e)
{
	const char *s = field(t, col, e);
	char *end;
	long long x;

	if (s == NULL)
		return -E_FORMAT;
	/* strtoll alone would take leading blanks and '+'; our files never have them. */
	if (!(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
		return bad_field(t, col, "not an integer", e);
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || end == s || *end != '\0')
		return bad_field(t, col, "not an integer", e);
	*v = x;
	return 0;
}

int
tsv_r_u64(struct tsv_r *t, int col, uint64_t *v, struct err *e)
{
	const char *s = field(t, col, e);
	char *end;
	unsigned long long x;

	if (s == NULL)
		return -E_FORMAT;
	if (s[0] == '-')
		return bad_field(t, col, "negative where a count is expected", e);
	/* strtoull would skip blanks and then negate " -5" into a huge count. */
	if (!isdigit((unsigned char)s[0]))
		return bad_field(t, col, "not an unsigned integer", e);
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s || *end != '\0')
		return bad_field(t, col, "not an unsigned integer", e);
	*v = x;
	return 0;
}

int
tsv_r_f64(struct tsv_r *t, int col, double *v, struct err *e)
{
	const char *s = field(t, col, e);
	char *end;
	double x;

	if (s == NULL)
		return -E_FORMAT;
	if (isspace((unsigned char)s[0]))
		return bad_field(t, col, "not a number", e);
	errno = 0;
	x = strtod(s, &end);
	if (errno == ERANGE || end == s || *end != '\0')
		return bad_field(t, col, "not a number", e);
	*v = x;
	return 0;
}

const char *
tsv_r_str(struct tsv_r *t, int col)
{
	char *s;
	size_t j = 0;

	if (col < 0 || col >= t->ncols || t->fields[col] == NULL)
		return "";
	s = t->fields[col];
	if (t->unescaped & (UINT64_C(1) << col))
		return s;
	/* Unescaping only shortens a field, so it is done in place in the row's own buffer: the
	 * result stays valid until the next tsv_r_next, however many columns are read. */
	for (size_t i = 0; s[i] != '\0'; i++) {
		char c = s[i];

		if (c == '\\' && s[i + 1] != '\0') {
			char d = s[++i];

			c = d == 't' ? '\t' : d == 'n' ? '\n' : d == 'r' ? '\r' : d;
		}
		s[j++] = c;
	}
	s[j] = '\0';
	t->unescaped |= UINT64_C(1) << col;
	return s;
}

void
tsv_r_close(struct tsv_r *t)
{
	gzr_close(t->r);
	t->r = NULL;
	for (int i = 0; i < t->ncols; i++)
		free(t->colnames[i]);
	t->ncols = 0;
	free(t->path);
	t->path = NULL;
}

int
tsv_kv_lookup(const char *path, const char *format, const char *key, char *out, size_t cap,
	      struct err *e)
{
	static const char *const cols[] = { "key", "value", NULL };
	struct tsv_r t;
	int rc, found = 0;

	rc = tsv_r_open(&t, path, format, 1, cols, e);
	if (rc < 0)
		return rc;
	while ((rc = tsv_r_next(&t, e)) > 0) {
		if (strcmp(tsv_r_str(&t, tsv_r_col(&t, "key")), key) == 0) {
			snprintf(out, cap, "%s", tsv_r_str(&t, tsv_r_col(&t, "value")));
			found = 1;
		}
	}
	tsv_r_close(&t);
	return rc < 0 ? rc : found;
}

double
tsv_kv_positive(const char *path, const char *format, const char *key, double dflt)
{
	char v[64], *end;
	struct err e;
	double x;

	if (tsv_kv_lookup(path, format, key, v, sizeof v, &e) != 1)
		return dflt;
	x = strtod(v, &end);
	return end != v && *end == '\0' && x > 0 && isfinite(x) ? x : dflt;
}
