/* fuzz_run: whole run directories. Each input is a list of damage operations applied to a
 * copy of traces/stencil-4ws (its samples as plain text); `contend parse` (cmd_parse, in a
 * child process so that its exit cannot end the fuzzer) reads the result. The check is the
 * rule of docs/parse.md: no crash or sanitizer report, and exit 0 only with the undamaged
 * run's ranks.tsv; and the profile of `-j 3` (rows and samples on threads) is the one of
 * `-j 1`, byte for byte, with the same exit status. Every operation makes damage parse can see, or none (an edit that writes
 * back the same value, a gzip header byte that holds no data).
 *
 * The child's coverage does not reach the fuzzer, so this target explores by mutation
 * alone; its worth is the oracle. Operations (4 bytes each, at most 4 per input):
 *   0 a sample field (rank b1%4, line, column) becomes "x", "-1", "" or "1e99"
 *   1 two sample lines of a rank swap places
 *   2 a rank meta file's rank becomes a small number
 *   3 a samples file is cut at a byte offset
 *   4 a byte of a gzip capture is overwritten
 *   5 a rank meta file's cpu_capacity becomes a number
 *   6 a sockets row's rank becomes a small number
 *   7 meta/run.tsv's nranks becomes a small number */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/fuzz/fuzz.h"

int cmd_parse(int argc, char **argv);

#define NR 4			/* ranks of the baseline run */
#define MAX_FILE (4u << 20)

struct file {
	char rel[64];		/* path in the run */
	char *data;		/* baseline bytes, owned */
	size_t len;
};

enum { F_RUN, F_META0, F_SOCK0 = F_META0 + NR, F_SAMP0 = F_SOCK0 + NR, F_CAP0 = F_SAMP0 + NR,
       F_N = F_CAP0 + NR };

static struct file base[F_N];
static char top[4096], dir[64], ref[1 << 16];
static size_t ref_len;

static char *
slurp(const char *path, size_t *n, int gz)
{
	char *p = malloc(MAX_FILE);
	size_t got = 0;

	if (gz) {
		gzFile g = gzopen(path, "rb");
		int k;

		if (g == NULL)
			abort();
		while ((k = gzread(g, p + got, (unsigned)(MAX_FILE - got))) > 0)
			got += (size_t)k;
		gzclose(g);
	} else {
		FILE *f = fopen(path, "rb");

		if (f == NULL)
			abort();
		got = fread(p, 1, MAX_FILE, f);
		fclose(f);
	}
	*n = got;
	return p;
}

static void
put(const char *rel, const char *p, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/run/%s", dir, rel);
	f = fopen(path, "wb");
	if (f == NULL || (n > 0 && fwrite(p, 1, n, f) != n))
		abort();
	fclose(f);
}

/* Run cmd_parse -j jobs on dir/run into dir/outname in a child: its exit status, or -1
 * for a crash or a sanitizer report (on stderr, kept in dir/err). */
static int
parse_child(const char *jobs, const char *outname)
{
	char out[128], run[128], errp[128];
	pid_t pid, k;
	int st;

	snprintf(out, sizeof out, "%s/%s", dir, outname);
	snprintf(run, sizeof run, "%s/run", dir);
	snprintf(errp, sizeof errp, "%s/err", dir);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		char *argv[] = { "parse", "-q", "-f", "-j", (char *)jobs, "-o", out, run, NULL };
		int fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(fd, 2);
		close(fd);
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		_exit(cmd_parse(8, argv));
	}
	/* libFuzzer's timer interrupts the wait */
	while ((k = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (k != pid || !WIFEXITED(st))
		return -1;
	{
		size_t n;
		char *e = slurp(errp, &n, 0);
		int bad;

		e[n < MAX_FILE ? n : MAX_FILE - 1] = '\0';
		bad = strstr(e, "Sanitizer") != NULL || strstr(e, "runtime error") != NULL;
		if (bad)
			fputs(e, stderr);
		free(e);
		if (bad)
			return -1;
	}
	return WEXITSTATUS(st);
}

/* ranks.tsv of the last parse, comment lines left out. */
static size_t
ranks(char *buf, size_t cap)
{
	char path[128], line[4096];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof path, "%s/out/ranks.tsv", dir);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (line[0] != '#' && n + strlen(line) < cap) {
			memcpy(buf + n, line, strlen(line));
			n += strlen(line);
		}
	fclose(f);
	return n;
}

static void
cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove '%s'\n", dir);
}

static void
setup(void)
{
	char exe[4096], src[4400], *s;
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	int rc;

	if (k <= 0)
		abort();
	exe[k] = '\0';
	/* BUILD/fuzz/fuzz_run -> the top directory, unless CONTEND_TOP says */
	if (getenv("CONTEND_TOP") != NULL) {
		snprintf(top, sizeof top, "%s", getenv("CONTEND_TOP"));
	} else {
		for (int i = 0; i < 3 && (s = strrchr(exe, '/')) != NULL; i++)
			*s = '\0';
		snprintf(top, sizeof top, "%s", exe);
	}
	snprintf(dir, sizeof dir, "/tmp/contend-fuzz-run-XXXXXX");
	if (mkdtemp(dir) == NULL)
		abort();
	atexit(cleanup);
	snprintf(src, sizeof src, "%s/run", dir);
	mkdir(src, 0700);
	for (const char *d = "meta\0sockets\0samples\0capture\0"; *d; d += strlen(d) + 1) {
		snprintf(src, sizeof src, "%s/run/%s", dir, d);
		mkdir(src, 0700);
	}
	snprintf(base[F_RUN].rel, sizeof base[0].rel, "meta/run.tsv");
	for (int r = 0; r < NR; r++) {
		snprintf(base[F_META0 + r].rel, sizeof base[0].rel, "meta/rank-%d.tsv", r);
		snprintf(base[F_SOCK0 + r].rel, sizeof base[0].rel, "sockets/rank-%d.tsv", r);
		snprintf(base[F_SAMP0 + r].rel, sizeof base[0].rel, "samples/rank-%d.tsv", r);
		snprintf(base[F_CAP0 + r].rel, sizeof base[0].rel, "capture/c3ws%d.pcap.gz", r + 1);
	}
	for (int i = 0; i < F_N; i++) {
		int gz = i >= F_SAMP0 && i < F_CAP0;

		if (gz)
			snprintf(src, sizeof src, "%s/traces/stencil-4ws/samples/rank-%d.tsv.gz", top,
				 i - F_SAMP0);
		else
			snprintf(src, sizeof src, "%s/traces/stencil-4ws/%s", top, base[i].rel);
		if (access(src, R_OK) != 0) {
			fprintf(stderr, "fuzz_run: no '%s' (set CONTEND_TOP)\n", src);
			exit(1);
		}
		base[i].data = slurp(src, &base[i].len, gz);
		put(base[i].rel, base[i].data, base[i].len);
	}
	rc = parse_child("1", "out");
	ref_len = ranks(ref, sizeof ref);
	if (rc != 0 || ref_len < 100) {
		fprintf(stderr, "fuzz_run: the undamaged run does not parse cleanly (exit %d)\n", rc);
		exit(1);
	}
}

/* Whether every file of the profile in dir/out is in dir/out3 with the same bytes. */
static int
same_profiles(void)
{
	static const char *const files[] = { "messages.tsv", "phases.tsv", "ranks.tsv", "links.tsv",
		"conns.tsv", "netparams.tsv", "coverage.tsv", "warnings.tsv", "stats.tsv", NULL };
	int same = 1;

	for (int i = 0; files[i] != NULL && same; i++) {
		char pa[128], pb[128];
		size_t na = 0, nb = 0;
		char *a, *b;
		int ha, hb;

		snprintf(pa, sizeof pa, "%s/out/%s", dir, files[i]);
		snprintf(pb, sizeof pb, "%s/out3/%s", dir, files[i]);
		ha = access(pa, R_OK) == 0;
		hb = access(pb, R_OK) == 0;
		if (ha != hb) {
			fprintf(stderr, "fuzz_run: %s written by one of -j 1 and -j 3 only\n", files[i]);
			return 0;
		}
		if (!ha)
			continue;
		a = slurp(pa, &na, 0);
		b = slurp(pb, &nb, 0);
		same = na == nb && memcmp(a, b, na) == 0;
		if (!same)
			fprintf(stderr, "fuzz_run: %s differs between -j 1 and -j 3\n", files[i]);
		free(a);
		free(b);
	}
	return same;
}

/* Start of line ln (0-based, wrapping) of f, and its length without '\n'. */
static char *
line_at(char *p, size_t len, unsigned ln, size_t *llen)
{
	unsigned nl = 0;
	char *s = p, *e;

	for (size_t i = 0; i < len; i++)
		nl += p[i] == '\n';
	if (nl == 0)
		return NULL;
	ln %= nl;
	while (ln-- > 0)
		s = memchr(s, '\n', (size_t)(p + len - s)) + 1;
	e = memchr(s, '\n', (size_t)(p + len - s));
	*llen = (size_t)(e - s);
	return s;
}

/* Replace line [s, s+ol) of *p (length *len) with n bytes of t. */
static void
replace_span(char **p, size_t *len, char *s, size_t ol, const char *t, size_t n)
{
	size_t off = (size_t)(s - *p);
	char *q = malloc(*len - ol + n + 1);

	memcpy(q, *p, off);
	memcpy(q + off, t, n);
	memcpy(q + off + n, *p + off + ol, *len - off - ol);
	free(*p);
	*p = q;
	*len = *len - ol + n;
}

/* Swap the lines at offsets o1 and o2 (lengths l1, l2) of f. */
static void
swap_lines(struct file *f, size_t o1, size_t l1, size_t o2, size_t l2)
{
	char *q = malloc(f->len + 1);
	size_t n = 0;

	if (o1 > o2) {
		size_t t = o1, tl = l1;

		o1 = o2, l1 = l2, o2 = t, l2 = tl;
	}
	memcpy(q, f->data, o1), n = o1;
	memcpy(q + n, f->data + o2, l2), n += l2;
	memcpy(q + n, f->data + o1 + l1, o2 - o1 - l1), n += o2 - o1 - l1;
	memcpy(q + n, f->data + o1, l1), n += l1;
	memcpy(q + n, f->data + o2 + l2, f->len - o2 - l2), n += f->len - o2 - l2;
	free(f->data);
	f->data = q;
	f->len = n;
}

/* Set the value of key k (a "key\tvalue" line) in a meta file. */
static void
set_key(char **p, size_t *len, const char *k, const char *v)
{
	size_t kl = strlen(k), ll;
	unsigned nl = 0;

	for (size_t i = 0; i < *len; i++)
		nl += (*p)[i] == '\n';
	for (unsigned ln = 0; ln < nl; ln++) {
		char *s = line_at(*p, *len, ln, &ll), line[256];

		if (ll > kl && memcmp(s, k, kl) == 0 && s[kl] == '\t') {
			int n = snprintf(line, sizeof line, "%s\t%s", k, v);

			replace_span(p, len, s, ll, line, (size_t)n);
			return;
		}
	}
}

/* Replace field col (0-based) of the line [s, s+ll) with t. */
static void
set_field(char **p, size_t *len, char *s, size_t ll, unsigned col, const char *t)
{
	char line[4096], out[4200];
	char *f[32];
	int nf = 0;
	size_t o = 0;

	if (ll >= sizeof line || s[0] == '#')
		return;
	memcpy(line, s, ll);
	line[ll] = '\0';
	for (char *c = line; nf < 32;) {
		f[nf++] = c;
		c = strchr(c, '\t');
		if (c == NULL)
			break;
		*c++ = '\0';
	}
	col %= (unsigned)nf;
	for (int i = 0; i < nf; i++)
		o += (size_t)snprintf(out + o, sizeof out - o, "%s%s", i ? "\t" : "",
				      i == (int)col ? t : f[i]);
	replace_span(p, len, s, ll, out, o);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const tokens[] = { "x", "-1", "", "1e99" };
	struct file cur[F_N];
	char got[1 << 16];
	size_t got_len;
	int rc;

	if (top[0] == '\0')
		setup();
	for (int i = 0; i < F_N; i++) {
		cur[i] = base[i];
		cur[i].data = malloc(base[i].len + 1);
		memcpy(cur[i].data, base[i].data, base[i].len);
	}
	for (size_t k = 0; k + 4 <= size && k < 16; k += 4) {
		unsigned op = data[k] & 7, r = (data[k] >> 3) % NR;
		unsigned v = (unsigned)data[k + 1] << 8 | data[k + 2], b = data[k + 3];
		struct file *f;
		size_t ll, ll2;
		char *s, *s2, num[32];

		switch (op) {
		case 0:	/* a sample field; lines 0-2 are the header */
			f = &cur[F_SAMP0 + r];
			s = line_at(f->data, f->len, 3 + v, &ll);
			if (s != NULL && (b >> 2) % 11 != 4)	/* column 4, state, is not read */
				set_field(&f->data, &f->len, s, ll, (b >> 2) % 11, tokens[b & 3]);
			break;
		case 1:	/* swap two sample lines */
			f = &cur[F_SAMP0 + r];
			s = line_at(f->data, f->len, 3 + v, &ll);
			s2 = line_at(f->data, f->len, 3 + v + 1 + b, &ll2);
			if (s != NULL && s2 != NULL && s != s2)
				swap_lines(f, (size_t)(s - f->data), ll, (size_t)(s2 - f->data), ll2);
			break;
		case 2:
			snprintf(num, sizeof num, "%d", (int)(int8_t)b);
			set_key(&cur[F_META0 + r].data, &cur[F_META0 + r].len, "rank", num);
			break;
		case 3:	/* cut a samples file */
			f = &cur[F_SAMP0 + r];
			if (f->len > 0)
				f->len = ((size_t)v << 8 | b) % f->len;
			break;
		case 4:	/* one byte of a capture */
			f = &cur[F_CAP0 + r];
			if (f->len > 0)
				f->data[((size_t)v << 8 | (size_t)(data[k] >> 5)) % f->len] = (char)b;
			break;
		case 5:
			snprintf(num, sizeof num, "%u.%03u", b % 3, v % 1000);
			set_key(&cur[F_META0 + r].data, &cur[F_META0 + r].len, "cpu_capacity", num);
			break;
		case 6:	/* a sockets row's rank (column 1) */
			f = &cur[F_SOCK0 + r];
			s = line_at(f->data, f->len, 2 + v, &ll);
			snprintf(num, sizeof num, "%d", (int)(int8_t)b);
			if (s != NULL)
				set_field(&f->data, &f->len, s, ll, 1, num);
			break;
		default:
			snprintf(num, sizeof num, "%d", (int)(int8_t)b);
			set_key(&cur[F_RUN].data, &cur[F_RUN].len, "nranks", num);
			break;
		}
	}
	for (int i = 0; i < F_N; i++) {
		put(cur[i].rel, cur[i].data, cur[i].len);
		free(cur[i].data);
	}
	rc = parse_child("1", "out");
	if (getenv("FUZZ_RUN_VERBOSE") != NULL)
		fprintf(stderr, "fuzz_run: parse exit %d\n", rc);
	if (rc < 0)
		__builtin_trap();	/* a crash or a sanitizer report (printed above) */
	if (parse_child("3", "out3") != rc || !same_profiles()) {
		fprintf(stderr, "fuzz_run: -j 3 gave another exit status or profile than -j 1\n");
		__builtin_trap();
	}
	if (rc == 0) {
		got_len = ranks(got, sizeof got);
		if (got_len != ref_len || memcmp(got, ref, ref_len) != 0) {
			fprintf(stderr, "fuzz_run: exit 0 with numbers unlike the undamaged run's\n");
			__builtin_trap();
		}
	}
	return 0;
}
