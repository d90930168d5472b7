#!/usr/bin/python3
"""Verify the ICRC of every RoCEv2 frame in a pcap with scapy.contrib.roce.

Usage: check_icrc.py FILE.pcap   prints 'checked N bad M', exits 1 if M > 0 or N == 0.
"""
import sys
import logging
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
from scapy.all import rdpcap, raw, Ether, IP, UDP  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

checked = bad = 0
for pkt in rdpcap(sys.argv[1]):
    if BTH not in pkt or UDP not in pkt or pkt[UDP].dport != 4791:
        continue
    wire = raw(pkt)
    # scapy computes the ICRC (masked pseudo-header CRC) from the frame's fields
    rebuilt = Ether(wire)
    rebuilt[BTH].icrc = None
    if raw(rebuilt) != wire:
        bad += 1
        if bad <= 5:
            print("bad ICRC:", wire.hex(), file=sys.stderr)
    checked += 1
print("checked %d bad %d" % (checked, bad))
sys.exit(1 if bad or not checked else 0)
