#!/usr/bin/env bash
# rocetop report --tune's PFC-before-ECN rule with the switch's queue depths
# from sFlow: tests/sflow/tune_depth.py builds a capture of RoCE data on
# priority 3, PFC frames pausing it and sFlow datagrams whose samples carry
# an egress queue (1036) and a queue depth (1040), and works out from its own
# plan the episodes and the depths at which pausing and marking began (queue
# 5's and an unqueued sample's depths must not count). report --tune of the
# capture, and of a recording of it (-r ... -w: the switch ports are in
# recordings), must give exactly that one recommendation with that evidence,
# text and JSON alike.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_tmpdir T
fails=0
pass() { echo "PASS sflow_tune $1"; }
fail() { echo "FAIL sflow_tune $1: $2"; fails=$((fails + 1)); }

"$PY" tests/sflow/tune_depth.py "$T/d.pcap" "$T/want.json" || { echo "FAIL sflow_tune: cannot write the capture"; exit 1; }
"$ROCETOP" -r "$T/d.pcap" -w "$T/d.rtr" --batch --no-nic >/dev/null 2>"$T/rec.err" ||
	{ echo "FAIL sflow_tune: -r -w exited non-zero: $(tail -1 "$T/rec.err")"; exit 1; }
for f in d.pcap d.rtr; do
	"$ROCETOP" report "$T/$f" --tune --json >"$T/$f.json" 2>"$T/$f.err" ||
		{ fail "$f" "report --tune --json exited non-zero: $(tail -1 "$T/$f.err")"; continue; }
	"$ROCETOP" report "$T/$f" --tune >"$T/$f.txt" 2>>"$T/$f.err" ||
		{ fail "$f" "report --tune exited non-zero: $(tail -1 "$T/$f.err")"; continue; }
	got=$("$PY" -c 'import json, sys
want = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))["tuning"]
txt = open(sys.argv[3]).read()
rec = ("change", "switch ECN thresholds", "switch, priority 3", "ECN marks after PFC XOFF",
       "Kmin/Kmax below the XOFF threshold", want["evidence"])
got = [tuple(r[k] for k in ("kind", "setting", "scope", "current", "recommended", "evidence")) for r in t]
if got != [rec]:
    print(f"tuning {got}, want [{rec}]")
elif "    evidence: " + want["evidence"] + "\n" not in txt:
    print("the text has no line \"    evidence: " + want["evidence"] + "\"")' "$T/want.json" "$T/$f.json" "$T/$f.txt")
	[ -z "$got" ] && pass "$f: PFC before ECN in $("$PY" -c 'import json,sys; w=json.load(open(sys.argv[1])); print(w["pause_first"], "of", w["episodes"])' "$T/want.json") episodes, the depths at which pausing and marking began" ||
		fail "$f" "$got"
done
exit $((fails > 0))
