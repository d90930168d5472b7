#!/usr/bin/env bash
# Recordings keep the link speed: a live run on a veth pair (veth
# says 10000 Mb/s through ethtool) records PFC frames of known quanta sent by
# scapy; the recording is then read in another namespace whose interface of
# the same name is a bridge (no speed). Paused time from `report --json` and
# `-r --batch --json` must equal the live run's (pfc.csv) to 1% and the hand
# computation quanta * 512 / speed from the sent tally: the frames go 6 ms
# apart, longer than any of their pauses (3.36 ms at most), so the time
# paused, the union of the pauses (rocetop(8) PAUSED TIME), is their sum. A second run records
# with --link-speed 25G and must read back at 25G the same way.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
here=tests/rec
id=$RT_ID
A=rts${id}a B=rts${id}b C=rts${id}c IFA=rts${id}x IFB=rts${id}y
pids=()

rt_need_root rec_speed "needs root for namespaces and BPF"
rt_need_cmd rec_speed ethtool
"$PY" -c 'import scapy' 2>/dev/null || rt_skip rec_speed "scapy is not installed"
rt_tmpdir tmp
rt_on_exit 'for p in "${pids[@]}"; do kill -9 "$p"; done; wait'

rt_netns "$A" "$B" "$C" && rt_veth "$A" "$IFA" "$B" "$IFB" && rt_no_ipv6 "$A" "$B" "$C" &&
	ip -n "$C" link add "$IFB" type bridge && ip -n "$C" link set "$IFB" up ||
	{ echo "FAIL rec_speed: cannot build the namespaces"; exit 1; }
MAC_A=$(rt_mac "$A" "$IFA")
veth_mbps=$(ip netns exec "$B" ethtool "$IFB" 2>/dev/null | sed -n 's/^\s*Speed: \([0-9]*\)Mb\/s/\1/p')
[ -n "$veth_mbps" ] || rt_skip rec_speed "this kernel's veth says no speed"

# run NAME SPEED_MBPS FRAMES PRIO QUANTA [ROCETOP-OPTIONS...]
run() {
	local name=$1 mbps=$2 n=$3 prio=$4 q=$5 dir=$tmp/$1
	shift 5
	mkdir -p "$dir"
	ip netns exec "$B" "$ROCETOP" -i "$IFB" "$@" -w "$dir/run.rtr" --csv "$dir/csv" -D -d 0.2 \
		2>"$dir/err" &
	local rt=$!; pids+=("$rt")
	rt_wait_file "$dir/csv/flows.csv" "$rt" ||
		{ echo "FAIL rec_speed $name: rocetop did not start: $(cat "$dir/err")"; return 1; }
	local tally
	tally=$(ip netns exec "$A" "$PY" $here/send_pfc.py "$IFA" "$MAC_A" "$n" "$prio" "$q" 6) ||
		{ echo "FAIL rec_speed $name: scapy could not send"; return 1; }
	sleep 0.6
	kill -INT "$rt"; wait "$rt"; local rc=$?
	[ $rc -eq 0 ] || { echo "FAIL rec_speed $name: rocetop exited $rc: $(cat "$dir/err")"; return 1; }
	local sent_q
	sent_q=$(echo "$tally" | awk '{print $4}')
	# Read back where the interface of that name has no speed.
	ip netns exec "$C" "$ROCETOP" report "$dir/run.rtr" --json >"$dir/report.json" 2>"$dir/report.err" ||
		{ echo "FAIL rec_speed $name: report failed: $(cat "$dir/report.err")"; return 1; }
	ip netns exec "$C" "$ROCETOP" -r "$dir/run.rtr" --batch --json -d 0.2 >"$dir/batch.jsonl" 2>"$dir/batch.err" ||
		{ echo "FAIL rec_speed $name: -r --batch failed: $(cat "$dir/batch.err")"; return 1; }
	"$PY" $here/check_speed.py "rec_speed $name" "$dir/csv/pfc.csv" "$dir/report.json" "$dir/batch.jsonl" \
		"$sent_q" "$mbps" "$prio"
}

fails=0
run veth "$veth_mbps" 200 3 65535 || fails=$((fails + 1))
run given 25000 150 5 40000 --link-speed 25G || fails=$((fails + 1))
exit $fails
