/// Which gpsd report answers a `GET /where` (DESIGN rule 8 and section 6).
public enum FixRule {
    public static let freshFor = House.fixFreshFor
    public static let deadline = House.whereWait
    /// The receiver's report period when gpsd does not say one (NMEA receivers send once a second).
    public static let defaultCycle: Double = 1

    /// What one TPV is worth to a waiting request.
    public enum Verdict: Equatable, Sendable {
        /// Mode 2D or 3D, a position, a fix time within `freshFor` of its arrival.
        case fresh
        /// Fresh although its time is more than `freshFor` ahead of the wall clock:
        /// the wall clock is not synchronised, so it lags, by `ahead` seconds.
        case freshAheadOfClock(ahead: Double)
        /// A position whose fix time is too far from the wall clock at arrival.
        case stale
        /// No fix, no position or no fix time: nothing to answer with.
        case noFix

        public var isFresh: Bool {
            switch self {
            case .fresh, .freshAheadOfClock: true
            case .stale, .noFix: false
            }
        }
    }

    /// Judges a TPV that arrived on the live stream of a watch at `wall`
    /// (epoch seconds, read when it arrived). A fix time more than `freshFor`
    /// behind the clock is stale whatever the clock; one as far ahead is stale
    /// too while the kernel vouches for the clock (one of them is wrong), but
    /// fresh while it does not: a clock without network time (a Pi has no
    /// battery-backed one) only lags, and the receiver's is the better one.
    /// Only a live fix may say so: gpsd sends a watch each fix as the receiver
    /// reports it (its cached fixes come only in a POLL, which the body never asks for).
    public static func judge(_ fix: GpsFix, arrivedAt wall: Double, synchronised: Bool = true) -> Verdict {
        guard fix.mode >= 2, fix.latitude != nil, fix.longitude != nil, let time = fix.time else {
            return .noFix
        }
        let ahead = time - wall
        if abs(ahead) <= freshFor { return .fresh }
        return ahead > 0 && !synchronised ? .freshAheadOfClock(ahead: ahead) : .stale
    }

    /// How whole a fresh fix is: an error estimate counts most, then a 3D altitude. A `complete` one answers at once.
    /// (gpsd can say mode 3 before this cycle's GGA brought the altitude.)
    public static func rank(_ fix: GpsFix) -> Int {
        let altitude = fix.mode >= 3 && (fix.altitudeMSL ?? fix.altitudeHAE) != nil
        return (accuracy(fix) != nil ? 2 : 0) + (altitude ? 1 : 0)
    }
    public static let complete = 3

    /// gpsd's horizontal error estimate: `eph`, else the two axes combined (their root sum of squares).
    public static func accuracy(_ fix: GpsFix) -> Double? {
        if let eph = fix.eph, eph >= 0 { return eph }
        if let x = fix.epx, let y = fix.epy, x >= 0, y >= 0 { return (x * x + y * y).squareRoot() }
        return nil
    }
}
