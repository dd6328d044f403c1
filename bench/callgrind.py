#!/usr/bin/python3
"""Instructions an operation, counted by callgrind (issue 21): deterministic where
µs on a shared host swing. The release body (a `strip -g` copy, the sim board,
tls = no) or the C reference (bench/reference.c, --lamp none) runs under
`valgrind --tool=callgrind`; after a warm-up the counters are zeroed
(`callgrind_control -z`), N operations run on one kept-alive connection, and
the counters are dumped (`callgrind_control -d`).

  status   GET /status                                            20 warm-up, then N
  face     POST /face, {"onair":{"on":...,"phase":"live"}} on and off in turn   20, N
  press    GET /ears?after=N&wait=4 parked on a second connection, POST
           /sim/press?button=kill&presses=2&gap=0.45 (answered once it has landed),
           the poll's answer, then 0.15 s                           3, N rounds;
           the kill is settled by a push of {"eyes":{"red":false}} that IS
           counted for both (about one push's worth: host-status.py leaves it out)

Prints instructions an operation and the part that is libmicrohttpd's pool
memset (1.5 pools zeroed a request: 16 KiB for the body, 32 KiB for the reference;
callgrind counts its `rep stosb` a byte at a time though it costs well under a
microsecond natively), and keeps the profile for callgrind_annotate.

  python3 bench/callgrind.py body|reference status|face|press [N] [--body BIN] [--port P]
Needs valgrind and the body built (`make build`); builds the reference with cc.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from alloc import Connection  # noqa: E402  (one send() a request)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = "callgrind-token-0123456789abcdef"


def run_ops(conn, who, op, n, nxt=None):
    """Runs n operations; returns how many two-presses asked nothing, and the
    outbox's next sequence number (a press round's `after`)."""
    lost, poll = 0, None
    if op == "press" and nxt is None:
        # Outside the count: the lamp off and the outbox's place, before the warm-up.
        conn.ask("POST", "/face", b'{"onair":{"on":false}}')
        nxt = int(re.search(rb'"next":(\d+)', conn.ask("GET", "/ears?wait=0")).group(1))
    for i in range(n):
        if op == "status":
            conn.ask("GET", "/status")
        elif op == "face":
            conn.ask("POST", "/face", b'{"onair":{"on":%s,"phase":"live"}}' % (b"true" if i % 2 else b"false"))
        else:
            # The poll parked on its own connection, as Oriel's (bench/alloc.py's round).
            poll = poll or Connection(conn.sock.getpeername()[1], conn.token)
            poll.send("GET", f"/ears?after={nxt}&wait=4")
            conn.ask("POST", "/sim/press?button=kill&presses=2&gap=0.45")
            got = poll.answer("GET", "/ears")
            time.sleep(0.15)
            lost += b'"items":[]' in got
            nxt = int(re.search(rb'"next":(\d+)', got).group(1))
            conn.ask("POST", "/face", b'{"eyes":{"red":false}}')  # both stop their asking blink
            time.sleep(0.02)
    if poll:
        poll.close()
    return lost, nxt


def total(profile, pattern=None):
    out = subprocess.run(["callgrind_annotate", "--threshold=100", profile], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if (pattern is None and "PROGRAM TOTALS" in line) or (pattern and pattern in line):
            return int(line.split()[0].replace(",", ""))
    return 0


def launch(who, body, port, work, valgrind=()):
    """The body (a `strip -g` copy: valgrind gives up on its full debug info) or the
    reference under callgrind, answering on port; its profiles go to work."""
    for tool in ("valgrind", "callgrind_control", "callgrind_annotate"):
        if not shutil.which(tool):
            raise RuntimeError(f"{tool} is not installed (apt-get install valgrind)")
    token = os.path.join(work, "token")
    with open(token, "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(token, 0o600)
    if who == "body":
        binary = os.path.join(work, "studio-body")
        shutil.copy(body, binary)
        subprocess.run(["strip", "-g", binary], check=True)
        conf = os.path.join(work, "body.conf")
        with open(conf, "w") as f:
            f.write(f"[body]\nname = bench\ntls = no\nlisten = 127.0.0.1:{port}\ntoken-file = {token}\nannounce = no\n"
                    f"[oriel]\nsilence = 600s\n[board]\nfile = sim\n")
        argv = [binary, "--config", conf]
    else:
        binary = os.path.join(work, "reference")
        subprocess.run(f"cc -O2 -o {binary} {ROOT}/bench/reference.c $(pkg-config --cflags --libs libmicrohttpd libgpiod)",
                       shell=True, check=True)
        argv = [binary, "--port", str(port), "--token-file", token, "--lamp", "none", "--status-bytes", "928"]
    out = os.path.join(work, "callgrind.out.%p")
    with open(os.path.join(work, "valgrind.log"), "w") as log:  # the child keeps its own copy
        proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *valgrind] + argv,
                                stdout=log, stderr=log)
    for _ in range(300):
        try:
            req = urllib.request.Request(f"http://127.0.0.1:{port}/status", headers={"Authorization": f"Bearer {TOKEN}"})
            urllib.request.urlopen(req, timeout=5).read()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"{who} ended under valgrind: see {log.name}")
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"{who} did not answer under valgrind: see {log.name}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("who", choices=["body", "reference"])
    p.add_argument("op", choices=["status", "face", "press"])
    p.add_argument("n", type=int, nargs="?", default=None, help="operations counted (300; press: 10)")
    p.add_argument("--body", default=os.path.join(ROOT, ".build", "release", "studio-body"))
    p.add_argument("--port", type=int, default=18800)
    a = p.parse_args()
    n = a.n or (10 if a.op == "press" else 300)
    work = tempfile.mkdtemp(prefix="studio-body-callgrind-")
    proc = launch(a.who, a.body, a.port, work)
    try:
        conn = Connection(a.port, TOKEN)
        _, nxt = run_ops(conn, a.who, a.op, 3 if a.op == "press" else 20)
        subprocess.run(["callgrind_control", "-z", str(proc.pid)], check=True, capture_output=True)
        lost, _ = run_ops(conn, a.who, a.op, n, nxt)
        subprocess.run(["callgrind_control", "-d", str(proc.pid)], check=True, capture_output=True)
        conn.close()
    finally:
        proc.terminate()
        proc.wait(30)
    profile = os.path.join(work, f"callgrind.out.{proc.pid}.1")
    if not os.path.exists(profile):
        raise RuntimeError(f"no profile was dumped ({profile})")
    every, memset = total(profile), total(profile, "__memset_avx2_unaligned_erms")
    what = "round" if a.op == "press" else "request"
    print(f"{a.who} {a.op}: {every / n:,.0f} instructions a {what} ({memset / n:,.0f} of them libmicrohttpd's pool "
          f"memset; {(every - memset) / n:,.0f} the rest), over {n}" + (f"; {lost} two-presses asked nothing" if lost else ""))
    print(f"profile: {profile}  (callgrind_annotate --inclusive=yes {profile} | head -80)")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        print(f"callgrind: failed: {e}", file=sys.stderr)
        sys.exit(1)
