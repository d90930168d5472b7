#!/usr/bin/python3
"""Compare rocetop's CSV files on a mirror port with the sender's tally, and
tshark's dissection of a capture of the same traffic with both.

usage: compare_mirror.py CSVDIR IFNAME SENT_PCAP TALLY_PREFIX SEEN_PCAP COLLECTOR
SENT_PCAP: captured at the sending end (every frame); SEEN_PCAP: captured on
IFNAME behind rocetop's XDP program (what the host's stack got). COLLECTOR 1:
rocetop ran with --collector, so exactly the mirror copies must be missing
there; 0: nothing may be missing. SEEN_PCAP "-": rocetop read SENT_PCAP (-r),
only its CSV files are checked; IFNAME "*": any interface name.
Prints PASS/FAIL lines; exits 1 on a failure.
"""
import csv
import subprocess
import sys
from collections import defaultdict

csvdir, ifname, sent_pcap, prefix, seen_pcap, collector = sys.argv[1:7]
COLS = "pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak,nak_seq,nak_other".split(",")
failed = 0


def check(name, got, want):
    global failed
    if got == want:
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}")
        if isinstance(got, dict):
            for k in sorted(set(got) | set(want), key=str):
                if got.get(k) != want.get(k):
                    print(f"  {k}: got {got.get(k)} sent {want.get(k)}")
        else:
            print(f"  got {got}, want {want}")


def tally(kind):
    with open(f"{prefix}.{kind}.csv") as f:
        rows = list(csv.DictReader(f))
    if kind == "flows":
        return {(r["mirror"], r["src"], r["dst"], int(r["dqpn"])): {c: int(r[c]) for c in COLS}
                for r in rows}
    return {r["prio"]: {c: int(r[c]) for c in ("frames", "xon", "quanta")} for r in rows}


def rocetop_csv(kind):
    out = defaultdict(lambda: defaultdict(int))
    with open(f"{csvdir}/{kind}.csv") as f:
        for r in csv.DictReader(f):
            if (ifname != "*" and r["ifname"] != ifname) or r["dir"] != "ingress":
                continue
            if kind == "flows":
                k, cols = (r["mirror"], r["src"], r["dst"], int(r["dqpn"])), COLS
            elif kind == "pfc":
                k, cols = r["prio"], ("frames", "xon", "quanta")
            else:
                k, cols = "all", ("frames", "mirrored")
            for c in cols:
                out[k][c] += int(r[c])
    return {k: dict(v) for k, v in out.items()}


def tshark_flows():
    """Per mirror session and inner flow, from tshark's dissection alone."""
    fields = ["erspan.version", "erspan.spanid", "erspan.direction", "gre.proto", "vxlan.vni",
              "ip.src", "ip.dst", "ip.len", "ip.dsfield.ecn", "vlan.id",
              "infiniband.bth.destqp", "infiniband.bth.opcode", "infiniband.aeth.syndrome"]
    cmd = ["tshark", "-r", sent_pcap, "-d", "udp.port==4791,infiniband", "-Y", "infiniband.bth",
           "-T", "fields", "-E", "separator=,", "-E", "aggregator=;", "-E", "occurrence=a"]
    for f in fields:
        cmd += ["-e", f]
    out = defaultdict(lambda: {c: 0 for c in COLS})
    for line in subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines():
        v = dict(zip(fields, line.split(",")))
        last = {k: x.split(";")[-1] for k, x in v.items()}
        if v["erspan.version"]:
            ver, sid = int(last["erspan.version"], 0), int(last["erspan.spanid"], 0)
            if ver == 1:
                m = f"erspan2:{sid}"
            else:
                egress = last["erspan.direction"] in ("1", "True")
                m = f"erspan3:{sid}:{'egress' if egress else 'ingress'}"
        elif v["vxlan.vni"]:
            m = f"vxlan:{int(last['vxlan.vni'], 0)}"
        elif v["gre.proto"]:
            m = "gre"
        else:
            m = ""
        ntags = len([x for x in v["vlan.id"].split(";") if x])
        f = out[(m, last["ip.src"], last["ip.dst"], int(last["infiniband.bth.destqp"], 0))]
        f["pkts"] += 1
        f["bytes"] += 14 + 4 * ntags + int(last["ip.len"], 0)     # the inner frame
        f[["not_ect", "ect1", "ect0", "ce"][int(last["ip.dsfield.ecn"], 0)]] += 1
        op = int(last["infiniband.bth.opcode"], 0)
        if op == 0x81:
            f["cnp"] += 1
        if op == 0x11 and last["infiniband.aeth.syndrome"]:
            s = int(last["infiniband.aeth.syndrome"], 0)
            t = (s >> 5) & 3
            if t == 0:
                f["ack"] += 1
            elif t == 1:
                f["rnr_nak"] += 1
            elif t == 3:
                f["nak"] += 1
                f["nak_seq" if (s & 0x1f) == 0 else "nak_other"] += 1
    return dict(out)


def frames_in(pcap, flt=None):
    cmd = ["tshark", "-r", pcap, "-T", "fields", "-e", "frame.number"]
    if flt:
        cmd[3:3] = ["-Y", flt]
    return len(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split())


with open(prefix + ".frames") as f:
    sent = {k: int(v) for k, v in (x.split("=") for x in f.read().split())}
want = tally("flows")
check("mirror flows: rocetop flows.csv totals per mirror session equal the sent tally",
      rocetop_csv("flows"), want)
check("mirror PFC: pfc.csv counts the PFC frames inside the mirror copies",
      rocetop_csv("pfc"), tally("pfc"))
check("mirror stats: stats.csv counts every frame and the mirror copies (mirrored)",
      rocetop_csv("stats"), {"all": {"frames": sent["sent"], "mirrored": sent["mirrored"]}})
if seen_pcap == "-":
    sys.exit(1 if failed else 0)
check("mirror tshark: tshark's dissection of the sent frames agrees with the tally",
      tshark_flows(), want)
# tshark's own count of the mirror copies among the sent frames (ERSPAN of an
# unknown version is a mirror copy to tshark but not to rocetop: one frame)
copies = frames_in(sent_pcap, "(erspan && erspan.version <= 2) || vxlan || gre.proto == 0x6558")
check("mirror tshark: the sent frames hold as many mirror copies as the tally says",
      copies, sent["mirrored"])
seen = frames_in(seen_pcap)
if collector == "1":
    check("mirror --collector: the host's stack got exactly the frames that are not mirror copies",
          seen, sent["direct"])
else:
    check("mirror without --collector: the host's stack got every frame", seen, sent["sent"])
sys.exit(1 if failed else 0)
