/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* rocetop's own command line (user/cmd/main_opts.c), into struct rt_opts. */
#ifndef RT_MAIN_OPTS_H
#define RT_MAIN_OPTS_H

#include <linux/types.h>
#include "cli.h"
#include "opts.h"

/* Its option table: rocetop lab takes these options too, for its view. */
extern const struct rt_opt rt_main_opts[];
/* "30s", "5m", "1h", "90": seconds; 0 or -EINVAL. */
int rt_parse_duration(const char *s, double *out);
/* "25G", "100G", "40000M", "100": Mb/s; 0 or -EINVAL. */
int rt_parse_speed(const char *s, __u64 *mbps);
/* Parse the main command line: 0, 1 (help or version shown) or -EINVAL. */
int rt_parse_args(int argc, char **argv, struct rt_opts *o);

#endif
