import BodyCore
import BodyHTTP

/// `GET /events`: the page's facts to every watching browser. A
/// change is encoded once and the same bytes are offered to each client; a
/// slow client's waiting event is replaced by the newer one (`HTTPStream`),
/// which is whole by itself. At most ten events a second go out, the last
/// change always among them; a quiet stream hears the facts again every 15 s.
/// Each client is one connection of the server's, counted in its limits
/// like any other. Loop thread only.
final class PageEvents {
    /// Fewest seconds between two events.
    static let spacing = 0.1
    static let keepAliveEvery = 15.0
    /// How long a browser waits before it connects again after a drop.
    static let retryMillis = 2000

    private let loop: EventLoop
    private var clients: [ObjectIdentifier: HTTPStream] = [:]
    /// What was last sent, to tell a change.
    private var sent: PageDocument?
    /// When the facts were last made, to compare or to send.
    private var madeAt = -Double.infinity
    private var number: UInt64 = 0
    private var later: EventLoop.TimerID?
    private var keepAlive: EventLoop.TimerID?
    /// Events encoded since the start: one per change, not one per client (tests read it).
    private(set) var encoded = 0

    /// Makes the page's document now; set by the agent.
    var document: ((_ now: Moment) -> PageDocument)?

    /// The agent's clock, for the events the page's own timers send.
    let clock: AgentClock

    init(loop: EventLoop, clock: AgentClock) {
        self.clock = clock
        self.loop = loop
    }

    var watching: Int { clients.count }

    /// A browser begins to watch: it gets the facts at once, then each change.
    func add(_ reply: HTTPReply, at now: Moment) {
        let stream = HTTPStream()
        let id = ObjectIdentifier(stream)
        stream.onClose = { [weak self] in self?.gone(id) }
        reply.stream(contentType: EventStream.contentType, stream)
        guard stream.isOpen else { return }
        // The table changed on a copy taken out and put back: changed in place,
        // each turn's look at it would be a runtime exclusivity check.
        var all = clients
        clients = [:]
        all[id] = stream
        clients = all
        guard let document = document?(now) else { return }
        madeAt = now.mono
        if let sent, sent.sameFacts(as: document) {
            // The others have these facts: only the newcomer needs them.
            number += 1
            stream.offer(event(document, at: now))
        } else {
            send(document, at: now)
        }
        if keepAlive == nil { scheduleKeepAlive() }
    }

    /// After every event the agent handled: sends the facts if they changed.
    /// Under a storm of requests the facts are made at most ten times a second.
    func publish(at now: Moment) {
        guard !clients.isEmpty, later == nil else { return }
        guard now.mono - madeAt >= Self.spacing else {
            // Too soon after the last: the newest facts go out at the spacing's end.
            later = loop.schedule(at: madeAt + Self.spacing) { [unowned self] in
                self.later = nil
                self.publish(at: self.clock.now())
            }
            return
        }
        guard let document = document?(now) else { return }
        madeAt = now.mono
        if let sent, sent.sameFacts(as: document) { return }
        send(document, at: now)
    }

    private func send(_ document: PageDocument, at now: Moment) {
        sent = document
        number += 1
        encoded += 1
        let bytes = event(document, at: now)
        let all = clients
        for stream in all.values { stream.offer(bytes) }
    }

    /// Each event says the reconnection delay too: an event waiting behind
    /// another may be replaced, so none can be the only one to say it.
    private func event(_ document: PageDocument, at now: Moment) -> [UInt8] {
        EventStream.opening(retryMillis: Self.retryMillis)
            + EventStream.event("page", id: number, data: document.json(at: now.mono))
    }

    private func scheduleKeepAlive() {
        keepAlive = loop.schedule(at: clock.now().mono + Self.keepAliveEvery) { [unowned self] in
            self.keepAlive = nil
            guard !self.clients.isEmpty else { return }
            // The facts again, whole: a quiet stream stays known to be alive, and
            // a log line from the hello's thread with no event since shows now.
            // (Not a comment: an offer replaces an event not yet begun.)
            let now = self.clock.now()
            if self.later == nil, let document = self.document?(now) {
                self.madeAt = now.mono
                self.send(document, at: now)
            }
            self.scheduleKeepAlive()
        }
    }

    private func gone(_ id: ObjectIdentifier) {
        var all = clients
        clients = [:]
        all.removeValue(forKey: id)
        clients = all
        if clients.isEmpty {
            loop.cancel(keepAlive)
            keepAlive = nil
            sent = nil
        }
    }
}
