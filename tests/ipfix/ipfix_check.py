#!/usr/bin/env python3
"""Helpers of tests/ipfix/test_ipfix.sh: per-flow sums of flows.csv, of
nfacctd's JSON and of tshark's dissection of the IPFIX export, compared.

  csv DIR                     flows.csv of DIR -> JSON {records, flows}
  nfacctd FILE                nfacctd's print plugin output (JSON lines)
  tshark PCAP PROTO PORT      tshark -V with PROTO.port==PORT decoded as cflow;
                              also counts the template sets and malformed frames
  cmp A B [NAME]              the two sums equal, else a line saying how
  pfc DIR NFFILE              each record's PFC elements equal pfc.csv's frames
                              and quanta of the flow's priority on its interface
  streams FILE...             each TCP stream (one file a connection) starts
                              with a message of templates 256 and 257, sequence 0
  collect PORT OUT N          a TCP collector on 127.0.0.1:PORT: takes N
                              connections one after the other, each into OUT.K;
                              all but the last are closed by the collector after
                              its first bytes, then it is down for 1.5 s (a restart)

A flow is (src, dst, dqpn, direction); its counters are the packets, bytes,
ECN, CNP, ACK and NAK counts. The sums are of independent decodings: the
checker never reads rocetop's own IPFIX code.
"""
import json
import os
import re
import struct
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.outputs import json_lines, rows  # noqa: E402

CTRS = ["pkts", "bytes", "not_ect", "ect0", "ect1", "ce", "cnp", "ack", "nak_seq", "nak_other", "rnr_nak"]
# rocetop's enterprise elements (man/rocetop.8, IPFIX EXPORT): number -> counter
PEN = 32473
PEN_CTR = {6: "not_ect", 7: "ect0", 8: "ect1", 9: "ce", 10: "cnp", 11: "ack", 12: "nak_seq",
           13: "nak_other", 14: "rnr_nak"}
# nfacctd primitive names (tests/ipfix/primitives.lst) -> counter
NF_CTR = {"packets": "pkts", "bytes": "bytes", "notect": "not_ect", "ect0": "ect0", "ect1": "ect1",
          "ce": "ce", "cnp": "cnp", "ack": "ack", "nakseq": "nak_seq", "nakother": "nak_other",
          "rnr": "rnr_nak"}


def add(flows, key, vals):
    f = flows.setdefault("|".join(str(k) for k in key), dict.fromkeys(CTRS, 0))
    for c, v in vals.items():
        f[c] += int(v)


def from_csv(d):
    flows, n = {}, 0
    for r in rows(os.path.join(d, "flows.csv")):
        n += 1
        add(flows, (r["src"], r["dst"], r["dqpn"], 1 if r["dir"] == "egress" else 0),
            {c: r[c] for c in CTRS})
    return {"records": n, "flows": flows}


def from_nfacctd(path):
    flows, n = {}, 0
    for r in json_lines(path):
        n += 1
        add(flows, (r["ip_src"], r["ip_dst"], r["dqpn"], r["fdir"]),
            {c: r[k] for k, c in NF_CTR.items()})
    return {"records": n, "flows": flows}


def tshark_text(pcap, proto, port):
    return subprocess.run(["tshark", "-r", pcap, "-d", "%s.port==%s,cflow" % (proto, port), "-V"],
                          check=True, capture_output=True, text=True).stdout


def from_tshark(pcap, proto, port):
    """Records of the -V text: 'Flow N' starts one, its fields follow."""
    flows, n, tmpl, bad, msgs = {}, 0, 0, 0, 0
    rec = None

    def done():
        if rec is not None:
            add(flows, (rec["src"], rec["dst"], rec["dqpn"], rec["dir"]),
                {c: rec.get(c, 0) for c in CTRS})

    for line in tshark_text(pcap, proto, port).splitlines():
        s = line.strip()
        if s.startswith("Cisco NetFlow/IPFIX"):
            msgs += 1
        if "Malformed" in s or "[Expert Info (Error" in s:
            bad += 1
        if re.match(r"Template \(Id = 25[67],", s):
            tmpl += 1
        if re.match(r"Flow \d+$", s):
            done()
            rec = {"dqpn": 0}
            n += 1
            continue
        if rec is None:
            continue
        m = re.match(r"(Octets|Packets|SrcAddr|DstAddr|Direction): (\S+)(?: \((\d+)\))?", s)
        if m:
            k, v = m.group(1), m.group(2)
            if k == "Octets":
                rec["bytes"] = int(v)
            elif k == "Packets":
                rec["pkts"] = int(v)
            elif k == "SrcAddr":
                rec["src"] = v
            elif k == "DstAddr":
                rec["dst"] = v
            else:
                rec["dir"] = int(m.group(3))
            continue
        m = re.search(r"Type (\d+): Value \(hex bytes\): ([0-9a-f ]+)$", s)
        if m:
            t, v = int(m.group(1)), int(m.group(2).replace(" ", ""), 16)
            if t == 1:
                rec["dqpn"] = v
            elif t in PEN_CTR:
                rec[PEN_CTR[t]] = v
    done()
    return {"records": n, "flows": flows, "templates": tmpl, "malformed": bad, "messages": msgs}


def cmp(a, b, name):
    a, b = json.load(open(a)), json.load(open(b))
    if a["records"] != b["records"]:
        return "%s: %d records, flows.csv %d rows" % (name, b["records"], a["records"])
    if set(a["flows"]) != set(b["flows"]):
        return "%s: flows %s, flows.csv %s" % (name, sorted(set(b["flows"]) ^ set(a["flows"]))[:4], "")
    for k in sorted(a["flows"]):
        if a["flows"][k] != b["flows"][k]:
            return "%s: flow %s has %s, flows.csv %s" % (name, k, b["flows"][k], a["flows"][k])
    if not a["flows"]:
        return "%s: no flow at all" % name
    return ""


def prio_of(r):
    return int(r["pcp"]) if r["pcp"] != "" else int(r["dscp"]) >> 3


def check_pfc(d, nf):
    """Each record's PFC elements against pfc.csv (the interface's frames and
    quanta of the flow's priority in that interval, both directions)."""
    pfc = defaultdict(lambda: [0, 0])
    for r in rows(os.path.join(d, "pfc.csv")):
        p = pfc[(r["time"], r["ifname"], int(r["prio"]))]
        p[0] += int(r["frames"])
        p[1] += int(r["quanta"])
    want = {}
    for r in rows(os.path.join(d, "flows.csv")):
        end_ms = int(float(r["last_seen"]) * 1000 + 1e-6)
        key = (r["src"], r["dst"], int(r["dqpn"]), end_ms)
        want[key] = tuple(pfc[(r["time"], r["ifname"], prio_of(r))])
    got, nonzero = {}, 0
    for r in json_lines(nf):
        end_ms = int(round(float(r["timestamp_end"]) * 1000))
        got[(r["ip_src"], r["ip_dst"], int(r["dqpn"]), end_ms)] = (int(r["pfcpause"]), int(r["pfcquanta"]))
    if set(got) != set(want):
        return "records by flow and end time differ: %s" % sorted(set(got) ^ set(want))[:3]
    for k in want:
        nonzero += want[k][0] > 0
        if got[k] != want[k]:
            return "record %s: PFC frames, quanta %s; pfc.csv %s" % (k, got[k], want[k])
    if not nonzero:
        return "no record saw PFC: the check proves nothing"
    return ""


def check_streams(files):
    """A TCP stream per file: messages back to back, the first one's first
    set a template set (2) holding templates 256 and 257, sequence 0."""
    for f in files:
        b = open(f, "rb").read()
        if len(b) < 20:
            return "%s: %d bytes, no message" % (f, len(b))
        ver, length, _, seq, _ = struct.unpack(">HHIII", b[:16])
        sid = struct.unpack(">H", b[16:18])[0]
        tids = []
        off = 20
        while off + 4 <= 16 + struct.unpack(">H", b[18:20])[0] and sid == 2:
            tid, cnt = struct.unpack(">HH", b[off:off + 4])
            tids.append(tid)
            off += 4
            for _ in range(cnt):
                t, _ = struct.unpack(">HH", b[off:off + 4])
                off += 8 if t & 0x8000 else 4
        if ver != 10 or seq != 0 or sid != 2 or sorted(tids) != [256, 257]:
            return "%s: first message version %d, sequence %d, set %d, templates %s" % (f, ver, seq, sid, tids)
        off, n = 0, 0
        while off < len(b):
            ver, length = struct.unpack(">HH", b[off:off + 4])
            if ver != 10 or length < 16:
                return "%s: message %d at %d is not IPFIX" % (f, n, off)
            off += length
            n += 1
        if off != len(b):
            return "%s: the stream ends inside a message" % f
    return ""


def collect(port, out, n):
    import socket
    import time
    for k in range(n):
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("127.0.0.1", port))
        ls.listen(1)
        ls.settimeout(30)
        if k == 0:
            print("listening", flush=True)
        c, _ = ls.accept()
        c.settimeout(10)
        with open("%s.%d" % (out, k), "wb") as f:
            while True:
                try:
                    b = c.recv(65536)
                except socket.timeout:
                    break
                if not b:
                    break
                f.write(b)
                f.flush()
                if k < n - 1:
                    break  # a restart: gone after the first bytes
        c.close()
        ls.close()
        if k < n - 1:
            time.sleep(1.5)


def main():
    cmd = sys.argv[1]
    if cmd == "csv":
        json.dump(from_csv(sys.argv[2]), sys.stdout)
    elif cmd == "nfacctd":
        json.dump(from_nfacctd(sys.argv[2]), sys.stdout)
    elif cmd == "tshark":
        json.dump(from_tshark(*sys.argv[2:5]), sys.stdout)
    elif cmd == "cmp":
        out = cmp(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "")
        print(out)
        sys.exit(1 if out else 0)
    elif cmd == "pfc":
        out = check_pfc(sys.argv[2], sys.argv[3])
        print(out)
        sys.exit(1 if out else 0)
    elif cmd == "collect":
        collect(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif cmd == "streams":
        out = check_streams(sys.argv[2:])
        print(out)
        sys.exit(1 if out else 0)


if __name__ == "__main__":
    main()
