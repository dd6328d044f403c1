import Testing
@testable import BodyCore

@Suite("Every button's rule behind one protocol")
struct ControlsTests {
    @Test("each button role has exactly one control, in the order the body goes through them")
    func oneControlPerRole() {
        let body = studio(at: 100)
        #expect(body.controls.all.map(\.role) == ButtonRole.allCases)
    }

    @Test("two bodies differ when one control differs")
    func equality() throws {
        var a = studio(at: 100)
        let b = a
        try a.face(#"{"onair":{"on":false}}"#, at: 100)
        var c = a
        _ = c.tap(.onair, at: 101)
        _ = c.tap(.onair, at: 102)
        #expect(a != b)
        #expect(a.controls != c.controls)
        #expect(a.controls == a.controls)
    }

    @Test("requests that run out at one tick are said in the controls' order, each withdrawn")
    func ranOutInOrder() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false},"eyes":{"red":true}}"#, at: 100)
        _ = body.tap(.camera, at: 101, id: "c1")
        _ = body.tap(.kill, at: 101, id: "k1")
        _ = body.tap(.kill, at: 101.5, id: "k1")
        _ = body.tap(.onair, at: 102, id: "o1")
        _ = body.tap(.onair, at: 102.5, id: "o1")
        #expect(body.onair.asking.out?.id == "o1" && body.kill.asking.out?.id == "k1" && body.camera.asks["c1"] != nil)
        let out = body.tick(at: Moment(130)).compactMap { action -> String? in
            if case .unanswered(let id, let withdrawn) = action, withdrawn { return id }
            return nil
        }
        #expect(out == ["o1", "k1", "c1"])
        #expect(body.outbox.items.isEmpty)
        #expect(body.controls.nextDue.map { $0 > 130 } ?? true)
    }
}
