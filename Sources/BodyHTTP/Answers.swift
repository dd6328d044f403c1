internal import CMicroHTTPD

/// Queueing an answer on its connection, whole or as a stream, and the one
/// log line each answer gets.
extension HTTPServer {
    static let streamBlock = 32 * 1024

    /// The C functions are `MHD_create_response_from_buffer` and `MHD_queue_response`.
    func queue(_ exchange: Exchange, _ answer: HTTPResponse) -> MHD_Result {
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

    /// A chunked `200` whose body MHD pulls from the exchange's content reader.
    /// The C function is `MHD_create_response_from_callback`.
    func queueStream(_ exchange: Exchange, _ stream: HTTPStream) -> MHD_Result {
        let cursor = Unmanaged.passRetained(exchange).toOpaque()
        let response = MHD_create_response_from_callback(UInt64.max /* MHD_SIZE_UNKNOWN */, HTTPServer.streamBlock, { cls, _, buffer, max in
            guard let cls, let buffer else { return Exchange.endWithError }
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
        addHeaders(response, exchange.streamType, [("Cache-Control", "no-store")])
        stream.wake = { [unowned exchange] in exchange.wake() }
        return finishQueue(exchange, response, 200)
    }

    private func addHeaders(_ response: OpaquePointer, _ contentType: String, _ headers: [(String, String)]) {
        _ = MHD_add_response_header(response, "Content-Type", contentType)
        for (name, value) in headers { _ = MHD_add_response_header(response, name, value) }
        if stopping { _ = MHD_add_response_header(response, "Connection", "close") }
    }

    private func finishQueue(_ exchange: Exchange, _ response: OpaquePointer, _ status: Int) -> MHD_Result {
        let request = exchange.request
        var line = "http: \(request.method) \(request.path) \(status)"
        if let doing = request.doing { line += " doing \(doing.debugDescription)" }
        // A refusal is said through the repeat filter: wrong tokens or garbage from a
        // flood are a few lines a minute with their count, not one a request.
        if status >= 400 {
            // Keyed by method and status: the path and `doing` are the client's to vary.
            if let said = repeats.say(line, key: "\(request.method.prefix(16)) \(status)", at: HTTPServer.monotonic()) {
                if let requests { requests(said, status) } else { log(said) }
            }
        } else if let requests { requests(line, status) } else { log(line) }
        guard let connection = exchange.connection,
              MHD_queue_response(connection, UInt32(clamping: status), response) == .YES else {
            log("http: cannot queue the answer to \(request.method) \(request.path)")
            return .NO
        }
        answered?(status)
        return .YES
    }
}
