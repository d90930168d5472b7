/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The health rules (rules_health.c), run from rules.c's table: each a
 * function of the interval's delta calling rt_findings_match(); 0 or -ENOMEM.
 */
#ifndef RT_RULES_HEALTH_H
#define RT_RULES_HEALTH_H

#include "findings.h"

int rt_rule_link_flap(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d);
int rt_rule_fec_degrading(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d);
int rt_rule_link_errors(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d);
int rt_rule_buffer_discard(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d);
int rt_rule_slow_receiver(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d);
int rt_rule_pcie(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d);

#endif
