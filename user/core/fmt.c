// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <arpa/inet.h>
#include <string.h>
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

const char *rt_fmt_clock(__u64 time_ns, char *buf, size_t len)
{
	time_t t = (time_t)(time_ns / 1000000000ULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
	return buf;
}
