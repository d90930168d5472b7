#!/usr/bin/env bash
# rocetop report --tune on recordings made live on lo of a namespace of our
# own, with --sysfs-root on a copy of the hwhost fixture's healthy tree with
# one setting planted per case, and scapy's RoCE traffic (send_tune.py):
#   healthy tree, data on DSCP 26 (priority 3), CE-marked: no recommendation;
#   ecn/roce_np/enable/3 = 0, the same traffic: enable it (0 -> 1);
#   ecn/roce_rp/enable/3 = 0, data on 3 and CNPs on DSCP 48: enable it (0 -> 1);
#   cc_params/np_cnp_dscp = 26, CNPs on DSCP 26: 26 -> 48;
#   data also on DSCP 8 (priority 1, no PFC): PFC on priority 1, off -> on;
#   ethtool pfc-prevention-tout 0: -> auto.
# The settings the recording carries equal the tree's files (report --json's
# tuning current values), and every sysfs or debugfs write printed (each
# "echo V > /sys/..."), run against the copy (report's commands name the
# recorded host's /sys: the test puts the copy's path in front), leaves the
# file it names holding the recommended value where it held the current one.
set -u
cd "$(dirname "$0")/../.."
name=tune
. tests/lib.sh
rt_need_root $name
rt_scapy_start $name
rt_need_py $name scapy
ns=rttu$RT_ID
rt_netns "$ns"
fails=0
pass() { echo "PASS $name $1"; }
fail() { echo "FAIL $name $1: $2"; fails=$((fails + 1)); }

# case TREE TRAFFIC...: record on lo with --sysfs-root TREE while scapy sends; report --tune --json.
run_case() {
	local tree=$1 out=$2
	shift 2
	rm -f "$T/$out.rtr"
	ip netns exec "$ns" "$ROCETOP" --sysfs-root "$tree" -i lo -D -d 0.2 -w "$T/$out.rtr" \
		>/dev/null 2>"$T/$out.err" &
	local pid=$!
	rt_wait_file "$T/$out.rtr" $pid
	sleep 0.5
	ip netns exec "$ns" "$PY" tests/nic/send_tune.py lo "$@" >"$T/$out.tally" 2>/dev/null
	sleep 0.5
	kill -INT $pid
	wait $pid
	"$ROCETOP" report "$T/$out.rtr" --tune --json >"$T/$out.json" 2>>"$T/$out.err"
}
# recs FILE: one line per recommendation, "setting|scope|current|recommended|command"
# evid FILE: their evidence, one a line. On lo every frame is counted twice,
# leaving and arriving: the evidence counts are twice scapy's tally.
recs() {
	"$PY" -c 'import json,sys
for r in json.load(open(sys.argv[1]))["tuning"]:
    print("|".join(r[k] for k in ("setting","scope","current","recommended","command")))' "$1"
}
evid() {
	"$PY" -c 'import json,sys
for r in json.load(open(sys.argv[1]))["tuning"]:
    print(r["evidence"])' "$1"
}
fresh() { rm -rf "$T/tree"; cp -a tests/fixtures/hwhost/healthy "$T/tree"; }
# writes CASE: run each "echo V > /sys/PATH" of CASE's recommendations on the
# copy; each file must go from the recommendation's current value to V (its
# recommended one). Prints one line per write, "PATH current -> now".
writes() {
	"$PY" -c 'import json,sys
for r in json.load(open(sys.argv[1]))["tuning"]:
    if r["command"].startswith("echo "):
        print(r["current"], r["recommended"], r["command"])' "$T/$1.json" |
	while read -r cur rec cmd; do
		f=$(printf '%s' "$cmd" | sed -n 's|^echo [^ ]* > \(/sys/.*\)$|\1|p')
		before=$(cat "$T/tree$f")
		(eval "${cmd/\/sys/$T/tree/sys}")
		echo "$f $before -> $(cat "$T/tree$f") (want $cur -> $rec)"
	done
}
# check_writes CASE N: N writes, each from current to recommended.
check_writes() {
	local out n bad
	out=$(writes "$1")
	n=$(printf '%s' "$out" | grep -c .)
	bad=$(printf '%s\n' "$out" | awk 'NF && !($2 == $6 && $4 ")" == $8)')
	[ "$n" = "$2" ] && [ -z "$bad" ] && pass "$1: the $n sysfs write(s) printed change the copy's file(s): $out" ||
		fail "$1 writes" "$n writes (want $2): $out"
}

fresh
run_case "$T/tree" healthy 26:200:1:0
got=$(recs "$T/healthy.json" 2>&1)
[ -z "$got" ] && pass "healthy: no recommendation" || fail healthy "$got"

fresh
echo 0 >"$T/tree/sys/class/net/eth2/ecn/roce_np/enable/3"
run_case "$T/tree" np 26:200:1:0
got=$(recs "$T/np.json" 2>&1)
want='ecn/roce_np/enable|eth2 priority 3|0|1|echo 1 > /sys/class/net/eth2/ecn/roce_np/enable/3'
ev=$(evid "$T/np.json")
[ "$got" = "$want" ] && [ "$ev" = "400 CE-marked RoCE packets on priority 3, 0 CNPs sent (np_cnp_sent)" ] &&
	pass "NP off on priority 3 with CE marks: enable it" || fail np "got '$got' ($ev), want '$want'"
check_writes np 1

fresh
echo 0 >"$T/tree/sys/class/net/eth2/ecn/roce_rp/enable/3"
run_case "$T/tree" rp 26:200:0:0 48:0:0:50
got=$(recs "$T/rp.json" 2>&1)
want='ecn/roce_rp/enable|eth2 priority 3|0|1|echo 1 > /sys/class/net/eth2/ecn/roce_rp/enable/3'
ev=$(evid "$T/rp.json")
[ "$got" = "$want" ] && [ "$ev" = "400 RoCE packets sent on priority 3; 100 CNPs seen, rp_cnp_ignored +0" ] &&
	pass "RP off on priority 3 with CNPs: enable it" || fail rp "got '$got' ($ev), want '$want'"
check_writes rp 1

fresh
cc=$T/tree/sys/kernel/debug/mlx5/0000:03:00.0/cc_params
echo 26 >"$cc/np_cnp_dscp"
run_case "$T/tree" cnp 26:200:1:50
got=$(recs "$T/cnp.json" 2>&1)
want='cc_params/np_cnp_dscp|eth2 (0000:03:00.0) priority 3|26|48|echo 48 > /sys/kernel/debug/mlx5/0000:03:00.0/cc_params/np_cnp_dscp'
ev=$(evid "$T/cnp.json")
[ "$got" = "$want" ] && [ "$ev" = "CNPs on priority 3, the priority of 400 RoCE data packets: 100 CNPs seen on it" ] &&
	pass "CNPs on the data priority: np_cnp_dscp 26 -> 48" || fail cnp "got '$got' ($ev), want '$want'"
check_writes cnp 1

fresh
run_case "$T/tree" prio 26:200:0:0 8:100:0:0
got=$(recs "$T/prio.json" 2>&1)
want='pfc|eth2 priority 1|off|on|dcb pfc set dev eth2 prio-pfc 1:on'
ev=$(evid "$T/prio.json")
[ "$got" = "$want" ] && [ "$ev" = "200 RoCE packets on priority 1, PFC enabled on 0x08" ] &&
	pass "RoCE on priority 1 without PFC: PFC on" || fail prio "got '$got' ($ev), want '$want'"

fresh
echo 0 >"$T/tree/ethtool-tunable/eth2/pfc-prevention-tout"
run_case "$T/tree" storm 26:200:0:0
got=$(recs "$T/storm.json" 2>&1)
want='pfc-prevention-tout|eth2|0 (off)|auto|ethtool --set-tunable eth2 pfc-prevention-tout auto'
[ "$got" = "$want" ] && pass "storm prevention off: auto" || fail storm "got '$got', want '$want'"

# An older recording (no settings) says so and recommends nothing.
"$ROCETOP" report tests/fixtures/rec/main-e7a5c90-rtoldy-10G.rtr --tune >"$T/old.txt" 2>&1
grep -q '^Tuning (0 recommendations)' "$T/old.txt" && grep -q 'carries no congestion settings' "$T/old.txt" &&
	pass "a recording from before the settings: none, said so" || fail old "$(grep -A2 '^Tuning' "$T/old.txt")"
exit $((fails > 0))
