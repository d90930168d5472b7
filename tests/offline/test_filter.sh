#!/usr/bin/env bash
# The filter language on every output that prints flows (user/core/filter.c):
# -r --csv, --batch --json and report --filter keep exactly the flows an
# expression names, with the counts scapy's tally gives for them
# (filter_check.py); findings follow their flows; an expression that does not
# parse, or that no output asked for applies to, is refused in one sentence
# with exit status 2.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_scapy_start filter scapy.contrib.roce
fails=0
"$PY" tests/offline/filter_check.py gen "$T/f.pcap" "$T/tally.json" || { echo "FAIL filter: scapy could not write the capture"; exit 1; }

run() {	# NAME EXPR KEYS...: --csv with --filter EXPR holds the flows KEYS
	local name=$1 expr=$2
	shift 2
	rm -rf "$T/$name"
	"$ROCETOP" -r "$T/f.pcap" -d 1 --csv "$T/$name" --filter "$expr" >/dev/null 2>"$T/err" ||
		{ echo "FAIL filter_$name: exit $?: $(cat "$T/err")"; fails=$((fails + 1)); return; }
	"$PY" tests/offline/filter_check.py "$name" "$T/$name" "$T/tally.json" "$@" || fails=$((fails + 1))
}
run csv_src 'src 10.9.0.1' A
run csv_host_not 'host 10.9.0.4 and not src 10.9.0.4' B
run csv_nak 'nak' C
run csv_or_paren '(qp 515 or qp 0x101) and prio 3' A C
run csv_prefix 'host 10.9.0.0/30' A B C
run csv_word '10.9.0.3' B C
# ce judges each interval: every row kept has CE, and together all of A's
"$ROCETOP" -r "$T/f.pcap" -d 1 --csv "$T/ce" --filter ce >/dev/null 2>&1
"$PY" - "$T/ce/flows.csv" "$T/tally.json" <<'PYEOF' || fails=$((fails + 1))
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ce = sum(int(r["ce"]) for r in rows)
want = json.load(open(sys.argv[2]))["A"]["ce"]
ok = rows and all(int(r["ce"]) > 0 and r["src"] == "10.9.0.1" for r in rows) and ce == want
print(("PASS" if ok else "FAIL") + f" filter_csv_ce: {len(rows)} rows, each with CE, of 10.9.0.1; CE {ce} (scapy {want})")
sys.exit(0 if ok else 1)
PYEOF
# findings.csv: the loss finding (flow C) only when the filter keeps C
if grep -q ',loss,' "$T/csv_src/findings.csv" || ! grep -q ',loss,' "$T/csv_nak/findings.csv"; then
	echo "FAIL filter_findings_csv: loss under 'src 10.9.0.1' or not under 'nak'"; fails=$((fails + 1))
else
	echo "PASS filter_findings_csv: loss only where its flow is kept"
fi
# --batch --json (before: --filter was ignored with --batch)
"$ROCETOP" -r "$T/f.pcap" -d 1 --batch --json --filter 'qp 514' >"$T/b.jsonl" 2>"$T/err" || { echo "FAIL filter_json: exit $?"; fails=$((fails + 1)); }
"$PY" tests/offline/filter_check.py json_qp "$T/b.jsonl" "$T/tally.json" B || fails=$((fails + 1))
# report: totals, host pairs, findings
"$ROCETOP" report "$T/f.pcap" -d 1 --json --filter 'src 10.9.0.1' >"$T/r1.json" 2>"$T/err" || { echo "FAIL filter_report: exit $?: $(cat "$T/err")"; fails=$((fails + 1)); }
"$PY" tests/offline/filter_check.py report_src "$T/r1.json" "$T/tally.json" A || fails=$((fails + 1))
"$ROCETOP" report "$T/f.pcap" -d 1 --json --filter 'host 10.9.0.4' >"$T/r2.json" 2>"$T/err" || { echo "FAIL filter_report: exit $?"; fails=$((fails + 1)); }
"$PY" tests/offline/filter_check.py report_host "$T/r2.json" "$T/tally.json" B C || fails=$((fails + 1))
"$PY" - "$T/r1.json" "$T/r2.json" <<'PYEOF' || fails=$((fails + 1))
import json, sys
f1 = [f["rule"] for f in json.load(open(sys.argv[1]))["findings"]]
f2 = [(f["rule"], f["subject"].get("src")) for f in json.load(open(sys.argv[2]))["findings"]]
ok = f1 == [] and f2 == [("loss", "10.9.0.4")]
print(("PASS" if ok else "FAIL") + f" filter_report_findings: src 10.9.0.1 {f1}, host 10.9.0.4 {f2}")
sys.exit(0 if ok else 1)
PYEOF

refused() {	# NAME WANT CMD...: exit 2, and stderr is the one sentence WANT
	local name=$1 want=$2 rc
	shift 2
	"$@" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(cat "$T/err")" = "$want" ]; then
		echo "PASS filter_refused_$name"
	else
		echo "FAIL filter_refused_$name: exit $rc, said: $(cat "$T/err")"
		fails=$((fails + 1))
	fi
}
refused no_addr "rocetop: --filter: the filter's 'src' needs an address (10.0.0.1, fd00::1, 10.0.0.0/24) after it." \
	"$ROCETOP" -r "$T/f.pcap" --batch --filter src
refused paren "rocetop: --filter: the filter has a '(' without its ')'." \
	"$ROCETOP" -r "$T/f.pcap" --csv "$T/x" --filter '(ce or cnp'
refused no_output "rocetop: --filter selects the flows of the view, --batch, --json and --csv, and -D leaves none of them (-w, --listen, --ipfix and the flight recorder keep every flow): add --csv DIR or drop --filter." \
	"$ROCETOP" -r "$T/f.pcap" -D -w "$T/x.rtr" --filter ce
refused report_parse "rocetop: --filter: the filter's 'prio 9' is not a number from 0 to 7." \
	"$ROCETOP" report "$T/f.pcap" --filter 'prio 9'
refused report_html "rocetop: --filter applies to the report's text and JSON, and --html draws every flow: drop one of them." \
	"$ROCETOP" report "$T/f.pcap" --filter ce --html "$T/x.html"
[ ! -e "$T/x" ] && [ ! -e "$T/x.rtr" ] && [ ! -e "$T/x.html" ] && echo "PASS filter_refused_nothing_written" ||
	{ echo "FAIL filter_refused_nothing_written: a refused run left a file"; fails=$((fails + 1)); }
exit $((fails > 0))
