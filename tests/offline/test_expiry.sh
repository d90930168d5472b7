#!/usr/bin/env bash
# --flow-timeout in capture time when keys come back (user/core/snapshot_expire.c,
# rt_snapshot_expire and its per-interval bounds): a key forgotten and seen
# again exactly at an interval's start and in the middle of one, a key seen
# again in the interval that would have forgotten it (kept), and a packet
# whose time lies before its interval (written out of order), which leaves
# its row last seen long before the other rows of that interval. The
# expected rows per interval, evictions and per-flow totals are worked out
# by hand below (grid of 1 s from the first packet, timeout 2 s: at the end
# E of an interval, rows last seen before E - 2 and not seen in the interval
# go).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup expiry

# Flows by DQPN 0x100 + i (tests/offline/churn.py's frames): A 0, X 1, B 2,
# F 3, G 4, C 5, D 6, E 7. Times in seconds after the first packet, in file
# order; X's second packet carries 0.9 s but comes after D's 3.2 s.
$PY - "$T/x.pcap" <<'PY' || { fail expiry "the capture could not be written"; exit 1; }
import sys
sys.path.insert(0, "tests/offline")
from churn import frame, write
seq = [(0.0, 0), (0.5, 1), (0.6, 2), (0.7, 3), (0.8, 4), (1.2, 5), (2.95, 3), (3.0, 2),
       (3.2, 6), (0.9, 1), (3.5, 4), (4.1, 0), (6.5, 7)]
write(sys.argv[1], [(round(t * 1e9), frame(i)) for t, i in seq])
PY
# By hand, interval by interval (end E, rows that go: last seen before E - 2):
#  [0,1) A X B F G new: 5 rows.          E=1: none go.                5
#  [1,2) C new: 6.                       E=2: none (A at 0.0 is not < 0).  6
#  [2,3) F seen at 2.95: 6.              E=3: A X B G go (F was seen). 2
#  [3,4) B (3.0, exactly at the start), D, X (0.9, out of order), G: 6.
#                                        E=4: C (1.2) goes.           5
#  [4,5) A again: 6.                     E=5: F (2.95) and X (0.9) go; B (3.0) stays.  4
#  [5,6) nothing.                        E=6: B D G go.               1
#  [6,7) E new: 2.                       E=7: A (4.1) goes.           1
want_rows="5 6 2 5 4 1 1"
want_ev="0 0 4 1 2 3 1"
if "$ROCETOP" -r "$T/x.pcap" -b --top 0 -d 1 --flow-timeout 2 --csv "$T/c" >"$T/b.out" 2>"$T/b.err"; then
	rows=$(grep -o 'flows [0-9]*  evicted' "$T/b.out" | awk '{ printf "%s%s", s, $2; s = " " }')
	ev=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "evicted") c = i; next } { printf "%s%s", s, $c; s = " " }' "$T/c/stats.csv")
	# packets per flow over all its rows: A 2, X 2, B 2, F 2, G 2, C 1, D 1, E 1
	per=$(awk -F, 'NR > 1 { n[$6] += $7 } END { for (q in n) print q, n[q] }' "$T/c/flows.csv" | sort | tr '\n' ' ')
	want_per="256 2 257 2 258 2 259 2 260 2 261 1 262 1 263 1 "
	if [ "$rows" = "$want_rows" ] && [ "$ev" = "$want_ev" ] && [ "$per" = "$want_per" ]; then
		pass "expiry: keys back at an interval's start, mid-interval and out of order: rows per interval $rows, evicted $ev, packets per flow as worked out by hand"
	else
		fail expiry "rows per interval '$rows' (want '$want_rows'), evicted '$ev' (want '$want_ev'), packets per DQPN '$per' (want '$want_per')"
	fi
else
	fail expiry "rocetop -r exited non-zero: $(head -2 "$T/b.err")"
fi

# Nothing forgotten without a timeout: one row per key, made when it first
# appears (A X B F G, C, D, E), kept to the end.
if "$ROCETOP" -r "$T/x.pcap" -b --top 0 -d 1 --flow-timeout 0 >"$T/n.out" 2>"$T/n.err"; then
	rows=$(grep -o 'flows [0-9]*  evicted' "$T/n.out" | awk '{ printf "%s%s", s, $2; s = " " }')
	[ "$rows" = "5 6 6 7 7 7 8" ] && pass "expiry: --flow-timeout 0 keeps every key: rows per interval $rows" ||
		fail expiry "--flow-timeout 0: rows per interval '$rows', want '5 6 6 7 7 7 8'"
else
	fail expiry "rocetop -r --flow-timeout 0 exited non-zero: $(head -2 "$T/n.err")"
fi
exit $((fails > 0))
