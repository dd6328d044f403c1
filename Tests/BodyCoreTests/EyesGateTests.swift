import Testing
@testable import BodyCore

@Suite("The eyes gate: the camera runs only when Oriel says a tap opened it (DESIGN rule 7)")
struct EyesGateTests {
    var gate = EyesGate()
    let closed = HouseEyes(open: false)
    let tapped = HouseEyes(open: true, why: "Dad's tap on the studio body")

    /// The eyes open for a tap until wall time `Moment(t).wall`.
    func tapped(until t: Double) -> HouseEyes {
        HouseEyes(open: true, until: Moment(t).wall, why: "Dad's tap on the studio body")
    }

    @Test("before any eyes object the gate is closed")
    func fresh() {
        #expect(gate.verdict == .stop(why: "the eyes gate is closed"))
        #expect(!gate.verdict.runs)
        #expect(gate.verdict.words == "the eyes gate is closed")
        #expect(gate.lastOpen == nil)
    }

    @Test("the body saw it open, for a tap: the camera runs")
    mutating func sawItOpen() {
        gate.adopt(closed, at: Moment(100))
        #expect(gate.verdict == .stop(why: "closed by Oriel"))
        gate.adopt(tapped, at: Moment(101))
        #expect(gate.verdict == .run(why: "Dad's tap on the studio body"))
        #expect(gate.verdict.runs)
        #expect(gate.verdict.words == "Dad's tap on the studio body")
        gate.adopt(tapped, at: Moment(102))
        #expect(gate.verdict.runs)
    }

    @Test("a gate already open at start does not run the camera")
    mutating func alreadyOpenAtStart() {
        gate.adopt(tapped, at: Moment(100))
        #expect(gate.verdict == .stop(why: "the gate was already open: the body neither saw it open nor asked"))
        gate.adopt(tapped, at: Moment(101))
        #expect(!gate.verdict.runs)
    }

    @Test("the body asked just before it opened: the camera runs without having seen it closed")
    mutating func askedThenOpened() {
        gate.asked(at: Moment(100))
        #expect(gate.askedAt == 100)
        gate.adopt(tapped, at: Moment(114.999))
        #expect(gate.verdict.runs)
        #expect(gate.askedAt == nil)
    }

    @Test("an ask 15 s old no longer counts as just asked")
    mutating func staleAsk() {
        #expect(EyesGate.askCounts == 15)
        gate.asked(at: Moment(100))
        gate.adopt(tapped, at: Moment(115))
        #expect(!gate.verdict.runs)
    }

    @Test("a reason without \"tap\" does not run the camera", arguments: [
        "motion in the studio", "the owner asked", nil,
    ])
    mutating func reasonWithoutTap(why: String?) {
        gate.adopt(closed, at: Moment(100))
        gate.adopt(HouseEyes(open: true, why: why), at: Moment(101))
        #expect(!gate.verdict.runs)
        #expect(gate.verdict.words == "the gate is open, but not for a tap (\(why ?? "no reason given"))")
    }

    @Test("a reason names the tap in any case")
    func namesTap() {
        #expect(EyesGate.namesTap("Dad's TAP on the studio body"))
        #expect(EyesGate.namesTap("tap"))
        #expect(!EyesGate.namesTap("motion"))
        #expect(!EyesGate.namesTap(nil))
    }

    @Test("a push saying closed stops it")
    mutating func closedStops() {
        gate.adopt(closed, at: Moment(100))
        gate.adopt(tapped, at: Moment(101))
        gate.adopt(closed, at: Moment(102))
        #expect(gate.verdict == .stop(why: "closed by Oriel"))
        #expect(!gate.opened)
    }

    @Test("until passing stops it at exactly until, even with Oriel silent")
    mutating func untilPasses() {
        let eyes = tapped(until: 130)
        gate.adopt(closed, at: Moment(100))
        gate.adopt(eyes, at: Moment(101))
        #expect(gate.verdict.runs)
        #expect(gate.untilDue(eyes) == Moment(130).wall)
        gate.tick(eyes, at: Moment(129.999))
        #expect(gate.verdict.runs)
        gate.tick(eyes, at: Moment(130))
        #expect(gate.verdict == .stop(why: "until passed"))
        #expect(gate.untilDue(eyes) == nil)
        // The same push again is not a fresh opening.
        gate.adopt(tapped(until: 200), at: Moment(131))
        #expect(!gate.verdict.runs)
    }

    @Test("an opening whose until already passed does not run")
    mutating func untilAlreadyPast() {
        gate.adopt(closed, at: Moment(100))
        gate.adopt(tapped(until: 50), at: Moment(101))
        #expect(gate.verdict == .stop(why: "until passed"))
    }

    @Test("the camera going away stops it until a fresh opening")
    mutating func cameraGone() {
        gate.adopt(closed, at: Moment(100))
        gate.adopt(tapped, at: Moment(101))
        gate.cameraGone("camera: /dev/video0 went away: No such device")
        #expect(gate.verdict == .stop(why: "camera: /dev/video0 went away: No such device"))
        #expect(gate.deviceGone == "camera: /dev/video0 went away: No such device")
        gate.tick(tapped, at: Moment(102))
        #expect(gate.verdict == .stop(why: "camera: /dev/video0 went away: No such device"))
        gate.adopt(tapped, at: Moment(103))
        #expect(!gate.verdict.runs)
        gate.adopt(closed, at: Moment(104))
        gate.adopt(tapped, at: Moment(105))
        #expect(gate.verdict.runs)
        #expect(gate.deviceGone == nil)
    }

    @Test("after the camera went away, asking again opens it afresh")
    mutating func cameraGoneThenAsked() {
        gate.adopt(closed, at: Moment(100))
        gate.adopt(tapped, at: Moment(101))
        gate.cameraGone("camera unplugged")
        gate.asked(at: Moment(110))
        gate.adopt(tapped, at: Moment(111))
        #expect(gate.verdict.runs)
    }
}
