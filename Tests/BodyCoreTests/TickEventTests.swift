import Testing
@testable import BodyCore

@Suite("What the clock brings about is reported once, whoever let the time pass")
struct TickEventTests {
    @Test("a silence that began inside a press is still reported by the next tick")
    func silenceInsidePress() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        #expect(body.tap(.onair, at: 161) == .refused("Oriel has not been heard from in 60 s"))
        #expect(body.tick(at: Moment(161)) == [.silenceBegan("Oriel has not been heard from in 60 s")])
        #expect(body.tick(at: Moment(162)).isEmpty)
    }

    @Test("a silence that began inside a push is still reported by the next tick")
    func silenceInsidePush() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 160)
        #expect(body.state == Said.off)
        #expect(body.tick(at: Moment(160)) == [.silenceBegan("Oriel has not been heard from in 60 s")])
    }

    @Test("a wait that ran out inside a press is still reported by the next tick")
    func ranOutInsidePress() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102, id: "r1")
        #expect(body.tap(.onair, at: 117) == .armed)
        #expect(body.tick(at: Moment(117)) == [.ranOut(words: "Oriel did not start On Air within 15 s", withdrawn: true)])
        #expect(body.tick(at: Moment(118)).isEmpty)
    }
}
