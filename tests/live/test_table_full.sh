#!/usr/bin/env bash
# Live, a full kernel flow table is said: once on stderr when table_full first
# moves, in the notes of every table from then on (none before), with a
# --max-flows that fits every flow. scapy sends 40 flows, one frame each, into
# a table of 16: 24 frames find no row, so --max-flows 40 fits them (the notes
# at the end); stderr speaks at the first interval that saw some of them, and
# suggests 16 plus that interval's table_full. --max-flows is per CPU (a region
# of the kernel table for each): scapy runs on one CPU, so veth's XDP counts
# every frame on that CPU, in one region of 16 slots, all of them reachable.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
PY=${PYTHON:-/usr/bin/python3}
A=rtf$$a B=rtf$$b IFA=rtf$$x IFB=rtf$$y
tmp=$(mktemp -d); [ -n "${KEEP:-}" ] && echo "$tmp"
cleanup() { kill -9 "${rt:-0}" 2>/dev/null; ip netns del "$A" 2>/dev/null; ip netns del "$B" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"; }
trap cleanup EXIT
if [ "$(id -u)" -ne 0 ]; then echo "SKIP table_full: needs root"; exit 0; fi
ip netns add "$A" && ip netns add "$B" &&
ip link add "$IFA" netns "$A" type veth peer name "$IFB" netns "$B" &&
ip -n "$A" link set "$IFA" up && ip -n "$B" link set "$IFB" up ||
	{ echo "FAIL table_full: cannot build the namespaces"; exit 1; }
ip netns exec "$B" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip netns exec "$A" sysctl -qw net.ipv6.conf.all.disable_ipv6=1

ip netns exec "$B" "$ROCETOP" -i "$IFB" -b --top 0 -d 0.3 --max-flows 16 -n 40 --no-egress --no-nic >"$tmp/out" 2>"$tmp/err" &
rt=$!
for _ in $(seq 50); do grep -q '^rocetop ' "$tmp/out" && break; sleep 0.1; done
ip netns exec "$A" taskset -c 0 "$PY" - "$IFA" <<'PY' 2>/dev/null
import sys
from scapy.all import Ether, IP, UDP, Raw, sendp, conf
from scapy.contrib.roce import BTH
conf.verb = 0
sendp([Ether(dst="02:00:00:00:00:02") / IP(src="10.97.0.1", dst="10.97.0.2", tos=2) /
       UDP(sport=50000, dport=4791) / BTH(opcode=0x0a, dqpn=0x100 + q) / Raw(b"\0" * 32)
       for q in range(40)], iface=sys.argv[1])
PY
wait $rt; rc=$?
nwarn=$(grep -c "the kernel flow table is full (--max-flows 16)" "$tmp/err")
sugg=$(grep -o -- "--max-flows [0-9]* fits every flow" "$tmp/err" | head -1)
tables=$(grep '^rocetop ' "$tmp/out" | grep -vc '  end of run$')
# the tables, one line each: "N:full" when its notes say the table is full
marks=$(awk '/^rocetop / && !/  end of run$/{n++} /^note: .*flow table full since .*fits them/{f[n] = 1}
	END {for (i = 1; i <= n; i++) printf "%s", f[i] ? "F" : "."}' "$tmp/out")
moved=$(awk '/^rocetop / && !/  end of run$/{n++} /table-full [1-9]/{print n; exit}' "$tmp/out")
lastnote=$(grep -o 'flow table full since .*' "$tmp/out" | tail -1 | grep -o -- '--max-flows [0-9]* fits them')
full=$(grep -o 'table-full [0-9]*' "$tmp/out" | awk '{s += $2} END {print s + 0}')
first=$(grep -o 'table-full [0-9]*' "$tmp/out" | awk '$2 > 0 {print 16 + $2; exit}')
if [ $rc = 0 ] && [ "$nwarn" = 1 ] && [ "$sugg" = "--max-flows $first fits every flow" ] && [ "$full" = 24 ] &&
   echo "$marks" | grep -qE '^\.+F+$' && [ "$(expr index "$marks" F)" = "$moved" ] &&
   [ "$lastnote" = "--max-flows 40 fits them" ]; then
	echo "PASS table_full: 24 of 40 flows' frames found no row; said once on stderr (--max-flows $first at that interval), in every table's notes from then on, ending with --max-flows 40"
else
	echo "FAIL table_full: rc=$rc warnings=$nwarn '$sugg' table_full=$full notes per table: $marks (moved at $moved, last: $lastnote); stderr: $(head -2 "$tmp/err")"
	exit 1
fi
