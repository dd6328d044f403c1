/// The house's rulings (DESIGN section 1), each in one place. These are not
/// tuning knobs: a control that needs other numbers is a different rule.
public enum House {
    /// The house's ruling: a first press arms a two-press control for 5 s.
    public static let armedFor: Double = 5
    /// The house's ruling: a second press sooner than 0.4 s after arming is the same touch.
    public static let settle: Double = 0.4
    /// The house's ruling: an error Oriel carries back is shown for 12 s.
    public static let problemShownFor: Double = 12
    /// The house's ruling: Oriel has 15 s to show the On Air state a press asked for.
    public static let onAirWait: Double = 15
    /// The house's ruling: Oriel has 20 s to show the Wrap up a press asked for.
    public static let wrapUpWait: Double = 20
    /// The house's ruling (DESIGN 3): the eyes kill asks for 15 s, like On Air.
    public static let killWait: Double = 15
    /// The house's ruling: a fix counts only if it is no older than 30 s at its arrival.
    public static let fixFreshFor: Double = 30
    /// The house's ruling: a `GET /where` waits at most 15 s for a fresh fix.
    public static let whereWait: Double = 15
    /// The house's ruling (Oriel's TAP_MINUTES): a tap opens the eyes for five minutes.
    public static let tapFor: Double = 5 * 60
}

/// How much of each pushed word the body keeps (DESIGN 4).
public enum Cut {
    public static let reason = 160
    public static let phase = 16
    public static let since = 40
    public static let by = 24
    public static let eyeNames = 6
}

/// A point in time on both clocks: `mono` (CLOCK_MONOTONIC seconds) decides,
/// `wall` (epoch seconds) is what the status document shows and what Oriel's
/// `until` is compared with. `synchronised` is whether the kernel vouches for
/// the wall clock (network time reached it): a Pi's lags until then.
public struct Moment: Equatable, Sendable {
    public var mono: Double
    public var wall: Double
    public var synchronised: Bool

    public init(mono: Double, wall: Double, synchronised: Bool = true) {
        self.mono = mono
        self.wall = wall
        self.synchronised = synchronised
    }

    /// A moment for tests and traces: the wall clock a fixed distance ahead.
    public init(_ mono: Double) {
        self.init(mono: mono, wall: 1_764_500_000 + mono)
    }

    public func after(_ seconds: Double) -> Moment {
        Moment(mono: mono + seconds, wall: wall + seconds, synchronised: synchronised)
    }
}
