#!/usr/bin/env bash
# The exporter on itself: process_* (CPU, resident memory, open fds, start
# time) against /proc/PID read by the test, the BPF programs' run counts and
# times against bpftool with kernel.bpf_stats_enabled on (the XDP program's
# count equal to the frames sent), and the intervals missed while the process
# was stopped for a known time.
set -u
cd "$(dirname "$0")/../.."
here=tests/prom
. tests/lib.sh
rt_need_cmd "prom self" bpftool curl
rt_two_hosts "prom self" rts
FRAMES=50
fails=0
# The kernel counts runs only while the sysctl is on; as it was, on exit.
was=$(sysctl -n kernel.bpf_stats_enabled)
rt_on_exit "sysctl -qw kernel.bpf_stats_enabled=$was"
sysctl -qw kernel.bpf_stats_enabled=1
PORT=$(rt_free_port)
ip netns exec "$B" "$ROCETOP" -i "$IFB" --listen "127.0.0.1:$PORT" -D -d 0.5 --no-nic 2>"$tmp/rt.err" &
rt=$!
rt_kill_on_exit $rt
# --listen binds in rocetop's own namespace: B's loopback
inb() { ip netns exec "$B" "$@"; }
for _ in $(seq 200); do
	[ "$(inb curl -s "http://127.0.0.1:$PORT/metrics" | grep -c '^rocetop_bpf_prog_runs_total')" -ge 1 ] && break
	kill -0 $rt 2>/dev/null || break
	sleep 0.1
done
# Frames to the watched end: each one an XDP run.
ip netns exec "$A" "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for i in range(int(sys.argv[2])):
    s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + bytes(50))
' "$IFA" $FRAMES
inb "$PY" $here/check_self.py "http://127.0.0.1:$PORT/metrics" $rt $FRAMES || fails=$((fails + 1))

missed() { inb curl -s "http://127.0.0.1:$PORT/metrics" | awk '$1 == "rocetop_snapshots_missed_total" {print $2}'; }
m0=$(missed)
kill -STOP $rt; sleep 3; kill -CONT $rt
sleep 1.2
m1=$(missed)
# Stopped 3 s at 0.5 s: 6 or 7 expirations come in one read after SIGCONT
# (one more if the stop caught the loop late for its tick); all but one missed.
if [ -n "$m0" ] && [ -n "$m1" ] && [ $((m1 - m0)) -ge 5 ] && [ $((m1 - m0)) -le 7 ]; then
	echo "PASS prom self: rocetop_snapshots_missed_total $m0 before, $m1 after 3 s stopped at -d 0.5"
else echo "FAIL prom self: rocetop_snapshots_missed_total $m0 before, $m1 after 3 s stopped (want 5 to 7 more)"; fails=$((fails + 1)); fi
[ $fails -eq 0 ]
