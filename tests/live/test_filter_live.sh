#!/usr/bin/env bash
# --filter live: rocetop on one end of a veth pair with --csv and an
# expression, scapy sending send.py's known mix to it; flows.csv must hold
# exactly the flows the expression names (the data QP 0x101 and the CNPs of
# 10.99.1.20), each summing to scapy's tally of what was sent on it.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_two_hosts filter_live rtfl
ip -n "$A" addr add 10.99.0.1/24 dev "$IFA" && ip -n "$B" addr add 10.99.0.2/24 dev "$IFB" ||
	{ echo "FAIL filter_live: cannot address the veth pair"; exit 1; }
ip netns exec "$B" "$ROCETOP" -i "$IFB" --csv "$tmp/csv" -D -d 0.2 --flow-timeout 0 \
	--filter 'qp 0x101 or src 10.99.1.20' 2>"$tmp/err" &
rt=$!; pids+=("$rt")
rt_wait_file "$tmp/csv/flows.csv" "$rt" || { echo "FAIL filter_live: rocetop did not start: $(cat "$tmp/err")"; exit 1; }
ip netns exec "$A" "$PY" tests/live/send.py "$IFA" "$MAC_A" "$MAC_B" 10.99.1 10.99.0.2 7 "$tmp/sent" >/dev/null 2>&1 ||
	{ echo "FAIL filter_live: scapy could not send"; exit 1; }
sleep 1
kill -INT "$rt"; wait "$rt"; rc=$?
[ "$rc" = 0 ] || { echo "FAIL filter_live: rocetop exited $rc: $(cat "$tmp/err")"; exit 1; }
"$PY" - "$tmp/csv/flows.csv" "$tmp/sent.flows.csv" <<'PYEOF'
import os, sys
sys.path.insert(0, os.path.join("tests", "lib"))
from rtlib import check, outputs, roce
cols = [c for c in roce.FLOW_COLS]
key = lambda r: (r["src"], r["dst"], int(r["dqpn"]))
got = outputs.sums(sys.argv[1], key, cols)
sent = outputs.sums(sys.argv[2], key, cols)
want = {k: v for k, v in sent.items() if k[2] == 0x101 or k[0] == "10.99.1.20"}
ck = check.Checker(prefix="filter_live ", got="rocetop", want="scapy", need_want=True)
ck.check("qp 0x101 or src 10.99.1.20: %d flows of %d sent" % (len(want), len(sent)), got, want)
ck.done()
PYEOF
