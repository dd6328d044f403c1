#!/usr/bin/env python3
"""Writes NMEA 0183 logs with fresh timestamps and correct checksums for gpsfake.

One receiver cycle is five sentences (RMC, GGA, GSA, GSV, VTG), so with
`gpsfake -c 0.2` the receiver's clock advances one second per wall second and
the timestamps stay as fresh as the scenario asks.

    nmea.py [--start EPOCH] [--age S] [--cycles N] [--nofix N] [--fix 3d|2d|rmc|none]
            [--noise] [--lat DEG] [--lon DEG] [--alt M] > log.nmea
"""

import argparse
import random
import sys
import time

SENTENCES_PER_CYCLE = 5


def checksum(body: str) -> str:
    x = 0
    for c in body.encode("ascii"):
        x ^= c
    return "%02X" % x


def sentence(body: str) -> str:
    return "$%s*%s\r\n" % (body, checksum(body))


def bad_checksum(body: str) -> str:
    good = int(checksum(body), 16)
    return "$%s*%02X\r\n" % (body, good ^ 0x5A)


def ddmm(deg: float, pos: str, neg: str, width: int) -> tuple:
    hemi = pos if deg >= 0 else neg
    deg = abs(deg)
    whole = int(deg)
    minutes = (deg - whole) * 60.0
    return ("%0*d%07.4f" % (width, whole, minutes), hemi)


def hms(t: float) -> str:
    g = time.gmtime(t)
    return "%02d%02d%02d.%02d" % (g.tm_hour, g.tm_min, g.tm_sec, int((t % 1) * 100))


def dmy(t: float) -> str:
    g = time.gmtime(t)
    return "%02d%02d%02d" % (g.tm_mday, g.tm_mon, g.tm_year % 100)


def cycle(t: float, fix: str, lat: float, lon: float, alt: float,
          speed_knots: float = 0.54, track: float = 87.5) -> list:
    """The five sentences one receiver sends for the second `t`."""
    la, ns = ddmm(lat, "N", "S", 2)
    lo, ew = ddmm(lon, "E", "W", 3)
    sats = ["04", "05", "09", "12", "17", "24"]
    if fix == "none":
        rmc = "GPRMC,%s,V,,,,,,,%s,,,N" % (hms(t), dmy(t))
        gga = "GPGGA,%s,,,,,0,00,99.99,,,,,," % hms(t)
        gsa = "GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"
    else:
        rmc = "GPRMC,%s,A,%s,%s,%s,%s,%.2f,%.1f,%s,,,A" % (
            hms(t), la, ns, lo, ew, speed_knots, track, dmy(t))
        if fix in ("3d", "rmc"):
            gga = "GPGGA,%s,%s,%s,%s,%s,1,06,1.20,%.1f,M,47.0,M,," % (hms(t), la, ns, lo, ew, alt)
            gsa = "GPGSA,A,3,%s,,,,,,,2.10,1.20,1.70" % ",".join(sats)
        else:
            gga = "GPGGA,%s,%s,%s,%s,%s,1,03,2.50,,,,,," % (hms(t), la, ns, lo, ew)
            gsa = "GPGSA,A,2,%s,,,,,,,,,,3.10,2.50,1.80" % ",".join(sats[:3])
    # Satellites in view either way: "indoors" still hears a few, too weakly to fix.
    snr = "12" if fix == "none" else "38"
    gsv = "GPGSV,1,1,04,04,45,120,%s,05,30,200,%s,09,60,310,%s,12,15,045,%s" % (snr, snr, snr, snr)
    if fix == "none":
        vtg = "GPVTG,,T,,M,,N,,K,N"
    else:
        vtg = "GPVTG,%.1f,T,,M,%.2f,N,%.2f,K,A" % (track, speed_knots, speed_knots * 1.852)
    if fix == "rmc":
        # A receiver that sends no GGA or GSA: no DOP, so gpsd has no error estimate.
        return [sentence(s) for s in (rmc, gsv, vtg, gsv, gsv)]
    return [sentence(s) for s in (rmc, gga, gsa, gsv, vtg)]


def noise(t: float, rng: random.Random) -> list:
    """A bogus position under a wrong checksum, a torn sentence and line noise."""
    bogus = "GPRMC,%s,A,0101.0000,S,00101.0000,W,0.00,0.0,%s,,,A" % (hms(t), dmy(t))
    bogus_gga = "GPGGA,%s,0101.0000,S,00101.0000,W,1,08,0.90,999.0,M,0.0,M,," % hms(t)
    junk = "".join(rng.choice("abcxyz0123456789,.*$!") for _ in range(30))
    return [bad_checksum(bogus), bad_checksum(bogus_gga), junk + "\r\n", "$GPGGA,12345\r\n"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--start", type=float, default=None, help="epoch of the first cycle (default: now)")
    p.add_argument("--age", type=float, default=0.0, help="seconds every timestamp lies in the past")
    p.add_argument("--cycles", type=int, default=30, help="cycles with the fix")
    p.add_argument("--nofix", type=int, default=0, help="cycles without a fix before it")
    p.add_argument("--fix", choices=["3d", "2d", "rmc", "none"], default="3d",
                   help="rmc: RMC without GGA/GSA, so no error estimate")
    p.add_argument("--noise", action="store_true", help="mix bad checksums and noise into every cycle")
    p.add_argument("--lat", type=float, default=52.520008)
    p.add_argument("--lon", type=float, default=13.404954)
    p.add_argument("--alt", type=float, default=34.5)
    a = p.parse_args(argv)

    start = (time.time() if a.start is None else a.start) - a.age
    rng = random.Random(5)
    out = sys.stdout
    out.write("# Name: studio-body generated log\n")
    plan = ["none"] * a.nofix + [a.fix] * a.cycles
    for i, fix in enumerate(plan):
        t = start + i
        lines = cycle(t, fix, a.lat, a.lon, a.alt)
        if a.noise:
            extra = noise(t, rng)
            # Noise replaces GSV and VTG; the answer comes in a cycle or two, so drift is harmless.
            lines = [lines[0], extra[0], extra[2], lines[1], extra[1], lines[2], extra[3]]
        out.writelines(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
