#!/usr/bin/env bash
# rocetop report --html and --perfetto on a generator capture, its pcapng
# copy, the lab's pfc-storm and incast recordings (one host each, and the two
# as two hosts; incast with sFlow from the lab's switch), the flight
# recorder's file of the storm, and a day of 1-s intervals:
#   - the report's totals equal the generator's tally (the independent
#     source); headless Chromium, in a network namespace with only lo (no
#     network), opens each page from disk: check_html.py (no console error,
#     no request, the numbers on the page equal report --json, episodes,
#     points, clicks), with screenshots of the lab's pages kept in
#     BUILD/artifacts/report_html; check_trace.py on each trace (the format,
#     counters whose areas are the report's counts and paused seconds);
#   - pages made from a capture named '<img src=x onerror=alert(1)>.pcap',
#     a recording whose --hostname is markup and one whose probed peer's
#     name is: nothing runs (no alert, the page's title kept, no console
#     error, an inline handler refused), the peer's name is text in the
#     probes table, whose rows are report --json's;
#   - report --tune: the lab's incast under a copy of the hwhost tree whose
#     netdev is named "<s>e'2" (markup and a quote), with NP off on 3 and
#     storm prevention off: report --json recommends exactly those two (the
#     planted values), and the page's tuning rows are its tuning array,
#     field by field, as text (check_html.py); the other pages have none;
#   - the day: at most 5 MB of HTML, its one-second spike kept; size and
#     time printed;
#   - '-' writes to standard output (the same bytes as the file), not both;
#     standard input as a file is refused (it cannot be read twice);
#     a bad input: one sentence, non-zero exit, no output left; an output
#     that exists is replaced, a symbolic link or a file being read is not.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
GEN=${ROCETOP_GEN:-$PWD/build/rocetop-gen}
PY=${PYTHON:-/usr/bin/python3}
ART=${ARTIFACTS:-$(dirname "$ROCETOP")/artifacts/report_html}
H=tests/report_html
. tests/lib.sh
rt_need_root report_html
rt_need_cmd report_html chromium chromedriver editcap unshare
$PY -c 'import selenium' 2>/dev/null || rt_skip report_html "python3-selenium is not installed"
rt_tmpdir T
name=rth$RT_ID
rt_on_exit 'for ns in snd sw rcv; do ip netns del "$name-$ns" 2>/dev/null; done'
mkdir -p "$ART"
fails=0
pass() { echo "PASS report_html $1"; }
fail() { echo "FAIL report_html $1: $2"; fails=$((fails + 1)); }
# Run a checker; its lines kept for the end, its FAILs counted (a crash is one).
count() {
	local o rc n
	o=$("$@" 2>&1); rc=$?
	printf '%s\n' "$o" >>"$T/checks.out"
	n=$(printf '%s\n' "$o" | grep -c '^FAIL')
	if [ $rc -ne 0 ] && [ "$n" = 0 ]; then
		printf 'FAIL report_html %s: the checker ended with %d: %s\n' "$2" $rc "$(printf '%s' "$o" | tail -2)" >>"$T/checks.out"
		n=1
	fi
	echo "$n"
}

# The browser with no network: a namespace of its own, lo up, nothing else.
browse() { unshare -n sh -c 'ip link set lo up && exec "$@"' sh "$PY" $H/check_html.py "$@"; }
# page ARGS...: a page for the browser to check, with check_html.py's
# arguments; one browser checks them all at the end (browse --pages).
page() { printf '%q ' "$@" >>"$T/pages"; echo >>"$T/pages"; }

# report --json's totals against the tally: label JSON TALLY_DIR
tally_eq() {
	local out
	out=$($PY - "$2" "$3/summary.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = dict(l.split() for l in open(sys.argv[2]) if len(l.split()) == 2)
got = r["totals"]
want = {"ce": t["frames_data_ce"], "cnp": t["frames_cnp"], "nak_seq": t["frames_nak_seq"],
        "nak_other": t["frames_nak_other"], "rnr_nak": t["frames_rnr_nak"], "pause_frames": t["frames_pfc"],
        "ack": t["frames_ack"], "frames": t["frames_total"]}
bad = {k: (got[k], int(v)) for k, v in want.items() if got[k] != int(v)}
print(bad or "")
PY
)
	[ -z "$out" ] && pass "$1: the report's CE, CNP, NAK, RNR NAK, ACK, pause and frame totals equal the generator's tally" ||
		fail "$1" "report against tally (got, want): $out"
}

# Both outputs and the checks of one set of files: label [--shot PNG] -- FILE...
both() {
	local label=$1 shot=() n
	shift
	[ "$1" = --shot ] && { shot=(--shot "$2"); shift 2; }
	shift
	# --episodes 0: every episode in the JSON, as on the page
	if ! "$ROCETOP" report "$@" --json --episodes 0 >"$T/$label.json" 2>"$T/$label.err" ||
	   ! "$ROCETOP" report "$@" --html "$T/$label.html" --perfetto "$T/$label.trace" >/dev/null 2>"$T/$label.err"; then
		fail "$label" "report failed: $(tail -2 "$T/$label.err")"
		return
	fi
	page "$label" "$T/$label.html" "$T/$label.json" "${shot[@]}"
	n=$(count $PY $H/check_trace.py "$label" "$T/$label.trace" "$T/$label.json")
	fails=$((fails + n))
}

# What only waits runs beside the rest: the lab's two recordings, one
# after the other (each a namespace set named $name), and the day's capture
# (rocetop-gen writing only a file: a moment); their checks come below,
# after a wait.
"$GEN" --scenario mixed --duration 20 --rate 3000 --senders 8 --pcap "$T/m20.pcap" --tally "$T/m20t" -q &
m20_pid=$!
lab() {
	local sc sf child=
	# killed (the test ends early): its rocetop lab goes too
	trap '[ -n "$child" ] && kill $child; exit 1' TERM
	for sc in pfc-storm incast; do
		# incast: the switch's ports drawn too; pfc-storm: its critical finding
		# makes the flight recorder write a file
		sf=(--sflow); [ "$sc" = pfc-storm ] && sf=(--flight-recorder 10s --flight-dir "$T/fl") && mkdir -p "$T/fl"
		"$ROCETOP" lab --name "$name" --scenario "$sc" "${sf[@]}" --duration 4 --rate 4000 --seed 7 \
			--tally "$T/$sc.tally" -w "$T/$sc.rtr" -D -d 0.5 >"$T/$sc.out" 2>"$T/$sc.lab.err" &
		child=$!
		wait $child
		echo $? >"$T/$sc.rc"
	done
}
lab &
lab_pid=$!
rt_on_exit "kill $m20_pid $lab_pid; wait"

# ---- a capture of the generator's mixed scenario, and its pcapng copy ----
"$GEN" --scenario mixed --duration 4 --rate 3000 --pcap "$T/mixed.pcap" --tally "$T/mt" -q 2>"$T/gen.err" ||
	{ fail gen "$(cat "$T/gen.err")"; exit 1; }
both mixed -- "$T/mixed.pcap"
tally_eq mixed "$T/mixed.json" "$T/mt"
editcap -F pcapng "$T/mixed.pcap" "$T/mixedng.pcapng"
both pcapng -- "$T/mixedng.pcapng"
tally_eq pcapng "$T/pcapng.json" "$T/mt"

# ---- hostile names: a capture named as markup, a recording whose host name
# is markup; each page must show them as text (check_html.py: no alert, the
# page's own title, no console error) ----
evil=$T/'<img src=x onerror=alert(1)>.pcap'
cp "$T/mixed.pcap" "$evil"
both evil-file -- "$evil"
# close-secs=1: episodes shorter than the recording, to click
"$ROCETOP" -r "$T/mixed.pcap" -d 0.5 -w "$T/evil-host.rtr" -D --hostname "<img/src='x'/onerror=document.title=1337>" \
	>/dev/null 2>"$T/evil.err" && both evil-host -- "$T/evil-host.rtr" --threshold close-secs=1 ||
	fail evil-host "recording failed: $(tail -2 "$T/evil.err")"
# the probe mesh's rows (test_record --probes: a peer named as markup):
# the probes table, its episodes and the peers' charts, names as text
"${BUILD:-build}/tests/test_record" --probes "$T/probes.rtr" && both probes -- "$T/probes.rtr" ||
	fail probes "test_record --probes could not write the recording"

# ---- the lab's pfc-storm and incast (with sFlow from its switch), recorded
# above (lab) ----
wait $lab_pid
for sc in pfc-storm incast; do
	if [ "$(cat "$T/$sc.rc" 2>/dev/null)" != 0 ]; then
		fail "lab $sc" "rocetop lab failed: $(tail -3 "$T/$sc.lab.err")"
		continue
	fi
	# close-secs=1: episodes of this 4-s run close after 2 quiet intervals
	# of 0.5 s, so some are shorter than the recording, to click
	both "$sc" --shot "$ART/$sc.png" -- "$T/$sc.rtr" --threshold close-secs=1
	tally_eq "$sc" "$T/$sc.json" "$T/$sc.tally"
	cp "$T/$sc.html" "$T/$sc.trace" "$ART/"
done
fl=$(ls "$T"/fl/rocetop-*.rtr 2>/dev/null | head -1)
[ -n "$fl" ] && both flight -- "$fl" --threshold close-secs=1 || fail flight "the flight recorder wrote no file: $(grep -i flight "$T/pfc-storm.lab.err")"
# the two recordings as two hosts on one timeline
[ -f "$T/pfc-storm.rtr" ] && [ -f "$T/incast.rtr" ] && both two-hosts -- "$T/pfc-storm.rtr" "$T/incast.rtr"

# ---- report --tune: settings planted in a copy of the hwhost tree, its netdev named as markup ----
tree=$T/tune-tree
nd="<s>e'2"
cp -a tests/fixtures/hwhost/healthy "$tree"
for dir in dcbnl ethtool-tunable ethtool sys/class/net; do mv "$tree/$dir/eth2" "$tree/$dir/$nd"; done
printf '%s\n' "$nd" >"$tree/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0"
echo 0 >"$tree/sys/class/net/$nd/ecn/roce_np/enable/3"
echo 0 >"$tree/ethtool-tunable/$nd/pfc-prevention-tout"
if "$ROCETOP" lab --name "$name" --scenario incast --duration 3 --rate 2000 --seed 7 -D -d 0.5 --sysfs-root "$tree" \
	-w "$T/tune.rtr" >"$T/tune.out" 2>&1; then
	both tune --shot "$ART/tune.png" -- "$T/tune.rtr" --tune
	got=$($PY -c 'import json,sys
for r in json.load(open(sys.argv[1]))["tuning"]:
    print("|".join(r[k] for k in ("setting","scope","current","recommended")))' "$T/tune.json")
	want="ecn/roce_np/enable|$nd priority 3|0|1
pfc-prevention-tout|$nd|0 (off)|auto"
	[ "$got" = "$want" ] && pass "tune: NP off on 3 and storm prevention off, as planted, named $nd" ||
		fail tune "report --tune says '$got', want '$want'"
	cp "$T/tune.html" "$ART/"
else
	fail tune "rocetop lab failed: $(tail -3 "$T/tune.out")"
fi

# ---- a day of 1-s intervals ----
wait $m20_pid || fail day "rocetop-gen failed"
read -r _ day_ce day_cnp spike < <($PY $H/day.py "$T/m20.pcap" "$T/m20t" "$T/day.pcap" 86400 12 43210 500)
if "$ROCETOP" -r "$T/day.pcap" -d 1 -w "$T/day.rtr" -D 2>"$T/day.err" &&
   "$ROCETOP" report "$T/day.rtr" --json --episodes 0 >"$T/day.json" 2>>"$T/day.err"; then
	TIMEFORMAT='%R %U %S'
	{ time "$ROCETOP" report "$T/day.rtr" --html "$T/day.html" >/dev/null 2>>"$T/day.err"; } 2>"$T/day.time"
	read -r wall user sys <"$T/day.time"
	size=$(stat -c %s "$T/day.html")
	echo "MEASURE report_html: a 24-hour recording of 1-s intervals ($(stat -c %s "$T/day.rtr") bytes):" \
	     "HTML $size bytes in $wall s ($user s user, $sys s system)"
	[ "$size" -le 5000000 ] && pass "day: $size bytes of HTML (at most 5 MB)" || fail day "$size bytes of HTML"
	got=$($PY -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t["ce"], t["cnp"], json.load(open(sys.argv[1]))["intervals"])' "$T/day.json")
	[ "$got" = "$day_ce $day_cnp 86400" ] && pass "day: 86400 intervals, $day_ce CE and $day_cnp CNPs as laid out" ||
		fail day "report says '$got', the file holds '$day_ce $day_cnp 86400'"
	page day "$T/day.html" "$T/day.json" --spike "$spike"
else
	fail day "$(tail -2 "$T/day.err")"
fi

# ---- standard output, bad input, outputs that exist ----
f=$T/mixed.pcap
"$ROCETOP" report "$f" --html - >"$T/stdout.html" 2>/dev/null && cmp -s "$T/stdout.html" "$T/mixed.html" &&
	pass "--html - writes the page to standard output (the same bytes as the file)" ||
	fail stdout "--html - differs from --html FILE"
"$ROCETOP" report "$f" --perfetto - 2>/dev/null | $PY -c 'import json,sys; json.load(sys.stdin)' &&
	pass "--perfetto - writes the trace to standard output" || fail stdout "--perfetto - is not JSON"
"$ROCETOP" report "$f" --html - --perfetto - >/dev/null 2>"$T/e"; rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$T/e")" = 1 ] && pass "--html - --perfetto -: refused in one sentence ($(cat "$T/e"))" ||
	fail both-stdout "rc $rc: $(cat "$T/e")"
"$ROCETOP" report - --html "$T/in.html" <"$f" >/dev/null 2>"$T/e"; rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$T/e")" = 1 ] && [ ! -e "$T/in.html" ] &&
	pass "standard input, which cannot be read twice: refused in one sentence" || fail stdin "rc $rc: $(cat "$T/e")"
head -c 3000 /dev/urandom >"$T/junk.bin"
for bad in "$T/junk.bin" "$T/missing.rtr"; do
	"$ROCETOP" report "$bad" --html "$T/bad.html" --perfetto "$T/bad.json" >/dev/null 2>"$T/e"; rc=$?
	[ $rc -ne 0 ] && [ "$(wc -l <"$T/e")" = 1 ] && [ ! -e "$T/bad.html" ] && [ ! -e "$T/bad.json" ] &&
		pass "bad input $(basename "$bad"): one sentence, exit $rc, no output left ($(cat "$T/e"))" ||
		fail "bad input $(basename "$bad")" "rc $rc, $(wc -l <"$T/e") lines: $(cat "$T/e"); outputs: $(ls "$T"/bad.* 2>/dev/null)"
done
echo old >"$T/old.html"
"$ROCETOP" report "$f" --html "$T/old.html" >/dev/null 2>"$T/e" && cmp -s "$T/old.html" "$T/mixed.html" &&
	grep -q replaced "$T/e" && pass "an existing output is replaced, and said so" || fail replace "$(cat "$T/e")"
echo keep >"$T/target"
ln -s "$T/target" "$T/link.html"
"$ROCETOP" report "$f" --html "$T/link.html" >/dev/null 2>"$T/e"; rc=$?
[ $rc -ne 0 ] && [ "$(cat "$T/target")" = keep ] && grep -q 'symbolic link' "$T/e" &&
	pass "a symbolic link as output: refused, its target untouched" || fail symlink "rc $rc: $(cat "$T/e")"
cp "$f" "$T/copy.pcap"
"$ROCETOP" report "$T/copy.pcap" --perfetto "$T/copy.pcap" >/dev/null 2>"$T/e"; rc=$?
[ $rc -ne 0 ] && cmp -s "$f" "$T/copy.pcap" && pass "the file being read as output: refused ($(cat "$T/e"))" ||
	fail input-output "rc $rc: $(cat "$T/e")"

# ---- every page in one browser
n=$(count browse --pages "$T/pages")
fails=$((fails + n))

grep '^PASS\|^FAIL' "$T/checks.out"
echo "report_html: screenshots and pages in $ART"
exit $((fails > 0))
