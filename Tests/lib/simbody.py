"""The real studio-body on the simulated board, started from outside with a
configuration of its own. The suites that drive the binary over real sockets
(Tests/gps, Tests/storm, Tests/soak, Tests/metrics) start, read and stop it
this one way."""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("STUDIO_BODY_BIN", os.path.join(ROOT, ".build", "debug", "studio-body"))


def unblocked():
    # A parent may block SIGTERM (test runners' threads do); children inherit the mask.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())


def stop_process(proc, seconds=5.0):
    """SIGTERM, then SIGKILL if it has not ended within `seconds`."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class SimBody:
    """`config` is the whole body.conf, with "%(token_file)s" where the token
    file's path goes; the body must listen on 127.0.0.1:0. In `directory`
    (kept at stop) or in a temporary one of its own (removed at stop)."""

    def __init__(self, token, config, directory=None, prefix="sim-body-", start_within=20.0):
        self.own_dir = directory is None
        self.dir = directory or tempfile.mkdtemp(prefix=prefix)
        self.token = token
        self.token_file = os.path.join(self.dir, "token")
        with open(self.token_file, "w") as f:
            f.write(token + "\n")
        os.chmod(self.token_file, 0o600)
        self.config_file = os.path.join(self.dir, "body.conf")
        with open(self.config_file, "w") as f:
            f.write(config % {"token_file": self.token_file})
        self.logfile = os.path.join(self.dir, "body.log")
        with open(self.logfile, "w") as log:
            self.proc = subprocess.Popen([BINARY, "--config", self.config_file], stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, preexec_fn=unblocked)
        end = time.monotonic() + start_within
        while time.monotonic() < end:
            m = re.search(r"serving on 127\.0\.0\.1:(\d+)", self.log)
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        said = self.log
        self.stop()
        raise RuntimeError("studio-body did not start:\n" + said)

    @property
    def log(self):
        try:
            with open(self.logfile, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.proc.pid))

    def rss_kib(self):
        return self.memory_kib()["VmRSS"]

    def memory_kib(self):
        """VmRSS and its parts: RssAnon (the heap and other private memory),
        RssFile (the program's and libraries' pages read from disk)."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            status = f.read()
        return {k: int(re.search(k + r":\s+(\d+)", status).group(1)) for k in ("VmRSS", "RssAnon", "RssFile")}

    def stop(self):
        stop_process(self.proc)
        if self.own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
