/// What the body counts for `GET /metrics`: a plain value the agent keeps
/// beside `Body` and feeds from the actions the core returns and from its own
/// events (a push taken, a poll, a hello's outcome, an answer sent). Durations
/// are from the caller's clock; nothing here reads one.
public struct Metrics: Sendable {
    /// A hello's outcome: Oriel answered it, or it failed (and is retried).
    public enum Hello: String, CaseIterable, Sendable {
        case answered, failed
    }

    /// A press by what it did: armed its control, asked Oriel, found a
    /// request already out (waiting), or was refused with words.
    public enum Pressed: String, CaseIterable, Sendable {
        case armed, asked, waiting, refused

        /// Its place in a button's counts (`allCases` order).
        var slot: Int {
            switch self {
            case .armed: 0
            case .asked: 1
            case .waiting: 2
            case .refused: 3
            }
        }

        public init(_ outcome: PressOutcome) {
            switch outcome {
            case .armed: self = .armed
            case .asked: self = .asked
            case .waiting: self = .waiting
            case .refused: self = .refused
            }
        }
    }

    public struct PressKey: Hashable, Sendable {
        public var button: ButtonRole
        public var outcome: Pressed
    }

    /// At most this many asked requests remembered for `pressToTaken`; a
    /// request that is never taken nor runs out cannot grow the map past it.
    static let askedKept = 2 * Outbox.capacity

    public private(set) var pushes: UInt64 = 0
    public private(set) var polls: UInt64 = 0
    /// Presses by button, then by `Pressed.slot`: a table, not a dictionary
    /// keyed by both, so a press hashes nothing.
    private var pressCounts = RoleTable<ButtonRole, InlineArray<4, UInt64>>()

    /// Presses by button and outcome; only those counted at least once.
    public var presses: [PressKey: UInt64] {
        var all: [PressKey: UInt64] = [:]
        for button in ButtonRole.allCases {
            for outcome in Pressed.allCases where pressCount(button, outcome) > 0 {
                all[PressKey(button: button, outcome: outcome)] = pressCount(button, outcome)
            }
        }
        return all
    }

    /// The presses of `button` that did `outcome`.
    func pressCount(_ button: ButtonRole, _ outcome: Pressed) -> UInt64 {
        pressCounts[button]?[outcome.slot] ?? 0
    }
    /// Requests whose wait ran out before Oriel's word came.
    public private(set) var unanswered: UInt64 = 0
    /// Of those, the ones still in the outbox, withdrawn before Oriel took them.
    public private(set) var withdrawn: UInt64 = 0
    public private(set) var lostEdges: UInt64 = 0
    /// Blips on each button's line that were no press.
    public private(set) var noise: [ButtonRole: UInt64] = [:]
    public private(set) var hellos: [Hello: UInt64] = [:]
    /// Answers sent, by HTTP status: 200s, nearly every answer, counted in a
    /// field of their own (not a hash into the dictionary at every answer).
    private var answered200: UInt64 = 0
    private var answeredOther: [Int: UInt64] = [:]

    /// Answers sent, by HTTP status.
    public var answers: [Int: UInt64] {
        var all = answeredOther
        if answered200 > 0 { all[200] = answered200 }
        return all
    }

    /// The least status answered above `code` (any, for nil), for `/metrics` in order.
    func answerCode(after code: Int?) -> Int? {
        let floor = code ?? Int.min
        var least = answeredOther.keys.lazy.filter { $0 > floor }.min()
        if answered200 > 0, floor < 200, 200 < least ?? Int.max { least = 200 }
        return least
    }

    /// Answers sent with this status.
    func answerCount(_ code: Int) -> UInt64 { code == 200 ? answered200 : answeredOther[code] ?? 0 }

    /// From a push's arrival to the lines driven from it.
    public private(set) var pushToLines = Histogram(bounds: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1])
    /// From a press (its edge) to the poll that first carried its item to Oriel.
    public private(set) var pressToTaken = Histogram(bounds: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20])
    /// From a `GET /where` to its answer (a fix, a refusal, or its wait run out).
    public private(set) var whereAnswer = Histogram(bounds: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30])

    /// Asked requests not yet taken: id and the press's time, oldest first.
    private var asked: [(id: String, at: Double)] = []

    public init() {}

    /// What an action of the core tells the counters; most tell nothing.
    public mutating func count(_ action: BodyAction) {
        switch action {
        case .pressed(let button, let outcome, let at):
            var counts = pressCounts[button] ?? InlineArray(repeating: 0)
            counts[Pressed(outcome).slot] += 1
            pressCounts[button] = counts
            if case .asked(let request) = outcome {
                asked.append((request.id, at))
                if asked.count > Self.askedKept { asked.removeFirst(asked.count - Self.askedKept) }
            }
        case .unanswered(let id, let wasWithdrawn):
            unanswered += 1
            if wasWithdrawn { withdrawn += 1 }
            asked.removeAll { $0.id == id }
        case .noise(let button, _):
            noise[button, default: 0] += 1
        case .wakePolls, .sayHello, .log, .preview, .readLevel:
            break
        }
    }

    /// A push was taken at `arrived`, and the lines were driven from it at `driven`.
    public mutating func pushed(arrived: Double, driven: Double) {
        pushes += 1
        pushToLines.observe(driven - arrived)
    }

    /// One `GET /ears`, whether it is answered at once or waits.
    public mutating func polled() { polls += 1 }

    /// A poll carried these items at `now`: each asked request's first carrying ends its wait here.
    public mutating func taken(_ items: [OutboxItem], at now: Double) {
        for item in items {
            guard let i = asked.firstIndex(where: { $0.id == item.request.id }) else { continue }
            pressToTaken.observe(now - asked[i].at)
            asked.remove(at: i)
        }
    }

    public mutating func lost(edges: Int) {
        if edges > 0 { lostEdges += UInt64(edges) }
    }

    public mutating func hello(_ outcome: Hello) { hellos[outcome, default: 0] += 1 }

    public mutating func answered(status: Int) {
        if status == 200 { answered200 += 1 } else { answeredOther[status, default: 0] += 1 }
    }

    public mutating func whereAnswered(asked: Double, answered: Double) {
        whereAnswer.observe(answered - asked)
    }
}
