#!/usr/bin/env bash
# bash completion, installed by 'make install' where bash-completion finds it,
# driven as bash does it (COMP_WORDS, COMP_CWORD, the function 'complete -p'
# names). Oracles: rocetop --help (every long option), the binary itself (each
# choice offered is accepted), interfaces and files the test creates.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
ROCETOP=${ROCETOP:-$PWD/$BUILD/rocetop}
tmp=$(mktemp -d)
ns=rtc$$
cleanup() { ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
ok() { echo "PASS completion $1"; }
bad() { echo "FAIL completion $1: $2"; fails=$((fails + 1)); }
if [ ! -r /usr/share/bash-completion/bash_completion ]; then
	echo "SKIP completion: the bash-completion package is not installed (make deps)"; exit 0
fi

# make install puts it where bash-completion's loader looks under PREFIX.
make -s install DESTDIR="$tmp/root" PREFIX=/usr/local BUILD="$BUILD" >"$tmp/install.log" 2>&1 ||
	{ bad install "make install failed: $(tail -2 "$tmp/install.log")"; exit 1; }
comp=$tmp/root/usr/local/share/bash-completion/completions
[ -f "$comp/rocetop" ] && [ "$(readlink "$comp/rocetop-gen")" = rocetop ] && ok "installed by make install" ||
	bad installed "no $comp/rocetop (or rocetop-gen link)"

# complete WORD... : what bash would offer for the last word, one per line,
# sorted, after loading the completion the way bash-completion does.
complete_words() {
	XDG_DATA_DIRS=$tmp/root/usr/local/share PATH=$tmp/root/usr/local/bin:$PATH bash -c '
		source /usr/share/bash-completion/bash_completion
		_completion_loader "$1"
		spec=$(complete -p "$1") || exit 3
		fn=${spec#*-F }; fn=${fn%% *}
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort' complete "$@"
}

spec=$(XDG_DATA_DIRS=$tmp/root/usr/local/share bash -c \
	'source /usr/share/bash-completion/bash_completion; _completion_loader rocetop; complete -p rocetop')
[ "$spec" = "complete -F _rocetop rocetop" ] && ok "loaded on demand: $spec" || bad load "complete -p says '$spec'"

# Every long option --help describes (its lines that start with an option),
# and nothing else that starts with --.
want=$("$ROCETOP" --help | grep -E '^ +-' | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
got=$(complete_words rocetop -- | grep -- '^--')
[ "$want" = "$got" ] && ok "long options are those of rocetop --help ($(echo "$got" | wc -l))" ||
	bad options "differ from --help: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
want=$( ("$ROCETOP" report --help | grep -o -- '--[a-z][a-z0-9-]*'; echo --help) | sort -u)
got=$(complete_words rocetop report run.rtr -- | grep -- '^--')
[ "$want" = "$got" ] && ok "report's long options are those of rocetop report --help" ||
	bad report "differ: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
want=$("$ROCETOP" lab --help | sed -n '/^Lab options/,/^$/p' | grep -o -- '^  --[a-z][a-z0-9-]*' | tr -d ' ' | sort -u)
got=$(complete_words rocetop lab --s | grep -- '^--s')
exp=$( (echo "$want"; "$ROCETOP" --help | grep -E '^ +-' | grep -o -- '--[a-z][a-z0-9-]*') | grep -- '^--s' | sort -u)
[ "$exp" = "$got" ] && ok "lab offers its own options and rocetop's (--s: $(echo $got))" ||
	bad lab "--s offers '$(echo $got)', expected '$(echo $exp)'"

# Subcommands.
got=$(complete_words rocetop "" | tr '\n' ' ')
[ "$got" = "doctor lab probe report " ] && ok "subcommands: $got" || bad subcommands "'$got'"
# probe's own options, from its table.
got=$(complete_words rocetop probe --probe-s | tr '\n' ' ')
[ "$got" = "--probe-sizes " ] && ok "probe options: $got" || bad probe_options "'$got'"

# Fixed choices: exactly these, and the binary accepts each one.
got=$(complete_words rocetop --xdp-mode "" | tr '\n' ' ')
[ "$got" = "auto generic native " ] && ok "--xdp-mode offers $got" || bad xdp-mode "'$got'"
for m in $got; do
	"$ROCETOP" --xdp-mode "$m" -V >/dev/null 2>&1 || bad xdp-mode "rocetop refuses --xdp-mode $m"
done
got=$(complete_words rocetop lab --scenario "" | tr '\n' ' ')
[ "$got" = "incast mixed pause-origin pfc-storm rp-cuts steady " ] && ok "lab --scenario offers $got" || bad scenario "'$got'"
for s in $got; do
	"$ROCETOP" lab --scenario "$s" --help >/dev/null 2>&1 || bad scenario "rocetop lab refuses --scenario $s"
done
# --sort: the columns the man page lists for --sort.
want=$(sed -n '/^\.BI \\-\\-sort/,/^\.TP/p' man/rocetop.8 | tr '\n' ' ' | sed 's/.*Columns://; s/(the default)//' |
	tr ',.' '  ' | tr ' ' '\n' | grep -E '^[a-z][a-z0-9]*$' | sort -u)
got=$(complete_words rocetop --sort "")
# the man page abbreviates the averages as gb2s ... cnp40s
full=$(echo "$want"; printf '%s\n' gb10s gb40s ce2s ce10s ce40s cnp2s cnp10s)
[ "$(echo "$full" | sort -u)" = "$got" ] && ok "--sort offers the man page's $(echo "$got" | wc -l) columns" ||
	bad sort "differs from the man page: $(diff <(echo "$full" | sort -u) <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
got=$(complete_words rocetop --sort co)
[ "$got" = congestion ] && ok "--sort co completes to congestion" || bad sort-prefix "'$got'"

# -i: the interfaces of the namespace it runs in (one the test makes).
if [ "$(id -u)" -eq 0 ]; then
	ip netns add "$ns" && ip -n "$ns" link add "${ns}a" type veth peer name "${ns}b"
	got=$(ip netns exec "$ns" bash -c "$(declare -f complete_words); tmp=$tmp; complete_words rocetop -i ''" | tr '\n' ' ')
	[ "$got" = "lo ${ns}a ${ns}b " ] && ok "-i offers the interfaces: $got" || bad iface "'$got'"
	got=$(ip netns exec "$ns" bash -c "$(declare -f complete_words); tmp=$tmp; complete_words rocetop -b -i ${ns}" | tr '\n' ' ')
	[ "$got" = "${ns}a ${ns}b " ] && ok "-i $ns completes to $got" || bad iface-prefix "'$got'"
else
	echo "SKIP completion -i: needs root for a network namespace"
fi

# -r, -w: files; --csv: directories.
mkdir -p "$tmp/f/sub"; touch "$tmp/f/a.pcap" "$tmp/f/b.rtr"
got=$(cd "$tmp/f" && complete_words rocetop -r "" | tr '\n' ' ')
[ "$got" = "a.pcap b.rtr sub " ] && ok "-r offers files: $got" || bad read "'$got'"
got=$(cd "$tmp/f" && complete_words rocetop -i eth0 -w b | tr '\n' ' ')
[ "$got" = "b.rtr " ] && ok "-w b completes to $got" || bad write "'$got'"
got=$(cd "$tmp/f" && complete_words rocetop -r a.pcap --csv "" | tr '\n' ' ')
[ "$got" = "sub " ] && ok "--csv offers directories only: $got" || bad csv "'$got'"
got=$(cd "$tmp/f" && complete_words rocetop report "" | tr '\n' ' ')
[ "$got" = "a.pcap b.rtr sub " ] && ok "report offers files: $got" || bad report-file "'$got'"

# rocetop-gen through its link.
got=$(complete_words rocetop-gen --scenario "" | tr '\n' ' ')
[ "$got" = "fixed incast mixed pfc-storm steady " ] && ok "rocetop-gen --scenario offers $got" || bad gen "'$got'"
[ $fails -eq 0 ]
