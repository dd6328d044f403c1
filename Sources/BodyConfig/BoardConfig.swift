import BodyCore

/// A board file (DESIGN 8): which line each role is on and how it is wired.
public struct BoardConfig: Equatable, Sendable {
    public enum Bias: String, Equatable, Sendable {
        case asIs = "as-is", pullUp = "pull-up", pullDown = "pull-down", disabled
    }

    public struct Output: Equatable, Sendable {
        public var line: String
        public var activeLow: Bool
    }

    public struct Button: Equatable, Sendable {
        public var line: String
        public var activeLow: Bool
        public var bias: Bias
        public var debounce: Double
    }

    public var file: String
    /// `[board] kind = sim`: the roles are simulated (on a laptop, in tests);
    /// the board file still sets `action` and `unread`.
    public var simulated: Bool
    public var outputs: [OutputRole: Output]
    public var buttons: [ButtonRole: Button]
    public var unreadLamp: UnreadLamp
    public var onAirAction: OnAirSwitch.Action

    /// The house's default (DESIGN 3): contact bounce is filtered for 10 ms.
    public static let defaultDebounce = 0.010

    /// The simulated board: every role present.
    public static let sim = BoardConfig(
        file: "sim", simulated: true,
        outputs: Dictionary(uniqueKeysWithValues: OutputRole.allCases.map { ($0, Output(line: "sim-\($0.rawValue)", activeLow: false)) }),
        buttons: Dictionary(uniqueKeysWithValues: ButtonRole.allCases.map {
            ($0, Button(line: "sim-\($0.rawValue)", activeLow: true, bias: .pullUp, debounce: defaultDebounce))
        }),
        unreadLamp: .blink, onAirAction: .toggle)

    public static func parse(_ text: String, file: String) throws(ConfigError) -> BoardConfig {
        let ini = try INI.parse(text, file: file)
        var outputs: [OutputRole: Output] = [:]
        var buttons: [ButtonRole: Button] = [:]
        var unread = UnreadLamp.blink
        var action = OnAirSwitch.Action.toggle
        var simulated = false
        for s in ini.sections {
            if s.name == "board" {
                let r = SectionReader(ini, s.name, keys: ["kind"])
                try r.checkKeys()
                if let e = r.entry("kind") {
                    guard ["gpio", "sim"].contains(e.value) else { throw r.fail(e, "expected gpio or sim, found \(e.value)") }
                    simulated = e.value == "sim"
                }
            } else if let role = OutputRole(rawValue: s.name) {
                var keys: Set<String> = ["line", "active"]
                if role == .lamp { keys.insert("unread") }
                let r = SectionReader(ini, s.name, keys: keys)
                try r.checkKeys()
                outputs[role] = Output(line: try line(r, s), activeLow: try activeLow(r, default: false))
                if role == .lamp { unread = try r.choice("unread", default: UnreadLamp.blink) }
            } else if s.name.hasPrefix("button "), let role = ButtonRole(rawValue: String(s.name.dropFirst(7))) {
                var keys: Set<String> = ["line", "active", "bias", "debounce"]
                if role == .onair { keys.insert("action") }
                let r = SectionReader(ini, s.name, keys: keys)
                try r.checkKeys()
                buttons[role] = Button(line: try line(r, s), activeLow: try activeLow(r, default: true),
                                       bias: try r.choice("bias", default: Bias.pullUp),
                                       debounce: try r.duration("debounce", default: defaultDebounce))
                if role == .onair { action = try r.choice("action", default: OnAirSwitch.Action.toggle) }
            } else {
                let known = ["[board]"] + OutputRole.allCases.map { "[\($0.rawValue)]" } + ButtonRole.allCases.map { "[button \($0.rawValue)]" }
                throw ConfigError(file: file, line: s.line, "unknown section [\(s.name)]; known: \(known.joined(separator: " "))")
            }
        }
        for required in [OutputRole.lamp, .armedLED] where outputs[required] == nil {
            throw ConfigError(file: file, line: nil, "the board has no [\(required.rawValue)] section: the \(required == .lamp ? "On Air lamp" : "armed LED") is required")
        }
        guard buttons[.onair] != nil else {
            throw ConfigError(file: file, line: nil, "the board has no [button onair] section: the On Air button is required")
        }
        var seen: [String: String] = [:]
        for (role, l) in outputs.map({ ($0.key.rawValue, $0.value.line) }) + buttons.map({ ("button \($0.key.rawValue)", $0.value.line) }) {
            if let other = seen[l] {
                throw ConfigError(file: file, line: nil, "line \(l) is used twice: by [\(other)] and [\(role)]")
            }
            seen[l] = role
        }
        return BoardConfig(file: file, simulated: simulated, outputs: outputs, buttons: buttons, unreadLamp: unread, onAirAction: action)
    }

    static func line(_ r: SectionReader, _ s: INI.Section) throws(ConfigError) -> String {
        guard let l = r.string("line") else {
            throw ConfigError(file: r.ini.file, line: s.line, "[\(s.name)] has no line = NAME (the name gpioinfo prints, e.g. GPIO17)")
        }
        return l
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
