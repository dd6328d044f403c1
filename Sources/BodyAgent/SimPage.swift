/// `GET /sim`: the simulated board on a web page. It reads `/sim/state` ten
/// times a second and presses through `POST /sim/press`, both with the token
/// from its own address (a browser cannot send the header for a page it opens).
enum SimPage {
    static let html = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>studio body (simulated board)</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 body { font: 16px system-ui, sans-serif; background: #1b1b1f; color: #ddd; margin: 2em; }
 .row { display: flex; gap: 2.5em; align-items: center; margin-bottom: 1.5em; }
 .lamp { width: 11em; height: 5em; border-radius: 1em; display: flex; align-items: center; justify-content: center;
         font: bold 1.6em system-ui; letter-spacing: .1em; background: #3a1414; color: #5a2a2a; border: 3px solid #333; }
 .lamp.lit { background: #e0201c; color: #fff; box-shadow: 0 0 40px #e0201c; }
 .led { width: 1.6em; height: 1.6em; border-radius: 50%; display: inline-block; vertical-align: middle; margin-right: .5em; border: 2px solid #333; }
 .amber { background: #4a3a10; } .amber.lit { background: #ffb000; box-shadow: 0 0 14px #ffb000; }
 .red { background: #401010; } .red.lit { background: #ff3030; box-shadow: 0 0 14px #ff3030; }
 button { font: 1.05em system-ui; padding: .8em 1.4em; border-radius: .6em; border: 1px solid #555; background: #2c2c33; color: #eee; cursor: pointer; }
 button:active { background: #44444f; }
 .words { color: #aaa; min-height: 1.3em; }
 .value { font-weight: bold; color: #fff; }
 code { color: #9cf; }
</style></head>
<body>
<h1>studio body <small>(simulated board)</small></h1>
<div class="row">
 <div id="lamp" class="lamp">ON AIR</div>
 <div><div><span id="armed" class="led amber"></span>armed LED</div>
      <div style="margin-top:.7em"><span id="eye" class="led red"></span>eye LED</div></div>
</div>
<p>On Air: <span id="value" class="value">…</span> <span id="stage"></span></p>
<p class="words" id="unread"></p>
<p class="words" id="problem"></p>
<div class="row">
 <button data-button="onair">On Air</button>
 <button data-button="wrapup">Wrap up <span id="wrapup" class="words"></span></button>
 <button data-button="kill">Kill eyes <span id="kill" class="words"></span></button>
 <button data-button="camera">Camera</button>
</div>
<p class="words">Each click is one press and release, through the same path a real button's edge takes.
The On Air button is two-press: the first press arms (amber LED steady), a second within 5 s asks Oriel.</p>
<p class="words" id="oriel"></p>
<script>
const token = new URLSearchParams(location.search).get("token") || "";
const q = "token=" + encodeURIComponent(token);
function set(id, on) { document.getElementById(id).classList.toggle("lit", !!on); }
function text(id, t) { document.getElementById(id).textContent = t || ""; }
async function refresh() {
  try {
    const r = await fetch("/sim/state?" + q, { headers: { Authorization: "Bearer " + token } });
    if (!r.ok) { text("problem", "the body answered " + r.status + (r.status == 401 ? ": open the address printed by studio-body (it carries the token)" : "")); return; }
    const s = await r.json();
    set("lamp", s.lines.lamp); set("armed", s.lines["armed-led"]); set("eye", s.lines["eye-led"]);
    text("value", s.onair.value); text("stage", s.onair.stage ? "(" + s.onair.stage + ")" : "");
    text("unread", s.onair.unread ? "unread: " + s.onair.unread : "");
    text("problem", s.onair.problem || s.wrapup.problem || s.eyes.kill_problem || (s.board.problem ? "board: " + s.board.problem : ""));
    text("wrapup", "(" + s.wrapup.value + ")"); text("kill", "(" + s.eyes.kill + ")");
    text("oriel", s.oriel.silent ? "Oriel is silent." : "Oriel last pushed at " + new Date(s.oriel.last_push * 1000).toLocaleTimeString());
  } catch (e) { text("problem", "the body is not answering: " + e); }
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
