/// What Oriel last said, as every control reads it.
public struct World: Equatable, Sendable {
    public var state: OnAirState
    public var eyes: HouseEyes
}

/// What a push (or a silence) brought a control: which part of the world
/// moved, or an `answered` for some request.
public enum News: Equatable, Sendable {
    case onAir
    case eyes
    case answered(Answered)
}

/// A request whose wait ran out, for the outbox to withdraw (rule 6); `said`
/// is the silence in words, nil for a control that withdraws quietly (the camera).
public struct RanOut: Equatable, Sendable {
    public var id: String
    public var said: String?
}

/// One button's rule as the body sees it (DESIGN 3). `Body` keeps one value
/// per button in `Controls` and goes through them in loops, so a new button
/// is one new conforming value in `Controls.init`, not a `case` in every switch.
protocol Control: Equatable, Sendable {
    /// The button this rules, by its board-file name.
    var role: ButtonRole { get }
    /// A confirmed press (after the contact), guards in DESIGN 3's order;
    /// `.asked` carries the request the body queues.
    mutating func tap(_ world: World, group: inout TwoPressGroup<ButtonRole>, at now: Moment,
                      id: @autoclosure () -> String, by: String) -> PressOutcome
    /// The request `tap` asked for is in the outbox.
    mutating func queued(_ request: Request, in world: World, at now: Moment, gate: inout EyesGate)
    /// The request could not be queued: nothing is out, and the words are shown.
    mutating func fail(_ words: String, at now: Moment)
    /// Whether the world moving from `old` to `new` disarms this control (rule 5:
    /// the second press would mean the opposite of what the first one read).
    func disarms(from old: World, to new: World) -> Bool
    /// A push or a silence brought news: settle on evidence.
    mutating func hear(_ news: News, in world: World, at now: Moment)
    /// The clock: the requests whose wait ran out.
    mutating func ranOut(at now: Moment) -> [RanOut]
    /// The next monotonic time this needs the clock.
    var nextDue: Double? { get }
    /// The request out and the problem shown, for the armed LED; nil for a control that shows neither.
    var shown: Asking? { get }
}

/// A two-press control that asks and waits (On Air, Wrap up, the eyes kill):
/// the asking half is shared, so only its own rules are written per control.
protocol AskingControl: Control {
    var asking: Asking { get set }
}

extension AskingControl {
    mutating func queued(_ request: Request, in world: World, at now: Moment, gate: inout EyesGate) {}

    mutating func fail(_ words: String, at now: Moment) { asking.fail(words, at: now) }

    mutating func ranOut(at now: Moment) -> [RanOut] {
        let out = asking.out
        guard asking.expire(at: now) != nil, let out else { return [] }
        return [RanOut(id: out.id, said: out.silence)]
    }

    var nextDue: Double? { asking.nextDue }
    var shown: Asking? { asking }
}

/// A two-press control whose request is about On Air (On Air and Wrap up):
/// it taps against the On Air state, disarms when that state moves, and
/// settles its request from what Oriel says of On Air.
protocol OnAirControl: AskingControl {
    mutating func tap(state: OnAirState, group: inout TwoPressGroup<ButtonRole>, at now: Moment,
                      id: @autoclosure () -> String, by: String) -> PressOutcome
    mutating func adopt(_ state: OnAirState, answered: Answered?, at now: Moment)
}

extension OnAirControl {
    mutating func tap(_ world: World, group: inout TwoPressGroup<ButtonRole>, at now: Moment,
                      id: @autoclosure () -> String, by: String) -> PressOutcome {
        tap(state: world.state, group: &group, at: now, id: id(), by: by)
    }

    func disarms(from old: World, to new: World) -> Bool { new.state.moved(from: old.state) }

    mutating func hear(_ news: News, in world: World, at now: Moment) {
        switch news {
        case .onAir: adopt(world.state, answered: nil, at: now)
        case .answered(let a): adopt(world.state, answered: a, at: now)
        case .eyes: break
        }
    }
}

extension Control {
    func isSame(as other: any Control) -> Bool { (other as? Self) == self }
}

/// Every button's rule, in the order the body goes through them.
struct Controls: Equatable, Sendable {
    var all: [any Control]

    /// The one place a button's rule is named.
    init(_ settings: BodySettings) {
        all = [OnAirSwitch(action: settings.onAirAction), WrapUpButton(), EyesKill(),
               CameraButton(camera: settings.camera)]
    }

    func index(of role: ButtonRole) -> Int? { all.firstIndex { $0.role == role } }

    /// The control of this type (each type rules one button). The metatype is
    /// compared before the cast: a failed dynamic cast was most of a lookup.
    func the<C: Control>(_: C.Type) -> C? {
        for c in all where type(of: c) == C.self { return c as? C }
        return nil
    }

    static func == (a: Controls, b: Controls) -> Bool {
        a.all.count == b.all.count && zip(a.all, b.all).allSatisfy { $0.isSame(as: $1) }
    }
}
