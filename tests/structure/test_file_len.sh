#!/usr/bin/env bash
# No file over 1,000 lines under bpf/, user/, tui/, exporters/ and gen/
# (file_len.py), but those listed in long_files.txt, each under the ceiling
# of its count when listed. First, that the check can fail: a made-up tree
# with a file of 1,001 lines, one of exactly 1,000, a listed file grown past
# its ceiling and a stale list line.
. "$(dirname "$0")/../lib.sh"
rt_need_cmd file_len python3
here=$(cd "$(dirname "$0")" && pwd)
rt_tmpdir T

lines() { seq 1 "$1" | sed 's/^/x/'; }	# lines N: a file of N lines
mkdir -p "$T/user/sub"
lines 1001 >"$T/user/sub/a.c"
lines 1000 >"$T/user/b.c"
# one_failure NAME ALLOWLIST FAILURE WHAT: the check on the made-up tree with
# this list fails with exactly one line, starting FAILURE.
one_failure() {
	local out rc
	out=$(python3 "$here/file_len.py" --root "$T" --allow "$2" user)
	rc=$?
	if [ $rc -eq 1 ] && grep -qF "$3" <<<"$out" && [ "$(grep -c '^FAIL' <<<"$out")" -eq 1 ]; then
		echo "PASS $1: $4"
	else
		echo "FAIL $1: expected one failure, $3, got rc $rc:"
		echo "$out" | sed 's/^/  /'
	fi
}

: >"$T/empty.txt"
one_failure file_len_fails "$T/empty.txt" "FAIL file_len: user/sub/a.c is 1001 lines (at most 1000)" \
	"a file of 1,001 lines fails the check; one of 1,000 does not"

echo "user/sub/a.c 1000" >"$T/low.txt"
one_failure file_len_ceiling "$T/low.txt" \
	"FAIL file_len: user/sub/a.c is 1001 lines, past its ceiling of 1000" \
	"a listed file grown past its ceiling fails, named with its length"

printf 'user/sub/a.c 1001\nuser/b.c 1000\n' >"$T/stale.txt"
one_failure file_len_stale "$T/stale.txt" "FAIL file_len: user/b.c is listed" \
	"a listed file at its ceiling passes; a list line for a file of 1,000 lines fails"

printf 'user/sub/a.c 1001\nuser/b.c\n' >"$T/nocount.txt"
one_failure file_len_format "$T/nocount.txt" 'is not "file lines"' \
	"a list line without its count fails"

# The tree itself.
python3 "$here/file_len.py"
