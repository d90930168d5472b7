// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rocetop doctor [-i IF] [--sysfs-root DIR] [--json] [--interval S] [--tune]
 *
 * Reads a RoCE host's congestion configuration and says what is wrong, each
 * finding a sentence with its evidence. For every RDMA netdev (or -i IF):
 *   DCB netlink DCB_CMD_IEEE_GET   PFC enabled priorities, ETS, APP table
 *                                  (DSCP -> priority; DSCP entries: trust DSCP)
 *   /sys/class/net/IF/ecn/roce_np/enable/N, roce_rp/enable/N   (mlx5)
 *   /sys/kernel/debug/mlx5/PCI/cc_params/NAME                   DCQCN (mlx5)
 *   /sys/kernel/config/rdma_cm/DEV/ports/N/default_roce_mode, default_roce_tos
 *   /sys/class/net/IF/mtu, the RDMA port's active MTU (verbs)
 *   ethtool --get-tunable IF pfc-prevention-tout (ETHTOOL_GTUNABLE)
 *   /sys/class/net/IF/qos/trust where the driver has it (MLNX_OFED's mlx5)
 *   ethtool rx/tx_prioN_pause; hw_counters np_cnp_sent, rp_cnp_handled,
 *   rp_cnp_ignored, read twice --interval apart to see what grows.
 * Under --sysfs-root DIR every file is read below DIR, the DCB answer from
 * DIR/dcbnl/IF (its bytes), ethtool's from DIR/ethtool/IF (as `ethtool -S`
 * prints it), the active MTU from DIR/verbs/DEV/PORT/active_mtu (what
 * ibv_query_port says), the storm prevention timeout from
 * DIR/ethtool-tunable/IF/pfc-prevention-tout (its number). Without
 * --sysfs-root it also reports the running kernel's BPF features, each
 * probed (user/sources/bpf_features.c), and which egress attach rocetop uses. Exit 0 when no check fails, 1 when one does or
 * when there is no RDMA device to judge, 2 for a bad command line.
 *
 * --tune: the recommendations of `report --tune` (user/sinks/tune.c) from
 * the NIC's counters' increase between the two readings (a hardware NIC
 * handles RoCE in silicon: its counters are what the host sees of it), each
 * command naming files below --sysfs-root where one is given.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/dcbnl.h>
#include "cmd.h"
#include "nic_doctor.h"
#include "which_bin.h"
#include "bpf_features.h"
#include "cli.h"
#include "log.h"
#include "num.h"
#include "print.h"
#include "nic.h"
#include "tune.h"

/* The exit status of a host with no RDMA device: nothing was judged, which is
 * neither a pass (0) nor a check that failed (1); rocetop(8) EXIT STATUS. */
#define RT_DOCTOR_NOTHING 3

/* ---- the command ---- */

/* A JSON string on stdout through the printer's one escaper (valid UTF-8, controls escaped). */
static void json_str(const char *s)
{
	rt_pr_json_string(stdout, s);
}

static const char *sev_name(int s)
{
	return s == RT_DOC_FAIL ? "fail" : s == RT_DOC_WARN ? "warn" : "ok";
}

static void en_list(const int *en, char *buf, size_t len)
{
	unsigned int on = 0, known = 0;

	for (int p = 0; p < 8; p++) {
		known |= en[p] >= 0 ? 1u << p : 0;
		on |= en[p] > 0 ? 1u << p : 0;
	}
	if (!known)
		snprintf(buf, len, "unknown");
	else
		rt_doc_prio_list(on, buf, len);
}

static const char *feat_state(int st, char *buf, size_t len, const char *since)
{
	if (st == 1)
		return "yes";
	if (!st)
		snprintf(buf, len, "no (Linux %s has it)", since);
	else
		snprintf(buf, len, "unknown (%s)", strerror(-st));
	return buf;
}

static void print_bpf(FILE *out, const struct rt_bpf_features *bf)
{
	char buf[96], why[160];
	const char *eg = rt_bpf_egress_attach(bf, why, sizeof(why));

	fprintf(out, "BPF features of this kernel (probed):\n");
	for (int i = 0; i < RT_BF_N; i++)
		fprintf(out, "  %-29s %s\n", bf->f[i].name, feat_state(bf->f[i].state, buf, sizeof(buf),
								 bf->f[i].since));
	fprintf(out, "  egress attach:                %s (%s)\n", eg, why);
}

static void print_text(FILE *out, const struct rt_doc_host *h, const struct rt_doc_findings *o,
		       const struct rt_bpf_features *bf)
{
	char a[32], b[32];
	struct rt_which w;

	/* on a live host (not --sysfs-root): which binary this is */
	if (bf && !rt_which_binary(&w))
		rt_which_print(out, &w);
	if (bf)
		print_bpf(out, bf);
	if (!h->n) {
		fprintf(out, "%s\n", h->note);	/* nothing to judge: the one sentence */
		return;
	}
	if (h->note[0])
		fprintf(out, "note: %s\n", h->note);
	for (size_t i = 0; i < h->n; i++) {
		const struct rt_doc_netdev *d = &h->nd[i];
		unsigned int pauses = 0;

		if (d->dev[0])
			fprintf(out, "%s: %s port %u, driver %s%s%s\n", d->netdev, d->dev, d->port, d->driver,
			       d->pci[0] ? ", " : "", d->pci);
		else
			fprintf(out, "%s:\n", d->netdev);
		if (d->dcb.ok && d->dcb.has_pfc)
			rt_doc_prio_list(d->dcb.pfc_en, a, sizeof(a));
		for (int p = 0; p < 8; p++)
			pauses |= d->rx_pause[p] || d->tx_pause[p] ? 1u << p : 0;
		rt_doc_prio_list(pauses, b, sizeof(b));
		if (d->dcb.ok && d->dcb.has_pfc)
			fprintf(out, "  PFC enabled on:        %s\n", a);
		else
			fprintf(out, "  PFC enabled on:        unknown (DCB netlink: %s)\n",
			       d->dcb_err ? strerror(-d->dcb_err) : "no PFC in the answer");
		fprintf(out, "  PFC frames counted on: %s\n", d->has_ethtool ? b : "unknown (no ethtool prio counters)");
		if (d->dcb.ok && d->dcb.has_ets) {
			fprintf(out, "  ETS priority->TC:      ");
			for (int p = 0; p < 8; p++)
				fprintf(out, "%d:%u%s", p, d->dcb.prio_tc[p], p < 7 ? " " : "\n");
		}
		if (d->trust[0])
			fprintf(out, "  trust (qos/trust):     %s\n", d->trust);
		if (d->pfc_tout == PFC_STORM_PREVENTION_AUTO)
			fprintf(out, "  PFC storm prevention:  auto\n");
		else if (d->pfc_tout == PFC_STORM_PREVENTION_DISABLE)
			fprintf(out, "  PFC storm prevention:  off\n");
		else if (d->pfc_tout > 0)
			fprintf(out, "  PFC storm prevention:  %d ms\n", d->pfc_tout);
		if (d->dcb.ok) {
			fprintf(out, "  trust:                 %s", rt_dcb_trust_dscp(&d->dcb) ? "dscp (APP table:" : "pcp\n");
			for (size_t k = 0; rt_dcb_trust_dscp(&d->dcb) && k < d->dcb.napp; k++)
				if (d->dcb.app[k].selector == IEEE_8021QAZ_APP_SEL_DSCP)
					fprintf(out, " %u->%u", d->dcb.app[k].protocol, d->dcb.app[k].priority);
			if (rt_dcb_trust_dscp(&d->dcb))
				fprintf(out, ")\n");
		}
		en_list(d->np_en, a, sizeof(a));
		en_list(d->rp_en, b, sizeof(b));
		fprintf(out, "  ECN notification point on: %s; reaction point on: %s\n", a, b);
		if (d->ncc) {
			fprintf(out, "  DCQCN (cc_params):     ");
			for (size_t k = 0; k < d->ncc; k++)
				fprintf(out, "%s=%lld%s", d->cc[k].name, d->cc[k].v, k + 1 < d->ncc ? " " : "\n");
		}
		if (d->roce_tos >= 0)
			fprintf(out, "  rdma_cm:               default mode %s, default ToS %d (DSCP %d)%s\n",
			       d->roce_mode[0] ? d->roce_mode : "?", d->roce_tos, d->roce_tos >> 2,
			       d->cm_default ? ", never set" : "");
		else if (d->dev[0])
			fprintf(out, "  rdma_cm:               unknown (no configfs rdma_cm)\n");
		fprintf(out, "  MTU:                   netdev %d, RDMA port %s", d->mtu, d->active_mtu > 0 ? "" : "unknown\n");
		if (d->active_mtu > 0)
			fprintf(out, "%d\n", d->active_mtu);
		if (d->dev[0] && d->opt_err)
			fprintf(out, "  optional counters:     unknown (rdma netlink: %s)\n", strerror(-d->opt_err));
		else if (d->dev[0]) {
			fprintf(out, "  optional counters:     %s", d->nopt ? "" : "none\n");
			for (size_t k = 0; k < d->nopt; k++)
				fprintf(out, "%s %s%s", d->opt[k].name, d->opt[k].enabled ? "on" : "off",
				       k + 1 < d->nopt ? ", " : "\n");
		}
		if (d->has_cnp)
			fprintf(out, "  CNPs:                  np_cnp_sent %llu, rp_cnp_handled %llu, rp_cnp_ignored %llu\n",
			       (unsigned long long)d->np_cnp_sent, (unsigned long long)d->rp_cnp_handled,
			       (unsigned long long)d->rp_cnp_ignored);
	}
	for (size_t i = 0; i < o->n; i++) {
		fprintf(out, "%s %s: %s\n  evidence: %s\n", o->f[i].severity == RT_DOC_FAIL ? "FAIL" : "WARN",
		       o->f[i].id, o->f[i].sentence, o->f[i].evidence);
		if (o->f[i].check[0])
			fprintf(out, "  check: %s\n", o->f[i].check);
	}
	fprintf(out, "%zu finding%s, %d failed\n", o->n, o->n == 1 ? "" : "s", o->failed);
}

/*
 * The text report on the terminal, printable only: names and values come from
 * sysfs, configfs and netlink (or a --sysfs-root tree), which may hold escape
 * sequences. Every byte but a newline outside 0x20..0x7e shows as '?', as in
 * the other text outputs (ARCHITECTURE.md, escaping).
 */
static int print_text_safe(const struct rt_doc_host *h, const struct rt_doc_findings *o,
			   const struct rt_bpf_features *bf)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		fprintf(stderr, "rocetop doctor: out of memory for the report\n");
		return -1;
	}
	print_text(m, h, o, bf);
	fclose(m);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		putchar(c == '\n' || (c >= 0x20 && c < 0x7f) ? c : '?');
	}
	free(buf);
	return 0;
}

/* --tune's recommendations, or none (n < 0: not asked for). */
struct tuned {
	struct rt_tune_rec rec[RT_TUNE_MAX];
	int n;
};

static void print_json(const struct rt_doc_host *h, const struct rt_doc_findings *o,
		       const struct rt_bpf_features *bf, const struct tuned *tu)
{
	struct rt_which w;

	printf("{\"note\":");
	json_str(h->note);
	if (bf && !rt_which_binary(&w)) {
		printf(",\"binary\":");
		json_str(w.self);
		printf(",\"path_rocetop\":");
		json_str(w.first >= 0 ? w.path[w.first] : "");
	}
	if (bf) {
		char why[160];
		const char *eg = rt_bpf_egress_attach(bf, why, sizeof(why));

		printf(",\"bpf\":{");
		for (int i = 0; i < RT_BF_N; i++) {
			printf("%s", i ? "," : "");
			json_str(bf->f[i].id);
			printf(":%s", bf->f[i].state == 1 ? "true" : bf->f[i].state ? "null" : "false");
		}
		printf(",\"egress_attach\":");
		json_str(eg);
		printf("}");
	}
	printf(",\"netdevs\":[");
	for (size_t i = 0; i < h->n; i++) {
		const struct rt_doc_netdev *d = &h->nd[i];

		printf("%s{\"netdev\":", i ? "," : "");
		json_str(d->netdev);
		printf(",\"device\":");
		json_str(d->dev);
		printf(",\"port\":%u,\"driver\":", d->port);
		json_str(d->driver);
		printf(",\"mtu\":%d,\"rdma_mtu\":%d", d->mtu, d->active_mtu);
		if (d->dcb.ok && d->dcb.has_pfc)
			printf(",\"pfc_enabled\":%u", d->dcb.pfc_en);
		printf(",\"trust\":\"%s\"", d->trust[0] ? d->trust : !d->dcb.ok ? "unknown" :
		       rt_dcb_trust_dscp(&d->dcb) ? "dscp" : "pcp");
		printf(",\"pfc_prevention_tout\":%d", d->pfc_tout);
		printf(",\"ecn_np\":[");
		for (int p = 0; p < 8; p++)
			printf("%d%s", d->np_en[p], p < 7 ? "," : "]");
		printf(",\"ecn_rp\":[");
		for (int p = 0; p < 8; p++)
			printf("%d%s", d->rp_en[p], p < 7 ? "," : "]");
		printf(",\"roce_mode\":");
		json_str(d->roce_mode);
		printf(",\"optional_counters\":{");
		for (size_t k = 0; k < d->nopt; k++) {
			printf("%s", k ? "," : "");
			json_str(d->opt[k].name);
			printf(":%s", d->opt[k].enabled ? "true" : "false");
		}
		printf("}");
		printf(",\"roce_tos\":%d,\"dcqcn\":{", d->roce_tos);
		for (size_t k = 0; k < d->ncc; k++) {
			printf("%s", k ? "," : "");
			json_str(d->cc[k].name);
			printf(":%lld", d->cc[k].v);
		}
		printf("}}");
	}
	printf("],\"findings\":[");
	for (size_t i = 0; i < o->n; i++) {
		printf("%s{\"id\":", i ? "," : "");
		json_str(o->f[i].id);
		printf(",\"severity\":\"%s\",\"netdev\":", sev_name(o->f[i].severity));
		json_str(o->f[i].netdev);
		printf(",\"sentence\":");
		json_str(o->f[i].sentence);
		printf(",\"evidence\":");
		json_str(o->f[i].evidence);
		printf(",\"check\":");
		json_str(o->f[i].check);
		printf("}");
	}
	printf("],\"failed\":%d", o->failed);
	if (tu->n >= 0) {
		struct rt_printer p;

		fflush(stdout);
		rt_pr_init(&p, stdout, 1);
		rt_pr_inside(&p);
		rt_tune_print(&p, tu->rec, (size_t)tu->n);
	}
	printf("}\n");
}

/* --tune in text: the section report --tune prints. */
static void print_tune_text(const struct rt_doc_host *h, const struct tuned *tu, double secs)
{
	struct rt_printer p;

	if (!h->n) {
		printf("\nTuning (0 recommendations)\n  nothing to judge: no RDMA netdev\n");
		return;
	}
	printf("\nTuning from the NIC's counters over %g s (%d recommendation%s)\n", secs, tu->n,
	       tu->n == 1 ? "" : "s");
	if (!tu->n)
		printf("  nothing to change: no setting these counters show at fault (a rule needs its counter to "
		       "move: CE marks, CNPs sent or handled)\n");
	fflush(stdout);
	rt_pr_init(&p, stdout, 0);
	rt_tune_print(&p, tu->rec, (size_t)tu->n);
}

static __u64 grew(__u64 now, __u64 before)
{
	return now >= before ? now - before : now;	/* a reset counts from 0 */
}

/* The recommendations from each netdev's settings (as read last) and its
 * counters' increase between the two readings (user/sinks/tune.h). */
static void tune_host(const struct rt_doc_host *h0, const struct rt_doc_host *h1, const char *root, double secs,
		      struct tuned *tu)
{
	struct rt_tune *t = calloc(1, sizeof(*t));

	tu->n = 0;
	for (size_t i = 0; t && i < h1->n; i++) {
		const struct rt_doc_netdev *a = i < h0->n && !strcmp(h0->nd[i].netdev, h1->nd[i].netdev) ? &h0->nd[i] :
						NULL, *b = &h1->nd[i];
		struct rt_tune_nic nic = { 0 };
		struct rt_hostcfg c;

		if (a && a->has_cnp && b->has_cnp) {
			nic.np_marked = grew(b->np_ecn_marked, a->np_ecn_marked);
			nic.np_cnp_sent = grew(b->np_cnp_sent, a->np_cnp_sent);
			nic.rp_handled = grew(b->rp_cnp_handled, a->rp_cnp_handled);
			nic.rp_ignored = grew(b->rp_cnp_ignored, a->rp_cnp_ignored);
		}
		for (int q = 0; a && a->has_ethtool && b->has_ethtool && q < 8; q++)
			nic.pause[q] = grew(b->rx_pause[q], a->rx_pause[q]) + grew(b->tx_pause[q], a->tx_pause[q]);
		memset(t, 0, sizeof(*t));
		snprintf(t->root, sizeof(t->root), "%s", root ? root : "");
		rt_doctor_hostcfg(b, &c);
		rt_tune_take_nic(t, &c, &nic, secs);
		tu->n += (int)rt_tune_rules(t, tu->rec + tu->n, RT_TUNE_MAX - (size_t)tu->n);
	}
	free(t);
}

struct doctor_args {
	const char *only, *root;
	double interval;
	int json, tune;
};

static int on_iface(void *ctx, const struct rt_opt *opt, const char *arg);

#define A struct doctor_args

static const struct rt_opt doctor_opts[] = {
	{ 'i', "interface", "IFACE", "judge IFACE only (also a netdev without RDMA)", RT_CALL(on_iface) },
	{ 256, "sysfs-root", "DIR", "read sysfs, debugfs and configfs below DIR (fixtures)",
	  RT_SET_STR(A, root) },
	{ 257, "json", NULL, "one JSON object, for scripts", RT_SET_FLAG(A, json) },
	{ 'd', "interval", "S", "seconds between the two counter readings (default 1;\n"
		"0: one reading, counters judged by their values)",
	  RT_SET_REAL(A, interval, RT_NUM_SECONDS, 0, 3600, "give seconds from 0 to 3600") },
	{ 258, "tune", NULL, "also say what to change in the ECN, PFC and CNP\n"
		"settings, from the NIC's counters' increase over the\n"
		"interval (default then 3 s; TUNING in rocetop(8))", RT_SET_FLAG(A, tune) },
	RT_OPT_HELP_ENTRY,
	RT_OPT_END,
};

static const struct rt_cli doctor_cli = {
	.prog = "rocetop doctor",
	.usage =
"Usage: rocetop doctor [-i IFACE] [--sysfs-root DIR] [--json] [--interval S] [--tune]\n"
"Read this host's RoCE congestion configuration and say what is wrong: for each\n"
"RDMA netdev, PFC (DCB netlink), the DSCP-to-priority map and trust, ECN per\n"
"priority (ecn/roce_np, ecn/roce_rp), DCQCN parameters (mlx5 debugfs cc_params),\n"
"rdma_cm's default RoCE mode and ToS (configfs), the MTUs, and the PFC and CNP\n"
"counters, read twice to see what grows.\n",
	.opts = doctor_opts,
	.epilog = "Exit status: 0 when no check fails, 1 when one does, 2 for a bad command line.\n",
	.width = 24,
	.who = "doctor: ",
};

static int on_iface(void *ctx, const struct rt_opt *opt, const char *arg)
{
	struct doctor_args *a = ctx;

	(void)opt;
	if (!*arg || strlen(arg) >= IF_NAMESIZE || strchr(arg, '/')) {
		pr_warn("doctor: '%s' is no interface name.\n", arg);
		return -EINVAL;
	}
	a->only = arg;
	return 0;
}

int rt_doctor_main(int argc, char **argv)
{
	struct doctor_args a = { .interval = -1 };	/* not given: 1 s, 3 s with --tune */
	const char *only, *root;
	struct rt_doc_host *h0 = NULL, *h1 = NULL;
	struct rt_doc_findings *o = NULL;
	struct rt_bpf_features bf;
	struct tuned *tu = NULL;
	double interval;
	int json, first, err, rc = 1;

	err = rt_cli_parse(&doctor_cli, argc, argv, NULL, &a, &first);
	if (err)
		return err > 0 ? 0 : 2;
	if (first < argc) {
		pr_warn("doctor: unexpected argument '%s'; an interface takes -i.\n", argv[first]);
		return 2;
	}
	only = a.only;
	root = a.root;
	interval = a.interval >= 0 ? a.interval : a.tune ? 3 : 1;
	if (a.tune && interval == 0) {
		pr_warn("doctor: --tune compares two readings of the NIC's counters: give --interval above 0.\n");
		return 2;
	}
	json = a.json;
	if (root && access(root, F_OK)) {
		pr_warn("doctor: --sysfs-root %s: %s.\n", root, strerror(errno));
		return 2;
	}
	if (only) {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/sys/class/net/%s", root ? root : "", only);
		if (access(p, F_OK)) {
			pr_warn("doctor: no interface named %s%s%s.\n", only, root ? " below " : "",
				root ? root : "");
			return 2;
		}
	}
	h0 = calloc(1, sizeof(*h0));
	h1 = calloc(1, sizeof(*h1));
	o = calloc(1, sizeof(*o));
	tu = calloc(1, sizeof(*tu));
	if (!h0 || !h1 || !o || !tu) {
		pr_warn("doctor: out of memory.\n");
		goto out;
	}
	rt_doctor_read(root, only, h0);
	if (interval > 0 && h0->n) {
		struct timespec ts = { (time_t)interval, (long)((interval - (time_t)interval) * 1e9) };

		fprintf(stderr, "rocetop doctor: reading the counters again in %g s\n", interval);
		fflush(stderr);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		rt_doctor_read(root, only, h1);
		rt_doctor_check(h0, h1, 0, o);
	} else {
		rt_doctor_check(NULL, h0, 0, o);
		memcpy(h1, h0, sizeof(*h1));
	}
	/* no RDMA device: nothing judged is no pass, nor a check that failed */
	rc = !h1->n ? RT_DOCTOR_NOTHING : o->failed ? 1 : 0;
	tu->n = -1;
	if (a.tune)
		tune_host(h0, h1, root, interval, tu);
	if (!root)
		rt_bpf_features_probe(&bf);
	if (json)
		print_json(h1, o, root ? NULL : &bf, tu);
	else if (print_text_safe(h1, o, root ? NULL : &bf))
		rc = 1;
	else if (a.tune)
		print_tune_text(h1, tu, interval);
out:
	free(tu);
	free(h0);
	free(h1);
	free(o);
	return rc;
}
