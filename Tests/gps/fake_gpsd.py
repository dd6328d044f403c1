"""A gpsd gone wrong, on a real TCP socket: it accepts the body's connection,
reads its ?WATCH, and then never writes (stalled) or writes garbage. A real
gpsd cannot be made to do either, so the faults of issue 12 section 3 are
played by this; the "back again" half of each case is a real gpsd.

It records what the body did to the connection: when it connected, whether
it asked for a watch, and when it closed its end (the watch released)."""

import json
import os
import socket
import threading
import time

NOW = lambda: time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())


def tpv(**fields):
    o = {"class": "TPV", "device": "/dev/fake", "mode": 3, "time": NOW(),
         "lat": 1.25, "lon": 2.5, "altMSL": 10.0, "eph": 5.0}
    o.update(fields)
    return json.dumps(o, separators=(",", ":"))


# What each kind writes, one chunk each 0.2 s until the body closes its end.
def _random(n):
    return os.urandom(512)


def _half_json(n):
    # A whole TPV's first half, then a newline: a torn line must never be a place
    # (libgps fills the fields it read before the tear).
    line = tpv(lat=52.5 + n, lon=13.4)
    return (line[: line.index('"lat":') + 8] + "\n").encode()


def _huge(n):
    # One line that never ends: libgps's buffer must stay bounded.
    return b'{"class":"TPV","device":"' + b"x" * 65536 if n == 0 else b"y" * 65536


def _wrong_class(n):
    # Valid JSON with a class, but not one that answers: gpsd is talking, the receiver has no fix.
    lines = ['{"class":"SKY","device":"/dev/fake","satellites":[]}', '{"class":"NOPE","lat":1.5,"lon":2.5}',
             '{"class":"ATT","device":"/dev/fake","heading":10.0}', '{"class":"TPV ","mode":3,"lat":1.5,"lon":2.5}']
    return (lines[n % len(lines)] + "\n").encode()


def _not_gpsd_json(n):
    # Whole TPVs spoilt by a NUL or invalid UTF-8, NULs alone, and JSON without a class.
    line = tpv(lat=3.5)
    cut = line.index('"lat":')
    lines = [line[:cut].encode() + b"\x00" + line[cut:].encode(),
             line.encode().replace(b"/dev/fake", b"/dev/\xff\xfe\xc3"),
             b"\x00\x00\x00", b"\xc3\x28\xa0\xa1",
             b'{"lat":3.5,"lon":2.5,"mode":3}', b"[1,2,3]", b'"TPV"', b"{}"]
    return lines[n % len(lines)] + b"\n"


KINDS = {"stalled": None, "random": _random, "half-json": _half_json, "huge": _huge,
         "wrong-class": _wrong_class, "not-gpsd-json": _not_gpsd_json}


class FakeGpsd:
    def __init__(self, kind):
        self.kind = kind
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(4)
        self.port = self.server.getsockname()[1]
        self.connected = 0
        self.watches = 0
        self.closed_at = []      # monotonic times the body closed its end
        self.sent = 0
        self.stopping = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        self.server.settimeout(0.2)
        while not self.stopping.is_set():
            try:
                c, _ = self.server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.connected += 1
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c):
        with c:
            c.settimeout(0.2)
            if self.kind != "stalled":   # stalled: accepts, and never writes a byte
                c.sendall(b'{"class":"VERSION","release":"fake","rev":"fake","proto_major":3,"proto_minor":14}\n')
            asked = b""
            n = 0
            while not self.stopping.is_set():
                try:
                    data = c.recv(4096)
                    if not data:
                        self.closed_at.append(time.monotonic())
                        return
                    asked += data
                    if b"?WATCH=" in asked:
                        self.watches += 1
                        asked = b""
                except socket.timeout:
                    pass
                except OSError:
                    self.closed_at.append(time.monotonic())
                    return
                write = KINDS[self.kind]
                if write and self.watches:
                    try:
                        chunk = write(n)
                        c.sendall(chunk)
                        self.sent += len(chunk)
                        n += 1
                    except socket.timeout:
                        pass          # the body is not reading: its buffer is full
                    except OSError:
                        self.closed_at.append(time.monotonic())
                        return

    def open_connections(self):
        return self.connected - len(self.closed_at)

    def stop(self):
        self.stopping.set()
        self.server.close()
