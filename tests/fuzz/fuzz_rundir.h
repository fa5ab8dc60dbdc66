/* fuzz_rundir: a scratch run directory for the fuzz targets that read whole files by name
 * (the rank meta and sockets readers take the rank from the file name). */
#ifndef TESTS_FUZZ_FUZZ_RUNDIR_H
#define TESTS_FUZZ_FUZZ_RUNDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_dir[64];

static void
fuzz_rundir_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir);
	if (fuzz_dir[0] != '\0' && system(cmd) != 0)
		fprintf(stderr, "cannot remove '%s'\n", fuzz_dir);
}

/* A directory made once per process (removed at exit), with meta/ and sockets/. */
static const char *
fuzz_rundir(void)
{
	char *dir = fuzz_dir;

	if (dir[0] == '\0') {
		char sub[96];

		snprintf(dir, sizeof fuzz_dir, "/tmp/contend-fuzz-XXXXXX");
		if (mkdtemp(dir) == NULL)
			abort();
		atexit(fuzz_rundir_remove);
		snprintf(sub, sizeof sub, "%s/meta", dir);
		mkdir(sub, 0700);
		snprintf(sub, sizeof sub, "%s/sockets", dir);
		mkdir(sub, 0700);
	}
	return dir;
}

/* Write n bytes to rundir/rel; 0 or -1. */
static int
fuzz_put(const char *rel, const void *p, size_t n)
{
	char path[160];
	FILE *f;
	int ok;

	snprintf(path, sizeof path, "%s/%s", fuzz_rundir(), rel);
	f = fopen(path, "wb");
	if (f == NULL)
		return -1;
	ok = n == 0 || fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

#endif
