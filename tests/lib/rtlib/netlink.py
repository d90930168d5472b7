"""Netlink messages as bytes (little-endian host, as the kernel writes them),
for fixtures of the kernel's answers: attributes, messages, the dump's end."""
import struct

NLDEV = 5 << 10         # RDMA_NL_NLDEV << 10: the rdma netlink client's types
MULTI = 2               # NLM_F_MULTI


def attr(t, payload):
    n = 4 + len(payload)
    return struct.pack("<HH", n, t) + payload + b"\0" * ((4 - n % 4) % 4)


def u8(t, v): return attr(t, struct.pack("<B", v))
def u32(t, v): return attr(t, struct.pack("<I", v))
def u64(t, v): return attr(t, struct.pack("<Q", v))
def s(t, v): return attr(t, v.encode() + b"\0")


def msg(typ, flags, body, seq=0):
    return struct.pack("<IHHII", 16 + len(body), typ, flags, seq, 0) + body


def done(seq=0):
    """NLMSG_DONE of a multipart dump."""
    return msg(3, MULTI, struct.pack("<i", 0), seq)
