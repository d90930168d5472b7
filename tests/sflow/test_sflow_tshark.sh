#!/usr/bin/env bash
# The sFlow decoder against tshark's sFlow dissector: tests/unit/test_sflow.c
# builds datagrams byte by byte (a compact and an expanded flow sample with a
# RoCEv2 header and the extended switch record, compact and expanded counter
# samples with generic and Ethernet counters, IPv4 and IPv6 agents), writes
# them to a pcap as UDP to port 6343 and dumps what rocetop's decoder (and the
# one parser, for the sampled header) read of them. tshark dissects the same
# pcap; every field must agree. (1036/1039/1040 and drop notifications, which
# tshark 4.0 does not know, are checked against the spec's layouts in the
# unit test.)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d /tmp/rt-sflow-tshark.XXXXXX)
trap 'rm -rf "$T"' EXIT

command -v tshark >/dev/null || { echo "SKIP sflow_tshark: no tshark"; exit 0; }
if ! "$BUILD/tests/test_sflow" --pcap "$T/sf.pcap" --dump "$T/dump.txt"; then
	echo "FAIL sflow_tshark: test_sflow could not write the datagrams"
	exit 1
fi
F="sflow_245.agent sflow_245.agent.v6 sflow_245.sequence_number sflow_245.numsamples
sflow.flow_sample.sequence_number sflow.flow_sample.sampling_rate sflow.flow_sample.sample_pool
sflow.flow_sample.input_interface sflow.flow_sample.input_interface_value
sflow.flow_sample.output_interface_value sflow_245.header.frame_length
sflow_245.header.sampled_header_length sflow_245.vlan.in sflow_245.pri.in sflow_245.vlan.out
sflow_245.pri.out infiniband.bth.destqp ip.dsfield.ecn ip.dsfield.dscp
sflow.counters_sample.sequence_number sflow_245.ifspeed sflow_245.ifinoct sflow_245.ifoutoct
sflow_245.ifindisc sflow_245.ifoutdisc sflow_245.dot3StatsAlignmentErrors sflow_245.dot3StatsSymbolErrors"
args=()
for f in $F; do args+=(-e "$f"); done
tshark -r "$T/sf.pcap" -T fields -E occurrence=a -E aggregator=, -E separator=/t "${args[@]}" \
	>"$T/tshark.txt" 2>/dev/null
$PY - "$T/dump.txt" "$T/tshark.txt" $F <<'PY'
import sys
dump, tsh, names = sys.argv[1], sys.argv[2], sys.argv[3:]

# rocetop's decoding, grouped per datagram (the samples come before their datagram line)
groups, cur = [], []
for line in open(dump):
    kind, *kv = line.split()
    d = dict(x.split("=", 1) for x in kv)
    if kind == "datagram":
        groups.append((d, cur))
        cur = []
    else:
        cur.append((kind, d))

def ints(s):
    return [int(x, 0) for x in s.split(",")] if s else []

rows = [dict(zip(names, l.rstrip("\n").split("\t"))) for l in open(tsh)]
bad = 0
if len(rows) != len(groups):
    print(f"FAIL sflow_tshark: tshark sees {len(rows)} datagrams, the decoder {len(groups)}")
    sys.exit(1)
for n, ((d, samples), t) in enumerate(zip(groups, rows)):
    flows = [s for k, s in samples if k == "flow"]
    ctrs = [s for k, s in samples if k == "ctr"]
    compact = [f for f in flows if f["format"] == "1"]
    expanded = [f for f in flows if f["format"] == "3"]
    want = {
        "agent": d["agent"],
        "seq": int(d["seq"]), "samples": int(d["samples"]),
        "flow seq": [int(f["seq"]) for f in flows],
        "rate": [int(f["rate"]) for f in flows],
        "pool": [int(f["pool"]) for f in flows],
        "input (compact)": [int(f["input"]) for f in compact],
        "input (expanded)": [int(f["input"]) for f in expanded],
        "output": [int(f["output"]) for f in flows],
        "frame length": [int(f["frame_len"]) for f in flows],
        "header length": [int(f["hdr_len"]) for f in flows],
        "vlan in": [int(f["in_vlan"]) for f in flows], "prio in": [int(f["in_prio"]) for f in flows],
        "vlan out": [int(f["out_vlan"]) for f in flows], "prio out": [int(f["out_prio"]) for f in flows],
        "dest QP of the sampled header": [int(f["dqpn"]) for f in flows],
        "ECN of the sampled header": [int(f["ecn"]) for f in flows],
        "DSCP of the sampled header": [int(f["dscp"]) for f in flows],
        "counter seq": [int(c["seq"]) for c in ctrs],
        "ifSpeed": [int(c["speed"]) for c in ctrs],
        "ifInOctets": [int(c["in_octets"]) for c in ctrs],
        "ifOutOctets": [int(c["out_octets"]) for c in ctrs],
        "ifInDiscards": [int(c["in_discards"]) for c in ctrs],
        "ifOutDiscards": [int(c["out_discards"]) for c in ctrs],
        "dot3StatsAlignmentErrors": [int(c["eth0"]) for c in ctrs if c["eth"] == "1"],
        "dot3StatsSymbolErrors": [int(c["eth12"]) for c in ctrs if c["eth"] == "1"],
    }
    g = lambda k: t.get(k, "")
    # The outer IPv4 header of the UDP datagram is the first ip.dsfield.
    got = {
        "agent": g("sflow_245.agent") or g("sflow_245.agent.v6"),
        "seq": int(g("sflow_245.sequence_number")), "samples": int(g("sflow_245.numsamples")),
        "flow seq": ints(g("sflow.flow_sample.sequence_number")),
        "rate": ints(g("sflow.flow_sample.sampling_rate")),
        "pool": ints(g("sflow.flow_sample.sample_pool")),
        "input (compact)": ints(g("sflow.flow_sample.input_interface")),
        "input (expanded)": ints(g("sflow.flow_sample.input_interface_value")),
        "output": ints(g("sflow.flow_sample.output_interface_value")),
        "frame length": ints(g("sflow_245.header.frame_length")),
        "header length": ints(g("sflow_245.header.sampled_header_length")),
        "vlan in": ints(g("sflow_245.vlan.in")), "prio in": ints(g("sflow_245.pri.in")),
        "vlan out": ints(g("sflow_245.vlan.out")), "prio out": ints(g("sflow_245.pri.out")),
        "dest QP of the sampled header": ints(g("infiniband.bth.destqp")),
        "ECN of the sampled header": ints(g("ip.dsfield.ecn"))[1:],
        "DSCP of the sampled header": ints(g("ip.dsfield.dscp"))[1:],
        # the field table: one tshark field per counter compared, alike in shape only
        "counter seq": ints(g("sflow.counters_sample.sequence_number")),
        "ifSpeed": ints(g("sflow_245.ifspeed")),
        "ifInOctets": ints(g("sflow_245.ifinoct")),
        "ifOutOctets": ints(g("sflow_245.ifoutoct")),
        "ifInDiscards": ints(g("sflow_245.ifindisc")),
        "ifOutDiscards": ints(g("sflow_245.ifoutdisc")),
        "dot3StatsAlignmentErrors": ints(g("sflow_245.dot3StatsAlignmentErrors")),
        "dot3StatsSymbolErrors": ints(g("sflow_245.dot3StatsSymbolErrors")),
    }
    for k in want:
        if want[k] != got[k]:
            print(f"  datagram {n + 1}: {k}: decoder {want[k]}, tshark {got[k]}")
            bad += 1
    if not flows and not ctrs:
        print(f"  datagram {n + 1}: no samples decoded")
        bad += 1
print(f"FAIL sflow_tshark: {bad} fields differ" if bad else
      f"PASS sflow_tshark: {len(groups)} datagrams, every field as tshark dissects it")
sys.exit(1 if bad else 0)
PY
