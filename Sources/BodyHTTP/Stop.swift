import BodySystem

extension HTTPServer {
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
        let listener = calls.quiesce(daemon)
        if listener >= 0 { try? FileDescriptor(rawValue: listener).close() }
        for exchange in live where exchange.state.state != .reading {
            exchange.reply.send(.error(503, "the body is stopping"))
            exchange.stream?.finish()
        }
        drain(for: grace)
        // MHD must not be stopped with a suspended connection.
        for exchange in live { _ = perform(exchange.step { $0.stopping() }, exchange) }
        calls.stop(daemon)
        self.daemon = nil
        poll?.close()
        poll = nil
        hangups = nil
        for exchange in live { exchange.finish() }
        live.removeAll()
    }

    /// The one blocking wait in the server: runs MHD until every request is
    /// done or `grace` seconds pass, waking on the server's own epoll set (the
    /// event loop is no longer turning it). The set of hang-ups is not heard:
    /// by now every suspended exchange was answered, and a connection waiting
    /// for a head is not in `live`.
    private func drain(for grace: Double) {
        guard let wait = poll?.descriptor else { return }
        let deadline = SystemClock.monotonic() + grace
        while !live.isEmpty {
            let left = deadline - SystemClock.monotonic()
            if left <= 0 { break }
            _ = try? wait.waitReadable(seconds: min(left, timeout() ?? left))
            run()
        }
    }
}
