// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pcap_gen OUT N [FLOWS [SECONDS]]: write a pcap of N RoCEv2 frames (RDMA
 * WRITE, CNPs, ACKs; a quarter of the data CE-marked) over FLOWS queue pairs
 * taking turns, 1 us apart or spread evenly over SECONDS, directly as pcap
 * records: fast enough for millions of packets.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void be16(unsigned char *p, unsigned v) { p[0] = v >> 8; p[1] = v & 0xff; }

int main(int argc, char **argv)
{
	unsigned char f[128];
	uint32_t hdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	long n, flows, i;
	double secs;
	FILE *o;

	if (argc < 3) {
		fprintf(stderr, "usage: pcap_gen OUT N [FLOWS [SECONDS]]\n");
		return 2;
	}
	n = atol(argv[2]);
	flows = argc > 3 ? atol(argv[3]) : 1000;
	secs = argc > 4 ? atof(argv[4]) : 0;
	o = fopen(argv[1], "wb");
	if (!o || flows < 1) {
		perror(argv[1]);
		return 1;
	}
	setvbuf(o, NULL, _IOFBF, 1 << 20);
	fwrite(hdr, 4, 6, o);
	for (i = 0; i < n; i++) {
		long q = i % flows;
		unsigned op = i % 50 == 0 ? 0x81 : i % 17 == 0 ? 0x11 : 0x0a;
		size_t len = op == 0x0a ? 106 : 62 + 16;	/* small frames: the per-packet cost */
		uint64_t us = secs > 0 ? (uint64_t)((double)i * secs * 1e6 / (double)n) : (uint64_t)i;
		uint32_t rec[4] = { 1700000000 + (uint32_t)(us / 1000000), (uint32_t)(us % 1000000),
				    (uint32_t)len, (uint32_t)len };

		memset(f, 0, sizeof(f));
		f[0] = 2; f[6] = 2; f[5] = 1; f[11] = 2;
		be16(f + 12, 0x0800);
		f[14] = 0x45;
		f[15] = (unsigned char)((26 << 2) | (i % 4 == 0 ? 3 : 2));
		be16(f + 16, (unsigned)(len - 14));
		f[22] = 64;
		f[23] = 17;
		f[26] = 10; f[27] = 0; f[28] = (unsigned char)(q >> 8); f[29] = (unsigned char)q;
		f[30] = 10; f[31] = 1; f[32] = 0; f[33] = 1;
		be16(f + 34, 49152 + (unsigned)(q & 0x3fff));
		be16(f + 36, 4791);
		be16(f + 38, (unsigned)(len - 34));
		f[42] = (unsigned char)op;
		be16(f + 44, 0xffff);
		f[47] = (unsigned char)(q >> 16); f[48] = (unsigned char)(q >> 8); f[49] = (unsigned char)q;
		if (op == 0x11)
			f[54] = 0x1f;	/* AETH: ACK */
		fwrite(rec, 4, 4, o);
		fwrite(f, 1, len, o);
	}
	return fclose(o) ? 1 : 0;
}
