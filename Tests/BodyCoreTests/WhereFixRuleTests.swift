import Testing
import BodyCore

@Suite("which gpsd report answers GET /where")
struct WhereFixRuleTests {
    static let wall = 1_764_500_000.0

    func fix(mode: Int = 3, time: Double? = wall, lat: Double? = 52.5, lon: Double? = 13.4,
             eph: Double? = 5, epx: Double? = nil, epy: Double? = nil) -> GpsFix {
        GpsFix(mode: mode, time: time, latitude: lat, longitude: lon, eph: eph, epx: epx, epy: epy, device: "/dev/ttyACM0")
    }

    @Test("a 3D fix sampled 10 s before it arrived is fresh")
    func fresh3D() { #expect(FixRule.judge(fix(time: Self.wall - 10), arrivedAt: Self.wall) == .fresh) }

    @Test("a 2D fix counts too")
    func fresh2D() { #expect(FixRule.judge(fix(mode: 2), arrivedAt: Self.wall) == .fresh) }

    @Test("30 s old at arrival still counts; 30.5 s does not", arguments: [
        (30.0, FixRule.Verdict.fresh), (30.5, .stale), (3600, .stale), (-30, .fresh), (-31, .stale),
    ])
    func freshness(age: Double, verdict: FixRule.Verdict) {
        #expect(FixRule.judge(fix(time: Self.wall - age), arrivedAt: Self.wall) == verdict)
    }

    @Test("no mode, no position or no fix time is no fix", arguments: [
        GpsFix(mode: 1, time: wall, latitude: 52.5, longitude: 13.4),
        GpsFix(mode: 0, time: wall, latitude: 52.5, longitude: 13.4),
        GpsFix(mode: 3, time: nil, latitude: 52.5, longitude: 13.4),
        GpsFix(mode: 3, time: wall, latitude: nil, longitude: 13.4),
        GpsFix(mode: 3, time: wall, latitude: .nan, longitude: .nan),
    ])
    func noFix(f: GpsFix) { #expect(FixRule.judge(f, arrivedAt: Self.wall) == .noFix) }

    @Test("accuracy is eph, else epx and epy combined, else none")
    func accuracy() {
        #expect(FixRule.accuracy(fix(eph: 22.8, epx: 18, epy: 13)) == 22.8)
        #expect(FixRule.accuracy(fix(eph: nil, epx: 3, epy: 4)) == 5)
        #expect(FixRule.accuracy(fix(eph: .nan, epx: 3, epy: nil)) == nil)
    }

    @Test("the house's two numbers")
    func rulings() {
        #expect(FixRule.freshFor == 30)
        #expect(FixRule.deadline == 15)
    }
}

/// A Pi has no battery-backed clock: until network time arrives its wall clock
/// lags, and the receiver's is the better one (issue 23).
@Suite("a fix against a wall clock the kernel does not vouch for")
struct WhereFixRuleClockTests {
    static let wall = 1_764_500_000.0

    func fix(time: Double) -> GpsFix {
        GpsFix(mode: 3, time: time, latitude: 52.5, longitude: 13.4, eph: 5, device: "/dev/ttyACM0")
    }

    @Test("ahead of an unsynchronised clock by any amount: fresh, and how far is said", arguments: [31.0, 7200, 34_560_000] as [Double])
    func aheadUnsynchronised(ahead: Double) {
        let v = FixRule.judge(fix(time: Self.wall + ahead), arrivedAt: Self.wall, synchronised: false)
        #expect(v == .freshAheadOfClock(ahead: ahead))
        #expect(v.isFresh)
    }

    @Test("ahead of a synchronised clock by more than 30 s: stale")
    func aheadSynchronised() {
        #expect(FixRule.judge(fix(time: Self.wall + 7200), arrivedAt: Self.wall, synchronised: true) == .stale)
        #expect(FixRule.judge(fix(time: Self.wall + 31), arrivedAt: Self.wall) == .stale)
    }

    @Test("behind by more than 30 s: stale, synchronised or not", arguments: [false, true])
    func behind(synchronised: Bool) {
        #expect(FixRule.judge(fix(time: Self.wall - 30.5), arrivedAt: Self.wall, synchronised: synchronised) == .stale)
        #expect(FixRule.judge(fix(time: Self.wall - 7200), arrivedAt: Self.wall, synchronised: synchronised) == .stale)
        #expect(FixRule.judge(fix(time: Self.wall - 30), arrivedAt: Self.wall, synchronised: synchronised) == .fresh)
    }

    @Test("within 30 s an unsynchronised clock changes nothing")
    func within() {
        #expect(FixRule.judge(fix(time: Self.wall + 30), arrivedAt: Self.wall, synchronised: false) == .fresh)
        #expect(!FixRule.Verdict.stale.isFresh && !FixRule.Verdict.noFix.isFresh)
    }

    @Test("no fix stays no fix on any clock")
    func noFix() {
        let f = GpsFix(mode: 1, time: Self.wall + 7200, latitude: 52.5, longitude: 13.4)
        #expect(FixRule.judge(f, arrivedAt: Self.wall, synchronised: false) == .noFix)
    }
}
