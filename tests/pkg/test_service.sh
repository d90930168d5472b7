#!/usr/bin/env bash
# rocetop-exporter.service runs rocetop as an unprivileged user with only the
# capabilities its unit names. Here that very command line (-D --listen, an
# interface) runs under setpriv as nobody with exactly the unit's ambient and
# bounding capabilities, on a veth in a namespace of the test's: it attaches,
# and its metrics count what rocetop-gen sent, as tshark counts the same
# frames. Without any one of them it stops with one sentence naming them. The
# unit keeps its hardening (ProtectSystem=strict, no root, restart on failure),
# passes systemd-analyze verify, has an exposure of at most 2.5 by
# systemd-analyze security, refuses to start until /etc/default/rocetop names
# an interface, and its system call filter allows every call a traced run
# makes. (test_deb.sh verifies the installed unit too.)
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
GEN=${ROCETOP_GEN:-$PWD/build/rocetop-gen}
unit=dist/rocetop-exporter.service
ns=rts$$ A=rts$$a B=rts$$b
tmp=$(mktemp -d); chmod 755 "$tmp"
pid=
cleanup() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0
ok() { echo "PASS service $1"; }
bad() { echo "FAIL service $1: $2"; fails=$((fails + 1)); }
if [ "$(id -u)" -ne 0 ]; then echo "SKIP service: needs root for namespaces and setpriv"; exit 0; fi

key() { sed -n "s/^$1=//p" "$unit" | tail -1; }
for kv in ProtectSystem=strict Restart=on-failure DynamicUser=yes NoNewPrivileges=yes \
	EnvironmentFile=/etc/default/rocetop; do
	[ "$(key "${kv%%=*}")" = "${kv#*=}" ] && ok "unit: $kv" || bad unit "${kv%%=*} is '$(key "${kv%%=*}")'"
done
grep -q '^User=root' "$unit" && bad unit "runs as root"
grep -q '^WantedBy=multi-user.target' "$unit" && ok "unit: enabling starts it at boot (multi-user.target)" ||
	bad unit "no WantedBy"
exec_line=$(key ExecStart)
case $exec_line in
"/usr/bin/rocetop -D --listen \${ROCETOP_LISTEN} \$ROCETOP_INTERFACES \$ROCETOP_OPTS") ok "unit: ExecStart is $exec_line" ;;
*) bad unit "ExecStart is '$exec_line'" ;;
esac
for kv in StateDirectory=rocetop WorkingDirectory=%S/rocetop UMask=0077 ProtectKernelTunables=yes \
	MemoryDenyWriteExecute=yes PrivateDevices=yes SystemCallErrorNumber=EPERM; do
	[ "$(key "${kv%%=*}")" = "${kv#*=}" ] && ok "unit: $kv" || bad unit "${kv%%=*} is '$(key "${kv%%=*}")'"
done

# systemd's own judgement: verify (on a copy naming the binary built here,
# which it checks exists, and with this tree's man page on MANPATH, since it
# runs man for the unit's Documentation= and the page need not be installed)
# says nothing; the exposure is at most 2.5.
sed "s|/usr/bin/rocetop|$ROCETOP|g" "$unit" >"$tmp/rocetop-exporter.service"
mkdir -p "$tmp/man/man8" && cp man/rocetop.8 "$tmp/man/man8/"
if out=$(MANPATH="$tmp/man" systemd-analyze verify "$tmp/rocetop-exporter.service" 2>&1) && [ -z "$out" ]; then
	ok "systemd-analyze verify passes, silently"
else bad verify "$out"; fi
exposure=$(systemd-analyze security --offline=yes "$unit" 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.5) }'; then
	ok "systemd-analyze security --offline=yes: exposure $exposure (at most 2.5)"
else bad security "exposure '$exposure', want at most 2.5"; fi

# Until /etc/default/rocetop names an interface the unit does not start:
# its ExecStartPre, run as systemd would, fails with one sentence.
out=$(python3 tests/pkg/unit_check.py prestart "$unit" dist/rocetop.default)
if [ "$(echo "$out" | head -1)" = 1 ] && [ "$(echo "$out" | wc -l)" = 2 ] &&
   echo "$out" | tail -1 | grep -q 'set ROCETOP_INTERFACES in /etc/default/rocetop'; then
	ok "with the shipped defaults it refuses to start: $(echo "$out" | tail -1)"
else bad prestart "the defaults' ExecStartPre gave: $out"; fi
out=$(python3 tests/pkg/unit_check.py prestart "$unit" dist/rocetop.default ROCETOP_INTERFACES="-i eth0")
[ "$out" = 0 ] && ok "with ROCETOP_INTERFACES set its ExecStartPre passes silently" || bad prestart "with an interface: $out"

# The default file defines what ExecStart uses, and nothing else.
vars=$(grep -o '^[A-Z_]*=' dist/rocetop.default | tr -d = | sort | tr '\n' ' ')
[ "$vars" = "ROCETOP_INTERFACES ROCETOP_LISTEN ROCETOP_OPTS " ] && ok "/etc/default/rocetop sets $vars" ||
	bad default "sets '$vars'"

caps=$(key AmbientCapabilities)
[ "$caps" = "$(key CapabilityBoundingSet)" ] || bad unit "ambient '$caps' and bounding '$(key CapabilityBoundingSet)' differ"
set_of() { local s=-all c; for c in $1; do c=${c#CAP_}; s+=",+${c,,}"; done; echo "$s"; }
as_nobody() {	# CAPS then the command
	local s; s=$(set_of "$1"); shift
	ip netns exec "$ns" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps="$s" \
		--ambient-caps="$s" -- "$@"
}

ip netns add "$ns" && ip -n "$ns" link add "$A" type veth peer name "$B" &&
	ip -n "$ns" link set "$A" up && ip -n "$ns" link set "$B" up && ip -n "$ns" link set lo up ||
	{ echo "FAIL service: cannot build the namespace"; exit 1; }
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1

# The unit's command line with its environment, as systemd would split it.
ROCETOP_LISTEN=19465 ROCETOP_INTERFACES="-i $B" ROCETOP_OPTS="-d 0.2 --flow-timeout 0"
run_as_nobody() { exec ip netns exec "$ns" setpriv --reuid=65534 --regid=65534 --clear-groups \
	--inh-caps="$(set_of "$caps")" --ambient-caps="$(set_of "$caps")" -- "$@"; }
run_as_nobody "$ROCETOP" -D --listen ${ROCETOP_LISTEN} $ROCETOP_INTERFACES $ROCETOP_OPTS \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
up=
for _ in $(seq 100); do
	ip netns exec "$ns" curl -sf --max-time 1 -o /dev/null "http://127.0.0.1:19465/metrics" && { up=1; break; }
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if [ -n "$up" ]; then
	ok "as nobody with only $caps it attaches and serves /metrics"
else
	bad caps "rocetop as nobody with $caps did not come up: $(tail -3 "$tmp/err")"
fi
uid=$(awk '/^Uid:/ {print $2}' /proc/$pid/status 2>/dev/null)
eff=$(capsh --decode="$(awk '/^CapEff:/ {print $2}' /proc/$pid/status 2>/dev/null)" 2>/dev/null |
	sed 's/.*=//' | tr ',' '\n' | tr a-z A-Z | sort | tr '\n' ' ')
# Once attached rocetop drops CAP_PERFMON, which only loading needs (rocetop(8) KERNELS).
want=$(echo "$caps" | tr ' ' '\n' | grep -vx CAP_PERFMON | sort | tr '\n' ' ')
[ "$uid" = 65534 ] && [ "$eff" = "$want" ] && ok "it runs as uid 65534 with exactly $eff once attached" ||
	bad uid "uid '$uid', effective capabilities '$eff'"

"$GEN" --scenario fixed --frames 50 --tx-data "$ns:$A" --pcap "$tmp/sent.pcap" -q 2>"$tmp/gen.err" ||
	bad gen "rocetop-gen failed: $(tail -2 "$tmp/gen.err")"
t_roce=$(tshark -r "$tmp/sent.pcap" -Y 'udp.dstport == 4791' 2>/dev/null | wc -l)
t_pause=$(tshark -r "$tmp/sent.pcap" -Y 'eth.type == 0x8808' 2>/dev/null | wc -l)
got=
for _ in $(seq 50); do
	sleep 0.2
	m=$(ip netns exec "$ns" curl -s --max-time 1 "http://127.0.0.1:19465/metrics")
	roce=$(echo "$m" | grep "^rocetop_parser_frames_total{interface=\"$B\",direction=\"ingress\",outcome=\"roce\"}" | awk '{print $2}')
	pause=$(echo "$m" | grep "^rocetop_parser_frames_total{interface=\"$B\",direction=\"ingress\",outcome=\"pause\"}" | awk '{print $2}')
	got="$roce $pause"
	[ "$got" = "$t_roce $t_pause" ] && break
done
[ "$got" = "$t_roce $t_pause" ] && [ "$t_roce" -gt 0 ] &&
	ok "its metrics count $t_roce RoCE and $t_pause pause frames on $B, as tshark counts what was sent" ||
	bad counts "metrics say RoCE/pause '$got', tshark '$t_roce $t_pause'"
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
[ $rc = 0 ] && ok "SIGTERM (systemctl stop) ends it with exit 0" || bad stop "exit $rc after SIGTERM"

# The system call filter lets it do its work: every call of a run that loads
# and attaches the programs, counts traffic and serves scrapes (strace -f)
# is in the unit's SystemCallFilter as systemd-analyze expands it.
ip netns exec "$ns" strace -f -qq -o "$tmp/trace" "$ROCETOP" -D --listen 19466 -i "$B" -d 0.2 -n 600 \
	>/dev/null 2>"$tmp/strace.err" &
spid=$!
for _ in $(seq 300); do
	ip netns exec "$ns" curl -sf --max-time 1 -o /dev/null "http://127.0.0.1:19466/metrics" && break
	sleep 0.1
done
"$GEN" --scenario fixed --frames 20 --tx-data "$ns:$A" -q 2>/dev/null
got=
for _ in $(seq 20); do
	ip netns exec "$ns" curl -s --max-time 2 "http://127.0.0.1:19466/metrics" |
		grep -q "^rocetop_interface_frames_total{interface=\"$B\"" && { got=1; break; }
	sleep 0.2
done
[ -n "$got" ] || bad strace "no metrics from the traced run: $(tail -2 "$tmp/strace.err")"
# SIGTERM to rocetop itself (strace's child), as systemctl stop sends it
pkill -TERM -P $spid
wait $spid
if out=$(python3 tests/pkg/unit_check.py syscalls "$unit" "$tmp/trace"); then
	ok "SystemCallFilter allows each of the $(echo "$out" | cut -d' ' -f1) calls of a traced run (bpf, netlink, accept4 included)"
else bad syscalls "$(echo "$out" | tail -1)"; fi
echo "$out" | head -1 | grep -qw accept4 || bad strace "the traced run served no scrape (no accept4)"

# Each capability of the unit is needed: without any one, rocetop stops with
# one sentence naming them and a non-zero exit, before anything is attached.
for c in $caps; do
	less=$(echo "$caps" | tr ' ' '\n' | grep -vx "$c" | tr '\n' ' ')
	as_nobody "$less" "$ROCETOP" -D -i "$B" -n 1 >/dev/null 2>"$tmp/less.err"
	rc=$?
	[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/less.err")" = 1 ] && grep -q "$c" "$tmp/less.err" &&
		ok "without $c: exit $rc and '$(cat "$tmp/less.err")'" ||
		bad "without-$c" "exit $rc: $(head -3 "$tmp/less.err")"
done
[ $fails -eq 0 ]
