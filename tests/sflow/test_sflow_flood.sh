#!/usr/bin/env bash
# A flood on the sFlow port (valid datagrams over IPv4 and IPv6 on a bare
# port, junk of another version, another protocol and cut short, as fast as
# one sender can) does not cost the interval its cadence: 8 intervals of
# 0.25 s end in about 2 s. Every kind is counted, never more than was sent:
# the valid ones per agent, over both address families, decoded; the junk
# (no agent to tell, or a cut-short datagram of an agent never seen whole) in
# the one "(rejected)" row, never given an agent row of its own
# (junk must not crowd real agents out of the table).
# In a namespace of its own, over its loopback.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_need_root sflow_flood "needs root for a namespace"
ns=rtsff$RT_ID
rt_tmpdir tmp
rt_netns "$ns" || { echo "FAIL sflow_flood: cannot create a namespace"; exit 1; }
fails=0
ip netns exec "$ns" "$PY" tests/sflow/flood.py 6343 4 >"$tmp/sent" &
sender=$!
sleep 0.3
t0=$(date +%s.%N)
ip netns exec "$ns" "$ROCETOP" --sflow 6343 -b -d 0.25 -n 8 --top 0 >"$tmp/out" 2>"$tmp/err"
rc=$?
t1=$(date +%s.%N)
wait "$sender"
el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
# (the intervals' headers: a last "end of run" block closes the episodes still open)
n=$(grep '^rocetop ' "$tmp/out" | grep -vc '  end of run$')
if [ $rc = 0 ] && [ "$n" = 8 ] && awk -v e="$el" 'BEGIN { exit !(e < 3.5) }'; then
	echo "PASS sflow_flood: 8 intervals of 0.25 s in ${el}s under the flood"
else
	echo "FAIL sflow_flood: rc=$rc, $n intervals in ${el}s: $(tail -2 "$tmp/err")"; fails=1
fi
"$PY" - "$tmp/out" "$tmp/sent" <<'PY' || fails=1
import re, sys
out, sent = open(sys.argv[1]).read(), dict(l.split() for l in open(sys.argv[2]))
sent = {k: int(v) for k, v in sent.items()}
tot = {}
for m in re.finditer(r"^sFlow agent (\S+): (\d+) datagrams, (\d+) lost, (\d+) with errors, (\d+) rejected, (\d+) flow samples", out, re.M):
    a = tot.setdefault(m[1], [0] * 5)
    for i in range(5):
        a[i] += int(m[i + 2])
bad = []
v4, v6, lo = tot.get("192.0.2.1"), tot.get("192.0.2.6"), tot.get("127.0.0.1")
if not v4 or not (0 < v4[0] <= sent["valid4"]) or v4[4] != v4[0] or v4[3]:
    bad.append(f"IPv4 agent {v4} of {sent['valid4']} sent")
if not v6 or not (0 < v6[0] <= sent["valid6"]) or v6[4] != v6[0] or v6[3]:
    bad.append(f"IPv6 agent {v6} of {sent['valid6']} sent")
# junk: another version, not sFlow, and cut-short datagrams of agent 192.0.2.9,
# which never sent a whole one: all rejected, in one row, none stored
rej = tot.get("(rejected)")
if not rej or not (0 < rej[3] <= sent["junk"]) or rej[0] or lo or "192.0.2.9" in tot:
    bad.append(f"junk counted {rej}, rows {sorted(tot)}, of {sent['junk']} sent")
print("FAIL sflow_flood: " + "; ".join(bad) if bad else
      f"PASS sflow_flood: counted per agent: IPv4 {v4[0]}, IPv6 {v6[0]} decoded, {rej[3]} junk rejected "
      f"in one row (sent {sent['valid4']}, {sent['valid6']}, {sent['junk']})")
sys.exit(1 if bad else 0)
PY
exit $fails
