/// When Oriel was last heard from. Its polls of `/ears` are its heartbeat;
/// when neither a push nor a poll comes for `silence`, On Air becomes unread.
public struct OrielContact: Equatable, Sendable {
    /// The configured silence (`oriel.silence`, default 60 s).
    public var silence: Double
    public private(set) var lastPush: Moment?
    public private(set) var lastPoll: Moment?
    /// Whether the body has already said the silence (so it says it once).
    public private(set) var silent: Bool = true
    private var startedAt: Double

    public init(silence: Double = 60, startedAt: Double) {
        self.silence = silence
        self.startedAt = startedAt
    }

    private var lastHeard: Double {
        max(lastPush?.mono ?? startedAt, lastPoll?.mono ?? startedAt)
    }

    public mutating func pushed(at now: Moment) {
        lastPush = now
        silent = false
    }

    /// A poll is a heartbeat too: Oriel is not silent while it polls, and the
    /// next silence is said again (with a hello). The state stays unread
    /// until Oriel pushes one.
    public mutating func polled(at now: Moment) {
        lastPoll = now
        silent = false
    }

    /// Whether a silence begins at `now`: true once per silence, so the caller
    /// makes the state unread and says hello again.
    public mutating func silenceBegins(at now: Moment) -> Bool {
        guard !silent, now.mono - lastHeard >= silence else { return false }
        silent = true
        return true
    }

    /// The words of the unread state a silence leaves.
    public var words: String { "Oriel has not been heard from in \(Self.seconds(silence)) s" }

    public var due: Double? { silent ? nil : lastHeard + silence }

    static func seconds(_ s: Double) -> String {
        s == s.rounded() ? String(Int(s)) : String(s)
    }
}

/// The hello's retry schedule (DESIGN 5): 1 s doubling to 60 s, with jitter.
public struct HelloBackoff: Equatable, Sendable {
    public static let first: Double = 1
    public static let longest: Double = 60

    public private(set) var failures = 0
    public init() {}

    /// The delay before the next try after a failure: 1, 2, 4 … 60 s, each
    /// up to a quarter longer by `jitter` in 0..<1 (the caller's randomness),
    /// never past 60 s.
    public mutating func failed(jitter: Double) -> Double {
        let step = min(Self.longest, Self.first * Double(1 << min(failures, 10)))
        failures += 1
        return min(Self.longest, step * (1 + 0.25 * max(0, min(1, jitter))))
    }

    public mutating func succeeded() { failures = 0 }
}
