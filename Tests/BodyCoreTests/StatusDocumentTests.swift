import Testing
@testable import BodyCore

/// The status document as Oriel reads it: written as `GET /status` writes it, parsed back.
func statusJSON(_ body: Body, at t: Double, _ extras: StatusExtras = quietExtras) throws -> JSON {
    try JSON.parse(statusBytes(body, at: Moment(t), extras))
}

@Suite("The status document, field for field as DESIGN 7 shows it")
struct StatusDocumentTests {
    @Test("at start: every field DESIGN 7 names, nulls written out, not left out")
    func atStart() throws {
        let doc = try statusJSON(studio(at: 100), at: 100)
        #expect(doc["onair"] == .object([
            "value": .string("unknown"), "on": .null, "phase": .null, "stage": .null,
            "since": .null, "by": .null, "unread": .string("Oriel has not said whether On Air is on"),
            "asked": .null, "problem": .null,
        ]))
        #expect(doc["wrapup"] == .object(["value": .string("hidden"), "asked": .null, "problem": .null]))
        let designEyes: [String: JSON] = [
            "mode": .null, "red": .bool(false), "names": .array([]), "killing": .bool(false),
            "open": .bool(false), "until": .null, "why": .null, "preview": .string("stopped"), "kill": .string("ready"),
        ]
        let eyes = try #require(doc["eyes"]?.object)
        for (key, value) in designEyes { #expect(eyes[key] == value, "eyes.\(key)") }
        #expect(eyes["preview_why"] == .string("the eyes gate is closed"))
        #expect(eyes["kill_asked"] == .null && eyes["kill_problem"] == .null)
        #expect(doc["lines"] == .object(["lamp": .bool(false), "armed-led": .bool(false), "eye-led": .bool(false)]))
        #expect(doc["buttons"]?["onair"]?["held"] == .bool(false))
        #expect(doc["buttons"]?["onair"]?["stuck"] == .bool(false))
        #expect(doc["where"] == .object(["allowed": .bool(false), "watching": .bool(false),
                                          "clock_synchronised": .bool(true), "clock_behind_receiver": .null]))
        #expect(doc["oriel"] == .object(["last_push": .null, "last_poll": .null, "silent": .bool(true)]))
        #expect(doc["board"] == .object(["kind": .string("sim"), "ok": .bool(true), "problem": .null]))
    }

    @Test("each role's key in the document is its name")
    func roleKeys() {
        for role in ButtonRole.allCases { #expect(role.key.description == role.rawValue) }
        for role in OutputRole.allCases { #expect(role.key.description == role.rawValue) }
    }

    @Test("each stage's name and word as written in the source are its rawValue and word")
    func stageWords() {
        for stage in Stage.allCases {
            #expect(stage.key.description == stage.rawValue)
            #expect(stage.shown.description == stage.word)
        }
    }

    @Test("the bytes carry the null fields literally")
    func nullsInBytes() {
        let text = String(decoding: statusBytes(studio(at: 100), at: Moment(100)), as: UTF8.self)
        #expect(text.contains(#""onair":{"asked":null,"by":null,"on":null,"phase":null,"problem":null,"since":null,"stage":null,"#))
        #expect(text.contains(#""oriel":{"last_poll":null,"last_push":null,"silent":true}"#))
    }

    @Test("asking while LIVE: value, stage word, since, by and the request out with its time")
    func asking() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true,"phase":"LIVE","since":"2026-11-04T17:50:00Z","by":"dad"}}"#, at: 100)
        _ = body.poll(after: 0, at: Moment(100.5))
        #expect(try statusJSON(body, at: 100.5)["onair"]?["value"] == .string("on"))
        #expect(try statusJSON(body, at: 100.5)["wrapup"]?["value"] == .string("ready"))
        _ = body.tap(.onair, at: 101)
        #expect(try statusJSON(body, at: 101)["onair"]?["value"] == .string("armed"))
        _ = body.tap(.onair, at: 102, id: "r1")
        let doc = try statusJSON(body, at: 102)
        #expect(doc["onair"] == .object([
            "value": .string("asking"), "on": .bool(true), "phase": .string("live"), "stage": .string("LIVE"),
            "since": .string("2026-11-04T17:50:00Z"), "by": .string("dad"), "unread": .null,
            "asked": .object(["id": .string("r1"), "on": .bool(false), "at": .number(1_764_500_102)]),
            "problem": .null,
        ]))
        #expect(doc["oriel"] == .object([
            "last_push": .number(1_764_500_100), "last_poll": .number(1_764_500_100.5), "silent": .bool(false),
        ]))
    }

    @Test("a problem shows in words for 12 s, then null")
    func problem() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102, id: "r1")
        try body.face(#"{"onair":{"on":false,"answered":{"id":"r1","error":"cwkPippa refused: no show"}}}"#, at: 103)
        #expect(try statusJSON(body, at: 114.999)["onair"]?["problem"] == .string("cwkPippa refused: no show"))
        #expect(try statusJSON(body, at: 114.999)["onair"]?["value"] == .string("off"))
        #expect(try statusJSON(body, at: 115)["onair"]?["problem"] == .null)
    }

    @Test("Wrap up: ready, armed, asking with its request (on is null)")
    func wrapUp() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true,"phase":"solo-play"}}"#, at: 100)
        _ = body.tap(.wrapup, at: 101)
        #expect(try statusJSON(body, at: 101)["wrapup"]?["value"] == .string("armed"))
        #expect(try statusJSON(body, at: 101)["onair"]?["value"] == .string("on"))
        _ = body.tap(.wrapup, at: 102, id: "w1")
        #expect(try statusJSON(body, at: 102)["wrapup"] == .object([
            "value": .string("asking"),
            "asked": .object(["id": .string("w1"), "on": .null, "at": .number(1_764_500_102)]),
            "problem": .null,
        ]))
        _ = body.tick(at: Moment(122))
        #expect(try statusJSON(body, at: 122)["wrapup"]?["problem"] == .string("Oriel did not start Wrap up within 20 s"))
    }

    @Test("eyes: what Oriel said, the preview and the kill")
    func eyes() throws {
        var body = studio(at: 100)
        try body.face(#"""
            {"eyes":{"open":true,"until":1764500200.5,"why":"Dad's tap on the studio body","mode":"broadcast",
                     "red":true,"names":["studio camera","front door"],"killing":false}}
            """#, at: 100)
        _ = body.tap(.kill, at: 101)
        var extras = quietExtras
        extras.previewRunning = true
        extras.previewWords = "Dad's tap on the studio body"
        extras.lines = [.lamp: true, .armedLED: true]
        extras.held = [.onair: (held: true, stuck: false), .kill: (held: false, stuck: true)]
        extras.location = .init(allowed: true, watching: true)
        extras.board = .init(kind: "/usr/local/share/studio-body/board/raspberrypi.conf", ok: false,
                             problem: "gpio: gpiochip0 went away")
        let doc = try statusJSON(body, at: 101, extras)
        #expect(doc["eyes"] == .object([
            "mode": .string("broadcast"), "red": .bool(true), "names": .array([.string("studio camera"), .string("front door")]),
            "killing": .bool(false), "open": .bool(true), "until": .number(1_764_500_200.5),
            "why": .string("Dad's tap on the studio body"), "preview": .string("running"),
            "preview_why": .string("Dad's tap on the studio body"), "preview_stops_in": .null, "kill": .string("armed"),
            "kill_asked": .null, "kill_problem": .null,
        ]))
        #expect(doc["lines"] == .object(["lamp": .bool(true), "armed-led": .bool(true)]))
        extras.lines = [.lamp: nil, .armedLED: false]
        #expect(try statusJSON(body, at: 101, extras)["lines"] == .object(["lamp": .null, "armed-led": .bool(false)]))
        #expect(doc["buttons"] == .object([
            "onair": .object(["held": .bool(true), "stuck": .bool(false), "noise": .number(0), "late": .number(0)]),
            "kill": .object(["held": .bool(false), "stuck": .bool(true), "noise": .number(0), "late": .number(0)]),
        ]))
        #expect(doc["where"] == .object(["allowed": .bool(true), "watching": .bool(true),
                                          "clock_synchronised": .bool(true), "clock_behind_receiver": .null]))
        extras.location = .init(allowed: true, watching: false, clockSynchronised: false, clockBehindReceiver: 7200.4)
        #expect(try statusJSON(body, at: 101, extras)["where"] == .object(["allowed": .bool(true), "watching": .bool(false),
                                          "clock_synchronised": .bool(false), "clock_behind_receiver": .number(7200.4)]))
        extras.location = .init(allowed: true, watching: false, clockSynchronised: true, clockBehindReceiver: 7200.4)
        #expect(try statusJSON(body, at: 101, extras)["where"]?["clock_behind_receiver"] == .null,
                "a synchronised clock has no lag to say")
        #expect(doc["board"]?["problem"] == .string("gpio: gpiochip0 went away"))
        _ = body.tap(.kill, at: 102, id: "k1")
        let asking = try statusJSON(body, at: 102, extras)["eyes"]
        #expect(asking?["kill"] == .string("asking"))
        #expect(asking?["kill_asked"] == .object(["id": .string("k1"), "on": .null, "at": .number(1_764_500_102)]))
    }

    @Test("a silence shows in onair.unread and oriel.silent")
    func silence() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        _ = body.tick(at: Moment(160))
        let doc = try statusJSON(body, at: 160)
        #expect(doc["onair"]?["value"] == .string("unknown"))
        #expect(doc["onair"]?["on"] == .null)
        #expect(doc["onair"]?["unread"] == .string("Oriel has not been heard from in 60 s"))
        #expect(doc["oriel"]?["silent"] == .bool(true))
    }

    @Test("the adapters' extras compare by every field")
    func extrasEquality() {
        var other = quietExtras
        #expect(other == quietExtras)
        other.held = [.onair: (held: true, stuck: false)]
        #expect(other != quietExtras)
    }
}
