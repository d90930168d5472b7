#!/usr/bin/env bash
# The findings view at 80 columns names each subject in its fewest words
# before the evidence, so the flow or priority a finding is about is on
# screen: a flow as "src>dst qp N", anything else its values, a priority as
# "pN". On the scapy captures of tests/findings/captures.py (storm: a PFC
# storm with a victim flow; incast: 4 senders to one receiver), each
# finding the captures' own list (NAME.want.json) expects must have its row,
# "SEVERITY RULE START END SHORT: evidence", the short form made here from
# that list's subject. No root.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
S=rtf8$RT_ID
rt_tui_need tui_findings80
rt_tmpdir DIR
rt_captures tui_findings80 "$DIR"
rt_tmux tui_findings80 "$S" 80 24

# The rows the list expects, as extended regular expressions, one a line.
want_rows() {
	$PY - "$1" <<'PY'
import json, re, sys
for f in json.load(open(sys.argv[1])):
    s = f["subject"]
    if "src" in s or "dst" in s:
        words = [">".join(s[k] for k in ("src", "dst") if k in s)]
        if "dqpn" in s:
            words.append("qp %d" % s["dqpn"])
    else:
        words = [str(s[k]) for k in ("ifname", "dir") if k in s]
        if "prio" in s:
            words.append("p%d" % s["prio"])
    print("^%-8s %-18s [0-9:]{8} (open    |[0-9:]{8}) %s: " % (f["severity"], f["rule"], re.escape(" ".join(words))))
PY
}

for cap in storm incast; do
	tmux send-keys -t "$S" "clear; $ROCETOP -r $DIR/$cap.pcap -d 1 --speed 50 --link-speed 100G" Enter
	rt_wait_for '\[END\]' || { echo "FAIL tui_findings80_$cap: the capture did not play to its end"; fail=1; continue; }
	tmux send-keys -t "$S" F
	rt_wait_for 'view findings' 20
	n=0 miss=
	while IFS= read -r re; do
		n=$((n + 1))
		rt_cap | grep -qE -- "$re" || miss+=" [$re]"
	done < <(want_rows "$DIR/$cap.want.json")
	if [ -z "$miss" ] && [ $n -gt 0 ]; then
		echo "PASS tui_findings80_$cap: the $n findings' rows at 80 columns name the subject short: $(rt_cap | grep -m1 -E '^(critical|warning) ' | cut -c1-80)"
	else
		echo "FAIL tui_findings80_$cap: rows not found:$miss"
		rt_cap | sed 's/^/    | /'
		fail=1
	fi
	tmux send-keys -t "$S" q
	rt_wait_for '^\$ *$' 30
done
exit $fail
