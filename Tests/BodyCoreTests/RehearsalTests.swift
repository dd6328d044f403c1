import Testing
@testable import BodyCore

/// The presses a list of actions says, in order.
private func presses(_ actions: [BodyAction]) -> [(ButtonRole, PressOutcome)] {
    actions.compactMap { if case .pressed(let b, let o, _) = $0 { (b, o) } else { nil } }
}

@Suite("A rehearsal: a two-press through a copy of the rules, paid at start (issue 21)")
struct RehearsalTests {
    @Test("the kill's rehearsal arms, then asks, through the edges and the line's readings; the body itself is untouched")
    func killAsks() throws {
        var body = studio(at: 100)
        for role in ButtonRole.allCases { body.wire(role, down: false, at: 100) }
        try body.face(#"{"onair":{"on":true,"phase":"live"}}"#, at: 100)
        let before = body
        let (copy, actions) = body.rehearsal(of: .kill, at: Moment(200))
        #expect(body == before)
        let said = presses(actions)
        #expect(said.count == 2)
        #expect(said.first.map { $0.0 == .kill && $0.1 == .armed } == true)
        guard case .asked(let request)? = said.last?.1 else {
            Issue.record("the second press did not ask: \(said)")
            return
        }
        #expect(request.id == "rehearsal")
        #expect(actions.contains(.wakePolls))
        #expect(actions.contains(.readLevel(.kill)), "confirmed by the line's readings, as a real press is")
        #expect(copy.hasNews(after: 0))
        #expect(!body.hasNews(after: 0))
        // The copy is left asking: the armed LED's blink is what its outlook shows.
        #expect(copy.outlook(at: Moment(200.7)).indicators != body.outlook(at: Moment(200.7)).indicators)
    }

    @Test("every button's rehearsal confirms two presses, wired or not, and never wires the body")
    func everyButton() {
        let body = studio(at: 100)
        for role in ButtonRole.allCases {
            let (copy, actions) = body.rehearsal(of: role, at: Moment(200))
            #expect(presses(actions).map(\.0) == [role, role], "\(role): \(actions)")
            #expect(copy.contacts[role] != nil)
            #expect(body.contacts[role] == nil)
        }
    }

    @Test("a button held down at the start is rehearsed from rest in the copy; the body's own contact stays down")
    func heldButton() {
        var body = studio(at: 100)
        body.wire(.onair, down: true, at: 100)
        let (_, actions) = body.rehearsal(of: .onair, at: Moment(200))
        #expect(presses(actions).count == 2)
        #expect(body.contacts[.onair]?.isDown == true)
    }
}
