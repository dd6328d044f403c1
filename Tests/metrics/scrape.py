#!/usr/bin/env python3
"""The real studio-body on the sim board, scraped every second by a real
Prometheus on loopback with the body's token (and by a second job with a
wrong one). After scripted pushes, presses and polls, and a hello that a
small stand-in for Oriel refuses once and then answers, Prometheus's query
API must give the counts the script made, `up` 1 for the right token and 0
for the wrong one. Prints ok/not ok lines and "N passed, M failed"."""

import json
import ssl
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "gps"))
sys.path.insert(0, os.path.join(ROOT, "Tests", "lib"))
from fixture import free_port, wait_for  # noqa: E402
from simbody import SimBody, stop_process, unblocked  # noqa: E402

TOKEN = "metrics-test-token-0123456789abcdef"
WRONG = "not-the-token-0123456789abcdef"
# A name with a quote and a backslash: the label value must be escaped for Prometheus to parse it.
NAME = 'Studio "A" \\ north'

passed = failed = 0


def ok(good, words):
    global passed, failed
    if good:
        passed += 1
        print("ok - " + words)
    else:
        failed += 1
        print("not ok - " + words)
    sys.stdout.flush()


# The body's own certificate, once it serves: the only authority an https request trusts.
CAFILE = None


def http(method, url, token=TOKEN, body=None, timeout=10):
    """(status, headers, bytes). https trusts the body's certificate alone (CAFILE)."""
    req = urllib.request.Request(url, method=method, data=body)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    context = ssl.create_default_context(cafile=CAFILE) if url.startswith("https:") else None
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


class Process:
    def __init__(self, argv, logfile, cwd):
        self.logfile = logfile
        with open(logfile, "w") as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         cwd=cwd, preexec_fn=unblocked)

    @property
    def log(self):
        with open(self.logfile, errors="replace") as f:
            return f.read()

    def stop(self):
        stop_process(self.proc, 10)


class Oriel:
    """Just enough of Oriel for the hello: the first is answered 503, every
    later one 200, so the body counts one failed and one answered."""

    def __init__(self):
        self.hellos = []
        oriel = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                oriel.hellos.append(self.path)
                status = 503 if len(oriel.hellos) == 1 else 200
                body = b'{"error":"starting"}' if status == 503 else b"{}"
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def start_body(d, oriel_url):
    global CAFILE
    # HTTPS, as a body serves by default: Prometheus and this script trust its own certificate alone.
    body = SimBody(TOKEN, "[body]\nname = %s\nlisten = 127.0.0.1:0\ntoken-file = %%(token_file)s\n"
                   "[oriel]\nurl = %s\nsilence = 600s\n[board]\nfile = %s\n"
                   % (NAME, oriel_url, os.path.join(ROOT, "board", "sim.conf")), directory=d)
    body.url = "https://127.0.0.1:%d" % body.port
    CAFILE = os.path.join(d, "tls.crt")
    return body


def start_prometheus(d, target, token_file, ca_file):
    conf = os.path.join(d, "prometheus.yml")
    # The snippet docs/operations.md gives, plus a job with the wrong token.
    with open(conf, "w") as f:
        f.write("""global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: studio-body
    scheme: https
    tls_config:
      ca_file: %s
      server_name: localhost
    authorization:
      credentials_file: %s
    static_configs:
      - targets: ['%s']
  - job_name: wrong-token
    scheme: https
    tls_config:
      ca_file: %s
      server_name: localhost
    authorization:
      credentials: %s
    static_configs:
      - targets: ['%s']
""" % (ca_file, token_file, target, ca_file, WRONG, target))
    port = free_port()
    prom = Process(["prometheus", "--config.file=" + conf, "--storage.tsdb.path=" + os.path.join(d, "data"),
                    "--web.listen-address=127.0.0.1:%d" % port, "--log.level=info"],
                   os.path.join(d, "prometheus.log"), d)
    prom.url = "http://127.0.0.1:%d" % port

    def ready():
        if prom.proc.poll() is not None:
            raise RuntimeError("prometheus exited:\n" + prom.log)
        try:
            return http("GET", prom.url + "/-/ready", token=None, timeout=2)[0] == 200
        except OSError:
            return False
    wait_for(ready, 60, "prometheus ready")
    return prom


def query(prom, q):
    """The instant vector for `q` as [(labels, value)]."""
    status, _, data = http("GET", prom.url + "/api/v1/query?" + urllib.parse.urlencode({"query": q}), token=None)
    answer = json.loads(data or b"{}")
    if status != 200 or answer.get("status") != "success":
        raise RuntimeError("query %s: %d %s" % (q, status, data[:300]))
    return [(r["metric"], float(r["value"][1])) for r in answer["data"]["result"]]


def value(prom, q):
    r = query(prom, q)
    return r[0][1] if len(r) == 1 else None


def main():
    d = tempfile.mkdtemp(prefix="metrics-test-")
    body = prom = oriel = None
    try:
        oriel = Oriel()
        body = start_body(d, oriel.url)
        target = body.url[len("https://"):]

        # The answer itself, before Prometheus: the format's content type, the token.
        status, headers, text = http("GET", body.url + "/metrics")
        ok(status == 200 and headers.get("Content-Type") == "text/plain; version=0.0.4; charset=utf-8",
           "GET /metrics is 200 text/plain; version=0.0.4 (%d %s)" % (status, headers.get("Content-Type")))
        ok(http("GET", body.url + "/metrics", token=None)[0] == 401, "GET /metrics without the token is 401")
        ok(http("GET", body.url + "/metrics", token=WRONG)[0] == 401, "GET /metrics with a wrong token is 401")

        prom = start_prometheus(d, target, body.token_file, CAFILE)

        # The script: 3 pushes, On Air pressed twice (armed, asked), one poll
        # takes the item, the kill pressed once (armed), a malformed push (400),
        # a /where refused at once (403).
        def push(doc):
            return http("POST", body.url + "/face", body=doc.encode())[0]

        def press(button, presses=1):
            return http("POST", body.url + "/sim/press?button=%s&presses=%d&gap=0.6" % (button, presses))[0]

        def status_doc():
            return json.loads(http("GET", body.url + "/status")[2])

        ok(push('{"onair":{"on":false}}') == 200, "push off")
        ok(press("onair", 2) == 200, "press On Air twice")
        wait_for(lambda: status_doc()["onair"]["value"] == "asking", 10, "On Air asking")
        items = json.loads(http("GET", body.url + "/ears?wait=0")[2])["items"]
        ok(len(items) == 1 and items[0]["kind"] == "onair", "the poll takes the On Air request (%s)" % items)
        ok(push('{"onair":{"on":true,"phase":"live","answered":{"id":"%s","error":null}}}' % items[0]["id"]) == 200,
           "push on, answering the request")
        ok(press("kill") == 200, "press the kill once")
        wait_for(lambda: status_doc()["eyes"]["kill"] == "armed", 10, "the kill armed")
        ok(push('{"onair": {"on": tru') == 400, "a malformed push is 400")
        ok(push('{"onair":{"on":true,"phase":"live"}}') == 200, "push on again")
        ok(http("GET", body.url + "/where")[0] == 403, "GET /where is 403: location is not allowed here")

        want = {
            "studio_body_pushes_total": 3,
            "studio_body_polls_total": 1,
            'studio_body_presses_total{button="onair",outcome="armed"}': 1,
            'studio_body_presses_total{button="onair",outcome="asked"}': 1,
            'studio_body_presses_total{button="kill",outcome="armed"}': 1,
            'studio_body_presses_total{button="wrapup",outcome="armed"}': 0,
            'studio_body_http_answers_total{code="400"}': 1,
            'studio_body_http_answers_total{code="403"}': 1,
            "studio_body_where_answer_seconds_count": 1,
            "studio_body_where_watching": 0,
            'studio_body_hellos_total{outcome="failed"}': 1,
            'studio_body_hellos_total{outcome="answered"}': 1,
            'studio_body_on_air{word="on"}': 1,
            'studio_body_on_air{word="asking"}': 0,
            "studio_body_board_ok": 1,
            "studio_body_oriel_silent": 0,
            "studio_body_polls_waiting": 0,
            "studio_body_press_to_taken_seconds_count": 1,
            "studio_body_push_to_lines_seconds_count": 3,
            'studio_body_push_to_lines_seconds_bucket{le="+Inf"}': 3,
            'up{job="studio-body"}': 1,
            'up{job="wrong-token"}': 0,
        }
        selector = {k: (k if k.startswith("up") else k.replace("{", '{job="studio-body",', 1) if "{" in k
                        else k + '{job="studio-body"}') for k in want}
        got = {}

        def scraped():
            for k, q in selector.items():
                got[k] = value(prom, q)
            return all(got[k] == v for k, v in want.items())
        started = time.monotonic()
        try:
            wait_for(scraped, 20, "Prometheus's query API giving the scripted counts")
        except RuntimeError:
            pass
        for k, v in want.items():
            ok(got.get(k) == v, "Prometheus: %s = %s (got %s)" % (selector[k], v, got.get(k)))
        print("# the counts were in Prometheus %.1f s after the script" % (time.monotonic() - started))

        ok(len(oriel.hellos) == 2, "Oriel heard two hellos, as the body counted (%s)" % oriel.hellos)

        # The wrong token's scrapes reached the body and were refused there:
        # more 401s than the script's own two, as scrapes go on.
        refused = []

        def more_refused():
            refused[:] = [value(prom, 'studio_body_http_answers_total{job="studio-body",code="401"}')]
            return refused[0] is not None and refused[0] >= 4
        try:
            wait_for(more_refused, 10, "the wrong token's scrapes counted as 401")
        except RuntimeError:
            pass
        ok(refused[0] is not None and refused[0] >= 4,
           "the body counted the wrong token's scrapes as 401, past the script's two (%s)" % refused[0])
        targets = json.loads(http("GET", prom.url + "/api/v1/targets", token=None)[2])["data"]["activeTargets"]
        wrong = [t for t in targets if t["labels"]["job"] == "wrong-token"]
        ok(wrong and "401" in wrong[0]["lastError"], "Prometheus says why the wrong token's scrape failed (%s)"
           % (wrong[0]["lastError"] if wrong else "no target"))

        # The escaped label value came through Prometheus's parser whole.
        info = query(prom, 'studio_body_info{job="studio-body"}')
        ok(len(info) == 1 and info[0][0].get("name") == NAME,
           "the name label, with a quote and a backslash, parses back whole (%s)" % (info[0][0] if info else None))
        # Every histogram in the answer is one Prometheus accepts as one.
        le = query(prom, 'histogram_quantile(0.5, studio_body_push_to_lines_seconds_bucket{job="studio-body"})')
        ok(len(le) == 1 and 0 <= le[0][1] <= 1, "histogram_quantile over push to lines works (%s)" % le)
        ok("level=error" not in prom.log, "prometheus logged no error")
    finally:
        for p in (prom, body, oriel):
            if p:
                p.stop()
        if failed and body:
            print("# body log:\n" + body.log[-3000:])
        if failed and prom:
            print("# prometheus log:\n" + prom.log[-3000:])
        shutil.rmtree(d, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
