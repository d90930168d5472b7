// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Linux capabilities through capget/capset and prctl (caps.h): the set a
 * process holds, what attaching the BPF programs lacks, and the drop of all
 * the rest once the run is attached. No libcap: three system calls.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "caps.h"

static const struct { int cap; const char *name; } names[] = {
	{ RT_CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE" },
	{ RT_CAP_DAC_READ_SEARCH, "CAP_DAC_READ_SEARCH" },
	{ RT_CAP_NET_BIND_SERVICE, "CAP_NET_BIND_SERVICE" },
	{ RT_CAP_NET_ADMIN, "CAP_NET_ADMIN" },
	{ RT_CAP_SYS_PTRACE, "CAP_SYS_PTRACE" },
	{ RT_CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	{ RT_CAP_PERFMON, "CAP_PERFMON" },
	{ RT_CAP_BPF, "CAP_BPF" },
};

static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

	memset(d, 0, 2 * sizeof(*d));
	return syscall(SYS_capget, &h, d) ? -errno : 0;
}

__u64 rt_caps_effective(void)
{
	struct __user_cap_data_struct d[2];

	if (caps_get(d))
		return 0;
	return (__u64)d[1].effective << 32 | d[0].effective;
}

int rt_caps_last(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
	int last = 40;	/* CAP_CHECKPOINT_RESTORE, Linux 5.9 */

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = 40;
		fclose(f);
	}
	return last;
}

__u64 rt_caps_attach_lacks(__u64 eff, int last_cap)
{
	__u64 lacks = 0;

	if (!(eff & RT_CAP(RT_CAP_NET_ADMIN)))
		lacks |= RT_CAP(RT_CAP_NET_ADMIN);
	if (eff & RT_CAP(RT_CAP_SYS_ADMIN))
		return lacks;
	if (last_cap < RT_CAP_BPF)	/* before 5.8: CAP_SYS_ADMIN alone loads programs */
		return lacks | RT_CAP(RT_CAP_SYS_ADMIN);
	return lacks | (~eff & (RT_CAP(RT_CAP_BPF) | RT_CAP(RT_CAP_PERFMON)));
}

const char *rt_caps_names(__u64 mask, char *buf, size_t len)
{
	size_t i, n = 0, left = 0, off = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		left += !!(mask & RT_CAP(names[i].cap));
	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && off < len; i++) {
		if (!(mask & RT_CAP(names[i].cap)))
			continue;
		n++;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					n == 1 ? "" : n == left ? " and " : ", ", names[i].name);
	}
	return buf;
}

int rt_caps_keep(__u64 keep)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	int err = caps_get(d), c, last = rt_caps_last();
	__u64 held;

	if (err)
		return err;
	held = (__u64)d[1].permitted << 32 | d[0].permitted;
	keep &= held;
	/* The bounding set first: dropping from it needs CAP_SETPCAP, lost below. */
	for (c = 0; c <= last && c < 64; c++)
		if (!(keep & RT_CAP(c)) && prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1)
			prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	d[0].effective = d[0].permitted = (__u32)keep;
	d[1].effective = d[1].permitted = (__u32)(keep >> 32);
	d[0].inheritable &= (__u32)keep;
	d[1].inheritable &= (__u32)(keep >> 32);
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}
