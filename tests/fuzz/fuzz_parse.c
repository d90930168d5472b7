// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer: the one parser and the counting rules on arbitrary bytes, read
 * both as a whole frame and as the linear part of a longer (multi-buffer) one.
 * Beyond "no crash, no out-of-bounds read" it checks what the parser
 * promises: a truncated or malformed frame is never RoCE, and a RoCE frame
 * holds at least its headers; a mirror copy's inner frame lies inside it.
 */
#include <stdlib.h>
#include <string.h>
#include "../../bpf/count.h"

static void one(const __u8 *buf, size_t len, __u64 frame_len)
{
	struct rt_pkt p;
	struct rt_if_val iv;
	struct rt_flow_val fv;
	struct rt_flow_key k;
	int kind;

	memset(&p, 0, sizeof(p));
	memset(&iv, 0, sizeof(iv));
	memset(&fv, 0, sizeof(fv));
	kind = rt_parse(buf, buf + len, frame_len, &p);
	if (kind == RT_K_ROCE && (len < 14 + 20 + 8 + RT_BTH_LEN || frame_len < 14 + 20 + 8 + RT_BTH_LEN + RT_ICRC_LEN))
		abort();	/* RoCE without room for its headers */
	if (kind != p.kind)
		abort();
	/* a mirror copy's inner frame lies inside the frame, and holds its headers */
	if (p.mirror && ((__u64)p.inner_off + p.inner_len > frame_len || p.mirror > RT_MIRROR_MAX ||
			 (kind == RT_K_ROCE && p.inner_len < 14 + 20 + 8 + RT_BTH_LEN + RT_ICRC_LEN)))
		abort();
	rt_count_if(&iv, &p, frame_len);
	if (iv.pkts != 1 || iv.roce + iv.not_roce + iv.truncated + iv.malformed + iv.mac_ctrl != 1)
		abort();	/* every frame lands in exactly one outcome */
	if (iv.mirrored != (p.mirror != 0))
		abort();
	if (kind == RT_K_ROCE) {
		rt_flow_key_init(&k, &p, 1, RT_DIR_INGRESS);
		rt_count_flow(&fv, &p, frame_len, 1);
		if (fv.pkts != 1 || fv.ecn[0] + fv.ecn[1] + fv.ecn[2] + fv.ecn[3] != 1)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const __u8 *data, size_t size)
{
	/* A heap copy of exactly size bytes, so ASan sees any read past it. */
	__u8 *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	one(buf, size, size);
	one(buf, size, (__u64)size + 4096);	/* frags: the frame goes on past data_end */
	free(buf);
	return 0;
}
