# bench/lib.bash: sourced by the bench/*.sh scripts as they start
# (. "$(dirname "$0")/lib.bash"): set -u, BUILD (the script's $1, else
# build), and the checkout's top as the working directory.
set -u
BUILD=${1:-build}
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
# bench_start SCRIPT PREFIX BIN...: a scratch folder $D (/tmp/PREFIX.XXXXXX,
# removed on exit) and a check that each BIN was built (exit 1 if not).
bench_start() {
	local me=$1 prefix=$2 b
	shift 2
	D=$(mktemp -d "/tmp/$prefix.XXXXXX") || exit 1
	trap 'rm -rf "$D"' EXIT
	for b in "$@"; do
		[ -x "$b" ] || { echo "$me: $b is missing; run make BUILD=$BUILD bench" >&2; exit 1; }
	done
}
