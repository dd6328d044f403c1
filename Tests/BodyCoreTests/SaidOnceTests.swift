import Testing
@testable import BodyCore

@Suite("What the clock brings about is said once, by the entry point that let the time pass")
struct SaidOnceTests {
    @Test("a silence that began before a press's reading is said once, by the tick that asked for the reading")
    func silenceInsidePress() throws {
        var body = studio(at: 100)
        body.wire(.onair, down: false, at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        #expect(body.edge(.onair, down: true, at: 161).isEmpty)
        #expect(body.tick(at: Moment(161.01)) == [.readLevel(.onair)] + silence())
        #expect(body.read(.onair, down: true, at: 161.01)
            == [.log("button onair: Oriel has not been heard from in 60 s", .info),
                .pressed(.onair, .refused("Oriel has not been heard from in 60 s"), at: 161)])
        #expect(body.tick(at: Moment(161.02)).isEmpty)
    }

    @Test("a silence that began inside a push is said by that push")
    func silenceInsidePush() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        #expect(try body.face(#"{"onair":{"on":false}}"#, at: 160) == silence())
        #expect(body.state == Said.off)
        #expect(body.tick(at: Moment(160)).isEmpty)
    }

    @Test("a wait that ran out before a press's reading is said once, by the tick that asked for it")
    func ranOutInsidePress() throws {
        var body = studio(at: 100)
        body.wire(.onair, down: false, at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tapLine(.onair, at: 101)
        _ = body.tapLine(.onair, at: 102, id: "r1")
        _ = body.edge(.onair, down: true, at: 116.996)
        // The window ends at 117.006, after the wait ran out at 117: said once, by the tick.
        #expect(body.tick(at: Moment(117.006)) == [.readLevel(.onair)]
            + ranOut("Oriel did not start On Air within 15 s", withdrawn: true))
        #expect(body.read(.onair, down: true, at: 117.006)
            == [.log("button onair: armed: press again within 5 s to confirm", .info), .pressed(.onair, .armed, at: 116.996)])
        #expect(body.tick(at: Moment(117.01)).isEmpty)
    }
}
