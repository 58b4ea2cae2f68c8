# A flood of one-off readers: N processes, each named at random (12 letters),
# each reading FILE once, one after the other, PAUSE seconds apart.
# Run: python3 random-readers.py N FILE [PAUSE]
import ctypes, os, random, string, sys, time

n, path = int(sys.argv[1]), sys.argv[2]
pause = float(sys.argv[3]) if len(sys.argv) > 3 else 0
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        name = "".join(random.choice(string.ascii_lowercase) for _ in range(12))
        ctypes.CDLL(None).prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME
        with open(path, "rb") as f:
            f.read()
        os._exit(0)
    os.waitpid(pid, 0)
    if pause:
        time.sleep(pause)
