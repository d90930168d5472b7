#!/usr/bin/env bash
# No function over 100 lines in the C sources of bpf/, user/, tui/, gen/ and
# exporters/ (func_len.py: universal-ctags' extents, generated tables marked,
# an allowlist of those not split yet). First, that the check can fail: a
# made-up tree with a function of 101 lines, one of exactly 100, a marked
# generated table and a stale allowlist line.
. "$(dirname "$0")/../lib.sh"
rt_need_cmd func_len python3
command -v ctags-universal >/dev/null || command -v ctags >/dev/null ||
	rt_skip func_len "universal-ctags is not installed"
here=$(cd "$(dirname "$0")" && pwd)
rt_tmpdir T

# fn NAME N: a function of N lines in all, its signature and braces included.
fn() {	# fn NAME LINES
	local i
	echo "int $1(int x)"
	echo "{"
	for ((i = 0; i < $2 - 3; i++)); do echo "	x += $i;"; done
	echo "}"
}
mkdir -p "$T/user"
{ fn short 100; echo; fn too_long 101; echo; echo "/* func-len: generated */"; fn table 150; } >"$T/user/a.c"
# one_failure NAME ALLOWLIST FAILURE WHAT: the check on the made-up tree with
# this allowlist fails with exactly one line, starting FAILURE.
one_failure() {
	local out rc
	out=$(python3 "$here/func_len.py" --root "$T" --allow "$2" user)
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^$3" <<<"$out" && [ "$(grep -c '^FAIL' <<<"$out")" -eq 1 ]; then
		echo "PASS $1: $4"
	else
		echo "FAIL $1: expected one failure, $3, got rc $rc:"
		echo "$out" | sed 's/^/  /'
	fi
}

: >"$T/empty.txt"
one_failure func_len_fails "$T/empty.txt" "FAIL func_len: user/a.c:too_long is 101 lines" \
	"a function of 101 lines fails the check; one of 100 and a marked table do not"

echo "user/a.c:too_long made up for this test" >"$T/allow.txt"
echo "user/a.c:short not long at all" >>"$T/allow.txt"
one_failure func_len_allow "$T/allow.txt" "FAIL func_len: user/a.c:short is listed" \
	"an allowlisted long function passes; a stale allowlist line fails"

echo "user/a.c:short" >"$T/noreason.txt"
out=$(python3 "$here/func_len.py" --root "$T" --allow "$T/noreason.txt" user)
if [ $? -eq 1 ] && grep -q 'is not "file:function reason"' <<<"$out"; then
	echo "PASS func_len_reason: an allowlist line without its reason fails"
else
	echo "FAIL func_len_reason: an allowlist line without a reason was taken"
fi

# The tree itself.
python3 "$here/func_len.py"
