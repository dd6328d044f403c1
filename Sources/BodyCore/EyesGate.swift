/// Whether this body's camera may run (DESIGN rule 7): only while Oriel's push
/// says the gate is open, for a reason that names the tap, and the body either
/// just saw it open or has just asked. It stops when the push says closed, when
/// `until` passes (even if Oriel is silent), or when the device goes away.
/// While the wall clock is not synchronised it lags (a Pi without network
/// time), so `until` (Oriel's wall clock) comes late on it: then the camera
/// also stops at the house's five minutes after the push that opened it, on
/// the monotonic clock.
public struct EyesGate: Equatable, Sendable {
    /// The house's ruling read from rule 7: the camera button's ask counts as
    /// "just asked" for as long as any request waits for the world, 15 s.
    public static let askCounts = House.onAirWait

    public enum Verdict: Equatable, Sendable {
        case run(why: String)
        case stop(why: String)

        public var runs: Bool { if case .run = self { return true }; return false }
        public var words: String {
            switch self {
            case .run(let w), .stop(let w): w
            }
        }
    }

    /// The gate as last pushed; nil before any eyes object.
    public private(set) var lastOpen: Bool?
    /// Set when the body saw the gate open (closed before, open now) or asked just before it opened.
    public private(set) var opened: Bool = false
    /// When the push that opened it came (monotonic).
    public private(set) var openedAt: Double?
    /// The opening's five minutes ended on an unsynchronised clock: said until a fresh opening or a close.
    public private(set) var tapEnded = false
    public private(set) var askedAt: Double?
    public private(set) var verdict: Verdict = .stop(why: "the eyes gate is closed")
    /// Set when the device went away; cleared by the next opening.
    public private(set) var deviceGone: String?

    public init() {}

    /// The camera button asked Oriel to open or close this body's eyes.
    public mutating func asked(at now: Moment) {
        askedAt = now.mono
    }

    /// A push carried an eyes object.
    public mutating func adopt(_ eyes: HouseEyes, at now: Moment) {
        let justAsked = askedAt.map { now.mono - $0 < Self.askCounts } ?? false
        if eyes.open {
            if lastOpen == false || justAsked, !opened {
                opened = true
                openedAt = now.mono
                deviceGone = nil
                tapEnded = false
            }
        } else {
            opened = false
            tapEnded = false
        }
        if eyes.open, justAsked { askedAt = nil }
        lastOpen = eyes.open
        decide(eyes, at: now)
    }

    /// The clock moved: `until` may have passed.
    public mutating func tick(_ eyes: HouseEyes, at now: Moment) {
        decide(eyes, at: now)
    }

    /// The camera went away while running; the gate must see a fresh opening to run again.
    public mutating func cameraGone(_ words: String) {
        deviceGone = words
        opened = false
        verdict = .stop(why: words)
    }

    private mutating func decide(_ eyes: HouseEyes, at now: Moment) {
        if !eyes.open {
            verdict = .stop(why: lastOpen == nil ? "the eyes gate is closed" : "closed by Oriel")
            return
        }
        if let until = eyes.until, now.wall >= until {
            opened = false
            verdict = .stop(why: "until passed")
            return
        }
        if !now.synchronised, opened, let at = openedAt, now.mono >= at + House.tapFor {
            opened = false
            tapEnded = true
        }
        // Said for as long as it is so, not only at the tick it happened (the
        // status read a moment later must not say "already open" instead).
        if tapEnded {
            verdict = .stop(why: Self.tapOver)
            return
        }
        guard Self.namesTap(eyes.why) else {
            verdict = .stop(why: "the gate is open, but not for a tap (\(eyes.why ?? "no reason given"))")
            return
        }
        if let gone = deviceGone {
            verdict = .stop(why: gone)
            return
        }
        guard opened else {
            verdict = .stop(why: "the gate was already open: the body neither saw it open nor asked")
            return
        }
        verdict = .run(why: eyes.why ?? "a tap")
    }

    /// A reason names the tap when it says "tap" (Dad's tap on the studio body).
    public static func namesTap(_ why: String?) -> Bool {
        why?.lowercased().contains("tap") ?? false
    }

    /// When `until` will pass, on the wall clock.
    public func untilDue(_ eyes: HouseEyes) -> Double? {
        verdict.runs ? eyes.until : nil
    }

    /// When a running preview's five minutes end (monotonic); asked whatever
    /// the clock says now, since setting the clock by hand unsynchronises it.
    public var tapEnds: Double? {
        verdict.runs ? openedAt.map { $0 + House.tapFor } : nil
    }

    /// Seconds until the body stops a running preview by itself: Oriel's
    /// `until` on the wall clock, or, on a clock that is not synchronised, the
    /// tap's five minutes if they come first. Nil when it is stopped.
    public func stopsIn(_ eyes: HouseEyes, at now: Moment) -> Double? {
        guard verdict.runs else { return nil }
        let until = eyes.until.map { $0 - now.wall }
        let tap = now.synchronised ? nil : tapEnds.map { $0 - now.mono }
        // The nearer of the two, with no array (the status document asks at every request).
        guard let soonest = until.map({ u in tap.map { min(u, $0) } ?? u }) ?? tap else { return nil }
        return max(0, soonest)
    }

    public static let tapOver = "five minutes since the push that opened it, and this computer's clock is not synchronised (until cannot be trusted)"
}
