#!/usr/bin/python3
"""Send PFC pause frames (802.1Qbb) of known quanta with scapy, and print the
tally computed from the built frames themselves: "frames N quanta Q xon X".

usage: send_pfc.py IFACE SRC_MAC FRAMES PRIO QUANTA [GAP_MS]
Each frame enables PRIO alone with pause time QUANTA; every tenth frame is an
XON (time 0) of the same class. GAP_MS: frames sent one at a time that far
apart (longer than a pause, none overlaps the next: the time paused is then
the quanta's sum), else all at once.
"""
import os
import struct
import sys
import time

from scapy.all import sendp, conf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.roce import pfc  # noqa: E402

conf.verb = 0
iface, smac, n, prio, quanta = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
gap = float(sys.argv[6]) / 1000 if len(sys.argv) > 6 else 0
frames, tally_q, xon = [], 0, 0
for i in range(n):
    t = 0 if i % 10 == 9 else quanta
    f = pfc({prio: t}, smac=smac)
    # the tally read back from the frame's own bytes
    raw = bytes(f)
    ev = struct.unpack("!H", raw[16:18])[0]
    tq = struct.unpack("!8H", raw[18:34])[prio]
    assert ev == 1 << prio and raw[12:14] == b"\x88\x08"
    tally_q += tq
    xon += tq == 0
    frames.append(f)
if gap:
    for f in frames:
        sendp(f, iface=iface)
        time.sleep(gap)
else:
    sendp(frames, iface=iface)
print(f"frames {n} quanta {tally_q} xon {xon}")
