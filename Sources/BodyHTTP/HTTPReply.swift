/// The way back to one client. Answer inside the handler, or keep it and
/// answer later from the loop thread: the server suspends the connection when
/// the handler returns without an answer and resumes it on `send`.
/// Loop thread only, like everything the server touches.
public final class HTTPReply {
    enum State {
        case waiting
        case ready(HTTPResponse)
        case streaming(contentType: String, HTTPStream)
        case queued
    }

    var state: State = .waiting
    /// The client is gone (or the server stopped): anything sent now is dropped.
    private(set) var closed = false
    /// Set by the server: resumes the connection if it is suspended.
    var wake: (() -> Void)?

    /// A reply tied to no connection, for testing a handler: what it sends stays in `response`.
    public init() {}

    /// The whole answer given with `send`, if any (nil for a stream).
    public private(set) var response: HTTPResponse?

    /// True once an answer (whole or streamed) was given; later ones are ignored.
    public var isSent: Bool {
        if case .waiting = state { return false }
        return true
    }

    /// True while the client can still be answered.
    public var isOpen: Bool { !closed }

    public func send(_ response: HTTPResponse) {
        guard !isSent, !closed else { return }
        state = .ready(response)
        self.response = response
        wake?()
    }

    /// Answers with a body produced over time (`200`, chunked), e.g. an MJPEG stream.
    public func stream(contentType: String, _ source: HTTPStream) {
        guard !isSent, !closed else { source.close(); return }
        state = .streaming(contentType: contentType, source)
        wake?()
    }

    func close() {
        guard !closed else { return }
        closed = true
        wake = nil
        if case .streaming(_, let stream) = state { stream.close() }
    }
}
