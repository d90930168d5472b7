"""What the Python test scripts share: building RoCEv2 and PFC frames (with
scapy, or with struct where speed matters), tallying them from their own
bytes and checking their ICRC (roce), sFlow datagrams built byte by byte
(sflow), tshark's own counts of a capture (tshark), rocetop's and
rocetop-gen's output files (outputs), pcap and pcapng files read and written
(pcap), the kernel's netlink answers (netlink), the PASS/FAIL lines tests/run
counts (check), and the programs of a pause storm made on purpose (pausesw:
a receiver that stops draining, a switch that forwards pause upstream).

A script under tests/AREA/ imports it with:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    from rtlib import ...
"""
