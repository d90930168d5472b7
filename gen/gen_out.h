/* rocetop-gen: output side (sockets, pacing, pcap, tally). */
#ifndef ROCETOP_GEN_OUT_H
#define ROCETOP_GEN_OUT_H

#include <signal.h>
#include <stdio.h>

#include "gen.h"

struct gen_port {
	char netns[256];   /* "" = current namespace */
	char ifname[IF_NAMESIZE_GEN]; /* "" = not given */
	int fd, ifindex, mtu;
	uint8_t mac[6];
};

struct gen_flow {
	uint32_t src, dst, dqpn;
	int side;
	uint64_t pkts, bytes, ecn[4], cnp, ack, nak_seq, nak_other, rnr;
};

struct gen_pfc {
	uint64_t frames, xon, quanta;
};

struct gen_out {
	struct gen_port port[2];  /* SIDE_DATA, SIDE_RCV */
	/* --mirror: a copy of every frame, as a switch mirrors the congested port
	 * (data leaving it towards the receiver: egress; the receiver's frames:
	 * ingress), wrapped and sent out of mirror_port to a collector */
	struct gen_port mirror_port;
	int mirror;               /* enum gen_mirror */
	uint32_t mirror_session;  /* ERSPAN session ID or VXLAN VNI */
	uint8_t mirror_mac[6];    /* the collector's MAC */
	uint64_t mirror_frames, mirror_errors;
	FILE *pcap;
	int sink_fd;
	double rate;              /* frames per second, all kinds */
	double wall_per_model_ns; /* wall seconds per model nanosecond (0: no model pacing) */
	double t_start, t_end, t_stop, last_emit;
	uint64_t max_frames;      /* 0: no limit */
	const char *stop_reason;
	int fatal;
	/* tally */
	struct gen_flow *flows;
	size_t nflows, capflows;
	struct gen_pfc pfc[2][9]; /* [side][prio 0-7, 8 = 802.3x "all"] */
	uint64_t kinds[K__COUNT], total, total_bytes, data_ce;
	uint64_t send_errors, pcap_errors, tally_errors;
	struct gen_sflow *sflow;  /* --sflow: the switch's sFlow agent, or NULL */
	int progress;             /* enum gen_progress */
	double next_progress;     /* wall time of the next progress report */
};

/* Progress on stderr, once a second: a line rewritten in place on a
 * terminal, whole lines with -v. */
enum gen_progress { GEN_PROGRESS_OFF = 0, GEN_PROGRESS_TTY, GEN_PROGRESS_LINES };

extern volatile sig_atomic_t gen_stop_signal;

void gen_install_signals(void);
double gen_now(void);
/* Frames go only to the pcap file: the run's clock moves on at each wait
 * instead of waiting (gen/gen_out.c). */
void gen_clock_virtual(void);
int gen_port_open(struct gen_port *pt);
int gen_sink_open(const char *netns);
void gen_sink_drain(int fd);
int gen_pcap_open(struct gen_out *o, const char *path);
int gen_should_stop(struct gen_out *o);
void gen_wait_end(struct gen_out *o);
/* After the run: end a progress line left on a terminal. */
void gen_progress_end(struct gen_out *o);
int gen_emit(struct gen_out *o, const struct gen_frame *f, double t_model);
int gen_write_tally(struct gen_out *o, const char *dir, const char *scenario, uint64_t seed,
		    const char *extra);

#endif
