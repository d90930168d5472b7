/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the doctor's checks of a host's congestion configuration conclude
 * (user/nic/nic_doctor.c judges, `rocetop doctor` prints them, the live NIC
 * code keeps the last ones and the findings' doctor rule reads them).
 */
#ifndef RT_DOC_FINDINGS_H
#define RT_DOC_FINDINGS_H

#include <stddef.h>
#include <net/if.h>

enum rt_doc_severity { RT_DOC_OK = 0, RT_DOC_WARN = 1, RT_DOC_FAIL = 2 };

struct rt_doc_finding {
	char id[32];		/* stable: "roce-prio-no-pfc", "pfc-ecn-off", ... */
	int  severity;		/* enum rt_doc_severity */
	char netdev[IF_NAMESIZE];
	char sentence[256];	/* what is wrong and what to do */
	char evidence[256];	/* the numbers and files it comes from */
	char check[160];	/* the command that shows the setting, "" none */
};

#define RT_DOC_MAX_FINDINGS 64

struct rt_doc_findings {
	struct rt_doc_finding f[RT_DOC_MAX_FINDINGS];
	size_t n;
	int failed;		/* findings of severity RT_DOC_FAIL */
};

#endif
