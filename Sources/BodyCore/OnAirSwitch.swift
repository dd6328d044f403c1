/// The On Air button: a two-press control that asks Oriel for the opposite of
/// what it reads. It never flips a flag of its own (rule 1).
public struct OnAirSwitch: Equatable, Sendable {
    public enum Action: String, Equatable, Sendable {
        /// A confirmed press asks for the opposite of what the lamp shows.
        case toggle
        /// A press while off does nothing and says why: the button only ends On Air.
        case endOnly = "end-only"
    }

    public var action: Action
    public internal(set) var asking = Asking()
    /// The state the request out asked for.
    public private(set) var askedOn: Bool?

    public init(action: Action = .toggle) {
        self.action = action
    }

    /// A press, with the guards in DESIGN 3's order.
    public mutating func tap(state: OnAirState, group: inout TwoPressGroup<ButtonRole>,
                             at now: Moment, id: @autoclosure () -> String, by: String) -> PressOutcome {
        let on = state.on == true
        let endOnly = action == .endOnly && !on ? "this On Air button only ends On Air, and On Air is off" : nil
        let verb = on ? "end" : "start"
        let outcome = asking.press(
            .onair, group: &group, at: now, refusal: state.unreadWords ?? endOnly,
            id: id(),
            ask: { id in
                Ask(id: id, at: now, wait: House.onAirWait,
                    silence: "Oriel did not \(verb) On Air within \(Int(House.onAirWait)) s",
                    waitingFor: "already asking Oriel to \(verb) On Air")
            },
            request: { id in Request(kind: "onair", id: id, fields: ["on": .bool(!on), "by": .string(by)]) })
        if case .asked = outcome { askedOn = !on }
        return outcome
    }

    /// A push arrived: settle on evidence (the asked-for state, or an error for this id).
    public mutating func adopt(_ state: OnAirState, answered: Answered?, at now: Moment) {
        if asking.isOut, state.on == askedOn {
            asking.settle()
        }
        asking.answered(answered, at: now)
    }

    /// The withdrawn request's id when the wait ran out.
    public mutating func expire(at now: Moment) -> String? { asking.expire(at: now) }

    /// Every word `word(state:armed:)` can say, for a state set (`/metrics`).
    public static let values = ["on", "off", "unknown", "armed", "asking"]

    /// The value word: armed and asking win over the state they act on. A
    /// `StaticString`, so the status document writes it without making a String.
    public func word(state: OnAirState, armed: Bool) -> StaticString {
        if armed { return "armed" }
        if asking.isOut { return "asking" }
        switch state.on {
        case true?: return "on"
        case false?: return "off"
        case nil: return "unknown"
        }
    }
}

extension OnAirSwitch: OnAirControl {
    var role: ButtonRole { .onair }
}
