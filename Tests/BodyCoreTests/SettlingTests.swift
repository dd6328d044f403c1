import Testing
@testable import BodyCore

@Suite("What settles a request, and what only looks like it")
struct SettlingTests {
    @Test("an answered for another request does not settle a pending kill; the next eyes push does")
    func killIgnoresOtherAnswers() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true,"phase":"live"},"eyes":{"red":false}}"#, at: 100)
        _ = body.tap(.kill, at: 101, id: "k1")
        #expect(body.tap(.kill, at: 101.5, id: "k1") == .asked(request("eyes_kill", "k1", ["by": .string("studio")])))
        try body.face(#"{"onair":{"on":true,"phase":"live","answered":{"id":"other","error":null}}}"#, at: 102)
        #expect(body.kill.word(armed: false).description == "asking")
        try body.face(#"{"eyes":{"red":false}}"#, at: 103)
        #expect(body.kill.word(armed: false).description == "ready")
    }

    @Test("a poll after a silence ends it, and the next silence is said again")
    func pollEndsSilence() throws {
        var body = studio(BodySettings(name: "studio", silence: 60), at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        #expect(body.tick(at: Moment(160)) == silence("Oriel has not been heard from in 60 s"))
        _ = body.poll(after: 0, at: Moment(170))
        #expect(!body.contact.silent)
        #expect(body.state.unreadWords == "Oriel has not been heard from in 60 s", "unread until Oriel pushes")
        #expect(body.tick(at: Moment(229.9)).isEmpty)
        #expect(body.tick(at: Moment(230)) == silence("Oriel has not been heard from in 60 s"))
    }

    @Test("a camera press the full outbox refuses does not count as having asked")
    func refusedCameraPressIsNoAsk() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        for i in 0..<Outbox.capacity {
            _ = body.tap(.camera, at: 100 + Double(i) * 0.001, id: "c\(i)")
        }
        let lastAsk = body.gate.askedAt
        let outcome = body.tap(.camera, at: 101, id: "late")
        #expect(outcome == .refused(OutboxFull(capacity: Outbox.capacity).description))
        #expect(body.gate.askedAt == lastAsk, "the refused press did not move the ask")
    }
}
