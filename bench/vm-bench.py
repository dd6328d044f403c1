#!/usr/bin/python3
"""Runs INSIDE the HIL VM (scripts/bench --vm calls it through Tests/hil/vm-run):
the C reference (bench/reference.c) and the body's release binary, alternately,
on one gpio-sim chip with Raspberry Pi names and vivid, in the same boot.

Per round and program: idle RSS, private memory and wakeups; push -> lamp line
and push answered (bench/client push); confirming press -> waiting /ears
(bench/client press); GET /status under wrk -c16; for the body also the press
while one /preview client streams from vivid; and the body's /preview against
µStreamer on the same vivid device (CPU per delivered frame). Each program's stdout and stderr
go through a pipe to a separate reader (cat), as they would to journald.

Writes every sample as JSON to --out; scripts/bench-report turns it into the table.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PORT = 8790
TOKEN = "bench-token-0123456789abcdef"
LINES = ["GPIO17", "GPIO27", "GPIO22", "GPIO23=pull-up", "GPIO24=pull-up", "GPIO25=pull-up", "GPIO5=pull-up"]


def say(words):
    print(f"vm-bench: {words}", flush=True)


def http(method, path, body=None, timeout=10):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", data=data, method=method,
                                 headers={"Authorization": f"Bearer {TOKEN}", "X-Cordelia-Doing": "bench"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read()


def tasks_switches(pid):
    total = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            text = open(f"/proc/{pid}/task/{t}/status").read()
        except OSError:
            continue
        total += sum(int(v) for v in re.findall(r"^(?:non)?voluntary_ctxt_switches:\s+(\d+)", text, re.M))
    return total


def memory(pid):
    status = open(f"/proc/{pid}/status").read()
    rss = int(re.search(r"^VmRSS:\s+(\d+)", status, re.M).group(1))
    rollup = open(f"/proc/{pid}/smaps_rollup").read()
    # Private_Dirty: memory only this process holds and the kernel cannot drop (Private_Clean
    # is mostly the binary's own pages read from the file, shared with nothing but reclaimable).
    private = int(re.search(r"^Private_Dirty:\s+(\d+)", rollup, re.M).group(1))
    threads = int(re.search(r"^Threads:\s+(\d+)", status, re.M).group(1))
    return rss, private, threads


class Program:
    def __init__(self, name, argv, logpath):
        self.name, self.argv, self.logpath = name, argv, logpath

    def start(self):
        self.log = open(self.logpath, "ab")
        self.reader = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=self.log)
        self.proc = subprocess.Popen(self.argv, stdout=self.reader.stdin, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited {self.proc.returncode}: {open(self.logpath).read()[-2000:]}")
            try:
                http("GET", "/status", timeout=2)
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not answer within 30 s")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.stdin.close()
        self.reader.wait()
        self.log.close()


def client(mode, file, n):
    out = subprocess.run([ARGS.client, mode, str(PORT), TOKEN, file, str(n)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"client {mode} failed: {out.stderr.strip()}")
    rows = [line.split() for line in out.stdout.splitlines() if line.strip()]
    MISSES[mode] = MISSES.get(mode, 0) + sum(1 for r in rows if r == ["miss"])
    return [[float(x) for x in r] for r in rows if r != ["miss"]]


MISSES = {}
SOCKET_ERRORS = []
CURRENT = [""]


def wrk(seconds, connections=16):
    out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-H", f"Authorization: Bearer {TOKEN}",
                          f"http://127.0.0.1:{PORT}/status"], capture_output=True, text=True)
    m = re.search(r"Requests/sec:\s+([\d.]+)", out.stdout)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out.stdout)
    if not m or bad:
        raise RuntimeError(f"wrk: {out.stdout} {out.stderr}")
    # The body refuses a 17th connection from one address (HTTPLimits.perAddress):
    # wrk's socket errors say whether that (or anything else) cut the figure.
    errors = re.search(r"Socket errors: (.*)", out.stdout)
    if errors:
        SOCKET_ERRORS.append(f"{CURRENT[0]} -c{connections}: {errors.group(1).strip()}")
    return float(m.group(1))


def measure(prog, sim, preview):
    CURRENT[0] = prog.name
    got = {}
    http("POST", "/face", {"onair": {"on": False}})
    time.sleep(ARGS.settle)
    got["rss_kb"], got["private_kb"], got["threads"] = memory(prog.proc.pid)
    before = tasks_switches(prog.proc.pid)
    time.sleep(ARGS.idle)
    got["idle_wakeups"] = tasks_switches(prog.proc.pid) - before
    got["idle_seconds"] = ARGS.idle
    pushes = client("push", sim["GPIO17"] + "/value", ARGS.pushes)
    got["push_lamp_ms"] = [p[0] for p in pushes]
    got["push_answer_ms"] = [p[1] for p in pushes]
    got["press_ears_ms"] = [p[0] for p in client("press", sim["GPIO23"] + "/pull", ARGS.presses)]
    got["status_rps"] = wrk(ARGS.wrk)
    got["status_rps_c4"] = wrk(ARGS.wrk, 4)
    if preview:
        http("POST", "/face", {"eyes": {"open": False, "red": False}})
        http("POST", "/face", {"eyes": {"open": True, "red": True, "why": "Dad's tap on the studio body",
                                        "until": time.time() + 3600}})
        stream = subprocess.Popen(["curl", "-s", "-N", "-o", "/dev/null", "-w", "%{size_download}",
                                   "-H", f"Authorization: Bearer {TOKEN}", f"http://127.0.0.1:{PORT}/preview"],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(2)
        eyes = json.loads(http("GET", "/status"))["eyes"]
        got["preview_why"] = eyes.get("preview_why")
        t0 = time.monotonic()
        got["press_preview_ears_ms"] = [p[0] for p in client("press", sim["GPIO23"] + "/pull", ARGS.presses)]
        seconds = time.monotonic() - t0
        http("POST", "/face", {"eyes": {"open": False, "red": False}})
        try:
            streamed = int(stream.communicate(timeout=10)[0] or 0)
        except subprocess.TimeoutExpired:
            stream.kill()
            streamed = int(stream.communicate()[0] or 0)
        got["preview_bytes_per_s"] = streamed / max(seconds + 2, 1)
    return got


def cpu_seconds(pid):
    """User and system CPU of every thread of the process so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stream(url, pid, seconds, headers=()):
    """One MJPEG client for `seconds`: frames delivered (JPEG starts in the
    multipart body: FF D8 FF; the entropy-coded data escapes every FF) and the
    server's CPU seconds over the same time."""
    out = f"/run/bench/stream-{os.getpid()}.bin"
    args = ["curl", "-s", "-N", "--max-time", str(seconds), "-o", out, url]
    for h in headers:
        args[1:1] = ["-H", h]
    before = cpu_seconds(pid)
    subprocess.run(args)
    cpu = cpu_seconds(pid) - before
    data = open(out, "rb").read()
    os.unlink(out)
    return data.count(b"\xff\xd8\xff"), cpu


def camera(work):
    """The body's /preview against µStreamer (Debian's ustreamer) on the same
    vivid device: YUYV 640x480 at 15 fps, quality 80, one client, CPU per frame."""
    got = {}
    body = Program("body", [ARGS.body, "--config", f"{work}/body.conf"], f"{work}/body-camera.log").start()
    try:
        # As Oriel opens the gate for a tap: closed first, then open (measure() does the same).
        http("POST", "/face", {"eyes": {"open": False, "red": False}})
        http("POST", "/face", {"eyes": {"open": True, "red": True, "why": "Dad's tap on the studio body",
                                        "until": time.time() + 3600}})
        time.sleep(2)
        got["preview_why"] = json.loads(http("GET", "/status"))["eyes"].get("preview_why")
        frames, cpu = stream(f"http://127.0.0.1:{PORT}/preview", body.proc.pid, ARGS.camera,
                             [f"Authorization: Bearer {TOKEN}"])
        got["body"] = {"frames": frames, "cpu_s": cpu, "seconds": ARGS.camera}
        if frames == 0:
            raise RuntimeError(f"the body's /preview gave no frame ({got['preview_why']}): "
                               f"{open(body.logpath, errors='replace').read()[-1500:]}")
    finally:
        body.stop()
    ust = subprocess.Popen(["ustreamer", "--device", "/dev/video0", "--format", "YUYV", "--resolution", "640x480",
                            "--desired-fps", "15", "--quality", "80", "--encoder", "CPU", "--host", "127.0.0.1",
                            "--port", str(PORT + 1)], stdout=subprocess.DEVNULL, stderr=open(f"{work}/ustreamer.log", "ab"))
    try:
        time.sleep(3)
        if ust.poll() is not None:
            raise RuntimeError(f"ustreamer exited {ust.returncode}: {open(f'{work}/ustreamer.log').read()[-1000:]}")
        frames, cpu = stream(f"http://127.0.0.1:{PORT + 1}/stream", ust.pid, ARGS.camera)
        got["ustreamer"] = {"frames": frames, "cpu_s": cpu, "seconds": ARGS.camera}
    finally:
        ust.terminate()
        try:
            ust.wait(10)
        except subprocess.TimeoutExpired:
            ust.kill()
            ust.wait()
    say(f"camera: body {got['body']['frames']} frames for {got['body']['cpu_s']:.2f} s CPU, "
        f"ustreamer {got['ustreamer']['frames']} frames for {got['ustreamer']['cpu_s']:.2f} s CPU")
    return got


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--body", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--client", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--pushes", type=int, default=60)
    p.add_argument("--presses", type=int, default=12)
    p.add_argument("--wrk", type=int, default=5)
    p.add_argument("--idle", type=float, default=10)
    p.add_argument("--settle", type=float, default=2)
    p.add_argument("--camera", type=int, default=10, help="seconds each of the body's and µStreamer's stream; 0: none")
    ARGS = p.parse_args()

    subprocess.run([f"{ROOT}/Tests/hil/gpio-sim-setup", "bench", *LINES], check=True, stdout=subprocess.DEVNULL)
    chip = json.load(open("/run/hil-gpio/bench.json"))
    sim = {name: line["sim"] for name, line in chip["lines"].items()}
    work = "/run/bench"
    os.makedirs(work, exist_ok=True)
    with open(f"{work}/token", "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(f"{work}/token", 0o600)
    with open(f"{work}/body.conf", "w") as f:
        # Plain HTTP, as the reference speaks: the ratios compare code, not TLS (issue 21).
        f.write(f"[body]\nname = bench\ntls = no\nlisten = 127.0.0.1:{PORT}\ntoken-file = {work}/token\n"
                f"[oriel]\nsilence = 600s\n[board]\nfile = {ROOT}/board/raspberrypi.conf\n"
                f"[camera]\ndevice = /dev/video0\nsize = 640x480\nfps = 15\n")
    body = Program("body", [ARGS.body, "--config", f"{work}/body.conf"], f"{work}/body.log")

    # The reference answers a status document of the body's size, measured here.
    body.start()
    status_bytes = len(http("GET", "/status"))
    body.stop()
    say(f"the body's /status is {status_bytes} bytes")
    reference = Program("reference", [ARGS.reference, "--port", str(PORT), "--token-file", f"{work}/token",
                                      "--lamp", "GPIO17", "--button", "GPIO23", "--armed", "GPIO27", "--status-bytes", str(status_bytes)],
                        f"{work}/reference.log")

    clocksource = open("/sys/devices/system/clocksource/clocksource0/current_clocksource").read().strip()
    results = {"status_bytes": status_bytes, "kernel": os.uname().release, "clocksource": clocksource,
               "cpus": os.cpu_count(), "rounds": []}
    for r in range(ARGS.rounds):
        row = {}
        for prog in (reference, body):
            prog.start()
            try:
                row[prog.name] = measure(prog, sim, preview=prog is body)
            finally:
                prog.stop()
            m = row[prog.name]
            say(f"round {r + 1} {prog.name}: lamp p50 {sorted(m['push_lamp_ms'])[len(m['push_lamp_ms']) // 2]:.2f} ms, "
                f"/ears p50 {sorted(m['press_ears_ms'])[len(m['press_ears_ms']) // 2]:.2f} ms, "
                f"/status {m['status_rps']:.0f}/s, private {m['private_kb']} KiB, wakeups {m['idle_wakeups']}")
        if ARGS.camera > 0:
            row["camera"] = camera(work)
        results["rounds"].append(row)
    results["press_misses"] = MISSES.get("press", 0)
    results["wrk_socket_errors"] = SOCKET_ERRORS
    results["body_log_lines"] = sum(1 for _ in open(body.logpath, errors="replace"))
    results["body_log_tail"] = open(body.logpath, errors="replace").read()[-1500:]
    with open(ARGS.out, "w") as f:
        json.dump(results, f)
    say(f"wrote {ARGS.out}")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a failed run says why in words
        print(f"vm-bench: failed: {e}", file=sys.stderr, flush=True)
        sys.exit(1)
