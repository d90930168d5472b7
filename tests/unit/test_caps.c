// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * user/core/caps.c's pure part: which capabilities attaching lacks for an
 * effective set, on kernels with and without CAP_BPF (capability numbers
 * from linux/capability.h, the expected sets worked out by hand), and the
 * sentence's list of names.
 */
#include <string.h>
#include <linux/capability.h>
#include "caps.h"
#include "check.h"

#define C(n) (1ULL << (n))

static void test_lacks(void)
{
	__u64 all3 = C(CAP_BPF) | C(CAP_PERFMON) | C(CAP_NET_ADMIN);

	CHECK_EQ(rt_caps_attach_lacks(all3, 40), 0);
	CHECK_EQ(rt_caps_attach_lacks(C(CAP_BPF) | C(CAP_NET_ADMIN), 40), C(CAP_PERFMON));
	CHECK_EQ(rt_caps_attach_lacks(C(CAP_PERFMON) | C(CAP_NET_ADMIN), 40), C(CAP_BPF));
	CHECK_EQ(rt_caps_attach_lacks(C(CAP_BPF) | C(CAP_PERFMON), 40), C(CAP_NET_ADMIN));
	CHECK_EQ(rt_caps_attach_lacks(0, 40), all3);
	/* CAP_SYS_ADMIN stands for CAP_BPF and CAP_PERFMON, not CAP_NET_ADMIN */
	CHECK_EQ(rt_caps_attach_lacks(C(CAP_SYS_ADMIN), 40), C(CAP_NET_ADMIN));
	CHECK_EQ(rt_caps_attach_lacks(C(CAP_SYS_ADMIN) | C(CAP_NET_ADMIN), 40), 0);
	/* Linux 5.4 (cap_last_cap 37): no CAP_BPF, CAP_SYS_ADMIN loads programs */
	CHECK_EQ(rt_caps_attach_lacks(C(CAP_NET_ADMIN), 37), C(CAP_SYS_ADMIN));
	CHECK_EQ(rt_caps_attach_lacks(C(CAP_SYS_ADMIN) | C(CAP_NET_ADMIN), 37), 0);
	TEST_END("caps: what attaching lacks");
}

static void test_names(void)
{
	char buf[128];

	CHECK(!strcmp(rt_caps_names(C(CAP_PERFMON), buf, sizeof(buf)), "CAP_PERFMON"), "%s", buf);
	CHECK(!strcmp(rt_caps_names(C(CAP_BPF) | C(CAP_NET_ADMIN), buf, sizeof(buf)),
		      "CAP_NET_ADMIN and CAP_BPF"), "%s", buf);
	CHECK(!strcmp(rt_caps_names(C(CAP_BPF) | C(CAP_PERFMON) | C(CAP_NET_ADMIN), buf, sizeof(buf)),
		      "CAP_NET_ADMIN, CAP_PERFMON and CAP_BPF"), "%s", buf);
	CHECK(!strcmp(rt_caps_names(0, buf, sizeof(buf)), ""), "%s", buf);
	/* a short buffer is cut, never overrun */
	CHECK(!strcmp(rt_caps_names(C(CAP_BPF) | C(CAP_NET_ADMIN), buf, 8), "CAP_NET"), "%s", buf);
	TEST_END("caps: the names in a sentence");
}

int main(void)
{
	test_lacks();
	test_names();
	return TEST_EXIT();
}
