#!/usr/bin/env bash
# rocetop doctor --tune on copies of the hwhost fixture trees
# (tests/fixtures/hwhost), one setting planted per case, with the NIC's
# counters changed by this test between doctor's two readings (it waits for
# doctor's "reading the counters again" line, then writes the copy's
# hw_counters and ethtool files), so the increases are this test's own:
#   healthy, CE marks +100, CNPs sent +60 and handled +30: none;
#   ecn/roce_np/enable/3 = 0, CE marks +100, no CNP sent: enable it, 0 -> 1;
#   the same with no counter moving: none (nothing shows it matters);
#   ecn/roce_rp/enable/3 = 0, rp_cnp_ignored +25: enable it, 0 -> 1;
#   cc_params/np_cnp_dscp = 26, CNPs sent +60: 26 -> 48;
#   pfc-prevention-tout 0, PFC frames on 3 +30 and +10: off -> auto;
#   bad-roce-prio (rdma_cm's ToS 0: priority 0, PFC on 3 only), CE marks +100:
#     PFC on priority 0, off -> on.
# RoCE's priority is 3 on the healthy tree (rdma_cm's ToS 106, DSCP 26 -> 3).
# Every "echo V > FILE" printed names a file of the copy (--sysfs-root) and
# is run as printed: the file must go from the current to the recommended
# value. -d 0 with --tune is refused in one sentence.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
name=doctor_tune
FIX=$PWD/tests/fixtures/hwhost
rt_tmpdir T
fails=0
pass() { echo "PASS $name $1"; }
fail() { echo "FAIL $name $1: $2"; fails=$((fails + 1)); }
HW=sys/class/infiniband/mlx5_0/ports/1/hw_counters

# bump TREE FILE N: add N to a counter file of the copy.
bump() { echo $(( $(cat "$1/$2") + $3 )) >"$1/$2"; }
# pause TREE RX TX: add to ethtool's rx_prio3_pause and tx_prio3_pause.
pause() {
	local f=$1/ethtool/eth2 rx tx
	rx=$(sed -n 's/^ *rx_prio3_pause: //p' "$f"); tx=$(sed -n 's/^ *tx_prio3_pause: //p' "$f")
	sed -i "s/rx_prio3_pause: .*/rx_prio3_pause: $((rx + $2))/; s/tx_prio3_pause: .*/tx_prio3_pause: $((tx + $3))/" "$f"
}

# run CASE FROM "CHANGES": a copy of FIX/FROM in T/CASE (plant the setting
# before); doctor --tune -d 2 --json on it, CHANGES run (with $tree set) once
# doctor has read the counters the first time. Leaves T/CASE.json.
copy() { rm -rf "$T/$1"; cp -a "$FIX/$2" "$T/$1"; }
run() {
	local tree=$T/$1 pid
	"$ROCETOP" doctor --sysfs-root "$tree" --tune -d 2 --json >"$T/$1.json" 2>"$T/$1.err" &
	pid=$!
	rt_wait_until $pid 50 grep -q 'reading the counters again' "$T/$1.err" ||
		{ fail "$1" "doctor never said it would read again: $(cat "$T/$1.err")"; wait $pid; return; }
	eval "$2"
	wait $pid
}
# recs CASE: "setting|scope|current|recommended|command|evidence" a line.
recs() {
	"$PY" -c 'import json,sys
for r in json.load(open(sys.argv[1]))["tuning"]:
    print("|".join(r[k] for k in ("setting","scope","current","recommended","command","evidence")))' "$T/$1.json"
}
# expect CASE WANT LABEL: the recommendations are exactly WANT.
expect() {
	local got
	got=$(recs "$1" 2>&1)
	[ "$got" = "$2" ] && pass "$1: $3" || fail "$1" "got '$got', want '$2'"
}
# writes CASE FILE CUR REC: the one echo command, run as printed, takes
# the copy's FILE from CUR to REC.
writes() {
	local f=$T/$1/$2 cmd before
	cmd=$("$PY" -c 'import json,sys
print("\n".join(r["command"] for r in json.load(open(sys.argv[1]))["tuning"] if r["command"].startswith("echo ")))' "$T/$1.json")
	before=$(cat "$f")
	sh -c "$cmd"
	[ "$before" = "$3" ] && [ "$(cat "$f")" = "$4" ] && pass "$1: the command as printed takes $2 from $3 to $4" ||
		fail "$1 command" "'$cmd' left $2 at $(cat "$f") (was $before; want $3 -> $4)"
}

copy healthy healthy
run healthy "bump \$tree $HW/np_ecn_marked_roce_packets 100; bump \$tree $HW/np_cnp_sent 60; bump \$tree $HW/rp_cnp_handled 30"
expect healthy "" "healthy settings, CE marks answered and CNPs handled: none"

copy np healthy
echo 0 >"$T/np/sys/class/net/eth2/ecn/roce_np/enable/3"
run np "bump \$tree $HW/np_ecn_marked_roce_packets 100"
expect np "ecn/roce_np/enable|eth2 priority 3|0|1|echo 1 > $T/np/sys/class/net/eth2/ecn/roce_np/enable/3|np_ecn_marked_roce_packets +100, np_cnp_sent +0 in 2.0 s; RoCE takes priority 3 (rdma_cm's default ToS)" \
	"NP off on 3, 100 CE marks and no CNP sent: enable it, 0 -> 1"
writes np sys/class/net/eth2/ecn/roce_np/enable/3 0 1

copy still healthy
echo 0 >"$T/still/sys/class/net/eth2/ecn/roce_np/enable/3"
run still ":"
expect still "" "NP off on 3 with no counter moving: none"

copy rp healthy
echo 0 >"$T/rp/sys/class/net/eth2/ecn/roce_rp/enable/3"
run rp "bump \$tree $HW/rp_cnp_ignored 25"
expect rp "ecn/roce_rp/enable|eth2 priority 3|0|1|echo 1 > $T/rp/sys/class/net/eth2/ecn/roce_rp/enable/3|rp_cnp_handled +0, rp_cnp_ignored +25 in 2.0 s; RoCE takes priority 3 (rdma_cm's default ToS)" \
	"RP off on 3, 25 CNPs ignored: enable it, 0 -> 1"
writes rp sys/class/net/eth2/ecn/roce_rp/enable/3 0 1

copy cnp healthy
cc=sys/kernel/debug/mlx5/0000:03:00.0/cc_params
echo 26 >"$T/cnp/$cc/np_cnp_dscp"
run cnp "bump \$tree $HW/np_ecn_marked_roce_packets 100; bump \$tree $HW/np_cnp_sent 60; bump \$tree $HW/rp_cnp_handled 30"
expect cnp "cc_params/np_cnp_dscp|eth2 (0000:03:00.0) priority 3|26|48|echo 48 > $T/cnp/$cc/np_cnp_dscp|CNPs on priority 3, RoCE's (rdma_cm's default ToS): np_cnp_sent +60 in 2.0 s" \
	"CNPs on DSCP 26 (priority 3, RoCE's), 60 sent: 26 -> 48"
writes cnp "$cc/np_cnp_dscp" 26 48

copy storm healthy
echo 0 >"$T/storm/ethtool-tunable/eth2/pfc-prevention-tout"
run storm "bump \$tree $HW/np_ecn_marked_roce_packets 100; bump \$tree $HW/np_cnp_sent 60; pause \$tree 30 10"
expect storm "pfc-prevention-tout|eth2|0 (off)|auto|ethtool --set-tunable eth2 pfc-prevention-tout auto|PFC on 0x08, RoCE on priority 3 (rdma_cm's default ToS); 40 PFC frames on it in 2.0 s" \
	"storm prevention off, 40 PFC frames on 3: auto"

copy prio bad-roce-prio
run prio "bump \$tree $HW/np_ecn_marked_roce_packets 100; bump \$tree $HW/np_cnp_sent 60"
expect prio "pfc|eth2 priority 0|off|on|dcb pfc set dev eth2 prio-pfc 0:on|RoCE on priority 0 (rdma_cm's default ToS; np_ecn_marked_roce_packets +100, np_cnp_sent +60, rp_cnp_handled +0 in 2.0 s), PFC enabled on 0x08" \
	"RoCE on priority 0 (ToS 0) without PFC: on"

# the text form says the same, once
"$ROCETOP" doctor --sysfs-root "$T/np" --tune -d 0.1 >"$T/text.out" 2>/dev/null
grep -q "^Tuning from the NIC's counters over 0.1 s (0 recommendations)" "$T/text.out" &&
	pass "text: the section, none when the counters do not move" || fail text "$(tail -3 "$T/text.out")"

"$ROCETOP" doctor --sysfs-root "$T/np" --tune -d 0 >/dev/null 2>"$T/e"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/e")" = 1 ] && pass "--tune -d 0: refused in one sentence ($(cat "$T/e"))" ||
	fail d0 "exit $rc: $(cat "$T/e")"
exit $((fails > 0))
