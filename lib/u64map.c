/* u64map: a hash from 64-bit keys to indices (see u64map.h). */
#include "lib/u64map.h"

#include <stdlib.h>

#include "lib/err.h"
#include "lib/xalloc.h"

/* splitmix64's finalizer: every bit of the key moves the slot (rank pairs differ in a few
 * low bits of each half). */
static size_t
slot_of(uint64_t k, size_t cap)
{
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebULL;
	k ^= k >> 31;
	return (size_t)k & (cap - 1);
}

/* The slot of key, or the empty slot where it would go. The table is never full. */
static size_t
find(const struct u64map *m, uint64_t key)
{
	size_t i = slot_of(key, m->cap);

	while (m->val[i] >= 0 && m->key[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void
grow(struct u64map *m)
{
	struct u64map g = { .cap = m->cap > 0 ? m->cap : 8 };

	if (!size_mul_ok(g.cap, 2, &g.cap))
		BUG("u64map of %zu slots", m->cap);
	g.key = xmallocarray(g.cap, sizeof *g.key);
	g.val = xmallocarray(g.cap, sizeof *g.val);
	for (size_t i = 0; i < g.cap; i++)
		g.val[i] = -1;
	for (size_t i = 0, j; i < m->cap; i++) {
		if (m->val[i] < 0)
			continue;
		j = find(&g, m->key[i]);
		g.key[j] = m->key[i];
		g.val[j] = m->val[i];
	}
	g.n = m->n;
	u64map_release(m);
	*m = g;
}

long
u64map_get(const struct u64map *m, uint64_t key)
{
	return m->cap > 0 ? m->val[find(m, key)] : -1;
}

long
u64map_put(struct u64map *m, uint64_t key, long val)
{
	size_t i;

	if (val < 0)
		BUG("u64map value %ld", val);
	if (2 * (m->n + 1) > m->cap)
		grow(m);
	i = find(m, key);
	if (m->val[i] >= 0)
		return m->val[i];
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
	return val;
}

void
u64map_release(struct u64map *m)
{
	free(m->key);
	free(m->val);
	*m = (struct u64map)U64MAP_INIT;
}
