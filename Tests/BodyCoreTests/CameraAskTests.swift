import Testing
@testable import BodyCore

@Suite("The camera button's press is a question asked now too (rules 4, 6, 7)")
struct CameraAskTests {
    @Test("a camera item Oriel has not taken is withdrawn at exactly 15 s")
    func withdrawn() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.camera, at: 101, id: "c1")
        #expect(body.nextDue(at: Moment(101)) == 116)
        _ = body.tick(at: Moment(115.999))
        #expect(body.outbox.items.map(\.request.id) == ["c1"])
        _ = body.tick(at: Moment(116))
        #expect(body.outbox.items.isEmpty)
        #expect(body.poll(after: 0, at: Moment(117)).isEmpty)
    }

    @Test("taking is acknowledging: an item delivered but not acknowledged goes at 15 s like any other")
    func takenIsAcknowledged() {
        var body = studio(at: 100)
        _ = body.tap(.camera, at: 101, id: "c1")
        _ = body.tap(.camera, at: 102, id: "c2")
        let items = body.poll(after: 0, at: Moment(103))
        #expect(items.map(\.request.id) == ["c1", "c2"])
        _ = body.poll(after: items[0].seq, at: Moment(104))
        _ = body.tick(at: Moment(116))
        #expect(body.camera.asks.keys.sorted() == ["c2"])
        #expect(body.poll(after: items[0].seq, at: Moment(116)).map(\.request.id) == ["c2"])
        _ = body.tick(at: Moment(117))
        #expect(body.camera.asks.isEmpty)
        #expect(body.poll(after: items[0].seq, at: Moment(117)).isEmpty)
    }

    @Test("a Stop never waits behind old camera presses that filled the outbox")
    func stopNotBlocked() {
        var body = studio(at: 100)
        for i in 0..<Outbox.capacity { _ = body.tap(.camera, at: 100, id: "c\(i)") }
        _ = body.tap(.kill, at: 116)
        #expect(body.tap(.kill, at: 117, id: "k1") == .asked(request("eyes_kill", "k1", ["by": .string("studio")])))
        #expect(body.outbox.items.map(\.request.id) == ["k1"])
    }

    @Test("a stale camera press cannot open the eyes long after it was made")
    func staleCannotOpen() throws {
        var body = studio(at: 100)
        try body.face(#"{"eyes":{"open":false}}"#, at: 100)
        _ = body.tap(.camera, at: 101, id: "c1")
        _ = body.tick(at: Moment(3_600))
        #expect(body.poll(after: 0, at: Moment(3_600)).isEmpty)
    }
}

@Suite("Only a press asking to open counts as having asked (rule 7)")
struct CameraAskDirectionTests {
    @Test("a press asking to close never starts the camera")
    func closeAskDoesNotRun() throws {
        var body = studio(at: 100)
        try body.face(#"{"eyes":{"open":true,"why":"Dad's tap on the studio body"}}"#, at: 100)
        #expect(!body.gate.verdict.runs)
        #expect(body.tap(.camera, at: 101, id: "c1")
            == .asked(request("eyes", "c1", ["open": .bool(false), "camera": .string("studio camera"), "by": .string("studio")])))
        try body.face(#"{"eyes":{"open":true,"why":"Dad's tap on the studio body"}}"#, at: 102)
        #expect(!body.gate.verdict.runs)
    }

    @Test("a press asking to open, answered by an opening for the tap, starts it")
    func openAskRuns() throws {
        var body = studio(at: 100)
        _ = body.tap(.camera, at: 101, id: "c1")
        try body.face(#"{"eyes":{"open":true,"why":"Dad's tap on the studio body"}}"#, at: 102)
        #expect(body.gate.verdict.runs)
    }
}
