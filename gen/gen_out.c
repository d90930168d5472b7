/* rocetop-gen: output side: sockets in network namespaces, pacing, pcap, tally. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gen_out.h"
#include "gen_sflow.h"

volatile sig_atomic_t gen_stop_signal;

static void on_signal(int sig)
{
	gen_stop_signal = sig;
}

void gen_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: sleeps and sends return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The run's clock: the monotonic clock, or, when frames go only to a pcap
 * file (gen_clock_virtual), a clock that a sleep moves on at once: the file
 * gets the times the schedule gives without the run waiting them out.
 * virt_real: the real time at virt_now's start, for the file's stamps. */
static double virt_now = -1, virt_base, virt_real;

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double gen_now(void)
{
	return virt_now >= 0 ? virt_now : clock_s(CLOCK_MONOTONIC);
}

void gen_clock_virtual(void)
{
	virt_now = virt_base = clock_s(CLOCK_MONOTONIC);
	virt_real = clock_s(CLOCK_REALTIME);
}

/* Enter the network namespace NAME (/run/netns/NAME, or a path); returns the fd
 * of the previous namespace to come back to, or -1 with a message. */
static int enter_netns(const char *name)
{
	char path[512];
	int self, fd;

	if (name[0] == '/')
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		fprintf(stderr, "rocetop-gen: cannot open /proc/self/ns/net: %s.\n", strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rocetop-gen: network namespace %s does not exist (%s).\n", path,
			strerror(errno));
		close(self);
		return -1;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "rocetop-gen: cannot enter network namespace %s: %s.\n", path,
			strerror(errno));
		close(fd);
		close(self);
		return -1;
	}
	close(fd);
	return self;
}

static int leave_netns(int self)
{
	int rc = setns(self, CLONE_NEWNET);

	close(self);
	if (rc < 0)
		fprintf(stderr, "rocetop-gen: cannot return to the original network namespace: %s.\n",
			strerror(errno));
	return rc;
}

/* Open an AF_PACKET socket on ifname inside netns (NULL: current). Returns 0,
 * 2 for bad input (no such namespace or interface), 1 for other failures. */
int gen_port_open(struct gen_port *pt)
{
	struct ifreq ifr;
	struct sockaddr_ll sll;
	int self = -1, rc = 1;

	pt->fd = -1;
	if (pt->netns[0]) {
		self = enter_netns(pt->netns);
		if (self < 0)
			return 2;
	}
	pt->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0); /* protocol 0: send only */
	if (pt->fd < 0) {
		fprintf(stderr, "rocetop-gen: cannot open an AF_PACKET socket: %s (root or CAP_NET_RAW is needed).\n",
			strerror(errno));
		goto out;
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, pt->ifname, sizeof(pt->ifname));
	if (ioctl(pt->fd, SIOCGIFINDEX, &ifr) < 0) {
		fprintf(stderr, "rocetop-gen: no interface %s%s%s.\n", pt->ifname,
			pt->netns[0] ? " in network namespace " : "", pt->netns);
		rc = 2;
		goto fail;
	}
	pt->ifindex = ifr.ifr_ifindex;
	if (ioctl(pt->fd, SIOCGIFHWADDR, &ifr) < 0) {
		fprintf(stderr, "rocetop-gen: cannot read the MAC address of %s: %s.\n", pt->ifname,
			strerror(errno));
		goto fail;
	}
	memcpy(pt->mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(pt->fd, SIOCGIFMTU, &ifr) < 0)
		ifr.ifr_mtu = 1500;
	pt->mtu = ifr.ifr_mtu;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = 0;
	sll.sll_ifindex = pt->ifindex;
	if (bind(pt->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, "rocetop-gen: cannot bind to %s: %s.\n", pt->ifname, strerror(errno));
		goto fail;
	}
	rc = 0;
	goto out;
fail:
	close(pt->fd);
	pt->fd = -1;
out:
	if (self >= 0 && leave_netns(self) < 0)
		rc = 1;
	return rc;
}

/* A UDP socket on port 4791 inside netns, so the kernel answers no ICMP. */
int gen_sink_open(const char *netns)
{
	struct sockaddr_in sin;
	int self = -1, fd;

	if (netns && netns[0] && strcmp(netns, "-") != 0) {
		self = enter_netns(netns);
		if (self < 0)
			return -2;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons(GEN_ROCE_PORT);
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
			fprintf(stderr, "rocetop-gen: cannot bind the sink to UDP port %d: %s.\n",
				GEN_ROCE_PORT, strerror(errno));
			close(fd);
			fd = -1;
		}
	} else {
		fprintf(stderr, "rocetop-gen: cannot open the sink socket: %s.\n", strerror(errno));
	}
	if (self >= 0 && leave_netns(self) < 0 && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void gen_sink_drain(int fd)
{
	char buf[GEN_MAX_FRAME];

	if (fd < 0)
		return;
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* ---- pcap ---- */

int gen_pcap_open(struct gen_out *o, const char *path)
{
	uint32_t hdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };

	o->pcap = fopen(path, "wb");
	if (!o->pcap) {
		fprintf(stderr, "rocetop-gen: cannot create %s: %s.\n", path, strerror(errno));
		return -1;
	}
	if (fwrite(hdr, sizeof(hdr), 1, o->pcap) != 1)
		return -1;
	return 0;
}

static void pcap_write(struct gen_out *o, const uint8_t *buf, size_t len)
{
	struct timespec ts;
	uint32_t rec[4];

	if (virt_now >= 0) {
		double t = virt_real + (virt_now - virt_base);

		ts.tv_sec = (time_t)t;
		ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
	}
	rec[0] = (uint32_t)ts.tv_sec;
	rec[1] = (uint32_t)(ts.tv_nsec / 1000);
	rec[2] = rec[3] = (uint32_t)len;
	if (fwrite(rec, sizeof(rec), 1, o->pcap) != 1 || fwrite(buf, len, 1, o->pcap) != 1)
		o->pcap_errors++;
}

/* ---- tally ---- */

static struct gen_flow *flow_get(struct gen_out *o, const struct gen_frame *f)
{
	for (size_t i = 0; i < o->nflows; i++) {
		struct gen_flow *fl = &o->flows[i];
		if (fl->src == f->sip && fl->dst == f->dip && fl->dqpn == (f->dqpn & 0xffffff) &&
		    fl->side == f->side)
			return fl;
	}
	struct gen_flow *fl = gen_append((void **)&o->flows, &o->nflows, &o->capflows, sizeof(*fl));

	if (!fl)
		return NULL;
	fl->src = f->sip;
	fl->dst = f->dip;
	fl->dqpn = f->dqpn & 0xffffff;
	fl->side = f->side;
	return fl;
}

static void tally(struct gen_out *o, const struct gen_frame *f, size_t len)
{
	o->kinds[f->kind]++;
	o->total++;
	o->total_bytes += len;
	if (f->kind == K_PFC || f->kind == K_PAUSE) {
		for (int c = 0; c < 9; c++) {
			int en = f->kind == K_PFC ? (c < 8 && (f->pfc_vec >> c) & 1) : c == 8;
			uint16_t t = f->kind == K_PFC ? (c < 8 ? f->pfc_time[c] : 0) : f->pause_time;
			if (!en)
				continue;
			o->pfc[f->side][c].frames++;
			o->pfc[f->side][c].quanta += t;
			if (t == 0)
				o->pfc[f->side][c].xon++;
		}
		return;
	}
	struct gen_flow *fl = flow_get(o, f);
	if (!fl) {
		o->tally_errors++;
		return;
	}
	fl->pkts++;
	fl->bytes += len;
	fl->ecn[f->ecn & 3]++;
	if (f->kind == K_DATA && (f->ecn & 3) == 3)
		o->data_ce++;
	switch (f->kind) {
	case K_CNP: fl->cnp++; break;
	case K_ACK: fl->ack++; break;
	case K_NAK_SEQ: fl->nak_seq++; break;
	case K_NAK_OTHER: fl->nak_other++; break;
	case K_RNR: fl->rnr++; break;
	default: break;
	}
}

/* ---- emitting ---- */

static void sleep_until(double t)
{
	struct timespec ts;
	double now = gen_now();

	if (t <= now)
		return;
	if (virt_now >= 0) {
		virt_now = t;
		return;
	}
	/* absolute monotonic sleep; a signal cuts it short */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double d = t - now;
	ts.tv_sec += (time_t)d;
	ts.tv_nsec += (long)((d - (double)(time_t)d) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Once a second of the run: how far it is, on stderr. */
static void progress(struct gen_out *o, double now)
{
	double el = now - o->t_start, all = o->t_end - o->t_start;

	if (!o->progress || now < o->next_progress)
		return;
	o->next_progress = now + 1;
	fprintf(stderr, "%srocetop-gen: %.0f s of %.1f s, %llu frames, %llu bytes%s",
		o->progress == GEN_PROGRESS_TTY ? "\r" : "", el, all, (unsigned long long)o->total,
		(unsigned long long)o->total_bytes, o->progress == GEN_PROGRESS_TTY ? "\033[K" : "\n");
	fflush(stderr);
}

void gen_progress_end(struct gen_out *o)
{
	if (o->progress == GEN_PROGRESS_TTY && o->next_progress > o->t_start + 1)
		fprintf(stderr, "\r\033[K");
}

/* Is it time to stop (signal, frame budget, or wall clock past the end)? */
int gen_should_stop(struct gen_out *o)
{
	if (gen_stop_signal) {
		o->stop_reason = "signal";
		return 1;
	}
	if (o->max_frames && o->total >= o->max_frames) {
		o->stop_reason = "frames";
		return 1;
	}
	if (gen_now() >= o->t_end) {
		o->stop_reason = "duration";
		return 1;
	}
	if (o->fatal) {
		o->stop_reason = "error";
		return 1;
	}
	return 0;
}

/* Sleep until the end of the run (or a signal). */
void gen_wait_end(struct gen_out *o)
{
	while (!gen_stop_signal && gen_now() < o->t_end)
		sleep_until(o->t_end);
	gen_should_stop(o);
}

/* Send one frame out of pt, retrying while the queue is full. 0 when sent;
 * an error other than a full queue also stops the run (o->fatal). */
static int send_frame(struct gen_out *o, struct gen_port *pt, const uint8_t *buf, size_t len)
{
	struct sockaddr_ll sll;
	ssize_t n;
	int tries = 0;

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = pt->ifindex;
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, buf, 6);
	sll.sll_protocol = htons((uint16_t)(buf[12] << 8 | buf[13]));
	for (;;) {
		n = sendto(pt->fd, buf, len, 0, (struct sockaddr *)&sll, sizeof(sll));
		if (n == (ssize_t)len)
			return 0;
		if (n < 0 && (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) &&
		    ++tries < 100 && !gen_stop_signal) {
			struct timespec ts = { 0, 100000 };
			nanosleep(&ts, NULL);
			continue;
		}
		if (n < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
			fprintf(stderr, "rocetop-gen: sending on %s failed: %s.\n", pt->ifname,
				strerror(errno));
			o->fatal = 1;
		}
		return -1;
	}
}

/*
 * Put one frame on the wire at model time t_model (ns). Pacing: never faster
 * than the --rate, and not before the model time scaled to wall time.
 * Returns 0 to go on, 1 when the run must stop (the frame was then not sent).
 */
int gen_emit(struct gen_out *o, const struct gen_frame *f, double t_model)
{
	uint8_t buf[GEN_MAX_FRAME];
	size_t len;
	double target;

	target = o->last_emit + 1.0 / o->rate;
	if (t_model >= 0 && o->wall_per_model_ns > 0) {
		double m = o->t_start + t_model * o->wall_per_model_ns;
		if (m > target)
			target = m;
	}
	if (target >= o->t_end) {
		/* the run ends before this frame is due: wait for the end, then stop */
		gen_wait_end(o);
		return 1;
	}
	while (!gen_stop_signal && gen_now() < target)
		sleep_until(target);
	if (gen_should_stop(o))
		return 1;
	progress(o, gen_now());
	/* frames keep their schedule (so oversleeping does not slow the run down),
	 * but after a stall at most 10 ms of backlog is caught up */
	o->last_emit = target;
	if (gen_now() - o->last_emit > 0.01)
		o->last_emit = gen_now() - 0.01;

	len = gen_build(f, buf);
	struct gen_port *pt = &o->port[f->side];
	if (pt->fd >= 0) {
		if (send_frame(o, pt, buf, len)) {
			o->send_errors++;
			return gen_should_stop(o);
		}
		if (o->mirror && o->mirror_port.fd >= 0) {
			uint8_t copy[GEN_MAX_FRAME + GEN_MIRROR_HDR];
			size_t clen = gen_wrap_mirror(o->mirror, o->mirror_session, f->side == SIDE_DATA,
						      (uint32_t)o->mirror_frames, o->mirror_port.mac,
						      o->mirror_mac, buf, len, copy);

			if (send_frame(o, &o->mirror_port, copy, clen))
				o->mirror_errors++;
			else
				o->mirror_frames++;
		}
	} else if (!o->pcap) {
		return 0; /* nowhere to write: not tallied */
	}
	if (o->pcap)
		pcap_write(o, buf, len);
	tally(o, f, len);
	if (o->sflow) {
		double now = gen_now();

		gen_sflow_tick(o->sflow, now);
		gen_sflow_frame(o->sflow, f, buf, len, now);
	}
	if (o->sink_fd >= 0 && (o->total & 31) == 0)
		gen_sink_drain(o->sink_fd);
	return 0;
}

/* ---- writing the tally ---- */

static const char *ipstr(uint32_t a, char *s)
{
	struct in_addr in = { htonl(a) };
	return inet_ntop(AF_INET, &in, s, INET_ADDRSTRLEN);
}

static const char *side_name(int side)
{
	return side == SIDE_DATA ? "data" : "rcv";
}

int gen_write_tally(struct gen_out *o, const char *dir, const char *scenario, uint64_t seed,
		    const char *extra)
{
	static const char *kind_names[K__COUNT] = { "data", "cnp", "ack", "nak_seq", "nak_other",
						    "rnr_nak", "pfc", "pause_8023x" };
	char path[4096], a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];
	FILE *fp;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "rocetop-gen: cannot create the tally directory %s: %s.\n", dir,
			strerror(errno));
		return -1;
	}
	fp = gen_tally_open(path, sizeof(path), dir, "flows.csv",
			    "src,dst,dqpn,pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak,nak_seq,nak_other,side\n");
	if (!fp)
		return -1;
	for (size_t i = 0; i < o->nflows; i++) {
		struct gen_flow *fl = &o->flows[i];
		if (!fl->pkts)
			continue;
		/* ecn[] is indexed by codepoint: 0 not-ECT, 1 ECT(1), 2 ECT(0), 3 CE */
		fprintf(fp, "%s,%s,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%s\n",
			ipstr(fl->src, a), ipstr(fl->dst, b), fl->dqpn,
			(unsigned long long)fl->pkts, (unsigned long long)fl->bytes,
			(unsigned long long)fl->ecn[0], (unsigned long long)fl->ecn[2],
			(unsigned long long)fl->ecn[1], (unsigned long long)fl->ecn[3],
			(unsigned long long)fl->cnp, (unsigned long long)fl->ack,
			(unsigned long long)(fl->nak_seq + fl->nak_other), (unsigned long long)fl->rnr,
			(unsigned long long)fl->nak_seq, (unsigned long long)fl->nak_other,
			side_name(fl->side));
	}
	if (gen_tally_close(fp, path))
		return -1;

	fp = gen_tally_open(path, sizeof(path), dir, "pfc.csv", "prio,frames,xon,quanta,side\n");
	if (!fp)
		return -1;
	for (int s = 0; s < 2; s++) {
		for (int c = 0; c < 9; c++) {
			struct gen_pfc *p = &o->pfc[s][c];
			if (!p->frames)
				continue;
			if (c < 8)
				fprintf(fp, "%d,", c);
			else
				fprintf(fp, "all,");
			fprintf(fp, "%llu,%llu,%llu,%s\n", (unsigned long long)p->frames,
				(unsigned long long)p->xon, (unsigned long long)p->quanta, side_name(s));
		}
	}
	if (gen_tally_close(fp, path))
		return -1;

	fp = gen_tally_open(path, sizeof(path), dir, "summary.txt", NULL);
	if (!fp)
		return -1;
	double dur = o->t_stop - o->t_start;
	fprintf(fp, "scenario %s\n", scenario);
	fprintf(fp, "seed %llu\n", (unsigned long long)seed);
	fprintf(fp, "frames_total %llu\n", (unsigned long long)o->total);
	fprintf(fp, "bytes_total %llu\n", (unsigned long long)o->total_bytes);
	for (int k = 0; k < K__COUNT; k++)
		fprintf(fp, "frames_%s %llu\n", kind_names[k], (unsigned long long)o->kinds[k]);
	fprintf(fp, "frames_data_ce %llu\n", (unsigned long long)o->data_ce);
	fprintf(fp, "send_errors %llu\n", (unsigned long long)o->send_errors);
	fprintf(fp, "duration_s %.3f\n", dur);
	fprintf(fp, "rate_pps %.1f\n", dur > 0 ? (double)o->total / dur : 0.0);
	fprintf(fp, "rate_limit_pps %.1f\n", o->rate);
	fprintf(fp, "stop_reason %s\n", o->stop_reason ? o->stop_reason : "done");
	if (o->mirror) {
		static const char *mname[] = { "none", "erspan2", "erspan3", "vxlan" };

		/* every frame above, once more as a mirror copy (flows.csv holds
		 * their content; side data: egress of the mirrored port) */
		fprintf(fp, "mirror %s\n", mname[o->mirror]);
		fprintf(fp, "mirror_session %u\n", o->mirror_session);
		fprintf(fp, "frames_mirror %llu\n", (unsigned long long)o->mirror_frames);
		fprintf(fp, "mirror_errors %llu\n", (unsigned long long)o->mirror_errors);
	}
	if (extra)
		fputs(extra, fp);
	return gen_tally_close(fp, path);
}
