#!/usr/bin/env bash
# The sFlow decoder against tshark's sFlow dissector: tests/unit/test_sflow.c
# builds datagrams byte by byte (a compact and an expanded flow sample with a
# RoCEv2 header and the extended switch record, compact and expanded counter
# samples with generic and Ethernet counters, IPv4 and IPv6 agents), writes
# them to a pcap as UDP to port 6343 and dumps what rocetop's decoder (and the
# one parser, for the sampled header) read of them. tshark dissects the same
# pcap; every field must agree (tests/sflow/sflow_tshark.py). (1036/1039/1040 and drop notifications, which
# tshark 4.0 does not know, are checked against the spec's layouts in the
# unit test.)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
. tests/lib.sh
rt_tmpdir T

command -v tshark >/dev/null || { echo "SKIP sflow_tshark: no tshark"; exit 0; }
if ! "$BUILD/tests/test_sflow" --pcap "$T/sf.pcap" --dump "$T/dump.txt"; then
	echo "FAIL sflow_tshark: test_sflow could not write the datagrams"
	exit 1
fi
"$PY" tests/sflow/sflow_tshark.py "$T/dump.txt" "$T/sf.pcap"
