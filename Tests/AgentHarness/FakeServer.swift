@testable import BodyAgent
@testable import BodyHTTP
import BodySystem

/// The agent's HTTP server played in the process, as swift-nio's
/// `EmbeddedChannel` plays a channel: a test hands it a request and reads the
/// answer back, with no socket, thread or sleep. It keeps libmicrohttpd's
/// contract with the agent (`HTTPServer`, `ExchangeState`): a request's
/// arrival makes `pollDescriptor` readable and is handled in the next run; a
/// handler that answers is queued in that run, one that does not is
/// suspended until its reply or stream wakes it; a resume is handled at the
/// start of the next run, which a wake inside a run or a turn asks for
/// through `wantsRun` and `timeout() == 0`, and any other through
/// `pollDescriptor`. A client that hangs up is heard on `hangupDescriptor`.
final class FakeServer: AgentServer {
    let wiring: ServerWiring
    /// What the loop watches, readable as MHD's epoll set and the set of hang-ups would be.
    private let ready: EventCounter
    private let hangups: EventCounter
    var willRun: (() -> Bool)?
    var answered: ((Int) -> Void)?
    /// Requests handed in since the last run, and those handled and not finished.
    private var arriving: [FakeExchange] = []
    private var live: [FakeExchange] = []
    private var running = false
    private var runDue = false
    private var stopAfterRun = false
    private(set) var stopped = false
    /// How many times the agent ran it.
    private(set) var runs = 0

    init(_ wiring: ServerWiring) throws(AgentError) {
        self.wiring = wiring
        do {
            ready = try EventCounter()
            hangups = try EventCounter()
        } catch { throw AgentError("fake server: eventfd: \(error)") }
    }

    var pollDescriptor: FileDescriptor? { stopped ? nil : ready.descriptor }
    var hangupDescriptor: FileDescriptor? { stopped ? nil : hangups.descriptor }
    var port: UInt16 { 0 }
    var wantsRun: Bool { !running && runDue }
    func timeout() -> Double? { !stopped && runDue ? 0 : nil }

    /// A request arrives, as its head and body would over a socket;
    /// header names in lower case. The answer is in the exchange once the agent ran the server.
    @discardableResult
    func request(_ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = [],
                 from remote: String = "127.0.0.1") -> FakeExchange {
        let (path, query) = Self.split(target)
        var fields = HTTPFields()
        for (name, value) in headers { fields.add(name, value, .header) }
        var request = HTTPRequest(method: method, path: path, query: query, headers: fields, body: body, remote: remote)
        request.showedToken = wiring.token.allows(request)
        let exchange = FakeExchange(request, server: self)
        arriving.append(exchange)
        try? ready.signal()
        return exchange
    }

    /// The client of `exchange` hangs up.
    func hangUp(_ exchange: FakeExchange) {
        exchange.left = true
        try? hangups.signal()
    }

    func hangUpsReported() -> Bool {
        _ = try? hangups.drain()
        // As libmicrohttpd's: a turn only for one the server does not listen to (suspended).
        guard live.contains(where: { $0.left && $0.isSuspended }) else { return false }
        runDue = true
        return true
    }

    func run() {
        guard !running, !stopped else { return }
        running = true
        runDue = false
        runs += 1
        _ = try? ready.drain()
        // Resumed before this run first, as MHD resumes at a run's start; one
        // woken during this run is left to the next, which `timeout()` asks for.
        for exchange in live where exchange.resumed { exchange.serve() }
        let came = arriving
        arriving = []
        for exchange in came {
            live.append(exchange)
            exchange.dispatch()
        }
        for exchange in live where exchange.left && exchange.isSuspended { exchange.hungUp() }
        live.removeAll { $0.finished }
        running = false
        if stopAfterRun { stop(grace: 0) }
    }

    /// As libmicrohttpd's stop: every request still open is answered 503 and
    /// every stream ended, one run lets them go, then all are closed.
    func stop(grace: Double) {
        guard !stopped else { return }
        guard !running else { stopAfterRun = true; return }
        for exchange in live {
            exchange.reply.send(.error(503, "the body is stopping"))
            exchange.stream?.finish()
        }
        run()
        for exchange in live { exchange.finish() }
        live.removeAll()
        stopped = true
    }

    /// A reply or stream woke its exchange: a run is due. Signalled on the
    /// descriptor only when no run follows anyway (`HTTPServer.runFollows`).
    func runIsDue() {
        guard !runDue else { return }
        runDue = true
        if !running && !(willRun?() ?? false) { try? ready.signal() }
    }

    /// The line each answer gets, as the real server words it (without its repeat filter).
    func said(_ exchange: FakeExchange, _ status: Int) {
        if status >= 400 || wiring.answerLines {
            var line = "http: \(exchange.request.method) \(exchange.request.path) \(status)"
            if let doing = exchange.request.doing { line += " doing \(doing.debugDescription)" }
            wiring.requests(line, status)
        }
        answered?(status)
    }

    private static func split(_ target: String) -> (String, HTTPFields) {
        guard let mark = target.firstIndex(of: "?") else { return (target, HTTPFields()) }
        var query = HTTPFields()
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query.add(String(parts[0]), parts.count > 1 ? String(parts[1]) : "", .query)
        }
        return (String(target[..<mark]), query)
    }
}

/// One request in the fake server, from its arrival to its end: what the
/// agent answered (a whole response, or a stream and the chunks it gave).
final class FakeExchange: Waking {
    enum Phase: Equatable {
        case arrived
        /// The handler left it unanswered: suspended until the reply wakes it.
        case waiting
        /// Woken: its answer is taken at the next run's start.
        case woken
        case streaming(suspended: Bool)
        case finished
    }

    let request: HTTPRequest
    let reply = HTTPReply()
    private weak var server: FakeServer?
    private(set) var phase = Phase.arrived
    /// The whole answer, once queued.
    private(set) var response: HTTPResponse?
    /// The stream's content type once queued, and every chunk it gave, in order.
    private(set) var streamType: String?
    private(set) var chunks: [[UInt8]] = []
    private(set) var stream: HTTPStream?
    /// The client hung up.
    var left = false

    init(_ request: HTTPRequest, server: FakeServer) {
        self.request = request
        self.server = server
    }

    var finished: Bool { phase == .finished }
    var isSuspended: Bool { phase == .waiting || phase == .streaming(suspended: true) }
    var resumed: Bool { phase == .woken || phase == .streaming(suspended: false) }
    /// Its status once answered: a stream's is 200.
    var status: Int? { response?.status ?? (streamType == nil ? nil : 200) }
    /// The whole answer's body, or the stream's chunks so far, as text.
    var text: String { String(decoding: response?.body ?? chunks.flatMap { $0 }, as: UTF8.self) }

    func wake() {
        switch phase {
        case .waiting: phase = .woken
        case .streaming(suspended: true): phase = .streaming(suspended: false)
        default: return
        }
        server?.runIsDue()
    }

    /// The handler runs; what it left in the reply is taken.
    func dispatch() {
        reply.wakes = self
        server?.wiring.handler(request, reply)
        phase = .woken
        serve()
    }

    /// A resumed exchange: the reply's answer taken, or the stream's chunks pulled.
    func serve() {
        if case .streaming = phase { pull(); return }
        switch reply.take() {
        case nil:
            phase = .waiting
        case .whole(let answer)?:
            response = answer
            server?.said(self, answer.status)
            finish()
        case .stream(let type, let given)?:
            stream = given
            streamType = type
            given.wakes = self
            server?.said(self, 200)
            phase = .streaming(suspended: false)
            pull()
        }
    }

    /// Every chunk the stream has now; each read gives one whole chunk (they are far below 1 MiB).
    private func pull() {
        guard let stream else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let read = buffer.withUnsafeMutableBytes { stream.read(into: $0) }
            switch read {
            case .bytes(let n): chunks.append(Array(buffer[..<n]))
            case .later: phase = .streaming(suspended: true); return
            case .end: finish(); return
            }
        }
    }

    /// The client is gone while suspended: its reply closes, and its owner hears it.
    func hungUp() {
        stream?.close()
        reply.close()
        phase = .finished
    }

    /// Done: the reply and stream closed (their owners hear it), as when MHD completes a request.
    func finish() {
        phase = .finished
        stream?.close()
        reply.close()
    }
}
