/* plot: gnuplot driven through a pipe, with every outside string quoted. */
#include "report/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fsutil.h"
#include "report/spawn.h"

void
plot_init(struct plot *p)
{
	buf_init(&p->body, PLOT_BODY_MAX);
	p->failed = 0;
	p->what[0] = '\0';
}

void
plot_release(struct plot *p)
{
	buf_release(&p->body);
	p->failed = 0;
}

static void
plot_fail(struct plot *p, int code, const char *what)
{
	if (p->failed == 0) {
		p->failed = -code;
		snprintf(p->what, sizeof p->what, "%s", what);
	}
}

/* Bytes of one UTF-8 sequence starting with c (1 for anything not a lead byte). */
static size_t
utf8_len(unsigned char c)
{
	if (c >= 0xf0 && c < 0xf8)
		return 4;
	if (c >= 0xe0)
		return c < 0xf0 ? 3 : 1;
	if (c >= 0xc0)
		return 2;
	return 1;
}

char *
plot_clean(char *dst, size_t cap, const char *s)
{
	size_t o = 0;

	if (cap == 0)
		return dst;
	for (size_t i = 0; s != NULL && s[i] != '\0';) {
		unsigned char c = (unsigned char)s[i];
		size_t n = utf8_len(c);

		if (c < 0x20 || c == 0x7f) {
			c = ' ';
			n = 1;
			if (o + 1 >= cap)
				break;
			dst[o++] = (char)c;
			i++;
			continue;
		}
		if (strnlen(s + i, n) < n)
			n = 1;
		if (o + n >= cap)
			break;
		memcpy(dst + o, s + i, n);
		o += n;
		i += n;
	}
	dst[o] = '\0';
	return dst;
}

/* U+2019 RIGHT SINGLE QUOTATION MARK stands in for an apostrophe: gnuplot 5.4's scanner
 * does not read doubled quotes reliably (a string starting with a doubled quote, or two
 * doubled quotes in a row, ends early), so a quoted string never holds a single quote. */
#define APOSTROPHE "\xe2\x80\x99"

static char *
quote(char *dst, size_t cap, const char *s, bool tic)
{
	size_t o = 0;

	if (cap < 3) {
		if (cap > 0)
			dst[0] = '\0';
		return dst;
	}
	dst[o++] = '\'';
	for (size_t i = 0; s != NULL && s[i] != '\0';) {
		unsigned char c = (unsigned char)s[i];
		size_t n = utf8_len(c);	/* input bytes of this character */
		const char *out = s + i;	/* what is written for it */
		size_t w;		/* output bytes */

		if (c < 0x20 || c == 0x7f) {
			out = " ";
			n = 1;
		} else if (strnlen(s + i, n) < n) {
			n = 1;
		}
		w = n;
		if (c == '\'') {
			out = APOSTROPHE;
			w = 3;
		} else if (tic && c == '%') {
			out = "%%";
			w = 2;
		}
		if (o + w + 2 > cap)	/* room for the closing quote and the NUL */
			break;
		memcpy(dst + o, out, w);
		o += w;
		i += n;
	}
	dst[o++] = '\'';
	dst[o] = '\0';
	return dst;
}

char *
plot_quote(char *dst, size_t cap, const char *s)
{
	return quote(dst, cap, s, false);
}

char *
plot_quote_tic(char *dst, size_t cap, const char *s)
{
	return quote(dst, cap, s, true);
}

static void PRINTF(2, 0)
vappend(struct plot *p, const char *fmt, va_list ap)
{
	char small[512];	/* most lines fit */
	va_list ap2;
	int n;

	if (p->failed)
		return;
	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0) {
		plot_fail(p, E_USAGE, "a command could not be formatted");
	} else if ((size_t)n < sizeof small) {
		if (buf_add(&p->body, small, (size_t)n) < 0)
			plot_fail(p, E_LIMIT, "the figure passed its size limit");
	} else {
		char *big = malloc((size_t)n + 1);

		if (big == NULL) {
			plot_fail(p, E_LIMIT, "out of memory");
		} else {
			vsnprintf(big, (size_t)n + 1, fmt, ap2);
			if (buf_add(&p->body, big, (size_t)n) < 0)
				plot_fail(p, E_LIMIT, "the figure passed its size limit");
			free(big);
		}
	}
	va_end(ap2);
}

static void
append(struct plot *p, const char *s)
{
	if (!p->failed && buf_add(&p->body, s, strlen(s)) < 0)
		plot_fail(p, E_LIMIT, "the figure passed its size limit");
}

void
plot_cmd(struct plot *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vappend(p, fmt, ap);
	va_end(ap);
	append(p, "\n");
}

void
plot_table_begin(struct plot *p)
{
	plot_cmd(p, "unset border");
	plot_cmd(p, "unset tics");
	plot_cmd(p, "unset key");
}

void
plot_table_end(struct plot *p)
{
	plot_cmd(p, "plot [0:1][0:1] NaN notitle");
}

void
plot_table_row(struct plot *p, double y, const double *x, const char *const *cells, int n,
	       int nleft, bool head, int font_pt)
{
	char q[PLOT_Q_MAX];

	for (int i = 0; i < n; i++)
		plot_cmd(p, "set label %s at screen %.4f,%.4f %s font 'Sans%s,%d'",
			 plot_quote(q, sizeof q, cells[i]), x[i], y, i < nleft ? "left" : "right",
			 head ? " Bold" : "", font_pt);
}

void
plot_table_rule(struct plot *p, double x0, double x1, double y)
{
	plot_cmd(p, "set arrow from screen %.4f,%.4f to screen %.4f,%.4f nohead lw 0.8", x0, y, x1, y);
}

void
plot_begin_data(struct plot *p, const char *name)
{
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			plot_fail(p, E_USAGE, "a datablock name is not a plain word");
	plot_cmd(p, "$%s << EOD", name);
}

void
plot_row(struct plot *p, const char *fmt, ...)
{
	char line[1024];	/* one row */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line) {
		plot_fail(p, E_USAGE, "a data row is too long");
		return;
	}
	for (const char *c = line; *c; c++)
		if (strchr("0123456789.+-eEnaifNIF \t", *c) == NULL) {
			plot_fail(p, E_USAGE, "a data row holds something other than numbers");
			return;
		}
	append(p, line);
	append(p, "\n");
}

void
plot_blank(struct plot *p)
{
	append(p, "\n");
}

void
plot_end_data(struct plot *p)
{
	append(p, "EOD\n");
}

const char *
plot_program(void)
{
	const char *g = getenv("CONTEND_GNUPLOT");

	return g != NULL && *g != '\0' ? g : "gnuplot";
}

/* One gnuplot run writing the PDF and, when png_path is non-NULL, the PNG: the body is sent
 * once per terminal with `reset session` between. gnuplot writes into a private directory
 * under names of our making (the real paths may hold quotes or anything else gnuplot cannot
 * take), and the files are moved into place afterwards. */
int
plot_render(struct plot *p, const char *pdf_path, const char *png_path, struct err *e)
{
	static const char *const terms[2] = { "pdfcairo", "pngcairo" };
	static const char *const sizes[2] = { PLOT_PDF_SIZE, PLOT_PNG_SIZE };
	const char *paths[2] = { pdf_path, png_path };
	char *argv[] = { (char *)plot_program(), NULL };
	char tmpdir[] = "/tmp/contend-plot-XXXXXX";	/* no quote can be in this name */
	char tmpfile[2][64];
	int nout = png_path != NULL ? 2 : 1;
	struct spawn s;
	int rc;

	if (p->failed)
		return err_set(e, -p->failed, "building '%s': %s", pdf_path, p->what);
	if (mkdtemp(tmpdir) == NULL)
		return err_sys(e, E_IO, "cannot create a directory in '/tmp' for drawing '%s'", pdf_path);
	rc = spawn_start(&s, argv, true, e);
	if (rc < 0) {
		rmdir(tmpdir);
		err_prefix(e, "gnuplot is needed for the report (install gnuplot or set CONTEND_GNUPLOT)");
		return rc;
	}
	for (int i = 0; i < nout && rc == 0; i++) {
		char head[512];		/* terminal and output lines */
		char q[128];
		int n;

		snprintf(tmpfile[i], sizeof tmpfile[i], "%s/figure%d", tmpdir, i);
		n = snprintf(head, sizeof head, "%sset terminal %s noenhanced size %s font 'Sans,10' linewidth 1.2\n"
			     "set output %s\nset encoding utf8\n", i ? "unset output\nreset session\n" : "",
			     terms[i], sizes[i], plot_quote(q, sizeof q, tmpfile[i]));
		rc = spawn_write(&s, head, (size_t)n, e);
		if (rc == 0)
			rc = spawn_write(&s, p->body.data, p->body.len, e);
	}
	if (rc == 0)
		rc = spawn_write(&s, "\nunset output\nexit\n", 19, e);
	{
		struct err we;	/* gnuplot's own failure says more than a broken pipe */
		int wrc = spawn_wait(&s, &we);

		if (wrc < 0) {
			if (e != NULL)
				*e = we;
			rc = wrc;
		}
	}
	for (int i = 0; i < nout; i++) {
		if (rc == 0 && access(tmpfile[i], F_OK) != 0)
			rc = err_set(e, E_IO, "'%s' wrote nothing", plot_program());
		if (rc == 0)
			rc = fs_move_file(tmpfile[i], paths[i], e);
		unlink(tmpfile[i]);
	}
	rmdir(tmpdir);
	if (rc < 0)
		err_prefix(e, "drawing '%s'", pdf_path);
	return rc;
}
