#!/usr/bin/python3
"""Writes bench/code-order.txt, the order in which the linker lays out the body's
hot code (issue 21; the Makefile's LAYOUT passes it to gold's
--section-ordering-file, every function in a section of its own).

Why: after a sleep, a wake-up's cost on the host is mostly the memory it touches
(docs/benchmarks.md, the fourth and fifth sessions of issue 21). Left to the
linker, the few hundred functions a request, a press or a blink runs lie on some
two hundred pages of a 10 MB binary; listed together they lie on about fifty.

How: the release body (`make build`) runs under callgrind with names left
mangled, on the sim board, through what it does in a studio's day: `GET /status`,
pushes, two-press rounds with their asking blink, `/metrics`. Counting starts
after a warm-up, so start-up code stays where it was. Every function of the
body's own binary that ran is listed, the most often called first (the loop and
the runtime's retain and release lead), then by instructions. A run here and a
run on another machine may order ties differently; that changes nothing that
matters.

  python3 bench/code-order.py [--port P]     then `make build` links with it
  python3 bench/code-order.py --check         the release body's layout, checked
Needs valgrind (and nm for --check).

--check reads the symbols of the release binary: how many listed names it holds,
and how many pages they span against the fewest they could. It fails when a
fifth of the names are gone (the order is stale: make it again) or when they lie
scattered (the linker did not take the order).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from alloc import Connection  # noqa: E402
from callgrind import ROOT, TOKEN, launch, run_ops  # noqa: E402

OUT = os.path.join(ROOT, "bench", "code-order.txt")


def day(conn, port, n):
    """What the body does most, n times over (presses a tenth as often); a scrape
    on a connection of its own, as Prometheus makes them, so opening and closing
    one is counted too."""
    run_ops(conn, "body", "status", n)
    run_ops(conn, "body", "face", n)
    run_ops(conn, "body", "press", max(1, n // 10))
    for _ in range(max(1, n // 20)):
        scrape = Connection(port, TOKEN)
        scrape.ask("GET", "/metrics")
        scrape.close()
        conn.ask("GET", "/ears?wait=0")


def functions(profile, binary):
    """{name: (calls, own instructions)} for the functions of `binary` in a callgrind
    profile (its compressed "(id) name" form; calls from `calls=` lines)."""
    names, objects = {}, {}

    def named(table, text):
        m = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if not m:
            return text
        if m.group(2) is not None:
            table[m.group(1)] = m.group(2)
        return table[m.group(1)]

    calls, own, home = collections.Counter(), collections.Counter(), {}
    obj = fn = callee = callee_obj = None
    skip = False  # the line after calls= is the call's inclusive cost, not fn's own
    for line in open(profile):
        key, _, rest = line.rstrip("\n").partition("=")
        if key == "ob":
            obj = named(objects, rest)
        elif key == "fn":
            fn = named(names, rest)
            home[fn] = obj
        elif key == "cob":
            callee_obj = named(objects, rest)
        elif key == "cfn":
            callee = named(names, rest)
            home.setdefault(callee, callee_obj or obj)
            callee_obj = None
        elif key == "calls":
            calls[callee] += int(rest.split()[0])
            skip = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            if skip:
                skip = False
            elif fn is not None:
                parts = line.split()
                own[fn] += int(parts[1]) if len(parts) > 1 else 0
    out = {}
    for f in set(calls) | set(own):
        name = f.split("'")[0]  # callgrind marks a recursion's depth as name'2
        if home.get(f) == binary and re.match(r"[$_A-Za-z]", name):
            c, i = out.get(name, (0, 0))
            out[name] = (c + calls[f], i + own[f])
    return out


PAGE = 4096


def listed():
    return [line[len(".text."):].strip() for line in open(OUT) if line.startswith(".text.")]


def check(binary):
    """The listed functions' place in `binary`: (found, listed, pages spanned, fewest pages)."""
    names = listed()
    out = subprocess.run(["nm", "--defined-only", "--print-size", binary],
                         check=True, capture_output=True, text=True).stdout
    where = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            where.setdefault(parts[3], (int(parts[0], 16), int(parts[1], 16)))
    found = [where[n] for n in names if n in where]
    pages = {a // PAGE for a, size in found for a in range(a, a + max(size, 1), PAGE)}
    pages |= {(a + max(size, 1) - 1) // PAGE for a, size in found}
    fewest = -(-sum(size for _, size in found) // PAGE)
    return len(found), len(names), len(pages), fewest


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=18801)
    p.add_argument("--body", default=os.path.join(ROOT, ".build", "release", "studio-body"))
    p.add_argument("--check", action="store_true", help="check the release body's layout; make nothing")
    a = p.parse_args()
    if a.check:
        found, names, pages, fewest = check(a.body)
        print(f"code order: {found} of {names} listed functions in {os.path.relpath(a.body, ROOT)}, "
              f"on {pages} pages ({fewest} at the fewest)")
        if found < names * 4 // 5:
            raise RuntimeError(f"{names - found} listed functions are gone: the order is stale; "
                               "run bench/code-order.py, then make build")
        if pages > 2 * fewest + 2:
            raise RuntimeError("the listed functions lie scattered: the linker did not take the order "
                               "(the Makefile's LAYOUT, gold's --section-ordering-file)")
        return
    env = dict(os.environ)
    if os.path.isdir("/opt/swift/usr/bin"):  # this project's machines keep swift there
        env["PATH"] = "/opt/swift/usr/bin:" + env.get("PATH", "")
    subprocess.run(["make", "--no-print-directory", "build"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL, env=env)
    work = tempfile.mkdtemp(prefix="studio-body-code-order-")
    proc = launch("body", a.body, a.port, work, valgrind=["--demangle=no"])
    try:
        conn = Connection(a.port, TOKEN)
        day(conn, a.port, 20)
        subprocess.run(["callgrind_control", "-z", str(proc.pid)], check=True, capture_output=True)
        day(conn, a.port, 100)
        subprocess.run(["callgrind_control", "-d", str(proc.pid)], check=True, capture_output=True)
        conn.close()
    finally:
        proc.terminate()
        proc.wait(30)
    profile = os.path.join(work, f"callgrind.out.{proc.pid}.1")
    found = functions(profile, os.path.join(work, "studio-body"))
    if len(found) < 100:
        raise RuntimeError(f"only {len(found)} of the body's functions ran: is {profile} the body's?")
    # The loop's own function is entered before the count starts (no calls counted): first.
    order = sorted(found, key=lambda f: (-(found[f][0] or 1 << 62), -found[f][1], f))
    with open(OUT, "w") as f:
        f.write("# The body's hot code, in the order the linker lays it out (gold --section-ordering-file).\n"
                "# Made by bench/code-order.py from a callgrind profile; do not edit by hand.\n")
        f.writelines(f".text.{name}\n" for name in order)
    print(f"{len(order)} functions written to {os.path.relpath(OUT, ROOT)}; now `make build`")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        print(f"code-order: failed: {e}", file=sys.stderr)
        sys.exit(1)
