import Testing
@testable import BodyAgent
@testable import AgentHarness
import BodyCore

/// `GET /where` in the agent's turns: gpsd's reports, gpsd gone and the
/// request's wait are each one turn, judged on the agent's clock. gpsd is
/// `FakeGpsd`: a session that gives only the reports the test hands it.
@Suite("GET /where on the agent's clock: gpsd's reports and the 15 s wait are turns", .serialized)
struct WhereTurnTests {
    /// When the request is asked, on the agent's monotonic clock: far past
    /// any machine's uptime, so a time read from the system's clock instead
    /// falls long before every deadline here.
    static let asked: Double = 100_000_000
    /// The agent's wall clock at `asked` is 2030-01-01T00:00:00Z, years from
    /// the system's: a fix judged on the system's clock is stale.
    static let wallAhead: Double = 1_893_456_000 - asked
    static let gpsdAt = "127.0.0.1:2947"

    /// A whole fix (3D, an error estimate, an altitude), `behind` seconds before
    /// 2030-01-01T00:00:00Z: it answers at once if fresh.
    static func tpv(behind: Double) -> GpsReport {
        .fix(GpsFix(mode: 3, time: 1_893_456_000 - behind, latitude: 52.5, longitude: 13.4,
                    altitudeMSL: 34.5, eph: 4.2, device: "/dev/x"))
    }

    let gpsd = FakeGpsd()

    /// The agent with location allowed, one `GET /where` waiting on the
    /// test's gpsd, and the deeds from here on.
    func asked() throws -> (AgentRig, Client) {
        let rig = try AgentRig(at: Self.asked, wallAhead: Self.wallAhead,
                               more: "[location]\nallowed = yes\ngpsd = \(Self.gpsdAt)\n")
        rig.agent.location.sessionMaker = gpsd.open
        let client = rig.client()
        client.send("GET", "/where")
        try rig.settle()
        #expect(rig.agent.location.watching)
        #expect(gpsd.opened == [Self.gpsdAt])
        #expect(gpsd.watching)
        rig.deeds.removeAll()
        return (rig, client)
    }

    @Test("a fix 29 s behind the agent's wall clock is fresh: answered in the turn that read it, in its one server run")
    func freshOnTheAgentsClock() throws {
        let (rig, client) = try asked()
        try gpsd.send(Self.tpv(behind: 29))
        let got = try #require(try rig.answer(client))
        #expect(got.status == 200)
        #expect(got.body.contains(#""sampled_at":1893455971"#))
        let turn = try #require(rig.turn(with: .answered(200)))
        #expect(turn.first == .turn("gpsd's reports came"))
        #expect(turn.filter { $0 == .serverRan }.count == 1)
        // The answer went out in that turn: no wake-up of the server for a pass of its own.
        #expect(!rig.deeds.contains(.turn("the server is ready")), "\(rig.turns.map { $0.first! })")
        #expect(!rig.agent.location.watching)
        #expect(!gpsd.watching)
    }

    @Test("a fix 31 s behind the agent's wall clock is stale; the request is refused at the agent's 15 s, not before")
    func staleAndTheDeadline() throws {
        let (rig, client) = try asked()
        try gpsd.send(Self.tpv(behind: 31))
        try rig.settle()
        #expect(rig.deeds.contains(.turn("gpsd's reports came")))
        #expect(client.answer() == nil)
        try rig.advance(to: Self.asked + 14.99)
        #expect(!rig.deeds.contains(.answered(504)))
        #expect(rig.agent.location.watching)
        try rig.advance(to: Self.asked + 15)
        let turn = try #require(rig.turn(with: .answered(504)))
        #expect(turn.first == .turn("a /where's time came"))
        let got = try #require(try rig.answer(client))
        #expect(got.status == 504)
        #expect(got.body.contains("the receiver gave only stale fixes"))
        #expect(!rig.agent.location.watching)
        #expect(!gpsd.watching)
    }

    @Test("gpsd hanging up answers the waiting request in the turn that heard it; the next request watches again")
    func gpsdGoneThenBack() throws {
        let (rig, client) = try asked()
        try gpsd.hangUp()
        let got = try #require(try rig.answer(client))
        #expect(got.status == 504)
        #expect(got.body.contains("gpsd stopped answering"))
        let turn = try #require(rig.turn(with: .answered(504)))
        #expect(turn.first == .turn("gpsd's reports came"))
        // The loss is logged after the answer, in the same turn (its step 5).
        let answered = try #require(turn.firstIndex(of: .answered(504)))
        let said = try #require(turn.firstIndex { if case .logged(let w) = $0 { w.contains("lost the watch") } else { false } })
        #expect(answered < said)
        #expect(!rig.agent.location.watching)
        #expect(!gpsd.watching)
        client.send("GET", "/where")
        try rig.settle()
        #expect(rig.agent.location.watching)
        #expect(gpsd.opened == [Self.gpsdAt, Self.gpsdAt])
        try gpsd.send(Self.tpv(behind: 0))
        #expect(try rig.answer(client)?.status == 200)
    }
}
