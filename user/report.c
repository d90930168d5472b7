// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* rocetop report. (Placeholder.) */
#include "log.h"
#include "source.h"

int rt_report_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_warn("report is not available in this build.\n");
	return 2;
}
