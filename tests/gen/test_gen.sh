#!/bin/bash
# Tests of gen/rocetop-gen: every scenario on a veth pair between two network
# namespaces of our own; tshark's dissection of captures at both ends must equal
# the generator's tally exactly, and scapy must verify every ICRC.
# Prints PASS/FAIL/SKIP lines and "N passed, M failed"; exits non-zero on failure.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
GEN=${ROCETOP_GEN:-}
. "$ROOT/tests/lib.sh"
TAG=rtg$RT_ID
NSA=${TAG}a          # senders' side
NSB=${TAG}b          # receiver's side
VA=${TAG}va
VB=${TAG}vb
rt_tmpdir WORK
PASSED=0
FAILED=0
TCPDUMP_PIDS=()

pass() { echo "PASS $1"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1${2:+: $2}"; FAILED=$((FAILED + 1)); }
skip() { echo "SKIP $1: $2"; }

rt_on_exit 'for p in "${TCPDUMP_PIDS[@]}"; do kill "$p"; done'

finish() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
	exit $?
}

# ---- build ----
if [ -z "$GEN" ]; then
	GEN=$WORK/rocetop-gen
	# as the Makefile builds it: with user/lib/ (the option engine) and nothing else of rocetop
	if ! cc -O2 -g -Wall -Wextra -Werror -I"$ROOT/user/lib" -o "$GEN" "$ROOT"/gen/*.c \
		"$ROOT"/user/lib/*.c -lz -lm 2>"$WORK/build.log"; then
		fail build "$(head -5 "$WORK/build.log")"
		finish
	fi
fi
pass build

# ---- no privileges needed ----
"$GEN" --help >"$WORK/help.txt" 2>&1
if [ $? -eq 0 ] && grep -q -- '--tally DIR' "$WORK/help.txt" && grep -q -- '--tx-rcv' "$WORK/help.txt"; then
	pass help
else
	fail help "--help did not exit 0 with the option list"
fi

bad_input() { # name, args...
	local name=$1; shift
	"$GEN" "$@" >"$WORK/out" 2>"$WORK/err"
	local rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] && [ ! -s "$WORK/out" ]; then
		pass "$name"
	else
		fail "$name" "exit $rc, stderr: $(head -c 200 "$WORK/err")"
	fi
}
bad_input bad_scenario --scenario nope --pcap "$WORK/x.pcap"
bad_input bad_rate --rate -3 --pcap "$WORK/x.pcap"
bad_input bad_mac --dst-mac 02:zz --pcap "$WORK/x.pcap"
bad_input bad_payload --payload 1001 --pcap "$WORK/x.pcap"
bad_input no_output --frames 10
bad_input no_interface --tx-data nosuchif0 --frames 1
bad_input no_netns --tx-data ${TAG}nons:lo --frames 1

# pcap-only run: ICRC and tally against tshark without any interface
"$GEN" --frames 250 --rate 100000 --pcap "$WORK/fixed.pcap" --tally "$WORK/t_pcap" -q
if $PY "$HERE/check_tally.py" --tally "$WORK/t_pcap" --pcap "$WORK/fixed.pcap" \
	--rcv-mac 02:77:00:00:00:02 >"$WORK/chk" && $PY "$HERE/check_icrc.py" "$WORK/fixed.pcap" >>"$WORK/chk"; then
	pass pcap_fixed
else
	fail pcap_fixed "$(grep -m3 -v '^checked' "$WORK/chk")"
fi

# ---- namespaces ----
if [ "$(id -u)" -ne 0 ]; then
	skip netns "needs root"
	finish
fi
if ! rt_netns "$NSA" "$NSB" 2>/dev/null || ! rt_no_ipv6 "$NSA" "$NSB"; then
	skip netns "cannot create network namespaces"
	finish
fi
for ns in "$NSA" "$NSB"; do ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1; done
if ! rt_veth "$NSA" "$VA" "$NSB" "$VB" 2>/dev/null; then
	skip netns "cannot create a veth pair"
	finish
fi
MAC_B=$(ip -n "$NSB" -o link show "$VB" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
sleep 0.3

# tcpdump with a 32 MiB buffer (-B, KiB), so that frames wait in the kernel
# while a loaded machine does not schedule it, instead of being dropped.
start_capture() { # ns, ifname, file
	ip netns exec "$1" tcpdump --immediate-mode -B 32768 -i "$2" -U -s 0 -w "$3" 2>"$3.log" &
	TCPDUMP_PIDS+=($!)
	for _ in $(seq 50); do
		grep -q "listening on" "$3.log" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Frames in a pcap file (a record still being written is not counted).
pcap_frames() {
	$PY - "$1" <<'EOF'
import struct, sys
try:
    b = open(sys.argv[1], "rb").read()
except OSError:
    print(0); sys.exit()
e = "<" if b[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
off, n = 24, 0
while off + 16 <= len(b):
    incl = struct.unpack_from(e + "I", b, off + 8)[0]
    if off + 16 + incl > len(b):
        break
    off += 16 + incl
    n += 1
print(n)
EOF
}

# wait_captures TALLY FILE...: tcpdump reads the kernel's buffer at its own
# pace, and stopping it drops what it has not read yet. So wait (at most 30 s)
# until each capture holds every frame the generator's tally says it sent:
# the oracle then compares all of them.
wait_captures() {
	local want f i
	want=$(awk '$1=="frames_total"{print $2}' "$1/summary.txt" 2>/dev/null)
	[ -n "$want" ] || return 0
	shift
	for f in "$@"; do
		for i in $(seq 300); do
			[ "$(pcap_frames "$f")" -ge "$want" ] && break
			sleep 0.1
		done
	done
}

stop_captures() {
	sleep 0.3
	for p in "${TCPDUMP_PIDS[@]}"; do kill -INT "$p" 2>/dev/null; done
	for p in "${TCPDUMP_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	TCPDUMP_PIDS=()
}

# run NAME [check_tally extra args --] generator args...
run() {
	local name=$1; shift
	local extra=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do extra+=("$1"); shift; done
	shift
	local d=$WORK/$name
	mkdir -p "$d"
	LAST=$d	# the checks after a failed run then fail on its missing files
	if ! start_capture "$NSB" "$VB" "$d/b.pcap" || ! start_capture "$NSA" "$VA" "$d/a.pcap"; then
		stop_captures
		fail "$name" "tcpdump did not start"
		return
	fi
	"$GEN" --tx-data "$NSA:$VA" --tx-rcv "$NSB:$VB" --tally "$d/tally" -q "$@" 2>"$d/gen.err"
	local rc=$?
	wait_captures "$d/tally" "$d/b.pcap" "$d/a.pcap"
	stop_captures
	if [ $rc -ne 0 ]; then
		fail "$name" "generator exit $rc: $(head -c 300 "$d/gen.err")"
		return
	fi
	local ok=1 end
	for end in b a; do
		if ! $PY "$HERE/check_tally.py" --tally "$d/tally" --pcap "$d/$end.pcap" \
			--rcv-mac "$MAC_B" "${extra[@]}" >"$d/chk_$end" 2>&1; then
			ok=0
			local label=receiver
			[ "$end" = a ] && label=sender
			fail "$name" "capture at the $label end differs from the tally: $(grep -m3 MISMATCH "$d/chk_$end" | tr '\n' ';')$(grep -m1 -i error "$d/chk_$end")"
			break
		fi
	done
	if [ $ok -eq 1 ] && ! $PY "$HERE/check_icrc.py" "$d/b.pcap" >"$d/icrc" 2>&1; then
		ok=0
		fail "$name" "ICRC: $(tail -1 "$d/icrc")"
	fi
	[ $ok -eq 1 ] && pass "$name ($(tail -1 "$d/chk_b" | cut -d' ' -f1-18))"
}

col_sum() { # file column-name -> sum
	awk -F, -v c="$2" 'NR==1{for(i=1;i<=NF;i++) if($i==c) k=i; next} {s+=$k} END{print s+0}' "$1"
}

expect() { # name condition-description test...
	local name=$1 what=$2; shift 2
	if "$@"; then pass "$name"; else fail "$name" "$what"; fi
}

run fixed -- --frames 500 --rate 5000
run fixed_vlan -- --frames 200 --rate 5000 --vlan 7

run incast -- --scenario incast --senders 4 --duration 2 --rate 1500 --seed 7 --rnr-prob 0.5
F=$LAST/tally/flows.csv
expect incast_dynamics "expected CE, CNP, ACK, NAK (seq) and RNR NAK in the incast tally" \
	test "$(col_sum "$F" ce)" -gt 0 -a "$(col_sum "$F" cnp)" -gt 0 -a "$(col_sum "$F" ack)" -gt 0 \
	-a "$(col_sum "$F" nak_seq)" -gt 0 -a "$(col_sum "$F" rnr_nak)" -gt 0
expect incast_flows "expected 4 data flows and 4 receiver flows" \
	test "$(grep -c ',data$' "$F")" -eq 4 -a "$(grep -c ',rcv$' "$F")" -eq 4
expect incast_rate "the run must respect --rate 1500 for 2 s" \
	test "$(awk '$1=="frames_total"{print $2}' "$LAST/tally/summary.txt")" -le 3001

run pfc_storm --storm-dscp 26 --victims 2 -- --scenario pfc-storm --senders 4 --duration 2 --rate 1000
P=$LAST/tally/pfc.csv
expect pfc_storm_frames "expected PFC frames on prio 3 with one XON" \
	awk -F, '$1=="3"{f=$2;x=$3} END{exit !(f>2 && x>=1)}' "$P"
expect pfc_storm_no_ce "no CE or CNP without congestion" \
	test "$(col_sum "$LAST/tally/flows.csv" ce)" -eq 0 -a "$(col_sum "$LAST/tally/flows.csv" cnp)" -eq 0

run steady -- --scenario steady --senders 3 --duration 1 --rate 1000
F=$LAST/tally/flows.csv
expect steady_acks_only "steady: ACKs only, no CE/CNP/NAK" \
	test "$(col_sum "$F" ack)" -gt 0 -a "$(col_sum "$F" ce)" -eq 0 -a "$(col_sum "$F" cnp)" -eq 0 \
	-a "$(col_sum "$F" nak)" -eq 0 -a "$(col_sum "$F" rnr_nak)" -eq 0

run mixed --storm-dscp 34 --victims 2 -- --scenario mixed --senders 3 --duration 2.5 --rate 1500 --seed 3
F=$LAST/tally/flows.csv
expect mixed_all "mixed: CE, CNP, ACK and PFC prio 4" \
	test "$(col_sum "$F" ce)" -gt 0 -a "$(col_sum "$F" cnp)" -gt 0 -a "$(col_sum "$F" ack)" -gt 0 \
	-a "$(awk -F, '$1=="4"{print $2}' "$LAST/tally/pfc.csv")" -gt 0

# SIGTERM: stops at once, the tally still equals the capture
d=$WORK/sigterm
mkdir -p "$d"
start_capture "$NSB" "$VB" "$d/b.pcap"
"$GEN" --tx-data "$NSA:$VA" --tx-rcv "$NSB:$VB" --scenario incast --duration 60 --rate 2000 \
	--tally "$d/tally" -q &
gp=$!
sleep 0.7
kill -TERM $gp
t0=$(date +%s%N)
wait $gp
grc=$?
t1=$(date +%s%N)
wait_captures "$d/tally" "$d/b.pcap"
stop_captures
if [ $grc -eq 0 ] && [ $(((t1 - t0) / 1000000)) -lt 1000 ] &&
	grep -q "stop_reason signal" "$d/tally/summary.txt" &&
	$PY "$HERE/check_tally.py" --tally "$d/tally" --pcap "$d/b.pcap" --rcv-mac "$MAC_B" >"$d/chk" 2>&1; then
	pass "sigterm ($(tail -1 "$d/chk" | cut -d' ' -f1-4))"
else
	fail sigterm "exit $grc; $(grep -m2 MISMATCH "$d/chk" 2>/dev/null | tr '\n' ';')"
fi

finish
