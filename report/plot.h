/* plot: the one module that talks to gnuplot, through a pipe (fork/exec, no shell).
 *
 * A figure is built as a body of gnuplot commands and inline datablocks in memory, then
 * sent to a fresh gnuplot once per output (pdfcairo, then pngcairo), and gnuplot's exit
 * status is checked, its stderr becoming the error message. Nothing is written to a
 * temporary script.
 *
 * Safety: every string that comes from a run (host names, file names, titles, labels) enters
 * a command only through plot_quote, which makes a gnuplot single-quoted string holding no
 * single quote at all (an apostrophe becomes U+2019: gnuplot 5.4 does not read doubled
 * quotes reliably, so doubling is not safe), newlines and other control characters become
 * spaces, the length is capped. gnuplot does not expand backticks or @macros inside single
 * quotes (tests/unit/test_plot.c checks it against the installed gnuplot), and the
 * terminals are set `noenhanced` so that no text is read as markup. Datablock rows hold
 * numbers only (plot_row refuses anything else), so no row can end a datablock early.
 *
 * gnuplot is `gnuplot` found in PATH, or the program named by CONTEND_GNUPLOT. Writing to a
 * gnuplot that died raises SIGPIPE: callers ignore SIGPIPE. */
#ifndef REPORT_PLOT_H
#define REPORT_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/buf.h"
#include "lib/err.h"

#define PLOT_BODY_MAX (64u << 20)	/* bytes of commands and data per figure */
#define PLOT_Q_MAX 512			/* a quoted string, quotes and NUL included */

struct plot {
	struct buf body;	/* the figure's commands and datablocks */
	int failed;		/* sticky: the body hit PLOT_BODY_MAX or a row was refused */
	char what[128];		/* what failed first */
};

/* Page size of every figure: landscape 10 x 7 in (PDF), 1000 x 700 px (PNG). */
#define PLOT_PDF_SIZE "10in,7in"
#define PLOT_PNG_SIZE "1000,700"

void plot_init(struct plot *p);
void plot_release(struct plot *p);	/* accepts a zeroed struct; reusable after plot_init */

/* Quote s as a gnuplot single-quoted string into dst (cap bytes, at least 3): returns dst.
 * The result holds exactly two single quotes, the outer ones. NULL quotes as ''. Longer
 * text is cut on a character boundary. Cannot fail. */
char *plot_quote(char *dst, size_t cap, const char *s);
/* As plot_quote, for a tic label: gnuplot reads a tic label as a printf format for the
 * tic's value, so '%' is doubled as well. Use it in `set xtics ('label' x)`. */
char *plot_quote_tic(char *dst, size_t cap, const char *s);
/* Write s into dst (cap bytes) as plain text safe for a title: control characters become
 * spaces, cut to fit. For building a string that is then passed through plot_quote. */
char *plot_clean(char *dst, size_t cap, const char *s);

/* Append one command line (a newline is added). fmt is our own constant text; any string
 * from outside must come in as a %s argument made by plot_quote. Errors are sticky. */
void plot_cmd(struct plot *p, const char *fmt, ...) PRINTF(2, 3);
/* Start the datablock $name (name: letters, digits, '_'); end it with plot_end_data. */
void plot_begin_data(struct plot *p, const char *name);
/* One row of numbers (fmt of %d/%g/%.3f... only); a row holding anything but numbers,
 * "nan", "inf" and blanks is refused (sticky error). */
void plot_row(struct plot *p, const char *fmt, ...) PRINTF(2, 3);
void plot_end_data(struct plot *p);
/* An empty line in the current datablock (separates blocks for `index`/`every`). */
void plot_blank(struct plot *p);

/* Text tables: a page of labels placed at screen coordinates, with no axes.
 * plot_table_begin hides border, tics and key; plot_table_end adds the empty plot that makes
 * gnuplot draw the labels (call it last). */
void plot_table_begin(struct plot *p);
void plot_table_end(struct plot *p);
/* One row of n cells at screen height y: cell i at screen x[i], left-aligned for i < nleft,
 * right-aligned after; bold when head; font_pt the size. Cells are text from anywhere: they
 * are quoted here (plot_quote). */
void plot_table_row(struct plot *p, double y, const double *x, const char *const *cells, int n,
		    int nleft, bool head, int font_pt);
/* A horizontal rule at screen height y from screen x0 to x1. */
void plot_table_rule(struct plot *p, double x0, double x1, double y);

/* Render the body to pdf_path (pdfcairo) and, when png_path is non-NULL, to png_path
 * (pngcairo), each in its own gnuplot run. Returns 0, or negative with e set: -E_LIMIT or
 * -E_USAGE for a body that failed to build, -E_IO when gnuplot cannot be run or fails
 * (its first error line in the message). */
int plot_render(struct plot *p, const char *pdf_path, const char *png_path, struct err *e) WUR;

/* The gnuplot program used (CONTEND_GNUPLOT or "gnuplot"). */
const char *plot_program(void);

#endif
