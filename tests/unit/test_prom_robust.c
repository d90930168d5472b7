// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exporter on hostile and unlucky cases:
 *  - rendering a snapshot without flows called qsort(NULL, 0, ...),
 *    undefined behaviour UBSan reports. This test defines qsort itself (the
 *    binary's definition wins over libc's), counts calls with a NULL base,
 *    and sorts with a plain insertion sort.
 *  - rocetop_interface_up is 1 for an attached interface and 0 for
 *    one the link watcher marked "gone" (values put in by this test).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "log.h"
#include "prom.h"
#include "snapshot.h"

static int null_base_calls;

void qsort(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	void *volatile seen = base;	/* glibc declares base nonnull: look through that */
	char *b = base, tmp[256];
	size_t i, j;

	if (!seen) {
		null_base_calls++;
		return;
	}
	if (sz > sizeof(tmp))
		abort();
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && cmp(b + (j - 1) * sz, b + j * sz) > 0; j--) {
			memcpy(tmp, b + j * sz, sz);
			memcpy(b + j * sz, b + (j - 1) * sz, sz);
			memcpy(b + (j - 1) * sz, tmp, sz);
		}
}

int main(void)
{
	struct rt_prom_render *r = rt_prom_render_new(10, 0);
	struct rt_snapshot s;
	struct rt_delta d = { 0 };
	char *t = NULL, *o = NULL;
	size_t tl = 0, ol = 0;

	rt_verbosity = RT_LOG_WARN;
	rt_snapshot_init(&s);
	s.time_ns = 1700000000000000000ULL;
	rt_snapshot_add_iface(&s, 2, "eth0", "native");
	rt_snapshot_add_iface(&s, 3, "eth1", "gone");
	CHECK(r != NULL, "renderer");
	CHECK(!rt_delta_compute(&d, NULL, &s), "delta");
	CHECK(r && !rt_prom_render(r, &s, &d, &t, &tl, &o, &ol), "render a snapshot without flows");
	CHECK_EQ(null_base_calls, 0);
	TEST_END("prom_no_qsort_of_null_without_flows");

	CHECK(t && strstr(t, "\nrocetop_interface_up{interface=\"eth0\"} 1\n"), "eth0 up 1");
	CHECK(t && strstr(t, "\nrocetop_interface_up{interface=\"eth1\"} 0\n"), "eth1 (gone) up 0");
	TEST_END("prom_interface_up_gauge");
	free(t);
	free(o);
	rt_delta_free(&d);
	rt_snapshot_free(&s);
	rt_prom_render_free(r);
	return TEST_EXIT();
}
