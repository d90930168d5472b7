#!/usr/bin/python3
"""Checks of the findings tests on the lab, against the generator's tally.

  csv FINDINGS.csv TALLY SCENARIO   the findings a lab run opened (findings.csv)
                                    are those the scenario's traffic calls for
  merge REPORT.json TALLY           the merged report of the sender's and the
                                    receiver's recordings: both hosts named, and
                                    every CNP flow of the tally matched to the
                                    data flow of the same sender
"""
import os
import json
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import errors  # noqa: E402
from rtlib.outputs import rows as csv_rows  # noqa: E402

RCV = "10.77.0.2"


def tally(d):
    return csv_rows(d + "/flows.csv")


def subj(s):
    return dict(kv.split("=", 1) for kv in s.split())


def check_csv(path, tdir, sc):
    rows = csv_rows(path)
    t = tally(tdir)
    opened = [r for r in rows if r["event"] == "open"]
    rules = {r["rule"] for r in opened}
    errs = []
    if sc == "steady":
        if rows:
            errs.append("steady opened %s" % sorted(rules))
    elif sc == "pfc-storm":
        storm = [r for r in opened if r["rule"] == "pfc-storm"]
        if len(storm) != 1 or subj(storm[0]["subject"]) != {"ifname": "rcv0", "dir": "egress", "prio": "3"} \
                or storm[0]["severity"] != "critical":
            errs.append("pfc-storm: %s" % storm)
        # The generator's victims stop while paused (gen/gen_model.c pause_until):
        # the storm's intervals carry no data packet on priority 3, so
        # pause-without-ecn has no evidence ("carried N data packets ... and not
        # one CE mark") and must not open (a pause rule with nothing to show is noise).
        pwe = [subj(r["subject"]) for r in opened if r["rule"] == "pause-without-ecn"]
        if pwe:
            errs.append("pause-without-ecn without data packets: %s" % pwe)
        # The victims: the data flows the generator sent on DSCP 26 (priority 3);
        # the tally has no DSCP column, but the flows on priority 1 are the
        # steady ones (10.77.0.31..), the victims 10.77.0.51..
        want = sorted((r["src"], r["dqpn"]) for r in t if r["side"] == "data" and r["src"].startswith("10.77.0.5"))
        got = sorted((subj(r["subject"])["src"], subj(r["subject"])["dqpn"]) for r in opened if r["rule"] == "victim")
        if not want or want != got:
            errs.append("victims %s, expected %s" % (got, want))
        extra = rules - {"pfc-storm", "pause-without-ecn", "victim"}
        if extra:
            errs.append("unexpected %s" % sorted(extra))
    elif sc == "incast":
        inc = [subj(r["subject"]) for r in opened if r["rule"] == "incast"]
        if not inc or any(s != {"dst": RCV} for s in inc):
            errs.append("incast: %s" % inc)
        want = sorted(r["src"] for r in t if r["side"] == "data" and int(r["ce"]) > 0)
        got = sorted({subj(r["subject"])["src"] for r in opened if r["rule"] == "congestion"})
        if len(want) != 4 or got != want:
            errs.append("congested sources %s, expected %s" % (got, want))
        extra = rules - {"incast", "congestion", "loss", "receiver-not-ready"}
        if extra:
            errs.append("unexpected %s" % sorted(extra))
    return errors(errs)


def check_merge(path, tdir):
    r = json.load(open(path))
    t = tally(tdir)
    errs = []
    hosts = [h["host"] for h in r["hosts"]]
    if hosts != ["sender", "receiver"]:
        errs.append("hosts %s" % hosts)
    fh = {f.get("host") for f in r["findings"]}
    if "receiver" not in fh:
        errs.append("no finding names the receiver: %s" % sorted(fh))
    times = [f["start"] for f in r["findings"]]
    if times != sorted(times):
        errs.append("the timeline is not in time order")
    data_qp = {x["src"]: int(x["dqpn"]) for x in t if x["side"] == "data"}
    want = sorted((x["dst"], int(x["dqpn"]), data_qp[x["dst"]]) for x in t
                  if x["side"] == "rcv" and int(x["cnp"]) > 0)
    got = sorted((m["cnp_flow"]["dst"], m["cnp_flow"]["dqpn"], m["data_flow"]["dqpn"]) for m in r["cnp_matches"]
                 if m["cnp_host"] == "receiver" and m["data_host"] == "sender"
                 and m["data_flow"]["src"] == m["cnp_flow"]["dst"] and m["data_flow"]["dst"] == RCV)
    if not want or got != want:
        errs.append("CNP matches %s, expected from the tally %s" % (got, want))
    return errors(errs)


if __name__ == "__main__":
    if sys.argv[1] == "csv":
        sys.exit(check_csv(sys.argv[2], sys.argv[3], sys.argv[4]))
    sys.exit(check_merge(sys.argv[2], sys.argv[3]))
