// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Address prefixes (prefix.h). */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include "prefix.h"

int rt_prefix_parse(const char *s, struct rt_prefix *p)
{
	char tmp[64], *slash, *end;
	long bits;

	if (strlen(s) >= sizeof(tmp))
		return -1;
	strcpy(tmp, s);
	slash = strchr(tmp, '/');
	if (slash)
		*slash++ = '\0';
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, tmp, p->addr) == 1)
		p->family = 4;
	else if (inet_pton(AF_INET6, tmp, p->addr) == 1)
		p->family = 6;
	else
		return -1;
	p->bits = p->family == 4 ? 32 : 128;
	if (slash) {
		/* digits only: strtol alone takes "-0", "+8" and " 8" */
		if (!*slash || strlen(slash) > 3 || strspn(slash, "0123456789") != strlen(slash))
			return -1;
		bits = strtol(slash, &end, 10);
		if (*end || bits < 0 || bits > p->bits)
			return -1;
		p->bits = (int)bits;
	}
	return 0;
}

int rt_prefix_has(const struct rt_prefix *p, int family, const __u8 *addr)
{
	int full = p->bits / 8, rest = p->bits % 8;

	if (p->family != family || memcmp(p->addr, addr, (size_t)full))
		return 0;
	return !rest || !((p->addr[full] ^ addr[full]) & (0xff << (8 - rest)));
}
