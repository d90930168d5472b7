#!/usr/bin/env python3
"""test_jobs_outputs.sh's checks: each output against the jobs the test
placed (pid 4242: Slurm job 4711 step 0 rank 3 of 8, local rank 1; pid 5151:
pod train/trainer-0, container worker, rank 1 of 2, local rank 0) and the
fixture's hand-counted packets (tests/nic/test_qp_counters.sh: QP 282 of
4242 60 CE packets in, 2 CNPs out to QP 691; QP 300 of 5151 500 CE in).
Usage: check_outputs.py TMPDIR"""
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402
from rtlib.outputs import rows  # noqa: E402

T = sys.argv[1]
SLURM = {"job_kind": "slurm", "job": "4711", "step": "0", "rank": 3, "size": 8, "local_rank": 1}
POD = {"job_kind": "k8s", "job": "train/trainer-0", "step": "worker", "rank": 1, "size": 2, "local_rank": 0}
BY_PID = {"4242": SLURM, "5151": POD}
BY_DQPN = {282: SLURM, 691: SLURM, 300: POD}	# the flows' dqpn -> its owner's job
PKTS = {"slurm:4711": 62, "k8s:train/trainer-0": 500}
c = Checker(prefix="jobs_outputs: ")


def lines(name):
    with open(os.path.join(T, name)) as f:
        return [json.loads(x) for x in f if x.strip()]


def csv_checks():
    got, pk = {}, defaultdict(int)
    for r in rows(os.path.join(T, "csv", "flows.csv")):
        if r["pid"]:
            got.setdefault(r["pid"], set()).add((r["job_kind"], r["job"], r["step"], r["rank"], r["size"]))
            pk[r["pid"]] += int(r["pkts"])
    want = {p: {(j["job_kind"], j["job"], j["step"], str(j["rank"]), str(j["size"]))} for p, j in BY_PID.items()}
    c.check("flows.csv: every row of each pid names its job (job_kind, job, step, rank, size)", got, want)
    c.check("flows.csv: the packets of each pid's rows", dict(pk), {"4242": 62, "5151": 500})


def batch_checks():
    got = {}
    for o in lines("out"):
        for f in o.get("flows", []):
            if f["dqpn"] in BY_DQPN:
                got.setdefault(f["dqpn"], set()).add(tuple((k, f.get(k)) for k in SLURM))
    want = {q: {tuple((k, j[k]) for k in SLURM)} for q, j in BY_DQPN.items()}
    c.check("--batch --json: each flow's job keys", got, want)


def group_sums(name):
    s = defaultdict(lambda: {"pkts": 0, "ranks": set()})
    for o in lines(name):
        for g in o.get("groups", []):
            s[g["key"]]["pkts"] += g["pkts"]
            if g["ranks"] != "-":
                s[g["key"]]["ranks"].add(g["ranks"])
    return {k: (v["pkts"], sorted(v["ranks"])) for k, v in s.items()}


def report_checks():
    rep = json.load(open(os.path.join(T, "report.json")))
    got = [(j["job"], j["pkts"], j["ce"], j["cnp"], j["ranks"]) for j in rep.get("jobs", [])]
    c.check("report: the jobs table (most CE first)", got,
            [("k8s:train/trainer-0", 500, 500, 0, "1"), ("slurm:4711", 62, 60, 2, "3")])
    txt = open(os.path.join(T, "report.txt")).read()
    c.check("report: the text names the jobs table", "Jobs by congestion" in txt and "slurm:4711" in txt, True)


def hosts_checks():
    """Over both hosts: 4711's ranks 3 (a: 62 packets, 60 CE + 2 CNP), 5 (b: the
    same) and 6 (b: 500 CE): the slowest 6 on hostb, the median 62."""
    rep = json.load(open(os.path.join(T, "report2.json")))
    a = rep.get("all_jobs", {})
    got = [(j["job"], j["pkts"], j["ranks"]) for j in a.get("jobs", [])]
    c.check("report over two hosts: each job's packets and ranks joined", got,
            [("slurm:4711", 624, "3,5-6"), ("k8s:train/trainer-0", 500, "1")])
    got = [(j["job"], j["ranks"], j["slowest_rank"], j["host"], j["congestion"], j["median"])
           for j in a.get("job_ranks", [])]
    c.check("report over two hosts: the slowest rank of each job beside the median", got,
            [("k8s:train/trainer-0", 1, 1, "hosta", 500, 500), ("slurm:4711", 3, 6, "hostb", 500, 62)])


def findings_checks():
    ev = {}
    for r in rows(os.path.join(T, "csv", "findings.csv")):
        for q, name in ((282, "(job slurm:4711.0 rank 3)"), (300, "(job k8s:train/trainer-0/worker rank 1)")):
            if "dqpn=%d" % q in r["subject"].split():
                ev.setdefault(q, set()).add(name in r["evidence"])
    c.check("findings.csv: the findings on QP 282 and 300 name the job and rank", ev,
            {282: {True}, 300: {True}})
    # the pause episode the test placed on eth2 priority 0 (50 frames, 0.8 s):
    # the jobs of the flows it pauses (QP 282's and 300's: 691 carries CNPs
    # only), sorted by name, each with its ranks
    jobs = sorted("job %s:%s rank %d" % (j["job_kind"], j["job"], j["rank"]) for q, j in BY_DQPN.items()
                  if q != 691)
    want = "(its flows: %s): 50 pause frames (0 XON) counted by the NIC, 800 ms paused" % ", ".join(jobs)
    got = [(r["subject"], want in r["evidence"]) for r in rows(os.path.join(T, "csv", "findings.csv"))
           if r["rule"] == "pfc-storm" and r["event"] == "open"]
    c.check("findings.csv: the pfc-storm names the jobs and ranks of the flows it pauses", got,
            [("ifname=eth2 dir=ingress prio=0", True)])


def tui_checks():
    """The view's rows (SRC DST DQPN ...): each NIC flow's JOB cell."""
    scr = open(os.path.join(T, "screen")).read().splitlines()
    head = [x for x in scr if x.startswith("SRC ")]
    got = {}
    for line in scr:
        f = line.split()
        if len(f) > 3 and f[2].isdigit() and int(f[2]) in BY_DQPN:
            got[int(f[2])] = [w for w in ("slurm:4711.0 r3", "k8s:train/trainer-0/worker r1") if w in line]
    c.check("the view: a JOB column", bool(head) and " JOB " in head[0] + " ", True)
    c.check("the view: each flow's JOB cell", got,
            {282: ["slurm:4711.0 r3"], 691: ["slurm:4711.0 r3"], 300: ["k8s:train/trainer-0/worker r1"]})


def jobs_view_checks():
    """The jobs view (J) over the totals: each job's flows (BY_DQPN), packets,
    CE and CNPs (the hand-counted ones), NAKs and RNR NAKs (none), the
    longest pause of eth2 priority 0 (the test's rx_prio0_pause_duration,
    1250000 us; not priority 3's 2 s, no flow's; not the sum with the 0.14 s
    sent) and the ranks placed; most CE first."""
    scr = open(os.path.join(T, "screen-jobs")).read().splitlines()
    head = [i for i, x in enumerate(scr) if x.startswith("JOB ")]
    got = []
    for line in scr[head[0] + 1:] if head else []:
        if not line.strip():
            break
        got.append(tuple(line.split()))
    flows = defaultdict(int)
    for j in BY_DQPN.values():
        flows["%s:%s" % (j["job_kind"], j["job"])] += 1
    want = []
    # CULPRIT and VICTIM (rocetop(8), JOBS): no wire flow here, so the NIC's
    # per-QP counts: both QPs' data (their CE-marked packets, the NIC counting
    # no other) into 192.168.1.10, the one marking point, M = L = 560
    for key, ce, cnp, rank in (("k8s:train/trainer-0", 500, 0, 1), ("slurm:4711", 60, 2, 3)):
        want.append((key, str(flows[key]), str(PKTS[key]), str(ce), str(cnp), "0", "0",
                     "%.1f%%" % (100 * ce / 560), "%.1f%%" % (100 * (560 - ce) / 560), "1.2500", str(rank)))
    c.check("the jobs view: a header", bool(head) and scr[head[0]].split() ==
            ["JOB", "FLOWS", "PKTS", "CE", "CNP", "NAK", "RNR", "CULPRIT", "VICTIM", "PAUSED", "s", "RANKS"], True)
    c.check("the jobs view: per job its flows, packets, CE, CNP, NAK, RNR, culprit and victim shares, paused s, "
            "ranks", got, want)


def filter_checks():
    """Each --filter over the recording keeps exactly the pids whose placed
    job the expression names, with all their packets."""
    want = {"job 4711": {"4242": 62}, "job slurm:4711 and rank 3": {"4242": 62},
            "pod train/trainer-0": {"5151": 500}, "pod trainer-0 or rank 3": {"4242": 62, "5151": 500},
            "rank 1": {"5151": 500}, "not job 4711": {"5151": 500}, "unit x.service": {},
            "slurm:4711.0": {"4242": 62}}
    got = {}
    i = 0
    while os.path.isdir(os.path.join(T, "filter%d" % i)):
        d = os.path.join(T, "filter%d" % i)
        with open(os.path.join(d, "expr")) as f:
            e = f.read().strip()
        pk = defaultdict(int)
        for r in rows(os.path.join(d, "flows.csv")):
            pk[r["pid"] or "-"] += int(r["pkts"])
        got[e] = {k: v for k, v in pk.items() if k != "-"}
        i += 1
    c.check("--filter job/pod/unit/rank terms on -r: each expression keeps its pids' packets", got, want)


csv_checks()
batch_checks()
filter_checks()
tui_checks()
jobs_view_checks()
c.check("recording replayed with --group-by job: packets and ranks per job", group_sums("group-job.json"),
        {"slurm:4711": (62, ["3"]), "k8s:train/trainer-0": (500, ["1"])})
c.check("recording replayed with --group-by pod", group_sums("group-pod.json"),
        {"-": (62, []), "train/trainer-0": (500, ["1"])})	# "-": no ranks folded
report_checks()
hosts_checks()
findings_checks()
c.done()
