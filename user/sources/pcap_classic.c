// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The file header of a classic pcap (pcap-savefile(5)): magic 0xa1b2c3d4
 * (microseconds) or 0xa1b23c4d (nanoseconds), read in either byte order;
 * version 2.4; thiszone, sigfigs, snaplen, linktype. Only version 2.4 is
 * taken: older files may have their lengths swapped, which libpcap sorts out.
 * The records themselves are read by rt_pcapc_next() (pcap_classic.h).
 */
#include "pcap_classic.h"

int rt_pcapc_init(struct rt_pcapc *c, const void *p, size_t size, __u32 snaplen)
{
	const unsigned char *b = p;
	__u32 magic;
	__u16 major, minor;

	if (!p || size < RT_PCAPC_HDR)
		return -1;
	__builtin_memcpy(&magic, b, 4);
	__builtin_memcpy(&major, b + 4, 2);
	__builtin_memcpy(&minor, b + 6, 2);
	c->swap = 0;
	if (magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1) {
		c->swap = 1;
		magic = __builtin_bswap32(magic);
		major = __builtin_bswap16(major);
		minor = __builtin_bswap16(minor);
	}
	if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d)
		return -1;
	if (major != 2 || minor != 4)
		return -1;
	c->nano = magic == 0xa1b23c4d;
	c->p = b;
	c->size = size;
	c->off = RT_PCAPC_HDR;
	c->snaplen = snaplen;
	return 0;
}
