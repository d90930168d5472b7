/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Findings: the conclusions an operator draws from the numbers, kept with
 * their evidence and times. The engine (findings.c) is fed the same snapshots
 * and deltas as every sink; each interval it runs the rules of the table it
 * was given (rules.c: rt_rules), plain functions of (the engine's previous
 * state, the delta), and keeps findings
 * that open, update and close over time. Sinks read the findings and this
 * interval's events through rt_delta.findings.
 */
#ifndef RT_FINDINGS_H
#define RT_FINDINGS_H

#include <stddef.h>
#include <stdio.h>
#include <net/if.h>
#include "snapshot.h"

enum rt_sev { RT_SEV_INFO = 0, RT_SEV_WARNING, RT_SEV_CRITICAL };

/* Which fields of a subject apply. */
#define RT_SUBJ_IFNAME	(1u << 0)
#define RT_SUBJ_DIR	(1u << 1)
#define RT_SUBJ_PRIO	(1u << 2)
#define RT_SUBJ_SRC	(1u << 3)
#define RT_SUBJ_DST	(1u << 4)
#define RT_SUBJ_DQPN	(1u << 5)
#define RT_SUBJ_AGENT	(1u << 6)
#define RT_SUBJ_PORT	(1u << 7)
#define RT_SUBJ_DEVICE	(1u << 8)
#define RT_SUBJ_COUNTER	(1u << 9)
#define RT_SUBJ_JOB	(1u << 10)	/* job: a job's --group-by job key ("slurm:4711") */
#define RT_SUBJ_PEER	(1u << 11)	/* peer: a probed peer's name (its address in dst) */
#define RT_SUBJ_PATH	(1u << 12)	/* path, flow_label: one of a probed peer's paths */

/* What a finding is about; zero-filled, so two subjects compare with memcmp. */
struct rt_subject {
	__u32 has;		/* RT_SUBJ_* */
	char  ifname[IF_NAMESIZE];
	__u8  dir;
	__u8  prio;		/* 0-7, RT_PRIO_GLOBAL for 802.3x */
	__u8  family;
	__u8  pad;
	__u8  src[16], dst[16];
	__u32 dqpn;
	__u32 port;
	char  agent[48];	/* a switch (sFlow agent address) */
	char  device[32];	/* an RDMA device, or a netdev for ethtool counters */
	char  counter[64];
	char  job[RT_JOB_KEY_LEN];
	char  peer[64];		/* the probe mesh's name of a peer (probe_row.h) */
	__u32 flow_label;	/* a probed path's flow label, */
	__u8  path;		/* and its index at the peer */
	__u8  pad2[3];
};

enum rt_fevent { RT_FEV_OPEN = 0, RT_FEV_UPDATE, RT_FEV_CLOSE };

/* What an involved flow had counted (since the start) when it was added. */
#define RT_FF_CE	(1u << 0)
#define RT_FF_CNP	(1u << 1)
#define RT_FF_NAK	(1u << 2)
#define RT_FF_RNR	(1u << 3)
#define RT_FF_PAUSED	(1u << 4)	/* its priority paused on its interface */

/* A flow a finding involves, as the view's jump and the filters need it. */
struct rt_find_flow {
	struct rt_flow_key k;
	char  ifname[IF_NAMESIZE];
	__u32 lqpn, rqpn, pid;
	char  comm[16];
	__u8  prio;
	__u8  flags;		/* RT_FF_* */
	__u8  pad[2];
};

#define RT_FIND_FLOWS 8

struct rt_finding {
	char  rule[24];
	__u8  sev;		/* enum rt_sev */
	__u8  open;
	__u8  seen;		/* matched in the interval being evaluated */
	__u8  quiet;		/* intervals in a row it did not match */
	__u32 id;		/* 1, 2, ... in opening order */
	__u32 h;		/* hash of (rule, subject): the engine's index */
	__u64 start_ns;		/* start of the first interval it matched */
	__u64 end_ns;		/* end of the last interval it matched */
	__u64 opened_ns;	/* end of the interval it opened in */
	struct rt_subject subj;
	double score;		/* the rule's main figure (a share, a count): for updates */
	double peak;
	/* what the score and peak count (static storage, as rt_findings_match
	 * got it): RT_UNIT_SHARE (a fraction 0..1), RT_UNIT_BER, or a noun
	 * after a count ("pause frames"); rt_fmt_peak prints it */
	const char *peak_unit;
	char  evidence[256];
	/* the data flows of a priority's episode (pfc-storm, pause-without-ecn)
	 * over its whole length, "src -> dst QP n (process pid)" joined by "; " */
	char  involved[384];
	__u8  involved_more;	/* more than involved[] holds */
	__u8  nflows;		/* flows[]: the first RT_FIND_FLOWS involved (a flow subject: */
	struct rt_find_flow flows[RT_FIND_FLOWS];	/* its own flow, with its owner) */
	const char *next;	/* the next step, whole: a string of static storage (the rules' text) */
	char  host[64];		/* the report's multi-host timeline; "" live */
};

struct rt_fev {
	__u8  event;		/* enum rt_fevent */
	__u8  prev_sev;		/* an update: the severity before it (== f.sev: the figure grew) */
	__u32 id;
	__u64 time_ns;
	struct rt_finding f;	/* as it stood at the event */
};

/*
 * The thresholds, one row each: X(KIND, field, "name", "META", default,
 * lo, hi, "help"). The row makes the field of struct rt_find_cfg, its
 * default (rt_find_cfg_defaults), its --threshold name=VALUE and range
 * (rt_find_cfg_set), its help line (rt_find_cfg_help: "name=META  help
 * (default)", in --help and the man page) and its name in the bash
 * completion (RT_THRESHOLD_NAMES). KIND: PCT (a double, its default written
 * in percent), REAL (a double), INT (an int), U64 (a __u64); a double's
 * VALUE may be given in percent (20%); lo and hi bound the value as stored.
 */
#define RT_THRESHOLDS(X) \
	X(PCT,  pfc_share,       "pfc-share",       "PCT", 20,      0.001,  1,      "pfc-storm: share of the time a priority is paused") \
	X(INT,  pfc_intervals,   "pfc-intervals",   "N",   2,       1,      1000,   "pfc-storm: intervals in a row above it") \
	X(INT,  pwe_intervals,   "pwe-intervals",   "N",   2,       1,      1000,   "pause-without-ecn: intervals in a row") \
	X(PCT,  ce_share,        "ce-share",        "PCT", 5,       0.0001, 1,      "congestion: CE share of a flow's ECN-capable packets") \
	X(U64,  ce_min,          "ce-min",          "N",   10,      1,      1e15,   "congestion: CE marks per interval at least") \
	X(INT,  incast_sources,  "incast-sources",  "N",   3,       2,      100000, "incast: congested sources towards one destination") \
	X(INT,  job_flows,       "job-flows",       "N",   2,       1,      100000, "job-throttled: a job's flows congested or throttled at once") \
	X(U64,  nak_min,         "nak-min",         "N",   1,       1,      1e15,   "loss: sequence NAKs or NIC loss counts per interval") \
	X(U64,  rnr_min,         "rnr-min",         "N",   1,       1,      1e15,   "receiver-not-ready: RNR NAKs per interval") \
	X(U64,  cnp_ignored_min, "cnp-ignored-min", "N",   1,       1,      1e15,   "cnp-ignored: rp_cnp_ignored per interval") \
	X(U64,  victim_min_pkts, "victim-pkts",     "N",   10,      1,      1e15,   "victim: the flow's data packets per interval") \
	X(REAL, queue_bytes,     "queue-bytes",     "N",   1000000, 1,      1e15,   "deep-queue: queue depth at a switch port") \
	X(U64,  drops_min,       "drops-min",       "N",   1,       1,      1e15,   "switch-drops: drop notifications per interval") \
	X(U64,  flap_min,        "flap-min",        "N",   1,       1,      1e15,   "link-flap: carrier changes or link downs per interval") \
	X(REAL, fec_ber,         "fec-ber",         "X",   1e-6,    1e-15,  1,      "fec-degrading: pre-FEC bit error rate") \
	X(U64,  link_err_min,    "link-err-min",    "N",   1,       1,      1e15,   "link-errors: symbol errors past FEC per interval") \
	X(U64,  discard_min,     "discard-min",     "N",   1,       1,      1e15,   "buffer-discard: packets discarded per interval") \
	X(U64,  pcie_min,        "pcie-min",        "N",   1,       1,      1e15,   "pcie: PCIe errors or stall events per interval") \
	X(INT,  close_after,     "close-after",     "N",   2,       1,      1000,   "intervals without a match before a finding closes") \
	X(REAL, close_secs,      "close-secs",      "S",   10,      0,      86400,  "and seconds without a match at least")

#define RT_THR_TYPE_PCT		double
#define RT_THR_TYPE_REAL	double
#define RT_THR_TYPE_INT		int
#define RT_THR_TYPE_U64		__u64
#define RT_THR_FIELD(kind, field, name, meta, def, lo, hi, help)	RT_THR_TYPE_##kind field;
#define RT_THR_NAME(kind, field, name, meta, def, lo, hi, help)	" " name "="
/* "pfc-share= pfc-intervals= ...": the names as completion offers them */
#define RT_THRESHOLD_NAMES	(&(RT_THRESHOLDS(RT_THR_NAME))[1])

/* Thresholds (RT_THRESHOLDS); rt_find_cfg_defaults() sets the documented defaults. */
struct rt_find_cfg {
	RT_THRESHOLDS(RT_THR_FIELD)
	__u64  speed_mbps;	/* --link-speed for paused time; 0: rt_link_speed decides */
};

void rt_find_cfg_defaults(struct rt_find_cfg *c);
/* Set one threshold from "NAME=VALUE" (--threshold); 0 or -EINVAL after saying why. */
int rt_find_cfg_set(struct rt_find_cfg *c, const char *arg);
/* The thresholds' names, defaults and meaning, one line each, for --help and
 * the man page (made once from RT_THRESHOLDS, kept for the run). */
const char *rt_find_cfg_help(void);

/* A candidate seen this interval, not yet (or already) a finding. */
struct rt_pending {
	char  rule[24];
	struct rt_subject subj;
	__u64 start_ns;
	int   hits;		/* intervals in a row; -1: opened */
	int   seen;		/* matched in the interval being evaluated */
	__u32 h;		/* hash of (rule, subject) */
};

/* A priority paused in consecutive intervals on an interface (rules.c). */
struct rt_pause_ep {
	char  ifname[IF_NAMESIZE];
	__u8  prio;
	__u8  seen;
	__u64 since_mono;	/* start of its first interval, on the flows' clock */
};

struct rt_doc_findings;		/* doc_findings.h */

struct rt_ruleset;

struct rt_findings {
	struct rt_find_cfg cfg;
	const struct rt_ruleset *rules;	/* what each interval runs (NULL: nothing) */
	const char *rule;		/* the rule running now: its row's name, which
					 * its matches take (NULL between runs) */
	/* the doctor's last judgement of this host's configuration, or NULL */
	const struct rt_doc_findings *doc;
	struct rt_pause_ep *eps;	/* pause episodes under way */
	size_t neps, epcap;
	struct rt_finding *tab;		/* open findings, then closed ones (most recent kept) */
	size_t n, cap;
	size_t keep_closed;		/* closed findings kept for views (default 256) */
	struct rt_pending *pend;
	size_t npend, pendcap;
	/* (rule, subject) -> open finding or pending candidate, rebuilt each
	 * interval: a match costs O(1), not a walk of every finding */
	struct { __u32 h; __u32 i; } *slots;	/* i: index + 1, RT_SLOT_PEND set for pend[] */
	size_t nslots, nused;
	struct rt_fev *ev;		/* this interval's events */
	size_t nev, evcap;
	__u32 next_id;
	__u64 opened_total;
	/* per rule: findings opened since the start (Prometheus counter) */
	struct { char rule[24]; __u64 opened; } per_rule[24];
	size_t nrules;
	/* the interval being evaluated */
	__u64 t_start, t_end;
	double secs;
	const struct rt_snapshot *cur;
	char host[64];
};

/* rules: the table the engine runs (&rt_rules for rocetop's). */
int rt_findings_init(struct rt_findings *F, const struct rt_find_cfg *cfg, const struct rt_ruleset *rules);
void rt_findings_free(struct rt_findings *F);
/*
 * Evaluate the rules on one interval (cur and d as a sink gets them; prev
 * may be NULL). Fills F->ev with what opened, updated and closed; 0 or -ENOMEM.
 */
int rt_findings_eval(struct rt_findings *F, const struct rt_snapshot *cur, const struct rt_delta *d);
/* Close every open finding (end of a file); the close events go to F->ev. */
void rt_findings_finish(struct rt_findings *F);
/* Open findings by severity; the newest open one (or NULL). */
void rt_findings_count(const struct rt_findings *F, size_t counts[3]);
const struct rt_finding *rt_findings_newest(const struct rt_findings *F);

/* Called by a rule's run: the subject matched this interval, under the name
 * of the rule's row (F->rule). need: intervals in a row before it opens;
 * unit: what score counts (peak_unit above, a string of static storage).
 * 0 or -ENOMEM. */
int rt_findings_match(struct rt_findings *F, enum rt_sev sev,
		      const struct rt_subject *subj, int need, double score, const char *unit,
		      const char *next, const char *evidence_fmt, ...)
	__attribute__((format(printf, 8, 9)));
/* The link speed used for paused time on an interface of s, Mb/s (rt_link_speed). */
__u64 rt_findings_speed(struct rt_findings *F, const struct rt_snapshot *s, const char *ifname);

/*
 * The rules, registered with the engine through a table (rules.c gives
 * rt_rules): each interval begin makes the state they share (NULL: out of
 * memory), each rule's run calls rt_findings_match for what it finds, in the
 * table's order, and end frees the state (0, or -ENOMEM when begin ran short).
 */
struct rt_rule_ctx;
struct rt_rule {
	const char *name;	/* its stable id: "pfc-storm", ... */
	int (*run)(struct rt_rule_ctx *c);
	const char *severity;	/* for people: "critical", "warning / info" */
	const char *when;	/* when it matches, a sentence in Markdown */
};
/* The rules as README.md's table (Markdown), for rocetop --dump-rules. */
void rt_rules_dump(const struct rt_ruleset *R, FILE *f);
struct rt_ruleset {
	struct rt_rule_ctx *(*begin)(struct rt_findings *F, const struct rt_snapshot *cur,
				     const struct rt_delta *d);
	int (*end)(struct rt_rule_ctx *c);
	const struct rt_rule *rules;
	size_t n;
};
/* rocetop's rules (rules.c). */
extern const struct rt_ruleset rt_rules;

/* The open finding of (rule, subject), or NULL (not open, or pending). */
struct rt_finding *rt_findings_get(struct rt_findings *F, const char *rule, const struct rt_subject *subj);
/* Add a flow of snapshot s to f's flows, once (paused: its priority paused). */
void rt_finding_add_flow(struct rt_finding *f, const struct rt_snapshot *s, const struct rt_flow *fl,
			 int paused);

/* The report's rank, used by every view that ranks findings: severity,
 * then impact (the longest episode, then the highest peak), then the
 * earliest start, then rule and subject (so ties have one order). */
int rt_finding_rank_cmp(const struct rt_finding *a, const struct rt_finding *b);

/* Does a filter (filter.h) keep the finding: one of its flows matches (a
 * finding about an address without flows: that address); a finding
 * without flows is judged as a NIC counter row of its interface. */
struct rt_filter;
int rt_finding_filter(const struct rt_filter *flt, const struct rt_finding *f);

/* Every finding of a run, as it last stood (the report's timeline). */
struct rt_flog {
	struct rt_finding *f;
	size_t n, cap;
	size_t *byid;		/* f index + 1 of each id */
	size_t nbyid;
};
/* Take this interval's events of F; 0 or -ENOMEM. */
int rt_flog_take(struct rt_flog *L, const struct rt_findings *F);
/* Sort by start, then host, rule and subject. */
void rt_flog_sort(struct rt_flog *L);
void rt_flog_free(struct rt_flog *L);

/* Text helpers for sinks. */
const char *rt_sev_name(int sev);
int rt_sev_from_name(const char *s);	/* -1 when unknown */
const char *rt_fev_name(int ev);
/* "ifname=rcv0 dir=ingress prio=3 src=..." */
const char *rt_subject_text(const struct rt_subject *s, char *buf, size_t len);
/* The subject in its fewest words: "10.0.0.1>10.0.0.2 qp 48", "rcv0 egress p3". */
const char *rt_subject_short(const struct rt_subject *s, char *buf, size_t len);
/* The subject as a JSON object (no surrounding key). */
const char *rt_subject_json(const struct rt_subject *s, char *buf, size_t len);

#endif
