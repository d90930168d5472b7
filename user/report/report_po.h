/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * rocetop report's "where the pause storms started" over several hosts
 * (report_po.c prints what user/report/report_origin.c decides).
 */
#ifndef RT_REPORT_PO_H
#define RT_REPORT_PO_H

#include "print.h"
#include "report_agg.h"

/* The section, text and JSON, when any host has pause episodes: each
 * priority's origin (or why none is named), its tree with times and how it
 * was decided. h[0] is the reference clock's host. 0 or -ENOMEM. */
int rt_report_po(struct rt_printer *p, const struct rt_po_host *h, int nh);

#endif
