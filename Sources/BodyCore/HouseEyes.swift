/// What Oriel says about the eyes: `open`, `until`, `why` about this body's own
/// cameras; `mode`, `red`, `names`, `killing` about the whole house.
public struct HouseEyes: Equatable, Sendable {
    public enum Mode: String, Equatable, Sendable { case manual, auto, broadcast }

    public var mode: Mode?
    /// Any eye in the house is open.
    public var red: Bool
    public var names: [String]
    /// The house is closing every eye.
    public var killing: Bool
    /// This body's eyes gate.
    public var open: Bool
    /// Epoch seconds at which this body's gate closes even if Oriel is silent.
    public var until: Double?
    public var why: String?

    public init(mode: Mode? = nil, red: Bool = false, names: [String] = [], killing: Bool = false,
                open: Bool = false, until: Double? = nil, why: String? = nil) {
        self.mode = mode
        self.red = red
        self.names = Array(names.prefix(Cut.eyeNames))
        self.killing = killing
        self.open = open
        self.until = until
        self.why = why
    }

    /// Before Oriel sends an eyes object: nothing red, nothing open.
    public static let unsaid = HouseEyes()

    /// The pushed eyes object's members the body reads, walked once: the
    /// eyes', then `answered` (a walk a key would be seven walks a push).
    static var keys: InlineArray<8, StaticString> {
        ["mode", "red", "names", "killing", "open", "until", "why", "answered"]
    }

    /// The eyes from an eyes object's members under `keys` (the object's
    /// being one is the caller's to check, as above).
    static func read(_ m: InlineArray<8, JSONBytes?>) -> HouseEyes {
        HouseEyes(
            mode: m[0]?.string.flatMap(Mode.init(rawValue:)),
            red: m[1]?.bool ?? false,
            names: m[2]?.elements { $0.words(limit: 64) } ?? [],
            killing: m[3]?.bool ?? false,
            open: m[4]?.bool ?? false,
            until: m[5]?.number,
            why: m[6]?.words(limit: Cut.reason))
    }
}

/// The eyes kill button: a two-press control that asks the house to close every eye.
/// It asks until a push shows the house closing or no eye red.
public struct EyesKill: Equatable, Sendable {
    public internal(set) var asking = Asking()
    /// Made once, not at every confirmed press.
    static let silence = "Oriel did not close the eyes within \(Int(House.killWait)) s"

    public init() {}

    /// The kill is a stop: On Air being unread does not hold it back, and it
    /// never waits behind another control's request (rule 4).
    public mutating func tap(group: inout TwoPressGroup<ButtonRole>, at now: Moment, id: @autoclosure () -> String, by: String) -> PressOutcome {
        asking.press(
            .kill, group: &group, at: now, refusal: nil,
            id: id(),
            ask: { id in
                Ask(id: id, at: now, wait: House.killWait, silence: Self.silence,
                    waitingFor: "already asking Oriel to close every eye")
            },
            request: { id in Request(kind: "eyes_kill", id: id, fields: ["by": .string(by)]) })
    }

    public mutating func adopt(_ eyes: HouseEyes, answered: Answered?, at now: Moment) {
        if asking.isOut, eyes.killing || !eyes.red { asking.settle() }
        asking.answered(answered, at: now)
    }

    public mutating func expire(at now: Moment) -> String? { asking.expire(at: now) }

    /// `ready`, `armed`, `asking`, as written in the source, for the status document written straight.
    func word(armed: Bool) -> StaticString {
        asking.isOut ? "asking" : armed ? "armed" : "ready"
    }
}

extension EyesKill: AskingControl {
    var role: ButtonRole { .kill }

    mutating func tap(_ world: World, group: inout TwoPressGroup<ButtonRole>, at now: Moment,
                      id: @autoclosure () -> String, by: String) -> PressOutcome {
        tap(group: &group, at: now, id: id(), by: by)
    }

    /// The house's eyes moving (red, killing) disarms it.
    func disarms(from old: World, to new: World) -> Bool {
        new.eyes.red != old.eyes.red || new.eyes.killing != old.eyes.killing
    }

    mutating func hear(_ news: News, in world: World, at now: Moment) {
        switch news {
        case .eyes: adopt(world.eyes, answered: nil, at: now)
        case .answered(let a): asking.answered(a, at: now)
        case .onAir: break
        }
    }
}
