// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The one decision of an interface's link speed (see linkspeed.h). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include "linkspeed.h"
#include "log.h"

static pthread_mutex_t said_lock = PTHREAD_MUTEX_INITIALIZER;
static char said[RT_MAX_IFACES * 2][IF_NAMESIZE];
static size_t nsaid;

/* Says once per interface name (per process) that its speed is assumed. */
static void say_assumed(const char *ifname, const struct rt_iface *i)
{
	size_t k;

	pthread_mutex_lock(&said_lock);
	for (k = 0; k < nsaid && strncmp(said[k], ifname, IF_NAMESIZE - 1); k++)
		;
	if (k == nsaid && nsaid < sizeof(said) / sizeof(said[0])) {
		snprintf(said[nsaid++], IF_NAMESIZE, "%s", ifname);
		if (i && !strcmp(i->speed_from, RT_SPEED_FROM_MIRROR))
			pr_warn("%s is a mirror collector: the mirrored hosts' link speed is unknown, paused time "
				"there assumes 100G; give their speed with --link-speed SPEED.\n", ifname);
		else
			pr_warn("no link speed is known for %s%s: paused time there assumes 100G; give the speed "
				"with --link-speed SPEED.\n", ifname,
				i && !strcmp(i->mode, "file") ? " (a capture file)" : "");
	}
	pthread_mutex_unlock(&said_lock);
}

static __u64 decide(const struct rt_snapshot *s, const char *ifname, __u64 given, const char **from,
		    int say)
{
	const struct rt_iface *i = NULL;
	size_t k;

	if (given) {
		if (from)
			*from = "--link-speed";
		return given;
	}
	for (k = 0; s && ifname && k < s->nifaces; k++)
		if (!strcmp(s->ifaces[k].name, ifname)) {
			i = &s->ifaces[k];
			if (i->speed_mbps)
				break;
		}
	if (i && i->speed_mbps) {
		if (from)
			*from = i->speed_from[0] ? i->speed_from : "recorded";
		return i->speed_mbps;
	}
	if (say)
		say_assumed(ifname ? ifname : "?", i);
	if (from)
		*from = "assumed";
	return RT_SPEED_ASSUMED_MBPS;
}

__u64 rt_link_speed(const struct rt_snapshot *s, const char *ifname, __u64 given, const char **from)
{
	return decide(s, ifname, given, from, 1);
}

__u64 rt_link_speed_quiet(const struct rt_snapshot *s, const char *ifname, __u64 given, const char **from)
{
	return decide(s, ifname, given, from, 0);
}
