#!/usr/bin/env bash
# Untrusted text in the live view: no string from a file reaches the
# terminal raw. The recording (test_record --hostile) carries, in every string
# the view shows (source, interface, note, comm, NIC device, netdev and counter,
# sFlow agent and switch port, and the findings built from them), an OSC title
# set ESC ] 0 ; TAG BEL, a clear screen ESC [ 2 J, a C1 CSI in UTF-8 (C2 9B),
# a bare 0x9B and an invalid UTF-8 byte 0xFF. The view runs under `script`,
# which keeps every byte the program wrote; the oracle is those payloads:
#   - none of ESC ], ESC [ 2 J, BEL, C2, 9B or FF is in the bytes written
#     (curses itself sends none of them for TERM=screen: its clear is ESC [ J);
#   - each tag shows on the screen (tmux capture-pane) in the escaper's form,
#     every control or 8-bit byte a '?', e.g. "?]0;PWNED??[2JSRC????".
# And the source has one way to the screen: tui/*.c calls curses' text output
# in exactly two places, put() (through rt_fmt_safe) and put_glyphs() (the
# sparkline's own characters).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
BUILD=$(dirname "$ROCETOP")
S=rtue$RT_ID
rt_tui_need tui_escape script
[ -x "$BUILD/tests/test_record" ] || skip "$BUILD/tests/test_record is not built"
rt_tmpdir DIR
rt_on_exit 'tmux kill-session -t "$S"'

pass() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; fail=1; }

# The one drawing path, from the source.
calls=$(grep -nE '\b(mv)?w?(addn?str|addch|addnwstr|addwstr|add_wch|printw|vw_printw|echochar|insn?str)\b' tui/*.c |
	grep -v '^\s*//' | wc -l)
if [ "$calls" = 2 ] && grep -q 'mvaddnstr(y, x, rt_fmt_safe(s, safe, sizeof(safe)), COLS - x);' tui/tui_paint.c; then
	pass tui_one_drawing_path
else
	bad tui_one_drawing_path "expected 2 curses text calls (put, put_glyphs), found $calls:"
	grep -nE '\b(mv)?w?(addn?str|addch|printw)\b' tui/*.c | sed 's/^/    | /'
fi

"$BUILD/tests/test_record" --hostile "$DIR/h.rtr" || skip "cannot write the recording"

cap() { tmux capture-pane -p -t "$S"; }
wait_for() {
	for _ in $(seq 100); do
		cap | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
# shows NAME KEY TEXT...: after KEY, each TEXT is on the screen
shows() {
	local name=$1 key=$2 t miss=
	shift 2
	[ -n "$key" ] && tmux send-keys -t "$S" "$key"
	for t in "$@"; do wait_for "$t" || miss="$miss '$t'"; done
	if [ -z "$miss" ]; then
		pass "$name"
	else
		bad "$name" "not on the screen:$miss"
		cap | grep -v '^ *$' | head -16 | sed 's/^/    | /'
	fi
}

tmux new-session -d -s "$S" -x 160 -y 40 "env LANG=C.UTF-8 LC_ALL=C.UTF-8 PS1='$ ' TERM=screen bash --norc --noprofile" ||
	skip "tmux cannot start a session"
tmux send-keys -t "$S" "script -q -c '$ROCETOP -r $DIR/h.rtr -d 1' $DIR/raw.out; echo RC=\$?" Enter
wait_for '[END]' || { bad tui_escape_start "the view did not reach the end of the recording"; cap; exit 1; }

shows tui_escape_header_source "" '?]0;PWNED??[2JSRC????' 'note: ?]0;NOTE??[2J note ???' \
	'device=?]0;DEV??? port=1'
shows tui_escape_flows 1 '?]0;SWP??[2J:7' '?]0;IFN??' '?]0;COMM??/77'
shows tui_escape_pfc 3 '?]0;IFN??    in   3'
shows tui_escape_nic 4 '?]0;DEV?  1 ?]0;NDV?' 'np_?]0;CTR??'
shows tui_escape_switch_ports 5 '?]0;SWP??[2J:7' 'agent ?]0;AGT??: 10 datagrams'
shows tui_escape_findings 6 'agent=?]0;AGT?? port=7' 'ifname=?]0;IFN?? dir=ingress' 'on ?]0;NDV? moved'
tmux send-keys -t "$S" 1
wait_for 'view flows' >/dev/null
# the selection starts on the first row (the sFlow flow, sorted first): its detail
shows tui_escape_detail Enter 'owner ?]0;COMM?? pid 77' 'ingress on ?]0;SWP??[2J:7'
tmux send-keys -t "$S" q
wait_for 'RC=0' && pass tui_escape_quit || bad tui_escape_quit "no RC=0 after q"

out=$($PY - "$DIR/raw.out" <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
bad = [(name, b.count(p)) for name, p in (("ESC ]", b"\x1b]"), ("ESC [ 2 J", b"\x1b[2J"), ("BEL", b"\x07"),
                                          ("C2", b"\xc2"), ("9B", b"\x9b"), ("FF", b"\xff"))]
print(len(b), " ".join("%s:%d" % x for x in bad if x[1]) or "none")
EOF
)
case "$out" in
[1-9]*" none") pass tui_escape_no_raw_controls ;;
*) bad tui_escape_no_raw_controls "bytes written, payload sequences found: $out" ;;
esac
exit $fail
