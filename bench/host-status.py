#!/usr/bin/python3
"""GET /status on the host, native CPU, no VM: the C reference (bench/reference.c,
--lamp none) and the body's release binary (the sim board), alternating, N rounds.
Per round and program: wrk -t1 -c16 and -c4 requests/s, and the program's CPU per
request (utime + stime from /proc/PID/stat over the -c16 run). Not a test.

  python3 bench/host-status.py [--rounds 3] [--seconds 5]
Builds the reference with cc and the body with `make build` (.build/release/studio-body).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = "bench-token-0123456789abcdef"


def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def wrk(port, seconds, connections):
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-H", f"Authorization: Bearer {TOKEN}",
                          f"http://127.0.0.1:{port}/status"], capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    n = int(re.search(r"(\d+) requests in", out).group(1))
    if re.search(r"Non-2xx", out):
        raise RuntimeError(out)
    return rps, n


def serve(argv, port):
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            req = urllib.request.Request(f"http://127.0.0.1:{port}/status", headers={"Authorization": f"Bearer {TOKEN}"})
            return proc, len(urllib.request.urlopen(req, timeout=2).read())
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{argv[0]} did not answer")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=int, default=5)
    a = p.parse_args()
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
    body = os.path.join(ROOT, ".build", "release", "studio-body")
    _, size = serve_stop([body, "--config", conf], 8795)
    progs = {"reference": [ref, "--port", "8796", "--token-file", token, "--lamp", "none", "--status-bytes", str(size)],
             "body": [body, "--config", conf]}
    ports = {"reference": 8796, "body": 8795}
    rows = {k: [] for k in progs}
    for r in range(a.rounds):
        for name, argv in progs.items():
            proc, _ = serve(argv, ports[name])
            try:
                c0 = cpu(proc.pid)
                rps16, n = wrk(ports[name], a.seconds, 16)
                us = (cpu(proc.pid) - c0) / n * 1e6
                rps4, _ = wrk(ports[name], a.seconds, 4)
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(10)
            rows[name].append((rps16, rps4, us))
            print(f"round {r + 1} {name}: -c16 {rps16:,.0f}/s, -c4 {rps4:,.0f}/s, {us:.1f} µs CPU a request", flush=True)
    med = lambda xs: sorted(xs)[len(xs) // 2]
    print(f"\n{a.rounds} rounds alternating, {size}-byte /status, host load {open('/proc/loadavg').read().split()[0]} at the end")
    print("| figure | C reference | body | body / reference |\n| --- | --- | --- | --- |")
    for i, words in [(0, "`GET /status`, wrk -t1 -c16, requests/s (median)"), (1, "the same, -c4"),
                     (2, "CPU per request, -c16 (median), µs")]:
        x, y = med([v[i] for v in rows["reference"]]), med([v[i] for v in rows["body"]])
        print(f"| {words} | {x:,.1f} | {y:,.1f} | {y / x:.2f}x |")


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
