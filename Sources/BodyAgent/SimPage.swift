/// `GET /sim`: the simulated board on a web page. It reads `/sim/state` ten
/// times a second and presses through `POST /sim/press`, both with the token
/// from its own address (a browser cannot send the header for a page it opens).
enum SimPage {
    static let html = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>studio body (simulated board)</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 /* Every state is said in words as well as colour; the colours keep WCAG AA
    contrast (Tests/browser checks both, at 390 px and 1280 px wide). */
 * { box-sizing: border-box; }
 body { font: 16px system-ui, sans-serif; background: #1b1b1f; color: #ddd; margin: 1rem; max-width: 60rem; }
 @media (min-width: 700px) { body { margin: 2rem; } }
 h1 { font-size: 1.6em; margin: 0 0 1rem; }
 small { color: #aaa; font-weight: normal; }
 .board { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: center; margin-bottom: 1rem; }
 .lamp { width: 11em; max-width: 100%; height: 3.2em; border-radius: .6em; display: flex; align-items: center; justify-content: center;
         font: bold 1.6em system-ui, sans-serif; letter-spacing: .1em; background: #2a1010; color: #b06868; border: 3px solid #a05a5a; }
 .lamp.lit { background: #e0201c; color: #fff; border-color: #ff8a80; box-shadow: 0 0 40px #e0201c; }
 .leds > div + div { margin-top: .7em; }
 .led { width: 1.6em; height: 1.6em; border-radius: 50%; display: inline-block; vertical-align: middle; margin-right: .5em; border: 2px solid #9a9aa5; }
 .amber { background: #3a2e0c; } .amber.lit { background: #ffb000; box-shadow: 0 0 14px #ffb000; }
 .red { background: #3a1010; } .red.lit { background: #ff3030; box-shadow: 0 0 14px #ff3030; }
 #status p { margin: .5em 0; }
 .badge { display: inline-block; font-weight: bold; padding: .1em .5em; border-radius: .3em; border: 2px solid transparent; }
 .badge.on { background: #e0201c; color: #fff; }
 .badge.off { background: #3a3a42; color: #fff; border-color: #9a9aa5; }
 .badge.unread { background: #1b1b1f; color: #d7b8ff; border: 2px dashed #b48cff; }
 .badge.armed { background: #ffb000; color: #000; }
 .badge.asking { background: #1b1b1f; color: #ffc94d; border-color: #ffb000; }
 .badge.problem { background: #ffd6d1; color: #6b0000; }
 /* Two to a row on a phone, four on a desktop; none runs off the edge. */
 .buttons { display: flex; flex-wrap: wrap; gap: .6em; margin: 1.2em 0; }
 .buttons button { flex: 1 1 10em; max-width: 16em; }
 button { font: 1.05em system-ui, sans-serif; padding: .8em .6em; border-radius: .6em; border: 1px solid #8a8a96; background: #2c2c33; color: #eee; cursor: pointer; }
 button:active { background: #44444f; }
 button:focus-visible { outline: 3px solid #9cf; outline-offset: 2px; }
 .note { color: #aaa; }
 .hint { color: #bbb; }
 [hidden] { display: none !important; }
</style></head>
<body>
<h1>studio body <small>(simulated board)</small></h1>
<div class="board">
 <div id="lamp" class="lamp">ON AIR</div>
 <div class="leds"><div><span id="armed" class="led amber"></span>armed LED</div>
      <div><span id="eye" class="led red"></span>eye LED</div></div>
</div>
<section id="status" aria-live="polite">
 <p>On Air: <span id="onair" class="badge">…</span> <span id="stage"></span><span id="unread" class="hint"></span></p>
 <p id="control-line" hidden><span id="control" class="badge"></span> <span id="control-words" class="hint"></span></p>
 <p id="problem-line" hidden><span class="badge problem">problem</span> <span id="problem"></span></p>
</section>
<div class="buttons">
 <button data-button="onair">On Air</button>
 <button data-button="wrapup">Wrap up <span id="wrapup"></span></button>
 <button data-button="kill">Kill eyes <span id="kill"></span></button>
 <button data-button="camera">Camera</button>
</div>
<p class="note">Each click is one press and release, through the same path a real button's edge takes.
The On Air button is two-press: the first press arms (amber LED steady), a second within 5 s asks Oriel.</p>
<p class="note" id="oriel"></p>
<script>
const token = new URLSearchParams(location.search).get("token") || "";
const q = "token=" + encodeURIComponent(token);
const $ = id => document.getElementById(id);
function set(id, on) { $(id).classList.toggle("lit", !!on); }
function text(id, t) { $(id).textContent = t || ""; }
function show(id, on) { $(id).hidden = !on; }
function badge(id, word) { const e = $(id); e.textContent = word; e.className = "badge " + word; }
function problem(words) { text("problem", words); show("problem-line", !!words); }
const onOff = on => on ? "on" : "off";
async function refresh() {
  try {
    const r = await fetch("/sim/state?" + q, { headers: { Authorization: "Bearer " + token } });
    if (!r.ok) { problem("the body answered " + r.status + (r.status == 401 ? ": open the address printed by studio-body (it carries the token)" : "")); return; }
    const s = await r.json();
    window.simState = s;
    set("lamp", s.lines.lamp); set("armed", s.lines["armed-led"]); set("eye", s.lines["eye-led"]);
    const o = s.onair;
    badge("onair", o.on == null ? "unread" : onOff(o.on)); text("stage", o.stage ? "(" + o.stage + ")" : "");
    text("unread", o.on == null ? o.unread : "");
    if (o.value == "armed") {
      badge("control", "armed");
      text("control-words", "press On Air again within 5 s to ask Oriel to turn it " + onOff(!o.on));
    } else if (o.value == "asking") {
      badge("control", "asking");
      text("control-words", "Oriel" + (o.asked && o.asked.on != null ? " to turn On Air " + onOff(o.asked.on) : "")
           + "; the lamp follows Oriel's answer");
    }
    show("control-line", o.value == "armed" || o.value == "asking");
    problem(o.problem || s.wrapup.problem || s.eyes.kill_problem || (s.board.problem ? "board: " + s.board.problem : ""));
    text("wrapup", "(" + s.wrapup.value + ")"); text("kill", "(" + s.eyes.kill + ")");
    text("oriel", s.oriel.silent ? "Oriel is silent." : "Oriel last pushed at " + new Date(s.oriel.last_push * 1000).toLocaleTimeString());
  } catch (e) { problem("the body is not answering: " + e); }
}
for (const b of document.querySelectorAll("button[data-button]")) {
  b.addEventListener("click", () => fetch("/sim/press?button=" + b.dataset.button + "&" + q,
    { method: "POST", headers: { Authorization: "Bearer " + token } }).then(refresh));
}
refresh(); setInterval(refresh, 100);
</script>
</body></html>
"""#
}
