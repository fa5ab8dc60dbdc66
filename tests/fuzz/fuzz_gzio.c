/* fuzz_gzio: gzr (lib/gzio.h) over arbitrary bytes, plain or gzip, by lines, by reads and as a FILE. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/err.h"
#include "tests/fuzz/fuzz.h"
#include "lib/gzio.h"

/* The first byte picks how to read; the rest is the file. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = { { 0 }, 0 };
	struct gzr *r;
	uint8_t mode;	/* 0: lines, 1: reads of varying size, 2: FILE * */
	int fd;

	if (size < 1)
		return 0;
	mode = data[0] % 3;
	data++, size--;
	fd = memfd_create("fuzz_gzio", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	lseek(fd, 0, SEEK_SET);
	r = gzr_dopen(fd, "fuzz", &e);
	if (r == NULL)
		return 0;
	if (mode == 0) {
		char *line;
		size_t len;
		int rc;

		/* A small cap so the over-long-line path is reached. */
		while ((rc = gzr_line(r, &line, &len, 64, &e)) != 0) {
			if (rc == 1 && strlen(line) > len)
				__builtin_trap();	/* the NUL must end the line */
			if (rc < 0 && rc != -E_LIMIT)
				break;
		}
		gzr_close(r);
	} else if (mode == 1) {
		uint8_t buf[4096];
		size_t n = 1;	/* read size, grows so several sizes are used */
		long got;

		while ((got = gzr_read(r, buf, n, &e)) > 0) {
			if ((size_t)got > n)
				__builtin_trap();
			n = n * 3 % sizeof buf + 1;
		}
		gzr_close(r);
	} else {
		bool truncated = false;
		FILE *f = gzr_fopen(r, &truncated);
		char buf[512];

		if (f == NULL) {
			gzr_close(r);
			return 0;
		}
		while (fread(buf, 1, sizeof buf, f) > 0)
			;
		fclose(f);
	}
	return 0;
}
