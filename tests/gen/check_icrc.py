#!/usr/bin/python3
"""Verify the ICRC of every RoCEv2 frame in a pcap with scapy.contrib.roce.

Usage: check_icrc.py FILE.pcap   prints 'checked N bad M', exits 1 if M > 0 or N == 0.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import pcap  # noqa: E402
from rtlib.roce import icrc_ok  # noqa: E402

checked = bad = 0
for frame, _ in pcap.read(sys.argv[1])[1]:
    ok = icrc_ok(frame)
    if ok is None:
        continue
    if not ok:
        bad += 1
        if bad <= 5:
            print("bad ICRC:", frame.hex(), file=sys.stderr)
    checked += 1
print("checked %d bad %d" % (checked, bad))
sys.exit(1 if bad or not checked else 0)
