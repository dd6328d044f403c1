#!/usr/bin/python3
"""Turns bench/vm-bench.py's JSON into the side-by-side table (markdown).

Usage: report.py RESULTS.json MACHINE-WORDS
Latencies pool every round's samples of one program (one boot, the programs
alternating), so each ratio compares figures from the same run.
"""
import json
import sys


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def pooled(rounds, who, key):
    return [x for r in rounds for x in r[who].get(key, [])]


def median(xs):
    return pct(xs, 50)


def main():
    res = json.load(open(sys.argv[1]))
    machine = sys.argv[2] if len(sys.argv) > 2 else ""
    rounds = res["rounds"]
    rows = []

    def ratio(ref, body, higher_better=False):
        if not ref or ref != ref or body != body:
            return "-"
        return f"{(body / ref):.2f}x"

    for key, words in [("push_lamp_ms", "`POST /face` -> lamp line changed"),
                       ("push_answer_ms", "`POST /face` answered"),
                       ("press_ears_ms", "confirming press -> waiting `GET /ears` answered")]:
        ref, body = pooled(rounds, "reference", key), pooled(rounds, "body", key)
        for p in (50, 99):
            a, b = pct(ref, p), pct(body, p)
            rows.append((f"{words}, p{p} (n={len(ref)}/{len(body)})", f"{a:.2f} ms", f"{b:.2f} ms", ratio(a, b)))
    a = median([r["reference"]["status_rps"] for r in rounds])
    b = median([r["body"]["status_rps"] for r in rounds])
    rows.append(("`GET /status`, wrk -t1 -c16, requests/s (median of rounds)", f"{a:,.0f}", f"{b:,.0f}", ratio(a, b)))
    if all("status_rps_c4" in r["body"] for r in rounds):
        a = median([r["reference"]["status_rps_c4"] for r in rounds])
        b = median([r["body"]["status_rps_c4"] for r in rounds])
        rows.append(("`GET /status`, wrk -t1 -c4, requests/s (median of rounds)", f"{a:,.0f}", f"{b:,.0f}", ratio(a, b)))
    for key, words in [("rss_kb", "idle RSS"), ("private_kb", "idle private (Private_Dirty)")]:
        a = median([r["reference"][key] for r in rounds]) / 1024
        b = median([r["body"][key] for r in rounds]) / 1024
        rows.append((words, f"{a:.1f} MB", f"{b:.1f} MB", ratio(a, b)))
    secs = rounds[0]["body"]["idle_seconds"]
    a = max(r["reference"]["idle_wakeups"] for r in rounds)
    b = max(r["body"]["idle_wakeups"] for r in rounds)
    rows.append((f"idle wakeups (context switches, all threads, {secs:g} s, most of any round)", str(a), str(b),
                 "equal" if a == b else f"+{b - a}"))
    quiet = pooled(rounds, "body", "press_ears_ms")
    busy = pooled(rounds, "body", "press_preview_ears_ms")
    for p in (50, 99):
        a, b = pct(quiet, p), pct(busy, p)
        rows.append((f"body: press -> `/ears` p{p}, without / while one `/preview` streams (n={len(quiet)}/{len(busy)})",
                     f"{a:.2f} ms", f"{b:.2f} ms", ratio(a, b)))

    cams = [r["camera"] for r in rounds if "camera" in r]
    if cams:
        def per_frame(who):
            frames = sum(c[who]["frames"] for c in cams)
            return (sum(c[who]["cpu_s"] for c in cams) * 1000 / frames if frames else float("nan")), frames
        (u, uf), (b, bf) = per_frame("ustreamer"), per_frame("body")
        secs = sum(c["body"]["seconds"] for c in cams)
        rows.append((f"camera, YUYV 640x480 @15 q80, one client: CPU per delivered frame (µStreamer in the reference column; "
                     f"{uf} / {bf} frames in {secs} s each)", f"{u:.1f} ms", f"{b:.1f} ms", ratio(u, b)))

    print(f"{len(rounds)} rounds, programs alternating in one boot; guest kernel {res['kernel']}, "
          f"{res['cpus']} vCPUs (TCG, idle=poll), clocksource {res.get('clocksource', '?')}; {machine}")
    print(f"The reference answers a {res['status_bytes']}-byte status document (the body's). "
          f"Preview: {rounds[0]['body'].get('preview_why')}, "
          f"{median([r['body'].get('preview_bytes_per_s', 0) for r in rounds]) / 1024:.0f} KiB/s streamed. "
          f"The body's log: {res.get('body_log_lines', '?')} lines through a pipe. "
          f"Two-presses not confirmed within the 4 s wait (host stalls; not timed): {res.get('press_misses', 0)}. "
          f"wrk socket errors: {'; '.join(res.get('wrk_socket_errors', [])) or 'none'}.")
    print()
    print("| figure | C reference | body | body / reference |")
    print("| --- | --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    print("Per round p50 (reference / body): " + "; ".join(
        f"lamp {median(r['reference']['push_lamp_ms']):.2f}/{median(r['body']['push_lamp_ms']):.2f} ms, "
        f"ears {median(r['reference']['press_ears_ms']):.2f}/{median(r['body']['press_ears_ms']):.2f} ms, "
        f"status {r['reference']['status_rps']:.0f}/{r['body']['status_rps']:.0f}/s" for r in rounds))


if __name__ == "__main__":
    main()
