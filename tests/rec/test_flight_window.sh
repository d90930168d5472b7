#!/usr/bin/env bash
# The flight recorder's window starts at zero: rocetop on a veth
# with --flight-recorder 4s; scapy sends a first burst, then, after more than
# the window, a second one, and SIGUSR1 (2 s into the second) writes the file,
# which holds the 4 s before the signal and the 4 s after. `report --json` of the
# file must count exactly the second burst (the sent tally), and the
# `-r --batch` intervals must sum to it (the first holds nothing of the first
# burst). Run with and
# without the NIC (--no-nic is the incremental flow table).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
here=tests/rec

"$PY" -c 'import scapy' 2>/dev/null || rt_skip flight_window "scapy is not installed"
rt_two_hosts flight_window rtw
ip -n "$A" addr add 10.98.0.1/24 dev "$IFA" && ip -n "$B" addr add 10.98.0.2/24 dev "$IFB" ||
	{ echo "FAIL flight_window: cannot address the veth pair"; exit 1; }

# run NAME [ROCETOP-OPTIONS...]
run() {
	local name=$1 dir=$tmp/$1
	shift
	mkdir -p "$dir/fl"
	ip netns exec "$B" "$ROCETOP" -i "$IFB" "$@" -D -d 0.2 --flow-timeout 0 --flight-recorder 4s \
		--flight-dir "$dir/fl" --csv "$dir/csv" 2>"$dir/err" &
	local rt=$!; pids+=("$rt")
	rt_wait_file "$dir/csv/flows.csv" "$rt" ||
		{ echo "FAIL flight_window $name: rocetop did not start: $(cat "$dir/err")"; return 1; }
	ip netns exec "$A" "$PY" $here/send_roce.py "$IFA" "$MAC_A" "$MAC_B" 10.98.0.1 10.98.0.2 5 120 300 \
		>"$dir/before" || { echo "FAIL flight_window $name: scapy could not send"; return 1; }
	sleep 5.5	# the first burst leaves the 4 s window
	# The second burst (1.2 s at its rate; seconds more on a loaded host)
	# from 2 s after its start: the file holds the 4 s before SIGUSR1, which
	# begin 3.5 s after the first burst, and the 4 s after, which the second
	# must end within (6 s from its start).
	local t0 snd
	t0=$(date +%s.%N)
	ip netns exec "$A" "$PY" $here/send_roce.py "$IFA" "$MAC_A" "$MAC_B" 10.98.0.1 10.98.0.2 5 70 300 \
		>"$dir/inside" &
	snd=$!
	sleep 2
	kill -USR1 "$rt"
	wait "$snd" || { echo "FAIL flight_window $name: scapy could not send"; return 1; }
	local took
	took=$("$PY" -c "import time; print(round(time.time() - $t0, 2))")
	"$PY" -c "import sys; sys.exit($took > 5.8)" ||
		{ echo "FAIL flight_window $name: the second burst took $took s, past the window's end"; return 1; }
	sleep "$("$PY" -c "print(max(0.1, 6.5 - $took))")"	# the file takes the next 4 s too
	kill -INT "$rt"; wait "$rt" || { echo "FAIL flight_window $name: rocetop exited $?: $(cat "$dir/err")"; return 1; }
	local f
	f=$(ls "$dir"/fl/rocetop-*.rtr 2>/dev/null | head -1)
	[ -n "$f" ] || { echo "FAIL flight_window $name: no flight file: $(cat "$dir/err")"; return 1; }
	"$ROCETOP" report "$f" --json --top 0 >"$dir/report.json" 2>"$dir/report.err" ||
		{ echo "FAIL flight_window $name: report exited $?: $(cat "$dir/report.err")"; return 1; }
	"$ROCETOP" -r "$f" --batch --json -d 0.2 >"$dir/batch.jsonl" 2>>"$dir/report.err" ||
		{ echo "FAIL flight_window $name: -r --batch exited $?"; return 1; }
	"$PY" - "$dir/inside" "$dir/report.json" "$dir/batch.jsonl" "$name" <<'PYEOF'
import json, sys
inside, rep, batch, name = sys.argv[1:5]
want = {}
for line in open(inside):
    w = line.split()
    if w[0] == "pkts":
        total = int(w[1])
    else:
        want[int(w[1])] = int(w[2])
r = json.load(open(rep))
got = r["totals"]["pkts"]
ok = True
if got != total:
    print(f"FAIL flight_window {name}: report counts {got} packets, {total} were sent inside the window")
    ok = False
per = [json.loads(l)["totals"]["pkts"] for l in open(batch) if l.startswith("{")]
if not per or per[0] > total or sum(per) != total:
    print(f"FAIL flight_window {name}: -r --batch intervals hold {per[:3]}... = {sum(per)} packets, "
          f"{total} were sent inside the window")
    ok = False
if ok:
    print(f"PASS flight_window {name} -r --batch: intervals sum to the window's {total}, the first {per[0]}")
if ok:
    print(f"PASS flight_window {name}: report counts the {total} packets sent inside the window exactly")
sys.exit(0 if ok else 1)
PYEOF
}

fails=0
run nic || fails=$((fails + 1))
run no-nic --no-nic || fails=$((fails + 1))
exit $fails
