// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench/sflow_bench: sFlow datagrams per second of CPU that one rocetop
 * collector receives and decodes, beside a loop that only receives them.
 *
 * A child process sends sFlow v5 datagrams of 8 expanded flow samples, each
 * with a 128-byte RoCEv2 header, the extended switch record and a queue depth
 * (256 distinct flows over 16 switch ports), as fast as it can over loopback.
 * The parent reads them for a few seconds twice, alternating:
 *   receive-only: poll + recvmmsg batches of 64, nothing else (the baseline);
 *   rocetop:      poll + rt_sflow_read() (recvmmsg, decode, the one parser,
 *                 the flow, port and agent tables) and rt_sflow_collect()
 *                 into a snapshot once a second, as the main loop does.
 * Each is reported as datagrams received per second of the reading thread's
 * CPU time (CLOCK_THREAD_CPUTIME_ID), so the sender's speed does not decide the
 * figure; the ratio rocetop / receive-only is the share of the baseline's
 * rate rocetop keeps. Target (a busy fabric's sFlow rate): >= 200,000 datagrams/s and >= 0.5.
 * Exit 0 when it ran (BENCH_STRICT=1: 1 when a target is missed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "../tests/lib/xdr.h"
#include "log.h"
#include "sflow.h"

#define NDGRAMS		64	/* distinct datagrams the sender cycles through */
#define SAMPLES		8
#define HDR		128
#define ROUNDS		3
#define SECS		1.5

struct dg {
	__u8 d[2400];
	size_t n;
};

static void w32(struct dg *b, __u32 v)
{
	xdr_w32(b->d, &b->n, v);
}

/* A RoCEv2 RDMA WRITE of flow k: 10.1.0.(k%16) -> 10.2.0.(k/16), QP 0x100+k. */
static void frame(__u8 *f, unsigned int k)
{
	static const __u8 eth[] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00 };
	__u8 *ip = f + 14, *udp = ip + 20, *bth = udp + 8;

	memset(f, 0, HDR);
	memcpy(f, eth, sizeof(eth));
	ip[0] = 0x45, ip[1] = (__u8)(26 << 2 | (k % 5 == 0 ? 3 : 2));
	ip[2] = 0x04, ip[3] = 0x2c;	/* 1068 */
	ip[8] = 64, ip[9] = 17;
	ip[12] = 10, ip[13] = 1, ip[15] = (__u8)(k % 16);
	ip[16] = 10, ip[17] = 2, ip[19] = (__u8)(k / 16);
	udp[0] = 0xc0, udp[1] = (__u8)k;
	udp[2] = 0x12, udp[3] = 0xb7;
	udp[4] = 0x04, udp[5] = 0x18;	/* 1048 */
	bth[0] = 0x0a;
	bth[2] = 0xff, bth[3] = 0xff;
	bth[6] = (__u8)((0x100 + k) >> 8), bth[7] = (__u8)(0x100 + k);
}

static void build(struct dg *b, unsigned int which)
{
	b->n = 0;
	w32(b, 5), w32(b, 1), w32(b, 0xc0000201), w32(b, 0), w32(b, which), w32(b, 1000);
	w32(b, SAMPLES);
	for (unsigned int s = 0; s < SAMPLES; s++) {
		unsigned int k = (which * SAMPLES + s) % 256, port = 1 + k % 16;
		size_t at;

		w32(b, 3);
		at = b->n;
		w32(b, 0);
		w32(b, which * SAMPLES + s), w32(b, 0), w32(b, port), w32(b, 4096), w32(b, 1 << 20);
		w32(b, 0), w32(b, 0), w32(b, 17), w32(b, 0), w32(b, port);
		w32(b, 3);
		w32(b, 1), w32(b, 16 + HDR);
		w32(b, 1), w32(b, 1086), w32(b, 4), w32(b, HDR);
		frame(b->d + b->n, k);
		b->n += HDR;
		w32(b, 1001), w32(b, 16), w32(b, 0), w32(b, 3), w32(b, 0), w32(b, 3);
		w32(b, 1040), w32(b, 4), w32(b, 1000 * (k % 97));
		b->d[at] = (__u8)((b->n - at - 4) >> 24);
		b->d[at + 1] = (__u8)((b->n - at - 4) >> 16);
		b->d[at + 2] = (__u8)((b->n - at - 4) >> 8);
		b->d[at + 3] = (__u8)(b->n - at - 4);
	}
}

static double now_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sender(int port)
{
	static struct dg dgs[NDGRAMS];
	struct mmsghdr m[NDGRAMS];
	struct iovec iov[NDGRAMS];
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((__u16)port),
				  .sin_addr = { htonl(INADDR_LOOPBACK) } };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(m, 0, sizeof(m));
	for (int i = 0; i < NDGRAMS; i++) {
		build(&dgs[i], (unsigned int)i);
		iov[i].iov_base = dgs[i].d;
		iov[i].iov_len = dgs[i].n;
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
		m[i].msg_hdr.msg_name = &to;
		m[i].msg_hdr.msg_namelen = sizeof(to);
	}
	for (;;)
		if (sendmmsg(fd, m, NDGRAMS, 0) < 0 && errno != ENOBUFS && errno != EAGAIN)
			_exit(0);
}

/* Datagrams per CPU second of one phase. */
static double receive_only(int fd)
{
	static __u8 buf[64][4096];
	struct mmsghdr m[64];
	struct iovec iov[64];
	double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	long n = 0;

	memset(m, 0, sizeof(m));
	for (int i = 0; i < 64; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = sizeof(buf[i]);
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	while (now_s(CLOCK_MONOTONIC) - t0 < SECS) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r;

		if (poll(&p, 1, 100) <= 0)
			continue;
		while ((r = recvmmsg(fd, m, 64, MSG_DONTWAIT, NULL)) > 0)
			n += r;
	}
	return n / (now_s(CLOCK_THREAD_CPUTIME_ID) - c0);
}

static double with_rocetop(struct rt_sflow *sf, struct rt_snapshot *snap)
{
	double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_THREAD_CPUTIME_ID), last = t0;
	long n = 0;

	while (now_s(CLOCK_MONOTONIC) - t0 < SECS) {
		struct pollfd p = { .fd = rt_sflow_fd(sf), .events = POLLIN };
		int r;

		if (poll(&p, 1, 100) > 0)
			while ((r = rt_sflow_read(sf)) > 0)
				n += r;
		if (now_s(CLOCK_MONOTONIC) - last >= 1.0) {
			last = now_s(CLOCK_MONOTONIC);
			rt_snapshot_clear(snap);
			rt_sflow_collect(sf, snap);
		}
	}
	return n / (now_s(CLOCK_THREAD_CPUTIME_ID) - c0);
}

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = { htonl(INADDR_LOOPBACK) } };
	socklen_t al = sizeof(a);
	struct rt_snapshot snap;
	struct rt_sflow *sf;
	struct rt_sflow_cfg c = { .have_fd = 1, .max_flows = 16384, .flow_timeout = 60 };
	double base = 0, rt = 0, b, r;
	int fd, rcv = 8 << 20, pass;
	pid_t pid;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || getsockname(fd, (struct sockaddr *)&a, &al)) {
		printf("SKIP sflow_bench: no UDP socket on loopback: %s\n", strerror(errno));
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	c.fd = fd;
	sf = rt_sflow_new(&c);
	if (!sf)
		return 1;
	rt_snapshot_init(&snap);
	pid = fork();
	if (pid == 0)
		sender(ntohs(a.sin_port));
	printf("sFlow datagrams of %d flow samples with %d-byte RoCEv2 headers over loopback,\n"
	       "per second of the reading thread's CPU (%d rounds of %.1f s each, alternating):\n",
	       SAMPLES, HDR, ROUNDS, SECS);
	for (int i = 0; i < ROUNDS; i++) {
		b = receive_only(fd);
		r = with_rocetop(sf, &snap);
		printf("  round %d: receive-only %10.0f/s   rocetop %10.0f/s   ratio %.2f\n", i + 1, b, r, r / b);
		base += b / ROUNDS;
		rt += r / ROUNDS;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	printf("  mean:    receive-only %10.0f/s   rocetop %10.0f/s   ratio %.2f\n", base, rt, rt / base);
	/* What the rocetop phases made of them: decoded, not refused. */
	rt_snapshot_clear(&snap);
	rt_sflow_collect(sf, &snap);
	if (snap.nsfagents)
		printf("  decoded: %llu datagrams, %llu flow samples, %llu with errors; %zu flows, %zu switch port rows\n",
		       (unsigned long long)snap.sfagents[0].datagrams, (unsigned long long)snap.sfagents[0].samples,
		       (unsigned long long)snap.sfagents[0].errors, snap.nflows, snap.nswports);
	pass = rt >= 200000 && rt / base >= 0.5 && snap.nsfagents && !snap.sfagents[0].errors;
	printf("  target: >= 200000/s and >= 0.5 of receive-only: %s\n", pass ? "met" : "MISSED");
	rt_snapshot_free(&snap);
	rt_sflow_free(sf);
	if (getenv("BENCH_STRICT") && !strcmp(getenv("BENCH_STRICT"), "1") && !pass)
		return 1;
	return 0;
}
