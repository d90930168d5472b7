// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: --web-config's parser (exporters/web_config.h) on a file's text,
 * from a heap copy of exactly its length: rt_web_config_parse must answer 0
 * or -1, and each user it keeps has a name and a 60-character bcrypt hash of
 * cost 04-14. The same input as an Authorization header value goes through
 * rt_web_basic_decode, whose user and password must be ended strings that
 * fit. The files a configuration names are not read (load's part).
 */
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "web_config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	rt_verbosity = -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct rt_web_config c;
	char *t = malloc(size ? size : 1), *h = malloc(size + 1), user[64], pass[1024];
	int r;

	if (!t || !h)
		goto out;
	memcpy(t, data, size);
	r = rt_web_config_parse("fuzz.yml", t, size, &c);
	if (r != 0 && r != -1)
		abort();
	for (size_t i = 0; r == 0 && i < c.nusers; i++) {
		const char *x = c.users[i].hash;

		if (strlen(x) != 60 || x[4] < '0' || x[4] > '1' || (x[4] == '0' && x[5] < '4') ||
		    (x[4] == '1' && x[5] > '4') || !memchr(c.users[i].name, 0, sizeof(c.users[i].name)))
			abort();
	}
	if (r == 0)
		rt_web_config_free(&c);
	memcpy(h, data, size);
	h[size] = 0;
	if (!rt_web_basic_decode(h, user, sizeof(user), pass, sizeof(pass)) &&
	    (strlen(user) >= sizeof(user) || strlen(pass) >= sizeof(pass)))
		abort();
out:
	free(t);
	free(h);
	return 0;
}
