/// The hello to Oriel (DESIGN 5) as a value: at start and after every
/// silence, retried 1 s doubling to 60 s with jitter, said once per change
/// of outcome. Events in, deeds out: the agent sends, sets the retry's
/// timer and logs; this decides when, and what is said.
public struct HelloRounds: Equatable, Sendable {
    /// What the agent does for the hello.
    public enum Deed: Equatable, Sendable {
        /// Send a hello carrying this URL (the body's own, where Oriel calls it).
        case send(url: String)
        /// Try again after this many seconds (replacing any retry set).
        case retry(after: Double)
        /// Drop the retry set: the hello goes now instead.
        case cancelRetry
        case log(String, warning: Bool)
        /// For `/metrics`: a hello answered (true) or failed (false).
        case counted(answered: Bool)
    }

    /// Oriel's whole hello URL, for the words.
    public let oriel: String
    public private(set) var backoff = HelloBackoff()
    public private(set) var inFlight = false
    public private(set) var retrying = false
    /// The URL the last answered hello carried.
    public private(set) var answeredURL: String?
    /// The last outcome in words ("ok" once answered), for the page.
    public private(set) var lastOutcome: String?
    /// Each outcome is said once until it changes.
    private var said = RepeatFilter()

    public init(oriel: String) { self.oriel = oriel }

    /// A round of hellos starts (the body started, Oriel fell silent), unless one is going.
    public mutating func begin(url: String) -> [Deed] {
        guard !inFlight, !retrying else { return [] }
        return send(url)
    }

    /// Oriel called the body while hellos were backing off: it is back, so
    /// the hello goes now rather than at the next retry.
    public mutating func orielCalled(url: String) -> [Deed] {
        guard retrying else { return [] }
        retrying = false
        return [.cancelRetry] + send(url)
    }

    /// The URL the body is reached at changed: Oriel learns it by another
    /// hello, unless one is under way (a retry carries the new URL; a hello
    /// in flight is followed by one when it is answered).
    public mutating func urlChanged(to url: String) -> [Deed] {
        guard !inFlight, !retrying, let answeredURL, answeredURL != url else { return [] }
        return send(url)
    }

    /// The retry's time came.
    public mutating func retryDue(url: String) -> [Deed] {
        guard retrying else { return [] }
        retrying = false
        return send(url)
    }

    /// The hello carrying `carried` was answered with `status` (nil: it failed,
    /// in `failure`'s words); `url` is the body's URL now; `jitter` in 0..<1.
    public mutating func done(status: Int?, failure: String = "", carried: String, url: String, jitter: Double) -> [Deed] {
        inFlight = false
        if let status {
            backoff.succeeded()
            answeredURL = carried
            var deeds: [Deed] = [.counted(answered: true)]
            lastOutcome = "ok"
            if said.say("ok", about: "hello") != nil { deeds.append(.log("hello: Oriel at \(oriel) answered \(status)", warning: false)) }
            if carried != url { deeds += send(url) }
            return deeds
        }
        let delay = backoff.failed(jitter: jitter)
        var deeds: [Deed] = [.counted(answered: false)]
        lastOutcome = failure
        if said.say(failure, about: "hello") != nil {
            deeds.append(.log("\(failure); trying again, backing off from 1 s to 60 s", warning: true))
        }
        retrying = true
        deeds.append(.retry(after: delay))
        return deeds
    }

    private mutating func send(_ url: String) -> [Deed] {
        inFlight = true
        return [.send(url: url)]
    }
}
