// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: the probe mesh's wire format (user/probe/probe_wire.c), what the
 * answerer reads from the network. Each input is a UD payload as it arrives.
 * A decode as a request and as an answer must accept only a payload whose
 * size field is the bytes that came and at most the largest probe; an
 * accepted one, encoded again, must give back the header it came with.
 */
#include <stdlib.h>
#include <string.h>
#include "probe.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	unsigned char again[RT_PROBE_HDR];
	struct rt_probe_msg m;

	for (int type = RT_PROBE_REQ; type <= RT_PROBE_ANS; type++) {
		if (rt_probe_decode(data, len, type, &m) != RT_PROBE_OK)
			continue;
		if (m.size != len || len > RT_PROBE_MAX || m.type != type)
			abort();
		rt_probe_encode(&m, again, sizeof(again));
		/* bytes 13-15 are reserved: the decoder ignores them, the encoder writes 0 */
		if (memcmp(again, data, 13) || memcmp(again + 16, data + 16, RT_PROBE_HDR - 16))
			abort();
	}
	return 0;
}
