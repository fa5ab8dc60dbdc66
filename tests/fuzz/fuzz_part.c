/* fuzz_part: the merge of a part (parse/part.h) over arbitrary files. The input is split
 * at the first two lines "====" into the part's stats.tsv, conns.tsv and msgs.bin, which are
 * merged twice (the second time every connection is a duplicate of the first's, whose
 * message times the first merge takes: part_merge_twins). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/err.h"
#include "parse/part.h"
#include "tests/fuzz/fuzz.h"

static void
on_msg(void *ctx, const struct msg *m)
{
	(void)ctx;
	if (m->conn < 0 || m->mpi > MSG_MPICH || m->proto > PROTO_CTRL)
		__builtin_trap();	/* the merge checks every value */
}

static void
on_conn(void *ctx, const struct flows_conn *k)
{
	(void)ctx;
	if (k->kind == NULL || k->conn < 0)
		__builtin_trap();
}

static void
on_warn(void *ctx, const char *m)
{
	(void)ctx;
	(void)m;
}

static void
put(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/p.%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL)
		abort();
	if (n > 0 && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[] = "/tmp/fuzz_part.XXXXXX";
	static bool made;
	static const char sep[] = "\n====\n";
	const uint8_t *cut[2] = { NULL, NULL }, *p = data, *end = data + size;
	struct flows_cb cb = { on_msg, on_conn, NULL, NULL };
	struct part_merge *m;
	struct err e;
	char *names[2] = { "p", "p" };

	if (!made) {
		if (mkdtemp(dir) == NULL)
			abort();
		made = true;
	}
	for (int i = 0; i < 2; i++) {
		cut[i] = memmem(p, (size_t)(end - p), sep, sizeof sep - 1);
		if (cut[i] == NULL)
			return 0;
		p = cut[i] + sizeof sep - 1;
	}
	put(dir, "stats.tsv", data, (size_t)(cut[0] - data) + 1);
	put(dir, "conns.tsv", cut[0] + sizeof sep - 1, (size_t)(cut[1] - cut[0]) - (sizeof sep - 1) + 1);
	put(dir, "msgs.bin", cut[1] + sizeof sep - 1, (size_t)(end - cut[1]) - (sizeof sep - 1));
	m = part_merge_new(&cb, NULL, on_warn);
	part_merge_twins(m, dir, names, 2);
	(void)part_merge_add(m, dir, "p", &e);
	(void)part_merge_add(m, dir, "p", &e);
	part_merge_free(m);
	return 0;
}
