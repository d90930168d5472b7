#!/usr/bin/env bash
# A collector port on a real veth: scapy sends switch-style mirror copies
# (GRE + ERSPAN II/III, GRE TEB, VXLAN) into a namespace where rocetop runs.
# flows.csv (per mirror session), pfc.csv and stats.csv must equal the sent
# tally exactly, tshark's dissection of a capture at the sending end must
# agree, and a capture behind the XDP program must hold exactly the frames
# that are not mirror copies with --collector (native and generic XDP), and
# every frame without it. rocetop -r of the capture counts the same.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
here=tests/mirror

rt_need_cmd mirror tshark tcpdump
rt_two_hosts mirror rtm
ip netns exec "$A" sysctl -qw net.ipv6.conf."$IFA".disable_ipv6=1 &&
ip netns exec "$B" sysctl -qw net.ipv6.conf."$IFB".disable_ipv6=1 ||
	{ echo "FAIL mirror: cannot turn IPv6 off on the veth pair"; exit 1; }

wait_attached() { rt_wait_file "$1/flows.csv" "$2"; }

# mirror_speed NAME DIR: a collector's paused time is not at its own port's
# speed (the veth's 10G) but unknown, 100G assumed and said once on stderr,
# as meta.csv says: pfc.csv's seconds are the tally's quanta * 512 / 1e11.
mirror_speed() {
	local name=$1 dir=$2 n
	n=$(grep -c "$IFB is a mirror collector.*--link-speed" "$dir/err")
	[ "$n" = 1 ] || { echo "FAIL $name mirror speed: said $n times that the mirrored hosts' speed is unknown"; return 1; }
	"$PY" - "$dir/csv" "$IFB" "$dir/tally.pfc.csv" <<'PYEOF' | sed "s/^\(PASS\|FAIL\) /\1 $name: /"
import csv, sys
d, ifb, tally = sys.argv[1:4]
meta = [r for r in csv.DictReader(open(d + "/meta.csv")) if r["ifname"] == ifb]
q = sum(int(r["quanta"]) for r in csv.DictReader(open(tally)))
got = sum(float(r["paused_seconds"]) for r in csv.DictReader(open(d + "/pfc.csv")) if r["ifname"] == ifb)
want = q * 512 / 1e11
if not meta or (meta[0]["link_speed_mbps"], meta[0]["link_speed_from"]) != ("100000", "assumed"):
    print(f"FAIL mirror speed: meta.csv {meta}, want 100000 assumed")
    sys.exit(1)
if abs(got - want) > 1e-9 * 100:  # pfc.csv rounds each row to 1 ns
    print(f"FAIL mirror speed: paused {got} s, want {want} ({q} quanta at 100G assumed)")
    sys.exit(1)
print(f"PASS mirror speed: the collector port's speed unused, paused {got:.9f} s at 100G assumed, said so")
PYEOF
	return "${PIPESTATUS[0]}"
}

# run NAME XDP_MODE COLLECTOR(0|1)
run() {
	local name=$1 mode=$2 coll=$3 dir=$tmp/$1 n
	local extra=()
	[ "$coll" = 1 ] && extra=(--collector)
	mkdir -p "$dir"
	ip netns exec "$A" tcpdump -q -i "$IFA" -w "$dir/sent.pcap" -U 2>/dev/null &
	local tsent=$!; pids+=("$tsent")
	ip netns exec "$B" tcpdump -q -i "$IFB" -w "$dir/seen.pcap" -U 2>/dev/null &
	local tseen=$!; pids+=("$tseen")
	ip netns exec "$B" "$ROCETOP" -i "$IFB" --xdp-mode "$mode" "${extra[@]}" --csv "$dir/csv" -D \
		-d 0.2 --flow-timeout 0 --no-nic 2>"$dir/err" &
	local rt=$!; pids+=("$rt")
	if ! wait_attached "$dir/csv" "$rt"; then
		echo "FAIL mirror $name: rocetop did not start: $(cat "$dir/err")"; return 1
	fi
	sleep 0.5	# the captures are up by now too
	n=$(ip netns exec "$A" "$PY" $here/send_mirror.py "$IFA" "$MAC_A" "$MAC_B" 7 "$dir/tally" 2>"$dir/send.err") ||
		{ echo "FAIL mirror $name: scapy could not send: $(tail -1 "$dir/send.err")"; return 1; }
	local want
	want=$(echo "$n" | awk '{print $2}')
	rt_wait_frames "$dir/sent.pcap" "$want"
	sleep 0.5
	kill -INT "$rt"; wait "$rt"; local rc=$?
	kill -INT "$tsent" "$tseen"; wait "$tsent" "$tseen" 2>/dev/null
	if [ $rc -ne 0 ]; then echo "FAIL mirror $name: rocetop exited $rc: $(cat "$dir/err")"; return 1; fi
	"$PY" $here/compare_mirror.py "$dir/csv" "$IFB" "$dir/sent.pcap" "$dir/tally" "$dir/seen.pcap" "$coll" |
		sed "s/^\(PASS\|FAIL\) /\1 $name: /"
	[ "${PIPESTATUS[0]}" = 0 ] || return 1
	[ "$coll" = 1 ] && { mirror_speed "$name" "$dir" || return 1; }
	[ "$name" = collector-native ] || return 0
	# the same parser in user space: -r of the capture at the sending end
	"$ROCETOP" -r "$dir/sent.pcap" --csv "$dir/off" -D 2>"$dir/off.err" ||
		{ echo "FAIL mirror -r: rocetop exited $?: $(cat "$dir/off.err")"; return 1; }
	"$PY" $here/compare_mirror.py "$dir/off" "*" "$dir/sent.pcap" "$dir/tally" - 0 |
		sed "s/^\(PASS\|FAIL\) /\1 mirror -r of the capture: /"
	return "${PIPESTATUS[0]}"
}

fails=0
run collector-native native 1 || fails=$((fails + 1))
run collector-generic generic 1 || fails=$((fails + 1))
run plain-native native 0 || fails=$((fails + 1))

# --collector without an interface, or with --no-ingress: one sentence, exit 1
out=$("$ROCETOP" -r /dev/null --collector 2>&1); rc=$?
if [ $rc -ne 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q -- '-i IFACE'; then
	echo "PASS mirror: --collector without -i: exit $rc and one sentence: $out"
else
	echo "FAIL mirror: --collector without -i: exit $rc, said: $out"; fails=$((fails + 1))
fi
out=$("$ROCETOP" -i lo --collector --no-ingress 2>&1); rc=$?
if [ $rc -ne 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q -- '--no-ingress'; then
	echo "PASS mirror: --collector --no-ingress: exit $rc and one sentence: $out"
else
	echo "FAIL mirror: --collector --no-ingress: exit $rc, said: $out"; fails=$((fails + 1))
fi
[ $fails -eq 0 ]
