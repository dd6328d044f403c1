import Testing
@testable import BodyAgent
@testable import AgentHarness
import BodyCore

/// The outlook the agent keeps between turns (Turn.swift, issue 21): a turn
/// that changed nothing in the body skips its tick and reads none of it. Every
/// check here is against the body read afresh, so a kept outlook that is
/// wrong, or a tick skipped that had work, shows.
@Suite("The kept outlook: turns that skip the tick do as turns that tick", .serialized)
struct KeptOutlookTests {
    func push(_ rig: AgentRig, _ client: Client, _ json: String) throws {
        #expect(try rig.push(client, json)?.status == 200)
    }

    /// After a turn: the body is as a tick now leaves it, the lines show what
    /// it shows, and the rules' wake-up is its own next due (`turned`: a turn
    /// came at this moment; the due read later may round past a blink's edge).
    func agrees(_ rig: AgentRig, _ note: String, turned: Bool = true) {
        let now = Moment(rig.clock.mono)
        let body = rig.agent.body
        var ticked = body
        var actions: [BodyAction] = []
        ticked.tick(at: now, ids: { "again" }, into: &actions)
        #expect(actions.isEmpty && ticked == body, "\(note): a tick at \(now.mono) had work left (\(actions))")
        if turned {
            #expect(rig.agent.tickDue == body.nextDue(at: now), "\(note): armed for \(String(describing: rig.agent.tickDue))")
        }
        let shown = body.indicators(at: now)
        for role in rig.board.outputs {
            #expect(rig.board.lit[role] == shown.level(role, at: now.mono), "\(note): \(role) at \(now.mono)")
        }
    }

    @Test("a press round, its asking blink, the wait running out and the problem shown")
    func pressRound() throws {
        let rig = try AgentRig(at: 1000)
        let oriel = rig.client()
        try push(rig, oriel, #"{"onair":{"on":false}}"#)
        agrees(rig, "pushed")
        try rig.line(true, at: 1001)
        agrees(rig, "first press")
        try rig.line(false, at: 1001.1)
        try rig.line(true, at: 1002)
        agrees(rig, "second press")
        try rig.line(false, at: 1002.1)
        agrees(rig, "released")
        // The asking blink (4 Hz) for its 15 s, the wait running out at 1017.01,
        // the problem's 12 s, Oriel's silence at 1060: the clock in steps off the blink's beat.
        let changes = rig.agent.bodyChanges
        var t = 1002.1
        var skipped = 0
        while t < 1075 {
            t += 0.0625 + 0.001
            let before = rig.agent.bodyChanges
            let turns = rig.turns.count
            try rig.advance(to: t)
            let turned = rig.turns.count > turns
            if turned && rig.agent.bodyChanges == before { skipped += 1 }
            agrees(rig, "at \(t)", turned: turned)
        }
        #expect(rig.agent.bodyChanges > changes, "the wait's end and the silence were ticked")
        #expect(skipped > 100, "the blink's turns read the kept outlook (\(skipped) skipped)")
        #expect(rig.deeds.contains { if case .logged(let w) = $0 { w.contains("unread until Oriel pushes") } else { false } })
    }

    @Test("a turn whose event changed the body ticks it, even within the quiet")
    func changedBodyTicks() throws {
        let rig = try AgentRig(at: 1000)
        let oriel = rig.client()
        try push(rig, oriel, #"{"onair":{"on":false}}"#)
        // A turn that ticks and changes nothing after: the outlook it keeps may skip a tick.
        rig.clock.mono = 1000.5
        oriel.send("GET", "/status")
        #expect(try rig.answer(oriel)?.status == 200)
        #expect(rig.agent.outlookTicked && rig.agent.outlook.isQuiet(at: Moment(1000.6)))
        // The edge's turn changes the body (its contact), so its tick runs: the count moves by two.
        let before = rig.agent.bodyChanges
        rig.clock.mono = 1000.6
        rig.board.press(true, at: 1000.6)
        try rig.settle()
        #expect(rig.agent.bodyChanges == before + 2)
        #expect(rig.agent.ticked?.at == 1000.6)
        try rig.advance(to: 1000.61)
        agrees(rig, "the window's end")
        #expect(rig.board.lit[.armedLED] == true)
    }
}
