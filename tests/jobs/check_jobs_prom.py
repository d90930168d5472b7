#!/usr/bin/env python3
"""test_jobs_prom.sh's checks: every rocetop_job_* and rocetop_jobs_unexported
series a real Prometheus server holds, with its labels and value, against the
jobs the test placed and the packets the fixture's counters moved by.

Usage: check_jobs_prom.py PROM_URL TARGET WANT_JSON WHAT DEADLINE
WANT_JSON: {"jobs": [[kind, name, {counter: packets}]...], "bound": K}: the
jobs whose flows moved, each with what its flows' counters moved by (absent
counters: 0); K, how many rocetop exports (rocetop(8) JOBS: the K most
congested, then most packets, then by name; rocetop_jobs_unexported the
rest). The server scrapes TARGET twice: as job "rocetop" (Prometheus'
default honor_labels: false) and as job "rocetop-honor" (honor_labels: true);
rocetop names its jobs job_name, so both keep it and the scrape's own job.
The counters only: the last interval's culprit and victim gauges come and go
with congestion (tests/unit/test_jobs.c checks them)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402
from rtlib.prom import poll  # noqa: E402

url, target, want_file, what, deadline = sys.argv[1:6]
spec = json.load(open(want_file))
c = Checker(prefix="jobs_prom: %s: " % what)
# family suffix, extra label (name, value) or None, the counter it shows
FAMS = [("packets", None, "pkts"), ("bytes", None, "bytes")] + \
    [("ecn_packets", ("ecn", e), e) for e in ("not_ect", "ect0", "ect1", "ce")] + \
    [("cnps", None, "cnp"), ("acks", None, "ack"), ("naks", ("reason", "psn_sequence"), "nak_seq"),
     ("naks", ("reason", "other"), "nak_other"), ("rnr_naks", None, "rnr_nak")]


def congestion(v):
    return sum(v.get(k, 0) for k in ("ce", "cnp", "nak_seq", "nak_other", "rnr_nak"))


def exported():
    """The jobs rocetop must export: the K most congested, then most packets, then by key."""
    jobs = sorted(spec["jobs"], key=lambda j: (-congestion(j[2]), -j[2].get("pkts", 0), "%s:%s" % (j[0], j[1])))
    return jobs[:spec["bound"]], len(jobs) - min(len(jobs), spec["bound"])


def want(scrape_job, honor):
    jobs, left = exported()
    base = {"instance": target}
    out = {}
    for kind, name, v in jobs:
        for suffix, extra, ctr in FAMS:
            lab = dict(base, __name__="rocetop_job_%s_total" % suffix, job_kind=kind)
            lab.update(job=scrape_job, job_name=name)
            if extra:
                lab[extra[0]] = extra[1]
            out[frozenset(lab.items())] = str(v.get(ctr, 0))
    out[frozenset(dict(base, __name__="rocetop_jobs_unexported", job=scrape_job).items())] = str(left)
    return out


def show(d):
    return {",".join("%s=%s" % kv for kv in sorted(k)): v for k, v in (d or {}).items()}


for scrape_job, honor in (("rocetop", False), ("rocetop-honor", True)):
    q = '{__name__=~"rocetop_job_.*_total|rocetop_jobs_unexported",instance="%s",job="%s"}' % (target, scrape_job)
    w = want(scrape_job, honor)
    got, why = poll(url, q, w, float(deadline))
    c.check("%s (honor_labels: %s): each series' labels and value (%d series, %d jobs exported)" %
            (scrape_job, "true" if honor else "false", len(w), len(exported()[0])),
            show(got), show(w)) or (why and print("  " + why))
c.done()
