#!/usr/bin/env bash
# The health rules end to end: rocetop with --sysfs-root on the health
# fixture host (tests/fixtures/health, mlx5's sysfs and `ethtool -S` names),
# live on lo, the tree moving from t0 to t1 (each netdev in trouble) between
# two intervals: every rule opens with the numbers make-fixtures.sh put in
# the tree, and ports.csv holds the counters with those increases. Then t0 to
# quiet (every counter short of its rule, the counters still moving): no
# finding at all. Recorded with -w, the t1 run read back with -r gives the
# same findings; Prometheus has the counters and the rules' openings.
set -u
cd "$(dirname "$0")/../.."
FIX=$PWD/tests/fixtures/health
name=nic_health
. tests/lib.sh
rt_need_root $name "needs root to attach to lo"
rt_need_cmd $name curl
[ -x "$ROCETOP" ] || { echo "FAIL $name: $ROCETOP not built"; exit 1; }
fail=0

rt_tmpdir base
tmp=$base/t1
mkdir -p "$tmp"
rt_fixture_run $name "$FIX/t0" "$FIX/t1" "$tmp/csv/ports.csv" -b -n 3 --interval 1 --csv "$tmp/csv" \
	-w "$tmp/rec.rtr"
[ $rc = 0 ] || { echo "  rocetop exited with $rc: $(cat "$tmp/err")"; fail=1; }
ip netns del "$FIX_NS"

# The findings' opening evidence, each exact but for the interval's length.
"${PYTHON:-python3}" - "$tmp/csv/findings.csv" <<'PY' || fail=1
import csv, re, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["event"] == "open"]
S = r"in (?:9[0-9][0-9] ms|1\.0[0-9] s)"  # the interval as measured (the fixture steps on the clock), in rt_fmt_dur's form
want = [  # rule, severity, subject, evidence (a regular expression)
 ("slow-receiver", "critical", "ifname=eth2 prio=3 counter=tx_prio3_pause",
  r"eth2 sent 40 PFC pauses on priority 3 and received none \(rx_prio3_pause \+0\) " + S +
  r", while rx_out_of_buffer \+12, out_of_buffer \+7, outbound_pci_stalled_wr_events \+2 "
  r"\(outbound_pci_stalled_wr now 45%\)"),
 ("link-flap", "warning", "ifname=eth3 counter=carrier_changes",
  r"eth3: carrier_changes \+4 " + S + r": the link lost its carrier 2 times \(a flap is a down and an up\)"),
 ("link-flap", "warning", "ifname=eth3 counter=link_down_events_phy",
  r"eth3: link_down_events_phy \+2 " + S + r": the port went down 2 times"),
 ("fec-degrading", "warning", "ifname=eth3 counter=rx_corrected_bits_phy",
  r"eth3: rx_corrected_bits_phy \+250000 over rx_bits_phy \+100000000000: pre-FEC bit error rate "
  r"2\.50e-06 \(fec-ber 1e-06\); most raw errors on rx_err_lane_1_phy \+200000"),
 ("link-errors", "critical", "ifname=eth3 counter=rx_pcs_symbol_err_phy",
  r"eth3: rx_pcs_symbol_err_phy \+3 over rx_bits_phy \+100000000000: bit error rate after FEC 3\.00e-11"),
 ("link-errors", "critical", "ifname=eth3 counter=rx_symbol_err_phy",
  r"eth3: rx_symbol_err_phy \+2 " + S + r" \(received packets dropped for symbol errors\)"),
 ("buffer-discard", "critical", "ifname=eth4 prio=3 counter=rx_prio3_buf_discard",
  r"eth4 priority 3: rx_prio3_buf_discard \+17 " + S + r" on a lossless priority \(rx_prio3_pause is "
  r"counted: PFC is on; tx_prio3_pause \+8\)"),
 ("buffer-discard", "warning", "ifname=eth4 prio=0 counter=rx_prio0_buf_discard",
  r"eth4 priority 0: rx_prio0_buf_discard \+4 " + S + r" on a lossy priority \(rx_prio0_pause is not "
  r"counted: PFC is off; tx_prio0_pause \+0\)"),
 ("buffer-discard", "warning", "ifname=eth4 counter=rx_discards_phy",
  r"eth4: rx_discards_phy \+9 " + S),
 ("pcie", "warning", "ifname=eth5 counter=rx_pci_signal_integrity",
  r"eth5: rx_pci_signal_integrity \+6 " + S + r" \(PCIe transitions to recovery\)"),
 ("pcie", "warning", "ifname=eth5 counter=outbound_pci_buffer_overflow",
  r"eth5: outbound_pci_buffer_overflow \+11 " + S),
 ("pcie", "warning", "ifname=eth2 counter=outbound_pci_stalled_wr_events",
  r"eth2: outbound_pci_stalled_wr_events \+2 " + S),
 ("pfc-storm", "critical", "device=mlx5_1 port=2 counter=tx_pause_storm_warning_events",
  r"tx_pause_storm_warning_events on eth5 moved by 1 " + S + r" \(the NIC has been sending pauses for a long time\)$"),
 ("pfc-storm", "critical", "device=mlx5_1 port=2 counter=tx_pause_storm_error_events",
  r"tx_pause_storm_error_events on eth5 moved by 1 " + S + r" \(the NIC sent pauses until its timeout "
  r"and stopped sending them: packets may have been dropped\)$"),
 ("ecn-without-cnp", "warning", "device=mlx5_1 port=2 counter=np_ecn_marked_roce_packets",
  r"\(mlx5_1 port 2: np_ecn_marked_roce_packets \+500, np_cnp_sent \+0, " + S + r"\)"),
 ("cnp-ignored", "warning", "device=mlx5_1 port=2 counter=rp_cnp_ignored",
  r"rp_cnp_ignored on mlx5_1 port 2 moved by 30 " + S +
  r" \(CNPs received but not acted on; rp_cnp_handled \+60\)"),
 ("receiver-not-ready", "warning", "device=mlx5_0 port=1 counter=out_of_buffer",
  r"out_of_buffer on mlx5_0 port 1 moved by 7 " + S),
]
bad = 0
for rule, sev, subj, ev in want:
    m = [r for r in rows if r["rule"] == rule and r["subject"] == subj]
    if len(m) != 1 or m[0]["severity"] != sev or not re.search(ev, m[0]["evidence"]):
        print(f"  {rule} {subj}: {[(r['severity'], r['evidence']) for r in m]}, want {sev} /{ev}/")
        bad = 1
    elif not m[0]["next"]:
        print(f"  {rule} {subj}: no next step"); bad = 1
if len(rows) != len(want):
    print(f"  {len(rows)} findings opened, want {len(want)}:",
          sorted(set((r['rule'], r['subject']) for r in rows) - set((w[0], w[2]) for w in want)))
    bad = 1
sys.exit(bad)
PY

# ports.csv: the counters, with the increases the trees hold, and their scope
want() {
	grep -q "^[0-9.]*,$1\$" "$tmp/csv/ports.csv" || { echo "  no ports.csv row ...,$1"; fail=1; }
}
want 'mlx5_0,2,eth3,carrier_changes,6,4,netdev'
want 'mlx5_0,2,eth3,rx_corrected_bits_phy,251000,250000,ethtool'
want 'mlx5_0,2,eth3,rx_err_lane_1_phy,200000,200000,ethtool'
want 'mlx5_0,1,eth2,outbound_pci_stalled_wr_events,5,2,ethtool'
want 'mlx5_1,1,eth4,rx_prio3_buf_discard,17,17,ethtool'
want 'mlx5_1,2,eth5,rx_pci_signal_integrity,6,6,ethtool'
grep -q ',rx_crc_errors_phy,' "$tmp/csv/ports.csv" && { echo "  rx_crc_errors_phy should be filtered"; fail=1; }

# The recording read back: the same rules open on the same subjects.
"$ROCETOP" -r "$tmp/rec.rtr" -b --csv "$tmp/csv-r" > "$tmp/r.out" 2>&1 ||
	{ echo "  -r of the recording failed: $(tail -2 "$tmp/r.out")"; fail=1; }
sub() { tail -n +2 "$1" | awk -F, '$2 == "open" { print $3, $7 }' | sort; }
[ "$(sub "$tmp/csv-r/findings.csv" | wc -l)" = 17 ] ||
	{ echo "  the recording read back opens $(sub "$tmp/csv-r/findings.csv" | wc -l) findings, want 17"; fail=1; }
if [ "$(sub "$tmp/csv/findings.csv")" != "$(sub "$tmp/csv-r/findings.csv")" ]; then
	echo "  the recording's findings differ:"; diff <(sub "$tmp/csv/findings.csv") <(sub "$tmp/csv-r/findings.csv")
	fail=1
fi

# Quiet: the counters move, short of every rule.
tmp=$base/quiet
mkdir -p "$tmp"
rt_fixture_run $name "$FIX/t0" "$FIX/quiet" "$tmp/csv/ports.csv" -b -n 3 --interval 1 --csv "$tmp/csv"
[ $rc = 0 ] || { echo "  quiet: rocetop exited with $rc: $(cat "$tmp/err")"; fail=1; }
ip netns del "$FIX_NS"
want 'mlx5_0,1,eth2,tx_prio3_pause,1040,40,ethtool'
want 'mlx5_0,1,eth2,rx_prio3_pause,505,5,ethtool'
want 'mlx5_0,1,eth2,rx_out_of_buffer,22,12,ethtool'
want 'mlx5_0,2,eth3,rx_corrected_bits_phy,100999,99999,ethtool'
want 'mlx5_1,1,eth4,tx_prio3_pause,58,8,ethtool'
n=$(($(wc -l < "$tmp/csv/findings.csv") - 1))
[ "$n" = 0 ] || { echo "  quiet: $n findings: $(tail -n +2 "$tmp/csv/findings.csv")"; fail=1; }

# Prometheus: the counters as rocetop_nic_stat (scope netdev for
# carrier_changes), and the rules' openings, scraped once t1 was read.
tmp=$base/prom
mkdir -p "$tmp"
FIX_NS=rthp${RT_ID}n
rt_netns "$FIX_NS" || { echo "FAIL $name: cannot create a namespace"; exit 1; }
ln -s "$FIX/t0" "$tmp/root"
ip netns exec "$FIX_NS" "$ROCETOP" --sysfs-root "$tmp/root" -i lo -b -n 40 --interval 0.5 \
	--csv "$tmp/csv" --listen 127.0.0.1:9477 > "$tmp/out" 2> "$tmp/err" &
ppid=$!
rt_on_exit "kill $ppid"
rt_wait_rows "$tmp/csv/ports.csv"
ln -sfn "$FIX/t1" "$tmp/root"
for _ in $(seq 100); do grep -q ',eth3,carrier_changes,6,4,netdev$' "$tmp/csv/ports.csv" && break; sleep 0.1; done
ip netns exec "$FIX_NS" curl -sf http://127.0.0.1:9477/metrics > "$tmp/metrics" ||
	{ echo "  no /metrics: $(cat "$tmp/err")"; fail=1; }
kill $ppid; wait $ppid 2>/dev/null
for series in \
	'rocetop_nic_stat_total{device="mlx5_0",port="2",netdev="eth3",counter="carrier_changes",scope="netdev"} 6' \
	'rocetop_nic_stat_total{device="mlx5_0",port="2",netdev="eth3",counter="rx_corrected_bits_phy",scope="ethtool"} 251000' \
	'rocetop_nic_stat_total{device="mlx5_1",port="1",netdev="eth4",counter="rx_prio3_buf_discard",scope="ethtool"} 17' \
	'rocetop_findings_opened_total{rule="slow-receiver"} 1' \
	'rocetop_findings_opened_total{rule="link-flap"} 2' \
	'rocetop_findings_opened_total{rule="buffer-discard"} 3'; do
	grep -qxF "$series" "$tmp/metrics" || { echo "  /metrics lacks: $series"; fail=1; }
done

if [ $fail = 0 ]; then echo "PASS $name"; else echo "FAIL $name: see above"; fi
exit $fail
