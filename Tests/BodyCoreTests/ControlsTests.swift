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
}
