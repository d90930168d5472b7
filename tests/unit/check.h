/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A minimal test harness: CHECK() records, TEST_END() prints PASS/FAIL per test. */
#ifndef RT_CHECK_H
#define RT_CHECK_H
#include <stdio.h>

static int check_failed, check_total_failed;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("  %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); printf("\n"); \
		check_failed++; \
	} } while (0)

#define CHECK_EQ(a, b) do { \
	unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
	CHECK(_a == _b, "%s = %llu, expected %llu", #a, _a, _b); } while (0)

#define TEST_END(name) do { \
	if (check_failed) printf("FAIL %s: %d checks failed\n", name, check_failed); \
	else printf("PASS %s\n", name); \
	check_total_failed += check_failed; check_failed = 0; } while (0)

#define TEST_EXIT() (check_total_failed ? 1 : 0)

#endif
