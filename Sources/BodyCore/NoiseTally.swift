/// Blips on one button's line, said without flooding the journal:
/// the first blip after a quiet minute is said at once, the rest of that
/// minute in one line at its end, and so on while the blips go on. A wire
/// that blips more than `faultPerMinute` times a minute is a wiring fault,
/// said as one. Plain value, the caller's clock.
public struct NoiseTally: Equatable, Sendable {
    public static let minute: Double = 60
    /// More blips than this in a minute is no stray spike but a wire fault.
    public static let faultPerMinute = 100

    /// Every blip since the body started, for `/status` and `/metrics`.
    public private(set) var total: UInt64 = 0
    /// The minute being counted (nil while the line is quiet).
    private var minuteEnds: Double?
    /// Blips in that minute, and how many of them were said already.
    private var inMinute = 0
    private var saidInMinute = 0

    public init() {}

    /// One blip at `now`: the words to log at once, if any.
    public mutating func blip(_ button: ButtonRole, at now: Double) -> (String, LogLevel)? {
        total += 1
        inMinute += 1
        if minuteEnds != nil { return nil }
        minuteEnds = now + Self.minute
        saidInMinute = 1
        return ("button \(button.rawValue): a blip on the line, not held: noise, not a press", .info)
    }

    /// The minute's end: its blips in one line, if any came after the one
    /// said at once. A minute with none unsaid closes the tally; the next
    /// blip is said at once again.
    public mutating func tick(_ button: ButtonRole, at now: Double) -> (String, LogLevel)? {
        guard let end = minuteEnds, now >= end else { return nil }
        let n = inMinute
        let unsaid = n - saidInMinute
        inMinute = 0
        saidInMinute = 0
        minuteEnds = unsaid > 0 ? now + Self.minute : nil
        guard unsaid > 0 else { return nil }
        let name = button.rawValue
        if n > Self.faultPerMinute {
            return ("button \(name): \(n) blips on the line in the last minute, none held: a wiring fault, not presses "
                + "(a long unshielded cable beside a switched load, a missing pull-up, or a floating line)", .warning)
        }
        return ("button \(name): \(n) \(n == 1 ? "blip" : "blips") on the line in the last minute, none held: noise, not presses", .info)
    }

    public var nextDue: Double? { minuteEnds }
}
