/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The link speed behind paused time (PFC quanta are 512 bit times, so
 * seconds = quanta * 512 / speed), decided in one place for every output:
 * findings, --batch, CSV, the TUI, Prometheus and the report.
 *
 * In order: --link-speed (given); the speed the snapshot carries for the
 * interface (struct rt_iface: the live source reads it from the interface
 * through ethtool when it starts and a recording keeps it); else 100 Gb/s,
 * said once per interface with --link-speed as the way to give it. A reader
 * of a file never asks the reading host's interface of the same name.
 */
#ifndef RT_LINKSPEED_H
#define RT_LINKSPEED_H

#include <linux/types.h>
#include "snapshot.h"

#define RT_SPEED_ASSUMED_MBPS	100000ULL

/* Where a snapshot's rt_iface.speed_from says the speed came from. */
#define RT_SPEED_FROM_GIVEN	"given"		/* --link-speed when it was recorded */
#define RT_SPEED_FROM_ETHTOOL	"ethtool"	/* the interface's own speed */
#define RT_SPEED_FROM_MIRROR	"mirror"	/* a --collector port: not the mirrored hosts' */

/*
 * The speed in Mb/s for paused time on ifname in s; never 0. given: the
 * --link-speed of this run (0: none). *from (may be NULL): "--link-speed",
 * the recorded rt_iface.speed_from, or "assumed".
 */
__u64 rt_link_speed(const struct rt_snapshot *s, const char *ifname, __u64 given, const char **from);
/* The same decision, without saying anything: for what states the speed
 * (meta.csv, the link speed gauge) rather than turns quanta into time. Paused
 * time itself goes through rt_link_speed, only where there are pause frames. */
__u64 rt_link_speed_quiet(const struct rt_snapshot *s, const char *ifname, __u64 given, const char **from);

#endif
