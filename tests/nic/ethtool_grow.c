// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * LD_PRELOAD for test_ethtool_grow.sh: answers the ethtool ioctl as the
 * kernel does for a driver whose statistics grow between two calls (a
 * channel added, an XDP program attached): ETHTOOL_GSSET_INFO counts 4, then
 * ETHTOOL_GSTRINGS and ETHTOOL_GSTATS write 4 + GROW entries, whatever count
 * the caller gave (net/ethtool/ioctl.c: ethtool_get_strings and
 * ethtool_get_stats take the driver's count at the time). Where the caller's
 * buffer is too small for what the kernel would write, it says so on stderr
 * and exits 99.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#define N0	4
#define GROW	64

static void room(const void *p, size_t need)
{
	size_t have = malloc_usable_size((void *)p);

	if (have < need) {
		dprintf(2, "ethtool_grow: the kernel would write %zu bytes into a buffer of %zu\n", need, have);
		_exit(99);
	}
}

/* rx_prio3_pause 11, tx_prio0_pause 5, then packet counters */
static void stat_name(unsigned int i, char *out)
{
	static const char *const first[N0] = { "rx_prio3_pause", "tx_prio0_pause", "rx_packets", "tx_packets" };

	memset(out, 0, ETH_GSTRING_LEN);
	if (i < N0)
		snprintf(out, ETH_GSTRING_LEN, "%s", first[i]);
	else
		snprintf(out, ETH_GSTRING_LEN, "rx_queue_%u_packets", i - N0);
}

static int ethtool(void *data)
{
	struct ethtool_sset_info *ss = data;
	struct ethtool_gstrings *gs = data;
	struct ethtool_stats *st = data;
	__u32 cmd, i;

	memcpy(&cmd, data, sizeof(cmd));
	switch (cmd) {
	case ETHTOOL_GSSET_INFO:
		ss->sset_mask &= 1ULL << ETH_SS_STATS;
		if (ss->sset_mask)
			ss->data[0] = N0;
		return 0;
	case ETHTOOL_GSTRINGS:
		room(gs, sizeof(*gs) + (N0 + GROW) * ETH_GSTRING_LEN);
		gs->len = N0 + GROW;
		for (i = 0; i < N0 + GROW; i++)
			stat_name(i, (char *)gs->data + i * ETH_GSTRING_LEN);
		return 0;
	case ETHTOOL_GSTATS:
		room(st, sizeof(*st) + (N0 + GROW) * sizeof(__u64));
		st->n_stats = N0 + GROW;
		for (i = 0; i < N0 + GROW; i++)
			st->data[i] = i == 0 ? 11 : i == 1 ? 5 : 1000 + i;
		return 0;
	}
	errno = EOPNOTSUPP;
	return -1;
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == SIOCETHTOOL)
		return ethtool(((struct ifreq *)arg)->ifr_data);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real(fd, req, arg);
}
