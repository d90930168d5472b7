#!/usr/bin/env bash
# The man pages (man/rocetop.8, man/rocetop-gen.1) as groff reads them: every
# warning groff gives with -ww (a stray control byte, an unknown escape or
# request, a font that does not exist) is a failure, so what man(1) shows is
# what the source says. The option lists the tables make (--dump-options=man)
# are held to the same standard on their own. Every finding rule is in the
# README's table and the man page.
. "$(dirname "$0")/../lib.sh"
rt_need_cmd man groff
fails=0
ok() { echo "PASS man $1"; }
bad() { echo "FAIL man $1: $2"; fails=$((fails + 1)); }
rt_tmpdir tmp

# groff_clean NAME FILE: groff reads FILE as a man page without one warning.
groff_clean() {
	local out
	out=$(groff -man -ww -z "$2" 2>&1)
	if [ -n "$out" ]; then
		bad "$1" "groff -man -ww warns: $(head -5 <<<"$out")"
	else
		ok "$1: groff -man -ww reads $(wc -l <"$2") lines without a warning"
	fi
}
groff_clean rocetop.8 man/rocetop.8
groff_clean rocetop-gen.1 man/rocetop-gen.1

# No control byte but the newline in either page (groff takes a tab, but the
# pages have none, and a form feed is what "\f" becomes when a C or shell
# string meant "\\f").
for p in man/rocetop.8 man/rocetop-gen.1; do
	n=$(LC_ALL=C grep -c '[[:cntrl:]]' "$p")
	[ "$n" -eq 0 ] && ok "$p holds no control byte" || bad "$p-control" "$n line(s) with a control byte"
done

# The generated lists alone, wrapped in a page of their own.
for cmd in "" lab report doctor; do
	f=$tmp/opts${cmd:+-$cmd}.8
	{ echo '.TH X 8'; echo '.SH OPTIONS'; "$ROCETOP" $cmd --dump-options=man; } >"$f"
	groff_clean "options of rocetop${cmd:+ $cmd}" "$f"
done

# The check fails on a page with the bytes this test exists for.
printf '.TH X 8\n.SH NAME\nx \\- y\n.PP\nthe collector \fB\\-\\-sflow\fR uses\n' >"$tmp/ff.8"
out=$(groff -man -ww -z "$tmp/ff.8" 2>&1)
[ -n "$out" ] && ok "groff -ww warns on a form feed: ${out##*: }" || bad ff "groff -ww took a form feed silently"
# Every rule the engine runs (its table, rocetop --dump-rules) has its row in
# README.md's table and its entry in the man page's FINDINGS (a .B or .BR tag); the
# README's table is the one the rules table makes (tools/gen-options --check),
# and that check fails on a README with a rule's row gone.
rules=$("$ROCETOP" --dump-rules | sed -n 's/^| `\([a-z-]*\)` |.*/\1/p')
nr=$(wc -w <<<"$rules")
miss=
for r in $rules; do
	grep -q "^| \`$r\` | " README.md || miss+=" README:$r"
	grep -qE "^\.BR? (.*[ \"])?${r//-/\\\\-}([ ,\"]|$)" man/rocetop.8 || miss+=" man:$r"
done
[ "$nr" -ge 19 ] && [ -z "$miss" ] && ok "the $nr rules are each in README.md's table and the man page's FINDINGS" ||
	bad rules "$nr rules; missing:$miss"
mkdir -p "$tmp/drift" && cp -r man dist README.md "$tmp/drift"/
sed -i '/^| `pcie` | /d' "$tmp/drift/README.md"
if tools/gen-options --build "${BUILD:-build}" --check "$tmp/drift" >/dev/null 2>&1; then
	bad rules-drift "tools/gen-options --check passes a README without pcie's row"
else
	ok "tools/gen-options --check fails on a README without pcie's row"
fi
[ $fails -eq 0 ]
