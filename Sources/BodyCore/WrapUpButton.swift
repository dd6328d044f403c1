/// The Wrap up button: a two-press control shown only while On Air is on in
/// `live` or `solo-play`, or while its own press is out.
public struct WrapUpButton: Equatable, Sendable {
    public internal(set) var asking = Asking()

    public init() {}

    public static func shows(_ state: OnAirState) -> Bool {
        state.on == true && (state.stage == .live || state.stage == .soloPlay)
    }

    public func visible(_ state: OnAirState) -> Bool {
        Self.shows(state) || asking.isOut
    }

    public mutating func tap(state: OnAirState, group: inout TwoPressGroup<ButtonRole>,
                             at now: Moment, id: @autoclosure () -> String, by: String) -> PressOutcome {
        let hidden = Self.shows(state) ? nil : "Wrap up shows only while On Air is on in LIVE or SOLO PLAY"
        return asking.press(
            .wrapup, group: &group, at: now, refusal: state.unreadWords ?? hidden,
            id: id(),
            ask: { id in
                Ask(id: id, at: now, wait: House.wrapUpWait,
                    silence: "Oriel did not start Wrap up within \(Int(House.wrapUpWait)) s",
                    waitingFor: "already asking Oriel to start Wrap up")
            },
            request: { id in Request(kind: "stage", id: id, fields: ["stage": .string("wrapup"), "by": .string(by)]) })
    }

    /// Settles when the push shows off or the wrapup stage, or an error for this id.
    public mutating func adopt(_ state: OnAirState, answered: Answered?, at now: Moment) {
        if asking.isOut, state.on == false || state.stage == .wrapup {
            asking.settle()
        }
        asking.answered(answered, at: now)
    }

    public mutating func expire(at now: Moment) -> String? { asking.expire(at: now) }

    /// `hidden`, `ready`, `armed`, `asking`, as written in the source, for the status document written straight.
    func word(state: OnAirState, armed: Bool) -> StaticString {
        if asking.isOut { return "asking" }
        guard visible(state) else { return "hidden" }
        return armed ? "armed" : "ready"
    }
}

extension WrapUpButton: OnAirControl {
    var role: ButtonRole { .wrapup }
}
