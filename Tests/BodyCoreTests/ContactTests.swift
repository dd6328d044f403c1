import BodyCore
import Testing

/// Edges in, then the window's reading: what a contact said, in order.
private func run(_ c: inout Contact, edges: [(pressed: Bool, at: Double)], readAt: Double, line pressed: Bool) -> [Contact.Event] {
    var events: [Contact.Event] = []
    for e in edges { events += c.edge(pressed: e.pressed, at: e.at) }
    if c.asksLevel(at: readAt) { events.append(.readLevel) }
    events += c.readEvents(pressed: pressed, at: readAt)
    return events
}

extension Contact {
    /// `read`'s pair as a list, to compare with a literal.
    mutating func readEvents(pressed: Bool, at now: Double) -> [Event] {
        let (settled, held) = read(pressed: pressed, at: now)
        return [settled, held].compactMap { $0 }
    }
}

@Suite("Contact: a press confirmed by the line")
struct ContactTests {
    @Test("the first edge opens the window and presses nothing yet; the reading at its end presses at the first edge")
    func confirmedAtWindowEnd() {
        var c = Contact(at: 0)
        #expect(c.edge(pressed: true, at: 100) == [])
        #expect(!c.isDown)
        #expect(c.nextDeadline() == 100.010)
        #expect(c.asksLevel(at: 100.009) == false)
        #expect(c.asksLevel(at: 100.010) == true)
        #expect(c.awaitingLevel)
        #expect(c.asksLevel(at: 100.011) == false, "asked once")
        #expect(c.nextDeadline() == nil)
        #expect(c.readEvents(pressed: true, at: 100.0105) == [.press(at: 100)])
        #expect(c.isDown && c.downSince == 100)
        #expect(c.nextDeadline() == 110)
    }

    @Test("a blip ends as noise: no press, no release", arguments: [0.000020, 0.000200, 0.005])
    func blipIsNoise(length: Double) {
        var c = Contact(at: 0)
        // The kernel's handler may read either level for a pulse this short.
        for said in [true, false] {
            var d = c
            let events = run(&d, edges: [(said, 100), (false, 100 + length)], readAt: 100.010, line: false)
            #expect(events == [.readLevel, .noise(at: 100)])
            #expect(!d.isDown && d.blips == 1)
            #expect(d.nextDeadline() == nil)
        }
        #expect(run(&c, edges: [(true, 100), (true, 100 + length)], readAt: 100.0104, line: false) == [.readLevel, .noise(at: 100)])
    }

    @Test("a burst of blips that ends released inside the window is one noise")
    func burstIsNoise() {
        var c = Contact(at: 0)
        let edges = (0..<12).map { (pressed: $0 % 2 == 0, at: 100 + Double($0) * 0.0007) }
        #expect(run(&c, edges: edges, readAt: 100.010, line: false) == [.readLevel, .noise(at: 100)])
        #expect(c.bounces == 11 && c.blips == 1 && !c.isDown)
    }

    @Test("a bouncy press held 40 ms counts once, at its first edge, and its bouncy release once")
    func bouncyHumanTap() {
        var c = Contact(at: 0)
        var events: [Contact.Event] = []
        // Down at 100 with 1.5 ms of bounce, held to 100.040, up with 2 ms of bounce.
        for (i, t) in [100, 100.0003, 100.0007, 100.0011, 100.0015].enumerated() { events += c.edge(pressed: i % 2 == 0, at: t) }
        if c.asksLevel(at: 100.0101) { events.append(.readLevel) }
        events += c.readEvents(pressed: true, at: 100.0102)
        for (i, t) in [100.040, 100.0404, 100.0409, 100.0413, 100.0420].enumerated() { events += c.edge(pressed: i % 2 == 1, at: t) }
        if c.asksLevel(at: 100.0502) { events.append(.readLevel) }
        events += c.readEvents(pressed: false, at: 100.0503)
        #expect(events == [.readLevel, .press(at: 100), .readLevel, .release(at: 100.040, wasHeld: false)])
        #expect(c.blips == 0 && c.bounces == 8)
    }

    // Issue 11: the kernel reports the level its handler reads, not the edge.
    @Test("a bounced press counts once whatever its edges report, when the line stays pressed", arguments: [
        [false, false, false, false, false, false],
        [true, false, true, false, true, false],
        [true, true, true, true, true, true],
        [false, true, false, true, false, true],
    ])
    func misreportedPressCountsOnce(reported: [Bool]) {
        var c = Contact(at: 0)
        let edges = reported.enumerated().map { (pressed: $0.element, at: 100 + Double($0.offset) * 0.0008) }
        #expect(run(&c, edges: edges, readAt: 100.010, line: true) == [.readLevel, .press(at: 100)])
        #expect(c.isDown)
    }

    @Test("the same misreported shapes ending released are noise", arguments: [
        [false, false, false, false, false, false],
        [true, true, true, true, true, true],
    ])
    func misreportedBlipIsNoise(reported: [Bool]) {
        var c = Contact(at: 0)
        let edges = reported.enumerated().map { (pressed: $0.element, at: 100 + Double($0.offset) * 0.0008) }
        #expect(run(&c, edges: edges, readAt: 100.010, line: false) == [.readLevel, .noise(at: 100)])
    }

    @Test("a blip during a held press changes nothing: no release, no second press")
    func blipWhileDown() {
        var c = Contact(at: 0)
        _ = run(&c, edges: [(true, 100)], readAt: 100.010, line: true)
        #expect(run(&c, edges: [(false, 100.5), (true, 100.50004)], readAt: 100.510, line: true) == [.readLevel, .noise(at: 100.5)])
        #expect(c.isDown && c.downSince == 100 && c.blips == 1)
        #expect(c.nextDeadline() == 110, "the hold still counts from the press")
        #expect(run(&c, edges: [(false, 101)], readAt: 101.010, line: false) == [.readLevel, .release(at: 101, wasHeld: false)])
    }

    @Test("a release that bounces is one release and never a press")
    func bounceOnRelease() {
        var c = Contact(at: 0)
        _ = run(&c, edges: [(true, 100)], readAt: 100.010, line: true)
        let edges = [(false, 100.3), (true, 100.301), (false, 100.303), (true, 100.305)]
        #expect(run(&c, edges: edges.map { (pressed: $0.0, at: $0.1) }, readAt: 100.31, line: false)
                == [.readLevel, .release(at: 100.3, wasHeld: false)])
        #expect(!c.isDown && c.nextDeadline() == nil)
    }

    @Test("an edge stamped before the last reading is already in it")
    func staleEdge() {
        var c = Contact(at: 0)
        _ = run(&c, edges: [(true, 100)], readAt: 100.020, line: false)
        #expect(c.edge(pressed: true, at: 100.015) == [])
        #expect(c.bounces == 1)
        #expect(c.nextDeadline() == nil)
        #expect(run(&c, edges: [(true, 100.5)], readAt: 100.51, line: true) == [.readLevel, .press(at: 100.5)])
    }

    @Test("a reading nobody asked for changes nothing")
    func unaskedReading() {
        var c = Contact(at: 0)
        #expect(c.readEvents(pressed: true, at: 50) == [])
        #expect(!c.isDown)
        _ = c.edge(pressed: true, at: 100)
        #expect(c.readEvents(pressed: true, at: 100.005) == [], "the window has not asked yet")
        #expect(!c.isDown)
    }

    // The body's read came late: the line moved again after the window's end.
    @Test("read late, after the line moved again: no press, whatever the edges said; the new edge opens the next window")
    func lateReadIsNoPress() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        _ = c.edge(pressed: false, at: 100.001)
        _ = c.edge(pressed: true, at: 100.002)
        #expect(c.asksLevel(at: 100.080) == true)
        // An edge at 100.040 is drained before the reading.
        #expect(c.edge(pressed: true, at: 100.040) == [.noise(at: 100)])
        #expect(!c.awaitingLevel && c.nextDeadline() == 100.040 + Contact.defaultDebounce)
        #expect(c.readEvents(pressed: true, at: 100.081) == [], "overtaken by the edge")
        #expect(run(&c, edges: [], readAt: 100.055, line: true) == [.readLevel, .press(at: 100.040)],
                "a press confirmed by its own reading")
        #expect(c.late == 1, "the overtaken window is counted late; the one read in time is not")
    }

    @Test("read late while down, after the line moved again: the release, so the next press can count")
    func lateReadWhileDown() {
        var c = Contact(at: 0)
        _ = run(&c, edges: [(true, 100)], readAt: 100.010, line: true)
        _ = c.edge(pressed: false, at: 100.2)
        #expect(c.edge(pressed: true, at: 100.25) == [.release(at: 100.2, wasHeld: false)])
        #expect(run(&c, edges: [], readAt: 100.26, line: true) == [.readLevel, .press(at: 100.25)])
        #expect(c.late == 1)
    }

    @Test("read late with the line quiet since: a level that changes nothing judges the window; one that would press looks again")
    func lateReadQuiet() {
        var c = Contact(at: 0)
        #expect(run(&c, edges: [(true, 100), (false, 100.00002)], readAt: 100.2, line: false) == [.readLevel, .noise(at: 100)])
        #expect(run(&c, edges: [(true, 101)], readAt: 101.2, line: true) == [.readLevel], "a second look at 101.21")
        #expect(c.nextDeadline() == 101.2 + Contact.defaultDebounce)
        #expect(run(&c, edges: [], readAt: 101.211, line: true) == [.readLevel, .press(at: 101)], "still down: a finger")
        #expect(c.late == 0, "a late reading with no newer edge still judges its window")
    }

    // gpio-sim's interrupt ran late in a loaded VM: a blip's window was read
    // 20 ms late, during the next blip, whose edge the kernel had not queued
    // yet. The level read was that blip's; two blips made a press (soak-gate,
    // 2026-12-06, "2 presses" among 1,000 clean blips at host load 8).
    @Test("read late during the next blip, its edge not queued yet: the second look finds the line up, noise, no press")
    func lateReadInNextBlip() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        _ = c.edge(pressed: false, at: 100.004)
        // The reading comes at 100.030, the next blip down since 100.025, its edge still in the kernel.
        #expect(c.asksLevel(at: 100.030) == true)
        #expect(c.readEvents(pressed: true, at: 100.030) == [], "not a press yet")
        // Its edges arrive: the down edge stamped before the reading is in it;
        // the up edge after it says the line moved since: the window ends at rest.
        #expect(c.edge(pressed: true, at: 100.025) == [])
        #expect(c.edge(pressed: false, at: 100.0305) == [.noise(at: 100)])
        #expect(run(&c, edges: [], readAt: 100.041, line: false) == [.readLevel, .noise(at: 100.0305)])
        #expect(!c.isDown)
    }

    @Test("a second look reads once: late again, it judges the window by what it finds")
    func secondLookReadsOnce() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        #expect(run(&c, edges: [], readAt: 100.5, line: true) == [.readLevel])
        #expect(run(&c, edges: [], readAt: 101.5, line: true) == [.readLevel, .press(at: 100)])
    }

    @Test("a late reading that finds the line up while down looks again too: a gap is not a release")
    func lateReadWhileDownLooksAgain() {
        var c = Contact(at: 0)
        _ = run(&c, edges: [(true, 100)], readAt: 100.010, line: true)
        _ = c.edge(pressed: false, at: 100.2)
        #expect(run(&c, edges: [], readAt: 100.3, line: false) == [.readLevel], "up at a late reading: look again")
        #expect(run(&c, edges: [], readAt: 100.311, line: true) == [.readLevel, .noise(at: 100.2)], "down again: the press goes on")
        #expect(c.isDown)
    }

    @Test("a late reading that finds the line up near the hold's 10 s is a release, never a hold")
    func lateReadNearHoldIsNoHold() {
        var c = Contact(at: 0)
        _ = run(&c, edges: [(true, 100)], readAt: 100.010, line: true)
        _ = c.edge(pressed: false, at: 109.995)
        // Read 30 ms late, past the hold's moment, with the line up.
        #expect(run(&c, edges: [], readAt: 110.025, line: false) == [.readLevel], "no held")
        #expect(c.nextDeadline() == 110.025 + Contact.defaultDebounce, "the overdue hold does not cut the second look short")
        #expect(run(&c, edges: [], readAt: 110.036, line: false) == [.readLevel, .release(at: 109.995, wasHeld: false)])
        #expect(!c.isHeld)
    }

    @Test("a finger released during the second look: an edge after the first reading ends it at rest, no press")
    func releasedDuringSecondLook() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        #expect(run(&c, edges: [], readAt: 100.5, line: true) == [.readLevel])
        #expect(c.edge(pressed: false, at: 100.505) == [.noise(at: 100)])
        #expect(!c.isDown)
    }

    @Test("debounce 0: a very late reading that finds the line moved corrects it at once, no second look")
    func noDebounceNoSecondLook() {
        var c = Contact(debounce: 0, at: 0)
        #expect(c.edge(pressed: true, at: 100) == [.press(at: 100)])
        // Up at a reading a second late (its release edge lost): released now, not looked at again.
        #expect(run(&c, edges: [], readAt: 101, line: false) == [.readLevel, .release(at: 101, wasHeld: false)])
        #expect(c.nextDeadline() == nil)
    }

    @Test("a reading within a window of the end decides at once, as before")
    func onTimeReadDecides() {
        var c = Contact(at: 0)
        #expect(run(&c, edges: [(true, 100)], readAt: 100.02, line: true) == [.readLevel, .press(at: 100)])
    }

    @Test("an edge just inside the window is bounce, one at its end opens the next", arguments: [
        (0.4999, false), (0.5, true), (0.5001, true),
    ])
    func windowBoundary(after: Double, opensNext: Bool) {
        var c = Contact(debounce: 0.5, at: 0)
        _ = c.edge(pressed: true, at: 100)
        let events = c.edge(pressed: false, at: 100 + after)
        // Read late (no tick came): the window ends at rest, and the new edge opens the next.
        #expect(events == (opensNext ? [.noise(at: 100)] : []))
        #expect(c.nextDeadline() == (opensNext ? 100 + after + 0.5 : 100.5))
    }

    @Test("two bounced taps, each held and settled by its reading, are two presses")
    func twoBouncedTaps() {
        var c = Contact(at: 0)
        var presses: [Double] = []
        for start in [100.0, 100.6] {
            for i in 0..<5 { _ = c.edge(pressed: false, at: start + Double(i) * 0.001) }
            for case .press(let at) in run(&c, edges: [], readAt: start + 0.010, line: true) { presses.append(at) }
            _ = run(&c, edges: [(false, start + 0.1)], readAt: start + 0.11, line: false)
        }
        #expect(presses == [100, 100.6])
        #expect(c.blips == 0)
    }

    @Test("debounce 0 turns the confirmation off: every edge counts at once")
    func noDebounce() {
        var c = Contact(debounce: 0, at: 0)
        #expect(!c.confirms)
        #expect(c.edge(pressed: true, at: 100) == [.press(at: 100)])
        #expect(c.edge(pressed: false, at: 100) == [.release(at: 100, wasHeld: false)])
        #expect(c.edge(pressed: true, at: 100) == [.press(at: 100)])
        #expect(c.asksLevel(at: 100) == true)
        #expect(c.readEvents(pressed: false, at: 100.001) == [.release(at: 100.001, wasHeld: false)])
        #expect(c.blips == 0)
    }

    @Test("the house's rulings are named")
    func constants() {
        #expect(Contact.heldAfter == 10)
        #expect(Contact.defaultDebounce == 0.010)
        #expect(Contact(at: 0).debounce == 0.010)
        #expect(Contact(at: 0).confirms)
        #expect(Contact(debounce: -1, at: 0).debounce == 0)
    }
}

@Suite("Contact: held and stuck")
struct ContactHeldTests {
    /// Down at 100, its window settled by a reading that says pressed.
    private func downAt100() -> Contact {
        var c = Contact(at: 0)
        _ = run(&c, edges: [(true, 100)], readAt: 100.010, line: true)
        return c
    }

    @Test("down for 10 s asks for the level; held once, exactly at the boundary")
    func heldOnce() {
        var c = downAt100()
        #expect(c.nextDeadline() == 110)
        #expect(c.asksLevel(at: 109.999) == false)
        #expect(c.asksLevel(at: 110) == true)
        #expect(!c.isHeld)
        #expect(c.readEvents(pressed: true, at: 110) == [.held(since: 100)])
        #expect(c.isHeld)
        #expect(c.asksLevel(at: 111) == false)
        #expect(c.asksLevel(at: 500) == false)
        #expect(c.nextDeadline() == nil)
    }

    @Test("never held while the line reads released: the reading releases instead")
    func heldCheckReadsReleased() {
        var c = downAt100()
        _ = c.asksLevel(at: 110)
        #expect(c.readEvents(pressed: false, at: 110) == [.release(at: 110, wasHeld: false)])
        #expect(!c.isHeld && !c.isDown)
    }

    @Test("a held button never presses until released, then presses again")
    func heldThenReleased() {
        var c = downAt100()
        _ = c.asksLevel(at: 110)
        _ = c.readEvents(pressed: true, at: 110)
        #expect(run(&c, edges: [(true, 115), (false, 115.005)], readAt: 115.01, line: true) == [.readLevel, .noise(at: 115)])
        #expect(c.isHeld)
        #expect(run(&c, edges: [(false, 120)], readAt: 120.01, line: false) == [.readLevel, .release(at: 120, wasHeld: true)])
        #expect(!c.isHeld)
        #expect(run(&c, edges: [(true, 121)], readAt: 121.01, line: true) == [.readLevel, .press(at: 121)])
        #expect(c.nextDeadline() == 131)
    }

    @Test("the hold is reported by the next edge if no tick came in time")
    func heldReportedByEdge() {
        var c = downAt100()
        #expect(c.edge(pressed: false, at: 112) == [.held(since: 100)])
        _ = c.asksLevel(at: 112.01)
        #expect(c.readEvents(pressed: false, at: 112.01) == [.release(at: 112, wasHeld: true)])
    }

    @Test("released at 9.99 s is an ordinary release, never held")
    func releasedBeforeHeld() {
        var c = downAt100()
        #expect(run(&c, edges: [(false, 109.99)], readAt: 110, line: false) == [.readLevel, .release(at: 109.99, wasHeld: false)])
        #expect(c.asksLevel(at: 200) == false)
        #expect(!c.isHeld)
    }

    @Test("a button already down at start never presses and is held in time")
    func downAtStart() {
        var c = Contact(down: true, at: 50)
        #expect(c.isDown)
        #expect(c.nextDeadline() == 60)
        #expect(run(&c, edges: [(true, 55)], readAt: 55.01, line: true) == [.readLevel, .noise(at: 55)])
        #expect(c.asksLevel(at: 60) == true)
        #expect(c.readEvents(pressed: true, at: 60) == [.held(since: 50)])
        #expect(run(&c, edges: [(false, 70)], readAt: 70.01, line: false) == [.readLevel, .release(at: 70, wasHeld: true)])
    }

    @Test("the next deadline is the sooner of the window's end and the hold")
    func deadlineOrder() {
        var c = Contact(debounce: 0.01, at: 0)
        #expect(c.nextDeadline() == nil)
        _ = c.edge(pressed: true, at: 100)
        _ = c.edge(pressed: false, at: 100.005)
        #expect(c.nextDeadline() == 100 + 0.01)
        var long = Contact(debounce: 20, down: true, at: 100)
        _ = long.edge(pressed: true, at: 100)
        #expect(long.nextDeadline() == 110)
    }
}
