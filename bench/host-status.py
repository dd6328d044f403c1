#!/usr/bin/python3
"""The program's CPU per request on the host, native CPU, no VM (issue 21): the C
reference (bench/reference.c, --lamp none) and the body's release binary (the sim
board), N rounds, both programs started afresh a round. Not a test.

  status  GET /status: wrk -t1 -c16 and -c4 requests/s, and CPU per request
          (every thread's schedstat over the -c16 runs).
  push    POST /face, {"onair":{"on":true,"phase":"live"}} and on:false in turn (what
          bench/alloc.py pushes; a wrk Lua script): wrk -t1 -c16 requests/s and CPU
          per request, as for status.
          Both programs run at once for these two paths, and wrk takes them in
          1 s slices in turn (reference, body, then body, reference) for --seconds
          each, as the press rounds are taken: until the sixth session of issue 21
          each program had its 5 s alone, one after the other, and the push's
          ratio moved 1.24-1.54x between runs of the same code.
  press   POST /sim/press?button=kill&presses=2&gap=0.45 and the waiting
          GET /ears?after=N&wait=4 its confirming second press answers, through each
          program's simulated line (edges on a timerfd, a read of the line at the
          10 ms window's end). A two-press takes real time, so this is CPU per round,
          not per request: rounds on two kept-alive connections a program (the poll
          parked on one, as Oriel's is, the press on the other; both programs answer
          the press once its last release is settled), each from the poll's request
          until SETTLE after the press's answer, so a round
          holds both requests, the four edges, their four confirmations and whatever
          else the program did meanwhile (--presses rounds after 2 to warm up); its CPU
          a second while idle is printed beside it. CPU from each thread's
          /proc/PID/task/TID/schedstat (nanoseconds; /proc/PID/stat counts 10 ms
          ticks, coarser than a round). Both programs run at once for this path and
          their rounds are taken in turn (reference, body, then body, reference), so
          a slow spell of the shared host falls on both (until the fifth session of
          issue 21 each program ran its rounds alone, one after the other, and a
          run's ratio moved 1.2-1.6x with the host). The kill is settled after each
          round by a push of {"eyes":{"red":false}}, outside the count: both programs blink the armed
          LED at 4 Hz while the press is asked (DESIGN section 2; the reference since
          the fourth session of issue 21, as it confirms a press as the body does), so
          a round holds one blink for both. A round whose press a late loop lost is
          made again.

  python3 bench/host-status.py [--rounds 3] [--seconds 5] [--paths status,push,press] [--presses 30]
Builds the reference with cc and the body with `make build` (.build/release/studio-body).
"""
import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no bench/__pycache__ from the import
from alloc import Connection  # noqa: E402  (one send() a request, as the counts have it)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = "bench-token-0123456789abcdef"
PATHS = ["status", "push", "press"]
FACES = ['{"onair":{"on":true,"phase":"live"}}', '{"onair":{"on":false,"phase":"live"}}']
GAP = 0.45
# A round ends this long after the press's answer (which comes once its last
# release is confirmed), in both programs' asking blink: the round's shape
# since it ended 0.15 s past the release.
SETTLE = 0.15
IDLE = 2.0


def threads_cpu(pid):
    """Every thread's run time (s) by thread id, to the nanosecond."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            out[tid] = int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[0]) / 1e9
        except OSError:
            pass  # the thread ended as it was read
    return out


def wrk(port, seconds, connections, path="/status", script=None):
    argv = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-H", f"Authorization: Bearer {TOKEN}"]
    argv += ["-s", script] if script else []
    out = subprocess.run(argv + [f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    n = int(re.search(r"(\d+) requests in", out).group(1))
    if re.search(r"Non-2xx", out):
        raise RuntimeError(out)
    # The body takes 16 connections from one address (HTTPLimits.perAddress) and
    # libmicrohttpd accepts before it reads the closes: a connection made the
    # instant wrk's 16 close was refused once (reset by peer). Let them go first.
    time.sleep(0.3)
    return rps, n


def push_script(work):
    """A wrk script that pushes FACES in turn (its Lua state is one thread's, -t1)."""
    path = os.path.join(work, "push.lua")
    faces = ", ".join("'" + f + "'" for f in FACES)
    with open(path, "w") as f:
        f.write(f"""local faces, reqs, i = {{{faces}}}, {{}}, 0
init = function(args)
  for k, body in ipairs(faces) do
    reqs[k] = wrk.format("POST", "/face", {{["Authorization"] = "Bearer {TOKEN}",
                                           ["Content-Type"] = "application/json"}}, body)
  end
end
request = function() i = i % 2 + 1; return reqs[i] end
""")
    return path


def start_both(progs, ports):
    procs = {}
    try:
        for name, argv in progs.items():
            procs[name], _ = serve(argv, ports[name])
    except BaseException:
        stop_both(procs)
        raise
    return procs


def stop_both(procs):
    for proc in procs.values():  # both signalled before either is waited for
        proc.send_signal(signal.SIGTERM)
    for proc in procs.values():
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def paired_wrk(procs, ports, seconds, connections, path="/status", script=None, slice_s=1):
    """wrk on both programs, alive at once, in slices of slice_s seconds taken in
    turn (reference, body, then body, reference, ...), as the press rounds are:
    a slow spell of the shared host falls on both. Each program's requests/s and
    CPU (µs) a request over all its slices, from every thread's schedstat (to the
    nanosecond; /proc/PID/stat counts 10 ms ticks)."""
    names = list(procs)
    n, cpu_s = {k: 0 for k in names}, {k: 0.0 for k in names}
    slices = max(2, seconds // slice_s)
    for i in range(slices):
        for k in (names if i % 2 == 0 else names[::-1]):
            pid = procs[k].pid
            before = threads_cpu(pid)
            _, got = wrk(ports[k], slice_s, connections, path, script)
            after = threads_cpu(pid)
            if set(after) != set(before):
                raise RuntimeError(f"{k}'s threads came or went during wrk ({sorted(before)} -> {sorted(after)}): "
                                   "an ended thread's time would be lost")
            n[k] += got
            cpu_s[k] += sum(after[t] - before[t] for t in after)
    return {k: (n[k] / (slices * slice_s), cpu_s[k] / n[k] * 1e6) for k in names}


def serve(argv, port):
    # Another program on the port would answer in its place and be measured.
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", port)) == 0:
            raise RuntimeError(f"port {port} is taken by another program (a benchmark left running?); not starting {argv[0]}")
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if proc.poll() is not None:
            raise RuntimeError(f"{argv[0]} ended (exit {proc.returncode}) before it answered on port {port}")
        try:
            req = urllib.request.Request(f"http://127.0.0.1:{port}/status", headers={"Authorization": f"Bearer {TOKEN}"})
            return proc, len(urllib.request.urlopen(req, timeout=2).read())
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{argv[0]} did not answer")


def next_item(doc):
    return int(re.search(rb'"next":(\d+)', doc).group(1))


class Presser:
    """One program's two-press rounds on one kept-alive connection (see press above)."""

    def __init__(self, proc, port):
        self.proc, self.conn, self.poll = proc, Connection(port, TOKEN), Connection(port, TOKEN)
        self.conn.ask("POST", "/face", b'{"onair":{"on":false}}')  # the lamp off, as after a push path's run
        self.next = next_item(self.conn.ask("GET", "/ears?wait=0"))
        self.tids, self.lost = None, 0

    def idle_start(self):
        self.tids, self.idle0 = set(threads_cpu(self.proc.pid)), threads_cpu(self.proc.pid)

    def idle_end(self, seconds):
        """CPU (µs) a second while idle, since idle_start."""
        return sum(v - self.idle0.get(t, 0) for t, v in threads_cpu(self.proc.pid).items()) / seconds * 1e6

    def round(self):
        """One counted round's CPU (µs) and length (s); a round whose press a late
        loop lost is made again."""
        while True:
            before, t0 = threads_cpu(self.proc.pid), time.monotonic()
            # Oriel's poll waits on its own connection (alloc.py's round); the
            # press is answered once it has landed, after the fire.
            self.poll.send("GET", f"/ears?after={self.next}&wait=4")
            self.conn.ask("POST", f"/sim/press?button=kill&presses=2&gap={GAP}")
            got = self.poll.answer("GET", "/ears")
            time.sleep(SETTLE)
            after, t1 = threads_cpu(self.proc.pid), time.monotonic()
            if b'"items":[]' not in got:
                break
            # As bench/alloc.py: a press a late loop lost (only a loaded machine
            # does this); the arming runs out, the round is made again.
            self.lost += 1
            if self.lost > 5:
                raise RuntimeError(f"{self.lost} two-presses asked nothing: {got[:300]!r}")
            time.sleep(5.5)
            self.next = next_item(self.conn.ask("GET", "/ears?wait=0"))
        self.next = next_item(got)
        if set(after) != set(before) or set(after) != self.tids:
            raise RuntimeError(f"threads came or went during a press round ({sorted(self.tids)} -> {sorted(after)}): "
                               "an ended thread's time would be lost")
        # The kill settled (both programs stop their asking blink), outside the count.
        self.conn.ask("POST", "/face", b'{"eyes":{"red":false}}')
        time.sleep(0.02)  # and its answer's tail (the body's log line) too
        return sum(after[t] - before[t] for t in after) * 1e6, t1 - t0


def paired_press_rounds(procs, ports, rounds, warm=2):
    """Both programs alive, their rounds taken in turn (reference, body, then body,
    reference, ...): a host's slow minute falls on both, where a program's whole
    run after the other's could catch it alone. Each program's round CPUs (µs),
    lost rounds, idle CPU a second, and mean round length (s)."""
    pressers = {k: Presser(procs[k], ports[k]) for k in procs}
    time.sleep(SETTLE)
    # What each program spends doing nothing, which a round's half second holds too.
    for x in pressers.values():
        x.idle_start()
    time.sleep(IDLE)
    idle = {k: x.idle_end(IDLE) for k, x in pressers.items()}
    names = list(procs)
    per, wall = {k: [] for k in names}, {k: [] for k in names}
    for i in range(warm + rounds):
        for k in (names if i % 2 == 0 else names[::-1]):
            us, secs = pressers[k].round()
            if i >= warm:
                per[k].append(us)
                wall[k].append(secs)
    for x in pressers.values():
        x.conn.close()
        x.poll.close()
    return per, {k: x.lost for k, x in pressers.items()}, idle, {k: sum(v) / len(v) for k, v in wall.items()}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=int, default=5)
    p.add_argument("--paths", default=",".join(PATHS), help="some of status,push,press (comma-separated; all by default)")
    p.add_argument("--presses", type=int, default=30, help="two-press rounds counted a run and program")
    a = p.parse_args()
    paths = [x for x in a.paths.split(",") if x]
    if not paths or any(x not in PATHS for x in paths):
        raise RuntimeError(f"--paths: want some of {','.join(PATHS)}, got {a.paths!r}")
    load0 = open("/proc/loadavg").read().strip()
    env = dict(os.environ, PATH="/opt/swift/usr/bin:" + os.environ.get("PATH", ""))
    subprocess.run(["make", "--no-print-directory", "build"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL, env=env)
    work = tempfile.mkdtemp(prefix="studio-body-host-status-")
    ref = os.path.join(work, "reference")
    subprocess.run(f"cc -O2 -o {ref} {ROOT}/bench/reference.c $(pkg-config --cflags --libs libmicrohttpd libgpiod)",
                   shell=True, check=True)
    token = os.path.join(work, "token")
    with open(token, "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(token, 0o600)
    conf = os.path.join(work, "body.conf")
    with open(conf, "w") as f:
        # Plain HTTP, as the reference speaks (tls = no).
        f.write(f"[body]\nname = bench\ntls = no\nlisten = 127.0.0.1:8795\ntoken-file = {token}\nannounce = no\n"
                f"[oriel]\nsilence = 600s\n[board]\nfile = sim\n")
    script = push_script(work)
    body = os.path.join(ROOT, ".build", "release", "studio-body")
    _, size = serve_stop([body, "--config", conf], 8795)
    progs = {"reference": [ref, "--port", "8796", "--token-file", token, "--lamp", "none", "--status-bytes", str(size)],
             "body": [body, "--config", conf]}
    ports = {"reference": 8796, "body": 8795}
    med = statistics.median
    rows = {k: {x: [] for x in PATHS} for k in progs}
    lost = {k: 0 for k in progs}
    print(f"paths {','.join(paths)}; host load at the start: {load0}", flush=True)
    rounds = {k: [] for k in progs}  # every counted press round's CPU (µs), all runs
    for r in range(a.rounds):
        if "status" in paths or "push" in paths:
            procs = start_both(progs, ports)
            try:
                if "status" in paths:
                    c16 = paired_wrk(procs, ports, a.seconds, 16)
                    c4 = paired_wrk(procs, ports, a.seconds, 4)
                    for name in progs:
                        (rps16, us), (rps4, _) = c16[name], c4[name]
                        rows[name]["status"].append((rps16, rps4, us))
                        print(f"round {r + 1} {name}: -c16 {rps16:,.0f}/s, -c4 {rps4:,.0f}/s, {us:.1f} µs CPU a request", flush=True)
                    print(f"round {r + 1} status: body / reference {c16['body'][1] / c16['reference'][1]:.2f}x", flush=True)
                if "push" in paths:
                    c16 = paired_wrk(procs, ports, a.seconds, 16, "/face", script)
                    for name in progs:
                        rps16, us = c16[name]
                        rows[name]["push"].append((rps16, us))
                        print(f"round {r + 1} {name} push: -c16 {rps16:,.0f}/s, {us:.1f} µs CPU a request", flush=True)
                    print(f"round {r + 1} push: body / reference {c16['body'][1] / c16['reference'][1]:.2f}x", flush=True)
            finally:
                stop_both(procs)
        if "press" in paths:
            procs = start_both(progs, ports)
            try:
                per, l, idle, secs = paired_press_rounds(procs, ports, a.presses)
            finally:
                stop_both(procs)
            for name in progs:
                lost[name] += l[name]
                us = sum(per[name]) / len(per[name])
                rows[name]["press"].append((us, idle[name], med(per[name])))
                rounds[name] += per[name]
                print(f"round {r + 1} {name} press: {len(per[name])} two-press rounds of {secs[name]:.2f} s, "
                      f"{us:.1f} µs CPU a round, median {med(per[name]):.1f} (each {min(per[name]):.0f}-{max(per[name]):.0f})"
                      f"{f', {l[name]} lost and made again' if l[name] else ''}; idle before, {idle[name]:.1f} µs CPU a second",
                      flush=True)
            x, y = rows["reference"]["press"][-1][0], rows["body"]["press"][-1][0]
            print(f"round {r + 1} press: body / reference {y / x:.2f}x (means), "
                  f"{med(per['body']) / med(per['reference']):.2f}x (medians)", flush=True)
    print(f"\n{a.rounds} rounds, the programs in turn, {size}-byte /status, host load {open('/proc/loadavg').read().split()[0]} at the end")
    print("| figure | C reference | body | body / reference |\n| --- | --- | --- | --- |")
    figures = {"status": [(0, "`GET /status`, wrk -t1 -c16, requests/s (median)"), (1, "the same, -c4"),
                          (2, "CPU per request, -c16 (median), µs")],
               "push": [(0, "`POST /face` (onair on/off in turn, phase live), wrk -t1 -c16, requests/s (median)"),
                        (1, "CPU per push, -c16 (median), µs")],
               "press": [(0, f"CPU per press round (`POST /sim/press` two-press, gap {GAP} s, + the waiting `GET /ears`; "
                             f"{a.presses} rounds a run, the programs' rounds in turn; median of the runs' means), µs"),
                         (1, f"CPU a second while idle ({IDLE:g} s before the presses, which a round's real time holds too), µs")]}
    for path in paths:
        for i, words in figures[path]:
            x, y = med([v[i] for v in rows["reference"][path]]), med([v[i] for v in rows["body"][path]])
            print(f"| {words} | {x:,.1f} | {y:,.1f} | {f'{y / x:.2f}x' if x else '-'} |")
    if "press" in paths:
        x, y = med(rounds["reference"]), med(rounds["body"])
        print(f"| the same, median of every round of every run ({len(rounds['body'])} a program), µs | "
              f"{x:,.1f} | {y:,.1f} | {y / x:.2f}x |")
    for path, i in (("status", 2), ("push", 1)):
        if path in paths:
            # Each round's two figures were taken in the same slices of time: their ratio is where the host's swings cancel.
            ratios = [b[i] / r[i] for r, b in zip(rows["reference"][path], rows["body"][path])]
            print(f"| {path}: the rounds' paired ratios ({', '.join(f'{x:.2f}' for x in ratios)}), median | | | {med(ratios):.2f}x |")
    if any(lost.values()):
        print(f"press rounds lost to a late loop and made again: {lost}")
    print(f"host load at the end: {open('/proc/loadavg').read().strip()}")


def serve_stop(argv, port):
    proc, size = serve(argv, port)
    proc.send_signal(signal.SIGTERM)
    proc.wait(10)
    return proc, size


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        print(f"host-status: failed: {e}", file=sys.stderr)
        sys.exit(1)
