#!/usr/bin/env bash
# sFlow datagrams with bytes after their announced samples, each from an agent
# not seen before (sflow_trailing.py): their samples are decoded, their agent
# gets its row and each counts as a datagram with errors; datagrams whose
# samples do not fit are still refused. rocetop -r of the capture (one
# interval, --json) against tshark's dissection of it (compare_trailing.py).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_need_cmd sflow_trailing tshark
rt_tmpdir T
"$PY" tests/sflow/sflow_trailing.py "$T/sf.pcap" || { echo "FAIL sflow_trailing: cannot write the capture"; exit 1; }
"$ROCETOP" -r "$T/sf.pcap" -d 60 --no-nic --batch --json >"$T/out.json" 2>"$T/err" ||
	{ echo "FAIL sflow_trailing: -r exited $?: $(cat "$T/err")"; exit 1; }
"$PY" tests/sflow/compare_trailing.py "$T/sf.pcap" "$T/out.json"
