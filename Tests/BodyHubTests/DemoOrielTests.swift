import BodyCore
@testable import DemoHub
import Testing

@Suite("the demo hub's rules, at literal times")
struct DemoOrielTests {
    typealias Answer = DemoOriel.Answer

    /// An item as the body's `/ears` carries it, read as the hub reads it.
    static func item(_ fields: [String: JSON]) throws -> JSONBytes {
        try JSONBytes.parse(BodyJSON.encode(JSON.object(fields)))
    }

    static func onair(_ id: String, on: Bool) throws -> JSONBytes {
        try item(["seq": .number(1), "kind": .string("onair"), "id": .string(id), "on": .bool(on), "by": .string("studio")])
    }

    @Test("an On Air request is answered 1.5 s later with the asked state and its id")
    func onAirAnswered() throws {
        var oriel = DemoOriel(since: 1000)
        #expect(oriel.face()["onair"]?["on"] == .bool(false))

        let steps = oriel.intake(try Self.onair("q1", on: true))
        #expect(steps == [.init(after: 1.5, change: .setOnAir(true, by: "the studio body's button", Answer(id: "q1")))])

        let outcome = oriel.apply(steps[0].change, now: 1_793_900_000)
        #expect(outcome.log == "demo hub: turned On Air on, asked by the studio body's button")
        let onair = outcome.face?["onair"]
        #expect(onair?["on"] == .bool(true))
        #expect(onair?["phase"] == .string("live"))
        #expect(onair?["by"] == .string("demo"))
        #expect(onair?["since"] == .string("2026-11-05T17:33:20Z"))
        #expect(onair?["answered"] == .object(["id": .string("q1"), "error": .null]))
        #expect(outcome.face?["eyes"]?["answered"] == nil)
    }

    @Test("every fourth request is refused with words, and nothing changes")
    func fourthRefused() throws {
        var oriel = DemoOriel(since: 1000)
        for (n, on) in [true, false, true].enumerated() {
            let steps = oriel.intake(try Self.onair("q\(n)", on: on))
            _ = oriel.apply(steps[0].change, now: 2000)
        }
        #expect(oriel.on == true)

        let steps = oriel.intake(try Self.onair("q4", on: false))
        let outcome = oriel.apply(steps[0].change, now: 2001)
        #expect(outcome.log == "demo hub: refused the studio body's button asking to turn On Air off: cwkPippa refused: the demo hub refuses every fourth request, to show a refusal")

        #expect(oriel.on == true)
        #expect(outcome.face?["onair"]?["on"] == .bool(true))
        #expect(outcome.face?["onair"]?["answered"] == .object([
            "id": .string("q4"),
            "error": .string("cwkPippa refused: the demo hub refuses every fourth request, to show a refusal"),
        ]))
    }

    @Test("wrap up moves the phase, then ends On Air 3 s later")
    func wrapUp() throws {
        var oriel = DemoOriel(since: 1000)
        _ = oriel.apply(.setOnAir(true, by: nil, Answer(id: "a")), now: 2000)

        let steps = oriel.intake(try Self.item(["kind": .string("stage"), "id": .string("w1"), "stage": .string("wrapup")]))
        let moved = oriel.apply(steps[0].change, now: 2002)
        #expect(moved.face?["onair"]?["phase"] == .string("wrapup"))
        #expect(moved.face?["onair"]?["answered"]?["id"] == .string("w1"))
        #expect(moved.then.map(\.after) == [3])

        let ended = oriel.apply(moved.then[0].change, now: 2005)
        #expect(ended.face?["onair"]?["on"] == .bool(false))
        #expect(ended.face?["onair"]?["phase"] == .null)
        #expect(ended.log == "demo hub: ended On Air after the wrap-up")
    }

    @Test("a press that turns On Air back on before the wrap-up ends keeps it on")
    func wrapUpOverruled() {
        var oriel = DemoOriel(since: 1000)
        _ = oriel.apply(.setOnAir(true, by: nil, Answer(id: "a")), now: 2000)
        let moved = oriel.apply(.wrapUp(Answer(id: "w")), now: 2001)
        _ = oriel.apply(.setOnAir(false, by: nil, Answer(id: "b")), now: 2002)
        _ = oriel.apply(.setOnAir(true, by: nil, Answer(id: "c")), now: 2003)

        let late = oriel.apply(moved.then[0].change, now: 2004)

        #expect(late.face == nil)
        #expect(oriel.on == true)
    }

    @Test("a camera tap opens the eyes for 60 s, naming the tap, then they close")
    func eyesTap() throws {
        var oriel = DemoOriel(since: 1000)
        let steps = oriel.intake(try Self.item(["kind": .string("eyes"), "id": .string("e1"), "open": .bool(true), "by": .string("studio")]))

        let opened = oriel.apply(steps[0].change, now: 5000)
        let eyes = opened.face?["eyes"]
        #expect(eyes?["open"] == .bool(true))
        #expect(eyes?["until"] == .number(5060))
        #expect(eyes?["why"] == .string("a tap on the studio body's camera button"))
        #expect(eyes?["red"] == .bool(true))
        #expect(eyes?["answered"] == .object(["id": .string("e1"), "error": .null]))
        #expect(opened.then.map(\.after) == [60])

        let closed = oriel.apply(opened.then[0].change, now: 5060)
        #expect(closed.face?["eyes"]?["open"] == .bool(false))
        #expect(closed.face?["eyes"]?["red"] == .bool(false))
    }

    @Test("the eyes kill pushes closing with its id, then every eye closed")
    func eyesKill() throws {
        var oriel = DemoOriel(since: 1000)
        _ = oriel.apply(.setEyes(open: true, why: "a tap", camera: nil, Answer(id: "e")), now: 5000)
        let steps = oriel.intake(try Self.item(["kind": .string("eyes_kill"), "id": .string("k1")]))

        let closing = oriel.apply(steps[0].change, now: 5001)
        #expect(closing.face?["eyes"]?["killing"] == .bool(true))
        #expect(closing.face?["eyes"]?["answered"]?["id"] == .string("k1"))

        let closed = oriel.apply(closing.then[0].change, now: 5003)
        #expect(closed.face?["eyes"]?["killing"] == .bool(false))
        #expect(closed.face?["eyes"]?["red"] == .bool(false))
        #expect(closed.face?["eyes"]?["names"] == .array([]))
    }

    @Test("an item of an unknown kind, or with no id, asks nothing")
    func unknownIgnored() throws {
        var oriel = DemoOriel(since: 1000)
        #expect(oriel.intake(try Self.item(["kind": .string("dance"), "id": .string("x")])).isEmpty)
        #expect(oriel.intake(try Self.item(["kind": .string("onair"), "on": .bool(true)])).isEmpty)
    }
}
