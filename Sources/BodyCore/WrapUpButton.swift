/// The Wrap up button: a two-press control shown only while On Air is on in
/// `live` or `solo-play`, or while its own press is out.
public struct WrapUpButton: Equatable, Sendable {
    public internal(set) var asking = Asking()

    public init() {}

    public static func shows(_ state: OnAirState) -> Bool {
        state.on == true && (state.stage == .live || state.stage == .soloPlay)
    }

    public func visible(_ state: OnAirState) -> Bool {
        Self.shows(state) || asking.out != nil
    }

    public mutating func tap(state: OnAirState, group: inout TwoPressGroup<ButtonRole>,
                             at now: Moment, id: String, by: String) -> PressOutcome {
        group.expire(at: now.mono)
        if let out = asking.out { return .waiting(out.waitingFor) }
        if let reason = state.unreadWords {
            group.disarm(.wrapup)
            return .refused(reason)
        }
        guard Self.shows(state) else {
            group.disarm(.wrapup)
            return .refused("Wrap up shows only while On Air is on in LIVE or SOLO PLAY")
        }
        guard group.press(.wrapup, at: now.mono) == .fired else { return .armed }
        asking.begin(Ask(id: id, at: now, wait: House.wrapUpWait,
                         silence: "Oriel did not start Wrap up within \(Int(House.wrapUpWait)) s",
                         waitingFor: "already asking Oriel to start Wrap up"))
        return .asked(Request(kind: "stage", id: id, fields: ["stage": .string("wrapup"), "by": .string(by)]))
    }

    /// Settles when the push shows off or the wrapup stage, or an error for this id.
    public mutating func adopt(_ state: OnAirState, answered: Answered?, at now: Moment) {
        if asking.out != nil, state.on == false || state.stage == .wrapup {
            asking.settle()
        }
        asking.answered(answered, at: now)
    }

    public mutating func expire(at now: Moment) -> String? { asking.expire(at: now) }

    /// `hidden`, `ready`, `armed`, `asking`.
    public func value(state: OnAirState, armed: Bool) -> String {
        if asking.out != nil { return "asking" }
        guard visible(state) else { return "hidden" }
        return armed ? "armed" : "ready"
    }
}
