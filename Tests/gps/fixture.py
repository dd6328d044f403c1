"""A real gpsd on loopback (fed by gpsfake, or bare with no receiver) and the
real studio-body daemon pointed at it, for the GET /where tests."""

import calendar
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "lib"))
from simbody import BINARY, SimBody, stop_process, unblocked  # noqa: E402,F401 (BINARY: for Tests/metrics)
TOKEN = "gps-test-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, seconds: float, what: str):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise RuntimeError("did not happen within %g s: %s" % (seconds, what))


class Gpsd:
    """gpsd with its own -D 3 log, so a test can count watches and detached clients."""

    def __init__(self, nmea_args=None, port=None):
        """port: the one to listen on (a gpsd back where a faulty one was), else a free one."""
        self.dir = tempfile.mkdtemp(prefix="where-http-")
        self.want_port = port
        self.logfile = os.path.join(self.dir, "gpsd.log")
        self.proc = None
        if nmea_args is None:
            self._start_bare()
        else:
            self._start_fake(nmea_args)

    def _spawn(self, argv):
        self.port = self.want_port or free_port()
        argv = [a.replace("PORT", str(self.port)) for a in argv]
        with open(self.logfile, "w") as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         cwd=self.dir, preexec_fn=unblocked)

    def _start_bare(self):
        self._spawn(["/usr/sbin/gpsd", "-N", "-D", "3", "-S", "PORT", "-F", os.path.join(self.dir, "ctl.sock")])
        wait_for(lambda: "listening on port" in self.log, 20, "gpsd listening")

    def _start_fake(self, nmea_args):
        # gpsfake adds its pty through gpsd's control socket as soon as the socket
        # file exists; under load the add can be lost, so try again.
        for _ in range(3):
            nmea = os.path.join(self.dir, "receiver.nmea")
            with open(nmea, "w") as out:
                subprocess.run([sys.executable, os.path.join(HERE, "nmea.py")] + nmea_args, stdout=out, check=True)
            self._spawn(["/usr/bin/gpsfake", "-c", "0.2", "-P", "PORT", "-D", "3", nmea])
            try:
                # 45 s: under TCG on a busy host two Python starts (nmea.py, gpsfake) take seconds.
                wait_for(lambda: "adding /dev/" in self.log, 45, "gpsfake adding its receiver")
                return
            except RuntimeError:
                # Keep the directory: the next try writes its receiver log there.
                self._stop_processes()
        raise RuntimeError("gpsfake never gave gpsd its receiver:\n" + self.log)

    @property
    def log(self) -> str:
        try:
            with open(self.logfile, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def fix_times(self):
        """The epoch times of the RMC sentences with a fix in the log gpsfake plays."""
        times = set()
        with open(os.path.join(self.dir, "receiver.nmea")) as f:
            for line in f:
                p = line.split(",")
                if line.startswith("$GPRMC") and len(p) > 9 and p[2] == "A":
                    t = calendar.timegm(time.strptime(p[9] + p[1][:6], "%d%m%y%H%M%S"))
                    times.add(round(t + float("0" + p[1][6:]), 2))
        return times

    def watches(self) -> int:
        return self.log.count('?WATCH={"enable":true')

    def detached(self) -> int:
        return self.log.count("in detach_client")

    def gpsd_pid(self):
        out = subprocess.run(["ss", "-Hltnp", "( sport = :%d )" % self.port],
                             capture_output=True, text=True).stdout
        m = re.search(r"pid=(\d+)", out)
        return int(m.group(1)) if m else None

    def connections(self) -> int:
        out = subprocess.run(["ss", "-Htn", "state", "established", "( sport = :%d )" % self.port],
                             capture_output=True, text=True).stdout
        return len([l for l in out.splitlines() if l.strip()])

    def kill_gpsd(self):
        pid = self.gpsd_pid()
        if pid is None:
            raise RuntimeError("no gpsd listens on port %d" % self.port)
        os.kill(pid, signal.SIGKILL)

    def stop(self):
        self._stop_processes()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _stop_processes(self):
        if self.proc:
            stop_process(self.proc, 3)
        pid = self.gpsd_pid()
        if pid:
            os.kill(pid, signal.SIGKILL)


class Body(SimBody):
    """The real studio-body on the simulated board, location allowed or not."""

    def __init__(self, gpsd_port: int, allowed: bool = True):
        # HTTPS, as a body serves by default; get() trusts its own certificate alone.
        super().__init__(TOKEN, "[body]\nname = studio\nlisten = 127.0.0.1:0\ntoken-file = %%(token_file)s\n"
                         "[board]\nfile = sim\n[location]\nallowed = %s\ngpsd = 127.0.0.1:%d\n"
                         % ("yes" if allowed else "no", gpsd_port), prefix="where-body-")
        self.context = ssl.create_default_context(cafile=os.path.join(self.dir, "tls.crt"))

    def get(self, path: str, timeout: float = 30):
        """(status, JSON body, seconds taken)."""
        req = urllib.request.Request("https://127.0.0.1:%d%s" % (self.port, path),
                                     headers={"Authorization": "Bearer " + TOKEN})
        started = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=self.context) as r:
                status, body = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        return status, json.loads(body or b"null"), time.monotonic() - started

    def watching(self) -> bool:
        return self.get("/status")[1]["where"]["watching"]
