import Testing
@testable import BodyCore

/// A Pi's wall clock lags until network time arrives, so Oriel's `until` comes
/// late on it: then a tap's preview also ends five minutes after the push that
/// opened it, on the monotonic clock (DESIGN rule 7, issue 23).
@Suite("The eyes gate on a clock that is not synchronised")
struct EyesGateClockTests {
    var gate = EyesGate()
    let closed = HouseEyes(open: false)
    /// Two hours behind Oriel's clock: `until` is five minutes after the tap on
    /// Oriel's clock, and so 2 h 5 min away on this one.
    static let lag = 7200.0

    func lagging(_ mono: Double) -> Moment {
        Moment(mono: mono, wall: Moment(mono).wall - Self.lag, synchronised: false)
    }

    func tapped(until mono: Double) -> HouseEyes {
        HouseEyes(open: true, until: Moment(mono).wall, why: "Dad's tap on the studio body")
    }

    /// Closed at 100, then `eyes` pushed at 101, on `clock`.
    mutating func open(_ eyes: HouseEyes, on clock: (Double) -> Moment) {
        gate.adopt(closed, at: clock(100))
        gate.adopt(eyes, at: clock(101))
    }

    @Test("unsynchronised: the preview stops five minutes after the push that opened it, whatever until says")
    mutating func fiveMinutes() {
        let eyes = tapped(until: 400)
        open(eyes, on: lagging)
        #expect(gate.verdict.runs)
        #expect(gate.tapEnds == 401)
        #expect(House.tapFor == 300)
        gate.tick(eyes, at: lagging(400.999))
        #expect(gate.verdict.runs)
        gate.tick(eyes, at: lagging(401))
        #expect(gate.verdict == .stop(why: EyesGate.tapOver))
        #expect(gate.tapEnds == nil)
        gate.tick(eyes, at: lagging(401.5))
        #expect(gate.verdict == .stop(why: EyesGate.tapOver), "still said at the next tick, not 'already open'")
        // The same gate pushed again is no fresh opening, and says why it stopped.
        gate.adopt(eyes, at: lagging(402))
        #expect(gate.verdict == .stop(why: EyesGate.tapOver))
        // A fresh tap runs again, for its own five minutes.
        gate.adopt(closed, at: lagging(500))
        gate.adopt(tapped(until: 800), at: lagging(501))
        #expect(gate.verdict.runs)
        #expect(gate.tapEnds == 801)
    }

    @Test("/status says when the body stops a running preview by itself: the tap's five minutes or until, whichever comes first")
    mutating func stopsIn() {
        // Lagging 2 h: until is 2 h 4 min away, the five minutes come first.
        let eyes = tapped(until: 400)
        open(eyes, on: lagging)
        #expect(gate.stopsIn(eyes, at: lagging(101)) == 300)
        #expect(gate.stopsIn(eyes, at: lagging(350.5)) == 50.5)
        gate.tick(eyes, at: lagging(401))
        #expect(gate.stopsIn(eyes, at: lagging(401)) == nil)
        // Synchronised: until alone, on the wall clock.
        var synced = EyesGate()
        synced.adopt(closed, at: Moment(100))
        synced.adopt(eyes, at: Moment(101))
        #expect(synced.stopsIn(eyes, at: Moment(101)) == 299)
        // No until, synchronised: nothing stops it but Oriel.
        var open = EyesGate()
        let noUntil = HouseEyes(open: true, why: "Dad's tap on the studio body")
        open.adopt(closed, at: Moment(100))
        open.adopt(noUntil, at: Moment(101))
        #expect(open.stopsIn(noUntil, at: Moment(101)) == nil)
    }

    @Test("unsynchronised, with no until at all: still five minutes")
    mutating func noUntil() {
        let eyes = HouseEyes(open: true, why: "Dad's tap on the studio body")
        open(eyes, on: lagging)
        gate.tick(eyes, at: lagging(400))
        #expect(gate.verdict.runs)
        gate.tick(eyes, at: lagging(401))
        #expect(!gate.verdict.runs)
    }

    @Test("unsynchronised: an until sooner than five minutes still stops it first")
    mutating func untilFirst() {
        let eyes = HouseEyes(open: true, until: Moment(101).wall - Self.lag + 60, why: "Dad's tap on the studio body")
        open(eyes, on: lagging)
        gate.tick(eyes, at: lagging(161))
        #expect(gate.verdict == .stop(why: "until passed"))
    }

    @Test("synchronised: until alone decides, even past five minutes")
    mutating func synchronisedUntil() {
        let eyes = tapped(until: 700)
        open(eyes, on: Moment.init)
        gate.tick(eyes, at: Moment(401))
        #expect(gate.verdict.runs)
        gate.tick(eyes, at: Moment(700))
        #expect(gate.verdict == .stop(why: "until passed"))
    }

    @Test("the clock unsynchronised after the opening (set by hand): the five minutes still count from the push")
    mutating func unsynchronisedLater() {
        let eyes = tapped(until: 9000)
        open(eyes, on: Moment.init)
        gate.tick(eyes, at: Moment(300))
        #expect(gate.verdict.runs)
        gate.tick(eyes, at: lagging(401))
        #expect(gate.verdict == .stop(why: EyesGate.tapOver))
    }

    @Test("the body's next wake includes the five minutes' end while the preview runs")
    func bodyWakes() throws {
        var body = Body(settings: BodySettings(name: "studio"), at: lagging(100))
        _ = try body.push(JSONBytes.parse(Array(#"{"eyes":{"open":false}}"#.utf8)), at: lagging(100))
        let open = #"{"eyes":{"open":true,"until":\#(Moment(100).wall + 300),"why":"Dad's tap on the studio body"}}"#
        let actions = try body.push(JSONBytes.parse(Array(open.utf8)), at: lagging(101))
        #expect(actions.contains(.preview(run: true, why: "Dad's tap on the studio body")))
        // Woken at each due time (the unread lamp's flashes, Oriel's silence), the body is woken at 401 too.
        var t = 102.0
        while let due = body.nextDue(at: lagging(t)), due < 401 {
            t = due
            #expect(!appended { body.tick(at: lagging(t), ids: { "id" }, into: &$0) }.contains { if case .preview = $0 { true } else { false } })
        }
        #expect(body.nextDue(at: lagging(t)) == 401)
        let stop = appended { body.tick(at: lagging(401), ids: { "id" }, into: &$0) }
        #expect(stop.contains(.preview(run: false, why: EyesGate.tapOver)))
    }
}
