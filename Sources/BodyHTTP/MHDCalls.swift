internal import CMicroHTTPD

/// Every call the server makes into libmicrohttpd, as a struct of functions:
/// the seam where a test makes the start, a queue, a resume, a run or the
/// timeout fail (as `CameraCalls` is for V4L2). This is the one Swift file that
/// names libmicrohttpd's functions and types; the callbacks MHD makes into the
/// server are turned into Swift calls on `HTTPServer` here too (ServerEvents).
/// A connection is MHD's pointer to it, opaque outside this file.
struct MHDCalls {
    /// Starts the daemon with `options`, its callbacks and its log going to
    /// `server`; nil when MHD refused (it said why through `server.mhdSaid`).
    /// The C function is `MHD_start_daemon` (through the shim's `body_mhd_start`).
    var start: (_ options: DaemonOptions, _ server: HTTPServer) -> Daemon?
    /// Closes every connection and the daemon; `daemon` is gone after. The C function is `MHD_stop_daemon`.
    var stop: (_ daemon: Daemon) -> Void
    /// Stops accepting; returns the listening socket for the caller to close, or -1.
    /// The C function is `MHD_quiesce_daemon`.
    var quiesce: (_ daemon: Daemon) -> Int32
    /// Does what is pending, never blocking; false when MHD says it failed. The C function is `MHD_run`.
    var run: (_ daemon: Daemon) -> Bool
    /// Milliseconds until a run is due without readiness; nil when only
    /// readiness matters (or MHD would not say). The C function is `MHD_get_timeout`.
    var timeout: (_ daemon: Daemon) -> Int64?
    /// The epoll descriptor MHD waits on, or -1. The C function is `MHD_get_daemon_info`.
    var epollDescriptor: (_ daemon: Daemon) -> Int32
    /// The port the listening socket is bound to, or 0. The C function is `MHD_get_daemon_info`.
    var boundPort: (_ daemon: Daemon) -> UInt16
    /// The connection's socket, or -1. The C function is `MHD_get_connection_info`.
    var socket: (_ connection: OpaquePointer) -> Int32
    /// The client's address as text, "" when unknown. The C function is `MHD_get_connection_info`.
    var clientAddress: (_ connection: OpaquePointer) -> String
    /// Adds a request's header lines or query arguments to `fields`, in
    /// order, as MHD parsed them. The C function is `MHD_get_connection_values`.
    var values: (_ connection: OpaquePointer, _ kind: ValueKind, _ fields: inout HTTPFields) -> Void
    /// MHD stops watching the connection until `resume`. The C function is `MHD_suspend_connection`.
    var suspend: (_ connection: OpaquePointer) -> Void
    /// MHD watches the connection again from its next run. The C function is `MHD_resume_connection`.
    var resume: (_ connection: OpaquePointer) -> Void
    /// Queues a whole answer: its Content-Type, its headers, then
    /// `Connection: close` if `close`. The C functions are
    /// `MHD_create_response_from_buffer`, `MHD_add_response_header`, `MHD_queue_response`.
    var queue: (_ connection: OpaquePointer, _ answer: HTTPResponse, _ close: Bool) -> Queued
    /// Queues a chunked `200` whose body MHD pulls from `exchange.readStream`, with the same headers.
    /// The C functions are `MHD_create_response_from_callback`, `MHD_add_response_header`, `MHD_queue_response`.
    var queueStream: (_ connection: OpaquePointer, _ contentType: String, _ headers: [(String, String)], _ close: Bool,
                      _ exchange: Exchange) -> Queued

    enum ValueKind { case header, query }

    /// What became of an answer handed to MHD.
    enum Queued: Equatable {
        case queued
        /// MHD could not make the response (out of memory).
        case notBuilt
        /// MHD would not queue it on the connection.
        case notQueued
    }

    /// A running daemon, and the log sink its C logger reads (freed by `stop`).
    struct Daemon {
        let handle: OpaquePointer
        fileprivate let sink: UnsafeMutablePointer<body_mhd_log>
        /// The key and certificate as MHD reads them (NUL-terminated), kept as long as the daemon.
        fileprivate var pem: (key: UnsafeMutablePointer<CChar>, certificate: UnsafeMutablePointer<CChar>)? = nil
    }

    /// Bytes MHD asks a stream for at most, per pull.
    static let streamBlock = 32 * 1024

    /// libmicrohttpd itself.
    static var live: MHDCalls {
        MHDCalls(
            start: startLive,
            stop: { daemon in
                MHD_stop_daemon(daemon.handle)
                daemon.sink.deallocate()
                daemon.pem?.key.deallocate()
                daemon.pem?.certificate.deallocate()
            },
            quiesce: { daemon in MHD_quiesce_daemon(daemon.handle) },
            run: { daemon in MHD_run(daemon.handle) == .YES },
            timeout: { daemon in
                let ms = body_mhd_timeout_ms(daemon.handle)  // MHD_get_timeout, -1 for none
                return ms < 0 ? nil : Int64(ms)
            },
            epollDescriptor: { daemon in body_mhd_epoll_fd(daemon.handle) },
            boundPort: { daemon in body_mhd_bound_port(daemon.handle) },
            socket: { connection in body_mhd_connection_fd(connection) },
            clientAddress: { connection in
                // On the stack: an array here would be an allocation a request.
                withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { text in
                    body_mhd_client_address(connection, text.baseAddress!, text.count)  // always NUL-terminated
                    return String(cString: text.baseAddress!)
                }
            },
            values: valuesLive,
            suspend: { connection in MHD_suspend_connection(connection) },
            resume: { connection in MHD_resume_connection(connection) },
            queue: { connection, answer, close in
                let response = answer.body.withUnsafeBytes { bytes in
                    MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                                    .RESPMEM_MUST_COPY)
                }
                guard let response else { return .notBuilt }
                defer { MHD_destroy_response(response) }
                return queueLive(connection, answer.status, response, answer.contentType, answer.headers, close)
            },
            queueStream: { connection, contentType, headers, close, exchange in
                // The response holds the exchange until MHD frees it (the release below).
                let cursor = Unmanaged.passRetained(exchange).toOpaque()
                let response = MHD_create_response_from_callback(UInt64.max /* MHD_SIZE_UNKNOWN */, streamBlock, streamReader, cursor, { cls in
                    guard let cls else { return }
                    Unmanaged<Exchange>.fromOpaque(cls).release()
                })
                guard let response else {
                    Unmanaged<Exchange>.fromOpaque(cursor).release()
                    return .notBuilt
                }
                defer { MHD_destroy_response(response) }
                return queueLive(connection, 200, response, contentType, headers, close)
            })
    }
}

/// The daemon's options, in the one place a new one (TLS) goes: the flags and
/// the shim's option list.
private func startLive(_ options: DaemonOptions, _ server: HTTPServer) -> MHDCalls.Daemon? {
    _ = pagesInstalled
    let me = Unmanaged.passUnretained(server).toOpaque()
    let sink = UnsafeMutablePointer<body_mhd_log>.allocate(capacity: 1)
    sink.initialize(to: body_mhd_log(fn: { context, message in
        guard let context, let message else { return }
        let text = String(cString: message)
        // 0.9.75 says this even when the logger is the first option (it counts
        // an option of its own first); the logger is in place, so it is dropped.
        guard !text.hasPrefix("MHD_OPTION_EXTERNAL_LOGGER is not the first option") else { return }
        Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().mhdSaid(text)
    }, context: me))
    let address = options.address
    var flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
    if address.isIPv6 { flags |= address.isAny ? MHD_USE_DUAL_STACK.rawValue : MHD_USE_IPv6.rawValue }
    let limits = options.limits
    let pem = options.tls.map { (key: cString($0.key), certificate: cString($0.certificate)) }
    let priorities = options.tls?.priorities ?? HTTPTLS.priorities
    let handle = address.withSockaddr { sa in
        priorities.withCString { priorities in
            body_mhd_start(flags, options.port, sa, accessHandler, me, completedHandler, me,
                           connectionHandler, me, sink, UInt32(clamping: limits.idle),
                           UInt32(clamping: limits.connections), UInt32(clamping: limits.perAddress),
                           options.headMemory, pem?.key, pem?.certificate, priorities)
        }
    }
    guard let handle else {
        sink.deallocate()
        pem?.key.deallocate()
        pem?.certificate.deallocate()
        return nil
    }
    return MHDCalls.Daemon(handle: handle, sink: sink, pem: pem)
}

/// PEM bytes as a NUL-terminated C string the daemon keeps.
private func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
    let text = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
    for (i, b) in bytes.enumerated() { text[i] = CChar(bitPattern: b) }
    text[bytes.count] = 0
    return text
}

/// MHD's own HTML refusal pages go through `MHDPages`' words from the first
/// start on, once for the process (the pages are the library's, not one server's).
private let pagesInstalled: Void = {
    body_mhd_rewrite_pages { page, size, out, capacity in
        guard let page, let out else { return 0 }
        let text = String(decoding: UnsafeRawBufferPointer(start: page, count: size), as: UTF8.self)
        let json = HTTPResponse.errorBody(MHDPages.words(forPage: text))
        guard json.count <= capacity else { return 0 }
        json.withUnsafeBytes { out.update(from: $0.bindMemory(to: CChar.self).baseAddress!, count: json.count) }
        return json.count
    }
}()

private func queueLive(_ connection: OpaquePointer, _ status: Int, _ response: OpaquePointer, _ contentType: String,
                       _ headers: [(String, String)], _ close: Bool) -> MHDCalls.Queued {
    addHeader(response, "Content-Type", contentType)
    for (name, value) in headers { addHeader(response, name, value) }
    if close { addHeader(response, "Connection", "close") }
    return MHD_queue_response(connection, UInt32(clamping: status), response) == .YES ? .queued : .notQueued
}

/// `withCString`, not a String passed as a C string: that conversion copies
/// a short string into an array of its own, an allocation a header.
private func addHeader(_ response: OpaquePointer, _ name: String, _ value: String) {
    name.withCString { name in value.withCString { value in _ = MHD_add_response_header(response, name, value) } }
}

private func valuesLive(_ connection: OpaquePointer, _ kind: MHDCalls.ValueKind, _ fields: inout HTTPFields) {
    // The callback's context is `fields`, for the length of this call only.
    _ = withUnsafeMutablePointer(to: &fields) { fields in
        MHD_get_connection_values(connection, kind == .header ? .HEADER_KIND : .GET_ARGUMENT_KIND, { cls, kind, key, value in
            guard let cls, let key else { return .YES }
            cls.assumingMemoryBound(to: HTTPFields.self).pointee.add(key, value, kind == .HEADER_KIND ? .header : .query)
            return .YES
        }, fields)
    }
}

/// `MHD_CONTENT_READER_END_OF_STREAM` and `_END_WITH_ERROR`, cast macros Swift does not import.
private let endOfStream = -1
private let endWithError = -2

private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return endWithError }
    let exchange = Unmanaged<Exchange>.fromOpaque(cls).takeUnretainedValue()
    switch exchange.readStream(into: UnsafeMutableRawBufferPointer(start: buffer, count: max)) {
    case .bytes(let n): return n
    case .later: return 0
    case .end: return endOfStream
    case .failed: return endWithError
    }
}

// MHD's callbacks, each finding the server through its context pointer and
// each request's `Exchange` through MHD's per-request pointer, which holds
// one retain from the head to the completion.

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, data, size, context in
    guard let cls, let connection, let size, let context else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    guard let raw = context.pointee else {
        // First call: headers only.
        let (exchange, ok) = server.head(connection, method: method.map { String(cString: $0) } ?? "GET",
                                         path: url.map { String(cString: $0) } ?? "/")
        context.pointee = Unmanaged.passRetained(exchange).toOpaque()
        return ok ? .YES : .NO
    }
    let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeUnretainedValue()
    let ok: Bool
    if size.pointee > 0 {
        let bytes = UnsafeRawBufferPointer(start: data.map(UnsafeRawPointer.init), count: data == nil ? 0 : size.pointee)
        size.pointee = 0
        ok = server.upload(exchange, bytes)
    } else {
        ok = server.ready(exchange)
    }
    return ok ? .YES : .NO
}

private let completedHandler: MHD_RequestCompletedCallback = { cls, connection, context, code in
    guard let cls else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    var exchange: Exchange?
    if let context, let raw = context.pointee {
        context.pointee = nil
        exchange = Unmanaged<Exchange>.fromOpaque(raw).takeRetainedValue()
    }
    let ok = code == .REQUEST_TERMINATED_COMPLETED_OK
    server.completed(connection, exchange, ok: ok, daemonShutdown: code == .REQUEST_TERMINATED_DAEMON_SHUTDOWN)
    if ok, var done = exchange {
        exchange = nil
        server.reuse(&done)
    }
}

private let connectionHandler: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if code == .CONNECTION_NOTIFY_STARTED { server.opened(connection) } else { server.closed(connection) }
}
