/// Output patterns (DESIGN 2) as pure functions of time: a pattern is lit
/// during some windows of a repeating period, measured from when it began.
public struct Pattern: Equatable, Sendable {
    public var period: Double
    /// The lit windows held in place, at most two (no array to retain and
    /// release: the indicators are made several times a turn).
    private var windows: InlineArray<2, (Double, Double)>
    private var windowCount: Int

    /// Lit windows `[start, end)` within one period (at most two).
    public var lit: [(Double, Double)] {
        get { (0..<windowCount).map { windows[$0] } }
        set { self = Pattern(period: period, lit: newValue) }
    }

    public init(period: Double, lit: [(Double, Double)]) {
        precondition(lit.count <= 2, "a pattern has at most two lit windows")
        self.period = period
        windows = InlineArray(repeating: (0, 0))
        windowCount = lit.count
        for (i, w) in lit.enumerated() { windows[i] = w }
    }

    /// Each lit window in order, with no array made (the page's events).
    public func forEachLit(_ body: (Double, Double) -> Void) {
        for i in 0..<windowCount { body(windows[i].0, windows[i].1) }
    }

    public static func == (a: Pattern, b: Pattern) -> Bool {
        guard a.period == b.period, a.windowCount == b.windowCount else { return false }
        for i in 0..<a.windowCount where a.windows[i] != b.windows[i] { return false }
        return true
    }

    public static let steady = Pattern(period: 1, lit: [(0, 1)])
    public static let dark = Pattern(period: 1, lit: [])
    /// Unread: a 0.2 s flash every 2 s.
    public static let unread = Pattern(period: 2, lit: [(0, 0.2)])
    /// Asking: blinking 4 Hz.
    public static let asking = Pattern(period: 0.25, lit: [(0, 0.125)])
    /// A problem being shown: a double flash every 1 s.
    public static let problem = Pattern(period: 1, lit: [(0, 0.1), (0.2, 0.3)])
    /// The house closing every eye: the eye LED blinks 2 Hz.
    public static let closing = Pattern(period: 0.5, lit: [(0, 0.25)])

    public func level(at now: Double, since start: Double) -> Bool {
        let t = phase(now, start)
        for i in 0..<windowCount where t >= windows[i].0 && t < windows[i].1 { return true }
        return false
    }

    /// Whether the level never changes.
    public var isSteady: Bool {
        windowCount == 0 || (windowCount == 1 && windows[0].0 <= 0 && windows[0].1 >= period)
    }

    /// The next time after `now` at which the level may change; nil for steady levels.
    public func nextChange(after now: Double, since start: Double) -> Double? {
        guard !isSteady else { return nil }
        if now < start { return start }
        let t = phase(now, start)
        // The nearest window edge ahead in this period, with no array made.
        var edge = period
        for i in 0..<windowCount {
            let (start, end) = windows[i]
            if start > t + 1e-9, start < edge { edge = start }
            if end > t + 1e-9, end < edge { edge = end }
        }
        return now - t + edge
    }

    private func phase(_ now: Double, _ start: Double) -> Double {
        let d = max(0, now - start)
        return d - (d / period).rounded(.down) * period
    }
}

/// What the unread state does to a lamp (`unread = blink | dark | lit` in the board file).
public enum UnreadLamp: String, Equatable, Sendable {
    case blink, dark, lit
}

/// What the lamp's line drives (`[lamp] drives = …` in the board file), so the
/// patterns know whether a switching costs anything.
public enum LampDrive: String, CaseIterable, Equatable, Sendable {
    /// An LED on the pin, a transistor or MOSFET, a solid-state relay: switching wears nothing.
    case led, mosfet, ssr
    /// Contacts that close and open: each switching wears them (a typical relay
    /// module is rated for about 10^5 switchings under load).
    case relay, contactor

    /// Whether each switching wears contacts: then the lamp never blinks.
    public var hasContacts: Bool { self == .relay || self == .contactor }

    /// The part, in words (`studio-body check`, the parser's refusals).
    public var words: String {
        switch self {
        case .led: "an LED"
        case .mosfet: "a MOSFET"
        case .ssr: "a solid-state relay"
        case .relay: "a relay"
        case .contactor: "a contactor"
        }
    }

    /// What the lamp does while unread behind this part, in words.
    public func unreadWords(_ unread: UnreadLamp) -> String {
        switch LampRule(drives: self, unread: unread).unreadLamp {
        case .blink: "the lamp blinks while unread"
        case .dark: "the lamp is dark while unread, the armed LED blinks"
        case .lit: "the lamp is lit while unread, the armed LED blinks"
        }
    }
}

/// The lamp's rule (DESIGN 2): what the lamp shows while unread and
/// whether the armed LED says unread instead. A lamp behind contacts is held
/// steady whatever the board file's `unread` says (the parser refuses `blink`
/// there; a value made in code is held dark), so only a change of what Oriel
/// says switches it: a pattern never does.
public struct LampRule: Equatable, Sendable {
    public var drives: LampDrive
    public var unread: UnreadLamp

    public init(drives: LampDrive, unread: UnreadLamp) {
        self.drives = drives
        self.unread = unread
    }

    /// What the lamp does while unread.
    public var unreadLamp: UnreadLamp {
        drives.hasContacts && unread == .blink ? .dark : unread
    }

    /// Whether the lamp itself blinks while unread; when it does not, the
    /// armed LED carries the unread pattern, so unread is never shown as off.
    public var lampBlinksUnread: Bool { unreadLamp == .blink }
}

/// Which pattern each output role is driving, and since when.
public struct Indicators: Equatable, Sendable {
    public var lamp: (Pattern, Double)
    public var armedLED: (Pattern, Double)
    public var eyeLED: (Pattern, Double)

    public static func == (a: Indicators, b: Indicators) -> Bool {
        a.lamp == b.lamp && a.armedLED == b.armedLED && a.eyeLED == b.eyeLED
    }

    public func pattern(_ role: OutputRole) -> (Pattern, Double) {
        switch role {
        case .lamp: lamp
        case .armedLED: armedLED
        case .eyeLED: eyeLED
        }
    }

    public func level(_ role: OutputRole, at now: Double) -> Bool {
        let (p, since) = pattern(role)
        return p.level(at: now, since: since)
    }

    public func levels(at now: Double) -> [OutputRole: Bool] {
        Dictionary(uniqueKeysWithValues: OutputRole.allCases.map { ($0, level($0, at: now)) })
    }

    /// The next time any level changes.
    public func nextChange(after now: Double) -> Double? {
        // Role by role, no array: this runs at every turn of the loop.
        var next: Double?
        func consider(_ pattern: (Pattern, Double)) {
            if let t = pattern.0.nextChange(after: now, since: pattern.1), t < next ?? .infinity { next = t }
        }
        consider(lamp)
        consider(armedLED)
        consider(eyeLED)
        return next
    }
}
