import Testing
@testable import BodyAgent
@testable import AgentHarness
import BodyCore

/// The start's rehearsal (Rehearse.swift): paid in the process, seen nowhere.
@Suite("The start's two-press rehearsal is never seen (issue 21)", .serialized)
struct RehearseTests {
    func ask(_ rig: AgentRig, _ client: Client, _ method: String, _ path: String, body: String = "") throws -> String {
        client.send(method, path, body: body)
        let answer = try #require(try rig.answer(client))
        #expect(answer.status == 200, "\(method) \(path): \(answer.body)")
        return answer.body
    }

    @Test("a start rehearses the board's button (two presses, an answer written) and nothing is counted, queued, lit, said or shown of it; a real two-press then asks once, with its own id")
    func unseen() throws {
        let rig = try AgentRig(at: 1000)
        // It ran: the fake board's one button, armed and asked in the copy, its answers written.
        #expect(rig.agent.rehearsed.presses == 2)
        #expect(rig.agent.rehearsed.bytes > 0)
        #expect(rig.agent.metrics.presses.isEmpty, "\(rig.agent.metrics.presses)")
        #expect(rig.agent.metrics.pressToTaken.count == 0)
        #expect(!rig.agent.body.hasNews(after: 0))
        #expect(rig.agent.body.lastPress.isEmpty)
        #expect(rig.agent.body.state == .atStart, "the copy's On Air, not the body's")
        #expect(rig.agent.body.contacts[.onair]?.isDown == false)
        #expect(rig.board.lit[.armedLED] != true)
        #expect(!rig.deeds.contains { if case .logged(let w) = $0 { w.contains("button") || w.contains("rehearsal") } else { false } })
        let oriel = rig.client()
        _ = try ask(rig, oriel, "POST", "/face", body: #"{"onair":{"on":false}}"#)
        #expect(try ask(rig, oriel, "GET", "/ears?after=0&wait=0").contains(#""items":[]"#))

        try rig.line(true, at: 1001)
        try rig.line(false, at: 1001.1)
        try rig.line(true, at: 1002)
        let ears = try ask(rig, oriel, "GET", "/ears?after=0&wait=0")
        #expect(ears.contains(#""kind":"onair""#), "\(ears)")
        #expect(!ears.contains("rehearsal"), "\(ears)")
        #expect(rig.agent.metrics.presses.first { $0.key.button == .onair && $0.key.outcome == .asked }?.value == 1)
    }
}
