// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "num.h"

/* The multiplier of a unit suffix, or 0 when the suffix is not one of kind's. */
static double unit(const char *u, enum rt_num_kind kind)
{
	switch (kind) {
	case RT_NUM_REAL:
	case RT_NUM_INT:
		return *u ? 0 : 1;
	case RT_NUM_SIZE:
		if (!*u)
			return 1;
		if (u[1])
			return 0;
		return *u == 'k' || *u == 'K' ? 1e3 : *u == 'm' || *u == 'M' ? 1e6 :
		       *u == 'g' || *u == 'G' ? 1e9 : 0;
	case RT_NUM_SPEED: {
		double m = 1000;	/* a bare number is Gb/s */

		if (*u == 'M' || *u == 'm')
			m = 1, u++;
		else if (*u == 'G' || *u == 'g')
			u++;
		else if (*u == 'T' || *u == 't')
			m = 1e6, u++;
		return !*u || !strcmp(u, "b") || !strcmp(u, "bit") || !strcmp(u, "b/s") ? m : 0;
	}
	case RT_NUM_SECONDS:
		return !*u || !strcmp(u, "s") ? 1 : !strcmp(u, "ms") ? 1e-3 :
		       !strcmp(u, "m") ? 60 : !strcmp(u, "h") ? 3600 : 0;
	}
	return 0;
}

int rt_parse_num(const char *s, enum rt_num_kind kind, double lo, double hi, double *out)
{
	char *end;
	double v, m;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	if (kind == RT_NUM_INT) {
		long long l = strtoll(s, &end, 10);

		v = (double)l;
	} else {
		v = strtod(s, &end);
	}
	if (errno || end == s || !isfinite(v))
		return -EINVAL;
	m = unit(end, kind);
	if (m == 0)
		return -EINVAL;
	v *= m;
	if (!(v >= lo && v <= hi))
		return -EINVAL;
	*out = v;
	return 0;
}

int rt_parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	const char *digits = "0123456789";
	unsigned long long v;
	char *end;
	int base = 10;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
		digits = "0123456789abcdefABCDEF";
	}
	if (!*s || strspn(s, digits) != strlen(s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}
