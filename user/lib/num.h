/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one parser for numbers on command lines: plain numbers, integers,
 * sizes, link speeds and durations, each checked against a range. Callers
 * say what was wrong in their own words (they know the option's name).
 */
#ifndef RT_NUM_H
#define RT_NUM_H

enum rt_num_kind {
	RT_NUM_REAL,	/* a finite decimal number: 0.5, 20000 */
	RT_NUM_INT,	/* a decimal integer: 42 */
	RT_NUM_SIZE,	/* bytes, with an optional k, M or G (powers of 1000): 100M */
	RT_NUM_SPEED,	/* Mb/s, from 25G, 100G, 400G, 40000M, 1T, optionally
			 * followed by b, bit or b/s; a bare number is Gb/s */
	RT_NUM_SECONDS,	/* seconds, from a bare number or one with ms, s, m or h: 0.5, 250ms, 2m */
};

/* Parse s as kind into *out, which must lie in [lo, hi] (after the unit is
 * applied); 0, or -EINVAL leaving *out alone. */
int rt_parse_num(const char *s, enum rt_num_kind kind, double lo, double hi, double *out);

/* s as an unsigned integer, decimal (leading zeros allowed: 010 is ten) or
 * 0x hexadecimal, nothing else (no sign, no space, no octal) and at most
 * max: 0, or -EINVAL leaving *out alone. */
int rt_parse_uint(const char *s, unsigned long long max, unsigned long long *out);

#endif
