#!/usr/bin/env bash
# Paused time live (the BPF programs' pause map, bpf/pause.h): the frames of
# tests/offline/pause_union.py (a refreshing storm, XOFF ended by XON, lone
# pauses, one frame pausing two priorities, overlapping 802.3x pauses) sent
# on a veth at their times; rocetop -i on the far end at --link-speed 10G
# records, and its report must give per priority the union of the pause
# intervals pause_union.py works out from tcpdump's capture beside it (the
# times the frames arrived).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
A=rtpl${RT_ID}a B=rtpl${RT_ID}b IFA=rtpl${RT_ID}x IFB=rtpl${RT_ID}y
rt_need_root pause_live "needs root for namespaces and BPF"
rt_need_cmd pause_live tcpdump
rt_tmpdir tmp
rt_on_exit 'kill -9 "${rt:-0}" "${td:-0}" 2>/dev/null; wait'
rt_netns "$A" "$B" && rt_veth "$A" "$IFA" "$B" "$IFB" && rt_no_ipv6 "$A" "$B" ||
	{ echo "FAIL pause_live: cannot build the namespaces"; exit 1; }

ip netns exec "$B" tcpdump -q -i "$IFB" -w "$tmp/cap.pcap" -U 2>"$tmp/td.err" & td=$!
ip netns exec "$B" "$ROCETOP" -i "$IFB" --link-speed 10G -w "$tmp/run.rtr" --csv "$tmp/csv" -D -d 0.5 \
	2>"$tmp/err" & rt=$!
rt_wait_file "$tmp/csv/flows.csv" "$rt" || { echo "FAIL pause_live: rocetop did not start: $(cat "$tmp/err")"; exit 1; }
sleep 0.3
ip netns exec "$A" "$PY" tests/offline/pause_union.py send "$IFA" >/dev/null ||
	{ echo "FAIL pause_live: the frames could not be sent"; exit 1; }
sleep 1.2
kill -INT "$rt"; wait "$rt"; rc=$?
kill -INT "$td"; wait "$td"
[ $rc -eq 0 ] || { echo "FAIL pause_live: rocetop exited $rc: $(cat "$tmp/err")"; exit 1; }
"$ROCETOP" report "$tmp/run.rtr" --json >"$tmp/report.json" 2>"$tmp/rerr" ||
	{ echo "FAIL pause_live: report exited $?: $(cat "$tmp/rerr")"; exit 1; }
"$PY" tests/offline/pause_union.py live "$tmp/cap.pcap" "$tmp/report.json" 10000
