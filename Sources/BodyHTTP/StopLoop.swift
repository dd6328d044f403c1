import BodySystem

extension HTTPServer {
    /// The one blocking wait in the server, for `stop`: runs MHD until every
    /// request is done or `grace` seconds pass, waking on the server's own
    /// epoll set (the event loop is no longer turning it).
    func drain(for grace: Double) {
        let deadline = SystemClock.monotonic() + grace
        guard let poll = pollDescriptor else { return }
        while !live.isEmpty {
            let left = deadline - SystemClock.monotonic()
            if left <= 0 { break }
            _ = try? poll.waitReadable(seconds: min(left, timeout() ?? left))
            run()
        }
    }
}
