// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/collector.sh's sender: puts one switch mirror copy (GRE + ERSPAN III
 * carrying a RoCEv2 RDMA WRITE) on IFACE as fast as AF_PACKET takes it, in
 * batches of sendmmsg, for SECONDS; prints the frames sent.
 * Usage: mirror_blast IFACE SECONDS
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <sys/socket.h>

#define BATCH 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const unsigned char outer[] = {
		0x02, 0, 0, 0, 0, 0x03, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,	/* Ethernet */
		0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 47, 0, 0,			/* IPv4, GRE */
		172, 16, 0, 1, 172, 16, 0, 2,
		0x10, 0x00, 0x22, 0xeb, 0, 0, 0, 1,				/* GRE, S */
		0x20, 0x00, 0x01, 0x2c, 0, 0, 0, 0, 0, 0, 0, 0x08,		/* ERSPAN III */
	};
	static const unsigned char inner[] = {
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
		0x45, 0x6a, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
		0xc0, 0x00, 0x12, 0xb7, 0, 0, 0, 0,				/* UDP 4791 */
		0x0a, 0, 0xff, 0xff, 0, 0, 0x01, 0x23, 0x80, 0, 0x01, 0,	/* BTH */
	};
	unsigned char f[256] = { 0 };
	size_t ilen = sizeof(inner) + 64 + 4, len = sizeof(outer) + ilen;
	struct mmsghdr msg[BATCH];
	struct iovec iov = { f, 0 };
	struct sockaddr_ll sll = { 0 };
	unsigned long long sent = 0;
	double end;
	int fd, i;

	if (argc != 3) {
		fprintf(stderr, "usage: mirror_blast IFACE SECONDS\n");
		return 2;
	}
	memcpy(f, outer, sizeof(outer));
	memcpy(f + sizeof(outer), inner, sizeof(inner));
	f[16] = (unsigned char)((len - 14) >> 8), f[17] = (unsigned char)(len - 14);
	f[sizeof(outer) + 16] = (unsigned char)((ilen - 14) >> 8);
	f[sizeof(outer) + 17] = (unsigned char)(ilen - 14);
	f[sizeof(outer) + 38] = (unsigned char)((ilen - 34) >> 8);
	f[sizeof(outer) + 39] = (unsigned char)(ilen - 34);
	iov.iov_len = len;
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("mirror_blast: socket");
		return 1;
	}
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, f, 6);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "mirror_blast: no interface %s\n", argv[1]);
		return 1;
	}
	memset(msg, 0, sizeof(msg));
	for (i = 0; i < BATCH; i++) {
		msg[i].msg_hdr.msg_name = &sll;
		msg[i].msg_hdr.msg_namelen = sizeof(sll);
		msg[i].msg_hdr.msg_iov = &iov;
		msg[i].msg_hdr.msg_iovlen = 1;
	}
	end = now() + atof(argv[2]);
	while (now() < end) {
		int n = sendmmsg(fd, msg, BATCH, 0);

		if (n > 0)
			sent += (unsigned long long)n;
		else if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
			perror("mirror_blast: sendmmsg");
			return 1;
		}
	}
	printf("%llu\n", sent);
	return 0;
}
