import BodyCore

/// The demo hub's state and rules as a plain value: what Oriel and cwkPippa
/// would do with each question from the body (DESIGN 4). The hub's threads do
/// the I/O and the waiting; this says what to change, when, and what to push.
struct DemoOriel {
    /// The `answered` object a push carries for one request.
    struct Answer: Equatable {
        var id: String
        var error: String?
    }

    /// A change due at a time the caller keeps.
    enum Change: Equatable {
        case setOnAir(Bool, by: String?, Answer)
        case refuse(Answer, asked: String)
        case wrapUp(Answer)
        case endOnAir(generation: Int)
        case eyesClosing(Answer)
        case eyesClosed(generation: Int)
        case setEyes(open: Bool, why: String, camera: String?, Answer)
        case eyesRunOut(generation: Int)
    }

    struct Step: Equatable {
        var after: Double
        var change: Change
    }

    /// What applying a change did: a face to push (nil when the change was stale),
    /// the log line, and what follows later.
    struct Outcome {
        var face: JSON?
        var log: String
        var then: [Step] = []
    }

    static let answerDelay = 1.5
    static let wrapUpFor = 3.0
    static let eyesFor = 60.0
    static let refusal = "cwkPippa refused: the demo hub refuses every fourth request, to show a refusal"

    private(set) var on = false
    private(set) var phase: String? = nil
    private(set) var since: Double
    private var onAirWork = 0
    private var requests = 0
    private(set) var eyesOpen = false
    private var until: Double? = nil
    private var why: String? = nil
    private var red = false
    private var names: [String] = []
    private var killing = false
    private var eyesWork = 0

    init(since: Double) {
        self.since = since
    }

    /// Takes one item from the body's `/ears` and says what to do and when.
    mutating func intake(_ item: JSONBytes) -> [Step] {
        guard let id = item["id"]?.words(limit: 80) else { return [] }
        // The body sends its own name as `by`.
        let body = "the \(item["by"]?.words(limit: 24) ?? "studio") body"
        switch item["kind"]?.string {
        case "onair":
            requests += 1
            let wanted = item["on"]?.bool
            let asked = "\(body)'s button asking to turn On Air \(wanted.map(Self.word) ?? "on or off")"
            if requests % 4 == 0 { return [Step(after: Self.answerDelay, change: .refuse(Answer(id: id, error: Self.refusal), asked: asked))] }
            guard let wanted else {
                return [Step(after: Self.answerDelay, change: .refuse(Answer(id: id, error: "the demo hub cannot read the request: it says neither on nor off"), asked: asked))]
            }
            return [Step(after: Self.answerDelay, change: .setOnAir(wanted, by: "\(body)'s button", Answer(id: id)))]
        case "stage":
            requests += 1
            let asked = "\(body)'s Wrap up button"
            if requests % 4 == 0 { return [Step(after: Self.answerDelay, change: .refuse(Answer(id: id, error: Self.refusal), asked: asked))] }
            guard item["stage"]?.string == "wrapup" else {
                return [Step(after: Self.answerDelay, change: .refuse(Answer(id: id, error: "cwkPippa refused: the demo hub only knows the stage wrapup"), asked: asked))]
            }
            return [Step(after: Self.answerDelay, change: .wrapUp(Answer(id: id)))]
        case "eyes_kill":
            return [Step(after: 0.3, change: .eyesClosing(Answer(id: id)))]
        case "eyes":
            let open = item["open"]?.bool ?? !eyesOpen
            let tap = "a tap on \(body)'s camera button"
            return [Step(after: 0.3, change: .setEyes(open: open, why: tap, camera: item["camera"]?.words(limit: 40), Answer(id: id)))]
        default:
            return []
        }
    }

    /// Applies a change that came due at `now` (epoch seconds).
    mutating func apply(_ change: Change, now: Double) -> Outcome {
        switch change {
        case .setOnAir(let wanted, let by, let answer):
            let asker = by ?? "the studio body's button"
            guard wanted != on else {
                return Outcome(face: face(onair: answer), log: "demo hub: On Air was already \(Self.word(on)), as \(asker) asked")
            }
            on = wanted
            phase = wanted ? "live" : nil
            since = now
            onAirWork += 1
            return Outcome(face: face(onair: answer), log: "demo hub: turned On Air \(Self.word(on)), asked by \(asker)")
        case .refuse(let answer, let asked):
            return Outcome(face: face(onair: answer),
                           log: "demo hub: refused \(asked): \(answer.error ?? "")")
        case .wrapUp(var answer):
            guard on else {
                answer.error = "cwkPippa refused: On Air is off, so there is nothing to wrap up"
                return Outcome(face: face(onair: answer), log: "demo hub: refused to wrap up: On Air is off")
            }
            phase = "wrapup"
            onAirWork += 1
            return Outcome(face: face(onair: answer),
                           log: "demo hub: moved On Air to wrap-up; ending it in \(Int(Self.wrapUpFor)) s",
                           then: [Step(after: Self.wrapUpFor, change: .endOnAir(generation: onAirWork))])
        case .endOnAir(let generation):
            guard generation == onAirWork, on else { return Outcome(face: nil, log: "") }
            on = false
            phase = nil
            since = now
            onAirWork += 1
            return Outcome(face: face(), log: "demo hub: ended On Air after the wrap-up")
        case .eyesClosing(let answer):
            killing = true
            eyesOpen = false
            until = nil
            why = "the eyes kill on the studio body"
            eyesWork += 1
            return Outcome(face: face(eyes: answer), log: "demo hub: closing every eye in the house, asked by the eyes kill",
                           then: [Step(after: 2, change: .eyesClosed(generation: eyesWork))])
        case .eyesClosed(let generation):
            guard generation == eyesWork else { return Outcome(face: nil, log: "") }
            killing = false
            red = false
            names = []
            eyesWork += 1
            return Outcome(face: face(), log: "demo hub: every eye in the house is closed")
        case .setEyes(let open, let tap, let camera, let answer):
            eyesOpen = open
            until = open ? now + Self.eyesFor : nil
            why = tap
            red = open
            names = open ? [camera ?? "studio camera"] : []
            killing = false
            eyesWork += 1
            let then = open ? [Step(after: Self.eyesFor, change: .eyesRunOut(generation: eyesWork))] : []
            return Outcome(face: face(eyes: answer),
                           log: "demo hub: \(open ? "opened" : "closed") the studio body's eyes\(open ? " for \(Int(Self.eyesFor)) s" : ""), for \(tap)",
                           then: then)
        case .eyesRunOut(let generation):
            guard generation == eyesWork, eyesOpen else { return Outcome(face: nil, log: "") }
            eyesOpen = false
            until = nil
            why = "the \(Int(Self.eyesFor)) s of the tap ran out"
            red = false
            names = []
            eyesWork += 1
            return Outcome(face: face(), log: "demo hub: closed the studio body's eyes: the \(Int(Self.eyesFor)) s of the tap ran out")
        }
    }

    /// The whole face as Oriel pushes it: `{"onair":{...},"eyes":{...}}`.
    func face(onair onairAnswer: Answer? = nil, eyes eyesAnswer: Answer? = nil) -> JSON {
        var onair: [String: JSON] = [
            "on": .bool(on),
            "phase": phase.map { .string($0) } ?? .null,
            "since": .string(Self.iso8601(since)),
            "by": .string("demo"),
            "unread": .null,
            "error": .null,
        ]
        var eyes: [String: JSON] = [
            "open": .bool(eyesOpen),
            "until": until.map { .number($0) } ?? .null,
            "why": why.map { .string($0) } ?? .null,
            "mode": .string("manual"),
            "red": .bool(red),
            "names": .array(names.map { .string($0) }),
            "killing": .bool(killing),
        ]
        if let a = onairAnswer { onair["answered"] = Self.json(a) }
        if let a = eyesAnswer { eyes["answered"] = Self.json(a) }
        return .object(["onair": .object(onair), "eyes": .object(eyes)])
    }

    private static func json(_ answer: Answer) -> JSON {
        .object(["id": .string(answer.id), "error": answer.error.map { .string($0) } ?? .null])
    }

    private static func word(_ on: Bool) -> String { on ? "on" : "off" }

    /// Epoch seconds as `2026-11-04T17:50:00Z`.
    /// The civil date from the day count is Howard Hinnant's `civil_from_days`
    /// (arithmetic, no call into C: UTC has no time zone to look up).
    static func iso8601(_ seconds: Double) -> String {
        let t = Int(seconds.rounded(.down))
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let second = t - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(second / 3600)):\(two(second % 3600 / 60)):\(two(second % 60))Z"
    }
}
