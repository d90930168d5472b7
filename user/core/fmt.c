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

const char *rt_fmt_bits(__u64 bits, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	while (bits && n < len) {
		int b = __builtin_ctzll(bits);
		int w = snprintf(buf + n, len - n, "%s%d", n ? "," : "", b);

		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
		bits &= bits - 1;
	}
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

const char *rt_fmt_gbps(double gbps, int width, char *buf, size_t len)
{
	int dec, n;

	/* Three decimals while they fit, fewer when not, then SI (a
	 * 147607544.496 once broke the columns). */
	for (dec = 3; dec >= 0; dec--) {
		n = snprintf(buf, len, "%.*f", dec, gbps);
		if (n >= 0 && n <= width)
			return buf;
	}
	return rt_fmt_si(gbps, buf, len);
}

const char *rt_fmt_dur(double secs, char *buf, size_t len)
{
	static const char *const units[] = { "s", "ms", "us", "ns" };
	double v = secs;
	int u = 0;

	if (!(secs > 0)) {
		snprintf(buf, len, "0 s");
		return buf;
	}
	if (v >= 999.5) {
		snprintf(buf, len, "%.0f s", v);
		return buf;
	}
	while (v < 0.9995 && u < 3) {
		v *= 1000;
		u++;
	}
	snprintf(buf, len, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

const char *rt_fmt_share(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f%%", 100 * v);
	return buf;
}

const char *rt_fmt_peak(double v, const char *unit, char *buf, size_t len)
{
	if (!unit || !unit[0])
		snprintf(buf, len, "%g", v);
	else if (!strcmp(unit, RT_UNIT_SHARE))
		rt_fmt_share(v, buf, len);
	else if (!strcmp(unit, RT_UNIT_BER))
		snprintf(buf, len, "%.2e %s", v, unit);
	else
		snprintf(buf, len, "%.0f %s", v, unit);
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

const char *rt_fmt_hms_utc(__u64 time_ns, char *buf, size_t len)
{
	time_t t = (time_t)(time_ns / 1000000000ULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%03u", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(time_ns % 1000000000ULL / 1000000));
	return buf;
}

const char *rt_fmt_mirror(const struct rt_flow_key *k, char *buf, size_t len)
{
	/* each encapsulation's name, and whether its session ID follows */
	static const struct { const char *name; int id; } m[] = {
		[RT_MIRROR_NONE] = { "", 0 },
		[RT_MIRROR_ERSPAN1] = { "erspan1", 0 },
		[RT_MIRROR_ERSPAN2] = { "erspan2", 1 },
		[RT_MIRROR_GRE] = { "gre", 0 },
		[RT_MIRROR_VXLAN] = { "vxlan", 1 },
	};
	unsigned int id = k->mirror_id & RT_MIRROR_ID_MASK;

	if (k->mirror == RT_MIRROR_ERSPAN3)
		snprintf(buf, len, "erspan3:%u:%s", id, k->mirror_id & RT_MIRROR_EGRESS ? "egress" : "ingress");
	else if (k->mirror < sizeof(m) / sizeof(m[0]) && m[k->mirror].name)
		snprintf(buf, len, m[k->mirror].id ? "%s:%u" : "%s", m[k->mirror].name, id);
	else
		snprintf(buf, len, "mirror%u:%u", k->mirror, id);
	return buf;
}

/*
 * Untrusted text (a recording's source, interface, note and counter names)
 * for a terminal: printable ASCII kept, every other byte (ESC, other
 * controls, bytes of 0x80 and up) shown as '?', so a file cannot move the
 * cursor or retitle the terminal.
 */
const char *rt_fmt_safe(const char *s, char *buf, size_t len)
{
	size_t i = 0;

	if (!len)
		return "";
	for (; *s && i + 1 < len; s++)
		buf[i++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
	buf[i] = '\0';
	return buf;
}

/*
 * One CSV field as RFC 4180 quotes it: in double quotes, with quotes doubled,
 * when it holds a comma, a quote or a line break; control bytes become '?'.
 * A field that starts with '=', '+', '-', '@', a tab or a carriage return
 * would be read as a formula by a spreadsheet (CSV injection): as OWASP's CSV
 * injection guidance says, it is quoted and gets a leading single quote
 * ("'=1+2"). Only text goes through here (names from interfaces, files,
 * hosts, processes); numbers are written as numbers by the callers.
 */
const char *rt_fmt_csv(const char *s, char *buf, size_t len)
{
	int lead = s[0] && strchr("=+-@\t\r", s[0]) != NULL;
	int quote = lead || strpbrk(s, ",\"\r\n") != NULL;
	size_t i = 0;

	if (len < 4)
		return "";
	if (quote)
		buf[i++] = '"';
	if (lead)
		buf[i++] = '\'';
	for (; *s && i + 3 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"')
			buf[i++] = '"';
		buf[i++] = (c < 0x20 && c != '\r' && c != '\n') || c == 0x7f ? '?' : (char)c;
	}
	if (quote)
		buf[i++] = '"';
	buf[i] = '\0';
	return buf;
}

const char *rt_fmt_ifname_col(const char *name, char *buf, size_t len)
{
	if (!len)
		return "";
	rt_fmt_safe(name, buf, len);
	if (len > RT_IFNAME_COLS + 1 && strlen(buf) > RT_IFNAME_COLS) {
		buf[RT_IFNAME_COLS - 1] = '~';
		buf[RT_IFNAME_COLS] = '\0';
	}
	return buf;
}
