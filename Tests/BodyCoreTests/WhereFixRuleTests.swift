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
