"""sFlow version 5 datagrams built byte by byte, every field an XDR 32-bit
word (or a 64-bit counter) as sflow.org's "sFlow Version 5" lays it out, and
its extensions "sFlow Dropped Packet Notification Structures" (sample format
5) and "sFlow Transit Delay and Queue Depth" (record 1040); nothing from
rocetop's decoder. A capture of them is UDP to port 6343."""
import socket
import struct


def _opaque(b):
    return b + b"\0" * (-len(b) % 4)


def _tagged(tag, body):
    return struct.pack("!II", tag, len(body)) + body


def if_counters(ifindex, speed=100_000_000_000, in_octets=0, in_discards=0, in_errors=0,
                out_octets=0, out_discards=0, out_errors=0, in_ucast=0, out_ucast=0):
    """Counter record 1, generic interface counters (88 bytes)."""
    body = struct.pack("!IIQII", ifindex, 6, speed, 1, 3)
    body += struct.pack("!QIIIIII", in_octets, in_ucast, 0, 0, in_discards, in_errors, 0)
    body += struct.pack("!QIIIIII", out_octets, out_ucast, 0, 0, out_discards, out_errors, 0)
    assert len(body) == 88
    return _tagged(1, body)


def eth_counters(values=(0,) * 13):
    """Counter record 2, Ethernet counters (13 dot3Stats words)."""
    return _tagged(2, struct.pack("!13I", *values))


def counter_sample(seq, ifindex, records):
    """Counter sample, compact (format 2): the data source is ifIndex ifindex."""
    return _tagged(2, struct.pack("!III", seq, ifindex, len(records)) + b"".join(records))


def raw_header(frame, frame_len=None, stripped=4):
    """Flow record 1, the sampled header of an Ethernet frame."""
    n = len(frame) + stripped if frame_len is None else frame_len
    return _tagged(1, struct.pack("!IIII", 1, n, stripped, len(frame)) + _opaque(frame))


def queue_depth(nbytes):
    """Flow record 1040, the queue depth in bytes."""
    return _tagged(1040, struct.pack("!I", nbytes))


def flow_sample(seq, ifindex, rate, pool, records, input_if=0, output_if=0):
    """Flow sample, expanded (format 3): input/output in the ifIndex format 0."""
    body = struct.pack("!IIIIIIIIIII", seq, 0, ifindex, rate, pool, 0, 0, input_if, 0, output_if,
                       len(records))
    return _tagged(3, body + b"".join(records))


def drop_sample(seq, ifindex, reason, records, input_if=0, output_if=0, drops=0):
    """Dropped-packet notification (format 5)."""
    body = struct.pack("!IIIIIIII", seq, 0, ifindex, drops, input_if, output_if, reason, len(records))
    return _tagged(5, body + b"".join(records))


def datagram(agent, seq, uptime_ms, samples, sub_agent=0):
    """The datagram of an IPv4 agent."""
    return struct.pack("!II4sIIII", 5, 1, socket.inet_aton(agent), sub_agent, seq, uptime_ms,
                       len(samples)) + b"".join(samples)


def roce_frame(src, dst, dqpn, ecn=0, opcode=0x0A, payload=64):
    """An Ethernet frame of RoCEv2 (IPv4, UDP 4791, BTH), byte by byte."""
    bth = struct.pack("!BBHI", opcode, 0, 0xFFFF, dqpn & 0xFFFFFF) + struct.pack("!I", 1)
    udp_len = 8 + len(bth) + payload + 4
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 26 << 2 | ecn, 20 + udp_len, 0, 0x4000, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    udp = struct.pack("!HHHH", 49152, 4791, udp_len, 0)
    eth = bytes.fromhex("020000000002" "020000000001") + b"\x08\x00"
    return eth + ip + udp + bth + bytes(payload) + bytes(4)


def write_pcap(path, dgrams, port=6343):
    """dgrams: (seconds, sender address, payload, VLAN id or None); a classic
    microsecond pcap of them as Ethernet (802.1Q-tagged when a VLAN is given)
    + IPv4 or IPv6 (by the sender's address) + UDP to port."""
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    for t, src, pl, vlan in dgrams:
        udp = struct.pack("!HHHH", 40000, port, 8 + len(pl), 0) + pl
        if ":" in src:
            ip = struct.pack("!IHBB16s16s", 6 << 28, len(udp), 17, 64, socket.inet_pton(socket.AF_INET6, src),
                             socket.inet_pton(socket.AF_INET6, "fd00::fe")) + udp
            et = b"\x86\xdd"
        else:
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                             socket.inet_aton(src), socket.inet_aton("192.0.2.254")) + udp
            et = b"\x08\x00"
        if vlan is not None:
            et = b"\x81\x00" + struct.pack("!H", vlan) + et
        frame = bytes.fromhex("02000000fe01" "02000000fe02") + et + ip
        sec, usec = int(t), int(round((t - int(t)) * 1e6))
        out.append(struct.pack("<IIII", sec, usec, len(frame), len(frame)) + frame)
    with open(path, "wb") as f:
        f.write(b"".join(out))


def read_pcap_udp(path):
    """(seconds, UDP payload) of each frame write_pcap wrote."""
    with open(path, "rb") as f:
        b = f.read()
    out, off = [], 24
    while off < len(b):
        sec, usec, incl, _ = struct.unpack("<IIII", b[off:off + 16])
        frame = b[off + 16:off + 16 + incl]
        h = 12
        while frame[h:h + 2] == b"\x81\x00":
            h += 4
        h += 2 + (40 if frame[h:h + 2] == b"\x86\xdd" else 20)
        out.append((sec + usec / 1e6, frame[h + 8:]))
        off += 16 + incl
    return out
