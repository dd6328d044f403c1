import Testing
@testable import BodyCore

/// The presses a list of actions says, in order.
private func presses(_ actions: [BodyAction]) -> [(ButtonRole, PressOutcome)] {
    actions.compactMap { if case .pressed(let b, let o, _) = $0 { (b, o) } else { nil } }
}

private func asked(_ outcome: PressOutcome) -> Bool {
    if case .asked = outcome { true } else { false }
}

@Suite("A rehearsal: a two-press through a copy of the rules, paid at start (issue 21)")
struct RehearsalTests {
    @Test("the kill's rehearsal arms, then asks, through the edges and the line's readings, and leaves the copy asking")
    func killAsks() throws {
        var body = studio(at: 100)
        for role in ButtonRole.allCases { body.wire(role, down: false, at: 100) }
        let (copy, actions) = body.rehearsal(of: .kill, at: Moment(200))
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
        #expect(copy.lastPress[.kill]?.became == "asked")
        // (The body itself cannot change: `rehearsal` is not mutating. That the
        // agent keeps nothing of it is RehearseTests'.)
        // The copy is left asking: the armed LED's blink is what its outlook shows.
        #expect(copy.outlook(at: Moment(200.7)).indicators != body.outlook(at: Moment(200.7)).indicators)
    }

    @Test("every button arms where it arms and then asks, for any debounce and at any clock time (the window's end reckoned as the contact does)",
          arguments: [0.0, 0.010, 0.1])
    func everyButton(debounce: Double) {
        // 63.875719 s with 10 ms: `t + (0.5 + 0.01)` is a bit below `(t + 0.5) + 0.01`, and a reading
        // taken there was not asked for, so the second press was lost as noise.
        for start in [0.1, 63.875719, 200, 12_345.678901] {
            var body = studio(at: start)
            for role in ButtonRole.allCases { body.wire(role, debounce: debounce, down: false, at: start) }
            for role in ButtonRole.allCases {
                let (copy, actions) = body.rehearsal(of: role, at: Moment(start))
                let said = presses(actions)
                #expect(said.map(\.0) == [role, role], "\(role) at \(start), debounce \(debounce): \(said)")
                #expect(said.last.map { asked($0.1) } == true, "\(role) at \(start), debounce \(debounce): \(said)")
                if role != .camera { #expect(said.first?.1 == .armed, "\(role): \(said)") }
                #expect(!actions.contains { if case .noise = $0 { true } else { false } }, "\(role) at \(start): \(actions)")
                #expect(copy.hasNews(after: 0))
            }
        }
    }

    @Test("an unwired button is wired in the copy and pressed twice; one held down at the start is pressed twice from rest")
    func wiring() {
        var body = studio(at: 100)
        let (copy, actions) = body.rehearsal(of: .wrapup, at: Moment(200))
        #expect(presses(actions).count == 2)
        #expect(copy.contacts[.wrapup]?.isDown == false)
        body.wire(.onair, down: true, at: 100)
        let held = body.rehearsal(of: .onair, at: Moment(200))
        let said = presses(held.actions)
        #expect(said.count == 2)
        #expect(said.first?.1 == .armed)
        #expect(said.last.map { asked($0.1) } == true)
    }
}
