"""The filter language on outputs, against scapy's tally. gen PCAP TALLY
writes a capture of three flows and the tally of each (computed from the
frames, never by rocetop): A 10.9.0.1 -> 10.9.0.2 QP 257, every third packet
CE-marked; B 10.9.0.3 -> 10.9.0.4 QP 514, ECT(0); C 10.9.0.4 -> 10.9.0.3 QP
515, NAKs (PSN sequence errors) answering B. check KIND OUT TALLY KEYS...
compares an output with the tally of the flows KEYS (A, B, C) exactly."""
import json
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import check, outputs, roce  # noqa: E402

KEYS = {"A": ("10.9.0.1", "10.9.0.2", 257), "B": ("10.9.0.3", "10.9.0.4", 514),
        "C": ("10.9.0.4", "10.9.0.3", 515)}
COLS = ("pkts", "bytes", "ce", "ect0", "not_ect", "nak", "nak_seq")


def gen(pcap, tally):
    from scapy.all import wrpcap
    from scapy.contrib.roce import BTH, AETH
    t0, pkts, flows = 1700000000.0, [], roce.flow_table()

    def add(key, p, t, ecn, op, syn=None):
        p.time = t
        pkts.append(p)
        roce.count_roce(flows[key], len(bytes(p)), ecn, op, syn)
    for i in range(37):
        ecn = 3 if i % 3 == 0 else 2
        add("A", roce.roce("10.9.0.1", "10.9.0.2", roce.write_only(257, i), tos=(26 << 2) | ecn),
            t0 + i * 0.08, ecn, 0x0a)
    for i in range(23):
        add("B", roce.roce("10.9.0.3", "10.9.0.4", roce.write_only(514, i), tos=(26 << 2) | 2),
            t0 + i * 0.1 + 0.01, 2, 0x0a)
        if i % 4 == 1:
            add("C", roce.roce("10.9.0.4", "10.9.0.3", BTH(opcode=0x11, dqpn=515, psn=i) / AETH(syndrome=0x60, msn=i),
                               tos=26 << 2), t0 + i * 0.1 + 0.02, 0, 0x11, 0x60)
    pkts.sort(key=lambda p: p.time)
    wrpcap(pcap, pkts)
    with open(tally, "w") as o:
        json.dump({k: dict(v) for k, v in flows.items()}, o)


def want(tally, keys):
    t = json.load(open(tally))
    return {KEYS[k]: {c: t[k][c] for c in COLS} for k in keys}


def key(r):
    return (r["src"], r["dst"], int(r["dqpn"]))


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3])
        return
    kind, out, tally, keys = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    ck = check.Checker(prefix="filter_%s " % kind, got="rocetop", want="scapy", need_want=True)
    w = want(tally, keys)
    if kind.startswith("csv"):
        got = outputs.sums(out + "/flows.csv", key, COLS)
    elif kind.startswith("json"):
        got = {}
        for line in outputs.json_lines(out):
            for f in line["flows"]:
                g = got.setdefault(key(f), {c: 0 for c in COLS})
                for c in COLS:
                    g[c] += f[c]
        tot = {c: sum(line["totals"][c] for line in outputs.json_lines(out)) for c in ("pkts", "bytes", "ce", "nak")}
        ck.check(kind + " totals", tot, {c: sum(v[c] for v in w.values()) for c in ("pkts", "bytes", "ce", "nak")})
    else:   # report --json: its totals and host pairs
        r = json.load(open(out))
        got = {c: r["totals"][c] for c in COLS}
        w = {c: sum(v[c] for v in w.values()) for c in COLS}
        pairs = sorted(tuple(sorted((p["a"], p["b"]))) + (p["pkts"],) for p in r["host_pairs"])
        t = json.load(open(tally))
        wp = {}
        for k in keys:
            pk = tuple(sorted(KEYS[k][:2]))
            wp[pk] = wp.get(pk, 0) + t[k]["pkts"]
        ck.check(kind + " host pairs", pairs, sorted(k + (v,) for k, v in wp.items()))
    ck.check(kind + " " + " ".join(keys), got, w)
    ck.done()


main()
