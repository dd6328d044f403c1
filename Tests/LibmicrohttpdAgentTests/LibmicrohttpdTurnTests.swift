import Testing
@testable import BodyAgent
@testable import AgentHarness
import Glibc
import BodyCore

/// What only libmicrohttpd itself can show (the rest of the agent's tests run
/// on the fake server): its own timeout after a resumed answer.
@Suite("The agent on libmicrohttpd: a resumed answer's runs stay in its turn", .serialized)
struct LibmicrohttpdTurnTests {
    func answer(_ rig: AgentRig, _ client: SocketClient) throws -> (status: Int, body: String) {
        var got: (status: Int, body: String)?
        try rig.wait { got = client.answer(); return got != nil }
        return try #require(got)
    }

    // On a real socket: MHD's timeout of 0 after it writes a resumed answer
    // (read the socket again, watch it again) is libmicrohttpd's own, which no fake shows.
    @Test("a confirming press answers a parked poll, and MHD's runs after the resumed answer are that turn's, not turns of their own")
    func resumedAnswerRunsInItsTurn() throws {
        let rig = try AgentRig(at: 1000, server: .libmicrohttpd)
        let oriel = SocketClient(port: rig.agent.port)
        oriel.send("POST", "/face", body: #"{"onair":{"on":false}}"#)
        #expect(try answer(rig, oriel).status == 200)
        let ears = SocketClient(port: rig.agent.port)
        ears.send("GET", "/ears?after=0&wait=25")
        try rig.wait { !rig.agent.polls.isEmpty }
        try rig.line(true, at: 1001)
        try rig.line(false, at: 1001.1)
        rig.deeds.removeAll()
        try rig.line(true, at: 1002)
        let turn = try #require(rig.turn(with: .answered(200)))
        #expect(turn.first == .turn("a rule's time came"))
        #expect(turn.filter { $0 == .serverRan }.count == 1)
        let got = try answer(rig, ears)
        #expect(got.status == 200)
        #expect(got.body.contains(#""kind":"onair""#))
        #expect(!rig.deeds.contains(.turn("the server's timeout")), "\(rig.turns.map { $0.first! })")
    }
}

extension AgentRig {
    /// For a client of libmicrohttpd on a loopback socket, whose bytes may
    /// take a moment: runs what is ready until `done`, up to 200 passes 1 ms apart.
    func wait(until done: () -> Bool) throws {
        for _ in 0..<200 {
            try settle()
            if done() { return }
            usleep(1000)
        }
    }
}
