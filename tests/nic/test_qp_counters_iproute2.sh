#!/usr/bin/env bash
# --qp-counters against iproute2, the reference for what the kernel accepts.
# This host has no RDMA stack, so both programs talk to a stand-in for the
# kernel's RDMA netlink (fake_rdma_nl.c, preloaded) answering for one rxe
# device (rdma_nl_answers.py). First `rdma` itself reads those answers as it
# reads the kernel's (its output below), which checks their layout; then the
# requests rocetop sends are compared byte for byte (sequence numbers aside)
# with those `rdma` sends for the same thing:
#   rdma statistic qp mode link rxe0/1              the mode query
#   rdma statistic qp set link rxe0/1 auto type on  binding on
#   rdma statistic qp set link rxe0/1 auto off      the mode found (none) put back
#   rdma statistic qp show link rxe0/1              the bound counters
#   rdma statistic qp unbind link rxe0/1 cntn 4 lqpn 178
#   rdma link show rxe0/1                           the port and its netdev
#                                                   (rocetop doctor then names enp0s4)
# and rocetop's outcome is checked in three cases: rxe (auto mode taken, no
# counter bound to the QP made after it: one sentence, exit 1), a kernel that
# refuses the mode query (one sentence, exit 1, nothing changed) and a driver
# that binds (counter 4 of QPs 178 and 180: rcvd_pkts 4096, exit 0).
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
name=qp_counters_iproute2
command -v rdma >/dev/null || { echo "SKIP $name: no iproute2 rdma"; exit 0; }
command -v cc >/dev/null || { echo "SKIP $name: no C compiler for the netlink stand-in"; exit 0; }
if [ "$(id -u)" -ne 0 ]; then echo "SKIP $name: needs root to attach to lo"; exit 0; fi
[ -x "$ROCETOP" ] || { echo "FAIL $name: $ROCETOP not built"; exit 1; }
PY=${PYTHON:-python3}

tmp=$(mktemp -d /tmp/rtqi$$.XXXX)
ns=rtqi$$-$RANDOM
trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"' EXIT
cc -shared -fPIC -O1 -o "$tmp/fake.so" tests/nic/fake_rdma_nl.c -ldl ||
	{ echo "FAIL $name: cannot build the netlink stand-in"; exit 1; }
fail=0

# fake SCENARIO LOG CMD...: CMD against the stand-in, its requests in LOG
fake() {
	local sc=$1 log=$2; shift 2
	rm -rf "$tmp/ans.$sc"
	$PY tests/nic/rdma_nl_answers.py "$tmp/ans.$sc" "$sc" || return 99
	# (an ASan build, make SANITIZE=1, wants its runtime first: the stand-in goes after it)
	FAKE_NL_DIR="$tmp/ans.$sc" FAKE_NL_LOG="$log" LD_PRELOAD="$tmp/fake.so" \
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$@"
}
# pick LOG TYPE FLAGS [N]: the N-th (1: first, -1: last) request of that type and flags, hex,
# its sequence number blanked
pick() {
	$PY - "$@" <<'PYEOF'
import sys
log, typ, flags = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3], 0)
n = int(sys.argv[4]) if len(sys.argv) > 4 else 1
got = []
for line in open(log) if __import__("os").path.exists(log) else []:
    b = bytearray.fromhex(line.strip())
    if int.from_bytes(b[4:6], "little") == typ and int.from_bytes(b[6:8], "little") == flags:
        b[8:12] = b"\0\0\0\0"
        got.append(b.hex())
print(got[n - 1 if n > 0 else n] if got and abs(n) <= len(got) else "none")
PYEOF
}
same() {	# same WHAT OURS THEIRS
	if [ "$2" = none ] || [ "$2" != "$3" ]; then
		echo "  $1: rocetop sent $2"
		echo "  $1: rdma    sent $3"
		fail=1
	fi
}

# 1. iproute2's requests, and iproute2 reading the stand-in's answers.
ref() { fake "$1" "$tmp/ref.$2" rdma "${@:3}" > "$tmp/ref.$2.out" 2>&1; }
ref rxe mode statistic qp mode link rxe0/1
ref rxe on statistic qp set link rxe0/1 auto type on
ref rxe off statistic qp set link rxe0/1 auto off
ref bound show statistic qp show link rxe0/1
ref bound unbind statistic qp unbind link rxe0/1 cntn 4 lqpn 178
ref rxe link link show rxe0/1
grep -q '^link rxe0/1 mode qp auto off' "$tmp/ref.mode.out" ||
	{ echo "  rdma reads the mode answer as: $(cat "$tmp/ref.mode.out")"; fail=1; }
grep -q '^link rxe0/1 cntn 4 rcvd_pkts 4096 rcvd_seq_err 3' "$tmp/ref.show.out" &&
	grep -q 'LQPN: <178,180>' "$tmp/ref.show.out" ||
	{ echo "  rdma reads the counter dump as: $(cat "$tmp/ref.show.out")"; fail=1; }
grep -q '^link rxe0/1 state ACTIVE .*netdev enp0s4' "$tmp/ref.link.out" ||
	{ echo "  rdma reads the port answer as: $(cat "$tmp/ref.link.out")"; fail=1; }

# The port's netdev from the port query alone (no sysfs here): doctor names it.
fake rxe "$tmp/our.doctor" "$ROCETOP" doctor --interval 0 > "$tmp/doctor.out" 2>&1
grep -q '^enp0s4: rxe0 port 1' "$tmp/doctor.out" || { echo "  doctor: $(head -2 "$tmp/doctor.out")"; fail=1; }
same "doctor's port query" "$(pick "$tmp/our.doctor" 0x1405 0x5 1)" "$(pick "$tmp/ref.link" 0x1405 0x5 1)"

# 2. rocetop in the three cases (its own lo, in a namespace).
ip netns add "$ns" && ip -n "$ns" link set lo up || { echo "FAIL $name: cannot make netns $ns"; exit 1; }
run() {	# run SCENARIO: rocetop's requests in $tmp/our.SCENARIO, exit status in rc
	mkdir -p "$tmp/run.$1"
	ROCETOP_RUN_DIR="$tmp/run.$1" fake "$1" "$tmp/our.$1" ip netns exec "$ns" \
		env LD_PRELOAD="$tmp/fake.so" ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$ROCETOP" -i lo -b -n 3 --interval 0.3 --qp-counters \
		--csv "$tmp/csv.$1" > "$tmp/out.$1" 2> "$tmp/err.$1"
	rc=$?
	grep -v 'falling back to generic XDP' "$tmp/err.$1" > "$tmp/msg.$1"
}
# types: 0x1411 STAT_GET, 0x1410 STAT_SET, 0x1412 STAT_DEL, 0x1405 PORT_GET;
# flags 0x5 REQUEST|ACK, 0x305 with DUMP
run rxe
[ "$rc" = 1 ] || { echo "  rxe: rocetop exited with $rc, expected 1"; fail=1; }
grep -qx 'rocetop: --qp-counters: auto mode set on rxe0/1, but the driver bound no counter to any QP (1 QP created since).' "$tmp/msg.rxe" ||
	{ echo "  rxe: stderr: $(cat "$tmp/msg.rxe")"; fail=1; }
[ "$(grep -c -- '--qp-counters' "$tmp/msg.rxe")" = 1 ] || { echo "  rxe: not one sentence: $(cat "$tmp/msg.rxe")"; fail=1; }
same "mode query" "$(pick "$tmp/our.rxe" 0x1411 0x5 1)" "$(pick "$tmp/ref.mode" 0x1411 0x5 1)"
same "auto on" "$(pick "$tmp/our.rxe" 0x1410 0x5 1)" "$(pick "$tmp/ref.on" 0x1410 0x5 1)"
same "mode put back" "$(pick "$tmp/our.rxe" 0x1410 0x5 -1)" "$(pick "$tmp/ref.off" 0x1410 0x5 1)"
same "counter dump" "$(pick "$tmp/our.rxe" 0x1411 0x305 1)" "$(pick "$tmp/ref.show" 0x1411 0x305 1)"
same "port query" "$(pick "$tmp/our.rxe" 0x1405 0x5 1)" "$(pick "$tmp/ref.link" 0x1405 0x5 1)"
[ "$(grep -c . < <(grep -i '^........1014' "$tmp/our.rxe"))" = 2 ] ||
	{ echo "  rxe: expected 2 STAT_SET requests (on, then put back)"; fail=1; }
[ -e "$tmp/run.rxe/qp-counters.state" ] && { echo "  rxe: state file left behind"; fail=1; }

run refuse
[ "$rc" = 1 ] || { echo "  refuse: rocetop exited with $rc, expected 1"; fail=1; }
grep -qx 'rocetop: --qp-counters: rxe0/1 has no per-QP statistics (Invalid argument): no per-QP counter can be read.' "$tmp/msg.refuse" &&
	[ "$(grep -c . "$tmp/msg.refuse")" = 1 ] || { echo "  refuse: stderr: $(cat "$tmp/msg.refuse")"; fail=1; }
grep -qi '^........1014' "$tmp/our.refuse" && { echo "  refuse: rocetop changed the mode"; fail=1; }

run bound
[ "$rc" = 0 ] || { echo "  bound: rocetop exited with $rc: $(cat "$tmp/msg.bound")"; fail=1; }
# qpctr.csv: time,device,port,netdev,lqpn,nqps,rqpn,pid,comm,counter,value,delta
grep -q '^[0-9.]*,rxe0,1,enp0s4,178,2,[0-9]*,[0-9]*,[^,]*,rcvd_pkts,4096,0$' "$tmp/csv.bound/qpctr.csv" &&
	grep -q '^[0-9.]*,rxe0,1,enp0s4,178,2,[0-9]*,[0-9]*,[^,]*,rcvd_seq_err,3,0$' "$tmp/csv.bound/qpctr.csv" ||
	{ echo "  bound: qpctr.csv: $(cat "$tmp/csv.bound/qpctr.csv" 2>&1 | head -3)"; fail=1; }
# the mode found was none: QPs the run bound are unbound as `rdma ... unbind` does it
same "unbind" "$(pick "$tmp/our.bound" 0x1412 0x5 1)" "$(pick "$tmp/ref.unbind" 0x1412 0x5 1)"

[ $fail = 0 ] && echo "PASS $name" || echo "FAIL $name: rocetop's rdma netlink requests or outcome differ (above)"
