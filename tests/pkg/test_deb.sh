#!/usr/bin/env bash
# The Debian package: 'make deb' builds it and lintian reports no error and no
# warning; its Depends are exactly the packages that own the shared libraries
# its binaries link (dpkg -S, not dh_shlibdeps, is the oracle); installed with
# dpkg in a throwaway copy of this machine (an overlay over / in a private
# mount namespace, so nothing reaches the real system) it puts every file in
# place, rocetop --version and rocetop report work from /usr/bin on a capture
# whose counts tshark gives, the service passes systemd-analyze verify and is
# not enabled, and dpkg --purge removes it all.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
cleanup() { umount -R "$tmp/m" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
ok() { echo "PASS deb $1"; }
bad() { echo "FAIL deb $1: $2"; fails=$((fails + 1)); }
if [ "$(id -u)" -ne 0 ]; then echo "SKIP deb: needs root to install in an overlay"; exit 0; fi
for t in dpkg-buildpackage dh lintian tshark systemd-analyze; do
	command -v $t >/dev/null || { echo "SKIP deb: $t is not installed (make deps)"; exit 0; }
done

# lintian once, below (make deb's own run is its errors only)
if ! make -s deb BUILD="$BUILD" LINTIAN=true >"$tmp/make.log" 2>&1; then
	bad build "make deb failed: $(tail -5 "$tmp/make.log")"; exit 1
fi
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
deb=$BUILD/deb/rocetop_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
[ -f "$deb" ] && ok "make deb built $(basename "$deb")" || { bad build "no $deb"; exit 1; }

# lintian beside the rest (it reads the .deb, nothing else here writes it);
# its verdict below, after the install's.
lintian "$deb" >"$tmp/lintian" 2>&1 &
lintian_pid=$!

# Depends: the owners of the NEEDED libraries of both binaries.
dpkg-deb -x "$deb" "$tmp/x"
needed=$(for b in "$tmp"/x/usr/bin/*; do objdump -p "$b" | awk '/NEEDED/ {print $2}'; done | sort -u)
# dpkg knows a library by the path its package shipped (/lib or /usr/lib,
# the file or its soname link): ask for each spelling until one answers.
owner() {
	local real c
	real=$(readlink -f "$1")
	for c in "$1" "$(dirname "$1")/$(basename "$real")" "$real" "${real#/usr}" "/usr${1#/usr}"; do
		dpkg -S "$c" 2>/dev/null | head -1 | cut -d: -f1 | grep . && return
	done
}
want=$(for l in $needed; do
	p=$(ldconfig -p | awk -v l="$l" '$1 == l {print $NF; exit}')
	[ -n "$p" ] && owner "$p"
done | sort -u)
got=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/ *(.*//; s/^ *//' | grep . | sort -u)
[ -n "$want" ] && [ "$want" = "$got" ] && ok "Depends = owners of the linked libraries: $(echo $got)" ||
	bad depends "Depends '$(echo $got)', the libraries linked come from '$(echo $want)'"

# A capture whose counts tshark tells (made here, read in the overlay).
"$BUILD/rocetop-gen" --frames 50 --pcap "$tmp/cap.pcap" -q
t_pkts=$(tshark -r "$tmp/cap.pcap" -Y 'udp.dstport == 4791' 2>/dev/null | wc -l)
t_ce=$(tshark -r "$tmp/cap.pcap" -Y 'udp.dstport == 4791 && ip.dsfield.ecn == 3' 2>/dev/null | wc -l)
t_cnp=$(tshark -r "$tmp/cap.pcap" -Y 'infiniband.bth.opcode == 129' 2>/dev/null | wc -l)

host_had=$(ls /usr/bin/rocetop /etc/default/rocetop 2>/dev/null)
# Install in an overlay of /: the upper layer takes every change, and goes.
mkdir -p "$tmp/up" "$tmp/work" "$tmp/m"
cp "$deb" "$tmp/cap.pcap" "$tmp/up/" 2>/dev/null
echo "$PWD $BUILD" >"$tmp/up/src"
cat >"$tmp/inside.sh" <<INSIDE
set -u
mount -t overlay overlay -o lowerdir=/,upperdir=$tmp/up,workdir=$tmp/work $tmp/m || exit 10
mount -t proc proc $tmp/m/proc; mount -t tmpfs tmpfs $tmp/m/run; mount -t tmpfs tmpfs $tmp/m/tmp
mount --rbind /dev $tmp/m/dev; mount --rbind /sys $tmp/m/sys
# The checkout (make install's source) may lie under /tmp or on another
# mount, which the overlay of / does not show: bound in at its own path.
mkdir -p "$tmp/m$PWD" && mount --bind "$PWD" "$tmp/m$PWD" || exit 11
exec chroot $tmp/m /bin/bash /checks.sh
INSIDE
cat >"$tmp/up/checks.sh" <<'CHECKS'
set -u
deb=/$(basename /rocetop_*.deb)
dpkg -s rocetop >/dev/null 2>&1 && { echo "STATE preinstalled"; dpkg --purge rocetop >/dev/null; }
# man-db's trigger would index every manual page of this copy of the
# machine at install and again at purge (30 s; nothing here reads the
# index): without its flag file it does nothing.
rm -f /var/lib/man-db/auto-update
DEBIAN_FRONTEND=noninteractive dpkg -i "$deb" >/tmp/dpkg.log 2>&1 || { echo "DPKG_FAIL $(tail -3 /tmp/dpkg.log)"; exit 0; }
echo "STATUS $(dpkg-query -W -f='${Status}' rocetop)"
echo "VERSION $(/usr/bin/rocetop --version)"
for f in /usr/bin/rocetop /usr/bin/rocetop-gen /usr/share/man/man8/rocetop.8.gz /usr/share/man/man1/rocetop-gen.1.gz \
	/usr/share/doc/rocetop/grafana-dashboard.json /usr/share/doc/rocetop/prometheus.yml \
	/usr/share/doc/rocetop/README.md.gz /usr/share/doc/rocetop/copyright \
	/usr/share/bash-completion/completions/rocetop /lib/systemd/system/rocetop-exporter.service \
	/etc/default/rocetop; do
	[ -e "$f" ] && echo "FILE $f" || echo "MISSING $f"
done
echo "CONFFILES $(dpkg-query -W -f='${Conffiles}' rocetop | awk '{print $1}' | tr '\n' ' ')"
/usr/bin/rocetop report /cap.pcap --json >/tmp/rep.json 2>/tmp/rep.err && echo "REPORT $(python3 -c '
import json; t = json.load(open("/tmp/rep.json"))["totals"]; print(t["pkts"], t["ce"], t["cnp"])')" ||
	echo "REPORT_FAIL $(cat /tmp/rep.err)"
echo "COMPLETE $(bash -c 'source /usr/share/bash-completion/bash_completion; _completion_loader rocetop; complete -p rocetop')"
systemd-analyze verify /lib/systemd/system/rocetop-exporter.service >/tmp/verify 2>&1 && echo "VERIFY ok" ||
	echo "VERIFY_FAIL $(tr '\n' ' ' </tmp/verify)"
[ -s /tmp/verify ] && echo "VERIFY_SAID $(tr '\n' ' ' </tmp/verify)"
echo "ENABLED $(systemctl --root=/ is-enabled rocetop-exporter.service 2>&1)"
echo "DEFAULT_IFACES $(. /etc/default/rocetop; echo "[$ROCETOP_INTERFACES]")"
# make install (/usr/local) beside the package (/usr): doctor names the binary
# it is and the other one, whichever comes first on PATH.
read -r src build </src
make -s -C "$src" install PREFIX=/usr/local BUILD="$build" >/tmp/mi.log 2>&1 || echo "MAKE_INSTALL_FAIL $(tail -2 /tmp/mi.log)"
echo "SHADOW_LOCAL $(PATH=/usr/local/bin:/usr/bin rocetop doctor 2>&1 | grep -E '^(binary:|warning: .*rocetop)' | tr '\n' '|')"
echo "SHADOW_PKG $(PATH=/usr/local/bin:/usr/bin /usr/bin/rocetop doctor 2>&1 | grep -E '^(binary:|warning: .*rocetop)' | tr '\n' '|')"
make -s -C "$src" uninstall PREFIX=/usr/local BUILD="$build" >/dev/null 2>&1
dpkg --purge rocetop >/tmp/purge.log 2>&1 || echo "PURGE_FAIL $(tail -2 /tmp/purge.log)"
left=$(ls -d /usr/bin/rocetop /usr/bin/rocetop-gen /etc/default/rocetop /usr/share/doc/rocetop \
	/lib/systemd/system/rocetop-exporter.service /usr/share/bash-completion/completions/rocetop 2>/dev/null | tr '\n' ' ')
echo "AFTER_PURGE ${left:-nothing}"
CHECKS
unshare -m --propagation private bash "$tmp/inside.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || bad overlay "the overlay install exited $rc: $(tail -3 "$tmp/err")"
grep -q '^DPKG_FAIL' "$tmp/out" && bad install "$(grep '^DPKG_FAIL' "$tmp/out")"
[ "$(sed -n 's/^STATUS //p' "$tmp/out")" = "install ok installed" ] && ok "dpkg -i installs it (dependencies met)" ||
	bad status "$(grep -e '^STATUS' -e '^STATE' "$tmp/out")"
[ "$(sed -n 's/^VERSION //p' "$tmp/out")" = "rocetop $version" ] && ok "/usr/bin/rocetop --version says $version (debian/changelog's)" ||
	bad version "$(grep '^VERSION' "$tmp/out"), changelog says $version"
miss=$(grep '^MISSING' "$tmp/out" | cut -d' ' -f2 | tr '\n' ' ')
[ -z "$miss" ] && ok "installed: binaries, man pages, docs, dashboard, Prometheus example, completion, service, defaults" ||
	bad files "missing $miss"
cmp -s "$tmp/x/usr/share/doc/rocetop/grafana-dashboard.json" exporters/grafana-dashboard.json &&
cmp -s "$tmp/x/usr/share/doc/rocetop/prometheus.yml" exporters/prometheus.yml &&
	ok "the dashboard and the Prometheus example are shipped as they are in exporters/" ||
	bad docs "the shipped dashboard or prometheus.yml differs from exporters/"
grep -q '^CONFFILES.*/etc/default/rocetop' "$tmp/out" && ok "/etc/default/rocetop is a conffile" ||
	bad conffile "$(grep '^CONFFILES' "$tmp/out")"
[ "$(sed -n 's/^REPORT //p' "$tmp/out")" = "$t_pkts $t_ce $t_cnp" ] &&
	ok "installed rocetop report: $t_pkts RoCE packets, $t_ce CE, $t_cnp CNPs, as tshark counts" ||
	bad report "$(grep '^REPORT' "$tmp/out"), tshark: $t_pkts $t_ce $t_cnp"
[ "$(sed -n 's/^COMPLETE //p' "$tmp/out")" = "complete -F _rocetop rocetop" ] && ok "bash completion loads from /usr/share" ||
	bad completion "$(grep '^COMPLETE' "$tmp/out")"
grep -q '^VERIFY ok' "$tmp/out" && ! grep -q '^VERIFY_SAID' "$tmp/out" &&
	ok "systemd-analyze verify passes on the installed rocetop-exporter.service, silently" ||
	bad verify "$(grep '^VERIFY' "$tmp/out")"
[ "$(sed -n 's/^ENABLED //p' "$tmp/out")" = disabled ] && ok "rocetop-exporter.service is installed disabled" ||
	bad enabled "$(grep '^ENABLED' "$tmp/out")"
[ "$(sed -n 's/^DEFAULT_IFACES //p' "$tmp/out")" = "[]" ] && ok "the installed /etc/default/rocetop names no interface" ||
	bad default "$(grep '^DEFAULT_IFACES' "$tmp/out")"
grep -q MAKE_INSTALL_FAIL "$tmp/out" && bad make-install "$(grep MAKE_INSTALL_FAIL "$tmp/out")"
local_says=$(sed -n 's/^SHADOW_LOCAL //p' "$tmp/out") pkg_says=$(sed -n 's/^SHADOW_PKG //p' "$tmp/out")
[ "$local_says" = "binary:                 /usr/local/bin/rocetop (what \`rocetop\` runs from PATH)|warning: another rocetop is /usr/bin/rocetop, later on PATH than this one, which shadows it; make install (/usr/local) and the package (/usr) shadow each other: remove one (make uninstall, or apt remove rocetop).|" ] &&
	ok "with make install beside the package, rocetop doctor says it is /usr/local/bin/rocetop and shadows /usr/bin/rocetop" ||
	bad shadow "make install's doctor said: $local_says"
[ "$pkg_says" = "binary:                 /usr/bin/rocetop|warning: \`rocetop\` from PATH runs /usr/local/bin/rocetop, not this binary; make install (/usr/local) and the package (/usr) shadow each other: remove one (make uninstall, or apt remove rocetop).|" ] &&
	ok "the package's rocetop doctor says it is /usr/bin/rocetop and that PATH runs /usr/local/bin/rocetop" ||
	bad shadow "the package's doctor said: $pkg_says"
[ "$(sed -n 's/^AFTER_PURGE //p' "$tmp/out")" = nothing ] && ! grep -q PURGE_FAIL "$tmp/out" &&
	ok "dpkg --purge removes every file, /etc/default/rocetop too" || bad purge "$(grep -e PURGE "$tmp/out")"
[ "$host_had" = "$(ls /usr/bin/rocetop /etc/default/rocetop 2>/dev/null)" ] && ok "the host's own files are untouched" ||
	bad isolation "the host's /usr/bin/rocetop or /etc/default/rocetop changed"

wait $lintian_pid
tags=$(grep -E '^[EW]: ' "$tmp/lintian")
[ -z "$tags" ] && ok "lintian: no error, no warning" || bad lintian "$(echo "$tags" | head -5)"
[ $fails -eq 0 ]
