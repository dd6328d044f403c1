/// One gpsd watch shared by every `GET /where` waiting on it: which report
/// answers which request, and when. A plain value with no timer and no I/O;
/// the caller reads the clocks, feeds reports in and arms one timer at `nextWake`.
///
/// `now` is monotonic seconds (deadlines); `wall` is epoch seconds read when a
/// report arrived (freshness is judged against the wall clock, as fix times are),
/// and `synchronised` whether the kernel vouched for it then (`FixRule.judge`).
public struct WhereWatch: Sendable {
    /// One waiting request.
    public struct Ticket: Hashable, Sendable, Comparable {
        public let raw: Int
        public static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
    }

    /// A request answered, and with what.
    public struct Outcome: Equatable, Sendable {
        public let ticket: Ticket
        public let answer: WhereAnswer
    }

    struct Waiting: Sendable {
        var deadline: Double
        var askedAt: Double
        /// The best fresh fix so far that is not complete, held while one more cycle may bring a complete one.
        var best: WherePlace?
        var bestRank = 0
        var holdUntil: Double?
        var sawStale = false
        var sawGarbage = false
    }

    private var waiting: [Ticket: Waiting] = [:]
    private var next = 1
    private var receivers: [String: GpsDevice] = [:]
    /// True once gpsd has listed its receivers (it does right after the watch starts).
    private var receiversListed = false
    private var lastHeard: Double?
    /// How far the receiver's clock was ahead of the wall clock (negative: behind)
    /// at the last fresh fix of this watch.
    public private(set) var receiverAhead: Double?

    public init() {}

    /// No request waits: the caller closes the watch.
    public var isEmpty: Bool { waiting.isEmpty }
    public var count: Int { waiting.count }

    /// When the caller must call `expire(at:)` next: a deadline or the end of a hold.
    public var nextWake: Double? {
        waiting.values.map { $0.holdUntil ?? $0.deadline }.min()
    }

    /// A request starts waiting at `now`.
    public mutating func ask(at now: Double) -> Ticket {
        let ticket = Ticket(raw: next)
        next += 1
        waiting[ticket] = Waiting(deadline: now + FixRule.deadline, askedAt: now)
        return ticket
    }

    /// A request stops waiting without an answer (its client went away).
    public mutating func withdraw(_ ticket: Ticket) {
        waiting.removeValue(forKey: ticket)
    }

    /// One report from gpsd; answers every request it settles.
    public mutating func take(_ report: GpsReport, arrivedAt wall: Double, synchronised: Bool = true,
                              at now: Double) -> [Outcome] {
        // Garbage is not gpsd answering; a deadline after any says so, before the other causes.
        if case .garbage = report {
            for t in waiting.keys { waiting[t]?.sawGarbage = true }
            return []
        }
        lastHeard = now
        switch report {
        case .devices(let list):
            receiversListed = true
            receivers = [:]
            for d in list where d.active { receivers[d.path] = d }
            return []
        case .device(let d):
            if d.active {
                // A DEVICE may lack the cycle DEVICES gave: keep what was known.
                var known = receivers[d.path] ?? d
                known.driver = d.driver ?? known.driver
                known.cycle = d.cycle ?? known.cycle
                receivers[d.path] = known
            } else {
                receivers.removeValue(forKey: d.path)
            }
            return []
        case .other, .garbage:
            return []
        case .fix(let fix):
            if !fix.device.isEmpty, receivers[fix.device] == nil {
                receivers[fix.device] = GpsDevice(path: fix.device)
            }
            return settle(fix, arrivedAt: wall, synchronised: synchronised, at: now)
        }
    }

    private mutating func settle(_ fix: GpsFix, arrivedAt wall: Double, synchronised: Bool, at now: Double) -> [Outcome] {
        switch FixRule.judge(fix, arrivedAt: wall, synchronised: synchronised) {
        case .noFix:
            return []
        case .stale:
            for t in waiting.keys { waiting[t]?.sawStale = true }
            return []
        case .fresh, .freshAheadOfClock:
            if let time = fix.time { receiverAhead = time - wall }
            let receiver = receivers[fix.device]
            guard let place = WherePlace(fix: fix, receiver: receiver) else { return [] }
            let rank = FixRule.rank(fix)
            if rank == FixRule.complete {
                return answerAll(.place(place))
            }
            // gpsd's first TPV of a cycle is often built from RMC alone (2D, no error estimate) and the
            // whole one follows: wait one more receiver cycle for it, then answer with the best there was.
            let cycle = receiver?.cycle ?? FixRule.defaultCycle
            for (t, w) in waiting where w.best == nil || rank >= w.bestRank {
                waiting[t]?.best = place
                waiting[t]?.bestRank = rank
                if w.holdUntil == nil { waiting[t]?.holdUntil = min(now + cycle, w.deadline) }
            }
            return []
        }
    }

    /// Answers every request whose hold or deadline has come by `now`.
    public mutating func expire(at now: Double) -> [Outcome] {
        var out: [Outcome] = []
        for (t, w) in waiting.sorted(by: { $0.key < $1.key }) {
            if let hold = w.holdUntil, hold <= now, let best = w.best {
                out.append(Outcome(ticket: t, answer: .place(best)))
            } else if w.deadline <= now {
                out.append(Outcome(ticket: t, answer: .noFreshFix(cause(for: w))))
            } else {
                continue
            }
            waiting.removeValue(forKey: t)
        }
        return out
    }

    /// gpsd closed the connection or the read failed: everyone is answered now, in words.
    public mutating func lost() -> [Outcome] {
        let out = waiting.keys.sorted().map { t -> Outcome in
            if let best = waiting[t]?.best { return Outcome(ticket: t, answer: .place(best)) }
            return Outcome(ticket: t, answer: .noFreshFix(.gpsdSilent))
        }
        waiting = [:]
        return out
    }

    private func cause(for w: Waiting) -> WhereCause {
        if w.sawGarbage { return .garbled }
        if w.sawStale { return .onlyStale }
        if receiversListed && receivers.isEmpty { return .noReceiver }
        // A receiver sends every cycle, so gpsd says something each second while it has one.
        guard let heard = lastHeard, heard >= w.askedAt else { return .gpsdSilent }
        return .noFix
    }

    private mutating func answerAll(_ answer: WhereAnswer) -> [Outcome] {
        let out = waiting.keys.sorted().map { Outcome(ticket: $0, answer: answer) }
        waiting = [:]
        return out
    }
}
