#!/usr/bin/python3
"""rocetop's sFlow agents and estimated flows for the capture of
sflow_trailing.py (its --batch --json, one interval) against tshark's
dissection of the capture:

- a datagram tshark finds malformed is refused: counted in "(rejected)";
- any other gets its agent a row: its datagrams, its flow and counter samples
  (tshark's count of them), and its datagrams with errors: those whose UDP
  payload is longer than the header (28 bytes, IPv4 agents) and the samples
  tshark read (8 bytes each and their announced length);
- each accepted flow's estimated packets are the sum of its samples' sampling
  rates, per agent and destination QP.

usage: compare_trailing.py PCAP JSON
"""
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import tshark  # noqa: E402
from rtlib.check import Checker  # noqa: E402

pcap, out = sys.argv[1:3]
C = Checker("sflow_trailing: ", "rocetop", "tshark", need_want=True)


def ints(s):
    return [int(x, 0) for x in s.split(",") if x]


F = ["udp.length", "sflow_245.agent", "sflow_5.sample_length", "sflow.flow_sample.sampling_rate",
     "sflow.counters_sample.sequence_number", "infiniband.bth.destqp", "_ws.malformed"]
agents = defaultdict(lambda: {"datagrams": 0, "errors": 0, "flow_samples": 0, "counter_samples": 0})
flows = defaultdict(int)
rejected = trailing = 0
for udp_len, agent, slen, rates, ctrs, qps, bad in tshark.fields(pcap, F, "sflow", extra=("-E", "occurrence=a")):
    if bad:
        rejected += 1
        continue
    a = agents[agent]
    a["datagrams"] += 1
    tail = ints(udp_len)[0] - 8 - 28 - sum(8 + n for n in ints(slen))
    a["errors"] += tail > 0
    trailing += tail > 0
    a["flow_samples"] += len(ints(rates))
    a["counter_samples"] += len(ints(ctrs))
    for rate, qp in zip(ints(rates), ints(qps)):
        flows[(agent + ":7", qp)] += rate
want_agents = dict(agents)
if rejected:
    want_agents["(rejected)"] = "rejected %d" % rejected

with open(out) as f:
    first = json.loads(f.readline())
got_agents, got_flows = {}, {}
for a in first.get("sflow", {}).get("agents", []):
    if a["agent"] == "(rejected)":
        got_agents[a["agent"]] = "rejected %d" % a["rejected"]
    else:
        got_agents[a["agent"]] = {k: a[k] for k in ("datagrams", "errors", "flow_samples", "counter_samples")}
for fl in first.get("flows", []):
    if fl.get("estimate"):
        got_flows[(fl["ifname"], fl["dqpn"])] = fl["pkts"]
C.ok("sflow_trailing", trailing >= 2 and rejected >= 2,
     f"the capture holds {trailing} datagrams with bytes after their samples and {rejected} that do not fit")
C.check("agents: datagrams, with errors, flow and counter samples; datagrams refused", got_agents, want_agents)
C.check("estimated packets per agent and QP (the sum of the sampling rates)", got_flows, dict(flows))
C.done()
