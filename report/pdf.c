/* pdf: pdfunite and pdftoppm for the report, exec'd without a shell. */
#include "report/pdf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xalloc.h"
#include "lib/fsutil.h"
#include "report/spawn.h"

int
pdf_join(const char *const *in, int n, const char *out, struct err *e)
{
	char *argv[PDF_MAX_PAGES + 3];
	char *tmp;
	int rc;

	if (n < 1 || n > PDF_MAX_PAGES)
		return err_set(e, E_USAGE, "cannot join %d pages into '%s'", n, out);
	tmp = xasprintf("%s.tmp", out);
	argv[0] = (char *)"pdfunite";
	for (int i = 0; i < n; i++)
		argv[i + 1] = (char *)in[i];
	argv[n + 1] = tmp;
	argv[n + 2] = NULL;
	if (n == 1)
		rc = pdf_copy(in[0], tmp, e);
	else
		rc = spawn_run(argv, e);
	if (rc == 0 && rename(tmp, out) < 0)
		rc = err_sys(e, E_IO, "cannot rename '%s' to '%s'", tmp, out);
	if (rc < 0) {
		unlink(tmp);
		err_prefix(e, "joining the pages of '%s' (pdfunite, from poppler-utils)", out);
	}
	free(tmp);
	return rc;
}

int
pdf_to_png(const char *pdf, const char *png_path, int dpi, struct err *e)
{
	char res[16];
	size_t len = strlen(png_path);
	char *stem;
	int rc;

	if (len < 5 || strcmp(png_path + len - 4, ".png") != 0)
		return err_set(e, E_USAGE, "'%s' does not end in .png", png_path);
	stem = xstrndup(png_path, len - 4);
	snprintf(res, sizeof res, "%d", dpi);
	{
		char *argv[] = { (char *)"pdftoppm", (char *)"-png", (char *)"-singlefile", (char *)"-r", res,
				 (char *)pdf, stem, NULL };

		rc = spawn_run(argv, e);
	}
	free(stem);
	if (rc < 0)
		err_prefix(e, "drawing '%s' (pdftoppm, from poppler-utils)", png_path);
	return rc;
}

int
pdf_copy(const char *from, const char *to, struct err *e)
{
	return fs_copy_file(from, to, e);
}
