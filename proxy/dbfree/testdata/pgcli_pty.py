# Starts pgcli on a pseudo-terminal against host:port as postgres, waits
# for its prompt and its completion refresh, sends \q, and prints all it
# wrote. Usage: pgcli_pty.py HOST PORT HOME
import os, pty, select, sys, time

pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm"
    os.environ["HOME"] = sys.argv[3]
    os.environ["PGSSLMODE"] = "disable"
    os.execvp("pgcli", ["pgcli", "-h", sys.argv[1], "-p", sys.argv[2], "-U", "postgres", "-d", "postgres"])
out = b""


def read_until(pred, secs):
    global out
    end = time.time() + secs
    while time.time() < end and not pred():
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                d = os.read(fd, 65536)
            except OSError:
                return
            if not d:
                return
            out += d


read_until(lambda: b"postgres>" in out, 30)
# The completion refresh runs in a thread after the prompt: give it time
# to fail (a traceback) or finish.
read_until(lambda: False, 4)
os.write(fd, b"\\q\r")
read_until(lambda: b"Goodbye" in out, 10)
try:
    os.kill(pid, 9)
except ProcessLookupError:
    pass
sys.stdout.write(out.decode("utf-8", "replace"))
