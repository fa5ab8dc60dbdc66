/* pdf: joining the report's pages and rasterising a PDF page, with poppler-utils
 * (pdfunite, pdftoppm) run through report/spawn.h, never through a shell. */
#ifndef REPORT_PDF_H
#define REPORT_PDF_H

#include "lib/err.h"

#define PDF_MAX_PAGES 64	/* inputs to one join */

/* Join the n PDF files in into out (written as out.tmp, then renamed over out). Returns 0, or
 * negative with e set (-E_USAGE too many inputs, -E_IO pdfunite missing or failing). */
int pdf_join(const char *const *in, int n, const char *out, struct err *e) WUR;
/* Render the first page of pdf to png_path at dpi. Returns 0, or negative with e set. */
int pdf_to_png(const char *pdf, const char *png_path, int dpi, struct err *e) WUR;
/* Copy a file. Returns 0, or -E_IO with e set. */
int pdf_copy(const char *from, const char *to, struct err *e) WUR;

#endif
