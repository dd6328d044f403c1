#!/usr/bin/python3
"""Runs in the VM (Tests/hil/clock-tests): GET /where with the guest's wall
clock set 2 h back and 2 h forward, synchronised or not as the kernel says
(adjtimex), against a real gpsd fed by gpsfake whose NMEA carries true time.

A Pi has no battery-backed clock: until network time arrives it lags. Then a
live fix ahead of the clock is fresh and the lag is said; a fix behind it by
more than 30 s is stale either way (issue 23)."""

import ctypes
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "gps"))
from fixture import Body, Gpsd  # noqa: E402

STALE = "no fresh fix within 15 s (the receiver gave only stale fixes: is its clock or this computer's clock wrong?)"
LIBC = ctypes.CDLL(None, use_errno=True)
ADJ_MAXERROR, ADJ_STATUS, STA_UNSYNC, TIME_ERROR = 0x0004, 0x0010, 0x0040, 5
passed = failed = 0


def check(ok, words):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + words, flush=True)
    passed, failed = passed + bool(ok), failed + (not ok)


class Timex(ctypes.Structure):
    # struct timex on 64-bit Linux up to status; the kernel's is larger, so the rest is padding.
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("rest", ctypes.c_byte * 160)]


def kernel_synchronised():
    tx = Timex()
    state = LIBC.adjtimex(ctypes.byref(tx))
    return state != TIME_ERROR and not tx.status & STA_UNSYNC


# True time: the guest's clock at boot (qemu's RTC gives the host's) carried on by the monotonic clock.
TRUE_AT = (time.time(), time.monotonic())


def true_time():
    return TRUE_AT[0] + time.monotonic() - TRUE_AT[1]


def set_clock(offset, synchronised):
    """The wall clock `offset` seconds from true time; settimeofday leaves it
    unsynchronised (as on a Pi before NTP); an NTP daemon's adjtimex clears that."""
    # In this process, not by `date -s` (the same clock_settime): a command's start under
    # TCG on a busy host can take seconds, and the clock would be set that far off.
    # A stall between reading true time and setting the clock sets it that much further
    # back: bounded by the time the two took, not by a tolerance.
    before = true_time()
    time.clock_settime(time.CLOCK_REALTIME, before + offset)
    off, took = time.time() - true_time() - offset, true_time() - before
    check(-took - 0.01 <= off <= 0.01, "the clock is set %+.0f s from true time (%+.3f s off, in %.3f s)"
          % (offset, off, took))
    if synchronised:
        tx = Timex(modes=ADJ_STATUS | ADJ_MAXERROR, status=0, maxerror=0)
        if LIBC.adjtimex(ctypes.byref(tx)) < 0:
            raise OSError(ctypes.get_errno(), "adjtimex")
    check(kernel_synchronised() == synchronised,
          "the kernel says the clock is %ssynchronised" % ("" if synchronised else "not "))


def sees_synchronised(body, within=10.0):
    """Whether the body's /status says the clock is synchronised within `within` s, and the wait."""
    start = time.monotonic()
    while True:
        code, doc, _ = body.get("/status")
        if code == 200 and doc.get("where", {}).get("clock_synchronised") is True:
            return True, time.monotonic() - start
        if time.monotonic() - start > within:
            return False, time.monotonic() - start
        time.sleep(0.25)


def main():
    true_start = true_time()
    # The guest boots with true time from qemu's RTC, and unsynchronised, as a Pi does.
    check(not kernel_synchronised(), "the guest's clock starts unsynchronised")
    # gpsfake plays one cycle a second from true time: 400 s of receiver.
    gpsd = Gpsd(["--start", "%.3f" % true_start, "--cycles", "400"])
    body = Body(gpsd.port)
    try:
        check("clock: the wall clock is not synchronised (no network time yet)" in body.log,
              "the body's start says the clock is not synchronised")

        # 2 h behind, unsynchronised: the receiver's true time answers.
        set_clock(-7200, synchronised=False)
        asked = time.time()
        status, j, took = body.get("/where")
        answered = time.time()
        check(status == 200, "2 h behind, unsynchronised: 200 (%s %s after %.1f s)" % (status, j, took))
        # The log gpsfake plays starts at true time but plays a cycle a second from when it
        # starts, which under TCG on a busy host was 71 s late: a fix's time lies between the
        # log's start and now in true time, wherever the stall fell (1 s for the NMEA's rounding).
        sampled = j.get("sampled_at", 0)
        lag = sampled - answered
        check(true_start - 1 <= sampled <= true_time() + 1,
              "sampled_at %s is the receiver's true time (%.1f s after the log's start, %.1f s before now), "
              "2 h ahead of this clock" % (sampled, sampled - true_start, true_time() - sampled))
        # The body measures the lag at the fixes it reads while it answers: a fix's time
        # less this clock's reading of it. By this clock the fix counted was read after the
        # ask and no later than the answer; its time is the answer's or later, and no later
        # than true time now. Bounds from readings, not a tolerance a stall could break.
        where = body.get("/status")[1]["where"]
        low, high = lag - 1, true_time() - asked + 1
        behind = where.get("clock_behind_receiver")
        check(where.get("clock_synchronised") is False and isinstance(behind, (int, float))
              and low <= behind <= high,
              "/status where says how far behind (%s s; between %.1f and %.0f): %s" % (behind, low, high, where))
        body.get("/where")
        said = [l for l in body.log.splitlines() if "behind the receiver's" in l]
        lags = [int(m.group(1)) for m in (re.search(r"is (\d+) s behind", l) for l in said) if m]
        # The line says the first fix that counted, at most a few cycles before the answer's.
        check(len(said) == 1 and len(lags) == 1 and low - took - 1.5 <= lags[0] <= high + 0.5,
              "one log line says the lag, after two answers: %s" % said)

        # 2 h behind, but the kernel vouches for the clock: one of them is wrong.
        set_clock(-7200, synchronised=True)
        # The body asks the kernel at most once a second (WallClock.swift): an answer within a
        # second of the last one may still be the old word. Its /status says when it has heard.
        heard, waited = sees_synchronised(body)
        check(heard, "the body hears the kernel vouch for the clock (/status after %.1f s)" % waited)
        status, j, took = body.get("/where")
        check(status == 504 and j.get("error") == STALE, "2 h behind, synchronised: 504 stale (%s %s)" % (status, j))
        where = body.get("/status")[1]["where"]
        check(where.get("clock_synchronised") is True and where.get("clock_behind_receiver") is None,
              "/status where says synchronised, no lag: %s" % where)

        # 2 h ahead: the fixes are behind it, stale synchronised or not.
        for synced in (False, True):
            set_clock(7200, synchronised=synced)
            status, j, took = body.get("/where")
            check(status == 504 and j.get("error") == STALE,
                  "2 h ahead, %ssynchronised: 504 stale (%s %s)" % ("" if synced else "not ", status, j))

        # Back to a minute behind the receiver's time, as a Pi's clock is before network time:
        # 200 again. (The receiver trails true time by gpsfake's late start, measured at the
        # first answer, and may fall further behind while it plays: a fix ahead of this
        # unsynchronised clock is fresh, one behind it by 30 s stale, so a minute's margin.)
        trails = lag - 7200 - 60
        set_clock(trails, synchronised=False)
        status, j, took = body.get("/where")
        check(status == 200, "the clock a minute behind the receiver's time (%+.0f s from true time): 200 (%s %s)"
              % (trails, status, j))
    finally:
        set_clock(0, synchronised=False)
        if failed:
            print("body log:\n" + body.log[-3000:])
            print("gpsd log:\n" + gpsd.log[-2000:])
        body.stop()
        gpsd.stop()
    print("clock: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    from verdict import run
    run(main, "clock_where")
