"""Oriel always gets through (issue 12, section 1): the real studio-body on the
sim board, 1,000 hostile connections at once from many loopback addresses,
then wrk with 1,000 authenticated connections on /status, while a fake Oriel
pushes and long-polls as the real one does.

Fails on: any Oriel request that fails or takes over 5 s (Oriel's client
timeout), a lamp that is not what the last push said, a waiting poll not
answered within its wait (and 2 s), the body's open descriptors not back to
where they started, the body's anonymous memory (its heap) more than 1 MiB
above what it was before the storms. Prints Oriel's p50/p99/max
and the RSS growth: figures for docs/reliability.md, not pass marks (a shared
2-core machine's timing).
"""

import asyncio
import json
import os
import re
import resource
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "lib"))
from simbody import BINARY, SimBody  # noqa: E402
TOKEN = "storm-test-token-0123456789abcdef"
HOSTILE = int(os.environ.get("STORM_HOSTILE", "1000"))
SECONDS = float(os.environ.get("STORM_SECONDS", "20"))
WRK_SECONDS = int(os.environ.get("STORM_WRK_SECONDS", "10"))
ORIEL = "127.0.0.250"      # wrk can only come from 127.0.0.1: Oriel keeps apart from its per-address limit
WATCHER = "127.0.0.251"    # a browser watching the page's /events through both storms (issue 20)
CLIENT_TIMEOUT = 5.0       # Oriel's own
POLL_WAIT = 3              # seconds each of Oriel's long polls waits
POLL_SLACK = 2             # past its wait, on a shared machine whose load this storm itself raises
WARM_HOSTILE = 150
# The heap and other private memory after both storms, against before the small
# one: what storms leave behind (issue 12: under 1 MiB). Memory, not time: asserted.
ANON_GROWTH_KIB = 1024
# HTTPS, as the body serves by default (issue 19); STORM_TLS=no runs the storm on plain HTTP.
TLS = os.environ.get("STORM_TLS", "yes") != "no"
CONTEXT = None             # trusts the body's own certificate alone, once it is made
HOSTS = ["127.0.0.%d" % i for i in range(2, 2 + 70)]   # 70 x 16 > 1,000: the per-address limit is not what holds them off

failures = []


def fail(what):
    failures.append(what)
    print("storm: FAIL: " + what, flush=True)


def raise_fd_limit(n=8192):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(n, hard) if hard != resource.RLIM_INFINITY else n
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))


def start_body():
    """The real binary on the sim board, listening on 127.0.0.1."""
    global CONTEXT
    body = SimBody(TOKEN, "[body]\ntls = %s\nname = storm\nlisten = 127.0.0.1:0\ntoken-file = %%(token_file)s\n"
                   "[oriel]\nsilence = 600s\n[board]\nfile = sim\n" % ("yes" if TLS else "no"), prefix="storm-body-")
    if TLS:
        # The body's certificate is the only authority; the name checked is 127.0.0.1, which it carries.
        CONTEXT = ssl.create_default_context(cafile=os.path.join(body.dir, "tls.crt"))
    return body


async def connect(port, host, tls=True):
    """A connection from `host`; over TLS (trusting the body's certificate alone) when the body serves it."""
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(host, 0),
                                         ssl=CONTEXT if tls and TLS else None)


async def read_answer(reader):
    """(status, body bytes) of one HTTP/1.1 answer with a Content-Length."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    length = 0
    for line in lines[1:]:
        if line.lower().startswith("content-length:"):
            length = int(line.split(":", 1)[1])
    return status, await reader.readexactly(length)


class Oriel:
    """Pushes on one kept-alive connection and long-polls on another, as Oriel does."""

    def __init__(self, port):
        self.port = port
        self.times = []        # seconds of every request
        self.pushes = 0
        self.polls = 0
        self.on = False
        self.late = 0.0        # the most a poll was answered after its wait

    async def request(self, conn, method, path, body=b""):
        reader, writer = conn
        started = time.monotonic()
        writer.write(("%s %s HTTP/1.1\r\nHost: body\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n"
                      % (method, path, TOKEN, len(body))).encode() + body)
        await writer.drain()
        status, answer = await read_answer(reader)
        return status, answer, time.monotonic() - started

    async def guarded(self, make, what, limit):
        """One request on a connection made by `make` (made again after a failure)."""
        try:
            if self.conns.get(what) is None:
                self.conns[what] = await asyncio.wait_for(connect(self.port, ORIEL), limit)
            return await asyncio.wait_for(make(self.conns[what]), limit)
        except Exception as e:  # a timeout, a reset, a closed connection: a failed Oriel request
            old = self.conns.pop(what, None)
            if old:
                old[1].close()
            fail("Oriel's %s failed: %r" % (what, e))
            return None

    async def pusher(self, until):
        while time.monotonic() < until:
            self.on = not self.on
            push = {"onair": {"on": True, "phase": "live"}} if self.on else {"onair": {"on": False}}
            got = await self.guarded(lambda c: self.request(c, "POST", "/face", json.dumps(push).encode()),
                                     "push", CLIENT_TIMEOUT)
            if got:
                status, answer, took = got
                self.times.append(took)
                self.pushes += 1
                want = "on" if self.on else "off"
                if status != 200:
                    fail("a push answered %d: %s" % (status, answer[:200]))
                elif json.loads(answer)["onair"]["value"] != want:
                    fail("after a push of %s the answer says %s" % (want, answer[:200]))
                got = await self.guarded(lambda c: self.request(c, "GET", "/status"), "push", CLIENT_TIMEOUT)
                if got:
                    self.times.append(got[2])
                    doc = json.loads(got[1])
                    if doc["onair"]["value"] != want or doc["lines"].get("lamp") is not (want == "on"):
                        fail("right after a push of %s the lamp is %s, line %s"
                             % (want, doc["onair"]["value"], doc["lines"].get("lamp")))
            await asyncio.sleep(0.5)

    async def poller(self, until):
        after = 0
        while time.monotonic() < until:
            got = await self.guarded(lambda c: self.request(c, "GET", "/ears?after=%d&wait=%d" % (after, POLL_WAIT)),
                                     "poll", POLL_WAIT + CLIENT_TIMEOUT)
            if got:
                status, answer, took = got
                self.polls += 1
                if status != 200:
                    fail("a poll answered %d" % status)
                else:
                    after = json.loads(answer)["next"]
                self.late = max(self.late, took - POLL_WAIT)
                if took > POLL_WAIT + POLL_SLACK:
                    fail("a poll waiting %d s was answered after %.2f s" % (POLL_WAIT, took))

    async def run(self, seconds):
        self.conns = {}
        until = time.monotonic() + seconds
        await asyncio.gather(self.pusher(until), self.poller(until))
        for _, writer in self.conns.values():
            writer.close()


class Watcher:
    """A browser with the page open: signs in with the form (a session cookie),
    then reads GET /events through both storms, like any other client. Counts
    the events and keeps the newest's On Air value."""

    def __init__(self, port):
        self.port = port
        self.events = 0
        self.value = None
        self.closed = None
        self.task = None

    async def open(self):
        reader, writer = await connect(self.port, WATCHER)
        form = ("token=" + TOKEN).encode()
        writer.write(b"POST /signin HTTP/1.1\r\nHost: body\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(form), form))
        await writer.drain()
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        cookie = re.search(r"Set-Cookie: (studio-body-session=[0-9a-f]+)", head)
        length = re.search(r"Content-Length: (\d+)", head, re.I)
        await reader.readexactly(int(length.group(1)) if length else 0)
        if not cookie:
            raise AssertionError("signing in gave no cookie: " + head[:200])
        writer.write(("GET /events HTTP/1.1\r\nHost: body\r\nCookie: %s\r\n\r\n" % cookie.group(1)).encode())
        await writer.drain()
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        if not head.startswith("HTTP/1.1 200") or "text/event-stream" not in head:
            raise AssertionError("GET /events answered " + head[:200])
        self.writer = writer
        self.task = asyncio.create_task(self.read(reader))

    async def read(self, reader):
        """The chunked body, de-chunked, split into events at their blank lines."""
        text = b""
        try:
            while True:
                size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.closed = "the body ended the stream"
                    return
                text += await reader.readexactly(size)
                await reader.readexactly(2)
                while b"\n\n" in text:
                    event, text = text.split(b"\n\n", 1)
                    data = b"".join(l[6:] for l in event.split(b"\n") if l.startswith(b"data: "))
                    if data:
                        self.events += 1
                        self.value = json.loads(data)["status"]["onair"]["value"]
        except Exception as e:  # noqa: BLE001: any end of the stream is the finding
            self.closed = repr(e)

    async def sees(self, value, within):
        end = time.monotonic() + within
        while time.monotonic() < end:
            if self.value == value:
                return True
            await asyncio.sleep(0.02)
        return False

    def close(self):
        if self.task:
            self.task.cancel()
        self.writer.close()


async def hostile(port, n, kind, until):
    """One hostile client that starts again whenever the body closes it."""
    host = HOSTS[n % len(HOSTS)]
    # With TLS: "idle" starts no handshake, "cut hello" starts one and stops, "garbage"
    # is not TLS at all; every other kind finishes its handshake first.
    plain = kind in ("idle", "cut hello", "garbage")
    while time.monotonic() < until:
        writer = None
        try:
            reader, writer = await asyncio.wait_for(connect(port, host, tls=not plain), 2)
            if kind == "cut hello":
                writer.write(bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03]))
                await reader.read(1)
            elif kind == "idle":
                await reader.read(1)
            elif kind == "half head":
                writer.write(b"GET /status HTTP/1.1\r\nHost: x\r\n")
                await reader.read(1)
            elif kind == "trickle":
                writer.write(b"POST /face HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
                while time.monotonic() < until:
                    writer.write(b"x")
                    await writer.drain()
                    await asyncio.sleep(1)
            elif kind == "64 KiB":
                writer.write(b"POST /face HTTP/1.1\r\nHost: x\r\nContent-Length: 65536\r\n\r\n" + b"{" * 65536)
                await writer.drain()
                await reader.read(4096)
            elif kind == "wrong token":
                while time.monotonic() < until:
                    writer.write(b"GET /status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n\r\n")
                    await writer.drain()
                    await read_answer(reader)
                    await asyncio.sleep(0.2)
            elif kind == "garbage":
                writer.write(b"GET /status HTTP/1.1\r\nHost: x\r\n\r\n\x00\x01\xff GARBAGE / FOO\r\n\r\n" * 4)
                await writer.drain()
                await reader.read(65536)
        except Exception:
            pass
        finally:
            if writer:
                writer.close()
        await asyncio.sleep(0.1)   # then again: the storm holds for its whole time


KINDS = ["idle", "half head", "trickle", "64 KiB", "wrong token", "garbage"] + (["cut hello"] if TLS else [])


def percentile(times, p):
    s = sorted(times)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else 0


def report(name, oriel, rss0, body):
    t = oriel.times
    print("storm: %s: Oriel %d pushes, %d polls, %d requests timed: p50 %.1f ms, p99 %.1f ms, max %.1f ms; "
          "polls answered at most %.2f s after their wait; RSS %d -> %d KiB; load %s"
          % (name, oriel.pushes, oriel.polls, len(t), percentile(t, 50) * 1000, percentile(t, 99) * 1000,
             max(t or [0]) * 1000, oriel.late, rss0, body.rss_kib(), open("/proc/loadavg").read().split()[0]),
          flush=True)
    if oriel.pushes == 0 or oriel.polls == 0:
        fail("%s: Oriel got nothing through" % name)


async def warm_up(body):
    """Oriel for 2 s, then a small storm of every kind (150 connections, past
    the point where the body makes room) for 3 s: the body's first answers
    allocate what it keeps, and the code of each path is read in from disk
    once. What the big storm adds after this is what it leaves behind."""
    oriel = Oriel(body.port)
    await oriel.run(2)
    quiet = body.memory_kib()
    until = time.monotonic() + 3
    await asyncio.gather(*[hostile(body.port, i, KINDS[i % len(KINDS)], until) for i in range(WARM_HOSTILE)])
    wrk = subprocess.run(["wrk", "-t1", "-c50", "-d2s", "-H", "Authorization: Bearer " + TOKEN,
                          "%s://127.0.0.1:%d/status" % ("https" if TLS else "http", body.port)], capture_output=True)
    if wrk.returncode != 0:
        fail("wrk did not run: %s" % wrk.stderr.decode(errors="replace")[:200])
    await Oriel(body.port).run(1)
    return quiet


async def storm(body):
    quiet = await warm_up(body)
    fds0, rss0, mem0 = body.fds(), body.rss_kib(), body.memory_kib()
    print("storm: the body holds %d descriptors and %d KiB after warming up (%d KiB anonymous; %d before "
          "the small storm)" % (fds0, rss0, mem0["RssAnon"], quiet["RssAnon"]), flush=True)

    watcher = Watcher(body.port)
    try:
        await asyncio.wait_for(watcher.open(), 10)
    except Exception as e:  # noqa: BLE001
        fail("the page's watcher could not open /events before the storm: %r" % e)

    until = time.monotonic() + SECONDS
    tasks = [asyncio.create_task(hostile(body.port, i, KINDS[i % len(KINDS)], until)) for i in range(HOSTILE)]
    oriel = Oriel(body.port)
    await oriel.run(SECONDS)
    await asyncio.gather(*tasks)
    report("%d hostile connections for %.0f s" % (HOSTILE, SECONDS), oriel, rss0, body)
    times = oriel.times

    wrk = subprocess.Popen(["bash", "-c", "ulimit -n 8192; exec wrk -t2 -c1000 -d%ds -H 'Authorization: Bearer %s' "
                            "%s://127.0.0.1:%d/status" % (WRK_SECONDS, TOKEN, "https" if TLS else "http", body.port)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    oriel = Oriel(body.port)
    await oriel.run(WRK_SECONDS)
    out, _ = await asyncio.get_running_loop().run_in_executor(None, wrk.communicate)
    report("wrk, 1,000 authenticated connections on /status for %d s" % WRK_SECONDS, oriel, rss0, body)
    print("storm: wrk: " + " | ".join(l.strip() for l in out.splitlines() if re.search(r"requests in|Requests/sec|Socket errors|Non-2xx", l)), flush=True)
    times += oriel.times

    # The watcher was connected through both storms: still there, and a change reaches it.
    before = watcher.events
    conn = await connect(body.port, ORIEL)
    final = Oriel(body.port)
    for push, want in (({"onair": {"unread": "the storm test's last push"}}, "unknown"),
                       ({"onair": {"on": True, "phase": "live"}}, "on")):
        status, _, _ = await final.request(conn, "POST", "/face", json.dumps(push).encode())
        seen = await watcher.sees(want, 2)
        if status != 200 or not seen:
            fail("after the storms, the page's /events client did not see On Air %s within 2 s (push %d; %s; "
                 "it saw %d events, the last %s)" % (want, status, watcher.closed or "the stream is open",
                                                     watcher.events, watcher.value))
    conn[1].close()
    print("storm: the page's /events client stayed connected through both storms: %d events, the last after "
          "them said On Air %s (%d since the storms)" % (watcher.events, watcher.value, watcher.events - before), flush=True)
    watcher.close()

    end = time.monotonic() + 15
    while time.monotonic() < end and body.fds() > fds0:
        await asyncio.sleep(0.2)
    fds1, rss1, mem1 = body.fds(), body.rss_kib(), body.memory_kib()
    anon = mem1["RssAnon"] - quiet["RssAnon"]
    print("storm: afterwards the body holds %d descriptors (%d before) and %d KiB (%+d KiB since the warm-up: "
          "anonymous %+d, pages of files %+d); anonymous memory %+d KiB since before the small storm"
          % (fds1, fds0, rss1, rss1 - rss0, mem1["RssAnon"] - mem0["RssAnon"], mem1["RssFile"] - mem0["RssFile"], anon),
          flush=True)
    if anon > ANON_GROWTH_KIB:
        fail("the body's anonymous memory grew %d KiB over both storms, more than %d KiB" % (anon, ANON_GROWTH_KIB))
    if fds1 > fds0:
        fail("the body holds %d descriptors, %d before the storm" % (fds1, fds0))
    if max(times or [0]) > CLIENT_TIMEOUT:
        fail("an Oriel request took %.1f s" % max(times))
    if body.proc.poll() is not None:
        fail("the body exited with %s" % body.proc.returncode)


def main():
    raise_fd_limit()
    print("storm: %s (wrk, the load, cannot verify a certificate; Oriel and the hostile clients that finish a "
          "handshake trust the body's certificate alone)" % ("HTTPS" if TLS else "plain HTTP, STORM_TLS=no"), flush=True)
    if not shutil.which("wrk"):
        print("storm: wrk is missing (scripts/apt-packages.txt has it; scripts/deps installs it)")
        return 1
    body = start_body()
    try:
        asyncio.run(storm(body))
    finally:
        log = body.log
        body.stop()
    lines = log.splitlines()
    print("storm: the body said %d log lines; its lines about limits:" % len(lines))
    for line in [l for l in lines if "room" in l or "not whole" in l or "libmicrohttpd" in l][:8]:
        print("  " + line[:200])
    if failures:
        print("storm: %d failures" % len(failures))
        return 1
    print("storm: 0 failed Oriel requests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
