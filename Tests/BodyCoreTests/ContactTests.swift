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

    @Test("edges inside 10 ms after a press are bounce; one press counts")
    func bounceAfterPress() {
        var c = Contact(at: 0)
        #expect(c.edge(pressed: true, at: 100) == [.press(at: 100)])
        #expect(c.edge(pressed: false, at: 100.002) == [])
        #expect(c.edge(pressed: true, at: 100.004) == [])
        #expect(c.edge(pressed: false, at: 100.0045) == [])
        #expect(c.edge(pressed: true, at: 100.005) == [])
        #expect(c.bounces == 4)
        // The raw level ended down, as the press said: nothing is left to settle.
        #expect(c.tick(at: 100.02) == [])
        #expect(c.isDown)
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

    @Test("bounce on the release is one release")
    func bounceOnRelease() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        #expect(c.edge(pressed: false, at: 100.3) == [.release(at: 100.3, wasHeld: false)])
        #expect(c.edge(pressed: true, at: 100.301) == [])
        #expect(c.edge(pressed: false, at: 100.303) == [])
        #expect(c.tick(at: 100.4) == [])
        #expect(!c.isDown)
    }

    @Test("a tap shorter than the window releases when the window ends")
    func shortTap() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        #expect(c.edge(pressed: false, at: 100.006) == [])
        #expect(c.nextDeadline() == 100 + 0.010)
        #expect(c.tick(at: 100.009) == [])
        #expect(c.tick(at: 100 + 0.010) == [.release(at: 100.006, wasHeld: false)])
        #expect(!c.isDown)
        #expect(c.nextDeadline() == nil)
    }

    @Test("a short tap's release settles before the next edge is read")
    func settleBeforeNextEdge() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        _ = c.edge(pressed: false, at: 100.006)
        #expect(c.edge(pressed: true, at: 101) == [
            .release(at: 100.006, wasHeld: false), .press(at: 101),
        ])
    }

    @Test("two deliberate presses are two presses")
    func twoPresses() {
        var c = Contact(at: 0)
        #expect(c.edge(pressed: true, at: 100) == [.press(at: 100)])
        #expect(c.edge(pressed: false, at: 100.15) == [.release(at: 100.15, wasHeld: false)])
        #expect(c.edge(pressed: true, at: 100.5) == [.press(at: 100.5)])
    }

    @Test("an edge that repeats the level (an edge lost between) changes nothing")
    func repeatedLevel() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        #expect(c.edge(pressed: true, at: 101) == [])
        #expect(c.downSince == 100)
        #expect(c.edge(pressed: false, at: 102) == [.release(at: 102, wasHeld: false)])
        #expect(c.edge(pressed: false, at: 103) == [])
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
    }
}

@Suite("Contact: held and stuck")
struct ContactHeldTests {
    @Test("down for 10 s is held, reported once, exactly at the boundary")
    func heldOnce() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        #expect(c.nextDeadline() == 110)
        #expect(c.tick(at: 109.999) == [])
        #expect(!c.isHeld)
        #expect(c.tick(at: 110) == [.held(since: 100)])
        #expect(c.isHeld)
        #expect(c.tick(at: 111) == [])
        #expect(c.tick(at: 500) == [])
        #expect(c.nextDeadline() == nil)
    }

    @Test("a held button never presses until released, then presses again")
    func heldThenReleased() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        _ = c.tick(at: 110)
        #expect(c.edge(pressed: true, at: 115) == [])
        #expect(c.edge(pressed: false, at: 120) == [.release(at: 120, wasHeld: true)])
        #expect(!c.isHeld)
        #expect(c.edge(pressed: true, at: 121) == [.press(at: 121)])
        #expect(c.nextDeadline() == 131)
    }

    @Test("the hold is reported by the next edge if no tick came in time")
    func heldReportedByEdge() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        #expect(c.edge(pressed: false, at: 112) == [
            .held(since: 100), .release(at: 112, wasHeld: true),
        ])
    }

    @Test("released at 9.99 s is an ordinary release, never held")
    func releasedBeforeHeld() {
        var c = Contact(at: 0)
        _ = c.edge(pressed: true, at: 100)
        #expect(c.edge(pressed: false, at: 109.99) == [.release(at: 109.99, wasHeld: false)])
        #expect(c.tick(at: 200) == [])
        #expect(!c.isHeld)
    }

    @Test("a button already down at start never presses and is held in time")
    func downAtStart() {
        var c = Contact(down: true, at: 50)
        #expect(c.isDown)
        #expect(c.nextDeadline() == 60)
        #expect(c.edge(pressed: true, at: 55) == [])
        #expect(c.tick(at: 60) == [.held(since: 50)])
        #expect(c.edge(pressed: false, at: 70) == [.release(at: 70, wasHeld: true)])
    }

    @Test("the next deadline is the sooner of the window's end and the hold")
    func deadlineOrder() {
        var c = Contact(debounce: 0.01, at: 0)
        #expect(c.nextDeadline() == nil)
        _ = c.edge(pressed: true, at: 100)
        _ = c.edge(pressed: false, at: 100.005)
        #expect(c.nextDeadline() == 100 + 0.01)
        _ = c.edge(pressed: true, at: 100.007)
        // Raw is down again, as accepted: only the hold is pending.
        #expect(c.nextDeadline() == 110)
    }
}
