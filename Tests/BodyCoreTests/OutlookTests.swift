import Testing
@testable import BodyCore

/// The outlook the agent keeps between turns (issue 21): it skips `tick` and
/// reuses the indicators while the outlook says quiet, so the quiet must never
/// be longer than the rules' own times, on either clock.
@Suite("The body's outlook: a tick in its quiet changes nothing")
struct OutlookTests {
    /// The wall clock stepped (set by hand, or by network time) and the kernel's say-so.
    static let wallSteps: [Double] = [0, 1, -1, 1000, -1000, 1_000_000]

    /// Times from `t0` on: dense for the first 20 s, then around every house time.
    static func probes(from t0: Double) -> [Double] {
        var times = (0...2000).map { t0 + Double($0) * 0.01 }
        for s in [0.0001, 0.009, 0.011, 4.99, 5.01, 9.99, 10.01, 11.99, 12.01, 14.99, 15.01, 19.99, 20.01,
                  27.01, 59.99, 60.01, 61, 120.01, 299.99, 300.01, 301, 600, 10_000] {
            times.append(t0 + s)
        }
        return times
    }

    /// Ticks `body` at `t0` (as a turn leaves it), then at every probe moment
    /// checks what the outlook claims: quiet, a tick changes nothing; its
    /// indicators, the body's own. And that the quiet is not shorter than needed
    /// by much: just after it, on a lagging clock, something does change.
    func check(_ start: Body, at t0: Moment, _ name: String, tight: Bool = true) {
        var body = start
        _ = body.tick(at: t0)
        let outlook = body.outlook(at: t0)
        #expect(outlook.nextDue(at: t0) == body.nextDue(at: t0), "\(name)")
        for t in Self.probes(from: t0.mono) {
            for step in Self.wallSteps {
                for synchronised in [true, false] {
                    let m = Moment(mono: t, wall: t0.wall + (t - t0.mono) + step, synchronised: synchronised)
                    if outlook.showsIndicators(at: m) {
                        #expect(body.indicators(at: m) == outlook.indicators, "\(name): indicators at \(t)")
                    }
                    guard outlook.isQuiet(at: m) else { continue }
                    var ticked = body
                    let actions = ticked.tick(at: m)
                    #expect(actions.isEmpty, "\(name): quiet at \(t) (wall \(step)), yet \(actions)")
                    #expect(ticked == body, "\(name): quiet at \(t) (wall \(step), synchronised \(synchronised)), yet the tick changed the body")
                }
            }
        }
        guard tight, outlook.quietUntil.isFinite else { return }
        let after = outlook.quietUntil + 0.001
        var ticked = body
        _ = ticked.tick(at: Moment(mono: after, wall: t0.wall + (after - t0.mono), synchronised: false))
        #expect(ticked != body, "\(name): nothing happens just after the quiet (\(outlook.quietUntil - t0.mono) s): this case tests nothing")
    }

    @Test("quiet bodies: a fresh one, one pushed (Oriel's silence)")
    func plain() throws {
        check(studio(at: 100), at: Moment(100.3), "fresh", tight: false)
        var pushed = studio(at: 100)
        try pushed.face(#"{"onair":{"on":false}}"#, at: 100)
        check(pushed, at: Moment(101.37), "pushed")
        var polled = pushed
        _ = polled.poll(after: 0, at: Moment(130.2))
        check(polled, at: Moment(130.2), "polled")
    }

    @Test("a press in progress: the bounce window, the arming, the hold, the blinking ask, the problem")
    func presses() throws {
        var body = studio(at: 100)
        body.wire(.onair, down: false, at: 100)
        body.wire(.kill, down: false, at: 100)
        try body.face(#"{"onair":{"on":false},"eyes":{"open":true}}"#, at: 100)
        var window = body
        _ = window.edge(.onair, down: true, at: 101)
        check(window, at: Moment(101.004), "bounce window")
        check(window, at: Moment(101.02), "asked for the level")
        var armed = body
        _ = armed.down(.onair, at: 101)
        check(armed, at: Moment(101.05), "armed and down (held at 111)")
        armed.up(.onair, at: 101.1)
        check(armed, at: Moment(101.2), "armed")
        var asking = armed
        _ = asking.tapLine(.onair, at: 102, id: "r2")
        check(asking, at: Moment(102.2), "asking")
        var problem = asking
        _ = problem.tick(at: Moment(117.5))
        check(problem, at: Moment(117.6), "a problem shown")
        var kill = body
        _ = kill.tapLine(.kill, at: 101)
        _ = kill.tapLine(.kill, at: 102, id: "k2")
        check(kill, at: Moment(102.3), "the kill asking")
    }

    @Test("noise on a line: the minute's tally")
    func noise() throws {
        var body = studio(at: 100)
        body.wire(.onair, down: false, at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.edge(.onair, down: true, at: 101)
        _ = body.tick(at: Moment(101.01))
        _ = body.read(.onair, down: false, at: 101.01, id: "n")
        _ = body.edge(.onair, down: true, at: 102)
        _ = body.tick(at: Moment(102.01))
        _ = body.read(.onair, down: false, at: 102.01, id: "n")
        check(body, at: Moment(102.5), "two blips")
    }

    @Test("the eyes: until on the wall clock either way, the five minutes on a lagging clock, a camera gone")
    func eyes() throws {
        // Oriel's silence out of the way: it would end every quiet first.
        let settings = BodySettings(name: "studio", silence: 100_000)
        let until = Moment(100).wall + 200
        var running = studio(settings, at: 100)
        running.wire(.camera, down: false, at: 100)
        try running.face(#"{"eyes":{"open":false}}"#, at: 100)
        try running.face(#"{"eyes":{"open":true,"until":\#(until),"why":"Dad's tap on the studio body"}}"#, at: 101)
        #expect(running.gate.verdict.runs)
        check(running, at: Moment(101.5), "preview running")
        var passed = running
        _ = passed.tick(at: Moment(mono: 102, wall: until + 1))
        check(passed, at: Moment(mono: 102.5, wall: until + 1.5), "until passed", tight: false)
        // Seen opening, but not for a tap: no wake-up is asked for, yet the verdict
        // moves as the wall clock crosses until, and at five minutes on a lagging clock.
        var notTap = studio(settings, at: 100)
        try notTap.face(#"{"eyes":{"open":false}}"#, at: 100)
        try notTap.face(#"{"eyes":{"open":true,"until":\#(until),"why":"maintenance"}}"#, at: 101)
        #expect(notTap.gate.opened && !notTap.gate.verdict.runs)
        check(notTap, at: Moment(101.5), "open, not for a tap")
        var gone = running
        _ = gone.cameraGone("the camera went away")
        check(gone, at: Moment(mono: 101.5, wall: Moment(101.5).wall, synchronised: false), "camera gone")
        var asked = running
        _ = asked.tapLine(.camera, at: 102, id: "c1")
        check(asked, at: Moment(102.4), "the camera asked")
    }
}
