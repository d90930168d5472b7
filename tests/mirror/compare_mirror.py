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
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import tshark  # noqa: E402
from rtlib.check import Checker  # noqa: E402
from rtlib.outputs import sums  # noqa: E402
from rtlib.roce import FLOW_COLS, PFC_COLS, count_roce, flow_table  # noqa: E402

csvdir, ifname, sent_pcap, prefix, seen_pcap, collector = sys.argv[1:7]
C = Checker(want="sent")


def flow_key(r):
    return (r["mirror"], r["src"], r["dst"], int(r["dqpn"]))


def tally(kind):
    if kind == "flows":
        return sums(f"{prefix}.flows.csv", flow_key, FLOW_COLS)
    return sums(f"{prefix}.pfc.csv", lambda r: r["prio"], PFC_COLS)


def rocetop_csv(kind):
    keyf, cols = {"flows": (flow_key, FLOW_COLS), "pfc": (lambda r: r["prio"], PFC_COLS),
                  "stats": (lambda r: "all", ("frames", "mirrored"))}[kind]
    return sums(f"{csvdir}/{kind}.csv", keyf, cols,
                lambda r: (ifname == "*" or r["ifname"] == ifname) and r["dir"] == "ingress")


def tshark_flows():
    """Per mirror session and inner flow, from tshark's dissection alone."""
    fields = ["erspan.version", "erspan.spanid", "erspan.direction", "gre.proto", "vxlan.vni",
              "ip.src", "ip.dst", "ip.len", "ip.dsfield.ecn", "vlan.id",
              "infiniband.bth.destqp", "infiniband.bth.opcode", "infiniband.aeth.syndrome"]
    out = flow_table()
    for line in tshark.fields(sent_pcap, fields, "infiniband.bth", extra=("-E", "aggregator=;", "-E", "occurrence=a")):
        v = dict(zip(fields, line))
        last = {k: x.split(";")[-1] for k, x in v.items()}
        if v["erspan.version"]:
            ver, sid = int(last["erspan.version"], 0), int(last["erspan.spanid"], 0)
            if ver == 1:
                m = f"erspan2:{sid}"
            else:
                egress = last["erspan.direction"] in ("1", "True")
                m = f"erspan3:{sid}:{'egress' if egress else 'ingress'}"
        elif last["gre.proto"] == "0x88be":
            m = "erspan1"       # type I: no ERSPAN header, so no version
        elif v["vxlan.vni"]:
            m = f"vxlan:{int(last['vxlan.vni'], 0)}"
        elif v["gre.proto"]:
            m = "gre"
        else:
            m = ""
        ntags = len([x for x in v["vlan.id"].split(";") if x])
        f = out[(m, last["ip.src"], last["ip.dst"], int(last["infiniband.bth.destqp"], 0))]
        syn = last["infiniband.aeth.syndrome"]
        count_roce(f, 14 + 4 * ntags + int(last["ip.len"], 0),      # the inner frame
                   int(last["ip.dsfield.ecn"], 0), int(last["infiniband.bth.opcode"], 0),
                   int(syn, 0) if syn else None)
    return dict(out)


with open(prefix + ".frames") as f:
    sent = {k: int(v) for k, v in (x.split("=") for x in f.read().split())}
want = tally("flows")
C.check("mirror flows: rocetop flows.csv totals per mirror session equal the sent tally",
        rocetop_csv("flows"), want)
C.check("mirror PFC: pfc.csv counts the PFC frames inside the mirror copies",
        rocetop_csv("pfc"), tally("pfc"))
C.check("mirror stats: stats.csv counts every frame and the mirror copies (mirrored)",
        rocetop_csv("stats"), {"all": {"frames": sent["sent"], "mirrored": sent["mirrored"]}})
if seen_pcap == "-":
    C.done()
C.check("mirror tshark: tshark's dissection of the sent frames agrees with the tally",
        tshark_flows(), want)
# tshark's own count of the mirror copies among the sent frames (ERSPAN of an
# unknown version is a mirror copy to tshark but not to rocetop: one frame)
copies = tshark.frames(sent_pcap, "(erspan && erspan.version <= 2) || vxlan || gre.proto == 0x6558 || "
                       "(gre.proto == 0x88be && !erspan.version)")
C.check("mirror tshark: the sent frames hold as many mirror copies as the tally says",
        copies, sent["mirrored"])
seen = tshark.frames(seen_pcap)
if collector == "1":
    C.check("mirror --collector: the host's stack got exactly the frames that are not mirror copies",
            seen, sent["direct"])
else:
    C.check("mirror without --collector: the host's stack got every frame", seen, sent["sent"])
C.done()
