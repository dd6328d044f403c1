/// `studio-body watch` as plain values: for the person wiring a
/// board, with the service stopped. Each button's raw edges go through its own
/// `Contact`, the body's rule, fed the same edges and the same readings at a
/// window's end, so what watch calls a press the body would too. A key lights
/// an output and the same key darkens it. The caller reads the lines, the
/// clock and the keys and carries out the steps; nothing here does I/O.
public struct WiringWatch: Equatable, Sendable {
    /// An output and the key that toggles it ("1" for the first).
    public struct Output: Equatable, Sendable {
        public var role: OutputRole
        public var line: String
        public var key: Character
    }

    /// A button's line and the board file's window for it.
    public struct Button: Equatable, Sendable {
        public var role: ButtonRole
        public var line: String
        public var debounce: Double

        public init(role: ButtonRole, line: String, debounce: Double = Contact.defaultDebounce) {
            self.role = role
            self.line = line
            self.debounce = debounce
        }
    }

    /// What the caller does, in order.
    public enum Step: Equatable, Sendable {
        /// One line for the terminal.
        case say(String)
        /// Drive the output to this level (active-low is the board's business).
        case drive(OutputRole, lit: Bool)
        /// Read the button's line now and hand it to `level(_:pressed:at:)`
        /// (the edges still waiting go in first: they are older).
        case readLevel(ButtonRole)
        /// The person asked to stop: darken, release, say `ended(by:)`.
        case quit
    }

    public let outputs: [Output]
    public let buttons: [Button]
    /// Each output's level as last asked for.
    public private(set) var lit: [OutputRole: Bool]
    public private(set) var contacts: [ButtonRole: Contact]
    /// A contact's bounce count when its open window began: the window's own
    /// bounces are the difference at its verdict.
    private var bouncesBefore: [ButtonRole: Int] = [:]
    private var lostSaid = 0

    /// `outputs` in the order their keys go (1, 2, ...: at most nine); `down`
    /// the buttons whose line read pressed when they were requested.
    public init(outputs: [(role: OutputRole, line: String)], buttons: [Button], down: Set<ButtonRole> = [], at now: Double) {
        self.outputs = outputs.prefix(9).enumerated().map { i, o in
            Output(role: o.role, line: o.line, key: Character(String(i + 1)))
        }
        self.buttons = buttons
        // A role named twice (a board file cannot) keeps its first.
        lit = Dictionary(self.outputs.map { ($0.role, false) }, uniquingKeysWith: { a, _ in a })
        contacts = Dictionary(buttons.map {
            ($0.role, Contact(debounce: $0.debounce, down: down.contains($0.role), at: now))
        }, uniquingKeysWith: { a, _ in a })
    }

    // MARK: The lines and the clock

    /// One kernel edge: its line, then whatever the button's rule said.
    public mutating func edge(_ edge: ButtonEdge) -> [Step] {
        guard var c = contacts[edge.button], let button = button(edge.button) else { return [] }
        let before = c.bounces, lateBefore = c.late
        let events = c.edge(pressed: edge.pressed, at: edge.at)
        contacts[edge.button] = c
        let bounce = c.bounces > before
        let what = bounce ? "bounce" : c.confirms ? "opens the \(Self.ms(c.debounce)) window" : "no window (debounce 0 ms)"
        var steps: [Step] = [.say(Self.row(edge.at, button, "edge \(edge.pressed ? "down" : "up"), \(what)"))]
        // A window that ended before this edge is settled first, with its own bounces.
        steps += said(events, of: button, at: edge.at, late: c.late > lateBefore)
        if !bounce { bouncesBefore[edge.button] = c.bounces }
        return steps
    }

    /// The caller's clock: a window's end or a hold's moment asks for a reading.
    public mutating func tick(at now: Double) -> [Step] {
        var steps: [Step] = []
        for b in buttons {
            guard var c = contacts[b.role] else { continue }
            let events: [Contact.Event] = c.asksLevel(at: now) ? [.readLevel] : []
            contacts[b.role] = c
            steps += said(events, of: b, at: now)
        }
        return steps
    }

    /// The line's level, read at `now` because `.readLevel` asked: the verdict.
    public mutating func level(_ role: ButtonRole, pressed: Bool, at now: Double) -> [Step] {
        guard var c = contacts[role], let button = button(role) else { return [] }
        let (settled, held) = c.read(pressed: pressed, at: now)
        let events = [settled, held].compactMap { $0 }
        contacts[role] = c
        return said(events, of: button, at: now)
    }

    /// When `tick` next has something to do, or nil.
    public func nextDeadline() -> Double? {
        contacts.values.compactMap { $0.nextDeadline() }.min()
    }

    /// The kernel's count of dropped edges since the lines were requested:
    /// said when it grows, since a lost edge can hide a press.
    public mutating func lost(total: Int) -> [Step] {
        guard total > lostSaid else { return [] }
        let n = total - lostSaid
        lostSaid = total
        return [.say("the kernel dropped \(n) edge\(n == 1 ? "" : "s") (gaps in its sequence numbers): a press may be missing above")]
    }

    /// What the rule said, in the watcher's words; `.readLevel` passed on.
    /// `late`: the window was never read (the line moved again first), so
    /// its verdict says that, not what the line did.
    private mutating func said(_ events: [Contact.Event], of button: Button, at now: Double, late: Bool = false) -> [Step] {
        var steps: [Step] = []
        let c = contacts[button.role]
        let bounces = (c?.bounces ?? 0) - (bouncesBefore[button.role] ?? 0)
        let within = bounces == 0 ? "no bounce" : "\(bounces) bounce\(bounces == 1 ? "" : "s")"
        for event in events {
            switch event {
            case .readLevel:
                steps.append(.readLevel(button.role))
            case .press(let at):
                let why = c?.confirms == true ? "still down at the window's end, \(within)" : "no window: every edge counts"
                steps.append(.say(Self.row(now, button, "verdict: press at \(Self.stamp(at)) (\(why))")))
            case .noise(let at):
                let why = late
                    ? "\(Self.lateWords): if it was a press, press again"
                    : c?.isDown == true
                    ? "a blip up while held down, back down by the window's end; the press goes on"
                    : "back at rest by the window's end, \(within): a blip, not a press"
                steps.append(.say(Self.row(now, button, "verdict: noise at \(Self.stamp(at)) (\(why))")))
            case .held(let since):
                steps.append(.say(Self.row(now, button, "verdict: held since \(Self.stamp(since)) (down \(Int(Contact.heldAfter)) s: "
                    + "stuck, or a broken normally-closed wire; no press until released)")))
            case .release(let at, let wasHeld):
                let why = switch (late, wasHeld) {
                case (true, true): " (after being held; \(Self.lateWords))"
                case (true, false): " (\(Self.lateWords))"
                case (false, true): " (after being held)"
                case (false, false): ""
                }
                steps.append(.say(Self.row(now, button, "release at \(Self.stamp(at))\(why)")))
            }
        }
        return steps
    }

    private func button(_ role: ButtonRole) -> Button? { buttons.first { $0.role == role } }

    /// Contact.late in words: the body would count the same window late.
    static let lateWords = "read too late to judge (the machine was busy): the line moved again before the window's end was read, so it ends at rest"
}

// MARK: Keys

extension WiringWatch {
    /// One key from a terminal in raw mode: an output's key toggles it, q quits.
    public mutating func key(_ key: Character) -> [Step] {
        // Ctrl-D ends too: in raw mode it is a byte, not the end of the input.
        if key == "q" || key == "Q" || key == "\u{04}" { return [.quit] }
        if key == " " || key == "\n" || key == "\r" || key == "\t" { return [] }
        guard let output = outputs.first(where: { $0.key == key }) else {
            return [.say("no key \(Self.shown(key)): \(keysWords)")]
        }
        return toggle(output)
    }

    /// One line from standard input that is not a terminal: a key, an
    /// output's name, or quit.
    public mutating func line(_ text: String) -> [Step] {
        let t = text.trimmed
        if t.isEmpty { return [] }
        if t.count == 1, let k = t.first { return key(k) }
        if t.lowercased() == "quit" { return [.quit] }
        if let output = outputs.first(where: { $0.role.rawValue == t.lowercased() || $0.line == t }) { return toggle(output) }
        return [.say("no key \"\(t)\": \(keysWords)")]
    }

    /// Every output dark: what an end drives before the lines are let go.
    public mutating func darken() -> [Step] {
        outputs.compactMap { o in
            guard lit[o.role] == true else { return nil }
            lit[o.role] = false
            return .drive(o.role, lit: false)
        }
    }

    private mutating func toggle(_ output: Output) -> [Step] {
        let now = !(lit[output.role] ?? false)
        lit[output.role] = now
        return [.drive(output.role, lit: now),
                .say("key \(output.key): \(output.role.rawValue) (\(output.line)) \(now ? "lit" : "dark")")]
    }

    /// "1 lamp, 2 armed-led; q quits".
    public var keysWords: String {
        (outputs.map { "\($0.key) \($0.role.rawValue)" } + ["q quits"]).joined(separator: ", ")
    }

    /// What a terminal in raw mode read at once: each character a key, and
    /// an escape sequence (an arrow, a function key) one unknown key.
    public mutating func keys(_ bytes: [UInt8]) -> [Step] {
        if bytes.first == 0x1b { return [.say("no key for that escape sequence: \(keysWords)")] }
        return String(decoding: bytes, as: UTF8.self).flatMap { key($0) }
    }

    private static func shown(_ key: Character) -> String {
        guard let v = key.asciiValue, v < 32 || v == 127 else { return "\"\(key)\"" }
        return "0x\(String(v, radix: 16))"
    }
}

// MARK: Words

extension WiringWatch {
    /// What the person sees first: each output with its key, each button with
    /// its level now and its window, and how to stop.
    public var legend: [String] {
        var lines = ["outputs (a key lights one, the same key darkens it):"]
        for o in outputs {
            lines.append("  \(o.key)  \(Self.padded(o.role.rawValue, 9)) \(Self.padded(o.line, 8)) \(lit[o.role] == true ? "lit" : "dark")")
        }
        lines.append("buttons (each edge with its kernel time in seconds; the verdict is the line read at the window's end, not an edge's direction):")
        for b in buttons {
            let c = contacts[b.role]
            let level = c?.isDown == true ? "down now (held at the start: it will not press until released)" : "up now"
            let window = (c?.confirms ?? true) ? "window \(Self.ms(b.debounce))" : "no window (debounce 0 ms)"
            lines.append("     \(Self.padded(b.role.rawValue, 9)) \(Self.padded(b.line, 8)) \(level), \(window)")
        }
        lines.append("keys: \(keysWords) (Ctrl-C too); at the end every output is dark and every line let go")
        return lines
    }

    /// Another holder of the lines (the service, most likely), in words.
    public static func inUse(_ detail: String) -> String {
        "\(detail)\nthe lines are in use: stop the service first: sudo systemctl stop studio-body"
    }

    /// The last line: how it ended and what was left.
    public static func ended(by reason: String) -> String {
        "\(reason): every output dark, every line released"
    }

    /// One event's line: time, button, line, what happened.
    static func row(_ at: Double, _ button: Button, _ what: String) -> String {
        "\(padded(stamp(at), 16, left: true))  \(padded(button.role.rawValue, 7)) \(padded(button.line, 8)) \(what)"
    }

    /// Monotonic seconds to the microsecond, as the kernel's edge timestamps go.
    static func stamp(_ seconds: Double) -> String {
        let us = Int64((seconds * 1e6).rounded())
        let frac = String(abs(us) % 1_000_000)
        return "\(us < 0 ? "-" : "")\(abs(us) / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)"
    }

    /// "10 ms", "2.5 ms".
    static func ms(_ seconds: Double) -> String {
        let tenths = (seconds * 10_000).rounded()
        let whole = Int64(tenths) / 10
        return Int64(tenths) % 10 == 0 ? "\(whole) ms" : "\(whole).\(Int64(tenths) % 10) ms"
    }

    static func padded(_ s: String, _ width: Int, left: Bool = false) -> String {
        let pad = String(repeating: " ", count: max(0, width - s.count))
        return left ? pad + s : s + pad
    }
}
