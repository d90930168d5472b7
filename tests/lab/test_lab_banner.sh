#!/usr/bin/env bash
# rocetop lab's first line says what ends the run, and the run ends so:
#   --batch -n 3: "after 3 intervals or on Ctrl-C", and 3 intervals printed;
#   --batch --duration 1 --linger 1: "after 1.00 s of traffic and 1.00 s
#     more or on Ctrl-C", and the generator's own line says it sent for 1 s;
#   the view (in tmux) with -n 2: "after 2 intervals or when you press q".
# It never says "until you quit" when something else ends it.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
name=rtb$RT_ID
rt_need_root lab_banner
rt_need_cmd lab_banner tmux
rt_tmpdir tmp
rt_on_exit 'for ns in snd sw rcv; do ip netns del "$name-$ns"; done'
fails=0
pass() { echo "PASS lab_banner $1"; }
fail() { echo "FAIL lab_banner $1: $2"; fails=$((fails + 1)); }
lab=("$ROCETOP" lab --name "$name" --scenario steady --rate 1000 --seed 7)

# banner NAME FILE WANT: the lab's line in FILE ends with WANT.
banner() {
	local got
	got=$(grep -m1 '^rocetop: lab: ' "$2")
	[[ $got == *"; the run ends $3." ]] && pass "$1: '${got#*; the run }'" || fail "$1" "the banner is '$got'"
}

if timeout 60 "${lab[@]}" --batch -n 3 >"$tmp/n.out" 2>"$tmp/n.err"; then
	banner n3 "$tmp/n.err" "after 3 intervals or on Ctrl-C"
	n=$(grep -c '^rocetop [0-9:]*  source' "$tmp/n.out")
	[ "$n" = 3 ] && pass "n3: 3 intervals printed" || fail n3-count "$n intervals printed"
else
	fail n3 "exit $?: $(tail -2 "$tmp/n.err")"
fi

if timeout 60 "${lab[@]}" --batch --duration 1 --linger 1 >"$tmp/d.out" 2>"$tmp/d.err"; then
	banner duration "$tmp/d.err" "after 1.00 s of traffic and 1.00 s more or on Ctrl-C"
	grep -q '^rocetop-gen: steady: .* in 1\.0[0-9] s' "$tmp/d.err" &&
		pass "duration: the generator sent for 1 s ($(grep -o 'in [0-9.]* s' "$tmp/d.err"))" ||
		fail duration-gen "$(grep rocetop-gen "$tmp/d.err")"
else
	fail duration "exit $?: $(tail -2 "$tmp/d.err")"
fi

# The view: its banner goes to standard error, here a file.
S=rtb$RT_ID
rt_tmux lab_banner "$S" 100 30
tmux send-keys -t "$S" "$ROCETOP lab --name $name --scenario steady --rate 1000 -n 2 2>$tmp/v.err; echo RC=\$?" Enter
if rt_wait_for '^RC=0$' 300; then
	banner view "$tmp/v.err" "after 2 intervals or when you press q"
else
	fail view "the view did not end after 2 intervals: $(rt_cap | tail -3)"
	tmux send-keys -t "$S" q
fi
exit $((fails > 0))
