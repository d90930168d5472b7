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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gen.h"
#include "gen_out.h"
#include "gen_model.h"
#include "gen_sflow.h"

/* Everything the command line sets. */
struct gen_args {
	struct gen_cfg c;
	struct gen_out o;
	const char *tally_dir, *pcap_path, *sink_ns, *sflow_dest, *sflow_ns;
	const char *data_ns, *rcv_ns;
	uint32_t sflow_rate, sflow_agent;
	int quiet, verbose;
};

static void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "rocetop-gen: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help).\n");
}

static int parse_num(const char *s, const char *opt, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi) {
		fprintf(stderr, "rocetop-gen: --%s needs a number from %g to %g, not '%s' (see --help).\n",
			opt, lo, hi, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* hi as a double: UINT64_MAX does not survive the way back, so it is said as such */
static int parse_u64(const char *s, const char *opt, double lo, double hi, uint64_t *out)
{
	uint64_t top = hi >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)hi;
	unsigned long long v;
	char *end;

	errno = 0;
	if (*s == '-' || *s == '+')
		goto badnum;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v < (uint64_t)lo || v > top)
		goto badnum;
	*out = v;
	return 0;
badnum:
	fprintf(stderr, "rocetop-gen: --%s needs a whole number from %llu to %llu, not '%s' (see --help).\n",
		opt, (unsigned long long)lo, (unsigned long long)top, s);
	return -EINVAL;
}

static int parse_mac(const char *s, uint8_t *mac, const char *opt)
{
	unsigned v[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6) {
		fprintf(stderr, "rocetop-gen: --%s needs a MAC address like 02:77:00:00:00:02, not '%s' (see --help).\n",
			opt, s);
		return -EINVAL;
	}
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255) {
			bad("MAC address '%s' has an octet above ff", s);
			return -EINVAL;
		}
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

static int parse_port(const char *s, struct gen_port *pt, const char *opt)
{
	const char *colon = strchr(s, ':');
	const char *ifn = colon ? colon + 1 : s;

	if (colon) {
		if (colon == s || (size_t)(colon - s) >= sizeof(pt->netns)) {
			bad("the namespace in '%s' is empty or too long", s);
			return -EINVAL;
		}
		memcpy(pt->netns, s, (size_t)(colon - s));
		pt->netns[colon - s] = 0;
	}
	if (!*ifn || strlen(ifn) >= IF_NAMESIZE_GEN || strchr(ifn, '/') || strchr(ifn, ':')) {
		fprintf(stderr, "rocetop-gen: --%s needs [NETNS:]IFNAME with a valid interface name, not '%s' (see --help).\n",
			opt, s);
		return -EINVAL;
	}
	snprintf(pt->ifname, sizeof(pt->ifname), "%s", ifn);
	return 0;
}

/*
 * The table's setters: each reads its bounds and its field from the table
 * entry (.lo, .hi, .off), and says what was wrong in rocetop-gen's words.
 */
#define FIELD(ctx, o, type)	((type *)((char *)(ctx) + (o)->off))

static int set_real(void *ctx, const struct rt_opt *o, const char *arg)
{
	return parse_num(arg, o->name, o->lo, o->hi, FIELD(ctx, o, double));
}

static int set_u64(void *ctx, const struct rt_opt *o, const char *arg)
{
	return parse_u64(arg, o->name, o->lo, o->hi, FIELD(ctx, o, uint64_t));
}

static int set_u32(void *ctx, const struct rt_opt *o, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, o->name, o->lo, o->hi, &v))
		return -EINVAL;
	*FIELD(ctx, o, uint32_t) = (uint32_t)v;
	return 0;
}

static int set_int(void *ctx, const struct rt_opt *o, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, o->name, o->lo, o->hi, &v))
		return -EINVAL;
	*FIELD(ctx, o, int) = (int)v;
	return 0;
}

static int set_ip(void *ctx, const struct rt_opt *o, const char *arg)
{
	struct in_addr a;

	if (inet_pton(AF_INET, arg, &a) != 1) {
		fprintf(stderr, "rocetop-gen: --%s needs an IPv4 address like 10.77.0.2, not '%s' (see --help).\n",
			o->name, arg);
		return -EINVAL;
	}
	*FIELD(ctx, o, uint32_t) = ntohl(a.s_addr);
	return 0;
}

static int set_port(void *ctx, const struct rt_opt *o, const char *arg)
{
	return parse_port(arg, FIELD(ctx, o, struct gen_port), o->name);
}

/* A MAC given, and the model told so (it has a default for each of them). */
static int set_mac(void *ctx, const struct rt_opt *o, const char *arg)
{
	struct gen_args *a = ctx;

	if (parse_mac(arg, FIELD(ctx, o, uint8_t), o->name))
		return -EINVAL;
	if (!strcmp(o->name, "dst-mac"))
		a->c.have_dst_mac = 1;
	else if (!strcmp(o->name, "rcv-mac"))
		a->c.have_rcv_mac = 1;
	else if (!strcmp(o->name, "src-mac"))
		a->c.have_src_mac = 1;
	return 0;
}

static int on_scenario(void *ctx, const struct rt_opt *o, const char *arg)
{
	struct gen_args *a = ctx;

	(void)o;
	a->c.scenario = gen_scenario_from_name(arg);
	if (a->c.scenario < 0) {
		bad("unknown scenario '%s': use incast, pfc-storm, steady, mixed or fixed", arg);
		return -EINVAL;
	}
	return 0;
}

static int on_payload(void *ctx, const struct rt_opt *o, const char *arg)
{
	struct gen_args *a = ctx;

	if (set_int(ctx, o, arg))
		return -EINVAL;
	if (a->c.payload % 4) {
		bad("--payload must be a multiple of 4, not %s", arg);
		return -EINVAL;
	}
	return 0;
}

static int on_mirror(void *ctx, const struct rt_opt *o, const char *arg)
{
	struct gen_args *a = ctx;

	(void)o;
	if (!strcmp(arg, "erspan2"))
		a->o.mirror = GEN_MIRROR_ERSPAN2;
	else if (!strcmp(arg, "erspan3"))
		a->o.mirror = GEN_MIRROR_ERSPAN3;
	else if (!strcmp(arg, "vxlan"))
		a->o.mirror = GEN_MIRROR_VXLAN;
	else {
		bad("unknown mirror '%s': use erspan2, erspan3 or vxlan", arg);
		return -EINVAL;
	}
	return 0;
}


typedef uint8_t mac_t[6];

#define A struct gen_args
#define REAL(f, l, h)	.kind = RT_OPT_CALL, .fn = set_real, .off = RT_OFF(A, f, double), .lo = (l), .hi = (h)
#define U64(f, l, h)	.kind = RT_OPT_CALL, .fn = set_u64, .off = RT_OFF(A, f, uint64_t), .lo = (l), .hi = (h)
#define U32(f, l, h)	.kind = RT_OPT_CALL, .fn = set_u32, .off = RT_OFF(A, f, uint32_t), .lo = (l), .hi = (h)
#define INT(f, l, h)	.kind = RT_OPT_CALL, .fn = set_int, .off = RT_OFF(A, f, int), .lo = (l), .hi = (h)
#define IP(f)		.kind = RT_OPT_CALL, .fn = set_ip, .off = RT_OFF(A, f, uint32_t)
#define MAC(f)		.kind = RT_OPT_CALL, .fn = set_mac, .off = RT_OFF(A, f, mac_t)
#define PORT(f)		.kind = RT_OPT_CALL, .fn = set_port, .off = RT_OFF(A, f, struct gen_port)

/* same shape as rocetop lab's table (user/cmd/lab.c): rocetop-gen's own scenarios and words */
static const struct rt_opt gen_opts[] = {
	RT_OPT_SECTION("What to send"),
	{ 256, "scenario", "NAME", "one of incast | pfc-storm | steady | mixed | fixed\n"
		"(default: fixed when --frames is given, else incast)\n"
		"  incast:    N senders -> one receiver through a congested\n"
		"             port: CE marks, CNPs, DCQCN, tail drops, NAKs,\n"
		"             retransmits, RNR NAKs; prio 3, DSCP 26, ECT(0)\n"
		"  pfc-storm: victims on prio 3 (DSCP 26) paused by a PFC\n"
		"             storm (time 0xffff, then XON), bystanders on\n"
		"             prio 1 (DSCP 10) keep flowing\n"
		"  steady:    uncongested flows (prio 1, DSCP 10), ACKs only\n"
		"  mixed:     incast (prio 3, DSCP 26) + steady (prio 1,\n"
		"             DSCP 10) + PFC storm victims (prio 4, DSCP 34)\n"
		"  fixed:     a fixed cycle of 25 frames of every kind",
	  RT_CALL(on_scenario), .values = "incast pfc-storm steady mixed fixed" },
	{ 257, "frames", "N", "stop after N frames (all kinds); alone it selects 'fixed'",
	  U64(c.frames, 1, 1000000000000.0) },
	{ 258, "senders", "N", "senders in incast (and flows in steady/pfc-storm); default 4",
	  INT(c.senders, 1, 200) },
	{ 259, "duration", "S", "stop after S seconds (default 10; fractions allowed)",
	  REAL(c.duration, 0.001, 7 * 86400) },
	{ 260, "rate", "PPS", "at most PPS frames per second on the wire, all kinds\n"
		"together (default 10000)", REAL(c.rate, 1, 10000000) },
	{ 261, "seed", "N", "seed of the model's PRNG (default 1)", U64(c.seed, 0, 18446744073709551615.0) },
	RT_OPT_SECTION("Where to send"),
	{ 262, "tx-data", "[NETNS:]IFNAME", "interface (in network namespace NETNS, i.e.\n"
		"/run/netns/NETNS or a path) for the senders' frames: data", PORT(o.port[SIDE_DATA]) },
	{ 263, "tx-rcv", "[NETNS:]IFNAME", "interface for the receiver's frames: CNP, ACK, NAK,\n"
		"RNR NAK, PFC, 802.3x. If only one of the two is given,\n"
		"both kinds go out of it", PORT(o.port[SIDE_RCV]) },
	{ 264, "data-netns", "NAME", "namespace of --tx-data (same as the NETNS: prefix)",
	  RT_SET_STR(A, data_ns) },
	{ 265, "rcv-netns", "NAME", "namespace of --tx-rcv", RT_SET_STR(A, rcv_ns) },
	{ 266, "pcap", "FILE", "also write every frame to FILE (pcap); without an\n"
		"interface, frames go only there, stamped with the times\n"
		"the run would send them at, and the run does not wait\n"
		"them out (--duration 60 takes a moment, not a minute)", RT_SET_STR(A, pcap_path) },
	{ 267, "sink", "NETNS", "open a UDP socket on port 4791 in NETNS ('-': here) and\n"
		"drain it, so the kernel sends no ICMP port unreachable", RT_SET_STR(A, sink_ns) },
	{ 268, "mirror", "TYPE", "also send a mirror copy of every frame, as the switch\n"
		"mirrors its congested port: erspan2 (GRE + ERSPAN type II),\n"
		"erspan3 (GRE + ERSPAN type III: data leaving the port\n"
		"towards the receiver is egress, the receiver's frames\n"
		"ingress) or vxlan; IPv4 10.78.0.1 -> 10.78.0.2",
	  RT_CALL(on_mirror), .values = "erspan2 erspan3 vxlan" },
	{ 269, "tx-mirror", "[NETNS:]IFNAME", "interface the mirror copies go out of", PORT(o.mirror_port) },
	{ 270, "mirror-session", "N", "ERSPAN session ID (0-1023) or VXLAN VNI (default 10)",
	  U32(o.mirror_session, 0, 0xffffff) },
	{ 271, "mirror-mac", "MAC", "destination MAC of the copies (default 02:78:00:00:00:02)",
	  MAC(o.mirror_mac) },
	RT_OPT_SECTION("Addresses"),
	{ 272, "dst-mac", "MAC", "destination MAC of data frames (default: the MAC of the\n"
		"--tx-rcv interface, else 02:77:00:00:00:02)", MAC(c.dst_mac) },
	{ 273, "rcv-mac", "MAC", "source MAC of the receiver's frames (default: --dst-mac)", MAC(c.rcv_mac) },
	{ 274, "src-mac", "MAC", "source MAC of every sender (default: one per sender,\n"
		"02:77:00:00:01:XX with XX = last octet of its IP)", MAC(c.src_mac) },
	{ 275, "rcv-ip", "A.B.C.D", "receiver IPv4 address (default 10.77.0.2)", IP(c.rcv_ip) },
	{ 276, "src-ip", "A.B.C.D", "first sender address (default 10.77.0.11); incast senders\n"
		"take +0.., steady flows +20.., PFC victims +40..", IP(c.src_ip) },
	{ 277, "vlan", "VID", "tag RoCE frames with 802.1Q VID, PCP = priority\n"
		"(default: untagged, priority only in the DSCP)", INT(c.vlan, 0, 4094) },
	RT_OPT_SECTION("Model"),
	{ 278, "payload", "BYTES", "payload per data packet, multiple of 4 (default 1024)",
	  RT_CALL(on_payload), .off = RT_OFF(A, c.payload, int), .lo = 0, .hi = 8192 },
	{ 279, "msg-pkts", "N", "packets per message (default 8)", INT(c.msg_pkts, 1, 1000000) },
	{ 280, "link-gbps", "G", "model link speed (default 25)", REAL(c.link_gbps, 0.001, 10000) },
	{ 281, "kmin", "KB", "ECN marking starts at this queue depth (default 40)", REAL(c.kmin_kb, 0, 1e6) },
	{ 282, "kmax", "KB", "ECN marking at --pmax at this depth (default 160)", REAL(c.kmax_kb, 0, 1e6) },
	{ 283, "pmax", "P", "marking probability at Kmax (default 0.2)", REAL(c.pmax, 0, 1) },
	{ 284, "buffer", "KB", "port buffer; beyond it packets are tail-dropped (default 256)",
	  REAL(c.buffer_kb, 1, 1e6) },
	{ 285, "cnp-interval", "US", "minimum model time between CNPs per QP (default 50)",
	  REAL(c.cnp_interval_us, 0, 1e9) },
	{ 286, "ack-every", "K", "the receiver ACKs at least every K packets (default 16)",
	  INT(c.ack_every, 1, 1000000) },
	{ 287, "rnr-prob", "P", "probability of an RNR NAK on a SEND (default 0.05)", REAL(c.rnr_prob, 0, 1) },
	RT_OPT_GROUP_NOTE("sFlow", "the switch model as an sFlow v5 agent"),
	{ 288, "sflow", "ADDR:PORT", "send sFlow to a collector: frames the switch forwards\n"
		"sampled 1 in --sflow-rate at random (data leaving on the\n"
		"receiver's port 1 with the model's queue depth and\n"
		"delay, the receiver's frames entering it), a drop\n"
		"notification (no_buffer_space) per tail drop, counter\n"
		"samples of port 1 every 2 s", RT_SET_STR(A, sflow_dest) },
	{ 289, "sflow-rate", "N", "sampling rate (default 64)", U32(sflow_rate, 1, 1u << 30) },
	{ 290, "sflow-agent", "A.B.C.D", "the agent address in the datagrams (default 10.77.0.254)",
	  IP(sflow_agent) },
	{ 291, "sflow-netns", "NAME", "open the sFlow socket in network namespace NAME",
	  RT_SET_STR(A, sflow_ns) },
	RT_OPT_SECTION("Output"),
	{ 292, "tally", "DIR", "at exit write DIR/flows.csv, DIR/pfc.csv, DIR/summary.txt\n"
		"(with --mirror: the mirror copies sent, frames_mirror; with\n"
		"--sflow also DIR/sflow_flows.csv, sflow_drops.csv, sflow.txt)",
	  RT_SET_STR(A, tally_dir) },
	{ 'q', "quiet", NULL, "no summary line on stderr (nor progress)", RT_SET_FLAG(A, quiet) },
	{ 'v', "verbose", NULL, "progress on stderr every second, also when it is not\n"
		"a terminal (on a terminal it is shown anyway)", RT_SET_FLAG(A, verbose) },
	RT_OPT_HELP_ENTRY,
	RT_OPT_END,
};

/* rocetop-gen's own usage: it links none of rocetop's commands (report.c's table ends alike) */
static const struct rt_cli gen_cli = {
	.prog = "rocetop-gen",
	.usage =
"Usage: rocetop-gen [OPTIONS]\n"
"Send RoCEv2 traffic (data, CNP, ACK, NAK, RNR NAK, PFC, 802.3x) from a model of a\n"
"congested fabric, and write an exact tally of every frame put on the wire.\n"
"\n",
	.opts = gen_opts,
	.epilog =
"\n"
"The run ends by itself (--duration, --frames) or on SIGINT/SIGTERM; the tally is\n"
"written in every case. Bad input: a message and exit status 2.\n",
	.width = 23,
	.long_indent = 2,
};

static void defaults(struct gen_args *a)
{
	static const uint8_t mirror_mac[6] = { 0x02, 0x78, 0, 0, 0, 0x02 };
	struct gen_cfg *c = &a->c;

	memset(a, 0, sizeof(*a));
	c->scenario = -1;
	c->senders = 4;
	c->duration = 10;
	c->rate = 10000;
	c->seed = 1;
	c->rcv_ip = 0x0a4d0002;   /* 10.77.0.2 */
	c->src_ip = 0x0a4d000b;   /* 10.77.0.11 */
	c->vlan = -1;
	c->payload = 1024;
	c->msg_pkts = 8;
	c->link_gbps = 25;
	c->kmin_kb = 40;
	c->kmax_kb = 160;
	c->pmax = 0.2;
	c->buffer_kb = 256;
	c->cnp_interval_us = 50;
	c->ack_every = 16;
	c->rnr_prob = 0.05;
	a->o.sink_fd = -1;
	a->o.port[0].fd = a->o.port[1].fd = a->o.mirror_port.fd = -1;
	a->o.mirror_session = 10;
	memcpy(a->o.mirror_mac, mirror_mac, 6);
	a->sflow_rate = 64;
	a->sflow_agent = 0x0a4d00fe;	/* 10.77.0.254 */
}

/* The options that need one another: 0, or -EINVAL after saying which. */
static int check_args(struct gen_args *a)
{
	struct gen_out *o = &a->o;

	if (a->c.scenario < 0)
		a->c.scenario = a->c.frames ? SC_FIXED : SC_INCAST;
	if (a->c.kmax_kb < a->c.kmin_kb)
		return bad("%s: --kmax must not be below --kmin", "bad thresholds"), -EINVAL;
	if (a->data_ns && *a->data_ns) {
		if (!o->port[SIDE_DATA].ifname[0])
			return bad("%s needs --tx-data", "--data-netns"), -EINVAL;
		snprintf(o->port[SIDE_DATA].netns, sizeof(o->port[0].netns), "%s", a->data_ns);
	}
	if (a->rcv_ns && *a->rcv_ns) {
		if (!o->port[SIDE_RCV].ifname[0])
			return bad("%s needs --tx-rcv", "--rcv-netns"), -EINVAL;
		snprintf(o->port[SIDE_RCV].netns, sizeof(o->port[1].netns), "%s", a->rcv_ns);
	}
	if (!o->port[0].ifname[0] && !o->port[1].ifname[0] && !a->pcap_path)
		return bad("%s", "nothing to send on: give --tx-data and/or --tx-rcv, or --pcap"), -EINVAL;
	if (o->mirror && !o->mirror_port.ifname[0])
		return bad("%s needs --tx-mirror, the interface towards the collector", "--mirror"), -EINVAL;
	if (!o->mirror && o->mirror_port.ifname[0])
		return bad("%s needs --mirror erspan2|erspan3|vxlan", "--tx-mirror"), -EINVAL;
	if (o->mirror != GEN_MIRROR_VXLAN && o->mirror_session > 1023) {
		char s[16];

		snprintf(s, sizeof(s), "%u", o->mirror_session);
		return bad("--mirror-session %s: an ERSPAN session ID is 0 to 1023", s), -EINVAL;
	}
	if (a->sflow_ns && !a->sflow_dest)
		return bad("%s needs --sflow", "--sflow-netns"), -EINVAL;
	return 0;
}

/* The command line into a: 0, 1 (help shown: exit 0) or 2 (bad input). */
static int parse_args(int argc, char **argv, struct gen_args *a)
{
	int err, first;

	defaults(a);
	err = rt_cli_parse(&gen_cli, argc, argv, NULL, a, &first);
	if (err)
		return err > 0 ? 1 : 2;
	if (first < argc) {
		bad("unexpected argument '%s'", argv[first]);
		return 2;
	}
	return check_args(a) ? 2 : 0;
}

/* The interfaces asked for (a missing namespace or interface is bad input),
 * each side falling back on the other, and the MACs they give: 0 or an exit status. */
static int open_ports(struct gen_args *a)
{
	static const uint8_t def[6] = { 0x02, 0x77, 0, 0, 0, 0x02 };
	struct gen_out *o = &a->o;
	int rc;

	for (int s = 0; s < 2; s++) {
		if (o->port[s].ifname[0] && (rc = gen_port_open(&o->port[s])))
			return rc;
	}
	if (o->mirror_port.ifname[0] && (rc = gen_port_open(&o->mirror_port)))
		return rc;
	if (o->port[SIDE_DATA].fd < 0 && o->port[SIDE_RCV].fd >= 0)
		o->port[SIDE_DATA] = o->port[SIDE_RCV];
	else if (o->port[SIDE_RCV].fd < 0 && o->port[SIDE_DATA].fd >= 0)
		o->port[SIDE_RCV] = o->port[SIDE_DATA];
	if (!a->c.have_dst_mac) {
		if (o->port[SIDE_RCV].ifname[0] && o->port[SIDE_RCV].fd >= 0 &&
		    o->port[SIDE_RCV].fd != o->port[SIDE_DATA].fd)
			memcpy(a->c.dst_mac, o->port[SIDE_RCV].mac, 6);
		else
			memcpy(a->c.dst_mac, def, 6);
	}
	if (!a->c.have_rcv_mac)
		memcpy(a->c.rcv_mac, a->c.dst_mac, 6);
	return 0;
}

/* The largest data frame must fit the interfaces' MTU: 0 or 2. */
static int check_mtu(const struct gen_args *a)
{
	const struct gen_out *o = &a->o;
	int l3 = 20 + 8 + 12 + 16 + a->c.payload + 4;

	for (int s = 0; s < 2; s++) {
		if (o->port[s].fd >= 0 && l3 > o->port[s].mtu) {
			fprintf(stderr, "rocetop-gen: --payload %d makes %d-byte IP packets, above the MTU %d of %s (see --help).\n",
				a->c.payload, l3, o->port[s].mtu, o->port[s].ifname);
			return 2;
		}
	}
	/* a mirror copy carries the whole frame (tag included) in its own headers */
	if (o->mirror_port.fd >= 0 && l3 + 18 + GEN_MIRROR_HDR - 14 > o->mirror_port.mtu) {
		fprintf(stderr, "rocetop-gen: mirror copies of --payload %d frames need an MTU of %d on %s, which has %d (see --help).\n",
			a->c.payload, l3 + 18 + GEN_MIRROR_HDR - 14, o->mirror_port.ifname,
			o->mirror_port.mtu);
		return 2;
	}
	return 0;
}

/* Everything frames go to: interfaces, pcap, the UDP sink, sFlow. 0 or an exit status. */
static int open_outputs(struct gen_args *a)
{
	struct gen_out *o = &a->o;
	int rc;

	if ((rc = open_ports(a)) || (rc = check_mtu(a)))
		return rc;
	if (a->pcap_path && gen_pcap_open(o, a->pcap_path) < 0)
		return 1;
	if (a->sink_ns) {
		o->sink_fd = gen_sink_open(a->sink_ns);
		if (o->sink_fd == -2)
			return 2;
		if (o->sink_fd < 0)
			return 1;
	}
	if (a->sflow_dest) {
		o->sflow = gen_sflow_open(a->sflow_dest, a->sflow_ns, a->sflow_agent, a->sflow_rate,
					  a->c.seed, a->c.link_gbps);
		if (!o->sflow)
			return 2;
	}
	return 0;
}

static void summary(const struct gen_args *a)
{
	const struct gen_out *o = &a->o;
	double d = o->t_stop - o->t_start;

	fprintf(stderr,
		"rocetop-gen: %s: %llu frames (data %llu, CE %llu, CNP %llu, ACK %llu, NAK %llu, RNR NAK %llu, PFC %llu, pause %llu) in %.2f s, %.0f/s, stopped by %s\n",
		gen_scenario_name(a->c.scenario), (unsigned long long)o->total,
		(unsigned long long)o->kinds[K_DATA], (unsigned long long)o->data_ce,
		(unsigned long long)o->kinds[K_CNP], (unsigned long long)o->kinds[K_ACK],
		(unsigned long long)(o->kinds[K_NAK_SEQ] + o->kinds[K_NAK_OTHER]),
		(unsigned long long)o->kinds[K_RNR], (unsigned long long)o->kinds[K_PFC],
		(unsigned long long)o->kinds[K_PAUSE], d, d > 0 ? (double)o->total / d : 0.0,
		o->stop_reason);
}

/* Run the model until it ends, then write the tally: the exit status. */
static int run(struct gen_args *a)
{
	struct gen_out *o = &a->o;
	char extra[2048] = "";
	int rc;

	gen_install_signals();
	o->rate = a->c.rate;
	o->max_frames = a->c.frames;
	if (o->port[SIDE_DATA].fd < 0 && o->port[SIDE_RCV].fd < 0 && o->mirror_port.fd < 0 && o->sink_fd < 0 &&
	    !o->sflow)
		gen_clock_virtual();	/* only a file to write: not paced in wall time */
	o->t_start = gen_now();
	o->t_end = o->t_start + a->c.duration;
	o->last_emit = o->t_start - 1.0 / a->c.rate;
	o->progress = a->verbose ? GEN_PROGRESS_LINES : !a->quiet && isatty(2) ? GEN_PROGRESS_TTY : 0;
	o->next_progress = o->t_start + 1;
	gen_run(&a->c, o, extra, sizeof(extra));
	o->t_stop = gen_now();
	gen_progress_end(o);
	if (!o->stop_reason)
		o->stop_reason = gen_stop_signal ? "signal" : "done";
	if (o->pcap && fclose(o->pcap) != 0)
		fprintf(stderr, "rocetop-gen: writing the pcap file failed.\n");
	rc = o->fatal ? 1 : 0;
	if (a->tally_dir &&
	    gen_write_tally(o, a->tally_dir, gen_scenario_name(a->c.scenario), a->c.seed, extra) < 0)
		rc = 1;
	if (o->sflow && gen_sflow_close(o->sflow, a->tally_dir) < 0)
		rc = 1;
	if (!a->quiet)
		summary(a);
	return rc;
}

int main(int argc, char **argv)
{
	static struct gen_args a;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc == 1 ? 0 : 2;
	rc = open_outputs(&a);
	if (!rc)
		rc = run(&a);
	free(a.o.flows);
	return rc;
}
