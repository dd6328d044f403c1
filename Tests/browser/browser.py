"""What the page tests share: headless Chromium through chromedriver, the two
widths, full-page screenshots, and WCAG AA contrast from computed styles."""

import base64
import json
import os
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

PHONE = (390, 844)
DESKTOP = (1280, 800)


def chromium(page_load="normal", network_log=False, spki=None):
    """Headless Chromium, Debian's, driven by Debian's chromedriver. page_load
    "none": get() returns at once (an MJPEG stream never ends loading).
    network_log: Chromium's DevTools network events are kept (`get_log("performance")`).
    spki: the body's pin (base64 SHA-256 of its public key): Chromium trusts a
    certificate with that key alone, the way Oriel pins it; nothing else is waved through."""
    options = webdriver.ChromeOptions()
    if network_log:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    if spki:
        options.add_argument("--ignore-certificate-errors-spki-list=" + spki)
    options.page_load_strategy = page_load
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    options.add_argument("--headless=new")
    # Chromium will not start as root with its sandbox (it needs a user
    # namespace for it), and CI runs the tests as root; the pages it opens are
    # the body's own on loopback, so running without the sandbox risks nothing.
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")
    # A container's /dev/shm is often 64 MB: too small for the renderer.
    options.add_argument("--disable-dev-shm-usage")
    options.add_argument("--hide-scrollbars")
    options.add_argument("--force-color-profile=srgb")
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_script_timeout(10)
    return driver


def call(url, token, method, path, body=None, doing="a browser test"):
    """The body's API with the bearer token, as Oriel calls it; the JSON answer."""
    req = urllib.request.Request(url + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": "Bearer " + token, "Content-Type": "application/json",
                                          "X-Cordelia-Doing": doing})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def version(driver):
    return driver.capabilities.get("browserVersion", "?")


def width(driver, size):
    """The viewport at `size` (a phone's as a phone has it: mobile, meta viewport honoured)."""
    w, h = size
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": w < 800})
    # Layout follows the override on the next frame. (innerWidth is not the
    # test: a phone widens it to fit a page that runs off the edge, zoomed out.)
    wait(lambda: driver.execute_script("return document.documentElement.clientWidth") == w, 2, f"clientWidth {w}")


def screenshot(driver, path):
    """The whole page, including any part that runs off to the right."""
    dims = driver.execute_script(
        "const s = document.scrollingElement; return [s.scrollWidth, s.scrollHeight]")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": dims[0], "height": dims[1], "scale": 1}})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    return path


def wait(predicate, seconds, what):
    end = time.monotonic() + seconds
    while True:
        got = predicate()
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError(f"waited {seconds} s for {what}")
        time.sleep(0.05)


def text(driver):
    return driver.execute_script("return document.body.innerText")


# What the browser computed, for every element that shows text and every
# component a person must see (buttons, the lamp, the LEDs): its colours and
# the background colours under it, outermost first, to composite in Python.
_STYLES = r"""
function rgba(c) {
  const p = c.match(/[\d.]+/g).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
}
function shown(e) {
  const s = getComputedStyle(e);
  return e.getClientRects().length > 0 && s.visibility !== "hidden" && s.display !== "none";
}
function backs(e) {
  const chain = [];
  for (let a = e; a; a = a.parentElement) chain.unshift(rgba(getComputedStyle(a).backgroundColor));
  return chain;
}
function name(e) { return e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className ? "." + String(e.className).replace(/ /g, ".") : ""); }
const texts = [], parts = [];
for (const e of document.body.querySelectorAll("*")) {
  if (!shown(e) || e.tagName === "SCRIPT" || e.tagName === "STYLE") continue;
  const own = [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join("").trim();
  const s = getComputedStyle(e);
  if (own) texts.push({ what: name(e), text: own.slice(0, 40), color: rgba(s.color), backs: backs(e),
                        size: parseFloat(s.fontSize), weight: parseInt(s.fontWeight) });
  if (e.matches("button, .lamp, .led")) {
    const outside = e.parentElement ? backs(e.parentElement) : [[255, 255, 255, 1]];
    parts.push({ what: name(e), fill: rgba(s.backgroundColor), border: rgba(s.borderTopColor),
                 borderWidth: parseFloat(s.borderTopWidth), outside: outside });
  }
}
return JSON.stringify({ texts, parts });
"""


def _over(top, under):
    a = top[3]
    return [top[i] * a + under[i] * (1 - a) for i in range(3)]


def _flatten(chain):
    c = [255, 255, 255]  # the canvas
    for layer in chain:
        c = _over(layer, c)
    return c


def luminance(rgb):
    def lin(v):
        v /= 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def contrast_failures(driver):
    """WCAG 2.1 AA: 4.5:1 for text, 3:1 for large text (24 px, or 18.66 px bold)
    and for what marks out a component (its fill or its border against what is around it)."""
    got = json.loads(driver.execute_script(_STYLES))
    failures, checked = [], 0
    for t in got["texts"]:
        back = _flatten(t["backs"])
        fore = _over(t["color"], back)
        large = t["size"] >= 24 or (t["size"] >= 18.66 and t["weight"] >= 700)
        need = 3.0 if large else 4.5
        r = ratio(fore, back)
        checked += 1
        if r < need:
            failures.append(f"text {t['what']} \"{t['text']}\": {r:.2f}:1, needs {need}:1 "
                            f"({_hex(fore)} on {_hex(back)})")
    for p in got["parts"]:
        outside = _flatten(p["outside"])
        fill = _over(p["fill"], outside)
        edge = _over(p["border"], fill) if p["borderWidth"] > 0 else fill
        best = max(ratio(fill, outside), ratio(edge, outside))
        checked += 1
        if best < 3.0:
            failures.append(f"component {p['what']}: {best:.2f}:1 against {_hex(outside)}, needs 3:1 "
                            f"(fill {_hex(fill)}, border {_hex(edge)})")
    return checked, failures


def _hex(rgb):
    return "#" + "".join(f"{round(v):02x}" for v in rgb)


def overflow(driver, device_width):
    """How far the page runs past the device's right edge, in CSS px (0 or less: it
    does not), and innerWidth: a phone zooms a wider page out until innerWidth
    takes it all in, so scrollWidth <= innerWidth holds only with innerWidth
    still the device's width."""
    scroll, inner = driver.execute_script(
        "return [document.scrollingElement.scrollWidth, innerWidth]")
    return max(scroll - inner, inner - device_width, scroll - device_width), scroll, inner


def offscreen(driver, selector):
    """The elements matching `selector` that are not drawn whole inside the page's width."""
    return driver.execute_script("""
      const out = [];
      for (const e of document.querySelectorAll(arguments[0])) {
        const r = e.getBoundingClientRect();
        if (r.width < 4 || r.height < 4 || r.left < 0 || r.right > innerWidth) out.push(e.outerHTML.slice(0, 60));
      }
      return out;""", selector)


def pixel(path, x, y):
    """The (r, g, b) at CSS px (x, y) of a screenshot (scale 1), read from the
    PNG itself: what Chromium drew, not what the styles say."""
    import struct
    import zlib
    data = open(path, "rb").read()
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    w, h, depth, colour = head[:4]
    assert depth == 8 and colour in (2, 6), f"{path}: PNG depth {depth} colour type {colour} not read here"
    bpp = 3 if colour == 2 else 4
    raw, stride, prev = zlib.decompress(idat), w * bpp, bytearray(w * bpp)
    for row in range(y + 1):
        f, line = raw[row * (stride + 1)], bytearray(raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
    return tuple(prev[x * bpp:x * bpp + 3])


def centre(driver, selector):
    return driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2 + scrollY)]", selector)
