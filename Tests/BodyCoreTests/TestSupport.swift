import Testing
@testable import BodyCore

/// Parses a JSON literal written in a test.
func json(_ text: String) throws -> JSON {
    try JSON.parse(Array(text.utf8))
}

/// Reads a JSON literal written in a test as a push is read: where it lies.
func jsonBytes(_ text: String) throws -> JSONBytes {
    try JSONBytes.parse(Array(text.utf8))
}

/// A pushed onair or eyes object read alone, through the members `Body.push`
/// reads: nil when it is not an object (the push then keeps what the body had).
extension OnAirState {
    static func read(_ pushed: JSONBytes?) -> OnAirState? {
        guard let pushed, pushed.isObject else { return nil }
        return read(pushed.members(keys))
    }
}

extension HouseEyes {
    static func read(_ pushed: JSONBytes?) -> HouseEyes? {
        guard let pushed, pushed.isObject else { return nil }
        return read(pushed.members(keys))
    }
}

/// What one of the rules' entry points brought about, as a list of its own:
/// they append to the caller's list (the agent keeps one for every turn),
/// where a test reads one call's actions apart.
func appended(_ call: (inout [BodyAction]) -> Void) -> [BodyAction] {
    var actions: [BodyAction] = []
    call(&actions)
    return actions
}

/// States a push can leave, named the way a trace reads.
enum Said {
    static let off = OnAirState(on: false)
    static let onNoStage = OnAirState(on: true)
    static let prep = OnAirState(on: true, stage: .prep)
    static let live = OnAirState(on: true, stage: .live)
    static let soloPlay = OnAirState(on: true, stage: .soloPlay)
    static let wrapup = OnAirState(on: true, stage: .wrapup)
    static let unread = OnAirState.unread("Oriel cannot read cwkPippa")
}

/// A studio body started at monotonic `t` (wall = 1_764_500_000 + t).
func studio(_ settings: BodySettings = BodySettings(name: "studio"), at t: Double = 100) -> Body {
    Body(settings: settings, at: Moment(t))
}

extension Body {
    /// `POST /face` with a JSON literal at monotonic `t`, read as the agent reads it.
    @discardableResult
    mutating func face(_ text: String, at t: Double) throws -> [BodyAction] {
        try push(JSONBytes.parse(Array(text.utf8)), at: Moment(t))
    }

    /// A confirmed press (after the contact) at monotonic `t` with the id `id`;
    /// what it did, leaving out the actions (the edge tests read those).
    mutating func tap(_ button: ButtonRole, at t: Double, id: String = "r1") -> PressOutcome {
        var actions: [BodyAction] = []
        return press(button, at: Moment(t), id: id, &actions)
    }

    /// The clock, with "t1" for a request a bounce window's end might make.
    @discardableResult
    mutating func tick(at now: Moment) -> [BodyAction] {
        appended { tick(at: now, ids: { "t1" }, into: &$0) }
    }

    /// A raw edge on `button` at monotonic `t`, read by the caller at `t` too.
    mutating func edge(_ button: ButtonRole, down: Bool, at t: Double, id: String = "r1") -> [BodyAction] {
        appended { edge(ButtonEdge(button: button, pressed: down, at: t), at: Moment(t), ids: { id }, into: &$0) }
    }

    /// A finger on `button` at monotonic `t`: its edge, then the bounce
    /// window's end 10 ms later, where the line still reads pressed. What the
    /// press brought about, leaving out the window's `.readLevel`.
    mutating func down(_ button: ButtonRole, at t: Double, id: String = "r1") -> [BodyAction] {
        var actions = edge(button, down: true, at: t, id: id)
        let end = t + Contact.defaultDebounce
        actions += appended { tick(at: Moment(end), ids: { id }, into: &$0) }.filter { $0 != .readLevel(button) }
        return actions + read(button, down: true, at: end, id: id)
    }

    /// The finger off `button` at `t`, confirmed by the reading 10 ms later.
    @discardableResult
    mutating func up(_ button: ButtonRole, at t: Double) -> [BodyAction] {
        var actions = edge(button, down: false, at: t)
        let end = t + Contact.defaultDebounce
        actions += tick(at: Moment(end)).filter { $0 != .readLevel(button) }
        return actions + read(button, down: false, at: end, id: "t1")
    }

    /// A whole tap: down at `t`, up 100 ms later; what the press brought about.
    mutating func tapLine(_ button: ButtonRole, at t: Double, id: String = "r1") -> [BodyAction] {
        let actions = down(button, at: t, id: id)
        up(button, at: t + 0.1)
        return actions
    }

    /// The level of every output line at monotonic `t`.
    func lines(at t: Double) -> [OutputRole: Bool] {
        indicators(at: Moment(t)).levels(at: t)
    }
}

/// A request as a control would queue it.
func request(_ kind: String, _ id: String, _ fields: [String: JSON]) -> Request {
    Request(kind: kind, id: id, fields: fields)
}

/// What the adapters would say about a body with every role and nothing held.
let quietExtras = StatusExtras(
    lines: [.lamp: false, .armedLED: false, .eyeLED: false],
    held: [.onair: (held: false, stuck: false)],
    location: .init(allowed: false, watching: false),
    previewRunning: false, previewWords: "the eyes gate is closed",
    board: .init(kind: "sim", ok: true, problem: nil))

/// The status document as `GET /status` writes it.
func statusBytes(_ body: Body, at now: Moment, _ extras: StatusExtras = quietExtras) -> [UInt8] {
    var out = JSONOut()
    body.writeStatus(at: now, extras, to: &out)
    return out.bytes
}

/// What a silence beginning brings about: the log line, and a hello.
func silence(_ words: String = "Oriel has not been heard from in 60 s") -> [BodyAction] {
    [.log("oriel: \(words); On Air is unread until Oriel pushes again", .warning), .sayHello(because: "silence")]
}

/// What a request's wait running out brings about: one log line.
func ranOut(_ words: String, id: String = "r1", withdrawn: Bool) -> [BodyAction] {
    [.log(words + (withdrawn ? "; the request was withdrawn before Oriel took it" : ""), .warning),
     .unanswered(id: id, withdrawn: withdrawn)]
}

/// The request an On Air press at a body named "studio" asks for while off.
func onAirRequest(_ id: String, on: Bool = true) -> Request {
    request("onair", id, ["on": .bool(on), "by": .string("studio")])
}
