/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The names sFlow gives the reason codes of dropped-packet notifications
 * (format 5), for every output that shows a switch's drops: the sFlow
 * source decodes the codes (user/sources/sflow_decode.c), the sinks name them.
 */
#ifndef RT_SF_DROP_H
#define RT_SF_DROP_H

#include <linux/types.h>

/* The name of a drop reason code ("no_buffer_space"), or NULL. */
const char *rt_sf_drop_reason(__u32 code);

#endif
