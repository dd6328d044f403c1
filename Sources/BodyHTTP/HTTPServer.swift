import Glibc
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
/// This is the one file that talks to libmicrohttpd.
public final class HTTPServer {
    private let maxBody: Int
    private let log: (String) -> Void
    private let handler: (HTTPRequest, HTTPReply) -> Void
    private var daemon: OpaquePointer? = nil
    private let logSink: UnsafeMutablePointer<body_mhd_log>
    private var startMessages: [String]? = []
    /// Every request between its first handler call and its completion.
    private var live: [ObjectIdentifier: Exchange] = [:]
    private var stopping = false

    public private(set) var port: UInt16 = 0
    /// An epoll descriptor holding MHD's own and `wakeDescriptor`.
    public private(set) var pollDescriptor: Int32 = -1
    /// In external polling MHD strips its own wake-up channel, so
    /// MHD_resume_connection alone wakes nobody; a resume writes here instead.
    private var wakeDescriptor: Int32 = -1
    /// Connections waiting for a head, also watched for a client that hung up.
    private var hangups: HangupWatch?

    /// A body this much past the limit closes the connection instead of being drained.
    private static let drainLimit = 1 << 20
    private static let streamBlock = 32 * 1024

    public init(listen host: String, port: UInt16, maxBody: Int = 65536,
                log: @escaping (String) -> Void,
                handler: @escaping (HTTPRequest, HTTPReply) -> Void) throws(HTTPServerError) {
        self.maxBody = maxBody
        self.log = log
        self.handler = handler
        logSink = .allocate(capacity: 1)
        logSink.initialize(to: body_mhd_log(fn: nil, context: nil))
        let address: SocketAddress
        // On a throw from here on, deinit runs and releases what was made.
        address = try SocketAddress(host: host, port: port)
        logSink.pointee.fn = { context, message in
            guard let context, let message else { return }
            Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().mhdSaid(String(cString: message))
        }
        logSink.pointee.context = Unmanaged.passUnretained(self).toOpaque()

        var flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if address.isIPv6 { flags |= address.isAny ? MHD_USE_DUAL_STACK.rawValue : MHD_USE_IPv6.rawValue }
        let me = Unmanaged.passUnretained(self).toOpaque()
        daemon = address.withSockaddr { sa in
            body_mhd_start(flags, port, sa, accessHandler, me, completedHandler, me,
                           connectionHandler, me, logSink, 90, 128)
        }
        let said = startMessages ?? []
        startMessages = nil
        guard let daemon else {
            let cause = said.last ?? "libmicrohttpd refused to start"
            throw HTTPServerError("http: cannot listen on \(address): \(cause)")
        }
        // libmicrohttpd 0.9.75 says this even when the logger is the first option
        // (it counts an option of its own first); the logger is in place, so drop it.
        for message in said where !message.hasPrefix("MHD_OPTION_EXTERNAL_LOGGER is not the first option") {
            log("http: libmicrohttpd: \(message)")
        }
        self.port = body_mhd_bound_port(daemon)
        do { try makeDescriptors(around: body_mhd_epoll_fd(daemon)) } catch {
            MHD_stop_daemon(daemon)
            self.daemon = nil
            closeDescriptors()
            throw error
        }
    }

    private func makeDescriptors(around mhd: Int32) throws(HTTPServerError) {
        wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        if wakeDescriptor < 0 { throw HTTPServerError("http: cannot make the wake-up eventfd", errno) }
        pollDescriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        if pollDescriptor < 0 { throw HTTPServerError("http: cannot make the epoll descriptor", errno) }
        hangups = HangupWatch(epoll: pollDescriptor)
        for (fd, tag) in [(mhd, HangupWatch.mhdTag), (wakeDescriptor, HangupWatch.wakeTag)] {
            var ev = epoll_event()
            ev.events = EPOLLIN.rawValue
            ev.data.u64 = tag
            if epoll_ctl(pollDescriptor, EPOLL_CTL_ADD, fd, &ev) < 0 {
                throw HTTPServerError("http: cannot watch descriptor \(fd)", errno)
            }
        }
    }

    private func closeDescriptors() {
        if pollDescriptor >= 0 { close(pollDescriptor) }
        if wakeDescriptor >= 0 { close(wakeDescriptor) }
        pollDescriptor = -1
        wakeDescriptor = -1
    }

    /// Makes `pollDescriptor` readable so the loop calls `run()` again.
    fileprivate func wakeUp() {
        guard wakeDescriptor >= 0, !wakePending else { return }
        wakePending = true
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }
    private var wakePending = false

    deinit {
        stop()
        logSink.deallocate()
    }

    /// Does whatever MHD has pending (accepts, reads, handler calls, writes); never blocks.
    /// The C function is `MHD_run`.
    public func run() {
        guard let daemon, !running else { return }
        if wakePending {
            var count: UInt64 = 0
            _ = read(wakeDescriptor, &count, 8)
            wakePending = false
        }
        closedDuringRun = false
        running = true
        _ = MHD_run(daemon)
        hangups?.shutDownHungUp(mhdDrained: body_mhd_timeout_ms(daemon) != 0)
        running = false
        if let grace = stopAfterRun {
            stopAfterRun = nil
            stop(grace: grace)
        }
    }
    private var running = false
    private var stopAfterRun: Double? = nil
    /// MHD takes its listening socket out of its epoll set at the connection
    /// limit and puts it back only at the start of a later `MHD_run`; with no
    /// connection left, nothing would ever call that run (0.9.75 says "no
    /// timeout"), and the body would never accept again. So a run in which a
    /// connection closed asks for another one at once.
    private var closedDuringRun = false

    /// Seconds until `run()` is due even without readability; nil when only
    /// readability matters. The C function is `MHD_get_timeout`.
    public func timeout() -> Double? {
        guard let daemon else { return nil }
        if wakePending || closedDuringRun || hangups?.wantsRun == true { return 0 }
        let ms = body_mhd_timeout_ms(daemon)
        return ms < 0 ? nil : Double(ms) / 1000
    }

    /// Stops accepting, answers every request still waiting (503 "the body is
    /// stopping"; finish the long polls first for a kinder answer), ends every
    /// stream, lets those answers go out for up to `grace` seconds, then closes
    /// everything. Safe to call twice. Called from a handler, it happens as
    /// soon as the current `run()` returns (MHD cannot be re-entered).
    public func stop(grace: Double = 1.0) {
        guard let daemon else { return }
        if running {
            stopAfterRun = grace
            return
        }
        stopping = true
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { close(listener) }
        for exchange in live.values where exchange.dispatched {
            exchange.reply.send(.error(503, "the body is stopping"))
            exchange.streamSource?.finish()
        }
        let deadline = HTTPServer.monotonic() + grace
        while !live.isEmpty {
            let left = deadline - HTTPServer.monotonic()
            if left <= 0 { break }
            let wait = min(left, timeout() ?? left)
            var pfd = pollfd(fd: pollDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32((wait * 1000).rounded(.up)))
            run()
        }
        // MHD must not be stopped with a suspended connection.
        for exchange in live.values { exchange.resume() }
        MHD_stop_daemon(daemon)
        self.daemon = nil
        closeDescriptors()
        for exchange in live.values { exchange.finish() }
        live.removeAll()
    }

    // MARK: - From libmicrohttpd

    private func mhdSaid(_ message: String) {
        var text = message
        while text.last == "\n" { text.removeLast() }
        // While starting, messages wait: a failure says them once, in its error.
        if startMessages != nil { startMessages?.append(text) } else { log("http: libmicrohttpd: \(text)") }
    }

    fileprivate func access(_ connection: OpaquePointer, _ url: String, _ method: String,
                            _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
                            _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = context.pointee else {
            hangups?.headArrived(connection)
            // First call: headers only. Answering here would close a keep-alive
            // connection, so only a body that is already too big is answered now:
            // MHD then never reads it.
            let exchange = Exchange(server: self, connection: connection, request: HTTPRequest(
                method: method, path: url,
                query: values(connection, .GET_ARGUMENT_KIND, lowercased: false),
                headers: values(connection, .HEADER_KIND, lowercased: true),
                remote: clientAddress(connection)))
            context.pointee = Unmanaged.passRetained(exchange).toOpaque()
            live[ObjectIdentifier(exchange)] = exchange
            if let length = exchange.request.headers["content-length"].flatMap({ Int($0) }), length > maxBody {
                return queue(exchange, tooLarge(length))
            }
            exchange.request.body.reserveCapacity(min(maxBody, exchange.request.headers["content-length"].flatMap { Int($0) } ?? 0))
            return .YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let n = uploadSize.pointee
            uploadSize.pointee = 0
            if exchange.overflow > 0 || exchange.request.body.count + n > maxBody {
                // Chunked upload past the limit: drop it, answer 413 at the end.
                exchange.overflow += exchange.overflow == 0 ? exchange.request.body.count + n : n
                exchange.request.body = []
                return exchange.overflow > HTTPServer.drainLimit ? .NO : .YES
            }
            if let uploadData {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: n) {
                    exchange.request.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n))
                }
            }
            return .YES
        }
        if exchange.queued { return .YES }
        if exchange.overflow > 0 {
            return queue(exchange, tooLarge(exchange.overflow))
        }
        if stopping, !exchange.dispatched {
            return queue(exchange, .error(503, "the body is stopping"))
        }
        if !exchange.dispatched {
            exchange.dispatched = true
            exchange.reply.wake = { [unowned exchange] in exchange.resume() }
            handler(exchange.request, exchange.reply)
        }
        switch exchange.reply.state {
        case .waiting:
            exchange.suspend()
            return .YES
        case .ready(let response):
            return queue(exchange, response)
        case .streaming(let contentType, let stream):
            return queueStream(exchange, contentType, stream)
        case .queued:
            return .YES
        }
    }

    fileprivate func completed(_ connection: OpaquePointer?, _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                               _ code: MHD_RequestTerminationCode) {
        // Kept alive: the next head is awaited like the first (a close follows otherwise).
        if let connection, code == .REQUEST_TERMINATED_COMPLETED_OK { hangups?.awaitHead(connection) }
        guard let context, let raw = context.pointee else { return }
        context.pointee = nil
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeRetainedValue()
        live.removeValue(forKey: ObjectIdentifier(exchange))
        if code != .REQUEST_TERMINATED_COMPLETED_OK, exchange.queued, !exchange.streams {
            let why = code == .REQUEST_TERMINATED_DAEMON_SHUTDOWN ? "the server stopped" : "the client went away"
            log("http: \(exchange.request.method) \(exchange.request.path): \(why) before the answer was sent")
        }
        exchange.finish()
    }

    fileprivate func connection(_ connection: OpaquePointer, _ code: MHD_ConnectionNotificationCode) {
        if code == .CONNECTION_NOTIFY_STARTED {
            hangups?.opened(connection, fd: body_mhd_connection_fd(connection))
        } else {
            hangups?.closed(connection)
            closedDuringRun = true
        }
    }

    // MARK: - Answers

    private func tooLarge(_ length: Int) -> HTTPResponse {
        .error(413, "the request body is \(length) bytes; the limit is \(maxBody)")
    }

    private func queue(_ exchange: Exchange, _ answer: HTTPResponse) -> MHD_Result {
        let response = answer.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let response else {
            log("http: cannot build the answer to \(exchange.request.method) \(exchange.request.path)")
            return .NO
        }
        defer { MHD_destroy_response(response) }
        addHeaders(response, answer.contentType, answer.headers)
        return finishQueue(exchange, response, answer.status)
    }

    private func queueStream(_ exchange: Exchange, _ contentType: String, _ stream: HTTPStream) -> MHD_Result {
        let cursor = Unmanaged.passRetained(exchange).toOpaque()
        let response = MHD_create_response_from_callback(UInt64.max /* MHD_SIZE_UNKNOWN */, HTTPServer.streamBlock, { cls, _, buffer, max in
            guard let cls, let buffer else { return -2 /* MHD_CONTENT_READER_END_WITH_ERROR */ }
            let exchange = Unmanaged<Exchange>.fromOpaque(cls).takeUnretainedValue()
            return exchange.readStream(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
        }, cursor, { cls in
            guard let cls else { return }
            Unmanaged<Exchange>.fromOpaque(cls).release()
        })
        guard let response else {
            Unmanaged<Exchange>.fromOpaque(cursor).release()
            log("http: cannot build the stream for \(exchange.request.method) \(exchange.request.path)")
            return .NO
        }
        defer { MHD_destroy_response(response) }
        addHeaders(response, contentType, [("Cache-Control", "no-store")])
        exchange.streams = true
        exchange.streamSource = stream
        stream.wake = { [unowned exchange] in exchange.resume() }
        return finishQueue(exchange, response, 200)
    }

    private func addHeaders(_ response: OpaquePointer, _ contentType: String, _ headers: [(String, String)]) {
        _ = MHD_add_response_header(response, "Content-Type", contentType)
        for (name, value) in headers { _ = MHD_add_response_header(response, name, value) }
        if stopping { _ = MHD_add_response_header(response, "Connection", "close") }
    }

    private func finishQueue(_ exchange: Exchange, _ response: OpaquePointer, _ status: Int) -> MHD_Result {
        exchange.queued = true
        exchange.reply.state = .queued
        let request = exchange.request
        var line = "http: \(request.method) \(request.path) \(status)"
        if let doing = request.doing { line += " doing \(doing.debugDescription)" }
        log(line)
        guard MHD_queue_response(exchange.connection, UInt32(clamping: status), response) == .YES else {
            log("http: cannot queue the answer to \(request.method) \(request.path)")
            return .NO
        }
        return .YES
    }

    // MARK: - Reading the request

    /// Headers: names lower-cased, repeats joined. Query: the first of a repeated name wins.
    private final class Pairs { var values: [String: String] = [:]; var lower = false }

    private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
        let pairs = Pairs()
        pairs.lower = lowercased
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let pairs = Unmanaged<Pairs>.fromOpaque(cls).takeUnretainedValue()
            var name = String(cString: key)
            if pairs.lower { name = name.lowercased() }
            let text = value.map { String(cString: $0) } ?? ""
            if let old = pairs.values[name] {
                if pairs.lower { pairs.values[name] = old + ", " + text }
            } else {
                pairs.values[name] = text
            }
            return .YES
        }, Unmanaged.passUnretained(pairs).toOpaque())
        return pairs.values
    }

    private func clientAddress(_ connection: OpaquePointer) -> String {
        var text = [CChar](repeating: 0, count: 64)
        body_mhd_client_address(connection, &text, text.count)
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The C entry points; each finds the server through its context pointer.
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, data, size, context in
    guard let cls, let connection, let size, let context else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.access(connection, url.map { String(cString: $0) } ?? "/",
                         method.map { String(cString: $0) } ?? "GET", data, size, context)
}

private let completedHandler: MHD_RequestCompletedCallback = { cls, connection, context, code in
    guard let cls else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().completed(connection, context, code)
}

private let connectionHandler: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().connection(connection, code)
}

/// One request from its first handler call to its completion.
private final class Exchange {
    var connection: OpaquePointer?
    var request: HTTPRequest
    let reply = HTTPReply()
    var dispatched = false
    var queued = false
    var streams = false
    var suspended = false
    /// The body's length so far once it passed the limit; > 0 means the answer is 413.
    var overflow = 0

    weak var server: HTTPServer?

    init(server: HTTPServer, connection: OpaquePointer, request: HTTPRequest) {
        self.server = server
        self.connection = connection
        self.request = request
    }

    func suspend() {
        guard let connection, !suspended else { return }
        suspended = true
        MHD_suspend_connection(connection)
    }

    func resume() {
        guard let connection, suspended else { return }
        suspended = false
        MHD_resume_connection(connection)
        server?.wakeUp()
    }

    /// The content reader: no data yet means suspend until the next offer.
    func readStream(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard case .queued = reply.state, !reply.closed, let stream = streamSource else {
            return Exchange.endOfStream
        }
        switch stream.read(into: buffer) {
        case .bytes(let n): return n
        case .end: return Exchange.endOfStream
        case .later:
            suspend()
            return 0
        }
    }

    var streamSource: HTTPStream?
    /// `MHD_CONTENT_READER_END_OF_STREAM`, a cast macro Swift does not import.
    static let endOfStream = -1

    func finish() {
        connection = nil
        suspended = false
        streamSource?.close()
        streamSource = nil
        reply.close()
    }
}
