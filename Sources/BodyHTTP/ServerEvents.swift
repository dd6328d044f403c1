internal import CMicroHTTPD

/// What MHD's callbacks and the hang-up watch mean for an exchange: each
/// event goes to its `ExchangeState`, and the action that comes back is done here.
extension HTTPServer {
    func access(_ connection: OpaquePointer, _ url: String, _ method: String,
                _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
                _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = context.pointee else {
            // First call: headers only.
            hangups?.headArrived(connection)
            let exchange = Exchange(server: self, connection: connection,
                                    request: readRequest(connection, method: method, path: url), maxBody: maxBody)
            if trusts(exchange.request) { hangups?.trust(connection) }
            context.pointee = Unmanaged.passRetained(exchange).toOpaque()
            live[ObjectIdentifier(exchange)] = exchange
            let framing = Framing(headers: exchange.request.headers)
            if case .length(let length) = framing { exchange.request.body.reserveCapacity(min(maxBody, length)) }
            return perform(exchange.state.head(framing), exchange)
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let n = uploadSize.pointee
            uploadSize.pointee = 0
            switch exchange.state.body(n, have: exchange.request.body.count) {
            case .append:
                if let uploadData {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: n) {
                        exchange.request.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n))
                    }
                }
                return .YES
            case .refuse:
                return .NO
            default:
                // Chunked upload past the limit: drop it, answer 413 at the end.
                exchange.request.body = []
                return .YES
            }
        }
        return perform(exchange.state.ready(stopping: stopping), exchange)
    }

    /// Does what the exchange's state asked; the result is MHD's answer to its callback.
    private func perform(_ action: ExchangeState.Action, _ exchange: Exchange) -> MHD_Result {
        switch action {
        case .none, .append, .discard:
            return .YES
        case .refuse:
            // MHD calls refusing an "internal error"; for a client already gone it is not one.
            if exchange.state.state == .gone { quietRefusal = true }
            return .NO
        case .dispatch:
            exchange.reply.wake = { [unowned exchange] in exchange.wake() }
            handler(exchange.request, exchange.reply)
            return takeAnswer(exchange)
        case .takeAnswer:
            return takeAnswer(exchange)
        case .queue(let response):
            return queue(exchange, response)
        case .queueStream:
            guard let stream = exchange.stream else { return .NO }
            return queueStream(exchange, stream)
        case .suspend:
            exchange.suspend()
            return .YES
        case .resume:
            exchange.resume()
            return .YES
        case .closeReplyAndResume:
            exchange.stream?.close()
            exchange.reply.close()
            exchange.resume()
            return .YES
        case .logGone(let why):
            // Said through the repeat filter: a storm of clients that leave is a few lines.
            let text = "http: \(exchange.request.method) \(exchange.request.path): \(why) before the answer was sent"
            if let line = repeats.say(text, key: "gone: \(why)", at: HTTPServer.monotonic()) { log(line) }
            return .YES
        }
    }

    private func takeAnswer(_ exchange: Exchange) -> MHD_Result {
        let answer: ExchangeState.Answer
        switch exchange.reply.take() {
        case nil:
            answer = .none
        case .whole(let response)?:
            answer = .whole(response)
        case .stream(let contentType, let stream)?:
            exchange.stream = stream
            exchange.streamType = contentType
            answer = .stream
        }
        return perform(exchange.state.answer(answer), exchange)
    }

    func completed(_ connection: OpaquePointer?, _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                   _ code: MHD_RequestTerminationCode) {
        // Kept alive: the next head is awaited like the first (a close follows otherwise).
        if let connection, code == .REQUEST_TERMINATED_COMPLETED_OK { hangups?.awaitHead(connection) }
        guard let context, let raw = context.pointee else { return }
        context.pointee = nil
        let exchange = Unmanaged<Exchange>.fromOpaque(raw).takeRetainedValue()
        live.removeValue(forKey: ObjectIdentifier(exchange))
        let action = exchange.state.completed(ok: code == .REQUEST_TERMINATED_COMPLETED_OK,
                                              daemonShutdown: code == .REQUEST_TERMINATED_DAEMON_SHUTDOWN)
        _ = perform(action, exchange)
        exchange.finish()
    }

    func connection(_ connection: OpaquePointer, _ code: MHD_ConnectionNotificationCode) {
        if code == .CONNECTION_NOTIFY_STARTED {
            hangups?.opened(connection, fd: body_mhd_connection_fd(connection))
            makeRoom()
        } else {
            hangups?.closed(connection)
            runDue = true
        }
    }

    /// Near the connection limit, the oldest connections that showed no token
    /// are shut down (MHD, woken by the hang-up, closes them), so Oriel's
    /// next connect is accepted (`HTTPLimits.reserve`).
    func makeRoom() {
        let room = hangups?.makeRoom(most: limits.connections - limits.reserve) ?? []
        guard !room.isEmpty else { return }
        for fd in room { try? fd.shutDown() }
        let text = "http: \(limits.connections - limits.reserve) connections are open, near the limit of "
            + "\(limits.connections): the oldest that showed no token are closed to make room"
        if let line = repeats.say(text, at: HTTPServer.monotonic()) { log(line) }
    }

    /// The kernel says a suspended connection's client hung up.
    func clientLeft(_ connection: OpaquePointer) {
        guard let exchange = live.values.first(where: { $0.connection == connection }) else { return }
        _ = perform(exchange.state.hungUp(), exchange)
    }

    func suspended(_ connection: OpaquePointer) { hangups?.suspended(connection) }
    func resumed(_ connection: OpaquePointer) { hangups?.resumed(connection) }
}
