#!/usr/bin/env bash
# rocetop report on a recording of the NIC's counters: record live on lo with
# --sysfs-root on the mlx5 fixture, move the tree from t0 to t1 between
# intervals, then `report --json` must give every counter of mlx5_0 port 1 the
# total the fixture files imply (t1 - t0; a 32-bit wrap for the classic IB
# counters of counters/), congestion counters flagged.
set -u
cd "$(dirname "$0")/../.."
name=nic_report
. tests/lib.sh
rt_fixture_start $name
rt_fixture_run $name "$FIX/t0" "$FIX/t1" "$tmp/csv/ports.csv" -D -n 3 -d 0.4 -w "$tmp/rec.rtr" --csv "$tmp/csv"
[ $rc = 0 ] || { echo "FAIL $name: recording failed: $(cat "$tmp/err")"; exit 1; }
"$ROCETOP" report "$tmp/rec.rtr" --json --top 0 >"$tmp/rep.json" 2>"$tmp/rep.err" ||
	{ echo "FAIL $name: report failed: $(cat "$tmp/rep.err")"; exit 1; }
"$PY" - "$tmp/rep.json" "$FIX" <<'PY'
import json, os, sys
rep, fix = json.load(open(sys.argv[1])), sys.argv[2]
got = {(n["scope"], n["counter"]): n for n in rep["nic"] if n["device"] == "mlx5_0" and n["port"] == 1}
bad = []
CONG = {"np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored", "out_of_sequence",
        "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err", "rnr_nak_retry_err", "roce_adp_retrans"}
checked = 0
for sub, scope in (("hw_counters", "hw_counters"), ("counters", "counters")):
    d0 = f"{fix}/t0/sys/class/infiniband/mlx5_0/ports/1/{sub}"
    d1 = f"{fix}/t1/sys/class/infiniband/mlx5_0/ports/1/{sub}"
    for c in sorted(set(os.listdir(d0)) & set(os.listdir(d1))):
        try:
            a, b = int(open(f"{d0}/{c}").read()), int(open(f"{d1}/{c}").read())
        except ValueError:
            continue
        if b >= a:
            want = b - a
        elif sub == "counters" and a < 2**32 and a - b > 2**31:
            want = 2**32 - a + b       # a 32-bit counter wrapped
        else:
            want = b                   # reset
        have = got.get((scope, c), {}).get("delta", 0)
        checked += 1
        if have != want:
            bad.append(f"{sub}/{c}: report {have}, fixture {want}")
        if c in CONG and want and not got[(scope, c)]["congestion"]:
            bad.append(f"{c} not flagged as congestion")
if "port_xmit_data" not in {c for _, c in got} or checked < 20:
    bad.append(f"only {checked} counters checked, port_xmit_data {'present' if ('counters', 'port_xmit_data') in got else 'missing'}")
print(("FAIL nic_report: " + "; ".join(bad)) if bad else
      f"PASS nic_report: {checked} counters of mlx5_0 port 1 total as the fixture files say (np_cnp_sent {got[('hw_counters', 'np_cnp_sent')]['delta']}, 32-bit wrap port_xmit_data {got[('counters', 'port_xmit_data')]['delta']})")
sys.exit(1 if bad else 0)
PY
