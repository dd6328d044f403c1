import Testing
@testable import BodyAgent
@testable import AgentHarness
import BodyCore

/// The page's log lines carry the agent's clock, as everything else a turn did:
/// a line's time is the turn's moment, not the system's.
@Suite("Log lines on the agent's clock")
struct LogTimeTests {
    @Test("the start's line and a turn's line carry the agent's wall time")
    func agentsClock() throws {
        // The rig's wall clock reads 2001-09-09, far from the machine's own,
        // so the system's time cannot pass for it.
        let rig = try AgentRig(at: 1000, wallAhead: 1_000_000_000 - 1000)
        try rig.advance(to: 1002.5)
        rig.agent.turn("a test's event") { _ in
            rig.agent.say("a line in a turn")
            return []
        }
        let lines = rig.agent.log.recent.now.lines
        let started = try #require(lines.first { $0.words.hasPrefix("serving on") })
        #expect(started.at == 1_000_000_000)
        let said = try #require(lines.first { $0.words == "a line in a turn" })
        #expect(said.at == 1_000_000_002.5)
    }
}
