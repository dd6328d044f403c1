internal import CMicroHTTPD

/// One request from its head to its completion: the connection, what was
/// read, the reply its handler holds, and its `ExchangeState`. MHD's
/// per-request context points here.
final class Exchange {
    private(set) var connection: OpaquePointer?
    var request: HTTPRequest
    let reply = HTTPReply()
    var state: ExchangeState
    /// The stream being sent, once queued.
    var stream: HTTPStream?
    var streamType = ""

    weak var server: HTTPServer?
    /// When the head arrived, on the monotonic clock: the body is due `HTTPLimits.bodyDeadline` later.
    let headAt: Double
    /// Its body was too slow and its socket was shut down.
    var cutOff = false

    init(server: HTTPServer, connection: OpaquePointer, request: HTTPRequest, maxBody: Int) {
        self.server = server
        self.connection = connection
        self.request = request
        headAt = server.headClock()
        state = ExchangeState(maxBody: maxBody)
    }

    /// The C function is `MHD_suspend_connection`.
    func suspend() {
        guard let connection else { return }
        MHD_suspend_connection(connection)
        server?.suspended(connection)
    }

    /// The C function is `MHD_resume_connection`.
    func resume() {
        guard let connection else { return }
        server?.resumed(connection)
        MHD_resume_connection(connection)
        server?.wakeUp()
    }

    /// The reply was answered or the stream offered to, elsewhere on the loop.
    func wake() {
        if state.wake() == .resume { resume() }
    }

    /// The content reader: no data yet means suspend until the next offer.
    func readStream(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard case .streaming = state.state, let stream else {
            return state.state == .gone ? Exchange.endWithError : Exchange.endOfStream
        }
        switch stream.read(into: buffer) {
        case .bytes(let n): return n
        case .end: return Exchange.endOfStream
        case .later:
            if state.streamEmpty() == .suspend { suspend() }
            return 0
        }
    }

    /// `MHD_CONTENT_READER_END_OF_STREAM` and `_END_WITH_ERROR`, cast macros Swift does not import.
    static let endOfStream = -1
    static let endWithError = -2

    /// MHD is done with it (or the server stopped): close is safe twice.
    func finish() {
        connection = nil
        stream?.close()
        stream = nil
        reply.close()
    }
}
