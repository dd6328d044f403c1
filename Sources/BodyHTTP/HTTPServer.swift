import BodySystem
internal import CMicroHTTPD

/// The body's HTTP server: libmicrohttpd with no thread of its own, driven by
/// the caller's event loop. The handler runs on that loop's thread.
///
///     try loop.watch(fd: server.pollDescriptor) { turn() }
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
/// The pieces: the daemon and its callbacks (MHDDaemon.swift), each request's
/// life (`Exchange`, `ExchangeState`), what MHD's events do (ServerEvents),
/// reading a request (RequestReading), queueing answers (Answers), the last
/// drain on stop (StopLoop) and the kernel's word on hang-ups (`HangupWatch`).
public final class HTTPServer {
    let maxBody: Int
    let log: (String) -> Void
    /// Each answered request's line and status (`http: GET /status 200 doing "…"`);
    /// nil sends the line to `log`. The body logs only failures unless asked for more.
    let requests: ((String, Int) -> Void)?
    let handler: (HTTPRequest, HTTPReply) -> Void
    var daemon: OpaquePointer? = nil
    let logSink: UnsafeMutablePointer<body_mhd_log>
    var startMessages: [String]? = []
    /// Every request between its head and its completion.
    var live: [ObjectIdentifier: Exchange] = [:]
    var stopping = false
    /// The next "internal error" MHD reports is the refusal of a client that hung up.
    var quietRefusal = false

    public private(set) var port: UInt16 = 0
    /// An epoll set holding MHD's own and the wake-up counter, and the
    /// connections `hangups` watches.
    private var epoll: Epoll?
    public var pollDescriptor: Int32 { epoll?.descriptor?.rawValue ?? -1 }
    /// In external polling MHD strips its own wake-up channel, so
    /// MHD_resume_connection alone wakes nobody; a resume counts here instead.
    private var wakeCounter: EventCounter?
    /// A run is due at once: a resume signalled `wakeCounter`, or a connection
    /// closed during a run. MHD takes its listening socket out of its epoll set
    /// at the connection limit and puts it back only at the start of a later
    /// `MHD_run`; with no connection left, nothing would ever call that run
    /// (0.9.75 says "no timeout"), and the body would never accept again.
    var runDue = false
    /// Every open connection, watched for a client that hung up while MHD does
    /// not listen (waiting for a head, or suspended).
    var hangups: HangupWatch?

    let limits: HTTPLimits
    /// HTTPS with this key and certificate; nil serves plain HTTP.
    let tls: HTTPTLS?
    /// The PEM as MHD reads it (NUL-terminated), alive as long as the daemon.
    let tlsPEM: (key: [CChar], certificate: [CChar])
    /// Whether a request showed the token: its connection is then kept alive
    /// without the head deadline (`HTTPLimits.headDeadline`).
    let trusts: (HTTPRequest) -> Bool
    /// MHD's messages, each said once and then counted.
    var repeats = RepeatFilter(window: 60)
    /// Told the status of every answer queued (whole or streamed), on the
    /// loop thread: the owner counts them (`/metrics`).
    public var answered: ((Int) -> Void)?

    /// `trusts` tells a request that showed the token; without it no
    /// connection is trusted, and every head has `limits.headDeadline`.
    public init(listen host: String, port: UInt16, maxBody: Int = 65536, limits: HTTPLimits = HTTPLimits(),
                tls: HTTPTLS? = nil,
                trusts: @escaping (HTTPRequest) -> Bool = { _ in false },
                log: @escaping (String) -> Void,
                requests: ((String, Int) -> Void)? = nil,
                handler: @escaping (HTTPRequest, HTTPReply) -> Void) throws(HTTPServerError) {
        self.maxBody = maxBody
        self.limits = limits
        self.tls = tls
        tlsPEM = (Self.cString(tls?.key ?? []), Self.cString(tls?.certificate ?? []))
        self.trusts = trusts
        self.log = log
        self.requests = requests
        self.handler = handler
        logSink = .allocate(capacity: 1)
        logSink.initialize(to: body_mhd_log(fn: nil, context: nil))
        // On a throw from here on, deinit runs and releases what was made.
        let address = try SocketAddress(host: host, port: port)
        let daemon = try startDaemon(address, port: port)
        self.daemon = daemon
        self.port = body_mhd_bound_port(daemon)
        do { try makeDescriptors(around: body_mhd_epoll_fd(daemon)) } catch {
            MHD_stop_daemon(daemon)
            self.daemon = nil
            closeDescriptors()
            throw error
        }
    }

    private func makeDescriptors(around mhd: Int32) throws(HTTPServerError) {
        do throws(Errno) {
            wakeCounter = try EventCounter()
        } catch { throw HTTPServerError("http: cannot make the wake-up eventfd", error) }
        do throws(Errno) {
            epoll = try Epoll()
        } catch { throw HTTPServerError("http: cannot make the epoll descriptor", error) }
        guard let epoll, let wake = wakeCounter?.descriptor else { return }
        hangups = HangupWatch(epoll: epoll, clock: SystemClock.monotonic)
        for (fd, tag) in [(FileDescriptor(rawValue: mhd), HangupWatch.mhdTag), (wake, HangupWatch.wakeTag)] {
            do throws(Errno) {
                try epoll.add(fd, .readable, registration: tag)
            } catch { throw HTTPServerError("http: cannot watch descriptor \(fd.rawValue)", error) }
        }
    }

    func closeDescriptors() {
        epoll?.close()
        wakeCounter?.close()
        epoll = nil
        wakeCounter = nil
        hangups = nil
    }

    /// True when something outside a run (an answer, a resumed connection)
    /// has asked for one: calling `run()` now saves the loop a turn.
    public var wantsRun: Bool {
        guard case .idle = turn else { return false }
        return runDue || hangups?.wantsRun == true
    }

    /// Makes `pollDescriptor` readable so the loop calls `run()` again.
    func wakeUp() {
        guard let wakeCounter, !runDue else { return }
        runDue = true
        try? wakeCounter.signal()
    }

    deinit {
        stop()
        logSink.deallocate()
    }

    /// Does whatever MHD has pending (accepts, reads, handler calls, writes); never blocks.
    /// The C function is `MHD_run`.
    public func run() {
        guard let daemon, case .idle = turn else { return }
        if runDue {
            _ = try? wakeCounter?.drain()
            runDue = false
        }
        turn = .running
        runClock = nil
        _ = MHD_run(daemon)
        runClock = nil
        quietRefusal = false
        let left = hangups?.shutDownHungUp(mhdDrained: body_mhd_timeout_ms(daemon) != 0) ?? []
        for connection in left { clientLeft(connection) }
        // A head still coming after its deadline, from a connection that never
        // showed the token: shut down, and MHD, woken by the hang-up, closes it.
        for fd in hangups?.overdue(limit: limits.headDeadline) ?? [] { try? fd.shutDown() }
        cutOffSlowBodies()
        if flood.ended(open: hangups?.open ?? 0) { Heap.giveBackFree() }
        let was = turn
        turn = .idle
        if case .runningThenStop(let grace) = was { stop(grace: grace) }
    }

    /// MHD cannot be re-entered: a stop asked for during a run waits for its end.
    private enum Turn { case idle, running, runningThenStop(grace: Double) }
    private var turn = Turn.idle

    /// The monotonic clock, read once a run for every head that arrives in it:
    /// in the VM a clock read is a system call and an HPET read (issue 13),
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
    /// After a flood, the freed buffers go back to the kernel (FloodEnd).
    private lazy var flood = FloodEnd(limit: limits.connections)

    /// Seconds until `run()` is due even without readability; nil when only
    /// readability matters. The C function is `MHD_get_timeout`.
    public func timeout() -> Double? {
        guard let daemon else { return nil }
        if runDue || hangups?.wantsRun == true { return 0 }
        let ms = body_mhd_timeout_ms(daemon)
        let mhd: Double? = ms < 0 ? nil : Double(ms) / 1000
        let dues = [hangups?.nextDeadline(limit: limits.headDeadline), nextBodyDeadline()].compactMap { $0 }
        guard let due = dues.min() else { return mhd }
        let head = max(0, due - SystemClock.monotonic())
        return min(mhd ?? head, head)
    }

    /// A body still coming in `limits.bodyDeadline` after its head (a byte a
    /// second, say): its socket is shut down, and MHD, woken by the hang-up,
    /// closes the connection and completes the request as failed.
    private func cutOffSlowBodies() {
        var now: Double?  // read only if a body is coming
        for exchange in live.values where exchange.state.isReadingBody {
            let t = now ?? SystemClock.monotonic()
            now = t
            guard t - exchange.headAt >= limits.bodyDeadline else { continue }
            guard let connection = exchange.connection, let fd = hangups?.socket(of: connection) else { continue }
            if !exchange.cutOff {
                exchange.cutOff = true
                log("http: \(exchange.request.method) \(exchange.request.path) from \(exchange.request.remote): "
                    + "the body was not whole \(limits.bodyDeadline) s after the head; the connection is closed")
            }
            try? fd.shutDown()
        }
    }

    /// When the first body still coming in is due; nil when none is.
    private func nextBodyDeadline() -> Double? {
        live.values.filter { $0.state.isReadingBody && !$0.cutOff }.map(\.headAt).min().map { $0 + limits.bodyDeadline }
    }

    /// Stops accepting, answers every request still waiting (503 "the body is
    /// stopping"; finish the long polls first for a kinder answer), ends every
    /// stream, lets those answers go out for up to `grace` seconds, then closes
    /// everything. Safe to call twice. Called from a handler, it happens as
    /// soon as the current `run()` returns (MHD cannot be re-entered).
    public func stop(grace: Double = 1.0) {
        guard let daemon else { return }
        guard case .idle = turn else {
            turn = .runningThenStop(grace: grace)
            return
        }
        stopping = true
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { try? FileDescriptor(rawValue: listener).close() }
        for exchange in live.values where exchange.state.state != .reading {
            exchange.reply.send(.error(503, "the body is stopping"))
            exchange.stream?.finish()
        }
        drain(for: grace)
        for exchange in live.values where exchange.state.stopping() == .resume { exchange.resume() }
        MHD_stop_daemon(daemon)
        self.daemon = nil
        closeDescriptors()
        for exchange in live.values { exchange.finish() }
        live.removeAll()
    }

    /// Connections open now, less those shut down to make room.
    public var openConnections: Int { hangups?.open ?? 0 }

    static func monotonic() -> Double { SystemClock.monotonic() }
}
