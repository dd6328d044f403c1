import Testing
@testable import BodyAgent
@testable import AgentHarness

/// The preview's own events in the agent's turns, with a Pi camera's feeder
/// played by the test (`[camera] wake`, `FakeFeeder`) and no camera node: the
/// feeder's word and its wait are each a turn, on the agent's clock. (A camera
/// that opens and a first frame's wait running out: FirstFrameTests.)
@Suite("The camera's feeder is heard in turns on the agent's clock", .serialized)
struct CameraTurnTests {
    static let wake = "/run/studio-body-test/picamera.sock"
    let feeder = FakeFeeder()

    /// The body with the eyes opened at 1000 (the feeder woken), one
    /// `GET /preview.jpg` waiting, and the deeds from here on.
    func opened() throws -> (AgentRig, Client) {
        let rig = try AgentRig(at: 1000, more: "[camera]\ndevice = /nonexistent/studio-camera\nwake = \(Self.wake)\n")
        rig.agent.preview.feederConnect = feeder.connect
        let oriel = rig.client()
        // Seen closed first: a gate already open at the first push opens nothing.
        for face in [#"{"onair":{"on":false},"eyes":{"open":false}}"#,
                     #"{"onair":{"on":true,"phase":"live","by":"studio"},"eyes":{"open":true,"why":"Dad's tap on the studio body"}}"#] {
            #expect(try rig.push(oriel, face)?.status == 200)
        }
        #expect(rig.agent.preview.running, "\(rig.deeds) \(rig.agent.preview.words)")
        #expect(feeder.woken == [Self.wake])
        let jpeg = rig.client()
        jpeg.send("GET", "/preview.jpg")
        try rig.settle()
        #expect(rig.agent.preview.waitingForFirstFrame == 1)
        rig.deeds.removeAll()
        return (rig, jpeg)
    }

    func answer(_ rig: AgentRig, _ client: Client) throws -> (status: Int, body: String) {
        try #require(try rig.answer(client))
    }

    @Test("a feeder that does not say ready is given up at the agent's 15 s, in a turn that answers the waiting request before its lines")
    func feederWaitIsATurn() throws {
        let (rig, jpeg) = try opened()
        try rig.advance(to: 1014.9)
        #expect(!rig.deeds.contains(.turn("the camera's feeder's wait ran out")), "\(rig.turns)")
        #expect(rig.agent.preview.running)
        try rig.advance(to: 1015)
        let turn = try #require(rig.turns.first { $0.first == .turn("the camera's feeder's wait ran out") }, "\(rig.turns)")
        #expect(turn.filter { $0 == .serverRan }.count == 1, "\(turn)")
        let answered = try #require(turn.firstIndex(of: .answered(409)), "\(turn)")
        let said = try #require(turn.firstIndex { if case .logged(let w) = $0 { w.contains("preview stopped") } else { false } }, "\(turn)")
        #expect(answered < said)
        #expect(!rig.agent.preview.running)
        let got = try answer(rig, jpeg)
        #expect(got.status == 409)
        #expect(got.body.contains("did not say ready within 15 s"))
        // Answered in its turn's run: no pass of the server's own for it.
        let after = rig.deeds.drop { $0 != .turn("the camera's feeder's wait ran out") }
        #expect(!after.contains(.turn("the server is ready")), "\(rig.turns.map { $0.first! })")
    }

    @Test("the feeder's ready is a turn: the node that cannot be opened ends the preview in it, the waiting request answered before the lines that say why")
    func readyButNoNode() throws {
        let (rig, jpeg) = try opened()
        try feeder.say("ready")
        try rig.settle()
        let spoke = try #require(rig.turns.first { $0.first == .turn("the camera's feeder spoke") }, "\(rig.turns)")
        #expect(spoke.filter { $0 == .serverRan }.count == 1, "\(spoke)")
        let answered = try #require(spoke.firstIndex(of: .answered(409)), "\(spoke)")
        let said = try #require(spoke.firstIndex { if case .logged(let w) = $0 { w.contains("preview not started") } else { false } }, "\(spoke)")
        #expect(answered < said)
        #expect(!rig.agent.preview.running)
        let got = try answer(rig, jpeg)
        #expect(got.status == 409)
        #expect(got.body.contains("camera not found (/nonexistent/studio-camera)"))
        // Answered in its turn's run: no pass of the server's own for it.
        let after = rig.deeds.drop { $0 != .turn("the camera's feeder spoke") }
        #expect(!after.contains(.turn("the server is ready")), "\(rig.turns.map { $0.first! })")
    }
}
