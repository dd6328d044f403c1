import Testing
@testable import BodyCore

/// A studio body whose On Air state is off, with every button wired at 100.
private func wired(at t: Double = 100) throws -> Body {
    var body = studio(at: t)
    for role in ButtonRole.allCases { body.wire(role, down: false, at: t) }
    try body.face(#"{"onair":{"on":false}}"#, at: t)
    return body
}

private let armedWords = "button onair: armed: press again within 5 s to confirm"

/// What the first blip on the onair line in a minute brings about.
private func firstBlip(at t: Double) -> [BodyAction] {
    [.log("button onair: a blip on the line, not held: noise, not a press", .info), .noise(.onair, at: t)]
}

@Suite("Edges in, actions out: the whole path from a kernel edge to the outbox")
struct EdgeActionTests {
    @Test("a two-press from bouncing raw edges, each confirmed by the line, yields exactly one outbox item and one .wakePolls")
    func twoPressFromEdges() throws {
        var body = try wired()
        #expect(body.edge(.onair, down: true, at: 101).isEmpty, "the window opens")
        #expect(body.edge(.onair, down: false, at: 101.002).isEmpty, "bounce")
        #expect(body.edge(.onair, down: true, at: 101.004).isEmpty, "bounce")
        #expect(body.nextDue(at: Moment(101.004)) == 101.01)
        #expect(body.tick(at: Moment(101.01)) == [.readLevel(.onair)], "the window ended: read the line")
        #expect(body.read(.onair, down: true, at: 101.01) == [.log(armedWords, .info), .pressed(.onair, .armed, at: 101)])
        body.up(.onair, at: 101.2)
        #expect(body.edge(.onair, down: true, at: 102, id: "r1").isEmpty)
        #expect(body.edge(.onair, down: false, at: 102.003).isEmpty, "bounce")
        #expect(body.edge(.onair, down: true, at: 102.006).isEmpty, "bounce")
        #expect(body.tick(at: Moment(102.01)) == [.readLevel(.onair)])
        #expect(body.read(.onair, down: true, at: 102.01)
            == [.log("button onair: asked Oriel (onair, id r1)", .info), .pressed(.onair, .asked(onAirRequest("r1")), at: 102),
                .wakePolls])
        #expect(body.outbox.items.map(\.request) == [request("onair", "r1", ["on": .bool(true), "by": .string("studio")])])
        #expect(body.contacts[.onair]?.bounces == 4)
        #expect(body.contacts[.onair]?.blips == 0)
    }

    @Test("a graze through the contact is the same touch: armed twice, nothing queued")
    func grazeFromEdges() throws {
        var body = try wired()
        _ = body.down(.onair, at: 101)
        body.up(.onair, at: 101.05)
        #expect(body.down(.onair, at: 101.2) == [.log(armedWords, .info), .pressed(.onair, .armed, at: 101.2)])
        #expect(body.outbox.items.isEmpty)
    }

    @Test("a blip is noise: said, counted, and nothing armed", arguments: [0.000020, 0.000200, 0.005])
    func blipArmsNothing(length: Double) throws {
        var body = try wired()
        #expect(body.edge(.onair, down: true, at: 101).isEmpty)
        #expect(body.edge(.onair, down: false, at: 101 + length).isEmpty)
        #expect(body.tick(at: Moment(101.01)) == [.readLevel(.onair)])
        #expect(body.read(.onair, down: false, at: 101.01) == firstBlip(at: 101))
        #expect(body.onAirValue(at: Moment(101.01)) == "off")
        #expect(body.noise[.onair]?.total == 1)
        #expect(body.outbox.items.isEmpty)
    }

    @Test("a blip then one deliberate tap only arms: the kill switch never fires on one press")
    func blipThenTap() throws {
        var body = try wired()
        _ = body.edge(.onair, down: true, at: 101)
        _ = body.edge(.onair, down: false, at: 101.00002)
        _ = body.tick(at: Moment(101.01))
        _ = body.read(.onair, down: false, at: 101.01)
        #expect(body.tapLine(.onair, at: 102) == [.log(armedWords, .info), .pressed(.onair, .armed, at: 102)])
        #expect(body.onAirValue(at: Moment(102.2)) == "armed")
        #expect(body.outbox.items.isEmpty)
    }

    @Test("blips go on: one line at once, then one a minute with the count; a quiet minute closes the tally")
    func noiseSaidOnceAMinute() throws {
        var body = try wired()
        func blip(at t: Double) -> [BodyAction] {
            _ = body.edge(.onair, down: true, at: t)
            _ = body.tick(at: Moment(t + 0.01))
            return body.read(.onair, down: false, at: t + 0.01)
        }
        #expect(blip(at: 101) == firstBlip(at: 101))
        #expect(blip(at: 102) == [.noise(.onair, at: 102)])
        #expect(blip(at: 150) == [.noise(.onair, at: 150)])
        try body.face(#"{"onair":{"on":false}}"#, at: 150.01)
        #expect(body.nextDue(at: Moment(150.01)) == 161.01)
        #expect(body.tick(at: Moment(161.01)) == [
            .log("button onair: 3 blips on the line in the last minute, none held: noise, not presses", .info),
        ])
        try body.face(#"{"onair":{"on":false}}"#, at: 200)
        #expect(body.tick(at: Moment(221.01)).isEmpty, "a quiet minute says nothing")
        try body.face(#"{"onair":{"on":false}}"#, at: 250)
        #expect(blip(at: 300) == firstBlip(at: 300))
        #expect(body.noise[.onair]?.total == 4)
    }

    @Test("hundreds of blips a minute are a wiring fault, said as one with its likely causes")
    func wiringFault() throws {
        var body = try wired()
        for i in 0..<150 {
            let t = 101 + Double(i) * 0.3
            _ = body.edge(.onair, down: true, at: t)
            _ = body.tick(at: Moment(t + 0.01))
            _ = body.read(.onair, down: false, at: t + 0.01)
        }
        try body.face(#"{"onair":{"on":false}}"#, at: 150)
        #expect(body.tick(at: Moment(161.01)) == [.log(
            "button onair: 150 blips on the line in the last minute, none held: a wiring fault, not presses "
                + "(a long unshielded cable beside a switched load, a missing pull-up, or a floating line)", .warning)])
        #expect(body.onAirValue(at: Moment(161.01)) == "off")
        #expect(body.outbox.items.isEmpty)
    }

    @Test("a blip during a held press (a release bouncing back down inside the window) changes nothing: no release, no second press")
    func releaseBounceNoPress() throws {
        var body = try wired()
        _ = body.down(.onair, at: 101)
        _ = body.edge(.onair, down: false, at: 101.5)
        #expect(body.edge(.onair, down: true, at: 101.505).isEmpty)
        #expect(body.nextDue(at: Moment(101.505)) == 101.51)
        #expect(appended { body.tick(at: Moment(101.51), ids: { "w1" }, into: &$0) } == [.readLevel(.onair)])
        #expect(body.read(.onair, down: true, at: 101.51, id: "w1") == firstBlip(at: 101.5))
        #expect(body.contacts[.onair]?.isDown == true)
        #expect(body.outbox.items.isEmpty)
    }

    @Test("a reading on a button that was never wired does nothing")
    func readUnwired() {
        var body = studio(at: 100)
        #expect(body.read(.onair, down: true, at: 101).isEmpty)
    }

    @Test("the press counts at its first edge's own time; the wall clock is set back to it")
    func edgeTimeDecides() throws {
        var body = try wired()
        _ = body.down(.onair, at: 101)
        body.up(.onair, at: 101.1)
        _ = appended { body.edge(ButtonEdge(button: .onair, pressed: true, at: 102), at: Moment(102.5), ids: { "x" }, into: &$0) }
        _ = body.tick(at: Moment(102.6))
        _ = body.read(.onair, down: true, at: 102.6)
        // Read 0.59 s late: a second look one window on, and still down.
        #expect(body.onair.asking.out == nil)
        _ = body.tick(at: Moment(102.61))
        _ = body.read(.onair, down: true, at: 102.61)
        #expect(body.onair.asking.out?.at == Moment(102))
    }

    @Test("a button held 10 s is said once, and its release after the hold is said too")
    func heldFromEdges() throws {
        var body = try wired()
        _ = body.edge(.kill, down: true, at: 101)
        #expect(body.nextDue(at: Moment(101.005)) == 101.01, "the bounce window's end")
        #expect(body.tick(at: Moment(101.01)) == [.readLevel(.kill)])
        #expect(body.read(.kill, down: true, at: 101.01)
            == [.log("button kill: armed: press again within 5 s to confirm", .info), .pressed(.kill, .armed, at: 101)])
        #expect(body.nextDue(at: Moment(101.5)) == 106, "the kill's arming runs out first")
        #expect(body.tick(at: Moment(106)).isEmpty)
        #expect(body.nextDue(at: Moment(106)) == 111)
        #expect(body.tick(at: Moment(111)) == [.readLevel(.kill)], "read before saying held")
        #expect(body.read(.kill, down: true, at: 111) == [.log(
            "button kill held for 10 s: stuck, or a broken normally-closed wire; it will not press again until released",
            .warning)])
        #expect(body.tick(at: Moment(120)).isEmpty, "once per hold")
        #expect(body.contacts[.kill]?.isHeld == true)
        #expect(body.up(.kill, at: 121) == [.log("button kill released after being held", .info)])
        #expect(body.down(.kill, at: 122)
            == [.log("button kill: armed: press again within 5 s to confirm", .info), .pressed(.kill, .armed, at: 122)])
    }

    @Test("a button already down when its line is opened never presses, and is said held in time")
    func downAtStart() throws {
        var body = studio(at: 100)
        body.wire(.onair, down: true, at: 100)
        #expect(body.contacts[.onair]?.isDown == true)
        #expect(body.tick(at: Moment(110)) == [.readLevel(.onair)])
        #expect(body.read(.onair, down: true, at: 110).contains(.log(
            "button onair held for 10 s: stuck, or a broken normally-closed wire; it will not press again until released",
            .warning)))
        #expect(body.up(.onair, at: 111) == [.log("button onair released after being held", .info)])
        #expect(body.outbox.items.isEmpty)
    }

    @Test("an edge on a button that was never wired does nothing")
    func unwired() {
        var body = studio(at: 100)
        #expect(body.edge(.onair, down: true, at: 101).isEmpty)
        #expect(body.contacts.isEmpty)
    }

    @Test("a press the rules refuse says why and wakes no poll")
    func refusedPress() {
        var body = studio(at: 100)
        body.wire(.onair, down: false, at: 100)
        #expect(body.down(.onair, at: 101)
            == [.log("button onair: Oriel has not said whether On Air is on", .info),
                .pressed(.onair, .refused("Oriel has not said whether On Air is on"), at: 101)])
    }

    @Test("a press the full outbox refuses says the full error and wakes no poll")
    func fullOutbox() throws {
        var body = try wired()
        for i in 0..<Outbox.capacity { _ = body.tap(.camera, at: 100, id: "c\(i)") }
        let full = "the outbox is full: 64 requests wait for Oriel to take them; is Oriel polling /ears?"
        #expect(body.down(.camera, at: 101, id: "c64")
            == [.log("button camera: \(full)", .info), .pressed(.camera, .refused(full), at: 101)])
        #expect(body.outbox.items.count == Outbox.capacity)
    }

    @Test("the camera button is one press: a single confirmed press asks, and wakes the polls")
    func cameraOnePress() throws {
        var body = try wired()
        #expect(body.down(.camera, at: 101, id: "c1")
            == [.log("button camera: asked Oriel (eyes, id c1)", .info),
                .pressed(.camera, .asked(request("eyes", "c1", ["open": .bool(true), "camera": .string("studio camera"),
                                                               "by": .string("studio")])), at: 101),
                .wakePolls])
        #expect(body.camera.asks == ["c1": 101])
        #expect(body.up(.camera, at: 101.1).isEmpty)
        #expect(body.tick(at: Moment(116)) == [.unanswered(id: "c1", withdrawn: true)], "withdrawn quietly at 15 s")
        #expect(body.outbox.items.isEmpty)
    }
}

@Suite("Pushes, the clock and the camera: what each brings about")
struct ActionTests {
    @Test("the start says hello and puts the camera where the gate says")
    func started() {
        #expect(studio(at: 100).started() == [.sayHello(because: "start"), .preview(run: false, why: "the eyes gate is closed")])
    }

    @Test("a push that answers the camera's ask by opening for the tap runs the camera")
    func pushRunsCamera() throws {
        var body = try wired()
        try body.face(#"{"eyes":{"open":false}}"#, at: 100)
        _ = body.tapLine(.camera, at: 101, id: "c1")
        #expect(try body.face(#"{"eyes":{"open":true,"why":"Dad's tap on the studio body","answered":{"id":"c1","error":null}}}"#, at: 102)
            == [.preview(run: true, why: "Dad's tap on the studio body")])
        #expect(try body.face(#"{"eyes":{"open":true,"why":"Dad's tap on the studio body"}}"#, at: 103).isEmpty,
                "the same verdict is not said again")
        #expect(try body.face(#"{"eyes":{"open":false}}"#, at: 104) == [.preview(run: false, why: "closed by Oriel")])
    }

    @Test("a push that answers with an error shows it and asks the caller for nothing")
    func pushAnswersError() throws {
        var body = try wired()
        _ = body.tapLine(.onair, at: 101)
        _ = body.down(.onair, at: 102, id: "r1")
        #expect(try body.face(#"{"onair":{"on":false,"answered":{"id":"r1","error":"cwkPippa refused: the studio is booked"}}}"#, at: 103)
            .isEmpty)
        #expect(body.onair.asking.out == nil)
        #expect(body.onair.asking.problemWords(at: Moment(103)) == "cwkPippa refused: the studio is booked")
    }

    @Test("a push that shows the asked-for state settles the request and asks for nothing")
    func pushSettles() throws {
        var body = try wired()
        _ = body.tapLine(.onair, at: 101)
        _ = body.down(.onair, at: 102, id: "r1")
        body.up(.onair, at: 102.1)
        #expect(try body.face(#"{"onair":{"on":true,"phase":"live"}}"#, at: 103).isEmpty)
        #expect(body.onAirValue(at: Moment(103)) == "on")
        #expect(body.tick(at: Moment(117)).isEmpty, "nothing runs out")
    }

    @Test("a silence beginning in tick says it and says hello")
    func silenceInTick() throws {
        var body = try wired()
        #expect(body.tick(at: Moment(159.999)).isEmpty)
        #expect(body.tick(at: Moment(160)) == silence())
        #expect(body.tick(at: Moment(161)).isEmpty)
    }

    @Test("a wait running out in tick says the silence and that the item was withdrawn")
    func ranOutInTick() throws {
        var body = try wired()
        _ = body.tapLine(.onair, at: 101)
        _ = body.down(.onair, at: 102, id: "r1")
        body.up(.onair, at: 102.1)
        #expect(body.tick(at: Moment(117)) == ranOut("Oriel did not start On Air within 15 s", withdrawn: true))
        #expect(body.outbox.items.isEmpty)
    }

    @Test("until passing in tick stops the camera")
    func untilInTick() throws {
        var body = try wired()
        try body.face(#"{"eyes":{"open":false}}"#, at: 100)
        try body.face(#"{"eyes":{"open":true,"why":"a tap","until":\#(Moment(150).wall)}}"#, at: 101)
        body.waits(after: 0, at: Moment(140))
        #expect(body.tick(at: Moment(150)) == [.preview(run: false, why: "until passed")])
    }
}
