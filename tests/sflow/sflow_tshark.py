#!/usr/bin/python3
"""The sFlow decoder's reading of a pcap (tests/unit/test_sflow.c --dump)
against tshark's sFlow dissector on the same pcap: every field of every
datagram must agree. Prints PASS or FAIL sflow_tshark and the fields that
differ; exits 1 on a difference.

usage: sflow_tshark.py DUMP PCAP
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import tshark  # noqa: E402

# What is compared in each sample: its name here, tshark's field, the
# decoder's samples (flow or ctr) and key, which of them (key, value; None:
# all) and how many of tshark's values come first from elsewhere (the UDP
# datagram's own IPv4 header is the first ip.dsfield).
SAMPLE_FIELDS = [
    ("flow seq", "sflow.flow_sample.sequence_number", "flow", "seq", None, 0),
    ("rate", "sflow.flow_sample.sampling_rate", "flow", "rate", None, 0),
    ("pool", "sflow.flow_sample.sample_pool", "flow", "pool", None, 0),
    ("input (compact)", "sflow.flow_sample.input_interface", "flow", "input", ("format", "1"), 0),
    ("input (expanded)", "sflow.flow_sample.input_interface_value", "flow", "input", ("format", "3"), 0),
    ("output", "sflow.flow_sample.output_interface_value", "flow", "output", None, 0),
    ("frame length", "sflow_245.header.frame_length", "flow", "frame_len", None, 0),
    ("header length", "sflow_245.header.sampled_header_length", "flow", "hdr_len", None, 0),
    ("vlan in", "sflow_245.vlan.in", "flow", "in_vlan", None, 0),
    ("prio in", "sflow_245.pri.in", "flow", "in_prio", None, 0),
    ("vlan out", "sflow_245.vlan.out", "flow", "out_vlan", None, 0),
    ("prio out", "sflow_245.pri.out", "flow", "out_prio", None, 0),
    ("dest QP of the sampled header", "infiniband.bth.destqp", "flow", "dqpn", None, 0),
    ("ECN of the sampled header", "ip.dsfield.ecn", "flow", "ecn", None, 1),
    ("DSCP of the sampled header", "ip.dsfield.dscp", "flow", "dscp", None, 1),
    ("counter seq", "sflow.counters_sample.sequence_number", "ctr", "seq", None, 0),
    ("ifSpeed", "sflow_245.ifspeed", "ctr", "speed", None, 0),
    ("ifInOctets", "sflow_245.ifinoct", "ctr", "in_octets", None, 0),
    ("ifOutOctets", "sflow_245.ifoutoct", "ctr", "out_octets", None, 0),
    ("ifInDiscards", "sflow_245.ifindisc", "ctr", "in_discards", None, 0),
    ("ifOutDiscards", "sflow_245.ifoutdisc", "ctr", "out_discards", None, 0),
    ("dot3StatsAlignmentErrors", "sflow_245.dot3StatsAlignmentErrors", "ctr", "eth0", ("eth", "1"), 0),
    ("dot3StatsSymbolErrors", "sflow_245.dot3StatsSymbolErrors", "ctr", "eth12", ("eth", "1"), 0),
]
DGRAM_FIELDS = ["sflow_245.agent", "sflow_245.agent.v6", "sflow_245.sequence_number", "sflow_245.numsamples"]


def decoded(path):
    """The decoder's dump, per datagram: its fields, and its samples as
    (kind, fields) (the samples come before their datagram's line)."""
    groups, cur = [], []
    with open(path) as f:
        for line in f:
            kind, *kv = line.split()
            d = dict(x.split("=", 1) for x in kv)
            if kind == "datagram":
                groups.append((d, cur))
                cur = []
            else:
                cur.append((kind, d))
    return groups


def ints(s):
    return [int(x, 0) for x in s.split(",")] if s else []


def differences(n, d, samples, t):
    """Datagram n's fields that the decoder (d, samples) and tshark (t) read differently."""
    g = lambda k: t.get(k, "")  # noqa: E731
    want = {"agent": d["agent"], "seq": int(d["seq"]), "samples": int(d["samples"])}
    got = {"agent": g("sflow_245.agent") or g("sflow_245.agent.v6"),
           "seq": int(g("sflow_245.sequence_number")), "samples": int(g("sflow_245.numsamples"))}
    for name, field, kind, key, only, skip in SAMPLE_FIELDS:
        want[name] = [int(s[key]) for k, s in samples if k == kind and (not only or s[only[0]] == only[1])]
        got[name] = ints(g(field))[skip:]
    out = [f"  datagram {n + 1}: {k}: decoder {want[k]}, tshark {got[k]}" for k in want if want[k] != got[k]]
    if not any(k in ("flow", "ctr") for k, _ in samples):
        out.append(f"  datagram {n + 1}: no samples decoded")
    return out


def main():
    dump, pcap = sys.argv[1:3]
    names = DGRAM_FIELDS + [f[1] for f in SAMPLE_FIELDS]
    groups = decoded(dump)
    rows = [dict(zip(names, v)) for v in tshark.fields(pcap, names, roce_port=False)]
    if len(rows) != len(groups):
        print(f"FAIL sflow_tshark: tshark sees {len(rows)} datagrams, the decoder {len(groups)}")
        sys.exit(1)
    bad = 0
    for n, ((d, samples), t) in enumerate(zip(groups, rows)):
        for line in differences(n, d, samples, t):
            print(line)
            bad += 1
    print(f"FAIL sflow_tshark: {bad} fields differ" if bad else
          f"PASS sflow_tshark: {len(groups)} datagrams, every field as tshark dissects it")
    sys.exit(1 if bad else 0)


main()
