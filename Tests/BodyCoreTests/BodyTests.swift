import Testing
@testable import BodyCore

@Suite("The whole body as one value: push, press, poll, tick")
struct BodyTraceTests {
    @Test("a full On Air round: arm, confirm, Oriel takes it, the push shows it")
    func fullRound() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        #expect(body.tap(.onair, at: 101) == .armed)
        #expect(body.tap(.onair, at: 101.2) == .armed)
        let asked = body.tap(.onair, at: 102, id: "r1")
        #expect(asked == .asked(request("onair", "r1", ["on": .bool(true), "by": .string("studio")])))
        #expect(body.onAirValue(at: Moment(102)) == "asking")
        let items = body.poll(after: 0, at: Moment(103))
        #expect(items.map(\.request.id) == ["r1"])
        #expect(items[0].seq == 1_764_500_100_001)
        try body.face(#"{"onair":{"on":true,"phase":"prep","by":"studio"}}"#, at: 104)
        #expect(body.onAirValue(at: Moment(104)) == "on")
        #expect(body.onair.asking.out == nil)
        #expect(body.lines(at: 104) == [.lamp: true, .armedLED: false, .eyeLED: false])
        #expect(body.poll(after: items[0].seq, at: Moment(105)).isEmpty)
    }

    @Test("no flag: a confirmed press changes nothing the lamp shows until Oriel pushes")
    func noFlag() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102)
        #expect(body.state == Said.off)
        #expect(body.lines(at: 110)[.lamp] == false)
    }

    @Test("a state moving under an armed control disarms it")
    func moveDisarms() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        #expect(body.tap(.onair, at: 101) == .armed)
        try body.face(#"{"onair":{"on":true,"phase":"live"}}"#, at: 102)
        #expect(body.onAirValue(at: Moment(102)) == "on")
        #expect(body.tap(.onair, at: 103) == .armed)
    }

    @Test("a stage moving under an armed Wrap up disarms it")
    func stageMoveDisarms() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true,"phase":"live"}}"#, at: 100)
        _ = body.tap(.wrapup, at: 101)
        try body.face(#"{"onair":{"on":true,"phase":"solo_play"}}"#, at: 102)
        #expect(body.group.armed(at: Moment(102).mono) == nil)
        #expect(body.tap(.wrapup, at: 103) == .armed)
    }

    @Test("the same state pushed again leaves the arming alone")
    func samePushKeepsArming() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        try body.face(#"{"onair":{"on":false,"by":"dad"}}"#, at: 102)
        #expect(body.tap(.onair, at: 103) == .asked(request("onair", "r1", ["on": .bool(true), "by": .string("studio")])))
    }

    @Test("an unread state answers with its reason and disarms")
    func unreadAnswers() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        try body.face(#"{"onair":{"unread":"Oriel cannot read cwkPippa"}}"#, at: 102)
        #expect(body.tap(.onair, at: 103) == .refused("Oriel cannot read cwkPippa"))
        #expect(body.group.armed(at: 103) == nil)
        #expect(body.tap(.onair, at: 104) == .refused("Oriel cannot read cwkPippa"))
        #expect(body.outbox.items.isEmpty)
    }

    @Test("at start a press answers that Oriel has not said")
    func startPress() {
        var body = studio(at: 100)
        #expect(body.tap(.onair, at: 101) == .refused("Oriel has not said whether On Air is on"))
    }

    @Test("end-only through the body: a press while off says why and asks nothing")
    func endOnly() throws {
        var body = studio(BodySettings(name: "studio", onAirAction: .endOnly), at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        #expect(body.tap(.onair, at: 101) == .refused("this On Air button only ends On Air, and On Air is off"))
        #expect(body.tap(.onair, at: 102) == .refused("this On Air button only ends On Air, and On Air is off"))
        #expect(body.outbox.items.isEmpty)
    }

    @Test("the kill is a stop: unread does not hold it back, nor another control's request")
    func killIsAStop() throws {
        var body = studio(at: 100)
        #expect(body.tap(.kill, at: 101) == .armed)
        #expect(body.tap(.kill, at: 102, id: "k1") == .asked(request("eyes_kill", "k1", ["by": .string("studio")])))
        var busy = studio(at: 100)
        try busy.face(#"{"onair":{"on":true,"phase":"live"},"eyes":{"red":true}}"#, at: 100)
        _ = busy.tap(.onair, at: 101)
        _ = busy.tap(.onair, at: 102, id: "r1")
        _ = busy.tap(.kill, at: 103)
        #expect(busy.tap(.kill, at: 104, id: "k1") == .asked(request("eyes_kill", "k1", ["by": .string("studio")])))
        #expect(busy.outbox.items.map(\.request.id) == ["r1", "k1"])
    }

    @Test("the kill settles when a push shows the house closing, and the eyes moving disarms it")
    func killSettles() throws {
        var body = studio(at: 100)
        try body.face(#"{"eyes":{"red":true,"names":["studio camera"]}}"#, at: 100)
        _ = body.tap(.kill, at: 101)
        try body.face(#"{"eyes":{"red":true,"killing":true}}"#, at: 101.5)
        #expect(body.kill.word(armed: body.group.isArmed(.kill, at: 101.5)).description == "ready")
        _ = body.tap(.kill, at: 102)
        _ = body.tap(.kill, at: 103, id: "k1")
        try body.face(#"{"eyes":{"red":true,"killing":false}}"#, at: 104)
        #expect(body.kill.asking.out?.id == "k1")
        try body.face(#"{"eyes":{"red":true,"killing":true}}"#, at: 105)
        #expect(body.kill.asking.out == nil)
    }

    @Test("an answered in the eyes object reaches the kill it names")
    func killAnsweredInEyes() throws {
        var body = studio(at: 100)
        try body.face(#"{"eyes":{"red":true}}"#, at: 100)
        _ = body.tap(.kill, at: 101)
        _ = body.tap(.kill, at: 102, id: "k1")
        try body.face(#"{"eyes":{"red":true,"answered":{"id":"k1","error":"the doorbell camera refused"}}}"#, at: 103)
        #expect(body.kill.asking.out == nil)
        #expect(body.kill.asking.problemWords(at: Moment(103)) == "the doorbell camera refused")
    }

    @Test("Wrap up through the body: asks, and settles when the push shows WRAP-UP")
    func wrapUp() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true,"phase":"live"}}"#, at: 100)
        _ = body.tap(.wrapup, at: 101)
        #expect(body.tap(.wrapup, at: 102, id: "w1")
            == .asked(request("stage", "w1", ["stage": .string("wrapup"), "by": .string("studio")])))
        try body.face(#"{"onair":{"on":true,"phase":"wrapup"}}"#, at: 103)
        #expect(body.wrapup.asking.out == nil)
        #expect(body.wrapup.word(state: body.state, armed: false).description == "hidden")
    }

    @Test("the camera button asks for the opposite of what Oriel says and marks the body as having asked")
    func camera() throws {
        var body = studio(at: 100)
        _ = body.tap(.kill, at: 100)
        #expect(body.tap(.camera, at: 101, id: "c1")
            == .asked(request("eyes", "c1", ["open": .bool(true), "camera": .string("studio camera"), "by": .string("studio")])))
        #expect(body.group.armed(at: 101) == .kill, "a one-press control leaves the arming alone")
        #expect(body.gate.askedAt == 101)
        try body.face(#"{"eyes":{"open":true,"why":"Dad's tap on the studio body","red":true}}"#, at: 102)
        #expect(body.gate.verdict.runs)
        #expect(body.tap(.camera, at: 103, id: "c2")
            == .asked(request("eyes", "c2", ["open": .bool(false), "camera": .string("studio camera"), "by": .string("studio")])))
        let named = studio(BodySettings(name: "studio", camera: "desk cam"), at: 0)
        #expect(named.settings.camera == "desk cam")
    }

    @Test("until passing stops the camera with Oriel silent, on the clock alone")
    func untilWithOrielSilent() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false},"eyes":{"open":false}}"#, at: 100)
        try body.face(#"{"eyes":{"open":true,"why":"a tap","until":\#(Moment(150).wall)}}"#, at: 101)
        #expect(body.gate.verdict.runs)
        #expect(body.nextDue(at: Moment(101)) == 150)
        body.waits(after: 0, at: Moment(140))
        _ = body.tick(at: Moment(149.5))
        #expect(body.gate.verdict.runs)
        #expect(body.nextDue(at: Moment(149.5)) == 150)
        _ = body.tick(at: Moment(150))
        #expect(body.gate.verdict == .stop(why: "until passed"))
    }

    @Test("the camera going away stops the preview through the body")
    func cameraGone() throws {
        var body = studio(at: 100)
        try body.face(#"{"eyes":{"open":false}}"#, at: 100)
        try body.face(#"{"eyes":{"open":true,"why":"a tap"}}"#, at: 101)
        #expect(body.cameraGone("camera: /dev/video0 went away")
            == [.preview(run: false, why: "camera: /dev/video0 went away")])
        #expect(body.gate.verdict == .stop(why: "camera: /dev/video0 went away"))
        #expect(body.cameraGone("camera: /dev/video0 went away").isEmpty, "said once, not again")
    }

    @Test("a request whose wait ran out is withdrawn if Oriel has not taken it (rule 6)")
    func withdrawn() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102, id: "r1")
        #expect(body.tick(at: Moment(116.999)).isEmpty)
        #expect(body.tick(at: Moment(117)) == ranOut("Oriel did not start On Air within 15 s", withdrawn: true))
        #expect(body.outbox.items.isEmpty)
        #expect(body.poll(after: 0, at: Moment(118)).isEmpty)
        #expect(body.onAirValue(at: Moment(118)) == "off")
    }

    @Test("a request Oriel already took is not withdrawn, but still said unanswered")
    func takenNotWithdrawn() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true,"phase":"live"}}"#, at: 100)
        _ = body.tap(.wrapup, at: 101)
        _ = body.tap(.wrapup, at: 102, id: "w1")
        let items = body.poll(after: 0, at: Moment(103))
        _ = body.poll(after: items[0].seq, at: Moment(104))
        #expect(body.tick(at: Moment(122)) == ranOut("Oriel did not start Wrap up within 20 s", id: "w1", withdrawn: false))
    }

    @Test("a poll that waits acknowledges on arrival: the item it acknowledged is taken, not withdrawn (found by the soak)")
    func waitingPollAcknowledges() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102, id: "r1")
        let items = body.poll(after: 0, at: Moment(102.1))
        #expect(items.map(\.request.id) == ["r1"])
        // Oriel's next poll waits (nothing new) until after the 15 s: it took r1 when it arrived.
        body.waits(after: items[0].seq, at: Moment(102.2))
        #expect(body.outbox.items.isEmpty)
        #expect(body.tick(at: Moment(117)) == ranOut("Oriel did not start On Air within 15 s", withdrawn: false))
    }

    @Test("the kill's silence is withdrawn too")
    func killRunsOut() {
        var body = studio(at: 100)
        _ = body.tap(.kill, at: 101)
        _ = body.tap(.kill, at: 102, id: "k1")
        #expect(body.tick(at: Moment(117)) == ranOut("Oriel did not close the eyes within 15 s", id: "k1", withdrawn: true))
    }

    @Test("a press at exactly the end of the wait finds the request gone and arms afresh")
    func pressAtDue() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102)
        body.waits(after: 0, at: Moment(110))
        #expect(body.tap(.onair, at: 116.999) == .waiting("already asking Oriel to start On Air"))
        #expect(body.tap(.onair, at: 117) == .armed)
    }

    @Test("a full outbox refuses with the full error and shows it, losing nothing silently")
    func full() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false},"eyes":{"red":true}}"#, at: 100)
        for i in 0..<Outbox.capacity { _ = body.tap(.camera, at: 100, id: "c\(i)") }
        let words = "the outbox is full: 64 requests wait for Oriel to take them; is Oriel polling /ears?"
        #expect(body.tap(.camera, at: 101, id: "c64") == .refused(words))
        _ = body.tap(.onair, at: 101)
        #expect(body.tap(.onair, at: 102) == .refused(words))
        #expect(body.onair.asking.out == nil)
        #expect(body.onair.asking.problemWords(at: Moment(102)) == words)
        try body.face(#"{"onair":{"on":true,"phase":"live"},"eyes":{"red":true}}"#, at: 102.5)
        _ = body.tap(.wrapup, at: 103)
        #expect(body.tap(.wrapup, at: 104) == .refused(words))
        #expect(body.wrapup.asking.problemWords(at: Moment(104)) == words)
        _ = body.tap(.kill, at: 105)
        #expect(body.tap(.kill, at: 106) == .refused(words))
        #expect(body.kill.asking.problemWords(at: Moment(106)) == words)
        #expect(body.outbox.items.count == 64)
    }

    @Test("a push that is not an object is refused and changes nothing", arguments: ["[]", "null", "\"on\"", "3"])
    func badPush(text: String) throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        let before = body
        #expect(throws: PushError(description: "the push is not a JSON object: send {\"onair\":{…},\"eyes\":{…}}")) {
            try body.face(text, at: 101)
        }
        #expect(body == before)
    }

    @Test("either object may be absent: that part keeps what it had")
    func partialPush() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true,"phase":"live"},"eyes":{"red":true,"mode":"auto"}}"#, at: 100)
        try body.face(#"{"eyes":{"red":false}}"#, at: 101)
        #expect(body.state == Said.live)
        try body.face(#"{"onair":{"on":false}}"#, at: 102)
        #expect(body.eyes == HouseEyes(red: false))
        try body.face(#"{"onair":{"phase":"live"},"eyes":"closed"}"#, at: 103)
        #expect(body.state == Said.off)
        #expect(body.eyes == HouseEyes(red: false))
        try body.face("{}", at: 104)
        #expect(body.contact.lastPush == Moment(104))
    }

    @Test("nextDue: the soonest of the arming, a wait, a problem, the silence and a blink")
    func nextDue() throws {
        var body = studio(at: 100)
        #expect(near(body.nextDue(at: Moment(100.5)), 102))
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        #expect(body.nextDue(at: Moment(100)) == 160)
        _ = body.tap(.onair, at: 101)
        #expect(body.nextDue(at: Moment(101)) == 106)
        _ = body.tap(.onair, at: 102)
        #expect(near(body.nextDue(at: Moment(102)), 102.125))
    }
}
