/// A request a control has out: what it asked, when, and how long Oriel has.
public struct Ask: Equatable, Sendable {
    public var id: String
    public var at: Moment
    /// How long the world has to show the asked-for state.
    public var wait: Double
    /// What the body says when the wait runs out ("Oriel did not end On Air within 15 s").
    public var silence: String
    /// What the body says to a press while this is out.
    public var waitingFor: String

    public var due: Double { at.mono + wait }
}

/// Words shown on the armed LED's double flash and in `/status` for 12 s.
public struct Problem: Equatable, Sendable {
    public var words: String
    public var since: Double
    public var until: Double { since + House.problemShownFor }

    public init(words: String, since: Double) {
        self.words = words
        self.since = since
    }
}

/// The asking half of a control (DESIGN rule 5), shared by every control that
/// asks: a request out until the world shows it, an error comes back, or the wait runs out.
public struct Asking: Equatable, Sendable {
    public private(set) var out: Ask?
    public private(set) var problem: Problem?

    public init() {}

    /// Whether a request is out. A pattern, not `out != nil`: that would compare two
    /// optional asks, a copy and a release of one, five times a push.
    public var isOut: Bool {
        if case .some = out { true } else { false }
    }

    public mutating func begin(_ ask: Ask) {
        out = ask
    }

    /// The world showed what was asked: the request is done.
    public mutating func settle() { out = nil }

    /// An `answered` carrying an error for this request settles it and shows the error.
    /// Says whether it was about this request.
    @discardableResult
    public mutating func answered(_ answer: Answered?, at now: Moment) -> Bool {
        // The id read in place: `let out` would copy the whole ask, at every push.
        guard let answer, out?.id == answer.id else { return false }
        if let error = answer.error {
            self.out = nil
            show(error, at: now)
        }
        return true
    }

    public mutating func show(_ words: String, at now: Moment) {
        problem = Problem(words: words, since: now.mono)
    }

    /// Ends a request whose wait ran out, saying the silence in words, and
    /// drops a problem whose 12 s are over. Returns the id of a request that
    /// ran out, for the outbox to withdraw (rule 6).
    public mutating func expire(at now: Moment) -> String? {
        // Times read in place; the ask copied out only when it ran out (this runs at every turn).
        if let until = problem?.until, now.mono >= until { problem = nil }
        guard let due = out?.due, now.mono >= due, let out else { return nil }
        self.out = nil
        show(out.silence, at: now)
        return out.id
    }

    public func problemWords(at now: Moment) -> String? {
        guard let until = problem?.until, now.mono < until else { return nil }
        return problem?.words
    }

    /// The next time this needs the clock.
    public var nextDue: Double? {
        // No array: asked at every turn while a request is out.
        switch (out?.due, problem?.until) {
        case let (a?, b?): min(a, b)
        case let (a, b): a ?? b
        }
    }
}

/// A request a confirmed press makes, as Oriel reads it from `/ears`.
public struct Request: Equatable, Sendable {
    public var kind: String
    public var id: String
    /// Everything else the item says (`on`, `stage`, `by`, ...).
    public var fields: [String: JSON]

    public init(kind: String, id: String, fields: [String: JSON]) {
        self.kind = kind
        self.id = id
        self.fields = fields
    }
}

/// What a press did, for the log and the sim page.
public enum PressOutcome: Equatable, Sendable {
    /// The press armed its control; the second press will fire.
    case armed
    /// The press confirmed and queued this request.
    case asked(Request)
    /// A request is already out; says what it waits for.
    case waiting(String)
    /// The press did nothing, and says why (unread, end-only, hidden, stuck).
    case refused(String)

    public var words: String {
        switch self {
        case .armed: "armed: press again within 5 s to confirm"
        case .asked(let r): .joined("asked Oriel (", r.kind, ", id ", r.id, ")")
        case .waiting(let w): w
        case .refused(let w): w
        }
    }
}

extension Asking {
    /// A press on a two-press control, with the guards in DESIGN 3's order:
    /// an arming that ran out is dropped; a request already out answers with
    /// what it waits for; a refusal (the unread reason, end-only, hidden)
    /// answers and disarms; only then does the two-press decide. A confirmed
    /// press begins `ask` and returns `request`.
    mutating func press(_ control: ButtonRole, group: inout TwoPressGroup<ButtonRole>, at now: Moment,
                        refusal: String?, id: @autoclosure () -> String,
                        ask: (String) -> Ask, request: (String) -> Request) -> PressOutcome {
        group.expire(at: now.mono)
        if let out { return .waiting(out.waitingFor) }
        if let refusal {
            group.disarm(control)
            return .refused(refusal)
        }
        guard group.press(control, at: now.mono) == .fired else { return .armed }
        // Only a confirmed press takes a fresh id and builds its ask and
        // request (their words and fields): an arming press makes nothing.
        let id = id()
        begin(ask(id))
        return .asked(request(id))
    }

    /// The request could not be queued: nothing is out, and the words are shown.
    public mutating func fail(_ words: String, at now: Moment) {
        settle()
        show(words, at: now)
    }
}
