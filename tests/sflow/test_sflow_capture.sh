#!/usr/bin/env bash
# One capture of sFlow datagrams built byte by byte (sflow_capture.py: an agent
# that sends only counter samples, another with flow samples, a deep queue, a
# drop notification), read both ways: replayed at its own pace to a live
# collector (--sflow on loopback in a namespace, with --csv, --json, -w and --listen), and
# read with -r (--csv, --json, and the view under tmux). compare_capture.py
# holds every output to tshark's dissection of the capture and the live run's
# to -r's (see there).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
here=tests/sflow
rt_need_root sflow_capture "needs root for a namespace"
rt_need_cmd sflow_capture tshark tmux curl
rt_tmpdir T
ns=rtsfc$RT_ID
rt_netns "$ns" || { echo "FAIL sflow_capture: cannot make a namespace"; exit 1; }
in_ns() { ip netns exec "$ns" "$@"; }
"$PY" $here/sflow_capture.py gen "$T/sf.pcap" || { echo "FAIL sflow_capture: cannot write the capture"; exit 1; }

# live: the datagrams sent to the collector at the capture's pace
port=6343
ip netns exec "$ns" "$ROCETOP" --sflow "127.0.0.1:$port" -d 0.5 --no-nic --csv "$T/live" --json -w "$T/live.rec" \
	--listen "127.0.0.1:$((port + 1))" >"$T/live.json" 2>"$T/live.err" &
rt=$!
rt_kill_on_exit "$rt"
rt_wait_file "$T/live/flows.csv" "$rt" || { echo "FAIL sflow_capture: rocetop did not start: $(cat "$T/live.err")"; exit 1; }
in_ns "$PY" $here/sflow_capture.py send "$T/sf.pcap" "$port" >/dev/null ||
	{ echo "FAIL sflow_capture: cannot send the datagrams"; exit 1; }
sleep 1.2	# two intervals: the last datagram's is written
in_ns curl -sf "http://127.0.0.1:$((port + 1))/metrics" >"$T/live.prom" ||
	{ echo "FAIL sflow_capture: no metrics"; exit 1; }
kill -INT "$rt"; wait "$rt"; rc=$?
[ $rc = 0 ] || { echo "FAIL sflow_capture: the live collector exited $rc: $(cat "$T/live.err")"; exit 1; }

# offline: -r of the same capture, and of the live run's recording
"$ROCETOP" -r "$T/sf.pcap" -d 0.5 --csv "$T/off" --json >"$T/off.json" 2>"$T/off.err" ||
	{ echo "FAIL sflow_capture: -r exited $?: $(cat "$T/off.err")"; exit 1; }
"$ROCETOP" -r "$T/live.rec" --csv "$T/rec" -D 2>"$T/rec.err" ||
	{ echo "FAIL sflow_capture: -r of the recording exited $?: $(cat "$T/rec.err")"; exit 1; }

# the view: -r of the capture to its end, then the switch ports (view 5)
rt_tmux sflow_capture "rtsfc$RT_ID" 170 40
tmux send-keys -t "$RT_TMUX" "$ROCETOP -r $T/sf.pcap -d 0.5 --speed 10" Enter
rt_wait_for '\[END\]' 100 || { echo "FAIL sflow_capture: the view did not reach the end: $(rt_cap | head -3)"; exit 1; }
tmux send-keys -t "$RT_TMUX" 5
rt_wait_for 'SWITCH PORT \(sFlow\)' || { echo "FAIL sflow_capture: view 5 did not open"; exit 1; }
sleep 0.3
rt_cap >"$T/tui.txt"
tmux send-keys -t "$RT_TMUX" q

"$PY" $here/compare_capture.py "$T/sf.pcap" "$T"
