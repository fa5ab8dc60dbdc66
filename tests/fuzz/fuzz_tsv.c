/* fuzz_tsv: the TSV reader (lib/tsv.h) over arbitrary bytes, every field parsed every way. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/err.h"
#include "tests/fuzz/fuzz.h"
#include "lib/tsv.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const required[] = { "a", NULL };
	struct err e = { { 0 }, 0 };
	struct tsv_r t;
	char path[64];
	int fd = memfd_create("fuzz_tsv", MFD_CLOEXEC);
	int rc;
	int rows = 0;	/* bounds the work per input */

	if (fd < 0)
		return 0;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (tsv_r_open(&t, path, "fuzz", 2, required, &e) < 0) {
		close(fd);
		return 0;
	}
	if (t.ncols < 1 || t.ncols > TSV_MAX_COLS || t.version < 1 || t.version > 2)
		__builtin_trap();
	while ((rc = tsv_r_next(&t, &e)) != 0 && rows++ < 100000) {
		if (rc < 0) {
			if (rc == -E_IO || rc == -E_TRUNC)
				break;
			continue;	/* a damaged row: counted by real readers, skipped */
		}
		for (int c = -1; c <= t.ncols; c++) {
			int64_t i;
			uint64_t u;
			double d;
			const char *s;

			(void)tsv_r_i64(&t, c, &i, &e);
			(void)tsv_r_u64(&t, c, &u, &e);
			(void)tsv_r_f64(&t, c, &d, &e);
			s = tsv_r_str(&t, c);
			if (s == NULL)
				__builtin_trap();
			if (c >= 0 && c < t.ncols && strlen(s) > strlen(t.fields[c]))
				__builtin_trap();	/* unescaping never lengthens */
		}
	}
	tsv_r_close(&t);
	close(fd);
	return 0;
}
