// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop lab --scenario pause-origin: a pause storm that starts at the
 * receiver and spreads, made with real PFC frames on the lab's veths.
 *
 * Two child processes of the lab, each in its namespace, on AF_PACKET
 * sockets: the receiver stops draining (PFC XOFF on the priority out of
 * rcv0 every 10 ms) from LAB_PAUSE_AT seconds after the traffic starts, for
 * LAB_PAUSE_FOR seconds; the switch forwards pause upstream: a port that
 * received XOFF on the priority within the last LAB_PAUSE_HOLD seconds is
 * paused downstream, and once one has been for LAB_PAUSE_DELAY seconds, the
 * switch pauses its other ports on the priority (XOFF every 10 ms) while it
 * stays so. The switch decides only from the frames it receives (its own,
 * seen again as outgoing, are not counted). Each writes what it sent and
 * received, and when first, on the wall clock: {"tx": {IF: {"first": T,
 * "frames": N}}, "rx": {...}} (tests/lab/test_pause_origin.sh checks the
 * report's pause origin against these logs).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "lab_pause.h"
#include "log.h"

#define TICK_NS		10000000ULL	/* XOFF refresh */
#define HOLD_NS		100000000ULL	/* a port stays paused this long after its last XOFF */
#define MAXP		4

struct port {
	char name[IF_NAMESIZE];
	int fd;
	unsigned char frame[60];	/* its XOFF */
	__u64 last_rx, since, next_tx;
	__u64 tx_first, tx_n, rx_first, rx_n;
};

static __u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
}

static int port_open(struct port *p, const char *name, int prio)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	static const unsigned char dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
	struct ifreq ifr = { 0 };

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	a.sll_ifindex = (int)if_nametoindex(name);
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
	/* the namespace's own interface: not through /sys, which is the mounter's */
	if (p->fd < 0 || !a.sll_ifindex || ioctl(p->fd, SIOCGIFHWADDR, &ifr) ||
	    bind(p->fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	memcpy(p->frame, dst, 6);
	memcpy(p->frame + 6, ifr.ifr_hwaddr.sa_data, 6);
	p->frame[12] = 0x88, p->frame[13] = 0x08;	/* MAC control */
	p->frame[14] = 0x01, p->frame[15] = 0x01;	/* PFC */
	p->frame[17] = (unsigned char)(1u << prio);	/* class enable vector */
	p->frame[18 + 2 * prio] = 0xff, p->frame[19 + 2 * prio] = 0xff;	/* its time */
	return 0;
}

static void port_send(struct port *p, __u64 t)
{
	if (send(p->fd, p->frame, sizeof(p->frame), 0) != (ssize_t)sizeof(p->frame))
		return;
	if (!p->tx_n++)
		p->tx_first = t;
}

/* XOFF on prio: a PFC frame that enables it with a non-zero time. */
static int is_xoff(const unsigned char *b, ssize_t n, int prio)
{
	return n >= 34 && b[12] == 0x88 && b[13] == 0x08 && b[14] == 0x01 && b[15] == 0x01 &&
	       (((b[16] << 8) | b[17]) & (1 << prio)) && (b[18 + 2 * prio] | b[19 + 2 * prio]);
}

/* The XOFF frames that came in on p (not its own going out). */
static void port_drain(struct port *p, int prio)
{
	unsigned char b[2048];
	struct sockaddr_ll from;
	socklen_t fl = sizeof(from);
	ssize_t n;

	while ((n = recvfrom(p->fd, b, sizeof(b), 0, (struct sockaddr *)&from, &fl)) > 0) {
		__u64 t = now_ns();

		fl = sizeof(from);
		if (from.sll_pkttype == PACKET_OUTGOING || !is_xoff(b, n, prio))
			continue;
		if (!p->rx_n++)
			p->rx_first = t;
		p->last_rx = t;
	}
}

static void log_side(FILE *f, const struct port *ps, int n, int tx)
{
	int i, k = 0;

	fprintf(f, "\"%s\": {", tx ? "tx" : "rx");
	for (i = 0; i < n; i++) {
		__u64 c = tx ? ps[i].tx_n : ps[i].rx_n, t = tx ? ps[i].tx_first : ps[i].rx_first;

		if (c)
			fprintf(f, "%s\"%s\": {\"first\": %llu.%09llu, \"frames\": %llu}", k++ ? ", " : "", ps[i].name,
				t / 1000000000ULL, t % 1000000000ULL, (unsigned long long)c);
	}
	fputs("}", f);
}

static void write_log(const char *path, const struct port *ps, int n)
{
	FILE *f;

	if (!path || !(f = fopen(path, "we")))
		return;
	fputs("{", f);
	log_side(f, ps, n, 1);
	fputs(", ", f);
	log_side(f, ps, n, 0);
	fputs("}\n", f);
	fclose(f);
}

/* The switch: pause every other port while one has been paused for delay. */
static void forward(struct port *ps, int n, const struct lab_pause_cfg *c, __u64 end)
{
	struct pollfd pf[MAXP];
	int i, j;

	for (i = 0; i < n; i++)
		pf[i] = (struct pollfd){ .fd = ps[i].fd, .events = POLLIN };
	while (now_ns() < end) {
		__u64 t;

		poll(pf, (nfds_t)n, 5);
		for (i = 0; i < n; i++)
			port_drain(&ps[i], c->prio);
		t = now_ns();
		for (i = 0; i < n; i++) {	/* a run of being paused begins or ends */
			if (ps[i].last_rx && t - ps[i].last_rx <= HOLD_NS)
				ps[i].since = ps[i].since ? ps[i].since : ps[i].last_rx;
			else
				ps[i].since = 0;
		}
		for (j = 0; j < n; j++)
			for (i = 0; i < n; i++)
				if (i != j && ps[i].since && t - ps[i].since >= c->delay_ns && t >= ps[j].next_tx) {
					port_send(&ps[j], t);
					ps[j].next_tx = t + TICK_NS;
				}
	}
}

/* The receiver: XOFF every 10 ms from start for len. */
static void storm(struct port *p, const struct lab_pause_cfg *c, __u64 start, __u64 end)
{
	struct timespec tick = { 0, 2000000 };

	while (now_ns() < end) {
		__u64 t = now_ns();

		if (t >= start && t < start + c->for_ns && t >= p->next_tx) {
			port_send(p, t);
			p->next_tx = t + TICK_NS;
		}
		port_drain(p, c->prio);
		nanosleep(&tick, NULL);
	}
}

static int enter_ns(const char *ns)
{
	char path[128];
	int fd, r;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = setns(fd, CLONE_NEWNET);
	close(fd);
	return r;
}

/* One child: in ns, on ports (comma-separated); the storm when storm is set. */
static pid_t child(const char *ns, const char *ports, int is_storm, const struct lab_pause_cfg *c, __u64 t0,
		   const char *log)
{
	struct port ps[MAXP];
	char list[128], *save = NULL, *tok;
	pid_t parent = getpid(), pid = fork();
	sigset_t none;
	int n = 0;

	if (pid)
		return pid;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent || enter_ns(ns))
		_exit(1);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	snprintf(list, sizeof(list), "%s", ports);
	for (tok = strtok_r(list, ",", &save); tok && n < MAXP; tok = strtok_r(NULL, ",", &save))
		if (port_open(&ps[n++], tok, c->prio)) {
			fprintf(stderr, "rocetop lab: cannot open %s in %s for the pause storm: %s.\n", tok, ns,
				strerror(errno));
			_exit(1);
		}
	if (is_storm)
		storm(&ps[0], c, t0 + c->at_ns, t0 + c->end_ns);
	else
		forward(ps, n, c, t0 + c->end_ns);
	write_log(log, ps, n);
	_exit(0);
}

int rt_lab_pause_start(struct lab_pause *lp, const struct lab_pause_cfg *c)
{
	__u64 t0 = now_ns();

	lp->fwd = child(c->ns_sw, c->sw_ports, 0, c, t0, c->sw_log);
	lp->storm = child(c->ns_rcv, c->rcv_port, 1, c, t0, c->rcv_log);
	if (lp->fwd < 0 || lp->storm < 0) {
		pr_warn("cannot start the lab's pause storm: %s.\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Wait for both (they end at c->end_ns) and say how they went: 0 or -1. */
int rt_lab_pause_stop(struct lab_pause *lp, int now)
{
	pid_t *p[] = { &lp->fwd, &lp->storm };
	int i, st, fail = 0;

	for (i = 0; i < 2; i++) {
		if (*p[i] <= 0)
			continue;
		if (now)
			kill(*p[i], SIGKILL);
		if (waitpid(*p[i], &st, 0) == *p[i] && !now && (!WIFEXITED(st) || WEXITSTATUS(st)))
			fail = 1;
		*p[i] = 0;
	}
	return fail ? -1 : 0;
}
