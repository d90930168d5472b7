#!/usr/bin/env bash
# No tracked file cites an issue tracker's number: a reader of the
# repository cannot look it up, so a comment or a document says the reason
# itself. tests/structure/issue_refs.pl defines what counts as a reference
# (the word issue and a number, or '#' and a number where a tracker's
# reference stands). Files in tests/structure/issue_refs_allow.txt are the
# ones still to fix: they are passed over, and a listed file with no reference
# left fails, so the list only shrinks.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_checks setup "issue_refs "
allow=tests/structure/issue_refs_allow.txt
check=tests/structure/issue_refs.pl

# The matcher itself, on lines whose answer is known: it must be able to fail.
# (The samples are put together here, so this file holds no reference itself.)
w=issue h='#'
{
	printf '%s\n' "/* fixed in $w 12 */"
	printf '%s\n' "# see $w ${h}7 for the reason"
	printf '%s\n' "// as asked ($w" "// 31, item 2)"
	printf '%s\n' " * the ERSPAN frames (${h}27) are"
	printf '%s\n' "# ${h}44: a short read"
	printf '%s\n' "this fixes ${h}9."
} >"$T/bad.c"
{
	printf '#define RT_MAX 16\n#if 0\n#endif\n'
	printf 'printf("%%d flows #%%u\\n", n, i);\n'
	printf 'n=${#a[@]}; [ $# -eq 2 ]\n'
	printf 'color: #ff0000; u32 #1 is the first word, frame #2 the next\n'
	printf 'no issue with 16 flows; tissue 3\n'
} >"$T/good.c"
want=$(printf "$T/bad.c:%s\n" 1 2 4 5 6 7)
got=$(perl "$check" "$T/bad.c" | cut -d: -f1,2)
if [ "$got" = "$want" ]; then pass matcher_finds_references
else fail matcher_finds_references "expected lines 1, 2, 4, 5, 6, 7 of the sample, got: $(echo $got)"; fi
if out=$(perl "$check" "$T/good.c"); then pass matcher_passes_over_lookalikes
else fail matcher_passes_over_lookalikes "flagged: $out"; fi

# The tracked files, but those still to fix.
if ! files=$(git ls-files 2>/dev/null) || [ -z "$files" ]; then
	fail tracked_files "git ls-files gave no files: run this in a git checkout"
	exit 1
fi
listed=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$allow" 2>/dev/null)
printf '%s\n' "$files" | grep -vxF -f <(printf '%s\n' "$listed" "$check" "$allow") >"$T/files"
tr '\n' '\0' <"$T/files" | xargs -0 perl "$check" >"$T/refs"
if [ -s "$T/refs" ]; then
	fail no_issue_numbers "$(wc -l <"$T/refs") reference(s); say the reason instead:"
	sed 's/^/  /' "$T/refs"
else
	pass no_issue_numbers
fi
stale=
for f in $listed; do
	[ -f "$f" ] && ! perl "$check" "$f" >/dev/null && continue
	stale="$stale $f"
done
if [ -z "$stale" ]; then pass allowlist_current
else fail allowlist_current "listed in $allow with no reference left (or gone); remove:$stale"; fi
[ "$fails" -eq 0 ]
