#!/usr/bin/env bash
# --ipfix: a capture of rocetop-gen's traffic read with -r, exported over UDP
# to pmacct's nfacctd (a real collector writing JSON, rocetop's enterprise
# elements read through tests/ipfix/primitives.lst) and captured on loopback
# for tshark's IPFIX dissector: both decode every record, and their per-flow
# packets, bytes, ECN, CNP, ACK and NAK sums equal flows.csv of the same run;
# each record's PFC elements equal pfc.csv. Over TCP (nfacctd has no TCP: a
# collector in tests/ipfix/ipfix_check.py, tshark on the capture): the same
# sums, and after the collector restarts the new connection starts with the
# templates. Over UDP the templates come again every 30 s of capture time.
# A bad address is one sentence and exit 2; an absent collector stops nothing.
set -u
cd "$(dirname "$0")/../.."
ROCETOP=${ROCETOP:-$PWD/build/rocetop}
GEN=${ROCETOP_GEN:-$PWD/build/rocetop-gen}
PCAPGEN=$PWD/${BUILD:-build}/bench/pcap_gen
PY=${PYTHON:-/usr/bin/python3}
CHK="$PY $PWD/tests/ipfix/ipfix_check.py"
T=$(mktemp -d /tmp/rto-ipfix.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
fails=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

if [ "$(id -u)" -ne 0 ]; then echo "SKIP ipfix: needs root (tcpdump on lo)"; exit 0; fi
for t in nfacctd tshark tcpdump ss; do
	command -v $t >/dev/null || { fail ipfix "no $t (make deps installs it)"; exit 1; }
done
for b in "$ROCETOP" "$GEN" "$PCAPGEN"; do
	[ -x "$b" ] || { fail ipfix "no $b (make)"; exit 1; }
done
free_port() {	# a free port of the kind given (udp or tcp), picked by the kernel
	$PY -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM if sys.argv[1] == "udp" else socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' "$1"
}
# capture FILTER OUT: tcpdump on lo in the background, back once it listens
capture() {
	tcpdump -i lo -U --immediate-mode -B 32768 -n -w "$2" "$1" 2>"$2.err" &
	pids+=($!)
	for _ in $(seq 100); do grep -q "listening on" "$2.err" && return 0; sleep 0.05; done
	return 1
}
stop() {	# stop a background process by pid (SIGINT: tcpdump and nfacctd write what they hold)
	kill -INT "$1" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
	kill -9 "$1" 2>/dev/null
}

# The traffic: the mixed scenario (CE, CNP, ACK, NAK, RNR NAK, a PFC storm).
"$GEN" --scenario mixed --duration 6 --rate 1500 --pcap "$T/mixed.pcap" --tally "$T/tally" -q ||
	{ fail ipfix "rocetop-gen could not write the capture"; exit 1; }

# --- UDP to nfacctd, captured for tshark
U=$(free_port udp)
sed -e "s|@PORT@|$U|" -e "s|@PRIM@|$PWD/tests/ipfix/primitives.lst|" -e "s|@OUT@|$T/nf.json|" \
	>"$T/nf.conf" <<'EOF'
daemonize: false
nfacctd_ip: 127.0.0.1
nfacctd_port: @PORT@
aggregate_primitives: @PRIM@
plugins: print[p]
aggregate[p]: src_host, dst_host, src_port, dst_port, proto, in_iface, out_iface, timestamp_start, timestamp_end, dqpn, lqpn, fdir, notect, ect0, ect1, ce, cnp, ack, nakseq, nakother, rnr, prio, pfcpause, pfcquanta
print_output[p]: json
print_output_file[p]: @OUT@
print_output_file_append[p]: true
print_refresh_time[p]: 1
timestamps_since_epoch: true
EOF
nfacctd -f "$T/nf.conf" >"$T/nf.log" 2>&1 &
nfpid=$!
pids+=($nfpid)
for _ in $(seq 100); do ss -Huln "sport = :$U" | grep -q . && break; sleep 0.05; done
capture "udp port $U" "$T/udp.pcap" || fail udp_capture "tcpdump did not start"
tdpid=${pids[-1]}
"$ROCETOP" -r "$T/mixed.pcap" -d 0.25 --csv "$T/U" -D -q --ipfix "127.0.0.1:$U" 2>"$T/udp.err"
rc=$?
sleep 2.5	# nfacctd's print plugin writes every second
stop "$nfpid"
stop "$tdpid"
if [ $rc -ne 0 ]; then
	fail ipfix_udp "rocetop exited $rc: $(head -3 "$T/udp.err")"
else
	$CHK csv "$T/U" >"$T/csv.json"
	$CHK nfacctd "$T/nf.json" >"$T/nf_sums.json" 2>"$T/chk.err" || : >"$T/nf_sums.json"
	if out=$($CHK cmp "$T/csv.json" "$T/nf_sums.json" nfacctd 2>&1); then
		pass "nfacctd_udp_equals_flows_csv ($($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["records"], "records,", len(d["flows"]), "flows")' "$T/csv.json"))"
	else
		fail nfacctd_udp_equals_flows_csv "$out $(tail -2 "$T/nf.log")"
	fi
	$CHK tshark "$T/udp.pcap" udp "$U" >"$T/ts.json"
	if out=$($CHK cmp "$T/csv.json" "$T/ts.json" tshark 2>&1); then pass tshark_udp_equals_flows_csv
	else fail tshark_udp_equals_flows_csv "$out"; fi
	read -r bad tmpl <<<"$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["malformed"], d["templates"])' "$T/ts.json")"
	[ "$bad" = 0 ] && [ "$tmpl" = 2 ] && pass tshark_udp_well_formed ||
		fail tshark_udp_well_formed "$bad malformed, $tmpl templates (want 0 and 2: one set of v4 and v6)"
	if out=$($CHK pfc "$T/U" "$T/nf.json" 2>&1); then pass pfc_elements_equal_pfc_csv
	else fail pfc_elements_equal_pfc_csv "$out"; fi
fi

# --- UDP: the templates again every 30 s of capture time (70 s of frames)
"$PCAPGEN" "$T/long.pcap" 700 7 70 >/dev/null || fail template_timer "pcap_gen failed"
U2=$(free_port udp)
$PY -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", int(sys.argv[1]))); s.settimeout(5)
try:
    while True: s.recv(65536)
except OSError: pass' "$U2" &
pids+=($!)
for _ in $(seq 100); do ss -Huln "sport = :$U2" | grep -q . && break; sleep 0.05; done
capture "udp port $U2" "$T/long_cap.pcap"
tdpid=${pids[-1]}
"$ROCETOP" -r "$T/long.pcap" --csv "$T/L" -D -q --ipfix "127.0.0.1:$U2" 2>"$T/long.err"
sleep 0.5
stop "$tdpid"
$CHK tshark "$T/long_cap.pcap" udp "$U2" >"$T/long.json"
want=$($PY -c 'import csv, sys
t = sorted({float(r["time"]) for r in csv.DictReader(open(sys.argv[1]))})
print(2 * (1 + int((t[-1] - t[0] + 1e-6) // 30)))' "$T/L/stats.csv")
got=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["templates"])' "$T/long.json")
[ "$got" = "$want" ] && [ "$want" -ge 6 ] && pass "udp_templates_every_30s ($got template records)" ||
	fail udp_templates_every_30s "tshark saw $got template records, want $want"

# --- TCP: a collector that stays (sums), then one that restarts (templates again)
P=$(free_port tcp)
capture "tcp port $P" "$T/tcp.pcap"
tdpid=${pids[-1]}
$CHK collect "$P" "$T/tcp1" 1 >"$T/coll1.out" &
cpid=$!
pids+=($cpid)
for _ in $(seq 100); do grep -q listening "$T/coll1.out" && break; sleep 0.05; done
"$ROCETOP" -r "$T/mixed.pcap" -d 0.25 --csv "$T/TC" -D -q --ipfix "tcp:127.0.0.1:$P" 2>"$T/tcp.err"
rc=$?
wait "$cpid" 2>/dev/null
sleep 0.3
stop "$tdpid"
$CHK tshark "$T/tcp.pcap" tcp "$P" >"$T/tcp_ts.json"
$CHK csv "$T/TC" >"$T/tcp_csv.json"
if [ $rc -eq 0 ] && out=$($CHK cmp "$T/tcp_csv.json" "$T/tcp_ts.json" tshark-tcp 2>&1) &&
   out=$($CHK streams "$T/tcp1.0" 2>&1); then
	pass tcp_tshark_equals_flows_csv
else
	fail tcp_tshark_equals_flows_csv "exit $rc: $out $(head -2 "$T/tcp.err")"
fi

P2=$(free_port tcp)
$CHK collect "$P2" "$T/tcp2" 2 >"$T/coll2.out" &
cpid=$!
pids+=($cpid)
for _ in $(seq 100); do grep -q listening "$T/coll2.out" && break; sleep 0.05; done
# --listen paces the file at capture speed, so the run outlives the restart.
H=$(free_port tcp)
"$ROCETOP" -r "$T/mixed.pcap" -d 0.5 -D --listen "127.0.0.1:$H" --ipfix "tcp:127.0.0.1:$P2" 2>"$T/tcp2.err"
rc=$?
wait "$cpid" 2>/dev/null
if [ $rc -eq 0 ] && [ -s "$T/tcp2.1" ] && out=$($CHK streams "$T/tcp2.0" "$T/tcp2.1" 2>&1); then
	pass tcp_templates_after_collector_restart
else
	fail tcp_templates_after_collector_restart "exit $rc, ${out:-no second connection} $(head -3 "$T/tcp2.err")"
fi

# --- a collector that accepts and closes each connection at once: said once
# (not a "closed" / "connected again" pair every reconnection), and the
# messages rocetop says it sent (-v) are no more than tshark saw go out on
# the wire (a message counts once written to the socket, not when queued:
# the queue a lost connection throws away was counted as sent)
P3=$(free_port tcp)
capture "tcp port $P3" "$T/close.pcap"
tdpid=${pids[-1]}
"$PY" - "$P3" 10 >"$T/closer.out" <<'PY' &
import socket, sys, time
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", int(sys.argv[1]))); ls.listen(8); ls.settimeout(1)
print("listening", flush=True)
t0, n = time.time(), 0
while time.time() - t0 < float(sys.argv[2]):
    try:
        c, _ = ls.accept()
    except socket.timeout:
        continue
    c.close(); n += 1
print("accepted", n, flush=True)
PY
cpid=$!
pids+=($cpid)
for _ in $(seq 100); do grep -q listening "$T/closer.out" && break; sleep 0.05; done
H=$(free_port tcp)
"$ROCETOP" -r "$T/mixed.pcap" -d 0.5 -D --listen "127.0.0.1:$H" --ipfix "tcp:127.0.0.1:$P3" -v 2>"$T/close.err" >/dev/null
rc=$?
kill "$cpid" 2>/dev/null; wait "$cpid" 2>/dev/null
sleep 0.3
stop "$tdpid"
closed=$(grep -c "IPFIX collector.*connection closed" "$T/close.err")
again=$(grep -c "IPFIX collector.*connected again" "$T/close.err")
sent=$(sed -n 's/.*IPFIX: [0-9]* records, \([0-9]*\) messages sent.*/\1/p' "$T/close.err")
wire=$(tshark -r "$T/close.pcap" -d "tcp.port==$P3,cflow" -V 2>/dev/null | grep -c '^Cisco NetFlow/IPFIX')
echo "MEASURE ipfix: a collector that accepts and closes: $sent messages said sent, $wire on the wire," \
	"$(sed -n 's/.* \([0-9]*\) dropped,.*/\1/p' "$T/close.err") dropped; $closed 'closed' and $again 'connected again' lines"
[ $rc = 0 ] && [ "$closed" = 1 ] && [ "$again" = 0 ] &&
	pass "tcp_accept_and_close_said_once" ||
	fail tcp_accept_and_close_said_once "exit $rc, $closed 'connection closed' and $again 'connected again' lines"
[ -n "$sent" ] && [ "$wire" -ge 1 ] && [ "$sent" -le "$wire" ] &&
	pass "tcp_sent_counts_what_was_written ($sent said sent, $wire on the wire)" ||
	fail tcp_sent_counts_what_was_written "rocetop says ${sent:-?} sent, tshark saw $wire"

# --- bad addresses: one sentence, exit 2, before anything starts
for a in 127.0.0.1 127.0.0.1:0 127.0.0.1:70000 tcp: "sctp:127.0.0.1:4739" "::1:4739" "[::1]4739" ":4739"; do
	"$ROCETOP" -r "$T/mixed.pcap" -D --ipfix "$a" >"$T/bad.out" 2>"$T/bad.err"
	rc=$?
	if [ $rc -ne 2 ] || [ "$(wc -l <"$T/bad.err")" -ne 1 ] || ! grep -q -- "--ipfix" "$T/bad.err"; then
		fail "bad_address '$a'" "exit $rc, said: $(cat "$T/bad.err")"
		continue
	fi
	pass "bad_address '$a'"
done

# --- a name that does not resolve is said so (.invalid never resolves: RFC 6761)
"$ROCETOP" -r "$T/mixed.pcap" -D --ipfix "tcp:collector.invalid:4739" >/dev/null 2>"$T/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/bad.err")" = 1 ] && grep -q "host name does not resolve" "$T/bad.err" &&
	pass "unresolvable_name_said ($(cat "$T/bad.err"))" || fail unresolvable_name_said "exit $rc: $(cat "$T/bad.err")"

# --- no collector: UDP to a closed port and TCP refused; the rest goes on
for how in "127.0.0.1:$(free_port udp)" "tcp:127.0.0.1:$(free_port tcp)"; do
	rm -rf "$T/N"
	"$ROCETOP" -r "$T/mixed.pcap" -d 0.25 --csv "$T/N" -D --ipfix "$how" 2>"$T/none.err"
	rc=$?
	n=$(grep -c "IPFIX collector" "$T/none.err")
	if [ $rc -eq 0 ] && cmp -s "$T/N/flows.csv" "$T/U/flows.csv" && [ "$n" -ge 1 ] && [ "$n" -le 2 ]; then
		pass "no_collector_goes_on ${how%%:*}"
	else
		fail "no_collector_goes_on ${how%%:*}" "exit $rc, $n lines about the collector: $(head -3 "$T/none.err")"
	fi
done
exit $((fails > 0))
