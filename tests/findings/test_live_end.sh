#!/usr/bin/env bash
# A live run that ends while episodes are open closes them, as a replay of its
# recording does at the end of the file: the lab's incast for 4 s, watched 1 s
# more (less than the 10 s quiet in which an episode closes), with --csv, -w
# and --batch. Its findings.csv must close every episode it opened, each at
# the end of the last interval it matched, with its peak's evidence; --batch
# must print those closes in an "end of run" block; and `-r` of the recording
# must write the same close rows (every column but the time of writing). The
# episodes' subjects are the generator's: the incast towards the tally's one
# receiver, the congestion findings on its CE-marked data flows.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
name=live_end
rt_need_root $name "needs root for namespaces and BPF"
[ -x "$ROCETOP" ] || { echo "FAIL $name: $ROCETOP not built"; exit 1; }
rt_tmpdir T
lab=rtle$RT_ID
rt_on_exit "for n in snd sw rcv; do ip netns del $lab-\$n 2>/dev/null; done; true"
timeout 120 "$ROCETOP" lab --name "$lab" --scenario incast --duration 4 --linger 1 --rate 4000 --seed 3 \
	-d 0.5 -b -w "$T/run.rtr" --csv "$T/live" --tally "$T/tally" >"$T/batch.txt" 2>"$T/err"
rc=$?
[ $rc = 0 ] || { echo "FAIL $name: the lab exited $rc: $(tail -2 "$T/err")"; exit 1; }
"$ROCETOP" -r "$T/run.rtr" --csv "$T/replay" -q >/dev/null 2>"$T/rerr" ||
	{ echo "FAIL $name: -r of the recording: $(head -2 "$T/rerr")"; exit 1; }
"$PY" - "$T" <<'PYEOF'
import os
import sys

sys.path.insert(0, os.path.join("tests", "lib"))
from rtlib.check import Checker  # noqa: E402
from rtlib.outputs import rows  # noqa: E402

t = sys.argv[1]
c = Checker(prefix="live_end: ")
live = rows(os.path.join(t, "live", "findings.csv"))
replay = rows(os.path.join(t, "replay", "findings.csv"))
key = lambda r: (r["rule"], r["subject"], r["start"])  # noqa: E731
opened = sorted(key(r) for r in live if r["event"] == "open")
closed = sorted(key(r) for r in live if r["event"] == "close")
c.check("findings.csv of the live run closes each of the %d episodes it opened, once" % len(opened),
        closed, opened)
c.check("each close ends at or after its start, at the end of an interval",
        [k for k in live if k["event"] == "close" and not float(k["end"]) >= float(k["start"])], [])
strip = lambda rs: sorted(tuple(sorted((k, v) for k, v in r.items() if k != "time")) for r in rs  # noqa: E731
                          if r["event"] == "close")
c.check("-r of the recording writes the same close rows (rule, subject, start, end, evidence, next, involved)",
        strip(replay), strip(live))
data = [r for r in rows(os.path.join(t, "tally", "flows.csv")) if r["side"] == "data"]
dsts = sorted({r["dst"] for r in data})
marked = {"src=%s dst=%s dqpn=%s" % (r["src"], r["dst"], r["dqpn"]) for r in data if int(r["ce"])}
inc = sorted(r["subject"] for r in live if r["event"] == "close" and r["rule"] == "incast")
c.check("the incast's episode is towards the tally's receiver", inc, ["dst=" + d for d in dsts])
cong = {" ".join(r["subject"].split()[2:]) for r in live if r["event"] == "close" and r["rule"] == "congestion"}
c.check("the congestion episodes are on the tally's CE-marked data flows (%d of %d)" % (len(cong), len(marked)),
        bool(cong) and cong <= marked, True)
c.done()
PYEOF
py=$?
n=$(awk '/  end of run$/ { e = 1 } e && /^  close / { n++ } END { print n + 0 }' "$T/batch.txt")
want=$(awk -F, '$2 == "close"' "$T/live/findings.csv" | wc -l)
if [ "$n" -gt 0 ] && [ "$n" = "$want" ]; then
	echo "PASS $name: --batch prints the $n closes in an 'end of run' block"
else
	echo "FAIL $name: --batch's 'end of run' block has $n closes, findings.csv $want"
	py=1
fi
exit $py
