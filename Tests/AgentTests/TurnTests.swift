import Testing
import Glibc
@testable import BodyAgent
@testable import AgentHarness
import BodyCore

/// The order of a turn, read from what the agent did, in order.
@Suite("One turn per event: the agent in the process, on a fake board, a fake server and a manual clock", .serialized)
struct TurnTests {
    /// Pushes `json` and returns the answer, with the rig's deeds from the push on.
    func push(_ rig: AgentRig, _ client: Client, _ json: String) throws -> (status: Int, body: String) {
        try #require(try rig.push(client, json))
    }

    @Test("a push drives the lamp once, before its answer and before its log line, in one server run")
    func pushOrder() throws {
        let rig = try AgentRig()
        let client = rig.client()
        _ = try push(rig, client, #"{"onair":{"on":false},"eyes":{"open":false}}"#)
        rig.deeds.removeAll()
        // On Air and the eyes opened for a tap: the lamp lights, and the camera
        // (none on this body) says why it does not run, in a log line.
        let answer = try push(rig, client, #"{"onair":{"on":true,"phase":"live","by":"studio"},"eyes":{"open":true,"why":"Dad's tap on the studio body"}}"#)
        #expect(answer.status == 200)
        #expect(rig.board.lit[.lamp] == true)
        let turn = try #require(rig.turn(with: .answered(200)))
        #expect(turn.filter { $0 == .drove(.lamp, true) }.count == 1)
        #expect(turn.filter { $0 == .serverRan }.count == 1)
        #expect(turn.filter { $0 == .ticked }.count == 1)
        let lamp = try #require(turn.firstIndex(of: .drove(.lamp, true)))
        let answered = try #require(turn.firstIndex(of: .answered(200)))
        #expect(lamp < answered)
        // What the push logs comes after the answer (the turn's step 5).
        let said = turn.indices.filter { if case .logged = turn[$0] { true } else { false } }
        #expect(!said.isEmpty, "the push said nothing: the order of its log line is untested (\(turn))")
        for i in said { #expect(i > answered) }
        // No other turn drove the lamp.
        #expect(rig.deeds.filter { $0 == .drove(.lamp, true) }.count == 1)
    }

    // 2^64 - 1 and a press trapped the body once: the outbox moved its items past
    // the cursor and the press's seq overflowed.
    @Test("a cursor of 2^64 - 1 is 400 in words, not parked; the press after it is Oriel's as ever")
    func cursorTooFarAhead() throws {
        let rig = try AgentRig(at: 1000)
        let oriel = rig.client()
        _ = try push(rig, oriel, #"{"onair":{"on":false}}"#)
        let far = rig.client()
        far.send("GET", "/ears?after=18446744073709551615&wait=25")
        try rig.settle()
        let refused = try #require(far.answer())
        #expect(refused.status == 400)
        #expect(refused.body.contains("after must be a seq this body handed out"), "\(refused.body)")
        #expect(rig.agent.polls.isEmpty)
        try rig.line(true, at: 1001)
        try rig.line(false, at: 1001.1)
        try rig.line(true, at: 1002)
        try rig.line(false, at: 1002.1)
        try rig.advance(to: 1003)
        let ears = rig.client()
        ears.send("GET", "/ears?after=0&wait=0")
        try rig.settle()
        #expect(ears.answer()?.body.contains(#""kind":"onair""#) == true)
    }

    @Test("a confirming press answers a parked poll in the same turn, before the press's log line")
    func pressAnswersPoll() throws {
        let rig = try AgentRig(at: 1000)
        let oriel = rig.client()
        _ = try push(rig, oriel, #"{"onair":{"on":false}}"#)
        let ears = rig.client()
        ears.send("GET", "/ears?after=0&wait=25")
        try rig.settle()
        #expect(rig.agent.polls.count == 1)
        rig.deeds.removeAll()
        // First press: down at 1001, read at the window's end, up 100 ms later.
        try rig.line(true, at: 1001)
        #expect(rig.board.lit[.armedLED] == true)
        try rig.line(false, at: 1001.1)
        #expect(ears.answer() == nil)
        // The second press, a second later, confirms.
        rig.deeds.removeAll()
        try rig.line(true, at: 1002)
        let turn = try #require(rig.turn(with: .answered(200)))
        #expect(turn.first == .turn("a rule's time came"))
        #expect(turn.filter { $0 == .serverRan }.count == 1)
        let answered = try #require(turn.firstIndex(of: .answered(200)))
        let said = try #require(turn.firstIndex { if case .logged(let w) = $0 { w.contains("asked") || w.contains("onair") } else { false } })
        #expect(answered < said)
        let got = ears.answer()
        #expect(got?.status == 200)
        #expect(got?.body.contains(#""kind":"onair""#) == true)
        #expect(rig.agent.polls.isEmpty)
    }

    @Test("one event ticks the rules once, and the rules' wake-up is re-armed at most once")
    func oneTick() throws {
        let rig = try AgentRig()
        let client = rig.client()
        _ = try push(rig, client, #"{"onair":{"on":false}}"#)
        rig.deeds.removeAll()
        try rig.line(true, at: 1000.5)
        // The edge's turn changed the body (its contact): its tick ran, once.
        let edge = try #require(rig.turns.first)
        #expect(edge.filter { $0 == .ticked }.count == 1, "\(edge)")
        for turn in rig.turns {
            #expect(turn.filter { $0 == .ticked }.count <= 1, "\(turn)")
            #expect(turn.filter { if case .armed = $0 { true } else { false } }.count <= 1, "\(turn)")
        }
    }

    @Test("a turn whose tick the kept outlook shows quiet records no tick, and the rules were not ticked")
    func quietTurnRecordsNoTick() throws {
        let rig = try AgentRig(at: 1000)
        let oriel = rig.client()
        _ = try push(rig, oriel, #"{"onair":{"on":false}}"#)
        // A turn that ticks and changes nothing: the outlook it keeps is quiet past 1000.6.
        rig.clock.mono = 1000.5
        _ = try status(rig, oriel)
        #expect(rig.agent.ticked?.at == 1000.5)
        #expect(rig.agent.outlookTicked && rig.agent.outlook.isQuiet(at: Moment(1000.6)))
        rig.deeds.removeAll()
        rig.clock.mono = 1000.6
        let before = rig.agent.bodyChanges
        _ = try status(rig, oriel)
        let turn = try #require(rig.turn(with: .answered(200)))
        #expect(!turn.contains(.ticked), "\(turn)")
        #expect(rig.agent.ticked?.at == 1000.5, "the rules last saw the time at 1000.5")
        #expect(rig.agent.bodyChanges == before)
    }

    func status(_ rig: AgentRig, _ client: Client) throws -> (status: Int, body: String) {
        client.send("GET", "/status")
        return try #require(try rig.answer(client))
    }

    @Test("a rule's time that comes while a request is handled is not lost: that turn's tick carries it out")
    func timerDuringRequest() throws {
        let rig = try AgentRig(at: 1000)
        let client = rig.client()
        _ = try push(rig, client, #"{"onair":{"on":false}}"#)
        try rig.line(true, at: 1000.5)
        #expect(rig.board.lit[.armedLED] == true)
        try rig.line(false, at: 1000.6)
        // The arming runs out at 1005.5; the clock passes it, and before its
        // timer runs, Oriel asks for the status.
        rig.clock.mono = 1006
        rig.deeds.removeAll()
        #expect(try status(rig, client).status == 200)
        #expect(rig.board.lit[.armedLED] == false)
        let turn = try #require(rig.turn(with: .drove(.armedLED, false)))
        #expect(turn.contains(.answered(200)))
        // The timer that was due then finds nothing left to do, and something is still armed to come.
        try rig.advance(to: 1006)
        #expect(rig.deeds.filter { $0 == .drove(.armedLED, false) }.count == 1)
    }

    @Test("a stop answers parked polls, darkens the lamp and releases the lines")
    func shutdown() throws {
        let rig = try AgentRig()
        let client = rig.client()
        _ = try push(rig, client, #"{"onair":{"on":true,"phase":"live","by":"studio"}}"#)
        #expect(rig.board.lit[.lamp] == true)
        let ears = rig.client()
        ears.send("GET", "/ears?after=0&wait=25")
        try rig.settle()
        #expect(rig.agent.polls.count == 1)
        rig.agent.shutdown(signal: SIGTERM)
        let got = ears.answer()
        #expect(got?.status == 200)
        #expect(got?.body.contains(#""items":[]"#) == true)
        #expect(rig.board.lit[.lamp] == false)
        #expect(rig.board.released)
        #expect(rig.deeds.contains(.drove(.lamp, false)))
    }

    @Test("parked polls share one timer: each is answered when its own wait runs out, and one whose client leaves is dropped")
    func pollsShareATimer() throws {
        let rig = try AgentRig(at: 1000)
        let short = rig.client()
        short.send("GET", "/ears?after=0&wait=2")
        try rig.settle()
        #expect(rig.agent.polls.count == 1)
        let long = rig.client()
        long.send("GET", "/ears?after=0&wait=5")
        try rig.settle()
        #expect(rig.agent.polls.count == 2)
        let gone = rig.client()
        gone.send("GET", "/ears?after=0&wait=3")
        try rig.settle()
        #expect(rig.agent.polls.count == 3)
        #expect(rig.agent.polls.due == 1002)
        rig.deeds.removeAll()
        try rig.advance(to: 1002)
        #expect(rig.deeds.contains(.turn("a poll's wait ran out")))
        var got = try rig.answer(short)
        #expect(got?.status == 200)
        #expect(got?.body.contains(#""items":[]"#) == true)
        #expect(rig.agent.polls.count == 2)
        #expect(rig.agent.polls.due == 1003)
        // The 3 s poll's client goes away: it is dropped now, and the timer moves to the 5 s one.
        gone.leave()
        try rig.settle()
        #expect(rig.agent.polls.count == 1)
        #expect(rig.agent.polls.due == 1005)
        try rig.advance(to: 1004.9)
        #expect(long.answer() == nil)
        try rig.advance(to: 1005)
        got = try rig.answer(long)
        #expect(got?.status == 200)
        #expect(rig.agent.polls.isEmpty)
        #expect(rig.agent.polls.due == nil)
    }
}
