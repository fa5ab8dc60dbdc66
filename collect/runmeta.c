/* runmeta: the run directory's key/value files, written atomically and read with distrust. */
#include "collect/runmeta.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/tsv.h"
#include "lib/xalloc.h"

static const char *const meta_cols[] = { "key", "value", NULL };

void
runmeta_init(struct runmeta *m)
{
	memset(m, 0, sizeof *m);
}

static void
set_owned(struct runmeta *m, const char *key, char *val)
{
	for (size_t i = 0; i < m->n; i++) {
		if (strcmp(m->kv[i].key, key) == 0) {
			free(m->kv[i].val);
			m->kv[i].val = val;
			return;
		}
	}
	if (m->n >= RUNMETA_MAX_KEYS) {
		m->dropped++;
		free(val);
		return;
	}
	m->kv = xgrow(m->kv, &m->cap, m->n + 1, sizeof *m->kv);
	m->kv[m->n].key = xstrdup(key);
	m->kv[m->n].val = val;
	m->n++;
}

void
runmeta_set(struct runmeta *m, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	set_owned(m, key, s);
}

void
runmeta_set_i64(struct runmeta *m, const char *key, int64_t v)
{
	runmeta_set(m, key, "%lld", (long long)v);
}

const char *
runmeta_get(const struct runmeta *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->kv[i].key, key) == 0)
			return m->kv[i].val;
	return NULL;
}

int
runmeta_get_i64(const struct runmeta *m, const char *key, int64_t *v)
{
	const char *s = runmeta_get(m, key);
	char *end;
	long long x;

	if (s == NULL)
		return -E_FORMAT;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || end == s || *end != '\0')
		return -E_FORMAT;
	*v = x;
	return 0;
}

int
runmeta_write(const struct runmeta *m, const char *path, bool excl, struct err *e)
{
	struct tsv_w t;
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int rc;

	if (excl && access(path, F_OK) == 0) {
		errno = EEXIST;
		rc = err_sys(e, E_IO, "cannot create '%s'", path);
		free(tmp);
		return rc;
	}
	rc = tsv_w_open(&t, tmp, "meta", 1, meta_cols, false, true, e);
	if (rc < 0) {
		free(tmp);
		return rc;
	}
	for (size_t i = 0; i < m->n && rc == 0; i++) {
		tsv_w_str(&t, m->kv[i].key);
		tsv_w_str(&t, m->kv[i].val);
		rc = tsv_w_end(&t, e);
	}
	if (tsv_w_close(&t, rc ? NULL : e) < 0 && rc == 0)
		rc = e ? e->code : -E_IO;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = err_sys(e, E_IO, "cannot rename '%s' to '%s'", tmp, path);
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

int
runmeta_read(struct runmeta *m, const char *path, struct err *e)
{
	struct tsv_r t;
	int rc;

	runmeta_init(m);
	rc = tsv_r_open(&t, path, "meta", 1, meta_cols, e);
	if (rc < 0)
		return rc;
	while ((rc = tsv_r_next(&t, e)) == 1) {
		char *key = xstrdup(tsv_r_str(&t, 0));

		set_owned(m, key, xstrdup(tsv_r_str(&t, 1)));
		free(key);
	}
	tsv_r_close(&t);
	return rc < 0 ? rc : 0;
}

void
runmeta_release(struct runmeta *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->kv[i].key);
		free(m->kv[i].val);
	}
	free(m->kv);
	runmeta_init(m);
}

void
runmeta_safe_name(const char *in, char *out, size_t outlen)
{
	size_t j = 0;

	if (outlen == 0)
		return;
	for (size_t i = 0; in[i] != '\0' && j + 1 < outlen; i++) {
		char c = in[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';

		out[j++] = ok ? c : '_';
	}
	if (j == 0 || (j == 1 && out[0] == '.') || (j == 2 && out[0] == '.' && out[1] == '.')) {
		snprintf(out, outlen, "unknown");
		return;
	}
	out[j] = '\0';
}
