import Testing
@testable import BodyCore

@Suite("What the clock brings about is said once, by the entry point that let the time pass")
struct SaidOnceTests {
    @Test("a silence that began inside a press is said by that press, and not again by the next tick")
    func silenceInsidePress() throws {
        var body = studio(at: 100)
        body.wire(.onair, down: false, at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        #expect(body.edge(.onair, down: true, at: 161)
            == silence() + [.log("button onair: Oriel has not been heard from in 60 s", .info),
                            .pressed(.onair, .refused("Oriel has not been heard from in 60 s"), at: 161)])
        #expect(body.tick(at: Moment(161)).isEmpty)
        #expect(body.tick(at: Moment(162)) == [.readLevel(.onair)], "only the line's reading")
    }

    @Test("a silence that began inside a push is said by that push")
    func silenceInsidePush() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        #expect(try body.face(#"{"onair":{"on":false}}"#, at: 160) == silence())
        #expect(body.state == Said.off)
        #expect(body.tick(at: Moment(160)).isEmpty)
    }

    @Test("a wait that ran out inside a press is said by that press")
    func ranOutInsidePress() throws {
        var body = studio(at: 100)
        body.wire(.onair, down: false, at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.edge(.onair, down: true, at: 101)
        _ = body.edge(.onair, down: false, at: 101.1)
        _ = body.edge(.onair, down: true, at: 102, id: "r1")
        _ = body.edge(.onair, down: false, at: 102.1)
        #expect(body.edge(.onair, down: true, at: 117)
            == ranOut("Oriel did not start On Air within 15 s", withdrawn: true)
            + [.log("button onair: armed: press again within 5 s to confirm", .info), .pressed(.onair, .armed, at: 117)])
        #expect(body.tick(at: Moment(117)).isEmpty)
        #expect(body.tick(at: Moment(118)) == [.readLevel(.onair)], "only the line's reading")
    }
}
