import BodyCore
import Testing

@Suite("Contact: kernel edges to presses")
struct ContactTests {
    @Test("the first edge presses at once, without waiting for the window")
    func leadingEdge() {
        var c = Contact(at: 0)
        #expect(c.edge(pressed: true, at: 100) == [.press(at: 100)])
        #expect(c.isDown)
        #expect(c.downSince == 100)
    }

    @Test("edges inside 10 ms after a press are bounce; the reading at the window's end settles")
    func bounceAfterPress() {
        var c = Contact(at: 0)
        #expect(c.edge(pressed: true, at: 100) == [.press(at: 100)])
        #expect(c.edge(pressed: false, at: 100.002) == [])
        #expect(c.edge(pressed: true, at: 100.004) == [])
        #expect(c.edge(pressed: false, at: 100.0045) == [])
        #expect(c.edge(pressed: true, at: 100.005) == [])
        #expect(c.bounces == 4)
        #expect(c.nextDeadline() == 100.010)
        #expect(c.tick(at: 100.009) == [])
        #expect(c.tick(at: 100.010) == [.readLevel])
        #expect(c.awaitingLevel)
        #expect(c.tick(at: 100.011) == [], "asked once")
        #expect(c.nextDeadline() == nil)
        #expect(c.level(pressed: true, at: 100.011) == [])
        #expect(c.isDown)
        #expect(c.nextDeadline() == 110)
    }

    // Issue 11: the kernel reports the level its handler reads, not the edge.
    @Test("an edge while up presses whatever direction it reports", arguments: [true, false])
    func anyDirectionPresses(reported: Bool) {
        var c = Contact(at: 0)
        #expect(c.edge(pressed: reported, at: 100) == [.press(at: 100)])
        #expect(c.isDown)
    }

    @Test("a 1 ms tap whose edges both say released is one press, released by the reading")
    func tapReportedReleased() {
        var c = Contact(at: 0)
        #expect(c.edge(pressed: false, at: 100) == [.press(at: 100)])
        #expect(c.edge(pressed: false, at: 100.001) == [])
        #expect(c.tick(at: 100.010) == [.readLevel])
        #expect(c.level(pressed: false, at: 100.0102) == [.release(at: 100.0102, wasHeld: false)])
        #expect(!c.isDown)
        #expect(c.nextDeadline() == nil)
    }

    @Test("a bounced tap ending released is one press, whatever the edges report", arguments: [
        [false, false, false, false, false, false],
        [true, false, true, false, true, false],
        [true, true, true, true, true, true],
        [false, true, false, true, false, true],
    ])
    func bouncedTap(reported: [Bool]) {
        var c = Contact(at: 0)
        var events: [Contact.Event] = []
        for (i, r) in reported.enumerated() { events += c.edge(pressed: r, at: 100 + Double(i) * 0.0008) }
        events += c.tick(at: 100.010)
        events += c.level(pressed: false, at: 100.0101)
        #expect(events == [.press(at: 100), .readLevel, .release(at: 100.0101, wasHeld: false)])
        #expect(!c.isDown)
    }

    @Test("a press whose bounce ends held down stays down, then is held only if the line reads pressed")
    func bounceEndsDown() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: false, at: 100)
        _ = c.edge(pressed: false, at: 100.002)
        _ = c.tick(at: 100.010)
        #expect(c.level(pressed: true, at: 100.010) == [])
        #expect(c.isDown && !c.isHeld)
        #expect(c.tick(at: 110) == [.readLevel])
        #expect(c.level(pressed: true, at: 110.001) == [.held(since: 100)])
        #expect(c.isHeld)
    }

    @Test("a bounce the edges end pressed but the line reads released is a release, never held")
    func readingOverrulesEdges() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        _ = c.edge(pressed: true, at: 100.003)
        _ = c.tick(at: 100.010)
        #expect(c.level(pressed: false, at: 100.011) == [.release(at: 100.011, wasHeld: false)])
        #expect(c.tick(at: 200) == [])
        #expect(!c.isHeld)
    }

    @Test("a release that bounces is one release and never a press")
    func bounceOnRelease() {
        var d = Contact(at: 0)
        _ = d.edge(pressed: true, at: 100)
        _ = d.tick(at: 100.010)
        _ = d.level(pressed: true, at: 100.010)
        #expect(d.edge(pressed: false, at: 100.3) == [.release(at: 100.3, wasHeld: false)])
        #expect(d.edge(pressed: true, at: 100.301) == [])
        #expect(d.edge(pressed: false, at: 100.303) == [])
        #expect(d.edge(pressed: true, at: 100.305) == [])
        #expect(d.tick(at: 100.31) == [.readLevel])
        #expect(d.level(pressed: false, at: 100.31) == [])
        #expect(!d.isDown)
    }

    @Test("down, an edge that says pressed waits for the reading: released, or still down")
    func downEdgeSaysPressed() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        _ = c.tick(at: 100.010)
        _ = c.level(pressed: true, at: 100.010)
        #expect(c.edge(pressed: true, at: 100.5) == [])
        #expect(c.nextDeadline() == 100.51)
        _ = c.tick(at: 100.51)
        #expect(c.level(pressed: false, at: 100.51) == [.release(at: 100.51, wasHeld: false)])
        var d = Contact(at: 0)
        _ = d.edge(pressed: true, at: 100)
        #expect(d.edge(pressed: true, at: 100.5) == [])
        _ = d.tick(at: 100.51)
        #expect(d.level(pressed: true, at: 100.51) == [])
        #expect(d.isDown && d.downSince == 100)
    }

    @Test("a release whose line reads pressed again goes down quietly: no press from a release")
    func releaseGrazeGoesDownQuietly() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        _ = c.edge(pressed: false, at: 100.3)
        _ = c.tick(at: 100.31)
        #expect(c.level(pressed: true, at: 100.31) == [])
        #expect(c.isDown && c.downSince == 100.31)
        #expect(c.edge(pressed: false, at: 101) == [.release(at: 101, wasHeld: false)])
    }

    @Test("an edge stamped before the last reading is already in it")
    func staleEdge() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        _ = c.tick(at: 100.010)
        _ = c.level(pressed: false, at: 100.020)
        #expect(c.edge(pressed: true, at: 100.015) == [])
        #expect(c.bounces == 1)
        #expect(c.edge(pressed: true, at: 100.5) == [.press(at: 100.5)])
    }

    @Test("a reading nobody asked for, or one an edge overtook, changes nothing")
    func unaskedReading() {
        var c = Contact(at: 0)
        #expect(c.level(pressed: true, at: 50) == [])
        #expect(!c.isDown)
        _ = c.edge(pressed: true, at: 100)
        _ = c.tick(at: 100.010)
        // The window ended; a new edge came before the reading.
        #expect(c.edge(pressed: false, at: 100.012) == [.release(at: 100.012, wasHeld: false)])
        #expect(!c.awaitingLevel)
        #expect(c.level(pressed: true, at: 100.013) == [])
        #expect(!c.isDown)
    }

    @Test("an edge just inside the window is bounce, one at its end counts", arguments: [
        (0.4999, false), (0.5, true), (0.5001, true),
    ])
    func windowBoundary(after: Double, counts: Bool) {
        var c = Contact(debounce: 0.5, at: 0)
        _ = c.edge(pressed: true, at: 100)
        let events = c.edge(pressed: false, at: 100 + after)
        #expect(events == (counts ? [.release(at: 100 + after, wasHeld: false)] : []))
        #expect(c.isDown == !counts)
    }

    @Test("two deliberate presses are two presses")
    func twoPresses() {
        var c = Contact(at: 0)
        #expect(c.edge(pressed: true, at: 100) == [.press(at: 100)])
        #expect(c.edge(pressed: false, at: 100.15) == [.release(at: 100.15, wasHeld: false)])
        #expect(c.edge(pressed: true, at: 100.5) == [.press(at: 100.5)])
    }

    @Test("two bounced taps, each settled by its reading, are two presses")
    func twoBouncedTaps() {
        var c = Contact(at: 0)
        var presses: [Double] = []
        for start in [100.0, 100.6] {
            for i in 0..<5 {
                for case .press(let at) in c.edge(pressed: false, at: start + Double(i) * 0.001) { presses.append(at) }
            }
            #expect(c.tick(at: start + 0.010) == [.readLevel])
            _ = c.level(pressed: false, at: start + 0.010)
        }
        #expect(presses == [100, 100.6])
    }

    @Test("debounce 0 takes every edge")
    func noDebounce() {
        var c = Contact(debounce: 0, at: 0)
        #expect(c.edge(pressed: true, at: 100) == [.press(at: 100)])
        #expect(c.edge(pressed: false, at: 100) == [.release(at: 100, wasHeld: false)])
        #expect(c.edge(pressed: true, at: 100) == [.press(at: 100)])
    }

    @Test("the house's rulings are named")
    func constants() {
        #expect(Contact.heldAfter == 10)
        #expect(Contact.defaultDebounce == 0.010)
        #expect(Contact(at: 0).debounce == 0.010)
        #expect(Contact(debounce: -1, at: 0).debounce == 0)
    }
}

@Suite("Contact: held and stuck")
struct ContactHeldTests {
    /// Down at 100, its window settled by a reading that says pressed.
    private func downAt100() -> Contact {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        _ = c.tick(at: 100.010)
        _ = c.level(pressed: true, at: 100.010)
        return c
    }

    @Test("down for 10 s asks for the level; held once, exactly at the boundary")
    func heldOnce() {
        var c = downAt100()
        #expect(c.nextDeadline() == 110)
        #expect(c.tick(at: 109.999) == [])
        #expect(c.tick(at: 110) == [.readLevel])
        #expect(!c.isHeld)
        #expect(c.level(pressed: true, at: 110) == [.held(since: 100)])
        #expect(c.isHeld)
        #expect(c.tick(at: 111) == [])
        #expect(c.tick(at: 500) == [])
        #expect(c.nextDeadline() == nil)
    }

    @Test("never held while the line reads released: the reading releases instead")
    func heldCheckReadsReleased() {
        var c = downAt100()
        _ = c.tick(at: 110)
        #expect(c.level(pressed: false, at: 110) == [.release(at: 110, wasHeld: false)])
        #expect(!c.isHeld && !c.isDown)
    }

    @Test("a held button never presses until released, then presses again")
    func heldThenReleased() {
        var c = downAt100()
        _ = c.tick(at: 110)
        _ = c.level(pressed: true, at: 110)
        #expect(c.edge(pressed: true, at: 115) == [])
        #expect(c.edge(pressed: false, at: 115.005) == [])
        _ = c.tick(at: 115.01)
        #expect(c.level(pressed: true, at: 115.01) == [], "noise on a held line")
        #expect(c.isHeld)
        #expect(c.edge(pressed: false, at: 120) == [.release(at: 120, wasHeld: true)])
        #expect(!c.isHeld)
        _ = c.tick(at: 120.01)
        _ = c.level(pressed: false, at: 120.01)
        #expect(c.edge(pressed: true, at: 121) == [.press(at: 121)])
        #expect(c.nextDeadline() == 121.01)
    }

    @Test("the hold is reported by the next edge if no tick came in time")
    func heldReportedByEdge() {
        var c = downAt100()
        #expect(c.edge(pressed: false, at: 112) == [
            .held(since: 100), .release(at: 112, wasHeld: true),
        ])
    }

    @Test("released at 9.99 s is an ordinary release, never held")
    func releasedBeforeHeld() {
        var c = downAt100()
        #expect(c.edge(pressed: false, at: 109.99) == [.release(at: 109.99, wasHeld: false)])
        _ = c.tick(at: 110)
        _ = c.level(pressed: false, at: 110)
        #expect(c.tick(at: 200) == [])
        #expect(!c.isHeld)
    }

    @Test("a button already down at start never presses and is held in time")
    func downAtStart() {
        var c = Contact(down: true, at: 50)
        #expect(c.isDown)
        #expect(c.nextDeadline() == 60)
        #expect(c.edge(pressed: true, at: 55) == [])
        _ = c.tick(at: 55.01)
        #expect(c.level(pressed: true, at: 55.01) == [])
        #expect(c.tick(at: 60) == [.readLevel])
        #expect(c.level(pressed: true, at: 60) == [.held(since: 50)])
        #expect(c.edge(pressed: false, at: 70) == [.release(at: 70, wasHeld: true)])
    }

    @Test("the next deadline is the sooner of the window's end and the hold")
    func deadlineOrder() {
        var c = Contact(debounce: 0.01, at: 0)
        #expect(c.nextDeadline() == nil)
        _ = c.edge(pressed: true, at: 100)
        _ = c.edge(pressed: false, at: 100.005)
        #expect(c.nextDeadline() == 100 + 0.01)
        var long = Contact(debounce: 20, at: 0)
        _ = long.edge(pressed: true, at: 100)
        #expect(long.nextDeadline() == 110)
    }
}
