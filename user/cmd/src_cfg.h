/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sources' and the NIC's configurations, each filled from the command
 * line (struct rt_opts) here at the top, so a part below user/cmd/ sees only
 * the fields it reads (user/sources/sources.h, sflow.h, user/nic/nic.h).
 */
#ifndef RT_SRC_CFG_H
#define RT_SRC_CFG_H

#include "nic.h"
#include "opts.h"
#include "sflow.h"
#include "sources.h"

struct rt_live_cfg rt_live_cfg_of(const struct rt_opts *o);
struct rt_file_cfg rt_file_cfg_of(const struct rt_opts *o);
struct rt_sflow_cfg rt_sflow_cfg_of(const struct rt_opts *o);
struct rt_nic_cfg rt_nic_cfg_of(const struct rt_opts *o);

#endif
