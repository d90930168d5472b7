#!/usr/bin/env bash
# One option table per command (user/lib/cli.h) makes --help, the man pages'
# option lists and the bash completion. Checked here:
# - the committed man pages and completion hold exactly what the tables make
#   (tools/gen-options --check);
# - read each in its own form, --help, the man pages and the completion name
#   the same options with the same letters and arguments as the tables, and
#   no other (check_options.py);
# - each of those checks fails on a copy drifted on purpose;
# - every value a table lists for completion is one the program takes.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
ROCETOP=${ROCETOP:-$PWD/$BUILD/rocetop}
ROCETOP_GEN=${ROCETOP_GEN:-$PWD/$BUILD/rocetop-gen}
HERE=tests/cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "PASS options $1"; }
bad() { echo "FAIL options $1: $2"; fails=$((fails + 1)); }

if out=$(tools/gen-options --build "$BUILD" --check 2>&1); then
	ok "committed man pages and completion are what the tables make"
else
	bad generated "run tools/gen-options: $(echo "$out" | head -20)"
fi
if out=$(python3 $HERE/check_options.py "$ROCETOP" "$ROCETOP_GEN" . 2>&1); then
	ok "--help, man and completion agree with the tables ($(echo "$out" | grep -c '^ok') commands)"
else
	bad agree "$(echo "$out" | grep DRIFT | head -10)"
fi

# drift NAME WHAT FILE SED-SCRIPT: both checks must fail on a copy with FILE
# edited by SED-SCRIPT, and the agreement check must name WHAT.
drift() {
	local name=$1 what=$2 file=$3 script=$4 d=$tmp/$1 out
	mkdir -p "$d" && cp -r man dist README.md "$d"/
	sed -i "$script" "$d/$file"
	cmp -s "$file" "$d/$file" && { bad "drift-$name" "the edit changed nothing"; return; }
	if tools/gen-options --build "$BUILD" --check "$d" >/dev/null 2>&1; then
		bad "drift-$name" "tools/gen-options --check passes a drifted $file"
	elif out=$(python3 $HERE/check_options.py "$ROCETOP" "$ROCETOP_GEN" "$d" 2>&1); then
		bad "drift-$name" "check_options.py passes a drifted $file"
	elif ! grep -q -- "$what" <<<"$out"; then
		bad "drift-$name" "the drift is not named: $(echo "$out" | grep DRIFT | head -3)"
	else
		ok "drift-$name fails both checks: $(grep -m1 DRIFT <<<"$out")"
	fi
}
# an option gone from the man page (its .TP, tag and help line)
drift man-missing "the man page lacks --no-nic" man/rocetop.8 '/^\\fB\\-\\-no\\-nic\\fR$/{N;d}'
# an option the table has not, in the man page of rocetop-gen
drift man-extra "has --bogus" man/rocetop-gen.1 's/^\.\\" END OPTIONS rocetop-gen$/.TP\n\\fB\\-\\-bogus\\fR\nBogus.\n&/'
# an argument renamed in the completion
drift bash-arg "says --interval ('-d', 'S'" dist/rocetop.bash-completion "s/'-d --interval SECONDS'/'-d --interval S'/"
# a letter lost in the man page of a subcommand
drift man-letter "says --json" man/rocetop.8 's/^\\fB\\-\\-json\\fR$/\\fB\\-j\\fR, \\fB\\-\\-json\\fR/'
# a value the completion offers that the table does not list
drift bash-value "lab: the completion says --mirror" dist/rocetop.bash-completion "s/'- --mirror TYPE erspan2 erspan3 vxlan'/'- --mirror TYPE erspan2 vxlan'/"

# Every value a table lists is taken by its command: an option is applied
# when met, so --help or -V after it exits 0 only if the value was good.
values_taken() { # command words..., then reads "long<TAB>values" lines
	local n=0 bads= long values v last
	last=--help
	[ "$*" = rocetop ] && last=-V
	while IFS=$'\t' read -r _ long _ values; do
		for v in $values; do
			n=$((n + 1))
			if [[ $v == *= ]]; then	# a rule's name: known, whatever the value says
				"$@" "$long" "${v}1" "$last" 2>&1 >/dev/null | grep -q 'is not known' && bads+=" $long $v"
			else
				"$@" "$long" "$v" "$last" >/dev/null 2>&1 || bads+=" $long $v"
			fi
		done
	done
	local who="${1##*/}${2:+ $2}"
	[ -z "$bads" ] && ok "$who takes the $n values its table lists" || bad "values $who" "refused:$bads"
}
"$ROCETOP" --dump-options=list | values_taken "$ROCETOP"
"$ROCETOP" lab --dump-options=list | values_taken "$ROCETOP" lab
"$ROCETOP" report --dump-options=list | values_taken "$ROCETOP" report
"$ROCETOP_GEN" --dump-options=list | values_taken "$ROCETOP_GEN"

# --dump-options is no option of the tables: an unknown format is one sentence and exit 2.
"$ROCETOP" --dump-options=nope >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
	ok "--dump-options=nope: exit 2, $(cat "$tmp/err")" || bad dump-format "exit $rc: $(cat "$tmp/err")"
[ $fails -eq 0 ]
