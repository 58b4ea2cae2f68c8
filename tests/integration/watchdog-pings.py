# The watchdog's pings as systemd would get them: listens on the datagram
# socket argv[1] (the daemon's NOTIFY_SOCKET) and prints, for each
# WATCHDOG=1, the kernel's receive time (CLOCK_REALTIME seconds, SO_TIMESTAMP):
# the listener itself may be starved by a flood, the time a ping arrived is
# the kernel's. Run: python3 watchdog-pings.py SOCKET > PINGS &
import socket, struct, sys

SO_TIMESTAMP = 29  # asm-generic SO_TIMESTAMP_OLD: a struct timeval; Python names no constant
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMP, 1)
s.bind(sys.argv[1])
while True:
    data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(16))
    if b"WATCHDOG=1" not in data:
        continue
    for level, kind, value in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMP:
            sec, usec = struct.unpack("qq", value[:16])
            print("%.3f" % (sec + usec / 1e6), flush=True)
