// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <arpa/inet.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <time.h>
#include "fmt.h"

const char *rt_fmt_addr(__u8 family, const __u8 *addr, char *buf, size_t len)
{
	if (!inet_ntop(family == 6 ? AF_INET6 : AF_INET, addr, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

const char *rt_prio_name(unsigned int prio, char *buf, size_t len)
{
	if (prio == RT_PRIO_GLOBAL)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%u", prio);
	return buf;
}

const char *rt_fmt_si(double v, char *buf, size_t len)
{
	static const char units[] = " kMGTP";
	int u = 0;

	while (v >= 999.5 && u < 5) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, v == (double)(long long)v ? "%.0f" : "%.1f", v);
	else
		snprintf(buf, len, v < 9.995 ? "%.2f%c" : v < 99.95 ? "%.1f%c" : "%.0f%c", v, units[u]);
	return buf;
}

double rt_pause_seconds(__u64 quanta, __u64 speed_mbps)
{
	if (!speed_mbps)
		return 0;
	return (double)quanta * 512.0 / ((double)speed_mbps * 1e6);
}

/* Through the ethtool ioctl: it answers for the caller's network namespace,
 * where /sys/class/net may show another one. */
__u64 rt_link_speed_mbps(const char *ifname)
{
	struct ethtool_cmd cmd = { .cmd = ETHTOOL_GSET };
	struct ifreq ifr;
	__u32 speed;
	int fd;

	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, ifname);
	ifr.ifr_data = (void *)&cmd;
	if (ioctl(fd, SIOCETHTOOL, &ifr)) {
		close(fd);
		return 0;
	}
	close(fd);
	speed = ethtool_cmd_speed(&cmd);
	return speed == (__u32)SPEED_UNKNOWN || speed == 0xffff ? 0 : speed;
}

const char *rt_fmt_clock(__u64 time_ns, char *buf, size_t len)
{
	time_t t = (time_t)(time_ns / 1000000000ULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
	return buf;
}
