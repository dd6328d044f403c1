import BodyCore

/// A board file (DESIGN 8): which line each role is on and how it is wired,
/// in the shape the real board requests (`LineWiring`).
public struct BoardConfig: Equatable, Sendable {
    public var file: String
    /// `[board] kind = sim`: the roles are simulated (on a laptop, in tests);
    /// the board file still sets `action` and `unread`.
    public var simulated: Bool
    /// Outputs' `bias` and `debounce` are unused: only buttons have them.
    public var outputs: [OutputRole: LineWiring]
    public var buttons: [ButtonRole: LineWiring]
    public var unreadLamp: UnreadLamp
    /// `[lamp] drives`: what the lamp's line switches.
    public var lampDrives: LampDrive = .led
    public var onAirAction: OnAirSwitch.Action

    /// Contact bounce lasts milliseconds, not seconds: a longer window is a slip, refused.
    public static let debounceRange: ClosedRange<Double> = 0...0.100

    /// The simulated board: every role present.
    public static let sim = BoardConfig(
        file: "sim", simulated: true,
        outputs: Dictionary(uniqueKeysWithValues: OutputRole.allCases.map { ($0, LineWiring(name: "sim-\($0.rawValue)")) }),
        buttons: Dictionary(uniqueKeysWithValues: ButtonRole.allCases.map {
            ($0, LineWiring(name: "sim-\($0.rawValue)", activeLow: true, bias: .pullUp))
        }),
        unreadLamp: .blink, onAirAction: .toggle)

    /// Every role's section and wiring, outputs then buttons, each in role order:
    /// what `studio-body check` lists and where a line used twice is found.
    public var lines: [(section: String, wiring: LineWiring, isButton: Bool)] {
        outputs.sorted { $0.key < $1.key }.map { ($0.key.rawValue, $0.value, false) }
            + buttons.sorted { $0.key < $1.key }.map { ("button \($0.key.rawValue)", $0.value, true) }
    }

    public static func parse(_ text: String, file: String) throws(ConfigError) -> BoardConfig {
        let ini = try INI.parse(text, file: file)
        var board = BoardConfig(file: file, simulated: false, outputs: [:], buttons: [:], unreadLamp: .blink, onAirAction: .toggle)
        for s in ini.sections {
            if s.name == "board" {
                let r = SectionReader(ini, s.name, keys: ["kind"])
                try r.checkKeys()
                if let e = r.entry("kind") {
                    guard ["gpio", "sim"].contains(e.value) else { throw r.fail(e, "expected gpio or sim, found \(e.value)") }
                    board.simulated = e.value == "sim"
                }
            } else if let role = OutputRole(rawValue: s.name) {
                var keys: Set<String> = ["line", "active"]
                if role == .lamp { keys.formUnion(["unread", "drives"]) }
                let r = SectionReader(ini, s.name, keys: keys)
                try r.checkKeys()
                board.outputs[role] = LineWiring(name: try line(r, s), activeLow: try activeLow(r, default: false))
                if role == .lamp { (board.lampDrives, board.unreadLamp) = try lamp(r) }
            } else if s.name.hasPrefix("button "), let role = ButtonRole(rawValue: String(s.name.dropFirst(7))) {
                var keys: Set<String> = ["line", "active", "bias", "debounce"]
                if role == .onair { keys.insert("action") }
                let r = SectionReader(ini, s.name, keys: keys)
                try r.checkKeys()
                board.buttons[role] = LineWiring(
                    name: try line(r, s), activeLow: try activeLow(r, default: true),
                    bias: try r.choice("bias", default: Bias.pullUp),
                    debounce: try r.duration("debounce", default: Contact.defaultDebounce, in: debounceRange))
                if role == .onair { board.onAirAction = try r.choice("action", default: OnAirSwitch.Action.toggle) }
            } else {
                let known = ["[board]"] + OutputRole.allCases.map { "[\($0.rawValue)]" } + ButtonRole.allCases.map { "[button \($0.rawValue)]" }
                throw ConfigError(file: file, line: s.line, "unknown section [\(s.name)]; known: \(known.joined(separator: " "))")
            }
        }
        for required in [OutputRole.lamp, .armedLED] where board.outputs[required] == nil {
            throw ConfigError(file: file, line: nil, "the board has no [\(required.rawValue)] section: the \(required == .lamp ? "On Air lamp" : "armed LED") is required")
        }
        guard board.buttons[.onair] != nil else {
            throw ConfigError(file: file, line: nil, "the board has no [button onair] section: the On Air button is required")
        }
        var seen: [String: String] = [:]
        for (section, wiring, _) in board.lines {
            if let other = seen[wiring.name] {
                throw ConfigError(file: file, line: nil, "line \(wiring.name) is used twice: by [\(other)] and [\(section)]")
            }
            seen[wiring.name] = section
        }
        return board
    }

    static func line(_ r: SectionReader, _ s: INI.Section) throws(ConfigError) -> String {
        guard let l = r.string("line") else {
            throw ConfigError(file: r.ini.file, line: s.line, "[\(s.name)] has no line = NAME (the name gpioinfo prints, e.g. GPIO17)")
        }
        return l
    }

    /// `[lamp] drives` and `unread`: a lamp behind contacts never blinks, and
    /// is dark while unread unless the file says `lit`.
    static func lamp(_ r: SectionReader) throws(ConfigError) -> (LampDrive, UnreadLamp) {
        var drives = LampDrive.led
        if let e = r.entry("drives") {
            guard let d = LampDrive(rawValue: e.value.lowercased()) else {
                throw r.fail(e, "expected what the lamp's line drives: \(LampDrive.allCases.map(\.rawValue).joined(separator: ", ")), found \(e.value)")
            }
            drives = d
        }
        guard let e = r.entry("unread") else { return (drives, drives.hasContacts ? .dark : .blink) }
        guard let unread = UnreadLamp(rawValue: e.value.lowercased()) else {
            throw r.fail(e, "expected blink, dark or lit, found \(e.value)")
        }
        if unread == .blink && drives.hasContacts {
            throw r.fail(e, "blink is refused for a lamp that drives \(drives.words): it would switch its contacts 43,200 times a day while Oriel is silent (a relay module lasts about 100,000); say dark or lit, and the armed LED shows unread")
        }
        return (drives, unread)
    }

    static func activeLow(_ r: SectionReader, default d: Bool) throws(ConfigError) -> Bool {
        guard let e = r.entry("active") else { return d }
        switch e.value.lowercased() {
        case "high": return false
        case "low": return true
        default: throw r.fail(e, "expected high or low, found \(e.value)")
        }
    }
}
