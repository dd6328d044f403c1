/// The way back to one client. Answer inside the handler, or keep it and
/// answer later from the loop thread: the server suspends the connection when
/// the handler returns without an answer and resumes it on `send`.
/// Loop thread only, like everything the server touches.
public final class HTTPReply {
    enum Answer {
        case whole(HTTPResponse)
        case stream(contentType: String, HTTPStream)
    }

    enum State {
        case open
        /// Answered; the server has not taken the answer yet.
        case answered(Answer)
        /// The server took the answer and is sending it.
        case sending
        /// The client is gone, the answer went out, or the server stopped:
        /// anything sent now is dropped.
        case closed(sent: Bool)
    }

    private(set) var state: State = .open
    /// Set by the server: its exchange, woken to resume the connection if it is suspended.
    unowned var wakes: (any Waking)?

    /// The exchange is over: the answer went out, the client went away (even
    /// while the request waited), or the server stopped. Called once, on the
    /// loop thread; an owner holding the reply for later drops it here.
    public var onClose: (() -> Void)?

    /// A reply tied to no connection, for testing a handler: what it sends stays in `response`.
    public init() {}

    /// The whole answer given with `send`, if any (nil for a stream).
    public private(set) var response: HTTPResponse?

    /// True once an answer (whole or streamed) was given; later ones are ignored.
    public var isSent: Bool {
        switch state {
        case .open: false
        case .answered, .sending: true
        case .closed(let sent): sent
        }
    }

    /// True while the client can still be answered.
    public var isOpen: Bool {
        if case .closed = state { return false }
        return true
    }

    public func send(_ response: HTTPResponse) {
        guard case .open = state else { return }
        state = .answered(.whole(response))
        self.response = response
        wakes?.wake()
    }

    /// Answers with a body produced over time (`200`, chunked), e.g. an MJPEG stream.
    public func stream(contentType: String, _ source: HTTPStream) {
        guard case .open = state else { source.close(); return }
        state = .answered(.stream(contentType: contentType, source))
        wakes?.wake()
    }

    /// The server takes the answer to queue it.
    func take() -> Answer? {
        guard case .answered(let answer) = state else { return nil }
        state = .sending
        return answer
    }

    /// Open again for its exchange's next request; only when no one but the exchange holds it.
    func reopen() {
        state = .open
        response = nil
        onClose = nil
        wakes = nil
    }

    func close() {
        if case .closed = state { return }
        // A stream given but never taken is closed here; a taken one by the server.
        if case .answered(.stream(_, let stream)) = state { stream.close() }
        state = .closed(sent: isSent)
        wakes = nil
        let done = onClose
        onClose = nil
        done?()
    }
}
