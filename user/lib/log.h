/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One logging layer: every message of rocetop goes through here, to stderr. */
#ifndef RT_LOG_H
#define RT_LOG_H

enum rt_log_level { RT_LOG_WARN, RT_LOG_INFO, RT_LOG_DEBUG };

extern int rt_verbosity;	/* RT_LOG_INFO by default, -v gives DEBUG, -q WARN only */

void rt_log(enum rt_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define pr_warn(...)  rt_log(RT_LOG_WARN, __VA_ARGS__)
#define pr_info(...)  rt_log(RT_LOG_INFO, __VA_ARGS__)
#define pr_debug(...) rt_log(RT_LOG_DEBUG, __VA_ARGS__)

/* While a full-screen view owns the terminal, messages are kept for it. */
void rt_log_hold(int hold);
/* The last message given while held, or NULL. */
const char *rt_log_last(void);

#endif
