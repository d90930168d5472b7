// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* rocetop lab. (Placeholder.) */
#include "log.h"
#include "source.h"

int rt_lab_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_warn("lab is not available in this build.\n");
	return 2;
}
