// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* File sources. (Placeholder.) */
#include "log.h"
#include "source.h"

struct rt_source *rt_file_source_new(const struct rt_opts *o)
{
	pr_warn("cannot read %s: -r is not available in this build.\n", o->read_file);
	return NULL;
}
