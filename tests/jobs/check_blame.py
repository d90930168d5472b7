#!/usr/bin/env python3
"""test_jobs_blame.sh's checks. From what send_blame.py sent (its tally), the
hwhost fixture's QP table (tests/fixtures/hwhost/make-fixtures.py) and the
jobs the test placed (pid 4242: Slurm 4711 rank 3; pid 5151: Slurm 4712
rank 0), the culprit and victim shares as rocetop(8) defines them, the
job-throttled finding and the incast's evidence, worked out here; then
checked in the live --batch --json --group-by job, the report over the
recording (JSON) and findings.csv.
Usage: check_blame.py TMPDIR"""
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402
from rtlib.outputs import rows  # noqa: E402

T = sys.argv[1]
H = "192.168.1.10"
QPS = [(282, 691, 4242, "192.168.1.20"), (300, 700, 5151, "192.168.1.30"), (301, 701, 5151, "192.168.1.31")]
JOB = {4242: ("slurm:4711", 3), 5151: ("slurm:4712", 0)}
CE_MIN, CE_SHARE, INCAST, JOB_FLOWS = 10, 0.05, 3, 2	# the findings' default thresholds
c = Checker(prefix="jobs_blame: ")


def owner(src, dst, dqpn, d):
    """The pid of a flow's local QP: coming in, the QP it is sent to; going
    out, the QP whose peer it is sent to (the addresses the QP's)."""
    for lq, rq, pid, remote in QPS:
        if (d == "ingress" and dqpn == lq and src == remote) or (d == "egress" and dqpn == rq and dst == remote):
            return pid
    return None


def throttled(src, dst, dqpn, d):
    """The data flow a CNP flow slows (the rocetop(8) join over the QP
    table): a CNP in to our QP q slows our data to q's peer QP; a CNP out to
    q's peer QP slows the peer's data into q."""
    for lq, rq, pid, remote in QPS:
        if d == "ingress" and dqpn == lq and src == remote:
            return (H, remote, rq, "egress")
        if d == "egress" and dqpn == rq and dst == remote:
            return (remote, H, lq, "ingress")
    return None


flows = defaultdict(lambda: {"data": 0, "ce": 0, "cnp": 0})
for line in open(os.path.join(T, "in.tally")).readlines() + open(os.path.join(T, "out.tally")).readlines():
    p = json.loads(line)
    f = flows[(p["src"], p["dst"], p["dqpn"], p["dir"])]
    f["cnp" if p["cnp"] else "data"] += 1
    f["ce"] += p["ce"]


def job_of(k):
    pid = owner(*k)
    return JOB[pid] if pid in JOB else ("-", None)


def shares():
    """rocetop(8)'s definition: per destination p, L_J(p), L(p), M_J(p) (CE,
    or where none is seen the CNPs tied to J's data flows into p)."""
    pts = defaultdict(lambda: defaultdict(lambda: {"l": 0, "ce": 0, "cnp": 0}))
    for k, f in flows.items():
        if f["data"]:
            e = pts[k[1]][job_of(k)[0]]
            e["l"] += f["data"]
            e["ce"] += f["ce"]
        t = throttled(*k) if f["cnp"] else None
        if t:
            pts[t[1]][job_of(t)[0]]["cnp"] += f["cnp"]
    marks, cul, vic, got = 0, defaultdict(float), defaultdict(float), defaultdict(float)
    for p, js in pts.items():
        load = sum(e["l"] for e in js.values())
        ce = sum(e["ce"] for e in js.values())
        m = ce or sum(e["cnp"] for e in js.values())
        if not load or not m:
            continue
        marks += m
        for j, e in js.items():
            share = e["l"] / load
            mj = e["ce"] if ce else e["cnp"]
            cul[j] += m * share
            vic[j] += mj * (1 - share)
            got[j] += mj
    keys = {job_of(k)[0] for k in flows}
    return {j: (cul[j] / marks if marks else None, vic[j] / got[j] if got[j] else None) for j in keys}


def near(got, want):
    if want is None or got is None:
        return got is want
    return abs(got - want) < 1e-9


def check_shares(what, got, want):
    ok = set(got) == set(want) and all(near(got[k][0], want[k][0]) and near(got[k][1], want[k][1]) for k in want)
    c.check(what, got if not ok else want, want)


WANT = shares()


def batch_checks():
    got = {}
    for line in open(os.path.join(T, "out")):
        o = json.loads(line)
        for g in o.get("groups", []):
            if g.get("culprit_share") is not None or g["key"] not in got:
                got[g["key"]] = (g.get("culprit_share"), g.get("victim_share"))
    check_shares("--batch --json --group-by job: culprit_share, victim_share per job", got, WANT)


def report_checks():
    rep = json.load(open(os.path.join(T, "report.json")))
    got = {j["job"]: (j.get("culprit_share"), j.get("victim_share")) for j in rep.get("jobs", [])}
    check_shares("report --json: the jobs table's culprit_share, victim_share", got, WANT)


def rank_text(ranks):
    r = sorted(ranks)
    return ("rank %d" if len(r) == 1 else "ranks %s") % (r[0] if len(r) == 1 else ",".join(map(str, r)))


def want_findings():
    """job-throttled per job: its data flows congested (CE >= ce-min and a
    ce-share of the ECN-capable packets) or with >= ce-min CNPs tied; the
    incast into H: its congested sources' jobs by share of their data."""
    tied = defaultdict(int)
    for k, f in flows.items():
        if f["cnp"] and throttled(*k):
            tied[throttled(*k)] += f["cnp"]
    per = defaultdict(list)
    for k, f in flows.items():
        cong = f["ce"] >= CE_MIN and f["data"] and f["ce"] / f["data"] >= CE_SHARE
        if f["data"] and (cong or tied[k] >= CE_MIN) and job_of(k)[0] != "-":
            per[job_of(k)].append((f, tied[k]))
    jt = {}
    for (job, rank), fl in per.items():
        if len(fl) < JOB_FLOWS:
            continue
        cnp, ce, data = sum(t for _, t in fl), sum(f["ce"] for f, _ in fl), sum(f["data"] for f, _ in fl)
        jt["job=" + job] = "job %s %s throttled: %d flows, %s CNPs, CE on %s of %s packets (%.1f%%)" % (
            job, rank_text({rank}), len(fl), format(cnp, ","), format(ce, ","), format(data, ","), 100 * ce / data)
    into = [(k, f) for k, f in flows.items() if k[1] == H and f["ce"] >= CE_MIN and f["ce"] / f["data"] >= CE_SHARE]
    tot = sum(f["data"] for _, f in into)
    by = defaultdict(int)
    for k, f in into:
        if job_of(k)[0] != "-":
            by[job_of(k)] += f["data"]
    parts = ["job %s %s (%.0f%%)" % (j, rank_text({r}), 100 * n / tot) for (j, r), n in
             sorted(by.items(), key=lambda x: -x[1])[:4]]
    inc = "%d sources CE-marked towards %s at once onto %s: " % (len(into), H, ", ".join(parts))
    return jt, inc


def findings_checks():
    jt, inc = want_findings()
    fs = [r for r in rows(os.path.join(T, "csv", "findings.csv")) if r["event"] == "open"]
    got = {r["subject"]: r["evidence"] for r in fs if r["rule"] == "job-throttled"}
    c.check("findings.csv: job-throttled, one per job with several flows throttled, its evidence", got, jt)
    got = [r["evidence"][:len(inc)] for r in fs if r["rule"] == "incast"]
    c.check("findings.csv: the incast names the jobs it hits, their ranks and shares", got, [inc])
    rep = json.load(open(os.path.join(T, "report.json")))
    got = {"job=" + f["subject"].get("job", ""): f["evidence"] for f in rep.get("findings", [])
           if f["rule"] == "job-throttled"}
    c.check("report --json: the job-throttled finding, its subject a job", got, jt)


c.check("the shares worked out here are those of the test's design (rocetop(8)'s example numbers)",
        {k: tuple(round(x, 6) if x is not None else None for x in v) for k, v in WANT.items()},
        {"slurm:4711": (round(20 / 130, 6), 0.8), "slurm:4712": (round(78 / 130, 6), 0.4),
         "-": (round(32 / 130, 6), 0.8)})
batch_checks()
report_checks()
findings_checks()
# The jobs view's CULPRIT and VICTIM columns, for test_jobs_blame.sh's tmux
# check: "KEY CULPRIT% VICTIM%" a line, as the view rounds them.
with open(os.path.join(T, "want.view"), "w") as f:
    for k, (cu, vi) in sorted(WANT.items()):
        f.write("%s %s %s\n" % (k, "-" if cu is None else "%.1f%%" % (100 * cu),
                                 "-" if vi is None else "%.1f%%" % (100 * vi)))
c.done()
