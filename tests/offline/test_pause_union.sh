#!/usr/bin/env bash
# Paused time is the union of the pause intervals (rocetop(8) PAUSED TIME):
# a capture of PFC frames at exact times (a refreshing storm, an XOFF ended
# by XON, lone pauses, one frame pausing two priorities, overlapping 802.3x
# pauses, a pause crossing an interval's end; tests/offline/pause_union.py
# builds it) read with -r --batch --json and by report --json at 10 Gb/s:
# every interval's paused seconds per priority, and the report's, equal to
# 1 ns what pause_union.py works out from the frames read back from the file.
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
rt_tmpdir tmp
"$PY" tests/offline/pause_union.py build "$tmp/pfc.pcap" ||
	{ echo "FAIL pause_union: cannot build the capture"; exit 1; }
"$ROCETOP" -r "$tmp/pfc.pcap" --batch --json -d 1 --link-speed 10G >"$tmp/batch.jsonl" 2>"$tmp/err" ||
	{ echo "FAIL pause_union: rocetop -r exited $?: $(cat "$tmp/err")"; exit 1; }
"$ROCETOP" report "$tmp/pfc.pcap" --json -d 1 --link-speed 10G >"$tmp/report.json" 2>"$tmp/rerr" ||
	{ echo "FAIL pause_union: rocetop report exited $?: $(cat "$tmp/rerr")"; exit 1; }
"$PY" tests/offline/pause_union.py check "$tmp/pfc.pcap" "$tmp/batch.jsonl" "$tmp/report.json" - 10000 1
