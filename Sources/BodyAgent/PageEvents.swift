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
    /// The keep-alive came: the next publish sends the facts even if unchanged.
    private var resendDue = false
    /// Events encoded since the start: one per change, not one per client (tests read it).
    private(set) var encoded = 0

    /// Makes the page's document now; set by the agent.
    var document: ((_ now: Moment) -> PageDocument)?

    /// The page's own timers are the agent's turns: what they send goes out
    /// at the turn's last step, at its moment, after its lines and its log.
    private let turn: AgentTurn

    init(loop: EventLoop, turn: @escaping AgentTurn) {
        self.turn = turn
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
        if keepAlive == nil { scheduleKeepAlive(after: now) }
    }

    /// The turn's last step, after every event the agent handled: sends the
    /// facts if they changed (or the keep-alive came). Under a storm of
    /// requests the facts are made at most ten times a second. True when an
    /// event was sent.
    @discardableResult
    func publish(at now: Moment) -> Bool {
        guard !clients.isEmpty, later == nil else { return false }
        // Compared as it is scheduled: `now - madeAt` may round below the
        // spacing at the very moment the timer comes, which would schedule it again.
        guard now.mono >= madeAt + Self.spacing else {
            // Too soon after the last: the newest facts go out at the spacing's end.
            later = loop.schedule(at: madeAt + Self.spacing) { [unowned self] in
                self.later = nil
                self.turn("the page's spacing ended") { _ in }
            }
            return false
        }
        guard let document = document?(now) else { return false }
        madeAt = now.mono
        if !resendDue, let sent, sent.sameFacts(as: document) { return false }
        // The keep-alive's resend is the facts again, whole: a quiet stream stays
        // known to be alive, and a log line from the hello's thread with no
        // event since shows now. (Not a comment: an offer replaces an event not yet begun.)
        resendDue = false
        send(document, at: now)
        return true
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

    private func scheduleKeepAlive(after now: Moment) {
        keepAlive = loop.schedule(at: now.mono + Self.keepAliveEvery) { [unowned self] in
            self.keepAlive = nil
            guard !self.clients.isEmpty else { return }
            self.resendDue = true
            self.turn("the page's keep-alive came") { self.scheduleKeepAlive(after: $0) }
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
            resendDue = false
            sent = nil
        }
    }
}
