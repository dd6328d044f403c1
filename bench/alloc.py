#!/usr/bin/python3
"""Allocations per request (issue 21): the release body on the sim board and the
C reference (bench/reference.c, --lamp none: its button a simulated line too),
each under the LD_PRELOAD counter bench/alloc-count.c, both at once.

One kept-alive connection an operation; the counts are read from the counter's
file while the program is idle (two equal readings 20 ms apart), so only what
the requests made is counted:
  status   GET /status                                  50 warm-up, then 1,000
  face     POST /face, on and off in turn, phase live    50, 1,000
  metrics  GET /metrics                                  50, 1,000
  ears     GET /ears?after=NEXT&wait=4 left waiting on a second connection, as Oriel's
           poll is, then POST /sim/press?button=kill&presses=2&gap=0.45, which both
           programs answer once its last press has landed; the poll is answered when
           the second press is confirmed: 3 warm-up, then 20 rounds (a two-press
           takes 0.66 s of real time); counted per round, both requests and the
           press's edges and confirmations. The kill is then settled
           by a push of {"eyes":{"red":false}} outside the count (both programs
           blink the armed LED while it is asked: bench/reference.c). A round whose
           press a late loop lost (a loaded machine) is made again, not counted, up to 5.

  python3 bench/alloc.py [--body BIN] [--runs N] [--check BOUNDS] [--json OUT]
--check fails (exit 1) when a count is above its bound in BOUNDS (bench/alloc-bounds), or the
body's is more than 2x the reference's in the same run (issue 21's goal).
Needs the body built (`make build`) and cc.
"""
import argparse
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = "alloc-token-0123456789abcdef"
OPS = ["status", "face", "metrics", "ears"]
GOAL = 2.0  # the body's allocations at most this many times the reference's (issue 21)
FIELDS = ["malloc", "calloc", "realloc", "memalign", "free", "bytes"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Program:
    def __init__(self, name, argv, port, work, shim):
        self.name, self.port = name, port
        self.counts = os.path.join(work, f"{name}.counts")
        env = dict(os.environ, LD_PRELOAD=shim, ALLOC_COUNT_FILE=self.counts)
        self.log = open(os.path.join(work, f"{name}.log"), "w")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=self.log, env=env)
        for _ in range(200):
            try:
                self.conn().close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError(f"{name} did not answer on port {port}")

    def conn(self):
        return Connection(self.port)

    def read(self):
        with open(self.counts, "rb") as f:
            return dict(zip(FIELDS, struct.unpack("<6Q", f.read(48))))

    def idle(self):
        """The counts once two readings 20 ms apart agree: the program is done."""
        last = self.read()
        while True:
            time.sleep(0.02)
            now = self.read()
            if now == last:
                return now
            last = now

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.log.close()


class Connection:
    """One kept-alive connection that writes each request in one send(): a
    head and a body in two segments make the server read twice, which would
    count as the request's own (http.client sends them apart)."""

    def __init__(self, port, token=None):
        self.token = token or TOKEN
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def ask(self, method, path, body=None):
        self.send(method, path, body)
        return self.answer(method, path)

    def send(self, method, path, body=None):
        """The request alone: its answer is read later with answer() (a poll left waiting)."""
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {self.token}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self.sock.sendall(head.encode() + b"\r\n" + (body or b""))

    def answer(self, method, path):
        while b"\r\n\r\n" not in self.buf:
            self.more()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        status = int(head.split(b" ", 2)[1])
        length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
        if not length:
            raise RuntimeError(f"{method} {path}: an answer with no Content-Length: {head[:300]!r}")
        while len(self.buf) < int(length.group(1)):
            self.more()
        data, self.buf = self.buf[:int(length.group(1))], self.buf[int(length.group(1)):]
        if status != 200:
            raise RuntimeError(f"{method} {path}: {status} {data[:200]!r}")
        return data

    def more(self):
        got = self.sock.recv(65536)
        if not got:
            raise RuntimeError("the program closed the connection")
        self.buf += got

    def close(self):
        self.sock.close()


def ask(conn, method, path, body=None):
    return conn.ask(method, path, body)


def per_request(prog, warm, n, one):
    conn = prog.conn()
    for i in range(warm):
        one(conn, i)
    before = prog.idle()
    for i in range(n):
        one(conn, i)
    after = prog.idle()
    conn.close()
    return {k: (after[k] - before[k]) / n for k in FIELDS}


FACES = [b'{"onair":{"on":true,"phase":"live"}}', b'{"onair":{"on":false,"phase":"live"}}']


def measure(prog, warm, n, rounds):
    out = {}
    out["status"] = per_request(prog, warm, n, lambda c, i: ask(c, "GET", "/status"))
    out["face"] = per_request(prog, warm, n, lambda c, i: ask(c, "POST", "/face", FACES[i % 2]))
    out["metrics"] = per_request(prog, warm, n, lambda c, i: ask(c, "GET", "/metrics"))
    conn, poll = prog.conn(), prog.conn()
    nxt = int(re.search(rb'"next":(\d+)', ask(conn, "GET", "/ears?wait=0")).group(1))
    totals = {k: 0 for k in FIELDS}
    done = lost = 0
    while done < 3 + rounds:
        before = prog.idle()
        # Oriel's poll waits on a connection of its own, as Oriel's does; the
        # press (answered once it has landed, after the fire) on the other.
        poll.send("GET", f"/ears?after={nxt}&wait=4")
        ask(conn, "POST", "/sim/press?button=kill&presses=2&gap=0.45")
        got = poll.answer("GET", "/ears")
        after = prog.idle()
        if b'"items":[]' in got:
            # A press lost to a late loop (the line read after the 0.2 s press
            # was over: noise, as Contact rules): not counted; the arming runs
            # out and the round is made again. Only a loaded machine does this.
            lost += 1
            if lost > 5:
                raise RuntimeError(f"{prog.name}: {lost} two-presses asked nothing: {got[:300]!r}")
            time.sleep(5.5)
            nxt = int(re.search(rb'"next":(\d+)', ask(conn, "GET", "/ears?wait=0")).group(1))
            continue
        nxt = int(re.search(rb'"next":(\d+)', got).group(1))
        if done >= 3:
            for k in FIELDS:
                totals[k] += after[k] - before[k]
        done += 1
        ask(conn, "POST", "/face", b'{"eyes":{"red":false}}')  # both stop their asking blink
    conn.close()
    poll.close()
    out["ears"] = {k: v / rounds for k, v in totals.items()}
    out["ears_lost"] = lost
    return out


def allocs(c):
    return c["malloc"] + c["calloc"] + c["memalign"]


def one_run(body, ref, work, shim, warm, n, rounds):
    token = os.path.join(work, "token")
    bport, rport = free_port(), free_port()
    conf = os.path.join(work, "body.conf")
    with open(conf, "w") as f:
        f.write(f"[body]\nname = alloc\nlisten = 127.0.0.1:{bport}\ntoken-file = {token}\nannounce = no\n"
                # Plain HTTP, as the reference speaks: the counts compare code, not TLS (issue 21).
                "tls = no\n"
                f"[oriel]\nsilence = 600s\n[board]\nfile = sim\n")
    progs = [Program("body", [body, "--config", conf], bport, work, shim)]
    try:
        c = progs[0].conn()
        ask(c, "POST", "/face", b'{"onair":{"on":false}}')
        sizes = [len(ask(c, "GET", p)) for p in ("/status", "/metrics")]
        c.close()
        progs.append(Program("reference", [ref, "--port", str(rport), "--token-file", token, "--lamp", "none",
                                           "--status-bytes", str(sizes[0]), "--metrics-bytes", str(sizes[1])],
                             rport, work, shim))
        results, errors = {}, []

        def run(p):
            try:
                results[p.name] = measure(p, warm, n, rounds)
            except Exception as e:  # reported below, in words
                errors.append(f"{p.name}: {e}")
        threads = [threading.Thread(target=run, args=(p,)) for p in progs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise RuntimeError("; ".join(errors))
        return results, sizes
    finally:
        for p in progs:
            p.stop()


def read_bounds(path):
    bounds = {}
    for number, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) != 3 or line[0] not in ("body", "reference") or line[1] not in OPS:
            raise RuntimeError(f"{path}:{number}: want 'body|reference OPERATION BOUND', got {' '.join(line)!r}")
        bounds[(line[0], line[1])] = float(line[2])
    return bounds


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--body", default=os.path.join(ROOT, ".build", "release", "studio-body"))
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--requests", type=int, default=1000)
    p.add_argument("--warm", type=int, default=50)
    p.add_argument("--rounds", type=int, default=20, help="two-press rounds counted for ears")
    p.add_argument("--check", metavar="BOUNDS")
    p.add_argument("--json", metavar="OUT")
    a = p.parse_args()
    if not os.access(a.body, os.X_OK):
        raise RuntimeError(f"no body binary at {a.body} (make build)")
    bounds = read_bounds(a.check) if a.check else {}
    work = tempfile.mkdtemp(prefix="studio-body-alloc-")
    try:
        shim, ref = os.path.join(work, "alloc-count.so"), os.path.join(work, "reference")
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", shim, os.path.join(ROOT, "bench", "alloc-count.c")], check=True)
        subprocess.run(f"cc -O2 -o {ref} {ROOT}/bench/reference.c $(pkg-config --cflags --libs libmicrohttpd libgpiod)",
                       shell=True, check=True)
        with open(os.path.join(work, "token"), "w") as f:
            f.write(TOKEN + "\n")
        os.chmod(os.path.join(work, "token"), 0o600)
        runs = []
        for r in range(a.runs):
            results, sizes = one_run(a.body, ref, work, shim, a.warm, a.requests, a.rounds)
            runs.append(results)
            line = ", ".join(f"{op} {allocs(results['body'][op]):.2f}/{allocs(results['reference'][op]):.2f}" for op in OPS)
            lost = [f"{n} {results[n]['ears_lost']}" for n in results if results[n]["ears_lost"]]
            line += f"; press rounds made again (lost to a late loop): {', '.join(lost)}" if lost else ""
            print(f"run {r + 1} (body/reference allocations a request): {line}", flush=True)
        print(f"\nallocations (malloc + calloc + aligned) a request, {a.runs} run(s); /status {sizes[0]} bytes, "
              f"/metrics {sizes[1]} bytes; the lowest and highest of the runs where they differ")
        print("| per request | C reference | body | ratio | body's reallocs | body's frees |\n| --- | --- | --- | --- | --- | --- |")
        words = {"status": "`GET /status`", "face": "`POST /face` (on/off in turn, phase live)", "metrics": "`GET /metrics`",
                 "ears": "`POST /sim/press` (a two-press) + the waiting `GET /ears` it answers (parked first, on a connection of its own)"}
        span = lambda xs: f"{min(xs):.2f}" if max(xs) - min(xs) < 0.005 else f"{min(xs):.2f}-{max(xs):.2f}"
        failed = []
        for op in OPS:
            b = [allocs(x["body"][op]) for x in runs]
            ref_ = [allocs(x["reference"][op]) for x in runs]
            ratio = max(b) / max(min(ref_), 0.01)
            print(f"| {words[op]} | {span(ref_)} | {span(b)} | {ratio:.1f}x | {span([x['body'][op]['realloc'] for x in runs])} "
                  f"| {span([x['body'][op]['free'] for x in runs])} |")
            for name, xs in (("body", b), ("reference", ref_)):
                bound = bounds.get((name, op))
                if bound is not None and max(xs) > bound:
                    failed.append(f"{name} {op}: {max(xs):.2f} allocations a request, above its bound {bound:g}")
            # Issue 21's goal, held in the same run: a bound raised past it still fails here.
            if a.check and max(b) > GOAL * min(ref_):
                failed.append(f"body {op}: {max(b):.2f} allocations a request, more than {GOAL:g}x "
                              f"the reference's {min(ref_):.2f} (issue 21's goal)")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"runs": runs, "sizes": sizes}, f, indent=1)
        if a.check:
            missing = [f"{n} {op}" for n in ("body", "reference") for op in OPS if (n, op) not in bounds]
            if missing:
                failed.append(f"{a.check} has no bound for {', '.join(missing)}")
            for f_ in failed:
                print(f"alloc: FAILED: {f_}")
            if not failed:
                print(f"alloc: every count within its bound in {a.check}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:
        print(f"alloc: failed: {e}", file=sys.stderr)
        sys.exit(1)
