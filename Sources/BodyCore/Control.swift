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
/// per button in `Controls` and goes through them in its walks, so a new
/// button is one new conforming value there (a field, a line a walk, a case
/// in `Body.press`), not a `case` in every rule.
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
        // Nothing is due before `nextDue` (most turns): no copy of the request out.
        guard let due = asking.nextDue, now.mono >= due else { return [] }
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

/// Every button's rule, in the order the body goes through them: one field
/// a button, each held as itself. (Held as `[any Control]` they would be copied
/// out of their boxes at every walk, several walks a turn.) A new
/// button is a field here and a line in each walk below.
struct Controls: Equatable, Sendable {
    var onair: OnAirSwitch
    var wrapup: WrapUpButton
    var kill: EyesKill
    var camera: CameraButton

    /// The one place a button's rule is named.
    init(_ settings: BodySettings) {
        onair = OnAirSwitch(action: settings.onAirAction)
        wrapup = WrapUpButton()
        kill = EyesKill()
        camera = CameraButton(camera: settings.camera)
    }

    /// Every control in the body's order, boxed: for the tests, never a turn.
    var all: [any Control] { [onair, wrapup, kill, camera] }

    /// Disarms each control the world moving from `old` to `new` disarms.
    func disarm(moving old: World, to new: World, in group: inout TwoPressGroup<ButtonRole>) {
        func check(_ c: some Control) { if c.disarms(from: old, to: new) { group.disarm(c.role) } }
        check(onair); check(wrapup); check(kill); check(camera)
    }

    /// Inlined: most news needs no world, and then none is copied to tell it.
    @inline(__always)
    mutating func hear(_ news: News, in world: World, at now: Moment) {
        onair.hear(news, in: world, at: now)
        wrapup.hear(news, in: world, at: now)
        kill.hear(news, in: world, at: now)
        camera.hear(news, in: world, at: now)
    }

    /// Each request whose wait ran out, in the body's order.
    /// (Empty lists, the usual case, are neither made nor joined.)
    mutating func ranOut(at now: Moment) -> [RanOut] {
        // None does anything before its own `nextDue`: before the earliest
        // (most turns), none is asked (that would be four calls a turn).
        guard let due = nextDue, now.mono >= due else { return [] }
        var out = onair.ranOut(at: now)
        func join(_ more: [RanOut]) { if !more.isEmpty { out += more } }
        join(wrapup.ranOut(at: now))
        join(kill.ranOut(at: now))
        join(camera.ranOut(at: now))
        return out
    }

    /// The earliest time any control needs the clock.
    /// Inlined: called from `ranOut`, a mutating walk, it would be a copy of every control.
    var nextDue: Double? {
        @inline(__always) get {
            var due: Double?
            func consider(_ t: Double?) { if let t, t < due ?? .infinity { due = t } }
            consider(onair.nextDue); consider(wrapup.nextDue); consider(kill.nextDue); consider(camera.nextDue)
            return due
        }
    }

    /// For the armed LED: when the latest request out was asked, and when the
    /// latest problem still shown began (each nil when there is none).
    func latestShown(at now: Moment) -> (ask: Double?, problem: Double?) {
        var latestAsk: Double?
        var latestProblem: Double?
        func consider(_ control: some Control) {
            guard let shown = control.shown else { return }
            if let ask = shown.out?.at.mono, ask > latestAsk ?? -.infinity { latestAsk = ask }
            // Still shown (`problemWords` is non-nil), read without copying its words.
            if let problem = shown.problem, now.mono < problem.until,
               problem.since > latestProblem ?? -.infinity { latestProblem = problem.since }
        }
        consider(onair); consider(wrapup); consider(kill); consider(camera)
        return (latestAsk, latestProblem)
    }
}
