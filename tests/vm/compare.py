#!/usr/bin/python3
"""Judge one kernel's run of tests/vm/rdma-pair.sh against independent sources.

usage: compare.py RESULTS VER [BUILD]
RESULTS holds a/ and b/ (what each VM left: the capture, rocetop's CSV, the QP
table it polled, hw_counters before and after, the tools' outputs and pids,
doctor's and --qp-counters' outputs, each end's recording of the run);
BUILD (default: build) has the rocetop that reads the recordings back
(rocetop report). Prints "PASS name" / "FAIL name: why";
exits 1 on a failure.

The sources: tshark's dissection of each VM's capture of eth0 (packets, bytes,
ECN, CNPs, ACKs, NAKs, RNR NAKs per direction, flow and destination QP); the
processes the test started (pid, comm) and the QPNs they printed; the jobs the
guest placed two phases' tools in (jobs: cgroup and rank variables); rdma
netlink's QP table; the rxe device's sysfs hw_counters; a's qdiscs' counts. rocetop's egress hook runs before
the qdisc and the capture after it: on a, the loss phase's netem drops and the
CE phase's marks happen between them, so those two flows are judged apart.
"""
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.outputs import rows as csv_rows  # noqa: E402
from rtlib.roce import ECN_COL  # noqa: E402
from rtlib.tshark import fields  # noqa: E402

res, ver = sys.argv[1:3]
BUILD = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                           "build")
COLS = "pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak".split(",")
IPS = {"a": "10.77.0.1", "b": "10.77.0.2"}
# Each host's own addresses: a's eth0 also has the incident's culprit ranks' (rdma-pair.sh).
OWN = {"a": {IPS["a"], "10.77.0.11", "10.77.0.12", "10.77.0.13"}, "b": {IPS["b"]}}
failed = 0


def out(ok, name, why=""):
    global failed
    if ok:
        print(f"PASS {ver} {name}")
    else:
        failed += 1
        print(f"FAIL {ver} {name}: {why}")


def read(role, name, default=""):
    try:
        with open(os.path.join(res, role, name)) as f:
            return f.read()
    except OSError:
        return default


def tshark_flows(role, tl):
    """(dir, src, dst, dqpn, try) -> counts, from tshark's RoCEv2 dissector;
    try: the phase's try the packet's time falls in (Timeline)."""
    cap = os.path.join(res, role, "cap.pcapng")
    flows = defaultdict(lambda: {c: 0 for c in COLS})
    try:
        frames = fields(cap, ["ip.src", "ip.dst", "infiniband.bth.destqp", "infiniband.bth.opcode",
                              "ip.dsfield.ecn", "frame.len", "infiniband.aeth.syndrome", "frame.time_epoch"],
                        "udp.dstport==4791 && !icmp && infiniband.bth")
    except subprocess.CalledProcessError:
        return None
    for src, dst, qp, op, ecn, flen, syn, t in frames:
        d = "egress" if src in OWN[role] else "ingress"
        f = flows[(d, src, dst, int(qp, 0), tl.at(float(t)))]
        f["pkts"] += 1
        f["bytes"] += int(flen)
        f[ECN_COL[int(ecn, 0)]] += 1
        op = int(op, 0)
        if op == 0x81:
            f["cnp"] += 1
        if syn and op in (0x0D, 0x0F, 0x10, 0x11, 0x12):
            t = (int(syn, 0) >> 5) & 3
            if op == 0x11 or t != 0:
                f[{0: "ack", 1: "rnr_nak", 3: "nak"}.get(t, "ack")] += t != 2
    return {k: dict(v) for k, v in flows.items()}


def rocetop_rows(role, run="rocetop", name="flows.csv"):
    try:
        return csv_rows(os.path.join(res, role, run, name))
    except OSError:
        return None


def rocetop_flows(rows, tl):
    """(dir, src, dst, dqpn, try) -> counts, from flows.csv."""
    flows = defaultdict(lambda: {c: 0 for c in COLS})
    for r in rows:
        if r.get("origin", "wire") != "wire":
            continue
        f = flows[(r["dir"], r["src"], r["dst"], int(r["dqpn"]), tl.row(r))]
        for c in COLS:
            f[c] += int(r[c])
    return {k: dict(v) for k, v in flows.items()}


def flat(flows, tries=None):
    """The flows by (dir, src, dst, dqpn): summed over the tries named (all by default)."""
    out = defaultdict(lambda: {c: 0 for c in COLS})
    for k, v in flows.items():
        if tries is None or k[4] in tries:
            for c in COLS:
                out[k[:4]][c] += v[c]
    return {k: dict(v) for k, v in out.items()}


def diff(got, want, limit=4):
    lines = []
    for k in sorted(set(got) | set(want), key=str):
        g, w = got.get(k), want.get(k)
        if g != w:
            if g and w:
                g = {c: v for c, v in g.items() if w.get(c) != v}
                w = {c: w[c] for c in g}
            lines.append(f"{k}: rocetop {g} tshark {w}")
    return f"{len(lines)} flows differ; " + "; ".join(lines[:limit])


def phases(role):
    """phase -> dict(pid, comm, rc, lqpn, rqpn, t0, t1, tries, peer) of its last try,
    from procs and the tools' outputs; tries: [(label, t0, t1)] of every try,
    labelled by the phase's name before any "." (the incident's processes,
    incident.c0 and the like, share one phase's time); peer and addr: the
    other end's RoCE address and this one's, when procs names them."""
    ph = {}
    for line in read(role, "procs").splitlines():
        f = line.split()
        name, pid, comm, rc = f[:4]
        t0, t1, tr = (float(f[4]), float(f[5]), int(f[6])) if len(f) >= 7 else (None, None, 1)
        text = read(role, f"{name}.out" if tr == 1 else f"{name}.try{tr}.out")
        # perftest measures the CPU's clock after the test to print its report;
        # under TCG that fails ("Can't produce a report") with the traffic done.
        if rc == "1" and "Can't produce a report" in text and "#bytes" in text:
            print(f"INFO {ver} {role}: {name}: {comm} could not calibrate its clock for the report (TCG)")
            rc = "0"
        d = {"pid": int(pid) if pid.isdigit() else None, "comm": comm[:15], "rc": rc if rc == "hung" else int(rc),
             "t0": t0, "t1": t1, "try": tr}
        m = re.search(r"local address:.*?QPN (0x[0-9a-fA-F]+)", text)
        n = re.search(r"remote address:.*?QPN (0x[0-9a-fA-F]+)", text)
        d["lqpn"] = int(m.group(1), 16) if m else None
        d["rqpn"] = int(n.group(1), 16) if n else None
        d["tries"] = ph.get(name, {}).get("tries", []) + [(f"{name.split('.')[0]}#{tr}", t0, t1)]
        d["peer"] = f[7] if len(f) >= 8 else None
        d["addr"] = f[8] if len(f) >= 9 else None
        # every try's QPs (a failed try's flows are the job's too)
        d["qps"] = ph.get(name, {}).get("qps", []) + [(d["tries"][-1][0], d["lqpn"], d["rqpn"])]
        d["hung_before"] = ph.get(name, {}).get("hung_before", False) or ph.get(name, {}).get("rc") == "hung"
        if tr > 1:
            prev = ph[name]
            print(f"INFO {ver} {role}: {name}: try {tr - 1} failed on one end (here: {comm} exit {prev['rc']}); "
                  f"judged by try {tr}")
        ph[name] = d
    return ph


class Timeline:
    """Tells which try of which phase a moment belongs to: each try's window
    [t0, t1] reaches halfway into the quiet seconds around it. Where the kernel
    reuses QP numbers (5.10's rxe gives every QP number 17), a flow's key alone
    does not say which phase it was; its time does. rocetop's rows are placed by
    the middle of their 1-s interval (the row's time is its end), the captured
    packets by their own time: with two quiet seconds between phases both fall
    in the same window."""

    def __init__(self, ph):
        w = sorted({t for d in ph.values() for t in d["tries"] if t[1] is not None}, key=lambda t: t[1])
        self.edges = [(lab, (w[i - 1][2] + t0) / 2 if i else float("-inf"))
                      for i, (lab, t0, _t1) in enumerate(w)]

    def at(self, t):
        lab = None
        for name, start in self.edges:
            if t >= start:
                lab = name
        return lab

    def row(self, r):
        return self.at(float(r["time"]) - 0.5)


def reused(ph):
    """The QP numbers that more than one phase used (both ends' numbers)."""
    seen = defaultdict(set)
    for d in ph.values():
        for q in (d["lqpn"], d["rqpn"]):
            if q is not None:
                seen[q].add(d["tries"][0][0].split("#")[0])
    return {q for q, names in seen.items() if len(names) > 1}


def qp_table(role):
    """Every (lqpn, pid, comm) rdma netlink's QP table showed during the run."""
    seen = set()
    for line in read(role, "qp.log").splitlines():
        if not line.startswith("["):
            continue
        try:
            for q in json.loads(line):
                seen.add((q.get("lqpn"), q.get("pid"), q.get("comm")))
        except ValueError:
            pass
    return seen


def table_qpns(role, ph):
    """Fill lqpn and rqpn from the QP table when the tool printed none (rping)."""
    byq = {}
    for line in read(role, "qp.log").splitlines():
        if line.startswith("["):
            try:
                for q in json.loads(line):
                    if q.get("type") == "RC":
                        byq[q["lqpn"]] = (q.get("pid"), q.get("rqpn"))
            except ValueError:
                pass
    for d in ph.values():
        mine = [(lq, rq) for lq, (pid, rq) in byq.items() if pid == d["pid"]]
        if d["lqpn"] is None and len(mine) == 1:
            d["lqpn"], d["rqpn"] = mine[0]
        elif d["rqpn"] is None and d["lqpn"] in byq:
            d["rqpn"] = byq[d["lqpn"]][1]


def hw(role, which):
    return {k: int(v) for k, v in (l.split() for l in read(role, f"hw.{which}").splitlines())}


def doctor_and_qpc(r, ph):
    # doctor names the device and its netdev.
    doc = read(r, "doctor.out")
    named = any("rxe0" in l and "eth0" in l for l in doc.splitlines())
    out(named and read(r, "doctor.rc").strip() == "0", f"{r}: rocetop doctor names rxe0 and its netdev eth0",
        f"exit {read(r, 'doctor.rc').strip()}, said: {' / '.join(doc.strip().splitlines()[:2])[:200]}"
        f"{'; the kernel: ' + read(r, 'dmesg.rocetop').strip()[:300] if read(r, 'dmesg.rocetop').strip() else ''}")
    # --qp-counters: per-QP counters read, or a one-sentence refusal with a
    # non-zero exit; the mode found is put back.
    st = read(r, "qpc/status").split()
    qerr = read(r, "qpc/stderr").strip().splitlines()
    qrows = rocetop_rows(r, "qpc", "qpctr.csv") or []
    qp = ph[r].get("qpc", {}).get("lqpn")
    reads = any(x["lqpn"] == str(qp) for x in qrows) and st[:1] == ["running"] and "exited" not in st
    # A refusal of the per-QP counters, not of anything else (the BPF programs).
    refuses = st[:1] == ["exited"] and st[1:2] != ["0"] and len(qerr) == 1 and \
        re.search(r"\bQP|counter", qerr[0], re.I) and not re.search(r"BPF", qerr[0])
    # rxe takes auto mode and binds nothing: that is only known once QPs are
    # made, so rocetop says so then (or at exit, when it saw no QP made while
    # it ran: a short one between two of its reads), in one sentence, goes on
    # counting flows and exits non-zero when stopped.
    late = [l for l in qerr if "--qp-counters: auto mode set on" in l and
            ("bound no counter" in l or "no QP was created" in l)]
    refuses = refuses or (st[:2] == ["running", "stopped"] and st[2:3] not in ([], ["0"]) and
                          len(late) == 1 and not any("BPF" in l for l in qerr))
    out(reads or refuses, f"{r}: --qp-counters reads per-QP counters or refuses with a non-zero exit",
        f"{' '.join(st)}; {len(qrows)} qpctr.csv rows; said: {' / '.join(qerr[:2])[:200]}")
    before, after = read(r, "qpmode.before").strip(), read(r, "qpmode.after").strip()
    out(before and before == after, f"{r}: --qp-counters puts back the QP counter mode it found",
        f"before '{before}' after '{after}'")


JOB_COLS = ("job_kind", "job", "step", "rank", "size")


def placed_jobs(role):
    """phase -> (job_kind, job, step, rank, size) the guest placed its tool in."""
    return {f[0]: tuple(f[1:6]) for f in (line.split("\t") for line in read(role, "jobs").splitlines())
            if len(f) >= 6}


# The incident phase's processes (rdma-pair.sh): the culprit's three ranks on
# each end and the victim's one; b's ends of the culprit's flows come from
# their own addresses on a.
INCIDENT = ("incident.c0", "incident.c1", "incident.c2", "incident.v")
CULPRIT, VICTIM = INCIDENT[:3], INCIDENT[3]


def job_key(placed):
    """The job as rocetop report's jobs table keys it ("slurm:4712")."""
    return f"{placed[0]}:{placed[1]}"


def tshark_jobs(r, ph, jobs, capt):
    """The capture's flows of every tool the guest placed in a job, on r: a
    list of dict(phase, job ("kind:job"), step, rank, dir, src, dst, dqpn,
    data, ce, pkts, bytes), one per direction: the tool's QP is the dqpn of
    what comes in, its peer's of what goes out; within its try's time.
    data: packets that are neither ACK, NAK, RNR NAK nor CNP. Per flow,
    so that any sum (per job, rank, destination) is taken from it: by().
    a's capture is taken after its qdisc, rocetop's egress hook before it:
    there, what a's qdisc marked CE counts as the ECT(0) rocetop saw."""
    recs = []
    for name, placed in jobs.items():
        p = ph.get(name)
        if not p or capt is None:
            continue
        peer = p["peer"] or IPS["b" if r == "a" else "a"]
        me = p["addr"] or IPS[r]
        for d, src, dst, q, lab in [x for lab, lq, rq in p["qps"]
                                    for x in (("ingress", peer, me, lq, lab), ("egress", me, peer, rq, lab))]:
            for k, v in capt.items():
                if k[:4] == (d, src, dst, q) and k[4] == lab:
                    data = v["pkts"] - v["ack"] - v["nak"] - v["rnr_nak"] - v["cnp"]
                    ce = 0 if r == "a" and d == "egress" else v["ce"]
                    recs.append(dict(phase=name, job=job_key(placed), step=placed[2], rank=placed[3], dir=d,
                                     src=src, dst=dst, dqpn=q, data=data, ce=ce, pkts=v["pkts"],
                                     bytes=v["bytes"]))
    return recs


def by(recs, keys, cols=("data", "ce"), **match):
    """recs summed by the tuple of keys, over those whose fields equal match's."""
    out = defaultdict(lambda: {c: 0 for c in cols})
    for x in recs:
        if all(x[f] == v for f, v in match.items()):
            for c in cols:
                out[tuple(x[k] for k in keys)][c] += x[c]
    return {k: dict(v) for k, v in out.items()}


def fmt_ranks(ranks):
    """Ranks as rocetop prints them: runs folded ("0-2,5")."""
    rs, parts = sorted({int(x) for x in ranks if x != ""}), []
    for x in rs:
        if parts and x == parts[-1][1] + 1:
            parts[-1][1] = x
        else:
            parts.append([x, x])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in parts)


def report(files, json_out):
    """rocetop report of the recordings (every row): its JSON, or its text; None if it failed."""
    cmd = [os.path.join(BUILD, "rocetop"), "report", "--top", "0"] + (["--json"] if json_out else []) + files
    try:
        text = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=True).stdout
        return json.loads(text) if json_out else text
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        print(f"INFO {ver}: {' '.join(cmd[1:])} failed: {str(e)[:200]}")
        return None


def text_jobs(text):
    """The first "Jobs by congestion" table of a report's text: job -> (ranks, ce, pkts)
    (its columns: JOB FLOWS PKTS BYTES CE CNP NAK RNR CULPRIT VICTIM RANKS)."""
    got, rows = {}, (text or "").split("Jobs by congestion", 1)[1:]
    for line in rows[0].splitlines()[2:] if rows else []:
        f = line.split()
        if len(f) != 11 or not all(x.isdigit() for x in f[1:8]):
            break
        got[f[0]] = (f[10], int(f[4]), int(f[2]))
    return got


def want_jobs(recs):
    """job -> (ranks, ce, pkts): what the report's jobs table must say of the jobs placed."""
    sums = by(recs, ("job",), ("ce", "pkts"))
    return {j: (fmt_ranks(x["rank"] for x in recs if x["job"] == j) or "-", v["ce"], v["pkts"])
            for (j,), v in sums.items()}


def check_report(name, got, want):
    """The report's rows of the jobs placed against the capture's."""
    got = {j: got.get(j) for j in want}
    out(got and got == want, f"{name} lists each job placed with its ranks, CE and packets as the captures "
        f"({', '.join(f'{j} ranks {w[0]} CE {w[1]}' for j, w in sorted(want.items()))})",
        f"report {got} tshark {want}")


def incident_findings(ph, tl, recs, fnd, placed):
    """b's findings on the incident: congestion on each rank's flow naming its
    job and rank, and an incast naming the culprit's sources."""
    labels = {t[0] for t in ph.get(VICTIM, {}).get("tries", [])}
    now = [x for x in fnd if tl.row(x) in labels]
    for who, names in (("victim", (VICTIM,)), ("culprit", CULPRIT)):
        miss = []
        for x in recs:
            if x["phase"] not in names or x["dir"] != "ingress":
                continue
            subj = {"dir=ingress", f"src={x['src']}", f"dst={x['dst']}", f"dqpn={x['dqpn']}"}
            name = f"(job {job_key(placed[x['phase']])}.{x['step']} rank {x['rank']})"
            if not any(f["rule"] == "congestion" and subj <= set(f["subject"].split()) and name in f["evidence"]
                       for f in now):
                miss.append(f"{x['src']} QP {x['dqpn']} {name}")
        ranks = sorted(placed[n][3] for n in names if n in placed)
        flows = [x for x in recs if x["phase"] in names and x["dir"] == "ingress"]
        out(len(flows) == len(names) and not miss, f"b: incident: a congestion finding on each of the {who}'s flows "
            f"names its job and rank ({job_key(placed.get(names[0], '??'))} ranks {','.join(ranks)})",
            f"none for {'; '.join(miss)} (rules seen then: {sorted({f['rule'] for f in now})})")
    srcs = sorted({x["src"] for x in recs if x["phase"] in CULPRIT and x["dir"] == "ingress"})
    inc = [f for f in now if f["rule"] == "incast" and f"dst={IPS['b']}" in f["subject"].split()]
    ok = [f for f in inc if all(re.search(re.escape(a) + r"\b", f["evidence"]) for a in srcs)]
    out(len(srcs) == 3 and ok, f"b: incident: an incast finding towards {IPS['b']} names the culprit's sources "
        f"{', '.join(srcs)}", f"{len(inc)} incast rows, e.g. '{inc[0]['evidence'] if inc else ''}'")
    # Whom it hits: the receiving ranks of both jobs, each with its share of
    # the packets (rules_jobs.c's incast on a receiver), and the culprit's own
    # finding as a job (job-throttled: its three flows congested).
    ranks = {n: fmt_ranks(placed[x][3] for x in names if x in placed)
             for n, names in (("culprit", CULPRIT), ("victim", (VICTIM,)))}
    key = {n: job_key(placed.get(names[0], ("?", "?"))) for n, names in (("culprit", CULPRIT), ("victim", (VICTIM,)))}
    pat = {n: re.escape(f"job {key[n]} rank{'s' if ',' in ranks[n] or '-' in ranks[n] else ''} {ranks[n]} (")
           + r"\d+%\)" for n in key}
    # (findings.csv keeps an episode's evidence as it opened, before the
    # victim's flow was marked too; the report gives its peak's)
    rep = [f for f in (report([os.path.join(res, "b", "rocetop", "run.rtr")], True) or {}).get("findings", [])
           if f.get("rule") == "incast" and (f.get("subject") or {}).get("dst") == IPS["b"]]
    both = [f for f in rep if all(re.search(p, f.get("evidence", "")) for p in pat.values())]
    out(both, f"b: incident: rocetop report's incast names whom it hits: job {key['culprit']} ranks "
        f"{ranks['culprit']} and job {key['victim']} rank {ranks['victim']}, each with its share",
        f"{len(rep)} incast findings, e.g. '{rep[-1].get('evidence') if rep else ''}'")
    thr = [f for f in now if f["rule"] == "job-throttled" and f"job={key['culprit']}" in f["subject"].split()]
    want = f"job {key['culprit']} ranks {ranks['culprit']} throttled: 3 flows"
    out(any(f["evidence"].startswith(want) for f in thr), f"b: incident: a job-throttled finding: '{want}, ...'",
        f"{len(thr)} rows, e.g. '{thr[-1]['evidence'] if thr else ''}'")


def check_blame(doc, placed):
    """The report's culprit and victim shares of b's recording: the culprit's
    three heavy ranks stand for more of the marks than the victim's light one
    (the ce phase's marks, of no job, count in the whole too), and the victim
    got its marks mostly from others' load, the culprit mostly from its own."""
    jobs = {x.get("job"): x for x in (doc or {}).get("jobs") or []}
    c, v = (jobs.get(job_key(placed.get(n, ("?", "?")))) or {} for n in (CULPRIT[0], VICTIM))
    sh = {k: (c.get(k), v.get(k)) for k in ("culprit_share", "victim_share")}
    ok = all(isinstance(x, (int, float)) for t in sh.values() for x in t)
    out(ok and sh["culprit_share"][0] > sh["culprit_share"][1] and sh["victim_share"][1] > 0.5 > sh["victim_share"][0],
        "b: incident: rocetop report's shares name the culprit and the victim (victim share over 50%, the culprit's under)",
        f"culprit, victim job's (culprit_share, victim_share): {sh}")


def incident(ph, tl, capt, jobs):
    """The incident phase: CE per rank against tshark and the qdisc's count,
    the findings naming both jobs, rocetop report of b's recording and of
    both hosts' naming each job with its ranks."""
    recs = {r: tshark_jobs(r, ph[r], jobs[r], capt[r]) for r in "ab"}
    inc = [x for x in recs["b"] if x["phase"] in INCIDENT]
    want = by(inc, ("job", "step", "rank"), dir="ingress")
    print(f"INFO {ver} b: incident: tshark's data packets and CE per job.step and rank: "
          + ", ".join(f"{j}.{s} rank {k}: {v['data']} data {v['ce']} CE" for (j, s, k), v in sorted(want.items())))
    out(len(want) == 4 and all(v["ce"] > 0 for v in want.values()),
        "b: incident: the shared queue marked each rank's packets, the victim's too (tshark)",
        f"tshark per rank {want}")
    rows = rocetop_rows("b") or []
    labels = {t[0] for t in ph["b"].get(VICTIM, {}).get("tries", [])}
    now = [x for x in rows if x.get("origin", "wire") == "wire" and x["dir"] == "ingress" and x["dqpn"] != "1"
           and tl["b"].row(x) in labels]
    got = defaultdict(lambda: {"data": 0, "ce": 0})
    for x in now:
        g = got[(f"{x['job_kind']}:{x['job']}", x["step"], x["rank"])]
        g["data"] += int(x["pkts"]) - int(x["ack"]) - int(x["nak"]) - int(x["rnr_nak"]) - int(x["cnp"])
        g["ce"] += int(x["ce"])
    out(now and dict(got) == want, "b: incident: flows.csv's data packets and CE per job and rank equal tshark's",
        f"rocetop {dict(got)} tshark {want}")
    m = re.search(r"ecn_mark (\d+) ce_mark (\d+)", read("a", "qdisc.incident"))
    marks = (int(m.group(1)), int(m.group(2))) if m else None
    cap_ce = sum(v["ce"] for k, v in (capt["b"] or {}).items() if k[0] == "ingress" and k[4] in labels)
    rt_ce = sum(int(x["ce"]) for x in now)
    out(marks and marks[0] == 0 and marks[1] == cap_ce == rt_ce and cap_ce > 0,
        "b: incident: CE counted by rocetop = in b's capture = fq_codel's marks on a",
        f"rocetop {rt_ce}, tshark {cap_ce}, fq_codel ecn_mark/ce_mark {marks}")
    incident_findings(ph["b"], tl["b"], recs["b"], rocetop_rows("b", name="findings.csv") or [], jobs["b"])
    # rocetop report: b's recording, then both hosts' (each job's ranks joined).
    rec = {r: os.path.join(res, r, "rocetop", "run.rtr") for r in "ab"}
    for files, name, want in (([rec["b"]], "b", want_jobs(recs["b"])),
                              ([rec["a"], rec["b"]], "ab", want_jobs(recs["a"] + recs["b"]))):
        doc, text = report(files, True), report(files, False)
        if text is not None:
            with open(os.path.join(res, f"report.{name}.txt"), "w") as f:
                f.write(text)
        arr = (doc or {}).get("jobs") if name == "b" else ((doc or {}).get("all_jobs") or {}).get("jobs")
        got = {x.get("job"): (x.get("ranks"), x.get("ce"), x.get("pkts")) for x in arr or []}
        what = "rocetop report of b's recording" if name == "b" else "rocetop report of a's and b's recordings"
        check_report(f"{what} (JSON)", got, want)
        if name == "b":
            check_blame(doc, jobs["b"])
        check_report(f"{what} (text)", text_jobs(text), want)


def tune():
    """rocetop report --tune of each end's recording. rxe sends no CNP and has
    no notification point to enable: b, where a's fq_codel marked CE (the CE
    and incident phases), must get exactly the CE-without-CNP observation
    (setting ecn/roce_np/enable) on the priority the marked packets carried
    (untagged, no DCB: DSCP / 8, from tshark), its count equal to the CE-marked
    RoCE packets b's capture received and to fq_codel's ce_mark on a, and b's
    capture must hold no CNP; a, which received no mark, must get none."""
    cap = os.path.join(res, "b", "cap.pcapng")
    try:
        ce = fields(cap, ["ip.dsfield.dscp", "vlan.priority"], "udp.dstport==4791 && !icmp && infiniband.bth && "
                    f"ip.dst=={IPS['b']} && ip.dsfield.ecn==3")
        cnps = fields(cap, ["frame.number"], "udp.dstport==4791 && !icmp && infiniband.bth.opcode==0x81")
    except subprocess.CalledProcessError:
        out(False, "b: report --tune: tshark reads the capture", "tshark failed on cap.pcapng")
        return
    prios = sorted({int(v, 0) if v else int(d, 0) >> 3 for d, v in ce})
    marks = [re.search(r"ce_mark (\d+)", read("a", n)) for n in ("qdisc.ce", "qdisc.incident")]
    marks = sum(int(m.group(1)) for m in marks if m) if all(marks) else None
    print(f"INFO {ver} b: report --tune: tshark: {len(ce)} CE-marked RoCE packets received on priorities {prios}, "
          f"{len(cnps)} CNPs; fq_codel ce_mark on a {marks}")
    got = {}
    for r in "ab":
        cmd = [os.path.join(BUILD, "rocetop"), "report", "--tune", "--json", os.path.join(res, r, "rocetop", "run.rtr")]
        try:
            got[r] = json.loads(subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                                               check=True).stdout).get("tuning")
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            got[r] = f"failed: {str(e)[:200]}"
    out(got["a"] == [], "a: report --tune recommends nothing (no CE mark came to a)", f"tuning {got['a']}")
    ok = len(prios) == 1 and marks == len(ce) > 0 and not cnps
    out(ok, "b: the marks: one priority, as many CE in b's capture as fq_codel marked on a, no CNP",
        f"priorities {prios}, tshark CE {len(ce)}, fq_codel ce_mark {marks}, CNPs {len(cnps)}")
    if not ok:
        return
    p, n = prios[0], len(ce)
    want = ("observation", "ecn/roce_np/enable", f"eth0 priority {p}", "absent (rxe0 has no notification point)",
            f"{n} CE-marked RoCE packets arrived on priority {p}, 0 CNPs left (sent on the wire, np_cnp_sent +0); "
            "eth0 has no ecn/roce_np/enable")
    have = [tuple(x.get(k) for k in ("kind", "setting", "scope", "current", "evidence")) for x in got["b"]] \
        if isinstance(got["b"], list) else got["b"]
    out(have == [want] and got["b"][0]["recommended"].startswith(f"a notification point on priority {p}: ") and
        not got["b"][0]["command"],
        f"b: report --tune: exactly CE without CNP (ecn/roce_np/enable, absent) on priority {p} with {n} CE marks",
        f"tuning {got['b']}, want [{want}]")


def main():
    ph = {r: phases(r) for r in "ab"}
    jobs = {r: placed_jobs(r) for r in "ab"}
    for r in "ab":
        out(set(jobs[r]) == {"write", "send", *INCIDENT}, f"{r}: the write, send and incident phases ran in jobs "
            "the guest made",
            f"the guest's jobs file names {sorted(jobs[r])}")
    for r in "ab":
        table_qpns(r, ph[r])
    tl = {r: Timeline(ph[r]) for r in "ab"}
    capt = {r: tshark_flows(r, tl[r]) for r in "ab"}
    caps = {r: capt[r] and flat(capt[r]) for r in "ab"}
    # The traffic itself: every tool exited 0 on both ends.
    for r in "ab":
        if read(r, "errors"):
            out(False, f"{r}: the guest script ran to its end", read(r, "errors").strip().replace("\n", "; "))
        # Up to the power-off the guest asks for: after it, 6.12 pulls the 9p
        # root from under init's last sleep ("Bus error", then init exits and
        # the kernel panics on its way down), which is no crash of the test.
        con = read(r, "console").split("sysrq: Power Off")[0]
        m = re.search(r"(BUG|Oops|Kernel panic)[^\n]*", con)
        if m:
            trace = re.findall(r"\] +(\w+)\+0x", con)
            out(False, f"{r}: the guest kernel did not crash", f"{m.group(0).strip()} in {' <- '.join(trace[:4])}")
        bad = {n: d["rc"] for n, d in ph[r].items() if d["rc"] != 0}
        out(not bad and ph[r], f"{r}: traffic tools exit 0 (perftest, ibv_rc_pingpong, rping)",
            f"exit codes {bad}" if ph[r] else "no phase ran")
        out(caps[r] is not None, f"{r}: tshark reads the capture", "tshark failed on cap.pcapng")
    if caps["a"] and caps["b"]:
        rnr = sum(f["rnr_nak"] for f in caps["b"].values() if f)
        out(rnr > 0, "RNR phase: the capture holds RNR NAKs", "no RNR NAK on the wire")
        ce_tries = {t[0] for t in ph["b"].get("ce", {}).get("tries", [])}
        ce = sum(f["ce"] for k, f in capt["b"].items() if k[0] == "ingress" and k[4] in ce_tries)
        m = re.search(r"ecn_mark (\d+) ce_mark (\d+)", read("a", "qdisc.ce"))
        marks = (int(m.group(1)), int(m.group(2))) if m else None
        out(ce > 0 and marks and marks[0] == 0 and marks[1] == ce,
            "CE phase: b's capture holds as many CE packets as fq_codel marked on a",
            f"tshark CE {ce}, fq_codel ecn_mark/ce_mark {marks}")
        # The link adds nothing and loses nothing: what a's capture saw leave, b's saw arrive.
        sent = {k[1:]: v for k, v in caps["a"].items() if k[0] == "egress"}
        got = {k[1:]: v for k, v in caps["b"].items() if k[0] == "ingress"}
        out(sent == got, "the link: b's capture received exactly what a's sent", diff(got, sent))

    loss_q = ph["a"].get("loss", {}).get("rqpn")
    ce_q = ph["a"].get("ce", {}).get("rqpn")
    again = reused(ph["a"]) | reused(ph["b"])
    if again:
        print(f"INFO {ver}: QP numbers {sorted(again)} served several phases: "
              "where a check needs one phase, it takes that phase's time")

    def tries(r, name):
        """The labels of a phase's tries on r (Timeline)."""
        return {t[0] for t in ph[r].get(name, {}).get("tries", [])}

    def of(flows, q, r, name):
        """flows by key; those of QP q only from the tries of phase name when q served several phases."""
        return flat(flows, tries(r, name)) if q in again else flat(flows)
    for r in "ab":
        status = read(r, "rocetop/status").strip()
        ran = status.startswith("running") and "exited" not in status
        err = read(r, "rocetop/stderr").strip().splitlines()
        out(ran, f"{r}: rocetop -i eth0 loads and runs", f"{status}: {' / '.join(err[:3])[:300]}")
        doctor_and_qpc(r, ph)
        rows = rocetop_rows(r)
        if not ran or rows is None or caps[r] is None:
            for n in ("ingress flows equal tshark's", "egress flows equal tshark's",
                      "QP owners (lqpn, pid, comm) in flows.csv", "ports.csv equals sysfs hw_counters"):
                out(False, f"{r}: {n}", "rocetop did not run" if not ran else "no data")
            continue
        rtt = rocetop_flows(rows, tl[r])
        rt = flat(rtt)
        cap = caps[r]
        lt = tries("a", "loss")
        for d in ("ingress", "egress"):
            skip = set()

            def keep(k):
                # a's egress: the loss phase's flow apart (netem drops after rocetop's hook)
                return not (r == "a" and d == "egress" and k[3] == loss_q and (loss_q not in again or k[4] in lt))
            g = flat({k: v for k, v in rtt.items() if k[0] == d and keep(k)})
            w = flat({k: v for k, v in capt[r].items() if k[0] == d and keep(k)})
            if r == "a" and d == "egress":
                # a's qdisc is the only marking point: before it, what the
                # capture saw as CE was ECT(0) (the CE phase's data and its
                # rdma_cm packets alike).
                skip = {k for k in set(rtt) | set(capt[r]) if k[0] == d and not keep(k)}
                w = {k: dict(v, ect0=v["ect0"] + v["ce"], ce=0) for k, v in w.items()}
            out(g == w, f"{r}: {d} flows equal tshark's (pkts, bytes, ECN, CNP, ACK, NAK, RNR NAK per dqpn)"
                + (" (before the qdisc: CE counted as the ECT(0) it was; the loss flow apart)" if skip else ""),
                diff(g, w))
        if r == "a":
            # Before the qdisc: every CE-phase packet is ECT(0) and none CE;
            # the capture (after it) splits them between ECT(0) and CE.
            k = ("egress", IPS["a"], IPS["b"], ce_q)
            g, w = of(rtt, ce_q, "a", "ce").get(k), of(capt["a"], ce_q, "a", "ce").get(k)
            ok = g and w and g["ce"] == 0 and g["ect0"] == w["ect0"] + w["ce"] and g["pkts"] == w["pkts"] \
                and g["bytes"] == w["bytes"]
            out(ok, "a: CE flow before the qdisc: ECT(0) = tshark's ECT(0) + CE, no CE, same pkts and bytes",
                f"rocetop {g} tshark {w}")
            # The loss flow: rocetop counts what rxe sent, netem dropped some after.
            k = ("egress", IPS["a"], IPS["b"], loss_q)
            g, w = of(rtt, loss_q, "a", "loss").get(k), of(capt["a"], loss_q, "a", "loss").get(k)
            m = re.search(r"qdisc netem 40:.*?dropped (\d+)", read("a", "qdisc.loss"), re.S)
            drops = int(m.group(1)) if m else None
            ok = g and w and drops and g["pkts"] - w["pkts"] == drops and \
                all(g[c] == w[c] for c in ("ack", "nak", "rnr_nak", "cnp", "ce"))
            out(ok, "a: loss flow before netem: rocetop's packets = the capture's after it + netem's drops",
                f"rocetop {g and g['pkts']} tshark {w and w['pkts']} netem dropped {drops}")
        # All RoCE packets rocetop saw against the rxe device's own counters.
        h0, h1 = hw(r, "before"), hw(r, "after")
        for d, ctr in (("egress", "sent_pkts"), ("ingress", "rcvd_pkts")):
            n = sum(v["pkts"] for k, v in rt.items() if k[0] == d)
            if ctr not in h0 or ctr not in h1:
                continue
            # rxe counts what it sent before the qdisc, as rocetop's egress
            # hook does; what it received, only once it accepted the packet.
            if ctr == "sent_pkts":
                out(n == h1[ctr] - h0[ctr], f"{r}: rocetop's {d} packets equal hw_counters {ctr} (delta)",
                    f"rocetop {n}, {ctr} {h1[ctr] - h0[ctr]}")
            else:
                print(f"INFO {ver} {r}: rocetop's {d} packets {n}, hw_counters {ctr} delta {h1[ctr] - h0[ctr]}")
        # QP owners: the table rdma netlink showed, and rocetop's columns.
        table = qp_table(r)
        for name, p in ph[r].items():
            if name == "qpc":
                continue
            owners = {(q, pid, c) for q, pid, c in table if pid == p["pid"]}
            want_q = p["lqpn"]
            ok = all(c == p["comm"] for _, _, c in owners)
            # The table is sampled by a process every 0.2 s at best (rdma-pair.sh);
            # under TCG one sample can take longer than a short phase's QP
            # lives (perftest -R's server has another QP while it waits):
            # the tool's own output gives its QPN (flows.csv is held to it below).
            # Under load a whole phase (read) can pass between two samples.
            seen = want_q is None or any(q == want_q for q, _, _ in owners)
            out(ok, f"{r}: QP table gives {name}'s process (pid {p['pid']}) no other comm than {p['comm']}",
                f"rdma resource show qp had {sorted(owners, key=str)[:4] or 'no QP of that pid'}")
            if not seen:
                print(f"INFO {ver} {r}: {name}'s QP {want_q} lived between the QP table's samples; "
                      f"they had {sorted(owners, key=str)[:4]}")
            if want_q is None or p["rqpn"] is None:
                continue
            peer = p["peer"] or IPS["b" if r == "a" else "a"]
            mine = [x for x in rows if x.get("origin", "wire") == "wire" and
                    ((x["dir"] == "egress" and x["dst"] == peer and int(x["dqpn"]) == p["rqpn"]) or
                     (x["dir"] == "ingress" and x["src"] == peer and int(x["dqpn"]) == want_q))]
            if want_q in again or p["rqpn"] in again:
                # the QPN served other phases too: this phase's rows are those of its last try's time
                mine = [x for x in mine if tl[r].row(x) == p["tries"][-1][0]]
            bad = [x for x in mine if (x["lqpn"], x["pid"], x["comm"]) != (str(want_q), str(p["pid"]), p["comm"])]
            lost = sum(int(x["pkts"]) for x in bad)
            tot = sum(int(x["pkts"]) for x in mine)
            out(mine and not bad, f"{r}: flows.csv names {name}'s owner on every row (lqpn, pid, comm)",
                f"{len(bad)} of {len(mine)} rows ({lost} of {tot} pkts) say "
                f"{sorted({(x['lqpn'], x['pid'], x['comm']) for x in bad})[:3]}")
            # The job the guest placed the phase's tool in (rdma-pair.sh: $R/jobs),
            # else the root cgroup with no rank.
            want_j = jobs[r].get(name, ("cgroup", "/", "", "", ""))
            badj = [x for x in mine if tuple(x.get(c) for c in JOB_COLS) != want_j]
            out(mine and not badj, f"{r}: flows.csv names {name}'s job on every row ({', '.join(JOB_COLS)}: "
                f"{'/'.join(want_j)})", f"{len(badj)} of {len(mine)} rows say "
                f"{sorted({tuple(x.get(c) for c in JOB_COLS) for x in badj})[:3]}")
        # Findings on the phases' flows (the requester's QP is the dqpn of what
        # the responder sends back).
        fnd = rocetop_rows(r, name="findings.csv") or []

        def findings(rule, dqpn, name):
            """rows of rule on QP dqpn; only from phase name's time if dqpn served several phases"""
            return [x for x in fnd if x["rule"] == rule and f"dqpn={dqpn}" in x["subject"].split()
                    and (dqpn not in again or tl[r].row(x) in tries(r, name))]
        rq = ph["a"].get("rnr", {}).get("lqpn")
        if rq is not None:
            out(findings("receiver-not-ready", rq, "rnr"), f"{r}: RNR phase: a receiver-not-ready finding on QP {rq}",
                "none in findings.csv")
            bad = findings("loss", rq, "rnr")
            out(not bad, f"{r}: RNR phase: no loss finding on QP {rq} (rxe's sequence NAKs after an RNR are not loss)",
                f"{len(bad)} loss rows, e.g. '{bad[0]['evidence'] if bad else ''}'")
        lq = ph["a"].get("loss", {}).get("lqpn")
        if lq is not None:
            out(findings("loss", lq, "loss"), f"{r}: loss phase: a loss finding on QP {lq}", "none in findings.csv")
        cq = ph["a"].get("ce", {}).get("rqpn")
        if r == "b" and cq is not None:
            nocnp = [x for x in fnd if f"dqpn={cq}" in x["subject"].split() and re.search(r"no CNP", x["evidence"], re.I)
                     and (cq not in again or tl[r].row(x) in tries(r, "ce"))]
            out(nocnp, f"b: CE phase: a finding says CE arrives on QP {cq} and no CNP goes back",
                f"findings.csv names no such thing (rules seen: {sorted({x['rule'] for x in fnd})})")
        # rdma_cm's connection management (QP 1) is not a kernel flow: labelled
        # rdma_cm, never ib_core; while a phase's process that called rdma_cm
        # runs (rping, the CE phase's perftest -R), its rows name that process.
        # Its CM retransmits and time-wait packets can come intervals after it
        # exited: those rows name no process (pid 0). So do those of a try
        # whose earlier try still hangs: two processes then hold CM IDs between
        # the same two hosts, and rocetop names neither. And on the server (b)
        # the first row of the phase may: its QP is made when the request
        # arrives, and until then the table holds only its listener, which has
        # no QP and no peer address to match the flow with. And on either end
        # the last row before the try's end may: the tool destroys its CM ID
        # before it exits, and its end (t1) is taken by a poll up to a few
        # tenths of a second (more on a loaded host) after the exit. The rest
        # name it, and at least one row does.
        cm = [x for x in rows if x["dqpn"] == "1"]
        odd = [x for x in cm if x["comm"] != "rdma_cm"]
        out(cm and not odd, f"{r}: rdma_cm traffic (QP 1) is labelled rdma_cm, not ib_core",
            f"{len(odd)} of {len(cm)} flows.csv rows of QP 1 say pid {odd[0]['pid'] if odd else ''} "
            f"comm {odd[0]['comm'] if odd else ''}")
        for name in ("rping", "ce"):
            p = ph[r].get(name)
            if not p or p["t1"] is None:
                continue
            live = sorted((x for x in cm if tl[r].row(x) == p["tries"][-1][0] and float(x["time"]) <= p["t1"]),
                          key=lambda x: float(x["time"]))
            first = {id(x) for x in live if float(x["time"]) == float(live[0]["time"])} if r == "b" and live else set()
            first |= {id(x) for x in live if float(x["time"]) == float(live[-1]["time"])}
            ok = {str(p["pid"]), "0"} if p["hung_before"] else {str(p["pid"])}
            bad = [x for x in live if x["pid"] not in ok and not (id(x) in first and x["pid"] == "0")]
            named = p["hung_before"] or any(x["pid"] == str(p["pid"]) for x in live)
            out(live and named and not bad, f"{r}: {name}'s rdma_cm rows (QP 1) name its process while it runs (pid {p['pid']})",
                f"{len(bad)} of {len(live)} rows say pid {sorted({x['pid'] for x in bad})}: "
                f"{[(x['time'], x['dir'], x['pkts'], x['lqpn']) for x in bad[:4]]}; the try ran "
                f"{p['tries'][-1][1]}..{p['t1']}, its rows at {sorted({x['time'] for x in live})}")
        # ports.csv's last value of each counter against sysfs after the traffic.
        prow = rocetop_rows(r, name="ports.csv") or []
        last = {}
        for x in prow:
            if x["device"] == "rxe0" and x.get("scope", "hw_counters") == "hw_counters":
                last[x["counter"]] = int(x["value"])
        want = {k: v for k, v in h1.items() if k in last or k not in ("lifespan",)}
        got = {k: last.get(k) for k in want}
        bad = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
        out(last and not bad, f"{r}: ports.csv's last rxe0 values equal sysfs hw_counters",
            f"ports.csv/sysfs differ: {dict(list(bad.items())[:5])}")

    incident(ph, tl, capt, jobs)
    tune()
    return 1 if failed else 0


sys.exit(main())
