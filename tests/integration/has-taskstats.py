#!/usr/bin/env python3
"""Exits 0 if the kernel offers the TASKSTATS generic netlink family, 1 if
not: asked of the generic netlink controller directly (CTRL_CMD_GETFAMILY,
which needs no privilege), independent of the daemon's libnl code."""
import socket
import struct
import sys

NETLINK_GENERIC, GENL_ID_CTRL, NLM_F_REQUEST, NLMSG_ERROR = 16, 0x10, 1, 2
CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME = 3, 2

name = b"TASKSTATS\0"
attr = struct.pack("HH", 4 + len(name), CTRL_ATTR_FAMILY_NAME) + name
attr += b"\0" * (-len(attr) % 4)
payload = struct.pack("BBH", CTRL_CMD_GETFAMILY, 1, 0) + attr
try:
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    s.send(struct.pack("IHHII", 16 + len(payload), GENL_ID_CTRL, NLM_F_REQUEST, 1, 0) + payload)
    reply = s.recv(65536)
except OSError as e:
    print(f"# generic netlink: {e}", file=sys.stderr)
    sys.exit(1)
_, kind, _, _, _ = struct.unpack("IHHII", reply[:16])
if kind == NLMSG_ERROR and struct.unpack("i", reply[16:20])[0] < 0:
    sys.exit(1)
sys.exit(0)
