/*
 * rocetop-gen: a RoCEv2 traffic generator with an exact tally.
 *
 * It writes well-formed RoCEv2 frames (Ethernet [802.1Q] / IPv4 / UDP 4791 /
 * BTH [RETH|AETH] / payload / ICRC), CNPs, ACKs, NAKs, PFC and 802.3x pause
 * frames on AF_PACKET sockets, possibly in other network namespaces, and
 * counts every frame that was written in full. The frames come either from a
 * fixed mix (--frames N) or from a small model of a fabric: an emulated switch
 * port with a queue, RED-like ECN marking and tail drops; a DCQCN
 * notification point (CNPs, rate limited per QP) and responder (ACK, NAK,
 * RNR NAK) at the receiver; DCQCN reaction points (rate cut and recovery) and
 * go-back-N at the senders; a port sending a PFC storm.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "gen_out.h"
#include "gen_model.h"
#include "gen_sflow.h"

static const char usage_text[] =
"Usage: rocetop-gen [OPTIONS]\n"
"Send RoCEv2 traffic (data, CNP, ACK, NAK, RNR NAK, PFC, 802.3x) from a model of a\n"
"congested fabric, and write an exact tally of every frame put on the wire.\n"
"\n"
"What to send:\n"
"  --scenario NAME      incast | pfc-storm | steady | mixed | fixed\n"
"                       (default: fixed when --frames is given, else incast)\n"
"                       incast:    N senders -> one receiver through a congested\n"
"                                  port: CE marks, CNPs, DCQCN, tail drops, NAKs,\n"
"                                  retransmits, RNR NAKs; prio 3, DSCP 26, ECT(0)\n"
"                       pfc-storm: victims on prio 3 (DSCP 26) paused by a PFC\n"
"                                  storm (time 0xffff, then XON), bystanders on\n"
"                                  prio 1 (DSCP 10) keep flowing\n"
"                       steady:    uncongested flows (prio 1, DSCP 10), ACKs only\n"
"                       mixed:     incast (prio 3, DSCP 26) + steady (prio 1,\n"
"                                  DSCP 10) + PFC storm victims (prio 4, DSCP 34)\n"
"                       fixed:     a fixed cycle of 25 frames of every kind\n"
"  --frames N           stop after N frames (all kinds); alone it selects 'fixed'\n"
"  --senders N          senders in incast (and flows in steady/pfc-storm); default 4\n"
"  --duration S         stop after S seconds (default 10; fractions allowed)\n"
"  --rate PPS           at most PPS frames per second on the wire, all kinds\n"
"                       together (default 10000)\n"
"  --seed N             seed of the model's PRNG (default 1)\n"
"\n"
"Where to send:\n"
"  --tx-data [NETNS:]IFNAME  interface (in network namespace NETNS, i.e.\n"
"                       /run/netns/NETNS or a path) for the senders' frames: data\n"
"  --tx-rcv [NETNS:]IFNAME   interface for the receiver's frames: CNP, ACK, NAK,\n"
"                       RNR NAK, PFC, 802.3x. If only one of the two is given,\n"
"                       both kinds go out of it\n"
"  --data-netns NAME    namespace of --tx-data (same as the NETNS: prefix)\n"
"  --rcv-netns NAME     namespace of --tx-rcv\n"
"  --pcap FILE          also write every frame to FILE (pcap); without an\n"
"                       interface, frames go only there\n"
"  --sink NETNS         open a UDP socket on port 4791 in NETNS ('-': here) and\n"
"                       drain it, so the kernel sends no ICMP port unreachable\n"
"  --mirror TYPE        also send a mirror copy of every frame, as the switch\n"
"                       mirrors its congested port: erspan2 (GRE + ERSPAN type II),\n"
"                       erspan3 (GRE + ERSPAN type III: data leaving the port\n"
"                       towards the receiver is egress, the receiver's frames\n"
"                       ingress) or vxlan; IPv4 10.78.0.1 -> 10.78.0.2\n"
"  --tx-mirror [NETNS:]IFNAME  interface the mirror copies go out of\n"
"  --mirror-session N   ERSPAN session ID (0-1023) or VXLAN VNI (default 10)\n"
"  --mirror-mac MAC     destination MAC of the copies (default 02:78:00:00:00:02)\n"
"\n"
"Addresses:\n"
"  --dst-mac MAC        destination MAC of data frames (default: the MAC of the\n"
"                       --tx-rcv interface, else 02:77:00:00:00:02)\n"
"  --rcv-mac MAC        source MAC of the receiver's frames (default: --dst-mac)\n"
"  --src-mac MAC        source MAC of every sender (default: one per sender,\n"
"                       02:77:00:00:01:XX with XX = last octet of its IP)\n"
"  --rcv-ip A.B.C.D     receiver IPv4 address (default 10.77.0.2)\n"
"  --src-ip A.B.C.D     first sender address (default 10.77.0.11); incast senders\n"
"                       take +0.., steady flows +20.., PFC victims +40..\n"
"  --vlan VID           tag RoCE frames with 802.1Q VID, PCP = priority\n"
"                       (default: untagged, priority only in the DSCP)\n"
"\n"
"Model:\n"
"  --payload BYTES      payload per data packet, multiple of 4 (default 1024)\n"
"  --msg-pkts N         packets per message (default 8)\n"
"  --link-gbps G        model link speed (default 25)\n"
"  --kmin KB --kmax KB  ECN marking thresholds of the port queue (default 40, 160)\n"
"  --pmax P             marking probability at Kmax (default 0.2)\n"
"  --buffer KB          port buffer; beyond it packets are tail-dropped (default 256)\n"
"  --cnp-interval US    minimum model time between CNPs per QP (default 50)\n"
"  --ack-every K        the receiver ACKs at least every K packets (default 16)\n"
"  --rnr-prob P         probability of an RNR NAK on a SEND (default 0.05)\n"
"\n"
"sFlow (the switch model as an sFlow v5 agent):\n"
"  --sflow ADDR:PORT    send sFlow to a collector: frames the switch forwards\n"
"                       sampled 1 in --sflow-rate at random (data leaving on the\n"
"                       receiver's port 1 with the model's queue depth and\n"
"                       delay, the receiver's frames entering it), a drop\n"
"                       notification (no_buffer_space) per tail drop, counter\n"
"                       samples of port 1 every 2 s\n"
"  --sflow-rate N       sampling rate (default 64)\n"
"  --sflow-agent A.B.C.D  the agent address in the datagrams (default 10.77.0.254)\n"
"  --sflow-netns NAME   open the sFlow socket in network namespace NAME\n"
"\n"
"Output:\n"
"  --tally DIR          at exit write DIR/flows.csv, DIR/pfc.csv, DIR/summary.txt\n"
"                       (with --mirror: the mirror copies sent, frames_mirror)\n"
"  -q, --quiet          no summary line on stderr\n"
"  -h, --help           this text\n"
"\n"
"The run ends by itself (--duration, --frames) or on SIGINT/SIGTERM; the tally is\n"
"written in every case. Bad input: a message and exit status 2.\n";

static void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "rocetop-gen: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help).\n");
	exit(2);
}

static double parse_num(const char *s, const char *opt, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
		fprintf(stderr, "rocetop-gen: %s needs a number from %g to %g, not '%s' (see --help).\n",
			opt, lo, hi, s);
		exit(2);
	}
	return v;
}

static uint64_t parse_u64(const char *s, const char *opt, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s == '-' || *s == '+')
		goto badnum;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi)
		goto badnum;
	return v;
badnum:
	fprintf(stderr, "rocetop-gen: %s needs a whole number from %llu to %llu, not '%s' (see --help).\n",
		opt, (unsigned long long)lo, (unsigned long long)hi, s);
	exit(2);
}

static void parse_mac(const char *s, uint8_t *mac, const char *opt)
{
	unsigned v[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6) {
		fprintf(stderr, "rocetop-gen: %s needs a MAC address like 02:77:00:00:00:02, not '%s' (see --help).\n",
			opt, s);
		exit(2);
	}
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			bad("MAC address '%s' has an octet above ff", s);
		mac[i] = (uint8_t)v[i];
	}
}

static uint32_t parse_ip(const char *s, const char *opt)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1) {
		fprintf(stderr, "rocetop-gen: %s needs an IPv4 address like 10.77.0.2, not '%s' (see --help).\n",
			opt, s);
		exit(2);
	}
	return ntohl(a.s_addr);
}

static void parse_port(const char *s, struct gen_port *pt, const char *opt)
{
	const char *colon = strchr(s, ':');
	const char *ifn = colon ? colon + 1 : s;

	if (colon) {
		if (colon == s || (size_t)(colon - s) >= sizeof(pt->netns))
			bad("the namespace in '%s' is empty or too long", s);
		memcpy(pt->netns, s, (size_t)(colon - s));
		pt->netns[colon - s] = 0;
	}
	if (!*ifn || strlen(ifn) >= IF_NAMESIZE_GEN || strchr(ifn, '/') || strchr(ifn, ':')) {
		fprintf(stderr, "rocetop-gen: %s needs [NETNS:]IFNAME with a valid interface name, not '%s' (see --help).\n",
			opt, s);
		exit(2);
	}
	snprintf(pt->ifname, sizeof(pt->ifname), "%s", ifn);
}

enum {
	O_SCENARIO = 256, O_FRAMES, O_SENDERS, O_DURATION, O_RATE, O_SEED, O_TXDATA, O_TXRCV,
	O_DATANS, O_RCVNS, O_PCAP, O_SINK, O_DSTMAC, O_RCVMAC, O_SRCMAC, O_RCVIP, O_SRCIP, O_VLAN,
	O_PAYLOAD, O_MSGPKTS, O_LINK, O_KMIN, O_KMAX, O_PMAX, O_BUFFER, O_CNPINT, O_ACKEVERY,
	O_RNRPROB, O_TALLY, O_SFLOW, O_SFLOW_RATE, O_SFLOW_AGENT, O_SFLOW_NETNS, O_MIRROR, O_TXMIRROR,
	O_MIRRORSESSION, O_MIRRORMAC,
};

static const struct option longopts[] = {
	{ "scenario", required_argument, 0, O_SCENARIO },
	{ "frames", required_argument, 0, O_FRAMES },
	{ "senders", required_argument, 0, O_SENDERS },
	{ "duration", required_argument, 0, O_DURATION },
	{ "rate", required_argument, 0, O_RATE },
	{ "seed", required_argument, 0, O_SEED },
	{ "tx-data", required_argument, 0, O_TXDATA },
	{ "tx-rcv", required_argument, 0, O_TXRCV },
	{ "data-netns", required_argument, 0, O_DATANS },
	{ "rcv-netns", required_argument, 0, O_RCVNS },
	{ "pcap", required_argument, 0, O_PCAP },
	{ "sink", required_argument, 0, O_SINK },
	{ "dst-mac", required_argument, 0, O_DSTMAC },
	{ "rcv-mac", required_argument, 0, O_RCVMAC },
	{ "src-mac", required_argument, 0, O_SRCMAC },
	{ "rcv-ip", required_argument, 0, O_RCVIP },
	{ "src-ip", required_argument, 0, O_SRCIP },
	{ "vlan", required_argument, 0, O_VLAN },
	{ "payload", required_argument, 0, O_PAYLOAD },
	{ "msg-pkts", required_argument, 0, O_MSGPKTS },
	{ "link-gbps", required_argument, 0, O_LINK },
	{ "kmin", required_argument, 0, O_KMIN },
	{ "kmax", required_argument, 0, O_KMAX },
	{ "pmax", required_argument, 0, O_PMAX },
	{ "buffer", required_argument, 0, O_BUFFER },
	{ "cnp-interval", required_argument, 0, O_CNPINT },
	{ "ack-every", required_argument, 0, O_ACKEVERY },
	{ "rnr-prob", required_argument, 0, O_RNRPROB },
	{ "tally", required_argument, 0, O_TALLY },
	{ "mirror", required_argument, 0, O_MIRROR },
	{ "tx-mirror", required_argument, 0, O_TXMIRROR },
	{ "mirror-session", required_argument, 0, O_MIRRORSESSION },
	{ "mirror-mac", required_argument, 0, O_MIRRORMAC },
	{ "sflow", required_argument, 0, O_SFLOW },
	{ "sflow-rate", required_argument, 0, O_SFLOW_RATE },
	{ "sflow-agent", required_argument, 0, O_SFLOW_AGENT },
	{ "sflow-netns", required_argument, 0, O_SFLOW_NETNS },
	{ "quiet", no_argument, 0, 'q' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

int main(int argc, char **argv)
{
	struct gen_cfg c;
	struct gen_out o;
	const char *tally_dir = NULL, *pcap_path = NULL, *sink_ns = NULL;
	const char *sflow_dest = NULL, *sflow_ns = NULL;
	uint32_t sflow_rate = 64, sflow_agent = 0x0a4d00fe;	/* 10.77.0.254 */
	int quiet = 0, opt, rc;
	char data_ns[256] = "", rcv_ns[256] = "";

	memset(&c, 0, sizeof(c));
	memset(&o, 0, sizeof(o));
	c.scenario = -1;
	c.senders = 4;
	c.duration = 10;
	c.rate = 10000;
	c.seed = 1;
	c.rcv_ip = 0x0a4d0002;   /* 10.77.0.2 */
	c.src_ip = 0x0a4d000b;   /* 10.77.0.11 */
	c.vlan = -1;
	c.payload = 1024;
	c.msg_pkts = 8;
	c.link_gbps = 25;
	c.kmin_kb = 40;
	c.kmax_kb = 160;
	c.pmax = 0.2;
	c.buffer_kb = 256;
	c.cnp_interval_us = 50;
	c.ack_every = 16;
	c.rnr_prob = 0.05;
	o.sink_fd = -1;
	o.port[0].fd = o.port[1].fd = o.mirror_port.fd = -1;
	o.mirror_session = 10;
	{
		static const uint8_t def[6] = { 0x02, 0x78, 0, 0, 0, 0x02 };

		memcpy(o.mirror_mac, def, 6);
	}

	while ((opt = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (opt) {
		case O_SCENARIO:
			c.scenario = gen_scenario_from_name(optarg);
			if (c.scenario < 0)
				bad("unknown scenario '%s': use incast, pfc-storm, steady, mixed or fixed", optarg);
			break;
		case O_FRAMES: c.frames = parse_u64(optarg, "--frames", 1, 1000000000000ULL); break;
		case O_SENDERS: c.senders = (int)parse_u64(optarg, "--senders", 1, 200); break;
		case O_DURATION: c.duration = parse_num(optarg, "--duration", 0.001, 7 * 86400); break;
		case O_RATE: c.rate = parse_num(optarg, "--rate", 1, 10000000); break;
		case O_SEED: c.seed = parse_u64(optarg, "--seed", 0, UINT64_MAX); break;
		case O_TXDATA: parse_port(optarg, &o.port[SIDE_DATA], "--tx-data"); break;
		case O_TXRCV: parse_port(optarg, &o.port[SIDE_RCV], "--tx-rcv"); break;
		case O_DATANS: snprintf(data_ns, sizeof(data_ns), "%s", optarg); break;
		case O_RCVNS: snprintf(rcv_ns, sizeof(rcv_ns), "%s", optarg); break;
		case O_PCAP: pcap_path = optarg; break;
		case O_SINK: sink_ns = optarg; break;
		case O_DSTMAC: parse_mac(optarg, c.dst_mac, "--dst-mac"); c.have_dst_mac = 1; break;
		case O_RCVMAC: parse_mac(optarg, c.rcv_mac, "--rcv-mac"); c.have_rcv_mac = 1; break;
		case O_SRCMAC: parse_mac(optarg, c.src_mac, "--src-mac"); c.have_src_mac = 1; break;
		case O_RCVIP: c.rcv_ip = parse_ip(optarg, "--rcv-ip"); break;
		case O_SRCIP: c.src_ip = parse_ip(optarg, "--src-ip"); break;
		case O_VLAN: c.vlan = (int)parse_u64(optarg, "--vlan", 0, 4094); break;
		case O_PAYLOAD:
			c.payload = (int)parse_u64(optarg, "--payload", 0, 8192);
			if (c.payload % 4)
				bad("--payload must be a multiple of 4, not %s", optarg);
			break;
		case O_MSGPKTS: c.msg_pkts = (int)parse_u64(optarg, "--msg-pkts", 1, 1000000); break;
		case O_LINK: c.link_gbps = parse_num(optarg, "--link-gbps", 0.001, 10000); break;
		case O_KMIN: c.kmin_kb = parse_num(optarg, "--kmin", 0, 1e6); break;
		case O_KMAX: c.kmax_kb = parse_num(optarg, "--kmax", 0, 1e6); break;
		case O_PMAX: c.pmax = parse_num(optarg, "--pmax", 0, 1); break;
		case O_BUFFER: c.buffer_kb = parse_num(optarg, "--buffer", 1, 1e6); break;
		case O_CNPINT: c.cnp_interval_us = parse_num(optarg, "--cnp-interval", 0, 1e9); break;
		case O_ACKEVERY: c.ack_every = (int)parse_u64(optarg, "--ack-every", 1, 1000000); break;
		case O_RNRPROB: c.rnr_prob = parse_num(optarg, "--rnr-prob", 0, 1); break;
		case O_TALLY: tally_dir = optarg; break;
		case O_MIRROR:
			if (!strcmp(optarg, "erspan2"))
				o.mirror = GEN_MIRROR_ERSPAN2;
			else if (!strcmp(optarg, "erspan3"))
				o.mirror = GEN_MIRROR_ERSPAN3;
			else if (!strcmp(optarg, "vxlan"))
				o.mirror = GEN_MIRROR_VXLAN;
			else
				bad("unknown mirror '%s': use erspan2, erspan3 or vxlan", optarg);
			break;
		case O_TXMIRROR: parse_port(optarg, &o.mirror_port, "--tx-mirror"); break;
		case O_MIRRORSESSION:
			o.mirror_session = (uint32_t)parse_u64(optarg, "--mirror-session", 0, 0xffffff);
			break;
		case O_MIRRORMAC: parse_mac(optarg, o.mirror_mac, "--mirror-mac"); break;
		case O_SFLOW: sflow_dest = optarg; break;
		case O_SFLOW_RATE: sflow_rate = (uint32_t)parse_u64(optarg, "--sflow-rate", 1, 1u << 30); break;
		case O_SFLOW_AGENT: sflow_agent = parse_ip(optarg, "--sflow-agent"); break;
		case O_SFLOW_NETNS: sflow_ns = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			fprintf(stderr, "rocetop-gen: unknown option or missing argument (see --help).\n");
			return 2;
		}
	}
	if (optind < argc)
		bad("unexpected argument '%s'", argv[optind]);
	if (c.scenario < 0)
		c.scenario = c.frames ? SC_FIXED : SC_INCAST;
	if (c.kmax_kb < c.kmin_kb)
		bad("%s: --kmax must not be below --kmin", "bad thresholds");
	if (data_ns[0]) {
		if (!o.port[SIDE_DATA].ifname[0])
			bad("%s needs --tx-data", "--data-netns");
		snprintf(o.port[SIDE_DATA].netns, sizeof(o.port[0].netns), "%s", data_ns);
	}
	if (rcv_ns[0]) {
		if (!o.port[SIDE_RCV].ifname[0])
			bad("%s needs --tx-rcv", "--rcv-netns");
		snprintf(o.port[SIDE_RCV].netns, sizeof(o.port[1].netns), "%s", rcv_ns);
	}
	if (!o.port[0].ifname[0] && !o.port[1].ifname[0] && !pcap_path)
		bad("%s", "nothing to send on: give --tx-data and/or --tx-rcv, or --pcap");
	if (o.mirror && !o.mirror_port.ifname[0])
		bad("%s needs --tx-mirror, the interface towards the collector", "--mirror");
	if (!o.mirror && o.mirror_port.ifname[0])
		bad("%s needs --mirror erspan2|erspan3|vxlan", "--tx-mirror");
	if (o.mirror != GEN_MIRROR_VXLAN && o.mirror_session > 1023) {
		char s[16];

		snprintf(s, sizeof(s), "%u", o.mirror_session);
		bad("--mirror-session %s: an ERSPAN session ID is 0 to 1023", s);
	}

	/* open what was asked for; a missing namespace or interface is bad input */
	for (int s = 0; s < 2; s++) {
		if (!o.port[s].ifname[0])
			continue;
		rc = gen_port_open(&o.port[s]);
		if (rc)
			return rc;
	}
	if (o.mirror_port.ifname[0]) {
		rc = gen_port_open(&o.mirror_port);
		if (rc)
			return rc;
	}
	if (o.port[SIDE_DATA].fd < 0 && o.port[SIDE_RCV].fd >= 0)
		o.port[SIDE_DATA] = o.port[SIDE_RCV];
	else if (o.port[SIDE_RCV].fd < 0 && o.port[SIDE_DATA].fd >= 0)
		o.port[SIDE_RCV] = o.port[SIDE_DATA];
	if (!c.have_dst_mac) {
		static const uint8_t def[6] = { 0x02, 0x77, 0, 0, 0, 0x02 };
		if (o.port[SIDE_RCV].ifname[0] && o.port[SIDE_RCV].fd >= 0 &&
		    o.port[SIDE_RCV].fd != o.port[SIDE_DATA].fd)
			memcpy(c.dst_mac, o.port[SIDE_RCV].mac, 6);
		else
			memcpy(c.dst_mac, def, 6);
	}
	if (!c.have_rcv_mac)
		memcpy(c.rcv_mac, c.dst_mac, 6);
	{
		/* the largest data frame must fit the interfaces' MTU */
		int l3 = 20 + 8 + 12 + 16 + c.payload + 4;
		for (int s = 0; s < 2; s++) {
			if (o.port[s].fd >= 0 && l3 > o.port[s].mtu) {
				fprintf(stderr, "rocetop-gen: --payload %d makes %d-byte IP packets, above the MTU %d of %s (see --help).\n",
					c.payload, l3, o.port[s].mtu, o.port[s].ifname);
				return 2;
			}
		}
		/* a mirror copy carries the whole frame (tag included) in its own headers */
		if (o.mirror_port.fd >= 0 && l3 + 18 + GEN_MIRROR_HDR - 14 > o.mirror_port.mtu) {
			fprintf(stderr, "rocetop-gen: mirror copies of --payload %d frames need an MTU of %d on %s, which has %d (see --help).\n",
				c.payload, l3 + 18 + GEN_MIRROR_HDR - 14, o.mirror_port.ifname,
				o.mirror_port.mtu);
			return 2;
		}
	}
	if (pcap_path && gen_pcap_open(&o, pcap_path) < 0)
		return 1;
	if (sink_ns) {
		o.sink_fd = gen_sink_open(sink_ns);
		if (o.sink_fd == -2)
			return 2;
		if (o.sink_fd < 0)
			return 1;
	}

	if (sflow_dest) {
		o.sflow = gen_sflow_open(sflow_dest, sflow_ns, sflow_agent, sflow_rate, c.seed, c.link_gbps);
		if (!o.sflow)
			return 2;
	} else if (sflow_ns) {
		bad("%s needs --sflow", "--sflow-netns");
	}

	gen_install_signals();
	o.rate = c.rate;
	o.max_frames = c.frames;
	o.t_start = gen_now();
	o.t_end = o.t_start + c.duration;
	o.last_emit = o.t_start - 1.0 / c.rate;

	char extra[2048] = "";
	gen_run(&c, &o, extra, sizeof(extra));

	o.t_stop = gen_now();
	if (!o.stop_reason)
		o.stop_reason = gen_stop_signal ? "signal" : "done";
	if (o.pcap && fclose(o.pcap) != 0)
		fprintf(stderr, "rocetop-gen: writing the pcap file failed.\n");
	rc = o.fatal ? 1 : 0;
	if (tally_dir && gen_write_tally(&o, tally_dir, gen_scenario_name(c.scenario), c.seed, extra) < 0)
		rc = 1;
	if (o.sflow && gen_sflow_close(o.sflow, tally_dir) < 0)
		rc = 1;
	if (!quiet) {
		double d = o.t_stop - o.t_start;
		fprintf(stderr,
			"rocetop-gen: %s: %llu frames (data %llu, CE %llu, CNP %llu, ACK %llu, NAK %llu, RNR NAK %llu, PFC %llu, pause %llu) in %.2f s, %.0f/s, stopped by %s\n",
			gen_scenario_name(c.scenario), (unsigned long long)o.total,
			(unsigned long long)o.kinds[K_DATA], (unsigned long long)o.data_ce,
			(unsigned long long)o.kinds[K_CNP], (unsigned long long)o.kinds[K_ACK],
			(unsigned long long)(o.kinds[K_NAK_SEQ] + o.kinds[K_NAK_OTHER]),
			(unsigned long long)o.kinds[K_RNR], (unsigned long long)o.kinds[K_PFC],
			(unsigned long long)o.kinds[K_PAUSE], d, d > 0 ? (double)o.total / d : 0.0,
			o.stop_reason);
	}
	free(o.flows);
	return rc;
}
