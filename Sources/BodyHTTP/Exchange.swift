/// One request from its head to its completion: the connection, what was
/// read, the reply its handler holds, and its `ExchangeState`. MHD's
/// per-request pointer holds it (MHDCalls). What its state asks for is
/// carried out by the server's `perform`.
final class Exchange: Waking {
    /// MHD's connection; nil once MHD completed the request (or the server
    /// stopped), so nothing is ever asked of a connection that is gone.
    private(set) var connection: OpaquePointer?
    var request: HTTPRequest
    private(set) var reply = HTTPReply()
    var state: ExchangeState
    /// The stream being sent, once queued.
    var stream: HTTPStream?
    var streamType = ""

    weak var server: HTTPServer?
    /// When the head arrived, on the monotonic clock: the body is due `HTTPLimits.bodyDeadline` later.
    private(set) var headAt: Double
    /// Its body was too slow and its socket was shut down.
    var cutOff = false
    /// Where it is in the server's `live`, -1 when not there.
    var liveAt = -1

    /// `request` is taken, not copied (not a copy and a destroy of its fields a request).
    init(server: HTTPServer, connection: OpaquePointer, request: consuming HTTPRequest, maxBody: Int) {
        self.server = server
        self.connection = connection
        self.request = consume request
        headAt = server.headClock()
        state = ExchangeState(maxBody: maxBody)
    }

    /// A finished exchange begins again for a new head, as if just made
    /// (`HTTPServer.reuse` decides when that is safe). Its reply is made new
    /// only if no one else holds it: a handler may keep the old one (a
    /// parked poll), and must never see it answer another request.
    func begin(server: HTTPServer, connection: OpaquePointer, request: consuming HTTPRequest, maxBody: Int) {
        // `self.server` stays: a spare is only ever begun again by its own server
        // (`spareExchange`), and assigning a weak reference is a trip to the runtime's side table.
        self.connection = connection
        self.request = consume request
        headAt = server.headClock()
        state = ExchangeState(maxBody: maxBody)
        stream = nil
        streamType = ""
        cutOff = false
        if isKnownUniquelyReferenced(&reply) { reply.reopen() } else { reply = HTTPReply() }
    }

    /// What `event` asks for, its state read out, changed as a local and
    /// written back: every access to `state` (a plain value) is then
    /// instantaneous, and the optimizer drops their runtime exclusivity
    /// checks (changed in place across an event, each would be one).
    @inline(__always)
    func step(_ event: (inout ExchangeState) -> ExchangeState.Action) -> ExchangeState.Action {
        var changed = state
        let action = event(&changed)
        state = changed
        return action
    }

    /// The reply was answered or the stream offered to, elsewhere on the loop.
    func wake() {
        let action = step { $0.wake() }
        server?.perform(action, self)
    }

    /// What a pull of the stream gave.
    enum StreamRead: Equatable {
        case bytes(Int)
        /// Nothing yet: the connection is suspended until the next offer.
        case later
        case end
        /// The client is gone: MHD drops the connection.
        case failed
    }

    /// The stream's content, pulled by MHD.
    func readStream(into buffer: UnsafeMutableRawBufferPointer) -> StreamRead {
        guard case .streaming = state.state, let stream else {
            return state.state == .gone ? .failed : .end
        }
        switch stream.read(into: buffer) {
        case .bytes(let n): return .bytes(n)
        case .end: return .end
        case .later:
            let action = step { $0.streamEmpty() }
            server?.perform(action, self)
            return .later
        }
    }

    /// MHD is done with it (or the server stopped): close is safe twice.
    func finish() {
        connection = nil
        stream?.close()
        stream = nil
        reply.close()
    }
}

/// What a reply or a stream wakes when it has something for the server: its
/// exchange (in a test, a counter). Held unowned rather than as a closure that
/// captures the exchange: such a closure would be an allocation a request.
/// The exchange outlives the hold: `finish` closes both, which let go of it.
protocol Waking: AnyObject {
    func wake()
}
