#!/usr/bin/env bash
# rocetop report --tune on the lab's recordings, its view reading a copy of
# the hwhost fixture's healthy tree (--sysfs-root) with a setting planted,
# against the generator's own tally (the "rocetop-gen:" line):
#   incast, healthy tree: no recommendation (CE and CNPs, settings right);
#   incast, ecn/roce_np/enable/3 = 0: exactly that, 0 -> 1, with the
#     generator's CE count as evidence;
#   steady (the lab's priority 1, the tree's PFC on 3 only): RoCE on a
#     priority without PFC and PFC on one without RoCE, the generator's data
#     count as evidence.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
name=rtt$RT_ID
rt_need_root lab_tune
rt_tmpdir T
rt_on_exit 'for ns in snd sw rcv; do ip netns del "$name-$ns"; done'
fails=0
pass() { echo "PASS lab_tune $1"; }
fail() { echo "FAIL lab_tune $1: $2"; fails=$((fails + 1)); }

# lab SCENARIO TREE OUT: a 3 s lab recorded into OUT.rtr; the tally line in OUT.gen; OUT.tune the recommendations.
lab() {
	"$ROCETOP" lab --name "$name" --scenario "$1" --duration 3 --rate 2000 --seed 7 -D -d 0.5 \
		--sysfs-root "$2" -w "$T/$3.rtr" >"$T/$3.out" 2>&1 || { fail "$3" "the lab failed: $(tail -2 "$T/$3.out")"; return 1; }
	grep '^rocetop-gen:' "$T/$3.out" >"$T/$3.gen"
	"$ROCETOP" report "$T/$3.rtr" --tune --json | "$PY" -c 'import json,sys
for r in json.load(sys.stdin)["tuning"]:
    print("|".join(r[k] for k in ("setting","scope","current","recommended","evidence")))' >"$T/$3.tune"
}
gen() { sed -n "s/.*[(,] *$2 \([0-9]*\)[,)].*/\1/p" "$T/$1.gen"; }	# gen OUT KIND: the tally's count

rm -rf "$T/tree"; cp -a tests/fixtures/hwhost/healthy "$T/tree"
if lab incast "$T/tree" healthy; then
	[ ! -s "$T/healthy.tune" ] && [ "$(gen healthy CE)" -gt 0 ] && pass "incast on healthy settings: none" ||
		fail healthy "$(cat "$T/healthy.tune") ($(cat "$T/healthy.gen"))"
fi

echo 0 >"$T/tree/sys/class/net/eth2/ecn/roce_np/enable/3"
if lab incast "$T/tree" np; then
	want="ecn/roce_np/enable|eth2 priority 3|0|1|$(gen np CE) CE-marked RoCE packets on priority 3, 0 CNPs sent (np_cnp_sent)"
	[ "$(cat "$T/np.tune")" = "$want" ] && pass "incast, NP off on 3: enable it ($(gen np CE) CE)" ||
		fail np "got '$(cat "$T/np.tune")', want '$want'"
fi

rm -rf "$T/tree"; cp -a tests/fixtures/hwhost/healthy "$T/tree"
if lab steady "$T/tree" prio; then
	n=$(gen prio data)
	want="pfc|eth2 priority 1|off|on|$n RoCE packets on priority 1, PFC enabled on 0x08
pfc|eth2 priority 3|on|off|no RoCE packet on priority 3; $n on priority 1"
	[ "$(cat "$T/prio.tune")" = "$want" ] && pass "steady on priority 1, PFC on 3: PFC on 1, off on 3 ($n data)" ||
		fail prio "got '$(cat "$T/prio.tune")', want '$want'"
fi
exit $((fails > 0))
