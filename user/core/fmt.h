/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small formatting helpers shared by every text sink. */
#ifndef RT_FMT_H
#define RT_FMT_H

#include <stddef.h>
#include "derive.h"

#define RT_ADDR_STRLEN 46

const char *rt_fmt_addr(__u8 family, const __u8 *addr, char *buf, size_t len);
/*
 * Who mirrored a flow, as flows.csv's mirror column writes it: "erspan1" (type
 * I has no session), "erspan2:SESSION", "erspan3:SESSION:ingress|egress",
 * "gre", "vxlan:VNI", or "" for a flow seen directly.
 */
#define RT_MIRROR_STRLEN 32
const char *rt_fmt_mirror(const struct rt_flow_key *k, char *buf, size_t len);
const char *rt_prio_name(unsigned int prio, char *buf, size_t len);	/* "0".."7", "all" */
/* A set as the numbers of its bits, lowest first: "3,6" (priorities), "26,48"
 * (DSCPs); "" for none. RT_BITS_STRLEN holds any 64-bit set. */
#define RT_BITS_STRLEN 192
const char *rt_fmt_bits(__u64 bits, char *buf, size_t len);
/* An interface's name in a text column of RT_IFNAME_COLS characters, made
 * printable: a longer name (a capture file's, an sFlow AGENT:PORT) is cut to
 * RT_IFNAME_COLS - 1 characters and '~', so the columns after it stay put
 * (JSON and CSV keep the whole name). */
#define RT_IFNAME_COLS 15
const char *rt_fmt_ifname_col(const char *name, char *buf, size_t len);
/* 12.3k, 4.56M: a count or rate in at most 6 characters. */
const char *rt_fmt_si(double v, char *buf, size_t len);
/* Gb/s in at most width characters (width >= 5): "%.3f" while it fits, then
 * fewer decimals, then rt_fmt_si's form ("148M"), so a column stays a column. */
const char *rt_fmt_gbps(double gbps, int width, char *buf, size_t len);
/* A duration, one way in every text output: three significant digits and a
 * unit, s, ms, us or ns (12.0 s, 1.50 s, 500 ms, 3.36 ms, 84.0 us); from
 * 1000 s whole seconds (604800 s); 0 as "0 s". JSON and CSV keep seconds. */
const char *rt_fmt_dur(double secs, char *buf, size_t len);
/* The same into a buffer of the enclosing block: an argument of one call. */
#define RT_DUR(secs) rt_fmt_dur((secs), (char[24]){ 0 }, 24)
/* A share (0..1) as a percentage, one way in every text output (as
 * rt_pr_share prints it): one decimal, "75.1%". */
const char *rt_fmt_share(double v, char *buf, size_t len);
/*
 * A finding's score or peak with its unit (struct rt_finding's peak_unit):
 * RT_UNIT_SHARE as rt_fmt_share ("75.1%"); RT_UNIT_BER as "%.2e" and the
 * unit ("1.20e-05 bit error rate"); any other unit names what is counted in
 * an interval, after the count ("360 pause frames"); no unit: "%g".
 */
#define RT_UNIT_SHARE "share"
#define RT_UNIT_BER "bit error rate"
#define RT_PEAK_STRLEN 64
const char *rt_fmt_peak(double v, const char *unit, char *buf, size_t len);
/* Seconds a link at speed_mbps was paused by that many quanta (512 bit times each). */
double rt_pause_seconds(__u64 quanta, __u64 speed_mbps);
/* Time as "HH:MM:SS" (local) and as seconds with milliseconds. */
const char *rt_fmt_clock(__u64 time_ns, char *buf, size_t len);
/* Time as "HH:MM:SS.mmm" in UTC (the report's times, the same on every host). */
const char *rt_fmt_hms_utc(__u64 time_ns, char *buf, size_t len);

/* Untrusted text made printable for a terminal ('?' for controls and 8-bit bytes);
 * buf may be s itself. */
const char *rt_fmt_safe(const char *s, char *buf, size_t len);
/* Untrusted text as one CSV field (RFC 4180 quoting; a leading =, +, -, @, tab or
 * CR gets a leading quote, OWASP). buf holds 2 * strlen + 4. */
const char *rt_fmt_csv(const char *s, char *buf, size_t len);

#endif
