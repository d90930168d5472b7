/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * rocetop lab --scenario pause-origin: the receiver that stops draining and
 * the switch that forwards pause upstream, as two child processes of the
 * lab (lab_pause.c).
 */
#ifndef RT_LAB_PAUSE_H
#define RT_LAB_PAUSE_H

#include <sys/types.h>
#include <linux/types.h>

struct lab_pause_cfg {
	const char *ns_rcv, *rcv_port;	/* the receiver's namespace and port */
	const char *ns_sw, *sw_ports;	/* the switch's namespace and ports ("a,b") */
	const char *rcv_log, *sw_log;	/* what each sent and received (NULL: not written) */
	int prio;
	__u64 at_ns, for_ns;		/* the receiver stops draining at, for (from the start) */
	__u64 delay_ns;			/* the switch pauses upstream after a port was paused this long */
	__u64 end_ns;			/* both end then (from the start) */
};

struct lab_pause {
	pid_t fwd, storm;
};

/* Start both now: 0, or -1 after saying why. */
int rt_lab_pause_start(struct lab_pause *lp, const struct lab_pause_cfg *c);
/* Wait for both to end (now: kill them first): 0, or -1 if one failed. */
int rt_lab_pause_stop(struct lab_pause *lp, int now);

#endif
