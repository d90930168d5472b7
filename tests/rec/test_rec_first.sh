#!/usr/bin/env bash
# A replay rates its first interval as the live run did. A live run rates its
# first snapshot over the time since its programs attached (it counts from
# then), which is not the gap to its second snapshot when the first came late
# (a busy host: here rocetop is stopped with SIGSTOP for 0.7 s from 0.2 s
# after it attached, so its first snapshot comes at least 0.9 s after the
# attach, and the second on the timer's next tick, less than -d after it when
# the timer was armed before the stop, -d after it when it was armed later on
# a loaded host). The live run's first interval is then the time from the
# attach (as this script saw it) to the first snapshot; the recording carries
# the length each interval was rated over, so `-r --json` must give the first
# interval that length, as the live run's --json did, not the gap to the
# second snapshot; and the later intervals the gaps between their snapshots'
# times.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
name=rec_first
A=rtf${RT_ID}a B=rtf${RT_ID}b IFA=rtf${RT_ID}x IFB=rtf${RT_ID}y
rt_need_root $name "needs root for namespaces and BPF"
rt_tmpdir T
rt_netns "$A" "$B" && rt_veth "$A" "$IFA" "$B" "$IFB" || { echo "FAIL $name: cannot build the namespaces"; exit 1; }
# stopped_run AFTER OUT ERR ARGS...: a live run of rocetop -d 0.5 ARGS
# (stdout to OUT), stopped with SIGSTOP for 0.7 s from AFTER seconds after it
# attached, or (AFTER "line") from when its first line shows in OUT; exits
# the test if the run fails.
stopped_run() {
	local after=$1 out=$2 err=$3 pid
	shift 3
	ip netns exec "$B" "$ROCETOP" -i "$IFB" -d 0.5 "$@" >"$out" 2>"$err" &
	pid=$!
	# a test that dies while rocetop is stopped leaves no process behind
	rt_on_exit "kill -CONT $pid 2>/dev/null; kill $pid 2>/dev/null; true"
	for _ in $(seq 100); do ip -n "$B" link show "$IFB" | grep -q xdp && break; sleep 0.05; done
	date +%s.%N >"$out.attached"
	if [ "$after" = line ]; then
		rt_wait_until "$pid" 200 test -s "$out"
	else
		sleep "$after"
	fi
	kill -STOP $pid
	sleep 0.7
	kill -CONT $pid
	wait $pid || { echo "FAIL $name: the live run exited $?: $(tail -2 "$err")"; exit 1; }
}
# stopped 0.2 s after it attached, across the first tick
stopped_run 0.2 "$T/live.json" "$T/err" -n 4 --json -w "$T/run.rtr"
"$ROCETOP" -r "$T/run.rtr" --json >"$T/replay.json" 2>"$T/rerr" ||
	{ echo "FAIL $name: -r of the recording: $(head -2 "$T/rerr")"; exit 1; }
"$PY" - "$T" <<'PYEOF'
import json
import os
import sys

sys.path.insert(0, os.path.join("tests", "lib"))
from rtlib.check import Checker  # noqa: E402

t = sys.argv[1]
c = Checker(prefix="rec_first: ")
load = lambda f: [json.loads(x) for x in open(os.path.join(t, f)) if x.strip()]  # noqa: E731
live, replay = load("live.json"), load("replay.json")
c.check("the live run made 4 intervals", len(live), 4)
gap = live[1]["time"] - live[0]["time"] if len(live) > 1 else 0
# attached: when this script saw the XDP program, at most a poll (0.05 s)
# and an ip command after rocetop began counting
attached = float(open(os.path.join(t, "live.json.attached")).read())
since = live[0]["time"] - attached if live else 0
first = live[0]["interval"] if live else 0
c.check("the live run rated its first interval over the time since it attached (%.3f s seen; -d 0.5)" % since,
        0.5 < since <= first <= since + 0.3, True)
c.check("the first snapshot came late: its interval (%.3f s) is not the gap to the second (%.3f s)" % (first, gap),
        gap > 0 and first - gap > 0.3, True)
c.check("-r rates the first interval as the live run did (%.3f s, not the %.3f s gap)" % (first, gap),
        abs((replay[0]["interval"] if replay else 0) - first) < 1e-6, True)
c.check("-r rates every later interval as the live run did (the gaps between their snapshots)",
        [r["interval"] for r in replay[1:]], [r["interval"] for r in live[1:]])
c.done()
PYEOF
[ $? -eq 0 ] || exit 1

# The report's drawing (--perfetto) starts where the report does: a run whose
# second snapshot came late (stopped across its second tick, from its first
# line on: the gap to the second longer than -d) drew its first interval from
# the second's gap, from before the report's start
# (tests/report_html/check_trace.py's time range).
stopped_run line "$T/late.live.json" "$T/err2" -n 3 --json -w "$T/late.rtr"
"$ROCETOP" report "$T/late.rtr" --json >"$T/late.json" 2>"$T/rerr2" &&
	"$ROCETOP" report "$T/late.rtr" --perfetto "$T/late.trace" >/dev/null 2>>"$T/rerr2" ||
	{ echo "FAIL $name: report of the second recording: $(head -2 "$T/rerr2")"; exit 1; }
"$PY" - "$T/late.live.json" <<'PYEOF' || exit 1
import json, os, sys
sys.path.insert(0, os.path.join("tests", "lib"))
from rtlib.check import Checker  # noqa: E402
c = Checker(prefix="rec_first: ")
live = [json.loads(x) for x in open(sys.argv[1]) if x.strip()]
c.check("the second live run made 3 intervals", len(live), 3)
gap = live[1]["time"] - live[0]["time"] if len(live) > 1 else 0
c.check("its second snapshot came late, more than -d after the first (%.3f s)" % gap, gap > 0.6, True)
c.done()
PYEOF
"$PY" tests/report_html/check_trace.py "$name late" "$T/late.trace" "$T/late.json" | grep -E '^(PASS|FAIL) '
