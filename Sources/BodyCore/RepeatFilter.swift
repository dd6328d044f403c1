/// The one "say it once until it changes" of the body (ustreamer's
/// `US_ONCE_FOR`): a repeating line goes to the journal once, not once a
/// turn, a ping or a socket. A plain value on the caller's clock; it returns
/// the words to log (or nil), the caller logs them.
///
/// Two uses, one rule. Without a subject, each `key` is its own subject: a
/// line is said once, its repeats within `window` seconds are counted, and
/// the next one after the window says the count ("a flood of hostile
/// connections is a few lines, not one per socket"). With a `subject` (the
/// notify socket, the board, gpsd), the subject has one fault at a time: a
/// fault is said when it differs from the one said last, and `clear` ends it,
/// so the next fault is said again however alike.
public struct RepeatFilter: Sendable, Equatable {
    public var window: Double
    private struct Said: Sendable, Equatable {
        var key: String
        var since: Double
        var more: Int
    }
    private var seen: [String: Said] = [:]
    private static let bound = 64

    /// `window`: how long a repeat stays unsaid (the default: until it changes).
    public init(window: Double = .infinity) { self.window = window }

    /// The words to log now, or nil for a repeat. `key` says which lines are
    /// the same (by default the words themselves): a line whose words a client
    /// chooses (a path) or that change each time (a garbled line's start)
    /// needs a key that does not, or every line is new.
    public mutating func say(_ text: String, key: String? = nil, about subject: String? = nil, at now: Double) -> String? {
        let key = key ?? text
        let subject = subject ?? key
        let last = seen[subject]
        if let last, last.key == key, now - last.since < window {
            seen[subject] = Said(key: key, since: last.since, more: last.more + 1)
            return nil
        }
        if last == nil { makeRoom(at: now) }
        seen[subject] = Said(key: key, since: now, more: 0)
        guard let last, last.key == key, last.more > 0 else { return text }
        return "\(text) (and \(last.more) more like it since the last time it was said)"
    }

    /// `say(_:key:about:at:)` for a filter with no window, where time plays no part.
    public mutating func say(_ text: String, key: String? = nil, about subject: String) -> String? {
        precondition(window == .infinity, "a filter with a window needs the time")
        return say(text, key: key, about: subject, at: 0)
    }

    /// The subject's fault ended: its next one is said, even if the same.
    /// True when a fault of it had been said (then the caller may say it ended).
    @discardableResult
    public mutating func clear(_ subject: String) -> Bool {
        seen.removeValue(forKey: subject) != nil
    }

    /// Subjects and keys remembered now (at most 64, however many come).
    public var remembered: Int { seen.count }

    /// Forgets what the window let go of; still full of fresh ones, the oldest.
    private mutating func makeRoom(at now: Double) {
        guard seen.count >= Self.bound else { return }
        seen = seen.filter { now - $0.value.since < window }
        if seen.count >= Self.bound, let oldest = seen.min(by: { $0.value.since < $1.value.since }) {
            seen.removeValue(forKey: oldest.key)
        }
    }
}
