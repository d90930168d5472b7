#!/usr/bin/env bash
# rocetop report --tune on the lab's recordings, its view reading a copy of
# the hwhost fixture's healthy tree (--sysfs-root) with a setting planted,
# against the generator's own tally (the "rocetop-gen:" line):
#   incast, healthy tree: no recommendation (CE and CNPs, settings right);
#   incast, ecn/roce_np/enable/3 = 0: exactly that, 0 -> 1, with the
#     generator's CE count as evidence;
#   steady (the lab's priority 1, the tree's PFC on 3 only): RoCE on a
#     priority without PFC and PFC on one without RoCE, the generator's data
#     count as evidence;
#   rp-cuts (every mark answered by a CNP, DCQCN cutting again and again),
#     healthy tree with rp_gd 11 and rp_min_dec_fac 50 planted: exactly the
#     reaction point observation, no command, the tree's values as current,
#     the generator's CNP and data counts as evidence, the link's share under
#     half of the veth's 10000 Mb/s, and nothing else.
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

# lab SCENARIO TREE OUT [RATE]: a 3 s lab recorded into OUT.rtr; the tally line in OUT.gen; OUT.tune the recommendations.
lab() {
	"$ROCETOP" lab --name "$name" --scenario "$1" --duration 3 --rate "${4:-2000}" --seed 7 -D -d 0.5 \
		--sysfs-root "$2" -w "$T/$3.rtr" >"$T/$3.out" 2>&1 || { fail "$3" "the lab failed: $(tail -2 "$T/$3.out")"; return 1; }
	grep '^rocetop-gen:' "$T/$3.out" >"$T/$3.gen"
	"$ROCETOP" report "$T/$3.rtr" --tune --json | "$PY" -c 'import json,sys
for r in json.load(sys.stdin)["tuning"]:
    print("|".join(r[k] for k in ("kind","setting","scope","current","recommended","evidence","command")))' >"$T/$3.tune"
}
gen() { sed -n "s/.*[(,] *$2 \([0-9]*\)[,)].*/\1/p" "$T/$1.gen"; }	# gen OUT KIND: the tally's count

rm -rf "$T/tree"; cp -a tests/fixtures/hwhost/healthy "$T/tree"
if lab incast "$T/tree" healthy; then
	[ ! -s "$T/healthy.tune" ] && [ "$(gen healthy CE)" -gt 0 ] && pass "incast on healthy settings: none" ||
		fail healthy "$(cat "$T/healthy.tune") ($(cat "$T/healthy.gen"))"
fi

echo 0 >"$T/tree/sys/class/net/eth2/ecn/roce_np/enable/3"
if lab incast "$T/tree" np; then
	want="change|ecn/roce_np/enable|eth2 priority 3|0|1|$(gen np CE) CE-marked RoCE packets on priority 3, 0 CNPs sent (np_cnp_sent)|echo 1 > /sys/class/net/eth2/ecn/roce_np/enable/3"
	[ "$(cat "$T/np.tune")" = "$want" ] && pass "incast, NP off on 3: enable it ($(gen np CE) CE)" ||
		fail np "got '$(cat "$T/np.tune")', want '$want'"
fi

rm -rf "$T/tree"; cp -a tests/fixtures/hwhost/healthy "$T/tree"
if lab steady "$T/tree" prio; then
	n=$(gen prio data)
	want="change|pfc|eth2 priority 1|off|on|$n RoCE packets on priority 1, PFC enabled on 0x08|dcb pfc set dev eth2 prio-pfc 1:on
change|pfc|eth2 priority 3|on|off|no RoCE packet on priority 3; $n on priority 1|dcb pfc set dev eth2 prio-pfc 3:off"
	[ "$(cat "$T/prio.tune")" = "$want" ] && pass "steady on priority 1, PFC on 3: PFC on 1, off on 3 ($n data)" ||
		fail prio "got '$(cat "$T/prio.tune")', want '$want'"
fi
rm -rf "$T/tree"; cp -a tests/fixtures/hwhost/healthy "$T/tree"
cc=$T/tree/sys/kernel/debug/mlx5/0000:03:00.0/cc_params
echo 11 >"$cc/rp_gd"
echo 50 >"$cc/rp_min_dec_fac"
if lab rp-cuts "$T/tree" rp 5000; then
	c=$(gen rp CNP) n=$(gen rp data)
	want="observation|DCQCN reaction point rate cuts|rcv0 priority 3|rp_gd 11, rp_min_dec_fac 50, rp_ai_rate $(cat "$cc/rp_ai_rate")|cc_params rp_gd, rp_min_dec_fac, rp_rate_reduce_monitor_period (how deep and how often a CNP cuts), rp_ai_rate, rp_hai_rate, rp_time_reset, rp_byte_reset (how fast the rate comes back) in /sys/kernel/debug/mlx5/0000:03:00.0/cc_params|$c CNPs for $n RoCE data packets on priority 3, no PFC frame on it; its busiest interval on rcv0 was"
	got=$(cat "$T/rp.tune")
	share=$(sed -n 's/.* was [0-9.]* Gb\/s, \([0-9.]*\)% of the 10000 Mb\/s link|$/\1/p' "$T/rp.tune")
	[ "$c" -ge 100 ] && [ $((c * 20)) -ge "$n" ] && [ "${got%% was *} was" = "$want" ] && [ "$(wc -l <"$T/rp.tune")" = 1 ] &&
		[ -n "$share" ] && "$PY" -c "import sys; sys.exit(not float('$share') < 50)" &&
		pass "rp-cuts: the reaction point observation alone ($c CNPs for $n data, $share% of the link)" ||
		fail rp "got '$got', want '$want ... under 50% of the 10000 Mb/s link|' ($(cat "$T/rp.gen"))"
fi
exit $((fails > 0))
