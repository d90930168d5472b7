#!/usr/bin/env bash
# rocetop lab --sflow: the modelled switch exports sFlow over UDP inside the
# lab's receiver namespace and rocetop collects it beside rcv0. The estimates
# (flows.csv rows of 10.77.0.254:1), drops.csv and switchports.csv must equal
# what the generator reports sending; the exact rows of rcv0 still equal its
# frame tally, untouched by the estimates. The run is also recorded (-w) and
# replayed (-r --csv): the replay's files must equal the tally too.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_need_root sflow_lab
name=rtsf$RT_ID
rt_tmpdir tmp
# the lab's namespaces, should it stop before removing them itself
rt_on_exit 'for ns in snd sw rcv; do ip netns del "$name-$ns"; done'

fails=0
if ! "$ROCETOP" lab --name "$name" --scenario incast --duration 2 --rate 8000 --seed 3 --sflow \
	--sflow-rate 16 --tally "$tmp/tally" --csv "$tmp/csv" -w "$tmp/run.rtr" -D -d 0.5 --flow-timeout 0 \
	>"$tmp/out" 2>"$tmp/err"; then
	echo "FAIL sflow_lab: rocetop lab --sflow failed: $(tail -3 "$tmp/err")"
	exit 1
fi
"$PY" tests/sflow/compare_sflow.py "sflow_lab" "$tmp/csv" "$tmp/tally" || fails=$((fails + 1))
"$PY" tests/lab/compare_tally.py "sflow_lab exact" "$tmp/csv" "$tmp/tally" rcv0 || fails=$((fails + 1))
# The samples column: empty for the exact rows, a count for the estimates.
if awk -F, 'NR > 1 { if ($2 == "rcv0" && $27 != "") bad++; if ($2 != "rcv0" && $27 !~ /^[0-9]+$/) bad++ }
	END { exit bad > 0 }' "$tmp/csv/flows.csv"; then
	echo "PASS sflow_lab: flows.csv's samples column is empty for exact rows, a count for estimates"
else
	echo "FAIL sflow_lab: flows.csv's samples column"; fails=$((fails + 1))
fi
if "$ROCETOP" -r "$tmp/run.rtr" --csv "$tmp/replay" -D -d 0.5 2>"$tmp/replay.err"; then
	"$PY" tests/sflow/compare_sflow.py "sflow_lab replay" "$tmp/replay" "$tmp/tally" || fails=$((fails + 1))
	if awk -F, 'NR > 1 && $2 != "rcv0" && $27 !~ /^[0-9]+$/ { bad++ } END { exit bad > 0 }' "$tmp/replay/flows.csv"; then
		echo "PASS sflow_lab replay: the estimates are still estimates (samples column) in the replay"
	else
		echo "FAIL sflow_lab replay: estimated rows lost their samples"; fails=$((fails + 1))
	fi
else
	echo "FAIL sflow_lab replay: rocetop -r failed: $(tail -2 "$tmp/replay.err")"; fails=$((fails + 1))
fi
n=$(grep -c "no_buffer_space" "$tmp/csv/drops.csv")
[ "$n" -gt 0 ] || { echo "FAIL sflow_lab: no drop notification in an incast"; fails=$((fails + 1)); }
exit $((fails > 0))
