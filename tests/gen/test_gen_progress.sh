#!/usr/bin/env bash
# rocetop-gen's progress on stderr (its --help): once a second, whole lines
# with -v; nothing when stderr is not a terminal and -v is not given; a line
# rewritten in place (\r) on a terminal (script(1) gives it one). The counts
# grow and stay within the tally's frames_total and bytes_total.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_need_cmd progress script
rt_tmpdir T
fails=0
ok() { if [ -z "$2" ]; then echo "PASS gen_progress $1: $3"; else echo "FAIL gen_progress $1: $2"; fails=$((fails + 1)); fi; }

"$GEN" --scenario steady --duration 3.5 --rate 2000 --pcap "$T/v.pcap" --tally "$T/tv" -v 2>"$T/v.err" ||
	ok lines "rocetop-gen -v exited $?: $(tail -1 "$T/v.err")" ""
ok lines "$("$PY" - "$T/v.err" "$T/tv/summary.txt" <<'PYEOF' 2>&1
import re, sys
lines = [l for l in open(sys.argv[1]) if "frames, " in l and " s of 3.5 s" in l]
tally = dict(l.split(None, 1) for l in open(sys.argv[2]) if " " in l)
got = [tuple(map(int, re.search(r": (\d+) s of 3.5 s, (\d+) frames, (\d+) bytes$", l.rstrip()).groups())) for l in lines]
secs = [g[0] for g in got]
if secs != [1, 2, 3] or any(b[1] <= a[1] or b[2] <= a[2] for a, b in zip(got, got[1:])) or \
   got[-1][1] > int(tally["frames_total"]) or got[-1][2] > int(tally["bytes_total"]):
    print("progress %s; tally %s frames, %s bytes" % (got, tally["frames_total"].strip(), tally["bytes_total"].strip()))
PYEOF
)" "-v: a line at 1, 2 and 3 s of 3.5 s, the counts growing, within the tally's totals"

"$GEN" --scenario steady --duration 1.5 --rate 2000 --pcap "$T/n.pcap" 2>"$T/n.err"
ok quiet_file "$(grep -c ' s of ' "$T/n.err" | grep -v '^0$' | sed 's/^/progress lines without -v into a file: /')" \
	"stderr a file, no -v: the summary only, no progress"

script -q -c "$GEN --scenario steady --duration 2.5 --rate 2000 --pcap $T/t.pcap" /dev/null >"$T/tty.out" 2>&1
n=$(grep -o $'\r''rocetop-gen: [0-9] s of 2.5 s' "$T/tty.out" | wc -l)
ok tty "$([ "$n" = 2 ] || echo "$n progress updates on a terminal, expected 2 (1 s, 2 s)")" \
	"on a terminal: 2 updates rewritten in place (\\r), no -v needed"
exit $((fails > 0))
