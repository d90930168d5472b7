"""tshark's own dissection of a capture: fields per frame, and the per-flow
RoCEv2 and PFC counts worked out from them (an oracle independent of
rocetop's parser)."""
import subprocess
from collections import defaultdict

from .roce import count_pause, count_roce, flow_table, pfc_table

ROCE_PORT = ["-d", "udp.port==4791,infiniband"]


def fields(capture, names, display_filter=None, roce_port=True, extra=()):
    """One list of the named fields' values per frame that passes the filter
    (several occurrences of a field joined by tshark's aggregator, ',' unless
    extra sets another)."""
    cmd = ["tshark", "-r", capture] + (ROCE_PORT if roce_port else [])
    if display_filter:
        cmd += ["-Y", display_filter]
    cmd += ["-T", "fields", "-E", "separator=|", *extra]
    for n in names:
        cmd += ["-e", n]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [line.split("|") for line in out.splitlines()]


def frames(capture, display_filter=None):
    """How many frames of the capture pass the filter."""
    return len(fields(capture, ["frame.number"], display_filter, roce_port=False))


def roce_flows(capture):
    """Per (src, dst, destination QP): rocetop's flow counters, from tshark."""
    out = flow_table()
    for src, dst, qp, op, ecn, flen, syn in fields(
            capture, ["ip.src", "ip.dst", "infiniband.bth.destqp", "infiniband.bth.opcode",
                      "ip.dsfield.ecn", "frame.len", "infiniband.aeth.syndrome"],
            "udp.dstport==4791 && !icmp && infiniband.bth"):
        count_roce(out[(src, dst, int(qp, 0))], int(flen), int(ecn, 0), int(op, 0),
                   int(syn, 0) if syn else None)
    return dict(out)


def pfc(capture):
    """Per priority ("0".."7", "all" for 802.3x): frames, XON frames, quanta."""
    out = pfc_table()
    for v in fields(capture, ["macc.opcode", "macc.pause_time", "macc.cbfc.enbv"] +
                    [f"macc.cbfc.pause_time.c{c}" for c in range(8)], "macc", roce_port=False):
        op = int(v[0], 0)
        if op == 1:
            count_pause(out, "all", int(v[1], 0))
        elif op == 0x101:
            enbv = int(v[2], 0)
            for c in range(8):
                if enbv & (1 << c):
                    count_pause(out, str(c), int(v[3 + c], 0))
    return dict(out)
