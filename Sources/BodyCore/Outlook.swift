/// What the body does by itself from one moment on, looked at once: the
/// patterns its lines drive, its next wake-up, and how long `tick` has
/// nothing to do. The agent keeps it between turns while the body is not
/// changed, so a blink's turn reads none of the body (a turn's cost
/// on the board is the memory it touches, not its instructions).
public struct Outlook: Equatable, Sendable {
    /// `Body.indicators` at the moment it was made; the same until `quietUntil`.
    public let indicators: Indicators
    /// When it was made (monotonic): it says nothing of earlier times.
    public let madeAt: Double
    /// Before this (monotonic) `tick` changes nothing and the indicators stay
    /// as here, for a body not changed since it was ticked at `madeAt`. A
    /// microsecond short of the rules' own times: they compare differences
    /// (`now - since >= wait`), a due is a sum, and the two may round apart.
    public let quietUntil: Double
    /// Oriel's `until` of open eyes (wall clock), and whether it had passed at
    /// `madeAt`: the gate's verdict moves when the wall clock crosses it, either way.
    let wallUntil: Double?
    let wallPassed: Bool
    /// `Body.nextDue`'s parts that are not the indicators': the monotonic
    /// ones, and the running preview's `until` on the wall clock.
    let due: Double?
    let untilDue: Double?

    static let margin = 1e-6

    /// None made yet: it holds at no moment.
    public static let unmade = Outlook(
        indicators: Indicators(lamp: (.dark, 0), armedLED: (.dark, 0), eyeLED: (.dark, 0)), madeAt: .infinity,
        quietUntil: -.infinity, wallUntil: nil, wallPassed: false, due: nil, untilDue: nil)

    /// True when `tick` at `now` would change nothing in a body ticked at
    /// `madeAt` and not changed since (the body's tests check it does not).
    public func isQuiet(at now: Moment) -> Bool {
        guard now.mono >= madeAt, now.mono < quietUntil else { return false }
        guard let wallUntil else { return true }
        return (now.wall >= wallUntil) == wallPassed
    }

    /// Whether `indicators` still holds at `now` (for a body not changed since).
    public func showsIndicators(at now: Moment) -> Bool {
        now.mono >= madeAt && now.mono < quietUntil
    }

    /// The next monotonic time anything changes on its own, as `Body.nextDue`.
    public func nextDue(at now: Moment) -> Double? {
        var next = due
        func consider(_ t: Double?) { if let t, t < next ?? .infinity { next = t } }
        if let untilDue { consider(now.mono + max(0, untilDue - now.wall)) }
        consider(indicators.nextChange(after: now.mono))
        return next
    }
}

extension Body {
    /// The body's outlook from `now` on (no array, no copy of the body).
    public func outlook(at now: Moment) -> Outlook {
        var due: Double?
        func consider(_ t: Double?) { if let t, t < due ?? .infinity { due = t } }
        consider(group.expiresAt)
        consider(contact.due)
        consider(controls.nextDue)
        contacts.forEachValue { consider($0.nextDeadline()) }
        noise.forEachValue { consider($0.nextDue) }
        consider(gate.tapEnds)
        // The quiet ends at every due, and also where the gate may move by itself
        // though no wake-up is asked for: the five minutes of an opening on an
        // unsynchronised clock (whatever the clock says now), `until` of open eyes.
        var quiet = due ?? .infinity
        if gate.opened, let at = gate.openedAt { quiet = min(quiet, at + House.tapFor) }
        let wallUntil = eyes.open ? eyes.until : nil
        return Outlook(
            indicators: indicators(at: now), madeAt: now.mono, quietUntil: quiet - Outlook.margin,
            wallUntil: wallUntil, wallPassed: wallUntil.map { now.wall >= $0 } ?? false,
            due: due, untilDue: gate.untilDue(eyes))
    }
}
