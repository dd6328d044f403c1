import Foundation
import Testing
import BodyTestSupport

/// The lamp, the two-press and asking (DESIGN rules 1-6), through the real binary.
@Suite("On Air, end to end")
struct OnAirTests {
    @Test("at start the state is unknown, unread in words, and the lamp flashes the unread pattern")
    func startState() async throws {
        let body = try await BodyProcess.start()
        let onair = try await body.onair()
        #expect(onair.string("value") == "unknown")
        #expect(onair.string("unread") == "Oriel has not said whether On Air is on")
        // 0.2 s lit every 2 s: sampled until three bursts were seen, about a
        // tenth of the samples are lit (the exact pattern is BodyCore's, tested
        // at literal times). A stalled sampler takes fewer samples, not more lit ones.
        var samples: [Bool] = []
        let start = Date()
        func bursts() -> Int { zip(samples, samples.dropFirst()).filter { !$0 && $1 }.count + (samples.first == true ? 1 : 0) }
        while Date().timeIntervalSince(start) < 30, bursts() < 3 || samples.count < 40 {
            samples.append(try await body.status().object("lines").bool("lamp") ?? false)
            await pause(0.03)
        }
        let lit = samples.filter { $0 }.count
        #expect(lit > 0 && Double(lit) < Double(samples.count) * 0.25, "lit \(lit) of \(samples.count)")
        #expect(bursts() >= 3, "bursts \(bursts()) in \(Date().timeIntervalSince(start)) s")
        #expect(Date().timeIntervalSince(start) > 2, "three bursts take more than one 2 s period")
    }

    @Test("pushes of on, off and unread drive the lamp")
    func pushesDriveTheLamp() async throws {
        let body = try await BodyProcess.start()
        var answer = try await body.push(#"{"onair":{"on":true,"phase":"live","by":"dad","since":"2026-11-04T17:50:00Z"}}"#)
        #expect(answer.status == 200)
        #expect(answer.json.object("lines").bool("lamp") == true)
        #expect(answer.json.object("onair").string("stage") == "LIVE")
        answer = try await body.push(#"{"onair":{"on":false}}"#)
        #expect(answer.json.object("lines").bool("lamp") == false)
        #expect(answer.json.object("onair").string("value") == "off")
        answer = try await body.push(#"{"onair":{"on":true,"unread":"Oriel cannot read cwkPippa"}}"#)
        #expect(answer.json.object("onair").string("value") == "unknown")
        #expect(answer.json.object("onair").string("unread") == "Oriel cannot read cwkPippa")
        #expect(answer.json.object("onair")["on"] is NSNull)
    }

    @Test("POST /sim/press answers once its last press has landed, with what it became: /status read at once shows it")
    func simPressAnswersWhenLanded() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":false}}"#)
        let began = Date()
        let once = try await body.press("onair")
        // Down, held 0.1 s, then the release's 10 ms window: not before.
        #expect(Date().timeIntervalSince(began) >= 0.11)
        #expect(once.json.string("pressed") == "onair" && once.json["presses"] as? Int == 1)
        #expect(once.json.string("became") == "armed")
        #expect(try await body.onair().string("value") == "armed")
        // The next press, once the arming's 0.4 s settle is over (a press inside
        // it is the same touch; how soon this one comes is the machine's to say):
        // it fires, and the answer says so.
        await pause(max(0, 0.5 - Date().timeIntervalSince(began)))
        let second = try await body.press("onair")
        #expect(second.json.string("became") == "asked")
        #expect(second.json.string("words")?.isEmpty == false)
        #expect(try await body.onair().string("value") == "asking")
        // A graze of two presses 0.1 s apart, answered after the second: armed again
        // would be wrong here (a request is out), so it says what it waits for.
        let graze = try await body.press("onair", times: 2, gap: 0.1)
        #expect(graze.json["presses"] as? Int == 2)
        #expect(graze.json.string("became") == "waiting")
    }

    @Test("a graze (two presses 100 ms apart) only arms")
    func graze() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":false}}"#)
        try await body.press("onair", times: 2, gap: 0.1)
        await pause(0.2)
        #expect(try await body.onair().string("value") == "armed")
        #expect(try await body.status().object("lines").bool("armed-led") == true)
        #expect(try await body.ears().items().isEmpty)
    }

    // Oriel's cursor from before a restart, ahead of this boot's seqs (a Pi
    // with no clock chip that booted with its clock behind): the press's item
    // is news to it, answered at once, not hidden until the wait runs out.
    @Test("a long poll with a cursor ahead of the body's seqs gets a waiting item at once")
    func cursorAheadGetsItem() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":false}}"#)
        try await body.press("onair")
        await pause(0.6)
        try await body.press("onair")
        #expect(try await eventually(within: 5) { try await body.onair().string("value") == "asking" })
        let asked = Date()
        // A cursor far ahead of every seq: the furthest the outbox takes (Outbox.largestAfter).
        let answer = try await body.get("/ears?after=1000000000000000&wait=20", timeout: 30)
        #expect(Date().timeIntervalSince(asked) < 5, "the poll waited for its 20 s")
        #expect(answer.json.items().map { $0.string("kind") } == ["onair"])
    }

    @Test("a deliberate second press queues exactly one item that a waiting long poll receives promptly")
    func deliberateSecondPress() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":false}}"#)
        let next = try await body.ears()["next"] as? UInt64 ?? 0
        async let waiting = body.get("/ears?after=\(next)&wait=20", timeout: 30)
        await pause(0.3)
        try await body.press("onair")
        await pause(0.6)
        let pressedAt = Date()
        try await body.press("onair")
        let answer = try await waiting
        let delay = Date().timeIntervalSince(pressedAt)
        // The poll waits 20 s: one answered only when its wait ran out is far past 5 s.
        #expect(delay < 5, "the poll answered \(delay) s after the press")
        let items = answer.json.items()
        #expect(items.count == 1)
        #expect(items.first?.string("kind") == "onair")
        #expect(items.first?.bool("on") == true)
        #expect(items.first?.string("by") == "studio")
        #expect((items.first?["seq"] as? UInt64 ?? 0) > next)
        #expect(try await body.onair().string("value") == "asking")
    }

    @Test("an item stays until a poll acknowledges it with after")
    func acknowledgement() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
        try await body.press("kill", times: 2)
        // A long poll, not a fixed pause: on a loaded machine the press may still be settling.
        let first = try await body.ears(after: 0, wait: 5)
        #expect(first.items().count == 1)
        let again = try await body.ears(after: 0)
        #expect(again.items().count == 1, "not acknowledged yet: still there")
        let seq = try #require(first.items().first?["seq"] as? UInt64, "the double press's item")
        let acked = try await body.ears(after: seq)
        #expect(acked.items().isEmpty)
        #expect(try await body.ears(after: 0).items().isEmpty, "gone once acknowledged")
        #expect(first.string("boot")?.isEmpty == false)
    }

    @Test("an answered error for the request is shown for 12 s, then cleared")
    func answeredError() async throws {
        try await untilJudged("the last 3 s before 12 s") { _ in
            let body = try await BodyProcess.start()
            try await body.push(#"{"onair":{"on":false}}"#)
            try await body.press("onair", times: 2)
            // A long poll, not a pause: on a loaded machine the press may still be settling.
            let id = try #require(try await body.ears(after: 0, wait: 5).items().first?.string("id"), "the double press's request")
            let sentAt = Date()
            let answer = try await body.push(#"{"onair":{"on":false,"answered":{"id":"\#(id)","error":"cwkPippa refused: the studio is booked"}}}"#)
            let pushedAt = Date()
            #expect(answer.json.object("onair").string("problem") == "cwkPippa refused: the studio is booked")
            #expect(answer.json.object("onair").string("value") == "off")
            #expect(answer.json.object("onair")["asked"] is NSNull)
            // The body took the push between `sentAt` and `pushedAt`: the words are
            // due until 12 s after the first at least, and gone 12 s after the second.
            let seen = try await readings(every: 0.5, within: 30, until: { $0["problem"] is NSNull }) { try await body.onair() }
            let shownTo = sentAt.addingTimeInterval(12), goneFrom = pushedAt.addingTimeInterval(12)
            for r in seen where r.answered(before: shownTo) {
                #expect(r.value.string("problem") == "cwkPippa refused: the studio is booked",
                        "at \(r.answered.timeIntervalSince(sentAt)) s")
            }
            for r in seen where r.sent(after: goneFrom) {
                #expect(r.value["problem"] is NSNull, "at \(r.sent.timeIntervalSince(pushedAt)) s after the push")
            }
            #expect(seen.last?.value["problem"] is NSNull, "cleared within 30 s")
            return seen.contains { $0.answered(before: shownTo) && !$0.answered(before: shownTo.addingTimeInterval(-3)) }
        }
    }

    @Test("a request Oriel does not carry runs out at 15 s, says so, and is withdrawn from the outbox")
    func silenceRunsOut() async throws {
        try await untilJudged("the last 3 s before 15 s") { _ in
            let body = try await BodyProcess.start(silence: "120s")
            try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
            try await body.press("onair", times: 2)
            let asking = try await body.onair()
            #expect(asking.string("value") == "asking")
            #expect(try await body.ears().items().count == 1)
            // Timed from the body's own word of when it asked, not from when the
            // press's answer reached the test (a loaded machine delays that).
            let at = try #require(asking.object("asked")["at"] as? Double, "the request's time")
            let runsOut = Date(timeIntervalSince1970: at + 15)
            let seen = try await readings(every: 0.5, within: 30, until: { $0.string("value") != "asking" }) { try await body.onair() }
            for r in seen where r.answered(before: runsOut) {
                #expect(r.value.string("value") == "asking", "at \(r.answered.timeIntervalSince1970 - at) s")
            }
            let last = try #require(seen.last)
            #expect(last.value.string("value") == "on")
            #expect(last.value.string("problem") == "Oriel did not end On Air within 15 s")
            #expect(try await body.ears().items().isEmpty, "withdrawn: nothing acts on a press already reported unanswered")
            return seen.contains { $0.answered(before: runsOut) && !$0.answered(before: runsOut.addingTimeInterval(-3)) }
        }
    }

    @Test("a state that moves under an armed control disarms it")
    func stateMovesUnderArming() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":false}}"#)
        try await body.press("onair")
        await pause(0.2)
        #expect(try await body.onair().string("value") == "armed")
        try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
        #expect(try await body.onair().string("value") == "on")
        try await body.press("onair")
        await pause(0.2)
        #expect(try await body.onair().string("value") == "armed", "the next press starts over")
        #expect(try await body.ears().items().isEmpty)
    }

    @Test("an unread state answers a press with its reason and does not arm")
    func unreadPress() async throws {
        let body = try await BodyProcess.start()
        try await body.press("onair")
        await pause(0.2)
        #expect(try await body.onair().string("value") == "unknown")
        #expect(body.log.contains("Oriel has not said whether On Air is on"))
    }

    @Test("with action = end-only a press while off does nothing and says why")
    func endOnly() async throws {
        let body = try await BodyProcess.start(board: """
            [board]
            kind = sim
            [lamp]
            line = SIM-LAMP
            [armed-led]
            line = SIM-ARMED
            [button onair]
            line = SIM-ONAIR
            action = end-only
            """)
        try await body.push(#"{"onair":{"on":false}}"#)
        try await body.press("onair")
        await pause(0.2)
        #expect(try await body.onair().string("value") == "off")
        #expect(body.log.contains("only ends On Air"))
        try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
        try await body.press("onair", times: 2)
        let items = try await body.ears(after: 0, wait: 5).items()  // a long poll: the press may still be settling
        #expect(items.count == 1)
        #expect(items.first?.bool("on") == false)
    }

    @Test("Wrap up shows only while live or solo play, and its press asks for the wrapup stage")
    func wrapUp() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":true,"phase":"prep"}}"#)
        #expect(try await body.status().object("wrapup").string("value") == "hidden")
        try await body.push(#"{"onair":{"on":true,"phase":"solo_play"}}"#)
        #expect(try await body.status().object("wrapup").string("value") == "ready")
        try await body.press("wrapup", times: 2)
        let items = try await body.ears(after: 0, wait: 5).items()  // a long poll: the press may still be settling
        #expect(items.count == 1)
        #expect(items.first?.string("kind") == "stage")
        #expect(items.first?.string("stage") == "wrapup")
        #expect(try await body.status().object("wrapup").string("value") == "asking")
        try await body.push(#"{"onair":{"on":true,"phase":"wrapup"}}"#)
        #expect(try await body.status().object("wrapup").string("value") == "hidden")
    }

    @Test("the eyes kill asks with an eyes_kill item")
    func eyesKill() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":false},"eyes":{"red":true,"names":["studio camera"],"mode":"manual"}}"#)
        try await body.press("kill", times: 2)
        let items = try await body.ears(after: 0, wait: 5).items()  // a long poll: the press may still be settling
        #expect(items.map { $0.string("kind") } == ["eyes_kill"])
        #expect(try await body.status().object("eyes").string("kill") == "asking")
        try await body.push(#"{"eyes":{"red":true,"killing":true}}"#)
        #expect(try await body.status().object("eyes").string("kill") == "ready")
    }

    @Test("a push without an onair object keeps the state")
    func absentOnAirKeeps() async throws {
        let body = try await BodyProcess.start()
        try await body.push(#"{"onair":{"on":true,"phase":"live"}}"#)
        try await body.push(#"{"eyes":{"red":false}}"#)
        #expect(try await body.onair().string("value") == "on")
        try await body.push(#"{"onair":"nonsense"}"#)
        #expect(try await body.onair().string("value") == "on")
    }
}
