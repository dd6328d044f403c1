#!/usr/bin/env python3
"""The body's page (`GET /`, issue 20) in headless Chromium, on the demo: the
real studio-body on the simulated board beside its demo hub (Sources/DemoHub),
as `scripts/demo` runs them. A person's way in: the old `/sim` address, which
redirects to the sign-in form; a wrong token, refused in words; the right one,
typed into the form. Then the page is clicked as a person clicks it; each state
is checked in the page's words, at a phone's width and a desktop's, for
sideways scrolling and for WCAG AA contrast, and screenshotted into OUT. The
states arrive by server-sent events: the page is never reloaded. Last, sign-out,
and no URL the browser asked for carried the token.

    page.py STUDIO_BODY OUT
"""

import json
import os
import re
import subprocess
import sys
import threading
import time
import ssl
import urllib.request

import browser
from browser import DESKTOP, PHONE

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from simbody import stop_process  # noqa: E402

SETTLE = 0.4          # House.settle: a second press sooner is the same touch
ARMED_FOR = 5         # House.armedFor: a first press arms for this long
REFUSAL = "cwkPippa refused: the demo hub refuses every fourth request, to show a refusal"


def missing(words, text):
    return [w for w in words if not re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", text)]


class Demo:
    """`studio-body demo --port 0`: its address and token from what it prints."""

    def __init__(self, binary, log_path):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([binary, "demo", "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.lines = []
        found = threading.Event()
        self.url = None
        self.token = None
        self.spki = None
        self.cafile = None

        def read():
            for line in self.proc.stdout:
                self.log.write(line)
                self.log.flush()
                self.lines.append(line.rstrip())
                p = re.search(r"--ignore-certificate-errors-spki-list=([A-Za-z0-9+/=]+)", line)
                if p:
                    self.spki = p.group(1)
                c = re.search(r"curl --cacert (\S+)", line)
                if c:
                    self.cafile = c.group(1)
                m = re.search(r"^\s*(https?://127\.0\.0\.1:\d+)/\s*$", line)
                if m and not self.url:
                    self.url = m.group(1)
                t = re.search(r"^\s*token: (\w+)\s*$", line)
                if t and self.url:
                    self.token = t.group(1)
                # An https demo is opened once its pin is known too.
                if self.url and self.token and ((self.spki and self.cafile) or self.url.startswith("http:")):
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(20) or not self.url:
            self.stop()
            raise AssertionError("studio-body demo printed no address and token:\n" + "\n".join(self.lines))

    def hub_said(self, words):
        return any(words in line for line in self.lines)

    def call(self, method, path, body=None):
        req = urllib.request.Request(self.url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + self.token,
                                              "Content-Type": "application/json",
                                              "X-Cordelia-Doing": "the browser test"})
        # https: the demo's own certificate is the only authority trusted.
        context = ssl.create_default_context(cafile=self.cafile) if self.url.startswith("https:") else None
        with urllib.request.urlopen(req, timeout=5, context=context) as r:
            return json.load(r)

    def stop(self):
        stop_process(self.proc)
        self.log.close()


class Run:
    def __init__(self, driver, demo, out):
        self.driver, self.demo, self.out = driver, demo, out
        self.passed = self.failed = 0
        self.shots = []

    def check(self, ok, words):
        print(("ok - " if ok else "not ok - ") + words, flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok

    def state(self):
        return self.driver.execute_script("return (window.pageState || {}).status || null")

    def status(self):
        """The part of the page that says the state (the rest is the same in every state)."""
        return self.driver.execute_script("const e = document.getElementById('status'); return e ? e.innerText : ''")

    def says(self, *words):
        """Waits up to 6 s for every word, as a whole word, in the page's status; True when they came."""
        try:
            browser.wait(lambda: not missing(words, self.status()), 6, " and ".join(words))
            return True
        except AssertionError:
            return False

    def look(self, name, words):
        """At both widths: the words in the page's text, no sideways scroll at
        the phone's, AA contrast, a screenshot each."""
        for label, size in (("390", PHONE), ("1280", DESKTOP)):
            browser.width(self.driver, size)
            page = browser.text(self.driver)
            lost = missing(words, page) or missing(words, self.status())
            self.check(not lost, f"{name} at {label} px: the page says {words} in words"
                       + (f" (missing {lost}; its status says: {self.status()!r})" if lost else ""))
            if size == PHONE:
                over, scroll, inner = browser.overflow(self.driver, size[0])
                self.check(over <= 0, f"{name} at 390 px: no sideways scroll: scrollWidth {scroll} <= innerWidth {inner} = 390")
                off = browser.offscreen(self.driver, "#lamp, .led, button[data-button], #signout")
                self.check(not off, f"{name} at 390 px: the lamp, the LEDs and the buttons are drawn inside the width"
                           + (f" (not: {off})" if off else ""))
            checked, bad = browser.contrast_failures(self.driver)
            self.check(not bad, f"{name} at {label} px: WCAG AA contrast of {checked} texts and components"
                       + "".join("\n    " + b for b in bad))
            x, y = browser.centre(self.driver, "#lamp")
            # The unread pattern flashes the lamp: a shot taken across a change is taken again.
            for _ in range(5):
                lit = self.lamp_lit()
                path = browser.screenshot(self.driver, os.path.join(self.out, f"{name}-{label}.png"))
                if self.lamp_lit() == lit:
                    break
            self.shots.append(path)
            # Off the lettering: 12 px above the lamp's centre is its fill.
            r, g, b = browser.pixel(path, x, y - 12)
            drawn = (r > 180 and g < 90) if lit else (r < 90 and g < 60)
            self.check(drawn, f"{name} at {label} px: the screenshot shows the lamp {'lit' if lit else 'dark'} "
                       f"(pixel at {x},{y - 12} is rgb{(r, g, b)})")
        browser.width(self.driver, PHONE)

    def says_live(self):
        try:
            browser.wait(lambda: self.driver.execute_script("return document.getElementById('live').textContent") == "live", 6, "live")
            return True
        except AssertionError:
            return False

    def form_says(self, words):
        try:
            browser.wait(lambda: words in browser.text(self.driver), 6, words)
            return True
        except AssertionError:
            return False

    def look_form(self, name, words):
        """The sign-in form at both widths: its words, no sideways scroll, AA contrast, a screenshot."""
        for label, size in (("390", PHONE), ("1280", DESKTOP)):
            browser.width(self.driver, size)
            lost = missing(words, browser.text(self.driver))
            self.check(not lost, f"{name} at {label} px: the form says {words}" + (f" (missing {lost})" if lost else ""))
            if size == PHONE:
                over, scroll, inner = browser.overflow(self.driver, size[0])
                self.check(over <= 0, f"{name} at 390 px: no sideways scroll: scrollWidth {scroll} <= innerWidth {inner} = 390")
            checked, bad = browser.contrast_failures(self.driver)
            self.check(not bad, f"{name} at {label} px: WCAG AA contrast of {checked} texts and components"
                       + "".join("\n    " + b for b in bad))
            self.shots.append(browser.screenshot(self.driver, os.path.join(self.out, f"{name}-{label}.png")))
        browser.width(self.driver, PHONE)

    def lamp_lit(self):
        return self.driver.execute_script("return document.getElementById('lamp').classList.contains('lit')")

    def press_twice(self, then_words):
        """On Air twice, as a person does: the first arms, the second (past the settle) asks."""
        button = self.driver.find_element("css selector", "button[data-button=onair]")
        first = time.monotonic()
        button.click()
        armed = self.says("armed")
        time.sleep(max(0, first + SETTLE + 0.2 - time.monotonic()))
        button.click()
        asking = self.says("asking")
        return armed, asking, self.says(*then_words)


def sign_in(driver, token):
    """Types the token into the form and sends it, as a person does."""
    box = driver.find_element("css selector", "form#signin input[name=token]")
    box.clear()
    box.send_keys(token)
    driver.find_element("css selector", "form#signin button[type=submit]").click()


def visited(driver):
    """Every URL the browser asked for, from Chromium's own network log."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def main():
    binary, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    print(f"browser: screenshots and the demo's log go to {out}", flush=True)
    demo = Demo(binary, os.path.join(out, "demo.log"))
    driver = None
    try:
        driver = browser.chromium(network_log=True, spki=demo.spki)
        print(f"browser: Chromium {browser.version(driver)}, the demo at {demo.url}", flush=True)
        r = Run(driver, demo, out)

        # The old address: /sim is now a mode of the page, and the page asks a stranger to sign in.
        driver.get(f"{demo.url}/sim")
        browser.width(driver, PHONE)
        r.check(driver.current_url == demo.url + "/", f"/sim redirects to the page (at {driver.current_url})")
        r.check(bool(driver.find_elements("css selector", "form#signin input[type=password][name=token]")),
                "a browser not signed in gets the sign-in form")
        r.look_form("0-sign-in", ["Sign in", "token"])
        sign_in(driver, "not-the-token-0123456789")
        r.check(r.form_says("That is not this body's token"), "a wrong token: refused in words")
        r.look_form("0-wrong-token", ["That is not this body's token"])
        sign_in(driver, demo.token)
        browser.wait(lambda: driver.find_elements("css selector", "#lamp"), 6, "the page after signing in")
        r.check(driver.current_url == demo.url + "/", f"signed in, the page is at / (at {driver.current_url})")
        r.check(driver.execute_script("return document.cookie") == "",
                "the session cookie is HttpOnly: the page's script cannot read it")
        # A reload would lose this mark: every state from here on must arrive live.
        driver.execute_script("window.notReloaded = 'yes'")
        r.check(r.says_live(), "the page says it is live (its /events stream is open)")
        r.check(r.says("On Air", "off"), "the demo hub's first push: On Air off, in words")
        off = browser.offscreen(driver, "#lamp, #armed, #eye, button[data-button]")
        count = driver.execute_script(
            "return [document.querySelectorAll('#lamp').length, document.querySelectorAll('.led').length,"
            " document.querySelectorAll('button[data-button]').length]")
        r.check(count == [1, 2, 4] and not off, f"the lamp, 2 LEDs and 4 buttons are drawn (found {count}, not drawn: {off})")
        r.check(not r.lamp_lit(), "the lamp is dark while On Air is off")
        r.look("1-off", ["On Air", "off"])

        # Request 1: on. The two clicks, with a look at each state on the way.
        button = driver.find_element("css selector", "button[data-button=onair]")
        first = time.monotonic()
        button.click()
        r.check(r.says("armed"), "the first click: the page says armed")
        r.look("2-armed", ["armed"])
        looked = time.monotonic() - first
        print(f"# the looks at armed took {looked:.1f} s of the 5 s arming", flush=True)
        if looked > ARMED_FOR - 1:
            # A loaded machine took the arming's 5 s: the next press arms afresh (the house's rule).
            print("# arming again: the looks outlasted the arming", flush=True)
            first = time.monotonic()
            button.click()
            r.check(r.says("armed"), "a press after the arming ran out arms again")
        time.sleep(max(0, first + SETTLE + 0.2 - time.monotonic()))
        button.click()
        r.check(r.says("asking"), "the second click: the page says asking")
        lit = r.lamp_lit()
        answered = demo.hub_said("demo hub: turned On Air on")  # read after the lamp: lit before it is wrong
        r.check(not lit or answered, "while asking, the lamp has not changed (it follows the hub's answer, not the press)")
        r.look("3-asking", ["asking"])
        r.check(r.says("on"), "the hub's answer: On Air on")
        browser.wait(r.lamp_lit, 3, "the lamp lit")
        r.check(r.lamp_lit() and demo.hub_said("demo hub: turned On Air on"),
                "the lamp is lit when the hub answers (the hub's log says it turned On Air on)")
        r.look("4-on", ["On Air", "on"])

        # Requests 2 and 3: off, then on again; the demo hub refuses every fourth.
        for n, want in ((2, "off"), (3, "on")):
            armed, asking, done = r.press_twice([])
            browser.wait(lambda: driver.execute_script("return (window.pageState||{}).status?.onair?.value") == want,
                         6, f"On Air {want}")
            r.check(armed and asking and r.lamp_lit() == (want == "on"),
                    f"request {n}: armed, asking, then On Air {want} (lamp {'lit' if want == 'on' else 'dark'})")
        armed, asking, refused = r.press_twice(["problem", REFUSAL])
        r.check(armed and asking and refused, "request 4, refused by the hub: the page says problem and the refusal's words")
        r.check(r.lamp_lit(), "after the refusal the lamp stays lit (nothing changed)")
        r.look("5-refused", ["problem", REFUSAL])

        # Unread: what Oriel pushes when it cannot read cwkPippa (DESIGN 4, rule 2).
        demo.call("POST", "/face", {"onair": {"unread": "Oriel cannot read cwkPippa (pushed by the browser test)"}})
        r.check(r.says("unread", "Oriel cannot read cwkPippa"), "an unread push: the page says unread and the reason")
        r.look("6-unread", ["unread", "Oriel cannot read cwkPippa"])

        # The rest of the page: the buttons' last presses, the log, Oriel, the eyes.
        text = browser.text(driver)
        r.check("button onair: " in text and "armed: press again within 5 s to confirm" in text,
                "the log part shows the body's lines (a press's line among them)")
        # A press while unread is refused with the reason: the buttons part says so.
        driver.find_element("css selector", "button[data-button=onair]").click()
        row = lambda: (driver.execute_script(
            "return [...document.querySelectorAll('#buttons tr')].map(r => r.innerText).filter(t => t.startsWith('onair'))")
            or [""])[0]
        try:
            browser.wait(lambda: "refused" in row() and "\tup\t" in row(), 6, "the On Air row to say refused, and up again")
        except AssertionError:
            pass
        cells = row().split("\t")
        r.check(len(cells) == 4 and cells[1] == "up" and "refused (Oriel cannot read cwkPippa" in cells[2] and cells[3] == "0",
                f"the buttons part: On Air up, its last press refused with the unread reason, noise 0 ({cells})")
        r.check(driver.execute_script("return document.getElementById('frame').hidden && !document.getElementById('frame').src"),
                "no camera frame: the eyes gate is not open for a tap")
        r.check(driver.execute_script("return window.notReloaded") == "yes",
                "every state came by /events: the page was never reloaded")

        # Sign-out: back to the form, and the session no longer reads anything.
        driver.find_element("css selector", "#signout").click()
        browser.wait(lambda: driver.find_elements("css selector", "form#signin"), 6, "the sign-in form after signing out")
        status = driver.execute_async_script(
            "const done = arguments[0]; fetch('/status').then(r => done(r.status), e => done(String(e)))")
        r.check(status == 401, f"signed out: the old session reads nothing (/status answered {status})")
        r.look_form("7-signed-out", ["Sign in"])

        urls = visited(driver)
        leaked = [u for u in urls if demo.token in u]
        r.check(urls and not leaked, f"no URL the browser asked for carries the token ({len(urls)} requests"
                + (f"; leaked: {leaked}" if leaked else "") + ")")
        said = [l for l in demo.lines if demo.token in l and not l.strip().startswith(("token:", "curl works too:"))]
        r.check(not said, "the body's log never says the token (only the demo's greeting does)" + (f": {said}" if said else ""))

        print("browser: screenshots:\n  " + "\n  ".join(r.shots), flush=True)
        print(f"{r.passed} passed, {r.failed} failed", flush=True)
        return 0 if r.failed == 0 else 1
    finally:
        if driver:
            driver.quit()
        demo.stop()


if __name__ == "__main__":
    sys.exit(main())
