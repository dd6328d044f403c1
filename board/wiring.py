#!/usr/bin/env python3
"""Draws board/wiring.svg: the Raspberry Pi header with the default lines, and each circuit.

Run `python3 board/wiring.py > board/wiring.svg` after changing the pins here or in
raspberrypi.conf (scripts/test-install checks that the two agree). Standard library only.
"""

# Physical pin -> (label, role). Must match board/raspberrypi.conf.
PINS = {
    6: ("GND", "lamp supply -"),
    9: ("GND", "LEDs"),
    11: ("GPIO17", "lamp"),
    13: ("GPIO27", "armed LED"),
    14: ("GND", "On Air button"),
    15: ("GPIO22", "eye LED"),
    16: ("GPIO23", "On Air button"),
    18: ("GPIO24", "kill button"),
    20: ("GND", "kill button"),
    22: ("GPIO25", "Wrap up button"),
    25: ("GND", "Wrap up button"),
    29: ("GPIO5", "camera button"),
    30: ("GND", "camera button"),
}
# Every other pin, for the picture only.
OTHER = {1: "3V3", 2: "5V", 4: "5V", 17: "3V3", 34: "GND", 39: "GND", 3: "GPIO2 (I2C)", 5: "GPIO3 (I2C)", 8: "GPIO14 (UART)", 10: "GPIO15 (UART)"}

out = []
def add(s): out.append(s)
def text(x, y, s, size=13, anchor="start", weight="normal", fill="#222"):
    s = s.replace("&", "&amp;").replace("<", "&lt;")
    add(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" fill="{fill}">{s}</text>')
def line(x1, y1, x2, y2, w=2, color="#222", dash=None):
    d = f' stroke-dasharray="{dash}"' if dash else ""
    add(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="{w}"{d}/>')
def poly(points, fill="none", color="#222", w=2):
    p = " ".join(f"{x},{y}" for x, y in points)
    add(f'<polygon points="{p}" fill="{fill}" stroke="{color}" stroke-width="{w}"/>')
def rect(x, y, w, h, fill="none", color="#222", sw=2, rx=0):
    add(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" stroke="{color}" stroke-width="{sw}"/>')
def circle(x, y, r, fill="none", color="#222", w=2):
    add(f'<circle cx="{x}" cy="{y}" r="{r}" fill="{fill}" stroke="{color}" stroke-width="{w}"/>')

# Symbols, each drawn along a horizontal wire from (x, y), returning the x where the wire goes on.
def resistor(x, y, label):
    line(x, y, x + 15, y); rect(x + 15, y - 7, 40, 14, fill="#fff"); line(x + 55, y, x + 70, y)
    text(x + 35, y - 12, label, 12, "middle"); return x + 70
def led(x, y, color, label):
    line(x, y, x + 15, y)
    poly([(x + 15, y - 10), (x + 15, y + 10), (x + 33, y)], fill=color)
    line(x + 33, y - 10, x + 33, y + 10)
    for dx in (20, 28):  # light leaving the LED
        line(x + dx, y - 13, x + dx + 7, y - 21, 1.5)
    line(x + 33, y, x + 48, y); text(x + 24, y + 25, label, 12, "middle"); return x + 48
def ground(x, y, label):
    line(x, y, x, y + 10); line(x - 12, y + 10, x + 12, y + 10); line(x - 8, y + 14, x + 8, y + 14)
    line(x - 4, y + 18, x + 4, y + 18); text(x, y + 34, label, 12, "middle")
def button(x, y, label, normally_closed=False):
    line(x, y, x + 15, y); circle(x + 17, y, 2.5, "#222"); circle(x + 53, y, 2.5, "#222")
    if normally_closed:
        line(x + 17, y + 4, x + 53, y + 4)
    else:
        line(x + 17, y - 4, x + 53, y - 14)
    line(x + 35, y - 24, x + 35, y - 9 if not normally_closed else y + 2, 1.5, dash="3,2")
    line(x + 27, y - 24, x + 43, y - 24)
    line(x + 55, y, x + 70, y); text(x + 35, y + 22, label, 12, "middle"); return x + 70
def netlabel(x, y, pin):
    name, _ = PINS[pin]
    rect(x, y - 11, 118, 22, fill="#eef4ff", color="#3a64b8", sw=1.5, rx=4)
    text(x + 59, y + 5, f"{name}  pin {pin}", 12, "middle", "bold", "#1d3f85")
    return x + 118

W, H = 1260, 965
add(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="DejaVu Sans, Arial, sans-serif">')
add(f'<rect width="{W}" height="{H}" fill="#fff"/>')
text(20, 32, "studio-body on a Raspberry Pi 4 or 5: default wiring (board/raspberrypi.conf)", 18, weight="bold")

# The 40-pin header, pin 1 top left, as seen from above with the USB ports at the bottom.
hx, hy, step = 260, 90, 30
rect(hx - 20, hy - 20, 100, 20 * step + 10, fill="#f4f4f4", rx=6)
text(hx + 30, hy - 28, "40-pin header", 12, "middle", "bold")
text(hx + 30, hy + 20 * step + 12, "pin 1 (square): the end away from the USB ports", 11, "middle", fill="#666")
for pin in range(1, 41):
    row, col = (pin - 1) // 2, (pin - 1) % 2
    x, y = hx + col * 60, hy + row * step
    used = pin in PINS
    label = PINS[pin][0] if used else OTHER.get(pin, "")
    fill = "#c0392b" if used and label.startswith("GPIO") else ("#333" if used else "#fff")
    if pin == 1:
        rect(x - 8, y - 8, 16, 16, fill=fill)
    else:
        circle(x, y, 8, fill=fill)
    text(x + (-14 if col == 0 else 14), y + 4, str(pin), 10, "end" if col == 0 else "start", fill="#666")
    if used:
        name, role = PINS[pin]
        tx = hx - 40 if col == 0 else hx + 100
        text(tx, y + 4, f"{name} {role}", 11, "end" if col == 0 else "start",
             "bold" if name.startswith("GPIO") else "normal")
    elif label:
        text(hx - 40 if col == 0 else hx + 100, y + 4, label, 10, "end" if col == 0 else "start", fill="#888")

# The circuits, right of the header; a blue box is a wire to that header pin.
cx = 620
text(cx, 90, "On Air lamp: through a logic-level MOSFET or a relay module", 14, weight="bold")
y = 250
x = netlabel(cx, y, 11); x = resistor(x, y, "100 \u03a9")
# N-channel MOSFET: gate at x, drain up, source down.
line(x, y, x + 20, y); line(x + 20, y - 18, x + 20, y + 18, 3); line(x + 28, y - 20, x + 28, y + 20, 3)
line(x + 28, y - 14, x + 50, y - 14); line(x + 28, y + 14, x + 50, y + 14)
line(x + 50, y - 14, x + 50, y - 45); line(x + 50, y + 14, x + 50, y + 40)
text(x + 60, y + 4, "logic-level N-MOSFET (e.g. IRLZ44N)", 11)
gate_x = x + 10
line(gate_x, y, gate_x, y + 40); resistor_y = y + 40
rect(gate_x - 7, resistor_y, 14, 30, fill="#fff"); text(gate_x - 10, resistor_y + 20, "100 k\u03a9", 11, "end")
line(gate_x, resistor_y + 30, gate_x, y + 80); line(gate_x, y + 80, x + 50, y + 80); line(x + 50, y + 40, x + 50, y + 80)
ground(x + 50, y + 80, "GND pin 6 and supply -")
# Lamp and flyback diode between drain and the lamp supply.
dx = x + 50
lamp_y = y - 75
circle(dx, lamp_y, 14); line(dx - 10, lamp_y - 10, dx + 10, lamp_y + 10); line(dx - 10, lamp_y + 10, dx + 10, lamp_y - 10)
line(dx, y - 45, dx, lamp_y + 14); line(dx, lamp_y - 14, dx, lamp_y - 40)
text(dx + 22, lamp_y + 4, "lamp (12 V)", 12)
fx = dx - 80
line(dx, y - 45, fx, y - 45); line(dx, lamp_y - 40, fx, lamp_y - 40)
poly([(fx - 9, y - 58), (fx + 9, y - 58), (fx, y - 74)], fill="#fff")  # cathode towards +12 V
line(fx - 9, y - 76, fx + 9, y - 76, 3); line(fx, y - 45, fx, y - 58); line(fx, y - 76, fx, lamp_y - 40)
text(fx - 14, y - 62, "flyback diode", 11, "end"); text(fx - 14, y - 48, "1N5819", 11, "end")
text(dx, lamp_y - 46, "+12 V lamp supply", 12, "middle", "bold")
text(cx, y + 145, "The 100 k\u03a9 keeps the lamp dark while the Pi boots (the pin is an input then). After the", 11)
text(cx, y + 160, "body exits the pin keeps its last level: the body and the unit's ExecStopPost drive it dark.", 11)
text(cx, y + 175, "A relay module instead: high-level trigger, safe from 3.3 V (IN not pulled to 5 V), `drives = relay`.", 11)
text(cx, y + 190, "Mains: a fuse, a relay rated for mains, a closed box, wired by a qualified person.", 11)
text(cx, y + 205, "GPIO pins are 3.3 V only: never 5 V on a GPIO pin.", 11, weight="bold", fill="#c0392b")

y = 515
text(cx, y - 30, "LEDs: each through 330 \u03a9 (about 4 mA at 3.3 V)", 14, weight="bold")
for i, (pin, color, label) in enumerate([(13, "#f5a623", "armed (amber)"), (15, "#e74c3c", "eye (red)")]):
    yy = y + i * 55
    x = netlabel(cx, yy, pin); x = resistor(x, yy, "330 \u03a9"); x = led(x, yy, color, label)
    line(x, yy, x + 30, yy); line(x + 30, yy, x + 30, y + 65)
ground(cx + 286, y + 65, "GND pin 9")

y = 675
text(cx, y - 30, "Buttons: each to ground; the Pi's pull-up holds the line high", 14, weight="bold")
rows = [(16, 14, "On Air"), (18, 20, "kill"), (22, 25, "Wrap up"), (29, 30, "camera")]
for i, (pin, gnd, label) in enumerate(rows):
    yy = y + i * 50
    x = netlabel(cx, yy, pin); x = button(x, yy, ""); line(x, yy, x + 20, yy)
    text(x + 26, yy + 4, f"GND pin {gnd}", 12)
    text(x + 110, yy + 4, label, 12, weight="bold")
yy = y + 4 * 50 + 10
text(cx, yy, "Kill, normally closed (optional): same two wires, an NC button, `active = high` in the board file.", 11)
text(cx, yy + 15, "A broken wire then reads as a button held, which the body reports, instead of a button never pressed.", 11)
text(cx, yy + 30, "Long cables: 4.7-10 k\u03a9 pull-up to 3.3 V and 1 k\u03a9 in series at the Pi's end (board/WIRING.md).", 11)
text(cx, yy + 45, "The kill button is a deliberate stop, NOT a safety-rated emergency stop.", 12, weight="bold", fill="#c0392b")

add("</svg>")
print("\n".join(out))
