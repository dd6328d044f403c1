import BodyCore
import BodySystem

/// The body's HTTP server: libmicrohttpd with no thread of its own, driven by
/// the caller's event loop. The handler runs on that loop's thread.
///
///     try loop.watch(fd: server.pollDescriptor) { turn() }
///     try loop.watch(fd: server.hangupDescriptor) { server.hangUpsReported(); turn() }
///     func turn() {                       // after every run(), re-arm from timeout()
///         server.run()
///         loop.cancel(timer)
///         timer = server.timeout().map { t in loop.schedule(at: EventLoop.monotonic() + t) { turn() } }
///     }
///
/// Re-arming after each `run()` is enough: between runs only a resume (a
/// `send` or `offer` from elsewhere on the loop) changes what MHD wants, and
/// that makes `pollDescriptor` readable by itself.
///
/// This file is the daemon's lifetime: start, run, timeout. The pieces:
/// every libmicrohttpd call (`MHDCalls`, the seam) and the daemon's start
/// options (`DaemonOptions`, DaemonStart); each request's life (`Exchange`,
/// `ExchangeState`) and the one function that carries out its actions
/// (Perform); what MHD's callbacks mean (ServerEvents); reading a request
/// (RequestReading); the server's own epoll sets (`ServerPoll`); the
/// kernel's word on hang-ups (`HangupWatch`); the head and body deadlines
/// (`Deadlines`) and the flood's end (`FloodEnd`), applied after each run
/// (Upkeep); and the stop (Stop).
public final class HTTPServer {
    let maxBody: Int
    let log: (String) -> Void
    /// Each answered request's line and status (`http: GET /status 200 doing "…"`);
    /// nil sends the line to `log`. The body logs only failures unless asked for more.
    let requests: ((String, Int) -> Void)?
    /// Whether an answer below 400 gets its line at all: the body writes those
    /// only as debug lines, so without debug none is built.
    let answerLines: Bool
    let handler: (HTTPRequest, HTTPReply) -> Void
    /// libmicrohttpd, or a test's stand-in for some of its calls.
    let calls: MHDCalls
    var daemon: MHDCalls.Daemon?
    /// MHD's messages while it starts, said once in its error if it fails.
    var startMessages: [String]? = []
    /// Every request between its head and its completion, in no order; each
    /// knows its place (`Exchange.liveAt`): an array, not a dictionary, spares
    /// two hashes a request.
    var live: [Exchange] = []
    /// The last exchange completed well, for the next head (`reuse`).
    var spareExchange: Exchange?
    /// The header and query strings of the last completed request, for the next (RequestReading).
    var spareFields = (headers: HTTPFields(), query: HTTPFields())
    /// The body array of the last completed request, emptied, for the next
    /// (so a push's body costs no allocation a request). Kept only up to
    /// `spareBodyLimit` bytes of room, so a big upload's memory goes with it.
    var spareBody: [UInt8] = []
    static let spareBodyLimit = 16 * 1024
    var stopping = false
    /// The next "internal error" MHD reports is the refusal of a client that hung up.
    var quietRefusal = false

    public private(set) var port: UInt16 = 0
    /// The server's own epoll set and wake-up counter, and the set of hang-ups.
    var poll: ServerPoll?
    /// What the owner's loop watches; nil once stopped. When it is readable, `run()`.
    public var pollDescriptor: FileDescriptor? { poll?.descriptor }
    /// What the owner's loop watches beside it: clients that hung up while MHD
    /// does not listen. When it is readable, `hangUpsReported()`, and `run()`
    /// if it says so.
    public var hangupDescriptor: FileDescriptor? { poll?.hangups.descriptor }

    /// `hangupDescriptor` is readable: the hang-ups are taken. True when a run
    /// is due for them (a connection that waits for a head or an answer hung
    /// up; `wantsRun` says so too). A suspended one is handed back after that
    /// run; one waiting for a head is shut down after the run after it, once
    /// MHD has read what came before the FIN. A connection MHD handles needs no
    /// run: it is decided on when it next waits.
    @discardableResult
    public func hangUpsReported() -> Bool {
        guard hangups?.collect() == true else { return false }
        poll?.runAgain()
        return true
    }

    /// Asked at a resume outside a run: true when the owner is certain to call
    /// `run()` before its loop waits again (it asks `wantsRun` then), so the
    /// resume need not make `pollDescriptor` readable (an eventfd
    /// write and read in the same turn). Nil: never certain.
    public var willRun: (() -> Bool)?

    /// Whether a run comes before the owner's loop waits: within a run the
    /// owner re-arms from `timeout()`, which says 0 once a run is due.
    var runFollows: Bool {
        guard case .idle = turn else { return true }
        return willRun?() ?? false
    }
    /// Every open connection, watched for a client that hung up while MHD does
    /// not listen (waiting for a head, or suspended).
    var hangups: HangupWatch?

    let limits: HTTPLimits
    let deadlines: Deadlines
    /// After a flood, the freed buffers go back to the kernel.
    var flood: FloodEnd
    /// HTTPS with this key and certificate; nil serves plain HTTP.
    let tls: HTTPTLS?
    /// Whether a request is trusted: its connection is then kept alive
    /// without the head deadline (`HTTPLimits.headDeadline`). A request that
    /// shows `token` is trusted without asking.
    let trusts: (HTTPRequest) -> Bool
    /// The token, checked once at each head; the answer goes with the request (`HTTPRequest.showedToken`).
    let token: BearerAuth?
    /// MHD's messages, each said once and then counted.
    var repeats = RepeatFilter(window: 60)
    /// Told the status of every answer queued (whole or streamed), on the
    /// loop thread: the owner counts them (`/metrics`).
    public var answered: ((Int) -> Void)?

    /// A request that shows `token`, or that `trusts` trusts, is trusted;
    /// without either no connection is, and every head has `limits.headDeadline`.
    public convenience init(listen host: String, port: UInt16, maxBody: Int = 65536, limits: HTTPLimits = HTTPLimits(),
                            tls: HTTPTLS? = nil, token: BearerAuth? = nil,
                            trusts: @escaping (HTTPRequest) -> Bool = { _ in false },
                            log: @escaping (String) -> Void,
                            requests: ((String, Int) -> Void)? = nil, answerLines: Bool = true,
                            handler: @escaping (HTTPRequest, HTTPReply) -> Void) throws(HTTPServerError) {
        try self.init(listen: host, port: port, maxBody: maxBody, limits: limits, tls: tls, token: token, trusts: trusts, log: log,
                      requests: requests, answerLines: answerLines, calls: .live, handler: handler)
    }

    /// The same, with `calls` standing in for libmicrohttpd (a test's seam).
    init(listen host: String, port: UInt16, maxBody: Int = 65536, limits: HTTPLimits = HTTPLimits(),
         tls: HTTPTLS? = nil, token: BearerAuth? = nil,
         trusts: @escaping (HTTPRequest) -> Bool = { _ in false },
         log: @escaping (String) -> Void,
         requests: ((String, Int) -> Void)? = nil, answerLines: Bool = true,
         calls: MHDCalls,
         handler: @escaping (HTTPRequest, HTTPReply) -> Void) throws(HTTPServerError) {
        self.maxBody = maxBody
        self.limits = limits
        self.tls = tls
        deadlines = Deadlines(limits)
        flood = FloodEnd(limit: limits.connections)
        self.trusts = trusts
        self.token = token
        self.log = log
        self.requests = requests
        self.answerLines = answerLines
        self.calls = calls
        self.handler = handler
        // On a throw from here on, deinit runs and stops what was started.
        let address = try SocketAddress(host: host, port: port)
        let daemon = try startDaemon(DaemonOptions(address: address, port: port, limits: limits, tls: tls))
        self.daemon = daemon
        self.port = calls.boundPort(daemon)
        let mhd = calls.epollDescriptor(daemon)
        guard mhd >= 0 else { throw HTTPServerError("http: libmicrohttpd started on \(address) without an epoll descriptor") }
        let poll = try ServerPoll(around: mhd, connections: limits.connections)
        self.poll = poll
        hangups = HangupWatch(epoll: poll.hangups, clock: SystemClock.monotonic)
    }

    /// True when something outside a run (an answer, a resumed connection)
    /// has asked for one: calling `run()` now saves the loop a turn.
    public var wantsRun: Bool {
        guard case .idle = turn else { return false }
        return poll?.runDue == true || hangups?.wantsRun == true
    }

    deinit { stop() }

    /// Does whatever MHD has pending (accepts, reads, handler calls, writes); never blocks.
    public func run() {
        guard let daemon, case .idle = turn else { return }
        poll?.runStarts()
        turn = .running
        runClock = nil
        let ran = calls.run(daemon)
        runClock = nil
        quietRefusal = false
        if !ran, let line = repeats.say("http: libmicrohttpd could not run (it says why above, if it did)",
                                        at: Self.monotonic()) { log(line) }
        upkeep(daemon)
        let was = turn
        turn = .idle
        if case .runningThenStop(let grace) = was { stop(grace: grace) }
    }

    /// MHD cannot be re-entered: a stop asked for during a run waits for its end.
    enum Turn { case idle, running, runningThenStop(grace: Double) }
    var turn = Turn.idle

    /// The monotonic clock, read once a run for every head that arrives in it:
    /// in the VM a clock read is a system call and an HPET read,
    /// and a head stamped at its run's first read has its body deadline early by
    /// at most that run's length (not measured) against 5 s.
    func headClock() -> Double {
        if let t = runClock { return t }
        let t = Self.monotonic()
        if case .idle = turn { return t }
        runClock = t
        return t
    }
    private var runClock: Double?

    /// Seconds until `run()` is due even without readability; nil when only
    /// readability matters: MHD's own timeout, or the next head or body deadline.
    public func timeout() -> Double? {
        guard let daemon else { return nil }
        if poll?.runDue == true || hangups?.wantsRun == true { return 0 }
        let mhd = calls.timeout(daemon).map { Double($0) / 1000 }
        // The earliest of each, kept as it goes: no lists after every run.
        var firstBody: Double?
        for exchange in live where exchange.state.isReadingBody && !exchange.cutOff {
            if exchange.headAt < firstBody ?? .infinity { firstBody = exchange.headAt }
        }
        // The clock is read only when a deadline waits (a system call in the VM).
        guard let deadline = deadlines.timeout(firstHead: hangups?.firstHeadWaiting, firstBody: firstBody,
                                               at: Self.monotonic()) else { return mhd }
        return min(mhd ?? deadline, deadline)
    }

    /// Connections open now, less those shut down to make room.
    public var openConnections: Int { hangups?.open ?? 0 }

    static func monotonic() -> Double { SystemClock.monotonic() }
}
