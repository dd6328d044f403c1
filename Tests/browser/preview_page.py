#!/usr/bin/env python3
"""/preview in headless Chromium, against a body with a real camera (run by
Tests/hil/preview-browser-test: the body on vivid in the VM, this on the host).
Pushes the eyes open for a tap as Oriel does, then opens /preview itself and a
page with <img src=/preview>, at 390 px and 1280 px: each image must be the
camera's size and show what the camera sends (vivid's colour bars).

    preview_page.py URL TOKEN WIDTHxHEIGHT OUT
"""

import json
import os
import sys
import time

import browser
from browser import DESKTOP, PHONE


def call(url, token, method, path, body=None):
    return browser.call(url, token, method, path, body, doing='the preview browser test')


def main():
    url, token, size, out = sys.argv[1:5]
    want = [int(v) for v in size.split("x")]
    passed = failed = 0

    def check(ok, words):
        nonlocal passed, failed
        print(("ok - " if ok else "not ok - ") + words, flush=True)
        passed, failed = passed + bool(ok), failed + (not ok)

    # The guest boots and starts the body: qemu accepts before the body listens,
    # so wait for a real answer.
    def answers():
        try:
            return call(url, token, "GET", "/status")
        except Exception:
            return None
    browser.wait(answers, 180, f"the body in the VM to answer at {url}")
    # Oriel's pushes: closed, then open for a tap (the eyes gate runs the camera only for a tap).
    call(url, token, "POST", "/face", {"eyes": {"open": False, "red": False, "names": [], "killing": False}})
    status = call(url, token, "POST", "/face", {"eyes": {
        "open": True, "until": time.time() + 300, "why": "Dad's tap on the studio body", "mode": "manual",
        "red": True, "names": ["studio camera"], "killing": False}})
    status = browser.wait(lambda: (s := answers()) and s["eyes"]["preview"] == "running" and s, 20, "the preview running")
    check(True, f"the preview runs: {status['eyes']['preview_why']}")

    driver = browser.chromium(page_load="none")
    try:
        print(f"preview: Chromium {browser.version(driver)}", flush=True)
        # A browser cannot put the token in an <img>'s request; DevTools can, for every request.
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Authorization": "Bearer " + token}})
        # The <img> sits on a page of the body's own origin (a page is written
        # into /status's document): Chromium's Local Network Access checks hold
        # back a request from an opaque origin (a data: page) to loopback.
        page = ("<!doctype html><meta name=viewport content='width=device-width'>"
                "<body style='margin:0;background:#222'><img id=p style='max-width:100%' src='/preview'>")
        for name in ("direct", "img"):
            if name == "direct":
                driver.get(url + "/preview")
            else:
                driver.get(url + "/status")
                browser.wait(lambda: driver.execute_script("return document.readyState") == "complete", 15, "/status")
                driver.execute_script("document.open(); document.write(arguments[0]); document.close()", page)
            browser.wait(lambda: driver.execute_script("return document.images.length"), 15, f"{name}: an <img>")
            for label, dims in (("390", PHONE), ("1280", DESKTOP)):
                browser.width(driver, dims)
                try:
                    got = browser.wait(lambda: driver.execute_script(
                        "const i = document.images[0];"
                        "return i && i.complete !== undefined && i.naturalWidth > 0 ? [i.naturalWidth, i.naturalHeight] : null"),
                        15, "a frame in the <img>")
                except AssertionError:
                    got = None
                check(got == want, f"/preview {name} at {label} px: the <img> is the camera's {size} (got {got})")
                shot = browser.screenshot(driver, os.path.join(out, f"preview-{name}-{label}.png"))
                # vivid's colour bars, below its text: the image's left and right ends differ.
                x0, y0, w, h = driver.execute_script(
                    "const r = document.images[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]")
                left = browser.pixel(shot, int(x0 + w * 0.05), int(y0 + h * 0.9))
                right = browser.pixel(shot, int(x0 + w * 0.95), int(y0 + h * 0.9))
                check(sum(abs(a - b) for a, b in zip(left, right)) > 60,
                      f"/preview {name} at {label} px: the screenshot shows the camera's picture "
                      f"(left {left}, right {right}); {shot}")
                if name == "img" and dims == PHONE:
                    over, scroll, inner = browser.overflow(driver, dims[0])
                    check(over <= 0 and round(w) == dims[0],
                          f"/preview img at 390 px: scaled to the width ({w:.0f} px), no sideways scroll "
                          f"(scrollWidth {scroll}, innerWidth {inner})")
                if name == "img" and dims == DESKTOP:
                    # A live stream: vivid's frame counter moves between two shots a second apart.
                    time.sleep(1)
                    again = browser.screenshot(driver, os.path.join(out, "preview-img-1280-later.png"))
                    check(open(again, "rb").read() != open(shot, "rb").read(),
                          "/preview img at 1280 px: the picture changes a second later (the stream is live)")
    finally:
        driver.quit()
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
