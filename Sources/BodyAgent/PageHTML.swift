import BodyHTTP

/// The body's page and its sign-in form, as text. The page holds
/// no token and no state: it reads `GET /events` with the session cookie and
/// draws what each event says; on a sim board it also presses.
enum PageHTML {
    static func answer(_ status: Int, _ html: String, _ headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/html; charset=utf-8", body: Array(html.utf8),
                     headers: [("Cache-Control", "no-store"), ("X-Frame-Options", "DENY"),
                               ("Referrer-Policy", "no-referrer")] + headers)
    }

    /// 303 See Other to `location` (after a form's POST, so a reload does not post again).
    static func seeOther(_ location: String, _ headers: [(String, String)]) -> HTTPResponse {
        HTTPResponse(status: 303, contentType: "text/plain; charset=utf-8", body: Array("see \(location)\n".utf8),
                     headers: [("Location", location), ("Cache-Control", "no-store")] + headers)
    }

    static func escaped(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    /// The form a browser without a session gets at `/`. It posts the token
    /// once (never in a URL); `said` is a refusal's words. The body's name
    /// (`[body] name`) heads it, so two bodies' tabs say which is which.
    static func signIn(_ said: String?, name: String) -> String {
        let refusal = said.map { #"<p id="refused" class="refused" role="alert">\#(escaped($0))</p>"# } ?? ""
        let name = escaped(name)
        return #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>\#(name) · studio body: sign in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<style>\#(style)</style></head>
<body>
<h1>\#(name) <small>studio body</small></h1>
<form id="signin" method="post" action="/signin" class="card">
 <p>This page shows the body's lamp, buttons, eyes and log, live. Sign in with the body's token
 (the one in its token file, e.g. <code>/etc/studio-body/token</code>): it is sent once, and the browser keeps
 a session for 12 hours or until the body restarts.</p>
 \#(refusal)
 <label for="token">Token</label>
 <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
 <button type="submit">Sign in</button>
</form>
</body></html>
"""#
    }

    static let style = #"""
 /* Every state is said in words as well as colour; the colours keep WCAG AA
    contrast (Tests/browser checks both, at 390 px and 1280 px wide). */
 * { box-sizing: border-box; }
 body { font: 16px system-ui, sans-serif; background: #1b1b1f; color: #ddd; margin: 1rem; max-width: 72rem; overflow-wrap: anywhere; }
 @media (min-width: 700px) { body { margin: 2rem; } }
 h1 { font-size: 1.6em; margin: 0 0 1rem; }
 h2 { font-size: 1.15em; margin: 0 0 .5em; color: #eee; }
 small, .note { color: #aaa; font-weight: normal; }
 code { color: #ffd27a; }
 .card { background: #24242a; border: 1px solid #55555f; border-radius: .6em; padding: .8em 1em; margin: 0 0 1rem; }
 .grid { display: grid; grid-template-columns: 1fr; gap: 0 1rem; }
 @media (min-width: 900px) { .grid { grid-template-columns: 1fr 1fr; } }
 .board { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: center; margin-bottom: 1rem; }
 .lamp { width: 11em; max-width: 100%; height: 3.2em; border-radius: .6em; display: flex; align-items: center; justify-content: center;
         font: bold 1.6em system-ui, sans-serif; letter-spacing: .1em; background: #2a1010; color: #b06868; border: 3px solid #a05a5a; }
 .lamp.lit { background: #e0201c; color: #fff; border-color: #ff8a80; box-shadow: 0 0 40px #e0201c; }
 .lamp.unknown, .led.unknown { border-style: dashed; }
 .leds > div + div { margin-top: .7em; }
 .led { width: 1.6em; height: 1.6em; border-radius: 50%; display: inline-block; vertical-align: middle; margin-right: .5em; border: 2px solid #9a9aa5; }
 .amber { background: #3a2e0c; } .amber.lit { background: #ffb000; box-shadow: 0 0 14px #ffb000; }
 .red { background: #3a1010; } .red.lit { background: #ff3030; box-shadow: 0 0 14px #ff3030; }
 p { margin: .45em 0; }
 .badge { display: inline-block; font-weight: bold; padding: .1em .5em; border-radius: .3em; border: 2px solid transparent; }
 .badge.on { background: #e0201c; color: #fff; }
 .badge.off { background: #3a3a42; color: #fff; border-color: #9a9aa5; }
 .badge.unread { background: #1b1b1f; color: #d7b8ff; border: 2px dashed #b48cff; }
 .badge.armed { background: #ffb000; color: #000; }
 .badge.asking { background: #1b1b1f; color: #ffc94d; border-color: #ffb000; }
 .badge.problem { background: #ffd6d1; color: #6b0000; }
 .buttons { display: flex; flex-wrap: wrap; gap: .6em; margin: 1em 0; }
 .buttons button { flex: 1 1 10em; max-width: 16em; }
 button, input { font: 1.05em system-ui, sans-serif; padding: .7em .6em; border-radius: .6em; border: 1px solid #8a8a96; background: #2c2c33; color: #eee; }
 button { cursor: pointer; }
 button:active { background: #44444f; }
 button:focus-visible, input:focus-visible { outline: 3px solid #9cf; outline-offset: 2px; }
 input { display: block; width: 100%; max-width: 24em; margin: .3em 0 .8em; background: #121216; }
 .refused { color: #ffb4a8; font-weight: bold; }
 .hint { color: #bbb; }
 .good { color: #8fe3a0; } .bad { color: #ffb4a8; }
 table { border-collapse: collapse; width: 100%; overflow-wrap: normal; }
 td.last { overflow-wrap: anywhere; }
 th, td { text-align: left; padding: .3em .4em .3em 0; vertical-align: top; border-top: 1px solid #3c3c45; }
 th { color: #ccc; font-weight: 600; }
 dl { display: grid; grid-template-columns: minmax(6em, max-content) 1fr; gap: .2em .8em; margin: 0; }
 dt { color: #bbb; } dd { margin: 0; }
 #log { max-height: 24em; overflow-y: auto; font: .85em ui-monospace, monospace; margin: 0; padding: 0; list-style: none; }
 #log li { padding: .15em 0; border-top: 1px solid #33333b; }
 #log time { color: #aaa; margin-right: .6em; }
 #log .warning, #log .error { color: #ffc9a8; }
 #frame { display: block; max-width: 100%; height: auto; margin-top: .5em; border-radius: .3em; }
 header { display: flex; flex-wrap: wrap; gap: .5em 1em; align-items: baseline; justify-content: space-between; }
 header form { margin: 0; }
 [hidden] { display: none !important; }
"""#

    /// The page, its title and header naming the body (`[body] name`): made
    /// once at start (`PageService`), not at every `GET /`.
    static func page(name: String) -> String {
        let name = escaped(name)
        return #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>\#(name) · studio body</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<style>\#(style)</style></head>
<body>
<header>
 <h1>\#(name) <small>studio body</small> <small id="who"></small></h1>
 <p><span id="live" class="hint">connecting…</span>
 <form method="post" action="/signout" style="display:inline"><button id="signout" type="submit">Sign out</button></form></p>
</header>
<div class="board">
 <div id="lamp" class="lamp">ON AIR</div>
 <div class="leds"><div><span id="armed" class="led amber"></span>armed LED<span id="armed-words" class="hint"></span></div>
      <div><span id="eye" class="led red"></span>eye LED<span id="eye-words" class="hint"></span></div></div>
</div>
<p class="hint">The lamp: <span id="lamp-words"></span></p>
<section id="status" class="card" aria-live="polite">
 <h2>On Air</h2>
 <p>On Air: <span id="onair" class="badge">…</span> <span id="stage"></span> <span id="since" class="hint"></span><span id="unread" class="hint"></span></p>
 <p id="control-line" hidden><span id="control" class="badge"></span> <span id="control-words" class="hint"></span></p>
 <p id="problem-line" hidden><span class="badge problem">problem</span> <span id="problem"></span></p>
 <p id="wrapup-line" class="hint"></p>
</section>
<section id="sim" class="card" hidden>
 <h2>Simulated board: press</h2>
 <div class="buttons">
  <button data-button="onair">On Air</button>
  <button data-button="wrapup">Wrap up <span id="wrapup"></span></button>
  <button data-button="kill">Kill eyes <span id="kill"></span></button>
  <button data-button="camera">Camera</button>
 </div>
 <p class="note">Each click is one press and release, through the same path a real button's edge takes.
 The On Air button is two-press: the first press arms (amber LED steady), a second within 5 s asks Oriel.</p>
</section>
<div class="grid">
<section class="card"><h2>Buttons</h2>
 <table><thead><tr><th>button</th><th>now</th><th>last press</th><th>noise</th></tr></thead><tbody id="buttons"></tbody></table>
</section>
<section class="card"><h2>Oriel</h2><dl id="oriel"></dl></section>
<section class="card"><h2>Eyes</h2><dl id="eyes"></dl><img id="frame" alt="the camera's latest frame (the eyes are open for a tap)" hidden></section>
<section class="card"><h2>Where</h2><dl id="where"></dl></section>
<section class="card"><h2>Board</h2><dl id="board"></dl></section>
</div>
<section class="card"><h2>Log <small>(the last 100 lines, newest first)</small></h2><ol id="log"></ol></section>
<script>
const $ = id => document.getElementById(id);
let doc = null, got = 0;
function text(id, t) { $(id).textContent = t == null ? "" : t; }
function show(id, on) { $(id).hidden = !on; }
function badge(id, word) { const e = $(id); e.textContent = word; e.className = "badge " + word; }
const onOff = on => on ? "on" : "off";
const time = t => t == null ? "never" : new Date(t * 1000).toLocaleTimeString();
const ago = t => t == null ? "never" : time(t) + " (" + Math.max(0, Math.round(Date.now() / 1000 - t)) + " s ago)";
function rows(id, pairs) {
  const dl = $(id); dl.replaceChildren();
  for (const [k, v] of pairs) {
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = k; dd.textContent = v == null ? "—" : v; dl.append(dt, dd);
  }
}
// What a pattern is, in words (DESIGN 2).
function patternWords(p, role) {
  if (!p) return "not fitted";
  if (!p.lit.length) return "dark";
  if (p.lit.length == 1 && p.lit[0][0] <= 0 && p.lit[0][1] >= p.period) return "lit";
  if (p.period == 2 && p.lit.length == 1) return "the unread flash (0.2 s every 2 s)";
  if (p.period == 0.25) return "blinking 4 Hz (asking)";
  if (p.period == 1 && p.lit.length == 2) return "a double flash every second (a problem shown)";
  if (p.period == 0.5) return "blinking 2 Hz (the house closing every eye)";
  return "a pattern: " + JSON.stringify(p.lit) + " every " + p.period + " s";
}
// Each line's level as the pattern runs, from when the event arrived.
function level(p, now) {
  const d = Math.max(0, now - got + p.age), t = d - Math.floor(d / p.period) * p.period;
  return p.lit.some(w => t >= w[0] && t < w[1]);
}
function draw() {
  if (doc) {
    const now = performance.now() / 1000;
    for (const [role, id] of [["lamp", "lamp"], ["armed-led", "armed"], ["eye-led", "eye"]]) {
      const p = doc.patterns[role], known = doc.status.lines[role] != null;
      $(id).classList.toggle("lit", !!p && known && level(p, now));
      $(id).classList.toggle("unknown", !known);
    }
  }
}
function render() {
  const s = doc.status, o = s.onair;
  text("who", doc.version + (doc.sim ? " · simulated board" : ""));
  show("sim", doc.sim);
  const lineWords = role => s.lines[role] === undefined ? "not fitted" : s.lines[role] == null ? "unknown: the GPIO chip is gone" : patternWords(doc.patterns[role], role);
  text("lamp-words", lineWords("lamp")); text("armed-words", ": " + lineWords("armed-led")); text("eye-words", ": " + lineWords("eye-led"));
  badge("onair", o.on == null ? "unread" : onOff(o.on));
  text("stage", o.on && o.stage ? "ON AIR · " + o.stage : "");
  text("since", o.on != null && (o.since || o.by) ? "since " + (o.since || "?") + (o.by ? " by " + o.by : "") : "");
  text("unread", o.on == null ? o.unread : "");
  if (o.value == "armed") {
    badge("control", "armed");
    text("control-words", "press On Air again within 5 s to ask Oriel to turn it " + onOff(!o.on));
  } else if (o.value == "asking") {
    badge("control", "asking");
    text("control-words", "Oriel" + (o.asked && o.asked.on != null ? " to turn On Air " + onOff(o.asked.on) : "")
         + " (asked at " + time(o.asked && o.asked.at) + "); the lamp follows Oriel's answer");
  }
  show("control-line", o.value == "armed" || o.value == "asking");
  const problem = o.problem || s.wrapup.problem || s.eyes.kill_problem || (s.board.problem ? "board: " + s.board.problem : "");
  text("problem", problem); show("problem-line", !!problem);
  text("wrapup-line", "Wrap up: " + s.wrapup.value + (s.wrapup.asked ? ", asked at " + time(s.wrapup.asked.at) : "")
       + " · Kill eyes: " + s.eyes.kill + (s.eyes.kill_asked ? ", asked at " + time(s.eyes.kill_asked.at) : ""));
  text("wrapup", "(" + s.wrapup.value + ")"); text("kill", "(" + s.eyes.kill + ")");
  const tb = $("buttons"); tb.replaceChildren();
  for (const name of Object.keys(s.buttons).sort()) {
    const b = s.buttons[name], p = doc.presses[name], tr = document.createElement("tr");
    const now = b.stuck ? "down, held: stuck (or a broken normally-closed wire)" : b.held ? "down" : "up";
    const last = p ? time(p.at) + ": " + p.became + " (" + p.words + ")" : "no press yet";
    for (const v of [name, now, last, String(b.noise)]) { const td = document.createElement("td"); td.textContent = v; tr.append(td); }
    tr.children[2].className = "last";
    tb.append(tr);
  }
  rows("oriel", [["last push", ago(s.oriel.last_push)], ["last poll", ago(s.oriel.last_poll)],
                 ["silent", s.oriel.silent ? "yes: On Air is unread until Oriel pushes" : "no"], ["hello", doc.hello]]);
  const e = s.eyes;
  rows("eyes", [["mode", e.mode || "none said"], ["red", e.red ? "yes: an eye is open in the house" : "no"],
                ["names", e.names.join(", ") || "none"], ["killing", e.killing ? "yes: the house is closing every eye" : "no"],
                ["gate", e.open ? "open" + (e.why ? ": " + e.why : "") : "closed"], ["until", e.until == null ? "—" : time(e.until)],
                ["preview", e.preview_why]]);
  showFrame();
  const w = s.where;
  rows("where", [["allowed", w.allowed ? "yes" : "no: a person allows it in the configuration"], ["watching", w.watching ? "yes" : "no"],
                 ["clock", w.clock_synchronised ? "synchronised" : "not synchronised" + (w.clock_behind_receiver != null ? ", " + w.clock_behind_receiver + " s behind the receiver" : "")],
                 ["last answer", doc.where_said || "none yet"]]);
  rows("board", [["board", s.board.kind], ["lines", s.board.ok ? "held" : "not held"], ["problem", s.board.problem || "none"]]);
  const log = $("log"); log.replaceChildren();
  for (const l of doc.log.slice().reverse()) {
    const li = document.createElement("li"), t = document.createElement("time");
    t.textContent = time(l.at); li.className = l.level; li.append(t, document.createTextNode(l.words)); log.append(li);
  }
  draw();
}
// The camera's latest frame, once a second, only while the preview runs, which is
// only while the gate is open for a tap; never a frame otherwise.
function showFrame() {
  const frame = $("frame"), running = doc && doc.status.eyes.preview == "running";
  if (running) {
    if (frame.hidden || Date.now() - (frame.dataset.at || 0) >= 1000) { frame.dataset.at = Date.now(); frame.src = "/preview.jpg?at=" + Date.now(); }
    frame.hidden = false;
  } else if (!frame.hidden) { frame.hidden = true; frame.removeAttribute("src"); }
}
setInterval(showFrame, 1000);
const events = new EventSource("/events");
events.addEventListener("page", m => { doc = JSON.parse(m.data); got = performance.now() / 1000; window.pageState = doc; render(); });
events.onopen = () => { text("live", "live"); $("live").className = "good"; };
events.onerror = () => {
  // Closed for good: the session ended (signed out elsewhere, 12 h, or the body restarted).
  // Reloaded at most once in 10 s: the reload shows the sign-in form, which has no stream.
  if (events.readyState == 2) {
    const last = Number(sessionStorage.getItem("reloaded") || 0);
    if (Date.now() - last > 10000) { sessionStorage.setItem("reloaded", Date.now()); location.reload(); return; }
    text("live", "the body no longer answers this page's stream: reload to sign in again"); $("live").className = "bad"; return;
  }
  text("live", "reconnecting…"); $("live").className = "bad";
};
for (const b of document.querySelectorAll("button[data-button]")) {
  b.addEventListener("click", () => fetch("/sim/press?button=" + b.dataset.button, { method: "POST" }));
}
setInterval(draw, 25);
</script>
</body></html>
"""#
    }
}
