#!/usr/bin/env bash
# ARCHITECTURE.md stays a map a newcomer reads in ten minutes: at most 300
# lines (figures go to bench/RESULTS.md), and every file it names in
# backquotes with a folder exists, so the map does not drift from the tree.
set -u
cd "$(dirname "$0")/../.."
n=$(wc -l <ARCHITECTURE.md)
if [ "$n" -le 300 ]; then echo "PASS map: ARCHITECTURE.md has $n lines (at most 300)"
else echo "FAIL map: ARCHITECTURE.md has $n lines, more than 300: move detail to the code or bench/RESULTS.md"; fi
missing=$(grep -o '`[a-z_./]*/[a-zA-Z0-9_.-]*\.\(c\|h\|py\|sh\|md\)`' ARCHITECTURE.md | tr -d '`' | sort -u |
	while read -r f; do [ -e "$f" ] || echo "$f"; done)
if [ -z "$missing" ]; then echo "PASS map: every path ARCHITECTURE.md names exists"
else echo "FAIL map: ARCHITECTURE.md names files that do not exist: $(echo $missing)"; fi
