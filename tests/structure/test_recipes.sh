#!/usr/bin/env bash
# ARCHITECTURE.md's recipes ("How to add things": a source, a sink, an
# option, a finding rule and its threshold, a column) name places that exist:
# each recipe is there, each path exists and each symbol is in the code (not
# only a comment) of the file the recipe names for it
# (tests/structure/recipes.py). Then on copies of the map with one recipe made
# wrong (a file that moved, a symbol in the wrong file or only in a comment, a
# recipe gone), which the check must name.
. "$(dirname "$0")/../lib.sh"
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
CHECK=tests/structure/recipes.py
if out=$($PYTHON $CHECK ARCHITECTURE.md . 2>&1); then
	echo "PASS recipes: every file and symbol the recipes name is where they say"
else
	echo "FAIL recipes: ARCHITECTURE.md's recipes name places that are not there:"
	echo "$out" | sed 's/^/  /'
fi
rt_tmpdir T
breach() { # breach NAME SED-EXPRESSION WANT: the check names WANT on the changed map
	sed "$2" ARCHITECTURE.md >"$T/map.md"
	if cmp -s ARCHITECTURE.md "$T/map.md"; then
		echo "FAIL recipes $1: the map did not change (the test's edit is stale)"
	elif out=$($PYTHON $CHECK "$T/map.md" . 2>&1) || ! echo "$out" | grep -qF "$3"; then
		echo "FAIL recipes $1: the check did not name '$3': $out"
	else
		echo "PASS recipes $1: the check names it ($out)"
	fi
}
breach "a constructor's header that moved" 's#`user/sources/sources.h`#`user/core/sources.h`#' 'user/core/sources.h: no such file'
breach "a column table named in the wrong file" 's#`tui_flow_cols`#`tui_flow_cols` in `tui/tui_model.c`#' 'tui/tui_model.c'
breach "a recipe gone" 's#^\*\*A column\*\*#**Columns**#' 'no recipe for a column'
breach "a symbol only a comment of its file names" 's#`RT_THRESHOLDS`#`rt_link_speed`#' 'rt_link_speed: not in user/core/findings.h'
breach "a symbol that is not in its file" 's#`RT_THRESHOLDS`#`RT_THRESHOLD_ROWS`#' 'RT_THRESHOLD_ROWS: not in user/core/findings.h'
