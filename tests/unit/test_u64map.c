/* test_u64map: the hash from 64-bit keys to indices (lib/u64map.h). */
#include "lib/u64map.h"

#include "tests/unit/check.h"

/* Rank pairs as explain keys them: (src << 32) | dst. */
static uint64_t
pair(uint32_t s, uint32_t d)
{
	return (uint64_t)s << 32 | d;
}

TEST(empty_map_has_nothing)
{
	struct u64map m = U64MAP_INIT;

	CHECK(u64map_get(&m, 0) == -1);
	CHECK(u64map_get(&m, UINT64_MAX) == -1);
	u64map_release(&m);
	u64map_release(&m);
	CHECK(m.cap == 0);
	CHECK(m.n == 0);
}

/* Every pair of 300 ranks (90 000 keys, the table doubled many times): each keeps the
 * value it was first put with, a second put returns it and changes nothing, and keys
 * never put are absent. */
TEST(every_rank_pair_keeps_its_first_value)
{
	struct u64map m = U64MAP_INIT;
	long next = 0;
	int bad = 0;

	for (uint32_t s = 0; s < 300; s++)
		for (uint32_t d = 0; d < 300; d++, next++)
			bad += u64map_put(&m, pair(s, d), next) != next;
	CHECK(bad == 0);
	CHECK(m.n == 90000);
	CHECK(m.cap >= 2 * m.n);
	for (uint32_t s = 0; s < 300; s++)
		for (uint32_t d = 0; d < 300; d++) {
			long want = (long)s * 300 + d;

			bad += u64map_get(&m, pair(s, d)) != want;
			bad += u64map_put(&m, pair(s, d), 7) != want;
		}
	CHECK(bad == 0);
	CHECK(m.n == 90000);
	CHECK(u64map_get(&m, pair(300, 0)) == -1);
	CHECK(u64map_get(&m, pair(0, 300)) == -1);
	CHECK(u64map_get(&m, UINT64_MAX) == -1);
	u64map_release(&m);
	CHECK(m.cap == 0);
	CHECK(m.n == 0);
	CHECK(u64map_get(&m, 0) == -1);
}

/* Keys that agree in their low bits (a stride of 2^32) still spread and are told apart. */
TEST(keys_alike_in_low_bits)
{
	struct u64map m = U64MAP_INIT;
	int bad = 0;

	for (long i = 0; i < 4096; i++)
		u64map_put(&m, (uint64_t)i << 32, i);
	for (long i = 0; i < 4096; i++)
		bad += u64map_get(&m, (uint64_t)i << 32) != i;
	CHECK(bad == 0);
	CHECK(u64map_get(&m, 1) == -1);
	u64map_release(&m);
}

int
main(void)
{
	RUN(empty_map_has_nothing);
	RUN(every_rank_pair_keeps_its_first_value);
	RUN(keys_alike_in_low_bits);
	return check_done();
}
