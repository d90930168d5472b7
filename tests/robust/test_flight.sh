#!/usr/bin/env bash
# The flight recorder's files: every expected fact
# is the test's own: files it placed (their checksums), the capture times it
# chose (file names), stat, and the exit status.
#   1   --max-files removes only flight recordings of this host, oldest first by
#       their creation time, never the file just started; a user's
#       rocetop-baseline.rtr, rocetop-manual.rtr and a -w recording with a
#       flight-like name stay byte for byte
#   9   a full disk (a tmpfs of the test's own): no empty file left, one
#       sentence, exit status 1, the complete file already there untouched
#   12  --flight-recorder 500ms says 0.5 s, not 0 s
#   13  in a shared sticky DIR, another user's flight files (newer, this
#       host's, genuine headers) neither count nor make root's real
#       recording go (it did); they stay too
#   14  -w rotation never replaces a file rocetop did not write: a user's
#       w.rtr.2 stays byte for byte, one sentence, exit 1 (it was replaced)
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_setup flight
rt_on_exit 'mountpoint -q "$T/full" && umount "$T/full"'
rt_captures flight
# The storm capture's packets, moved back by SHIFT seconds (classic pcap, little-endian).
shift_pcap() { $PY - "$1" "$2" "$3" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read()); shift = int(sys.argv[3]); o = 24
while o + 16 <= len(d):
    s, = struct.unpack_from("<I", d, o); struct.pack_into("<I", d, o, s - shift)
    o += 16 + struct.unpack_from("<I", d, o + 8)[0]
open(sys.argv[2], "wb").write(d)
PY
}
shift_pcap "$T/storm.pcap" "$T/early.pcap" 100000000	# about 3 years earlier: a name that sorts first
# The flight file a run wrote: the one name in DIR that was not there before.
names() { printf '%s\n' "$@" | sort | tr '\n' ' '; }
newfile() { comm -13 <(printf '%s\n' "$2" | sort) <(cd "$1" && ls | sort) | head -1; }

# ---- 1: the user's files stay; the recorder's oldest goes, by creation time
D=$T/d; mkdir "$D"
"$ROCETOP" -r "$T/storm.pcap" -w "$D/rocetop-baseline.rtr" -D -q 2>/dev/null
printf 'notes kept by hand\n' >"$D/rocetop-manual.rtr"
"$ROCETOP" -r "$T/storm.pcap" -w "$D/rocetop-20000101T000000.rtr" -D -q 2>/dev/null
mine() { (cd "$D" && md5sum rocetop-baseline.rtr rocetop-manual.rtr rocetop-20000101T000000.rtr); }
sums=$(mine)
before=$(cd "$D" && ls)
"$ROCETOP" -r "$T/storm.pcap" -D -d 0.5 --flight-recorder 2s --flight-dir "$D" --max-files 1 2>"$T/e1"; rc1=$?
A=$(newfile "$D" "$before")
sleep 1.1	# the second file's creation time is later, its name sorts first
before=$(cd "$D" && ls)
"$ROCETOP" -r "$T/early.pcap" -D -d 0.5 --flight-recorder 2s --flight-dir "$D" --max-files 1 2>"$T/e2"; rc2=$?
B=$(newfile "$D" "$before")
case "$A/$B" in
rocetop-2023*.rtr/rocetop-2020*.rtr)
	left=$(cd "$D" && ls | tr '\n' ' ')
	want=$(names "$B" rocetop-20000101T000000.rtr rocetop-baseline.rtr rocetop-manual.rtr)
	if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$left" = "$want" ] && [ "$(mine)" = "$sums" ] &&
	   grep -q "removed $D/$A" "$T/e2" && [ "$(grep -c removed "$T/e1" "$T/e2" | awk -F: '{s+=$2} END {print s}')" = 1 ]; then
		pass "flight_max_files_only_own: the user's three files stay byte for byte, $A (older) removed, $B (just written) kept"
	else
		fail flight_max_files_only_own "exit $rc1/$rc2; left '$left', want '$want'; $(grep -h 'removed\|written' "$T/e1" "$T/e2" | head -6)"
	fi
	# Every "written" line names a file that is there.
	gone=""
	for f in $(grep -ho 'flight recorder: [^ ]* written' "$T/e1" "$T/e2" | awk '{print $3}'); do
		[ "$f" = "$D/$A" ] && continue	# removed later, by the second run, which said so
		[ -s "$f" ] || gone="$gone $f"
	done
	[ -z "$gone" ] && grep -q "$D/$B written" "$T/e2" && pass "flight_written_line_names_a_file_there" ||
		fail flight_written_line_names_a_file_there "written but gone:$gone; $(grep -h written "$T/e2")"
	# --max-files 2: a third run keeps B and its own file, both flight files.
	before=$(cd "$D" && ls)
	"$ROCETOP" -r "$T/storm.pcap" -D -d 0.5 --flight-recorder 2s --flight-dir "$D" --max-files 2 2>"$T/e3"; rc3=$?
	C=$(newfile "$D" "$before")
	left=$(cd "$D" && ls | tr '\n' ' ')
	[ $rc3 = 0 ] && [ -n "$C" ] && [ "$left" = "$(names "$B" "$C" rocetop-20000101T000000.rtr rocetop-baseline.rtr rocetop-manual.rtr)" ] &&
		[ "$(mine)" = "$sums" ] && pass "flight_max_files_2_keeps_both_own" ||
		fail flight_max_files_2_keeps_both_own "exit $rc3, left '$left'"
	;;
*)	fail flight_max_files_only_own "the two runs left '$A' and '$B' in $D, want a 2023 and a 2020 flight file: $(ls "$D" | tr '\n' ' ')" ;;
esac

# ---- 12: a duration under a second is said as it is
"$ROCETOP" -r "$T/storm.pcap" -D -d 0.1 --flight-recorder 500ms --flight-dir "$T" 2>"$T/e4" >/dev/null
grep -q 'keeping the last 0.5 s;' "$T/e4" && grep -q 'and the next 0.5 s' "$T/e4" &&
	pass "flight_500ms_said_0.5s" || fail flight_500ms_said_0.5s "$(grep -h 'keeping\|next' "$T/e4")"

# ---- 13: another user's files in a shared sticky directory
S=$T/shared; mkdir -m 1777 "$S"; chmod 755 "$T"
for k in 1 2 3; do shift_pcap "$T/storm.pcap" "$S/in$k.pcap" $((k * 10000000)); done
chmod 644 "$S"/in*.pcap
"$ROCETOP" -r "$T/storm.pcap" -D -d 0.5 --flight-recorder 2s --flight-dir "$S" 2>/dev/null
real=$(cd "$S" && ls rocetop-*.rtr)
sleep 1.1
for k in 1 2 3; do	# as nobody: newer files of this host's flight recorder
	setpriv --reuid nobody --regid nogroup --clear-groups "$ROCETOP" -r "$S/in$k.pcap" -D -d 0.5 \
		--flight-recorder 2s --flight-dir "$S" 2>/dev/null
done
theirs=$(find "$S" -name 'rocetop-*.rtr' -user nobody | wc -l)
before=$(cd "$S" && ls)
"$ROCETOP" -r "$T/early.pcap" -D -d 0.5 --flight-recorder 2s --flight-dir "$S" --max-files 3 2>"$T/e6"; rc=$?
mine=$(newfile "$S" "$before")
if [ $rc = 0 ] && [ "$theirs" = 3 ] && [ -n "$real" ] && [ -f "$S/$real" ] && [ -n "$mine" ] &&
   [ "$(find "$S" -name 'rocetop-*.rtr' -user nobody | wc -l)" = 3 ] && ! grep -q removed "$T/e6"; then
	pass "flight_prune_only_own: root's $real and new $mine stay, nobody's 3 newer files neither count nor go"
else
	fail flight_prune_only_own "exit $rc, nobody wrote $theirs, left: $(cd "$S" && ls -l rocetop-*.rtr | awk '{print $3, $NF}' | tr '\n' ' '); $(grep removed "$T/e6")"
fi

# ---- 14: -w rotation and a file rocetop did not write
W=$T/w; mkdir "$W"
printf 'my notes\n' >"$W/w.rtr.2"
"$ROCETOP" -r "$T/storm.pcap" -d 0.1 -w "$W/w.rtr" --max-size 5k -D 2>"$T/e7"; rc=$?
if [ $rc -ne 0 ] && [ "$(cat "$W/w.rtr.2")" = "my notes" ] && [ "$(grep -c . "$T/e7")" = 1 ] &&
   grep -q "would replace $W/w.rtr.2, which is not a rocetop recording" "$T/e7"; then
	pass "rotation_never_replaces_a_user_file: exit $rc, w.rtr.2 kept, $(cat "$T/e7")"
else
	fail rotation_never_replaces_a_user_file "exit $rc, w.rtr.2 holds '$(head -c 40 "$W/w.rtr.2" | tr -dc '[:print:]')', said: $(head -3 "$T/e7")"
fi
# a previous run's rotated recordings are rocetop's: rotating over them goes on
rm -f "$W"/w.rtr*
"$ROCETOP" -r "$T/storm.pcap" -d 0.1 -w "$W/w.rtr" --max-size 5k -D -q 2>/dev/null
n1=$(ls "$W" | wc -l)
"$ROCETOP" -r "$T/storm.pcap" -d 0.1 -w "$W/w.rtr" --max-size 5k -D -q 2>"$T/e8"; rc=$?
[ $rc = 0 ] && [ "$n1" -ge 3 ] && [ "$(ls "$W" | wc -l)" = "$n1" ] &&
	pass "rotation_over_a_previous_run: $n1 files, rotated again" ||
	fail rotation_over_a_previous_run "exit $rc, $n1 then $(ls "$W" | wc -l) files: $(head -2 "$T/e8")"

# ---- 9: a full disk
if [ "$(id -u)" != 0 ]; then
	echo "SKIP flight_full_disk: mounting a tmpfs needs root"
else
	F=$T/full; mkdir "$F"
	mount -t tmpfs -o size=64k,mode=700 rtflt "$F" || { fail flight_full_disk "cannot mount a tmpfs"; exit 1; }
	cp "$D/rocetop-baseline.rtr" "$F/"; sumb=$(md5sum <"$F/rocetop-baseline.rtr")
	dd if=/dev/zero of="$F/filler" bs=4k 2>/dev/null	# until the tmpfs is full
	"$ROCETOP" -r "$T/storm.pcap" -D -d 0.5 --flight-recorder 2s --flight-dir "$F" --max-files 5 2>"$T/e5"; rc=$?
	left=$(cd "$F" && ls | tr '\n' ' ')
	msg=$(grep -c 'held no complete snapshot and was removed' "$T/e5")
	if [ $rc = 1 ] && [ "$left" = "$(names rocetop-baseline.rtr filler)" ] && [ "$(md5sum <"$F/rocetop-baseline.rtr")" = "$sumb" ] && [ "$msg" = 1 ] &&
	   ! grep -q " written" "$T/e5"; then
		pass "flight_full_disk: exit 1, no empty file left, one sentence, the complete file untouched"
	else
		fail flight_full_disk "exit $rc, left '$left' (want rocetop-baseline.rtr and filler), $(grep -h flight "$T/e5" | tail -3)"
	fi
fi
