#!/usr/bin/env python3
"""A varlink server that answers io.numastatd's methods with the replies
in tests/golden/replies/METHOD.json, always the same: numastatctl's
human output can then be compared byte for byte with the golden files.
Any other method gets MethodNotFound; Hold is held, then over at once (its
timeout passed)."""
import json, os, socket, sys

sock_path, replies = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
s.bind(sock_path)
s.listen(16)
open(sock_path + ".ready", "w").close()
while True:
    c, _ = s.accept()
    buf = b""
    while b"\0" not in buf:
        chunk = c.recv(65536)
        if not chunk:
            break
        buf += chunk
    if b"\0" not in buf:
        c.close()
        continue
    call = json.loads(buf.split(b"\0")[0])
    method = call.get("method", "").rsplit(".", 1)[-1]
    path = os.path.join(replies, method + ".json")
    if method == "Hold":
        c.sendall(json.dumps({"parameters": {"held": True, "id": 7}, "continues": True}).encode() + b"\0")
        reply = {"parameters": {"held": False}}
    elif os.path.exists(path):
        reply = {"parameters": json.load(open(path))}
    else:
        reply = {"error": "org.varlink.service.MethodNotFound", "parameters": {"method": call.get("method")}}
    c.sendall(json.dumps(reply).encode() + b"\0")
    c.close()
