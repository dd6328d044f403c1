/// The head and body deadlines as plain values on the caller's clock, next
/// to `ExchangeState`: given when each wait began and the time now, which are
/// past due (to be cut off) and when the next one is due (for the timeout).
/// No clock, no sockets: the server reads the clock once, only when
/// something waits, and shuts down what comes back.
struct Deadline: Equatable {
    /// Seconds a wait may last from its start.
    let seconds: Double

    /// What one wait that began at `since` comes to at `now`.
    enum Verdict: Equatable {
        /// Not yet: look again at `until`.
        case wait(until: Double)
        /// Past due: cut it off.
        case cutOff
    }

    func verdict(since: Double, at now: Double) -> Verdict {
        now - since >= seconds ? .cutOff : .wait(until: since + seconds)
    }

    /// The waits (each a key and its start) past due at `now`, in the order given.
    func late<Key>(_ waits: [(Key, Double)], at now: Double) -> [Key] {
        waits.compactMap { verdict(since: $0.1, at: now) == .cutOff ? $0.0 : nil }
    }

    /// When the first of `starts` is due; nil when nothing waits.
    func next<S: Sequence<Double>>(_ starts: S) -> Double? {
        starts.min().map { $0 + seconds }
    }
}

/// The two deadlines a request's connection has (HTTPLimits): a whole head
/// from an untrusted connection, and a whole body from any request.
struct Deadlines: Equatable {
    /// From a connection's opening or its last answer to a whole head; a
    /// connection that showed the token has none.
    let head: Deadline
    /// From a head to its whole body; a request waiting for its answer has none.
    let body: Deadline

    init(_ limits: HTTPLimits) {
        head = Deadline(seconds: limits.headDeadline)
        body = Deadline(seconds: limits.bodyDeadline)
    }

    /// What the server does after a run, at `now`: which heads and bodies to
    /// cut off.
    struct Cuts<Head, Body> {
        var heads: [Head] = []
        var bodies: [Body] = []
    }

    /// `heads`: untrusted connections waiting for a head, and since when.
    /// `bodies`: requests whose body is still coming in and not yet cut off, and when their head came.
    func cuts<Head, Body>(heads: [(Head, Double)], bodies: [(Body, Double)], at now: Double) -> Cuts<Head, Body> {
        Cuts(heads: head.late(heads, at: now), bodies: body.late(bodies, at: now))
    }

    /// When the first of either is due, from the earliest start of each (nil:
    /// none waits). The server keeps only those two (no lists a run).
    func next(firstHead: Double?, firstBody: Double?) -> Double? {
        let head = firstHead.map { $0 + self.head.seconds }
        let body = firstBody.map { $0 + self.body.seconds }
        guard let head else { return body }
        guard let body else { return head }
        return min(head, body)
    }

    /// Seconds from `now` until the next of either is due (0 when one is past); nil when nothing waits.
    func timeout(firstHead: Double?, firstBody: Double?, at now: @autoclosure () -> Double) -> Double? {
        next(firstHead: firstHead, firstBody: firstBody).map { max(0, $0 - now()) }
    }
}
