#!/usr/bin/env bash
# A flow's priorities are those of all its packets (issue: a reverse flow of
# ACKs on DSCP 26 and CNPs on DSCP 48 showed "6 48" one interval and "3 26" the
# next, and --filter 'prio 3' kept and dropped it in turn). prio_set.py's scapy
# capture read with -r: --batch --json's sets per interval, --filter 'prio 3'
# and 'prio 6' in every interval, flows.csv's prios and dscps columns, and the
# same from a recording of it, all against tshark (prio_set.py). Live: the
# capture sent at its pace over a veth to rocetop -i (XDP) with --filter
# 'prio 3', whose flows.csv must hold every packet of the three flows that
# carry priority 3 from their first packet on (the ACK/CNP flows, untagged and
# tagged, and the data flow), with their sets, by tshark's count.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_scapy_start prio_set scapy.contrib.roce
rt_need_cmd prio_set tshark
here=tests/offline
fails=0
"$PY" $here/prio_set.py gen "$T/p.pcap" || { echo "FAIL prio_set: scapy could not write the capture"; exit 1; }
step() {	# NAME CMD...: a rocetop run that must succeed
	local name=$1
	shift
	"$@" 2>"$T/err" || { echo "FAIL prio_set_$name: exit $?: $(cat "$T/err")"; fails=$((fails + 1)); return 1; }
}
step json "$ROCETOP" -r "$T/p.pcap" -d 1 --batch --json -w "$T/p.rtr" >"$T/b.json" &&
	{ "$PY" $here/prio_set.py json "$T/b.json" "$T/p.pcap" || fails=$((fails + 1)); }
for p in 3 6; do
	step filter "$ROCETOP" -r "$T/p.pcap" -d 1 --batch --json --filter "prio $p" >"$T/f$p.json" &&
		{ "$PY" $here/prio_set.py filter "$T/f$p.json" "$T/p.pcap" $p || fails=$((fails + 1)); }
done
step csv "$ROCETOP" -r "$T/p.pcap" -d 1 -q --csv "$T/csv" >/dev/null &&
	{ "$PY" $here/prio_set.py csv "$T/csv" "$T/p.pcap" || fails=$((fails + 1)); }
step rec "$ROCETOP" -r "$T/p.rtr" -q --csv "$T/rcsv" >/dev/null &&
	{ "$PY" $here/prio_set.py csv "$T/rcsv" "$T/p.pcap" || fails=$((fails + 1)); }

if [ "$(id -u)" != 0 ]; then
	echo "SKIP prio_set_live: needs root for namespaces and BPF"
	exit $((fails > 0))
fi
rt_two_hosts prio_set_live rtps
ip netns exec "$B" "$ROCETOP" -i "$IFB" --no-egress --csv "$tmp/csv" -D -d 0.3 --flow-timeout 0 \
	--filter 'prio 3' 2>"$tmp/err" &
rt=$!; pids+=("$rt")
rt_wait_file "$tmp/csv/flows.csv" "$rt" || { echo "FAIL prio_set_live: rocetop did not start: $(cat "$tmp/err")"; exit 1; }
ip netns exec "$A" "$PY" - "$T/p.pcap" "$IFA" <<'PYEOF' || { echo "FAIL prio_set_live: scapy could not send"; exit 1; }
import sys, time
from scapy.all import rdpcap, sendp
pkts = rdpcap(sys.argv[1])
t0, start = float(pkts[0].time), time.monotonic()
for p in pkts:
    wait = start + float(p.time) - t0 - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    sendp(p, iface=sys.argv[2], verbose=False)
PYEOF
sleep 0.8
kill -INT "$rt"; wait "$rt"; rc=$?
[ "$rc" = 0 ] || { echo "FAIL prio_set_live: rocetop exited $rc: $(cat "$tmp/err")"; exit 1; }
"$PY" - "$tmp/csv/flows.csv" "$T/p.pcap" <<'PYEOF' || fails=$((fails + 1))
import csv, os, sys
from collections import Counter
sys.path.insert(0, os.path.join("tests", "lib"))
from rtlib import check, tshark
rows = list(csv.DictReader(open(sys.argv[1])))
got, got_sets = Counter(), {}
for r in rows:	# the rows of a flow come in time order: its last has its sets
    got[(r["src"], r["dst"], int(r["dqpn"]))] += int(r["pkts"])
    got_sets[(r["src"], r["dst"], int(r["dqpn"]))] = (r["prios"], r["dscps"])
sets = {}
for src, dst, qp, dscp, pcp in tshark.fields(sys.argv[2], ["ip.src", "ip.dst", "infiniband.bth.destqp",
                                                           "ip.dsfield.dscp", "vlan.priority"], "infiniband.bth"):
    p, d, n = sets.setdefault((src, dst, int(qp, 0)), (set(), set(), [0]))
    d.add(int(dscp, 0))
    p.add(int(pcp, 0) if pcp else int(dscp, 0) >> 3)
    n[0] += 1
text = lambda s: ",".join(map(str, sorted(s)))
want = {k: n[0] for k, (p, d, n) in sets.items() if 3 in p}
ck = check.Checker(prefix="prio_set_live ", got="rocetop", want="tshark", need_want=True)
ck.check(f"--filter 'prio 3' keeps every packet of the {len(want)} flows carrying it, in {len(rows)} rows",
         dict(got), want)
ck.check("each flow's priorities and DSCPs at the end", got_sets,
         {k: (text(p), text(d)) for k, (p, d, n) in sets.items() if 3 in p})
ck.done()
PYEOF
exit $((fails > 0))
