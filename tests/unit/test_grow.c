// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rt_grow_for (user/core/table.h): rows added one at a time grow the array
 * geometrically. 100,000 adds from empty change the capacity 14 times
 * (16, 32, ... 131072: the test's own arithmetic), where rt_grow_to(n + 1),
 * which the findings table and 12 other arrays used, changed it 100,000
 * times (a copy each, quadratic in all); the elements written stay; a size
 * that would overflow is refused, the array left as it was.
 */
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "table.h"

static void test_geometric(void)
{
	unsigned int *a = NULL;
	size_t cap = 0, last = 0, changes = 0, bad = 0;

	for (size_t n = 0; n < 100000; n++) {
		CHECK_EQ(rt_grow_for((void **)&a, &cap, n + 1, sizeof(*a)), 0);
		if (cap != last) {
			changes++;
			last = cap;
		}
		a[n] = (unsigned int)n * 7;
	}
	for (size_t n = 0; n < 100000; n++)
		bad += a[n] != (unsigned int)n * 7;
	CHECK(changes == 14 && cap == 131072, "%zu capacity changes (want 14: 16 .. 131072), cap %zu", changes, cap);
	CHECK(!bad, "%zu elements lost", bad);
	CHECK_EQ(rt_grow_for((void **)&a, &cap, SIZE_MAX / 2, 8), -ENOMEM);
	CHECK(cap == 131072 && a[99999] == 99999u * 7, "a refused growth changed the array (cap %zu)", cap);
	free(a);
	TEST_END("grow_geometric");
}

int main(void)
{
	test_geometric();
	return TEST_EXIT();
}
