#!/usr/bin/env bash
# rocetop doctor on the hwhost fixture trees (tests/fixtures/hwhost): the
# sentence and exit status of each misconfiguration, --json read back by
# Python, rp_cnp_ignored growing between the two readings (the tree moves
# under a symlink while doctor waits), bad command lines, and a host without
# RDMA. The expected findings are the ones make-fixtures.py built each tree for.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
FIX=$PWD/tests/fixtures/hwhost
name=doctor
[ -x "$ROCETOP" ] || { echo "FAIL $name: $ROCETOP not built"; exit 1; }
tmp=$(mktemp -d /tmp/rtd$$.XXXX)
pid=
ns=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0

# case TREE RC ID TEXT: doctor -d 0 exits RC, and prints "ID: ...TEXT..."
case_() {
	local out rc
	out=$("$ROCETOP" doctor --sysfs-root "$FIX/$1" -d 0 2>&1); rc=$?
	[ "$rc" = "$2" ] || { echo "  $1: exit $rc, want $2"; fail=1; }
	if [ -n "$3" ]; then
		grep -q "^[A-Z]* $3: .*$4" <<< "$out" || { echo "  $1: no '$3: ...$4' in: $out"; fail=1; }
	fi
	echo "$out" > "$tmp/$1.txt"
}
case_ healthy 0 "" ""
grep -q '^0 findings, 0 failed$' "$tmp/healthy.txt" || { echo "  healthy: findings"; fail=1; }
grep -q '^  PFC enabled on:        3$' "$tmp/healthy.txt" || { echo "  healthy: PFC line"; fail=1; }
grep -q 'trust:                 dscp (APP table: 26->3 48->6)' "$tmp/healthy.txt" ||
	{ echo "  healthy: trust line"; fail=1; }
grep -q 'rdma_cm:               default mode RoCE v2, default ToS 106 (DSCP 26)' "$tmp/healthy.txt" ||
	{ echo "  healthy: rdma_cm line"; fail=1; }
# STAT_GET_STATUS: cc_rx_ce_pkts (40) and cc_rx_cnp_pkts (41) on, cc_tx_cnp_pkts (42) off
grep -q '^  optional counters:     cc_rx_ce_pkts on, cc_rx_cnp_pkts on, cc_tx_cnp_pkts off$' "$tmp/healthy.txt" ||
	{ echo "  healthy: optional counters line"; fail=1; }
case_ bad-roce-prio 1 roce-prio-no-pfc "RoCE traffic goes on priority 0, which has no PFC (PFC is on 3)"
case_ bad-ecn 1 pfc-ecn-off "priority 3 has PFC but ECN is off for the reaction point"
case_ bad-pause 1 pause-prio-no-pfc "pause frames were counted on priority 0"
case_ bad-roce-v1 1 roce-v1 "default RoCE mode is v1"
case_ bad-mtu 1 rdma-mtu "the RDMA MTU is 1024 while the netdev's MTU 9000 allows 4096"
case_ bad-cnp-ignored 0 cnp-ignored "has ignored CNPs"
case_ bad-cnp-unhandled 0 cnp-unhandled "sent 500 CNPs and no port of it handled one"
case_ bad-trust-pcp 0 trust-pcp "trusts PCP, not DSCP"
grep -q '^  check: dcb app show dev eth2$' "$tmp/bad-trust-pcp.txt" || { echo "  bad-trust-pcp: check line"; fail=1; }
# The checks that say the command to check them (make-fixtures.py's trees):
# ethtool's pfc-prevention-tout 0 under PFC on 3 (healthy has 65535, auto),
# MLNX_OFED's qos/trust "pcp" over an APP table with DSCPs, an RDMA MTU of
# 4096 under a netdev MTU of 1500, ECN's reaction point off on 3.
case_ bad-pfc-tout 1 pfc-storm-prevention-off "PFC on 3 but PFC storm prevention off: .*ethtool --set-tunable eth2 pfc-prevention-tout auto$"
grep -q '^  check: ethtool --get-tunable eth2 pfc-prevention-tout$' "$tmp/bad-pfc-tout.txt" ||
	{ echo "  bad-pfc-tout: check line"; fail=1; }
grep -q '^  PFC storm prevention:  off$' "$tmp/bad-pfc-tout.txt" || { echo "  bad-pfc-tout: tout line"; fail=1; }
grep -q '^  PFC storm prevention:  auto$' "$tmp/healthy.txt" || { echo "  healthy: tout line"; fail=1; }
case_ bad-trust-file 0 trust-pcp "trusts PCP, not DSCP (its qos/trust file)"
grep -q '^  evidence: /sys/class/net/eth2/qos/trust = pcp; PFC on 3$' "$tmp/bad-trust-file.txt" ||
	{ echo "  bad-trust-file: evidence"; fail=1; }
grep -q '^  check: cat /sys/class/net/eth2/qos/trust$' "$tmp/bad-trust-file.txt" || { echo "  bad-trust-file: check line"; fail=1; }
case_ bad-mtu-big 1 rdma-mtu "the RDMA MTU 4096 does not fit the netdev's MTU 1500 (1024 with RoCE's 96 bytes of headers)"
grep -q '^  check: ibv_devinfo -d mlx5_0 -i 1 | grep active_mtu; ip link show eth2$' "$tmp/bad-mtu-big.txt" ||
	{ echo "  bad-mtu-big: check line"; fail=1; }
grep -q '^  check: cat /sys/class/net/eth2/ecn/roce_np/enable/3 /sys/class/net/eth2/ecn/roce_rp/enable/3$' "$tmp/bad-ecn.txt" ||
	{ echo "  bad-ecn: check line"; fail=1; }

# --json, read back
"$ROCETOP" doctor --sysfs-root "$FIX/bad-ecn" -d 0 --json > "$tmp/j" 2>&1
rc=$?
[ $rc = 1 ] || { echo "  --json: exit $rc"; fail=1; }
"${PYTHON:-python3}" - "$tmp/j" <<'EOF' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
f = j["findings"]
ok = (len(f) == 1 and f[0]["id"] == "pfc-ecn-off" and f[0]["severity"] == "fail" and
      f[0]["check"] == "cat /sys/class/net/eth2/ecn/roce_np/enable/3 /sys/class/net/eth2/ecn/roce_rp/enable/3" and
      j["netdevs"][0]["pfc_prevention_tout"] == 65535 and
      f[0]["netdev"] == "eth2" and j["failed"] == 1 and j["netdevs"][0]["pfc_enabled"] == 8 and
      j["netdevs"][0]["ecn_rp"][3] == 0 and j["netdevs"][0]["trust"] == "dscp" and
      j["netdevs"][0]["dcqcn"]["rp_ai_rate"] == 5 and j["netdevs"][0]["rdma_mtu"] == 4096 and
      j["netdevs"][0]["optional_counters"] == {"cc_rx_ce_pkts": True, "cc_rx_cnp_pkts": True,
                                               "cc_tx_cnp_pkts": False})
if not ok:
    print("  --json: %s" % j)
    sys.exit(1)
EOF

# rp_cnp_ignored 25 -> 40 while doctor waits between its readings: a failure
ln -s "$FIX/bad-cnp-ignored" "$tmp/root"
"$ROCETOP" doctor --sysfs-root "$tmp/root" -d 3 > "$tmp/grow" 2> "$tmp/grow.err" &
pid=$!
for _ in $(seq 100); do grep -q 'reading the counters again' "$tmp/grow.err" && break; sleep 0.05; done
ln -sfn "$FIX/bad-cnp-ignored-t1" "$tmp/root"
wait $pid; rc=$?; pid=
[ $rc = 1 ] || { echo "  growing rp_cnp_ignored: exit $rc, want 1"; fail=1; }
grep -q '^FAIL cnp-ignored: eth2 (mlx5_0/1) keeps ignoring CNPs' "$tmp/grow" ||
	{ echo "  growing: $(cat "$tmp/grow")"; fail=1; }
grep -q 'rp_cnp_ignored 40 (+15 since the first reading)' "$tmp/grow" ||
	{ echo "  growing: no +15 evidence"; fail=1; }

# bad command lines: 2 and one sentence
for args in "-d x" "--bogus" "-i no/such" "-i nope0 --sysfs-root $FIX/healthy" "extra"; do
	# shellcheck disable=SC2086
	"$ROCETOP" doctor $args > /dev/null 2> "$tmp/e"; rc=$?
	[ $rc = 2 ] || { echo "  doctor $args: exit $rc, want 2"; fail=1; }
	[ -s "$tmp/e" ] || { echo "  doctor $args: said nothing"; fail=1; }
done
# no RDMA below the root: one sentence, exit 3 (nothing judged: neither a pass nor
# a failed check, rocetop(8) EXIT STATUS)
mkdir -p "$tmp/empty"
out=$("$ROCETOP" doctor --sysfs-root "$tmp/empty" 2>&1); rc=$?
[ $rc = 3 ] || { echo "  no RDMA: exit $rc, want 3"; fail=1; }
grep -q '^no RDMA device on this host (.*/sys/class/infiniband: No such file or directory): nothing to judge' <<< "$out" &&
	[ "$(grep -c . <<< "$out")" = 1 ] || { echo "  no RDMA: $out"; fail=1; }

# Untrusted text: configfs's default_roce_mode holding an
# OSC title set, a BEL, 0xFF and a bare C1 CSI. Text: none of those bytes reach
# the terminal, the escaped form does; --json: valid UTF-8 that decodes back to
# the escape sequence (0xFF and 0x9B as U+FFFD).
cp -a "$FIX/healthy" "$tmp/hostile"
printf '\033]0;PWNED\007RoCE \377\233v2\n' \
	> "$tmp/hostile/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode"
"$ROCETOP" doctor --sysfs-root "$tmp/hostile" -d 0 > "$tmp/hostile.txt" 2>&1
if LC_ALL=C grep -q $'[\x1b\x07\xff\x9b]' "$tmp/hostile.txt"; then
	echo "  hostile: raw control bytes in the text output"; fail=1
fi
grep -q 'default mode ?]0;PWNED?RoCE ??v2, default ToS 106' "$tmp/hostile.txt" ||
	{ echo "  hostile: no escaped rdma_cm line in: $(grep -a rdma_cm "$tmp/hostile.txt")"; fail=1; }
"$ROCETOP" doctor --sysfs-root "$tmp/hostile" -d 0 --json > "$tmp/hostile.json" 2>&1
"${PYTHON:-python3}" - "$tmp/hostile.json" <<'PY' || { echo "  hostile: --json"; fail=1; }
import json, sys
j = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
sys.exit(j["netdevs"][0]["roce_mode"] != "\x1b]0;PWNED\x07RoCE \ufffd\ufffdv2")
PY

# The live view's header says it too (a note of the snapshot), live on lo.
if [ "$(id -u)" -eq 0 ]; then
	ns=rt12d$$-$RANDOM
	ip netns add "$ns" && ip -n "$ns" link set lo up
	ip netns exec "$ns" "$ROCETOP" --sysfs-root "$FIX/bad-ecn" -i lo -b -n 1 > "$tmp/live" 2>&1 ||
		{ echo "  live run failed: $(cat "$tmp/live")"; fail=1; }
	grep -q '^note: doctor: eth2: priority 3 has PFC but ECN is off for the reaction point' "$tmp/live" ||
		{ echo "  live: no doctor note in: $(grep note "$tmp/live")"; fail=1; }
	ip netns del "$ns"
else
	echo "SKIP $name: the live part needs root to attach to lo"
fi

if [ $fail = 0 ]; then echo "PASS $name"; else echo "FAIL $name: see above"; fi
exit $fail
