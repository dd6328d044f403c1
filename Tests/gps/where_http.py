#!/usr/bin/env python3
"""GET /where through the real studio-body daemon, from a real gpsd fed by
gpsfake on loopback (issue 5): every /where scenario, once, from the
outside (the configuration's [location], HTTP, /status's where, the journal's
words). Every case runs at once, so the 15 s waits overlap. Exits non-zero
when any case fails.

    where_http.py [CASE ...]      (default: every case)
"""

import concurrent.futures
import socket
import sys
import time
import traceback

from fake_gpsd import FakeGpsd
from fixture import TOKEN, Body, Gpsd

LAT, LON = 52.520008, 13.404954
NO_FIX = "no fresh fix within 15 s (the receiver has no fix: indoors, or no sky)"


class Case:
    def __init__(self, name):
        self.name = name
        self.failures = []
        self.notes = []

    def check(self, ok, words):
        if not ok:
            self.failures.append(words)

    def note(self, words):
        self.notes.append(words)


def with_body(nmea_args, allowed=True):
    """Starts gpsd (nmea_args None: bare, no receiver) and a body pointed at it."""
    gpsd = Gpsd(nmea_args)
    try:
        return gpsd, Body(gpsd.port, allowed)
    except Exception:
        gpsd.stop()
        raise


def settles(predicate, seconds=2.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def near(a, b, tol=1e-6):
    return isinstance(a, (int, float)) and abs(a - b) < tol


def good_3d(c, gpsd, body):
    status, j, took = body.get("/where")
    c.note("200 after %.2f s: %s" % (took, j))
    c.check(status == 200, "status %s: %s" % (status, j))
    c.check(near(j.get("lat"), LAT) and near(j.get("lon"), LON), "position %s,%s" % (j.get("lat"), j.get("lon")))
    c.check(j.get("altitude") == 34.5, "altitude %s" % j.get("altitude"))
    c.check(j.get("heading") == 87.5, "heading %s" % j.get("heading"))
    c.check(near(j.get("speed"), 0.54 * 1852 / 3600, 0.001), "speed %s" % j.get("speed"))
    c.check(isinstance(j.get("accuracy_m"), (int, float)) and j["accuracy_m"] > 0, "accuracy %s" % j.get("accuracy_m"))
    c.check(round(j.get("sampled_at", 0), 2) in gpsd.fix_times(), "sampled_at %s is no fix time in the log" % j.get("sampled_at"))
    c.check(abs(time.time() - j.get("sampled_at", 0)) <= 30, "sampled_at %s is not fresh" % j.get("sampled_at"))
    c.check(str(j.get("source", "")).startswith("/dev/pts/"), "source %s" % j.get("source"))
    c.check(took < 5, "took %.2f s" % took)
    c.check(not body.watching(), "/status says still watching")
    c.check(settles(lambda: gpsd.detached() == 1), "gpsd detached %d clients" % gpsd.detached())
    c.check(gpsd.watches() == 1 and gpsd.connections() == 0,
            "watches %d, connections %d" % (gpsd.watches(), gpsd.connections()))


def two_d(c, gpsd, body):
    status, j, took = body.get("/where")
    c.note("200 after %.2f s: %s" % (took, j))
    c.check(status == 200, "status %s: %s" % (status, j))
    c.check("altitude" not in j, "a 2D fix gave altitude %s" % j.get("altitude"))
    c.check(near(j.get("lat"), LAT), "lat %s" % j.get("lat"))
    c.check("accuracy_m" in j, "a 2D fix gave no accuracy_m")


def no_estimate(c, gpsd, body):
    status, j, took = body.get("/where")
    c.note("%s after %.2f s: %s" % (status, took, j))
    c.check(status == 200, "status %s: %s" % (status, j))
    c.check("accuracy_m" in j and j["accuracy_m"] is None, "accuracy_m %r" % j.get("accuracy_m", "absent"))
    c.check(near(j.get("lat"), LAT), "lat %s" % j.get("lat"))
    # gpsd says the receiver's cycle is 1 s: the hold is that, not the 15 s deadline.
    c.check(took < 5, "answered after %.2f s" % took)


def timed_504(words):
    def case(c, gpsd, body):
        status, j, took = body.get("/where")
        c.note("%s after %.2f s: %s" % (status, took, j))
        c.check(status == 504, "status %s: %s" % (status, j))
        c.check(j.get("error") == words, "words %r" % j.get("error"))
        c.check(14.9 <= took < 16.5, "answered after %.2f s" % took)
        c.check(not body.watching(), "/status says still watching")
    return case


def fix_after_8(c, gpsd, body):
    status, j, took = body.get("/where")
    c.note("%s after %.2f s" % (status, took))
    c.check(status == 200, "status %s: %s" % (status, j))
    c.check(6 < took < 12, "answered after %.2f s" % took)


def noise(c, gpsd, body):
    for _ in range(3):
        status, j, took = body.get("/where")
        c.check(status == 200, "status %s: %s" % (status, j))
        c.check(near(j.get("lat"), LAT) and near(j.get("lon"), LON), "position %s,%s" % (j.get("lat"), j.get("lon")))
    c.check('"lat":-1.01' not in gpsd.log, "gpsd reported the bogus position")


def not_running(c, gpsd, body):
    gpsd.stop()
    status, j, took = body.get("/where")
    c.note("%s after %.3f s: %s" % (status, took, j))
    c.check(status == 503, "status %s" % status)
    c.check(j.get("error") == "gpsd is not running at 127.0.0.1:%d" % gpsd.port, "words %r" % j.get("error"))
    c.check(took < 0.5, "took %.2f s" % took)
    c.check(not body.watching(), "/status says still watching")
    cannot = "gpsd: cannot connect to 127.0.0.1:%d: " % gpsd.port
    c.check(body.log.count(cannot) == 1, "the log says %r %d times" % (cannot, body.log.count(cannot)))
    body.get("/where")
    c.check(body.log.count(cannot) == 1, "a repeated problem is logged again: %d times" % body.log.count(cannot))


def not_allowed(c, gpsd, body):
    status, j, took = body.get("/where")
    c.check(status == 403, "status %s" % status)
    c.check(j.get("error") == "location is not allowed for this body; a person allows it in the configuration",
            "words %r" % j.get("error"))
    c.check(gpsd.watches() == 0, "gpsd saw a watch")
    s = body.get("/status")[1]["where"]
    c.check(s.get("allowed") is False and s.get("watching") is False, "/status where %s" % s)


def killed(c, gpsd, body):
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        reply = pool.submit(body.get, "/where")
        time.sleep(3)
        c.check(body.watching(), "/status does not say watching")
        killed_at = time.monotonic()
        gpsd.kill_gpsd()
        status, j, took = reply.result()
        late = time.monotonic() - killed_at
    c.note("%s %.2f s after the kill: %s" % (status, late, j))
    c.check(status == 504, "status %s" % status)
    c.check(j.get("error") == "no fresh fix within 15 s (gpsd stopped answering)", "words %r" % j.get("error"))
    c.check(late < 1, "answered %.2f s after gpsd died" % late)
    c.check(not body.watching(), "/status says still watching")
    lost = "gpsd: lost the watch at 127.0.0.1:%d: " % gpsd.port
    # The turn writes its log after its answers: the line may trail the 504 a moment.
    c.check(settles(lambda: lost in body.log), "the log does not say %r" % lost)


def shared(c, gpsd, body):
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        replies = [pool.submit(body.get, "/where") for _ in range(3)]
        time.sleep(1)
        c.check(body.watching(), "/status does not say watching while three wait")
        results = [r.result() for r in replies]
    c.note("statuses %s after %s s" % ([r[0] for r in results], ["%.2f" % r[2] for r in results]))
    c.check([r[0] for r in results] == [200, 200, 200], "statuses %s" % [r[0] for r in results])
    c.check(gpsd.watches() == 1, "gpsd saw %d watches for three concurrent requests" % gpsd.watches())
    c.check(not body.watching(), "/status says still watching")
    c.check(settles(lambda: gpsd.detached() == 1), "gpsd detached %d clients" % gpsd.detached())
    c.check(gpsd.connections() == 0, "%d connections left to gpsd" % gpsd.connections())
    # Nothing measures between requests: the next one opens a new watch.
    status, j, took = body.get("/where")
    c.check(status == 200, "the next request: status %s: %s" % (status, j))
    c.check(gpsd.watches() == 2, "gpsd saw %d watches after the next request" % gpsd.watches())
    c.check(settles(lambda: gpsd.detached() == 2), "gpsd detached %d clients after the next request" % gpsd.detached())


def client_leaves(c, gpsd, body):
    """DESIGN 6 step 5: a client that disconnects withdraws its wait; the last one closes the watch."""
    # Over TLS, as the body serves, trusting its certificate alone (body.context).
    s = body.context.wrap_socket(socket.create_connection(("127.0.0.1", body.port)), server_hostname="127.0.0.1")
    s.sendall(b"GET /where HTTP/1.1\r\nHost: body\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n\r\n")
    c.check(settles(body.watching), "/status does not say watching while one waits")
    c.check(settles(lambda: gpsd.watches() == 1), "gpsd saw %d watches" % gpsd.watches())
    left = time.monotonic()
    s.close()
    c.check(settles(lambda: not body.watching()), "/status says still watching after the client left")
    c.check(settles(lambda: gpsd.detached() == 1 and gpsd.connections() == 0),
            "gpsd detached %d clients, %d connections left" % (gpsd.detached(), gpsd.connections()))
    c.note("the watch closed %.2f s after the client left" % (time.monotonic() - left))
    c.check(time.monotonic() - left < 3, "the watch closed %.1f s after the client left" % (time.monotonic() - left))


SILENT = "no fresh fix within 15 s (gpsd stopped answering)"
GARBLED = "no fresh fix within 15 s (gpsd sent lines that are not gpsd's JSON)"


def faulty(kind, words, within, said):
    """A gpsd that stalls or writes garbage (Tests/gps/fake_gpsd.py) mid-request:
    /where answers 504 in words within its 15 s (`within`: the latest second it may
    answer), never with a place; the body closes its socket to the fake and /status
    stops watching; then a real gpsd comes back on the same port and the next
    request gets a fix. `said`: what the log says about it, exactly once."""
    def case(c, fake, body):
        status, j, took = body.get("/where")
        answered = time.monotonic()
        c.note("%s after %.2f s: %s (the fake wrote %d bytes)" % (status, took, j, fake.sent))
        c.check(fake.watches == 1, "the fake saw %d watches" % fake.watches)
        c.check(status == 504, "status %s: %s" % (status, j))
        c.check(j.get("error") in words, "words %r" % j.get("error"))
        c.check(took < within, "answered after %.2f s" % took)
        c.check(settles(lambda: fake.closed_at and fake.open_connections() == 0),
                "the body's socket to the fake is still open")
        if fake.closed_at:
            c.note("the body closed its socket %.2f s after answering" % (fake.closed_at[0] - answered))
        c.check(not body.watching(), "/status says still watching")
        c.check(body.proc.poll() is None, "the body died")
        # Said in words, once (not once a line): the fault, and for garbage what the line was.
        if said:
            settles(lambda: said in body.log)  # written after the answer, in the same turn
            c.check(body.log.count(said) == 1, "the log says %r %d times" % (said, body.log.count(said)))
        else:
            c.check("where: gpsd at" not in body.log, "the log says a problem: %s" % body.log)
        # gpsd is back: a real one, fed by gpsfake, where the fake was.
        fake.stop()
        real = Gpsd([], port=fake.port)
        try:
            status, j, took = body.get("/where")
            c.note("gpsd back: %s after %.2f s" % (status, took))
            c.check(status == 200 and near(j.get("lat"), LAT), "with gpsd back: status %s: %s" % (status, j))
            c.check(not body.watching(), "/status says still watching after gpsd came back")
            if said:
                c.check(settles(lambda: "answers again" in body.log), "the log does not say gpsd answers again")
        finally:
            real.stop()
    case.fake = kind
    return case


CASES = {
    "good-3d": ([], good_3d),
    "2d": (["--fix", "2d"], two_d),
    "no-error-estimate": (["--fix", "rmc"], no_estimate),
    "no-fix": (["--fix", "none", "--cycles", "40"], timed_504(NO_FIX)),
    "fix-after-8s": (["--nofix", "8", "--cycles", "30"], fix_after_8),
    "fix-after-20s": (["--nofix", "20", "--cycles", "30"], timed_504(NO_FIX)),
    "noise": (["--noise"], noise),
    "stale": (["--age", "3600"], timed_504(
        "no fresh fix within 15 s (the receiver gave only stale fixes: is its clock or this computer's clock wrong?)")),
    "gpsd-not-running": (None, not_running),
    "not-allowed": (None, not_allowed),
    "no-receiver": (None, timed_504("no fresh fix within 15 s (no receiver is attached to gpsd)")),
    "gpsd-killed": (["--fix", "none", "--cycles", "40"], killed),
    "three-share-one-watch": (["--nofix", "3"], shared),
    "client-leaves": (["--fix", "none", "--cycles", "40"], client_leaves),
    # gpsd gone wrong (issue 12 section 3): a fake on a real socket, then a real gpsd back.
    "gpsd-stalled": (None, faulty("stalled", [SILENT], 16.5, "stopped answering: no JSON from it within 15 s")),
    "gpsd-random-bytes": (None, faulty("random", [GARBLED], 16.5, "sent a line that is not gpsd's JSON")),
    "gpsd-half-lines": (None, faulty("half-json", [GARBLED], 16.5, "sent a line that is not gpsd's JSON")),
    # libgps holds 20,479 bytes of a line with no end: past that the watch ends at once, in words.
    "gpsd-huge-line": (None, faulty("huge", [SILENT], 3, "gpsd sent a line longer than 20480 bytes with no end")),
    "gpsd-nul-bad-utf8-classless": (None, faulty("not-gpsd-json", [GARBLED], 16.5, "sent a line that is not gpsd's JSON")),
    # A gpsd saying SKY (and classes unknown to libgps) is talking: the receiver has no fix.
    "gpsd-wrong-class": (None, faulty("wrong-class", [NO_FIX], 16.5, "")),
}


def run(name):
    args, fn = CASES[name]
    c = Case(name)
    gpsd = body = None
    try:
        if hasattr(fn, "fake"):
            gpsd = FakeGpsd(fn.fake)
            body = Body(gpsd.port)
        else:
            gpsd, body = with_body(args, allowed=(name != "not-allowed"))
        fn(c, gpsd, body)
    except Exception:
        c.failures.append(traceback.format_exc())
    finally:
        if c.failures and body:
            c.notes.append("body log:\n" + body.log[-2000:])
        if c.failures and gpsd and hasattr(gpsd, "log"):
            c.notes.append("gpsd log:\n" + gpsd.log[-2000:])
        if body:
            body.stop()
        if gpsd:
            gpsd.stop()
    return c


def main(argv):
    names = argv or list(CASES)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(len(names)) as pool:
        results = list(pool.map(run, names))
    failed = 0
    for c in results:
        print("%s %s" % ("ok  " if not c.failures else "FAIL", c.name))
        for n in c.notes:
            print("       " + n)
        for f in c.failures:
            print("     ! " + f)
        failed += bool(c.failures)
    print("GET /where through the daemon: %d passed, %d failed in %.1f s"
          % (len(results) - failed, failed, time.monotonic() - started))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
