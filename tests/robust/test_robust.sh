#!/usr/bin/env bash
# Robustness: hostile and unlucky captures, paths and outputs.
# Every expected number is the test's own: frames written by tests/robust/
# craft.py (scapy and struct, 122-byte RoCE frames), times chosen here.
#   -   timestamps past 2038 / 2106 / 2^64-1 and a negative if_tsoffset
#   -   an origlen of 4 GiB counts as malformed; CSV cut back to whole rows
#   -   -r x -w x (any spelling), --csv and rotation onto the input
#   -   symbolic links and others' directories refused for -w and --csv
#   -   --batch into /dev/full: a sentence and exit 1
#   -   escapes out of --batch, report and messages (a hostile recording too),
#       RFC 4180 quoting in CSV
#   -   a second writer of one recording is refused
#   -   -r - from a pipe, and -r FIFO
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup robust
rt_on_exit 'mountpoint -q "$T/small" && umount "$T/small"'
C="$PY $PWD/tests/robust/craft.py"
rt_need_py robust scapy
cd "$T"
L=$($C framelen)	# 122

# stats.csv column of the last data row: col FILE NAME
col() { $PY - "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(sum(int(r[sys.argv[2]]) for r in rows) if sys.argv[2] != "time" else rows[-1]["time"])
PY
}

# --- 3: times. ts_sec 0xFFFFFFFF is 2106 (unsigned), not -1: the grid jumps
# there once; 2100 reads as 2100; 2^64-1 usec and if_tsoffset < 0 cannot be
# placed: skipped with a note; every run ends within seconds.
$C pcap-times t1.pcap 1700000000 1700000000 0xFFFFFFFF
timeout 20 "$ROCETOP" -r t1.pcap --csv c1 -D -q 2>e1; rc=$?
if [ $rc = 0 ] && [ "$(col c1/stats.csv frames)" = 3 ] && [ "$(col c1/stats.csv time)" = 4294967296.000000 ]; then
	pass pcap_ts_sec_ffffffff_is_2106
else fail pcap_ts_sec_ffffffff_is_2106 "rc $rc, frames $(col c1/stats.csv frames), last time $(col c1/stats.csv time)"; fi
$C pcap-times t2.pcap 4102444800
timeout 20 "$ROCETOP" -r t2.pcap --csv c2 -D -q 2>e2; rc=$?
[ $rc = 0 ] && [ "$(col c2/stats.csv time)" = 4102444801.000000 ] && pass pcap_seconds_after_2038_unsigned ||
	fail pcap_seconds_after_2038_unsigned "rc $rc, interval end $(col c2/stats.csv time), want 4102444801.000000 (2100)"
$C pcapng-times t3.pcapng 1700000000000000 1700000000100000 0xFFFFFFFFFFFFFFFF 1700000000200000
timeout 20 "$ROCETOP" -r t3.pcapng -b -q >b3 2>e3; rc=$?
if [ $rc = 0 ] && grep -q '^frames 3 ' b3 && grep -q '^note: 1 packet(s) skipped: their time cannot be placed' b3; then
	pass pcapng_ts_2e64_skipped_with_note
else fail pcapng_ts_2e64_skipped_with_note "rc $rc: $(head -c 300 b3) $(cat e3)"; fi
$C pcapng-offset t4.pcapng -2000000000 3
timeout 20 "$ROCETOP" -r t4.pcapng -b >b4 2>e4; rc=$?
grep -q 'holds no packet whose time can be placed (3 skipped)' e4 && [ ! -s b4 ] &&
	pass pcapng_negative_tsoffset_skipped || fail pcapng_negative_tsoffset_skipped "rc $rc: $(cat e4) $(head -c 200 b4)"

# --- 19: origlen 0xfffffff0 on 3 of 5 records: malformed, counted with their
# 122 captured bytes, not 12 GiB.
$C origlen ol.pcap
"$ROCETOP" -r ol.pcap --csv c5 -D 2>e5
got="$(col c5/stats.csv frames) $(col c5/stats.csv bytes) $(col c5/stats.csv roce) $(col c5/stats.csv malformed)"
[ "$got" = "5 $((5 * L)) 2 3" ] && pass origlen_clamped_malformed ||
	fail origlen_clamped_malformed "frames bytes roce malformed = $got, want 5 $((5 * L)) 2 3; rocetop said: $(cat e5)"

# --- 4: -r ./x.pcap -w x.pcap (and --csv onto it, and a rotation onto it)
cp ol.pcap x.pcap; sum0=$(md5sum < x.pcap)
"$ROCETOP" -r ./x.pcap -w x.pcap -D 2>e6; rc=$?
[ $rc != 0 ] && [ "$(md5sum < x.pcap)" = "$sum0" ] && grep -q 'is the file being read' e6 &&
	pass write_onto_input_refused || fail write_onto_input_refused "rc $rc, $(cat e6)"
mkdir -m 700 d7 && ln x.pcap d7/flows.csv 2>/dev/null || cp x.pcap d7/flows.csv
"$ROCETOP" -r d7/flows.csv --csv d7 -D 2>e7; rc=$?
[ $rc != 0 ] && [ "$(md5sum < d7/flows.csv)" = "$sum0" ] && pass csv_onto_input_refused ||
	fail csv_onto_input_refused "rc $rc, $(cat e7)"
$C many three.pcap 3000 3	# three intervals of 1000 flows: blocks above 4 KiB
"$ROCETOP" -r three.pcap -w r.rtr -D -q && mv r.rtr r.rtr.1; sum1=$(md5sum < r.rtr.1)
"$ROCETOP" -r r.rtr.1 -w r.rtr --max-size 4096 -D 2>e8; rc=$?
[ $rc != 0 ] && [ "$(md5sum < r.rtr.1)" = "$sum1" ] && grep -q 'would replace .*r.rtr.1, the file being read' e8 &&
	pass rotation_onto_input_refused ||
	fail rotation_onto_input_refused "rc $rc, $(cat e8)"

# --- 5: links and others' directories
echo precious > victim; mkdir -m 700 d9; ln -s "$T/victim" d9/flows.csv; ln -s "$T/victim" link.rtr
"$ROCETOP" -r ol.pcap --csv d9 -D 2>e9; rc1=$?
"$ROCETOP" -r ol.pcap -w link.rtr -D 2>>e9; rc2=$?
[ $rc1 != 0 ] && [ $rc2 != 0 ] && [ "$(cat victim)" = precious ] && grep -q 'symbolic link' e9 &&
	pass outputs_never_follow_links || fail outputs_never_follow_links "rc $rc1 $rc2, victim $(head -c 40 victim), $(cat e9)"
mkdir -m 777 d10
"$ROCETOP" -r ol.pcap --csv d10 -D 2>e10; rc=$?
[ $rc != 0 ] && grep -q 'writable by other users' e10 && [ ! -e d10/flows.csv ] &&
	pass csv_dir_writable_by_others_refused || fail csv_dir_writable_by_others_refused "rc $rc, $(cat e10)"
mkdir d11 && chmod 1777 d11 && chown nobody d11 2>/dev/null
"$ROCETOP" -r ol.pcap --csv d11 -D 2>e11; rc=$?
[ $rc != 0 ] && [ ! -e d11/flows.csv ] && pass csv_sticky_dir_of_another_user_refused ||
	fail csv_sticky_dir_of_another_user_refused "rc $rc, $(cat e11)"
# An earlier run's files are replaced, and that is said.
"$ROCETOP" -r ol.pcap --csv c5 -D 2>e12; rc=$?
[ $rc = 0 ] && grep -q 'held .* bytes of an earlier run; they are replaced' e12 &&
	pass earlier_run_replaced_is_said || fail earlier_run_replaced_is_said "rc $rc, $(cat e12)"

# --- 10: write errors
"$ROCETOP" -r ol.pcap -b >/dev/full 2>e13; rc=$?
[ $rc = 1 ] && grep -q 'standard output failed' e13 && pass batch_write_error_exit_1 ||
	fail batch_write_error_exit_1 "rc $rc, $(cat e13)"

# --- 11: a capture named with an escape sequence and with a comma and a quote
esc=$(printf 'e\033]0;x\007.pcap'); cp ol.pcap "$esc"
"$ROCETOP" -r "$esc" -b -q >b14 2>&1; rc=$?
n=$(tr -cd '\033\007' < b14 | wc -c)
[ $rc = 0 ] && [ "$n" = 0 ] && grep -q 'e?\]0;x?.pcap' b14 && pass batch_escapes_control_bytes ||
	fail batch_escapes_control_bytes "rc $rc, $n control bytes in the output"
cp ol.pcap 'a,b"c.pcap'
"$ROCETOP" -r 'a,b"c.pcap' --csv c15 -D -q 2>e15
out=$($PY - c15 <<'PY'
import csv, sys
for name in ("flows.csv", "stats.csv"):
    rows = list(csv.reader(open(sys.argv[1] + "/" + name)))
    width = len(rows[0])
    for r in rows[1:]:
        if len(r) != width or r[1] != 'a,b"c.pcap':
            print(name, "row", r, "has", len(r), "fields, want", width, "and ifname a,b\"c.pcap")
            break
PY
)
[ -z "$out" ] && pass csv_fields_quoted_rfc4180 || fail csv_fields_quoted_rfc4180 "$out"

# --- 12: a second writer (the first holds the flock rocetop takes)
"$ROCETOP" -r ol.pcap -w w.rtr -D -q; sumw=$(md5sum < w.rtr)
flock w.rtr sleep 3 &
sleep 0.3
"$ROCETOP" -r ol.pcap -w w.rtr -D 2>e16; rc=$?
wait
[ $rc != 0 ] && grep -q 'being written by another process' e16 && [ "$(md5sum < w.rtr)" = "$sumw" ] &&
	pass second_writer_refused || fail second_writer_refused "rc $rc, $(cat e16)"

# --- 13: pipes and FIFOs
cat t1.pcap | timeout 20 "$ROCETOP" -r - --csv c17 -D -q 2>e17; rc=$?
[ $rc = 0 ] && [ "$(col c17/stats.csv frames)" = 3 ] && pass read_capture_from_stdin_pipe ||
	fail read_capture_from_stdin_pipe "rc $rc, $(cat e17)"
cat w.rtr | timeout 20 "$ROCETOP" -r - --csv c18 -D -q 2>e18; rc=$?
[ $rc = 0 ] && [ "$(col c18/stats.csv frames)" = 5 ] && pass read_recording_from_stdin_pipe ||
	fail read_recording_from_stdin_pipe "rc $rc, $(cat e18)"
mkfifo fifo; (cat ol.pcap > fifo &)
timeout 20 "$ROCETOP" -r fifo --csv c19 -D -q 2>e19; rc=$?
[ $rc = 0 ] && [ "$(col c19/stats.csv malformed)" = 3 ] && pass read_capture_from_fifo ||
	fail read_capture_from_fifo "rc $rc, $(cat e19)"

# --- 19: a full disk: each CSV file ends with a whole row, the run says so and exits 1.
mkdir -m 700 small && mount -t tmpfs -o size=64k,mode=700 rto-rob "$T/small" || fail csv_enospc "cannot mount a small tmpfs"
$C many many.pcap 3000
"$ROCETOP" -r many.pcap --csv small/c -D -q -d 0.01 2>e20; rc=$?
out=$(for f in small/c/*.csv; do [ -s "$f" ] && [ "$(tail -c1 "$f" | od -An -c | tr -d ' ')" != '\n' ] && echo "$f ends mid-row"; done)
# the reason given is the disk's (it said "Input/output error")
[ $rc = 1 ] && [ -z "$out" ] && grep -q 'cut back to its last whole row' e20 && grep -q 'No space left on device' e20 &&
	pass csv_full_disk_whole_rows ||
	fail csv_full_disk_whole_rows "rc $rc, $out $(cat e20)"
# --- 7: a source that stops answering (a pipe whose writer stalls): one
# SIGTERM still ends the run, within the 3 s grace, with status 128 + 15.
mkfifo stall
( cat ol.pcap; exec sleep 25 ) > stall &
wpid=$!
"$ROCETOP" -r stall -b -q >b21 2>e21 &
rpid=$!
sleep 1; kill -TERM $rpid
for _ in $(seq 80); do kill -0 $rpid 2>/dev/null || break; sleep 0.1; done
if kill -0 $rpid 2>/dev/null; then
	fail signal_ends_stalled_run "still running 8 s after SIGTERM"; kill -KILL $rpid
else
	wait $rpid; rc=$?
	[ $rc = 143 ] && grep -q 'has not answered' e21 && pass signal_ends_stalled_run ||
		fail signal_ends_stalled_run "rc $rc, $(cat e21)"
fi
kill $wpid 2>/dev/null; wait 2>/dev/null
# --- 17: -r FILE --listen -D is paced by --speed: five 1 s intervals of
# capture time at --speed 2 take 2 s or more from the first (unpaced:
# milliseconds), and the endpoint, scraped every 0.1 s
# from the moment it serves until rocetop ends, shows the frames as they come
# (2 to 4 of the 5 at some scrape: neither all at once nor an endpoint
# already gone). A scrape at a fixed time failed on a loaded machine, where
# rocetop started serving late.
$C pcap-times five.pcap 1700000000 1700000001 1700000002 1700000003 1700000004
port=$(rt_free_port)	# the kernel's pick, not one another test may hold
timeout 20 "$ROCETOP" -r five.pcap --listen 127.0.0.1:$port -D --speed 2 2>e22 &
lpid=$!
for _ in $(seq 200); do grep -q 'serving Prometheus' e22 && break; sleep 0.05; done
start=$(date +%s%N) seen=
while kill -0 $lpid 2>/dev/null; do
	seen+=" $(curl -s --max-time 2 127.0.0.1:$port/metrics | sed -n 's/^rocetop_interface_frames_total{interface="five.pcap",direction="ingress"} //p')"
	sleep 0.1
done
wait $lpid; rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
mid=$(tr ' ' '\n' <<<"$seen" | awk '$1 >= 2 && $1 <= 4' | head -n 1)
[ $rc = 0 ] && [ -n "$mid" ] && [ $ms -ge 1500 ] &&
	pass listen_replay_paced_by_speed || fail listen_replay_paced_by_speed "rc $rc, scraped frames '$seen', took $ms ms from serving, $(cat e22)"
# --- 15: --sort is checked and --batch applies it: qp 0x22 (3 frames, all CE)
# leads by congestion, qp 0x21 (10 frames) by pkts.
$C twoflows two.pcap
first() { "$ROCETOP" -r two.pcap -b -q "$@" | awk '$3 ~ /^10\.0\.0\./ { print $5; exit }'; }
a=$(first); b=$(first --sort pkts); c=$(first --sort ce)
[ "$a" = 34 ] && [ "$b" = 33 ] && [ "$c" = 34 ] && pass batch_applies_sort ||
	fail batch_applies_sort "first DQPN by congestion $a (want 34), by pkts $b (want 33), by ce $c (want 34)"
"$ROCETOP" -r two.pcap -b --sort bogus >/dev/null 2>e23; rc=$?
[ $rc = 2 ] && grep -q "^rocetop: --sort 'bogus' is not valid" e23 && pass sort_checked_exit_2 ||
	fail sort_checked_exit_2 "rc $rc, $(cat e23)"

# --- 18: exit statuses agree and say why
$C empty empty.pcap; $C badfirst badfirst.pcap
for f in empty.pcap badfirst.pcap; do
	"$ROCETOP" -r $f -b >/dev/null 2>e24; r1=$?
	"$ROCETOP" report $f >/dev/null 2>>e24; r2=$?
	[ $r1 = 1 ] && [ $r2 = 1 ] && pass "empty_or_damaged_capture_exit_1_both ($f)" ||
		fail empty_or_damaged_capture_exit_1_both "$f: -r exits $r1, report $r2: $(cat e24)"
done
long=$(printf 'x%.0s' $(seq 300))
for i in "" "$long"; do
	"$ROCETOP" -i "$i" -b -n 1 >/dev/null 2>e25; rc=$?
	[ $rc = 2 ] && grep -q 'interface names are at most 15 characters' e25 && pass "bad_interface_name_exit_2 (${#i} chars)" ||
		fail bad_interface_name_exit_2 "-i of ${#i} characters: rc $rc, $(cat e25)"
done
"$ROCETOP" -r two.pcap --listen 1.2.3:x -D 2>e26; rc=$?
[ $rc = 2 ] && grep -q "listen '1.2.3:x' is not valid" e26 && pass listen_syntax_exit_2 ||
	fail listen_syntax_exit_2 "rc $rc, $(cat e26)"
# --- 10, 11 for report: a write error is said (exit 1); names from the file
# reach the terminal printable only, and --json stays valid UTF-8 JSON.
"$ROCETOP" report ol.pcap >/dev/full 2>e27; rc=$?
[ $rc = 1 ] && grep -q 'writing the report to standard output failed' e27 && pass report_write_error_said ||
	fail report_write_error_said "rc $rc, $(cat e27)"
"$ROCETOP" report "$esc" >r28 2>&1; rc=$?
n=$(tr -cd '\033\007' < r28 | wc -c)
[ $rc = 0 ] && [ "$n" = 0 ] && pass report_escapes_control_bytes || fail report_escapes_control_bytes "rc $rc, $n control bytes"
bad=$(printf 'u\377\376x.pcap'); cp ol.pcap "$bad"
"$ROCETOP" report --json "$bad" >r29 2>e29; rc=$?
out=$($PY -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8")); print("ok")' r29 2>&1)
[ $rc = 0 ] && [ "$out" = ok ] && pass report_json_valid_utf8 || fail report_json_valid_utf8 "rc $rc, $out"
# --- 11 again, for what came after it (sFlow, findings, messages): a
# recording whose every string carries an OSC title set, a clear screen, a
# C1 CSI (C2 9B), a bare 9B and an invalid FF (test_record --hostile). None of
# those bytes may reach --batch, report or a message; the escaped form shows.
"$(dirname "$ROCETOP")/tests/test_record" --hostile h.rtr
ctl() { $PY -c 'import sys; b=open(sys.argv[1],"rb").read(); print(sum(b.count(c) for c in (b"\x1b", b"\x07", b"\x9b", b"\xff", b"\xc2")))' "$1"; }
"$ROCETOP" -r h.rtr -b >b30 2>&1; rc=$?
[ $rc = 0 ] && [ "$(ctl b30)" = 0 ] && grep -q 'sFlow agent ?]0;AGT??:' b30 && grep -q '^  ?]0;SWP??\[2J:7 ' b30 &&
	grep -q 'device=?]0;DEV??? port=1 counter=tx_pause_storm_warning_events: tx_pause_storm_warning_events on ?]0;NDV? moved' b30 &&
	pass batch_escapes_sflow_and_findings || fail batch_escapes_sflow_and_findings "rc $rc, $(ctl b30) control bytes"
"$ROCETOP" report h.rtr >r31 2>&1; rc=$?
[ $rc = 0 ] && [ "$(ctl r31)" = 0 ] && grep -q 'ifname=?]0;SWP??\[2J:7 dir=ingress' r31 &&
	pass report_escapes_findings || fail report_escapes_findings "rc $rc, $(ctl r31) control bytes"
"$ROCETOP" report --json h.rtr >r32 2>e32; rc=$?
out=$($PY -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8")); print("ok")' r32 2>&1)
[ $rc = 0 ] && [ "$out" = ok ] && pass report_json_hostile_recording || fail report_json_hostile_recording "rc $rc, $out"
"$ROCETOP" -r "$(printf 'no\033]0;T\007such\302\233.pcap')" -b >b33 2>&1; rc=$?
[ $rc != 0 ] && [ "$(ctl b33)" = 0 ] && grep -q 'cannot open no?\]0;T?such??.pcap' b33 &&
	pass message_escapes_file_name || fail message_escapes_file_name "rc $rc, $(ctl b33) control bytes: $(cat -v b33)"
exit 0
