/// What MHD's callbacks (turned into Swift calls by `MHDCalls`) and the
/// hang-up watch mean for an exchange: each event goes to its
/// `ExchangeState`, and the action that comes back goes to `perform`. The
/// `Bool` returned is MHD's answer: false drops the connection.
extension HTTPServer {
    /// A request's head: its exchange begins (MHD holds it until `completed`).
    func head(_ connection: OpaquePointer, method: String, path: String) -> (Exchange, Bool) {
        var request = readRequest(connection, method: method, path: path)
        // Read from the local value: `exchange.request`, a class's field, is copied at each read.
        let showed = token?.allows(request)
        request.showedToken = showed
        let trusted = showed == true || trusts(request)
        hangups?.headArrived(connection, trusted: trusted)
        let framing = Framing(headers: request.headers)
        // Read only for a body too big: every other request skips the lookup.
        let continues = if case .length(let n) = framing, n > maxBody {
            request.headers.withValue("expect") { $0.map(Self.isContinue) ?? false }
        } else { false }
        let exchange: Exchange
        if let spare = spareExchange {
            spareExchange = nil
            spare.begin(server: self, connection: connection, request: consume request, maxBody: maxBody)
            exchange = spare
        } else {
            exchange = Exchange(server: self, connection: connection, request: consume request, maxBody: maxBody)
        }
        exchange.liveAt = live.count
        live.append(exchange)
        swap(&exchange.request.body, &spareBody)
        if case .length(let length) = framing, length <= maxBody { exchange.request.body.reserveCapacity(length) }
        return (exchange, perform(exchange.step { $0.head(framing, expectsContinue: continues) }, exchange))
    }

    /// `Expect: 100-continue` (RFC 9110 section 10.1.1): the client sends no body before an answer.
    static func isContinue(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        let word = "100-continue".utf8
        return value.count == word.count && zip(value, word).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }

    /// More of the body.
    func upload(_ exchange: Exchange, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let have = exchange.request.body.count
        return perform(exchange.step { $0.body(bytes.count, have: have) }, exchange, upload: bytes)
    }

    /// No more body: the request is whole, or MHD calls again after a resume.
    func ready(_ exchange: Exchange) -> Bool {
        perform(exchange.step { [stopping] in $0.ready(stopping: stopping) }, exchange)
    }

    /// MHD is done with a request (`exchange` is nil when it never had a head).
    func completed(_ connection: OpaquePointer?, _ exchange: Exchange?, ok: Bool, daemonShutdown: Bool) {
        // Kept alive: the next head is awaited like the first (a close follows otherwise).
        if let connection, ok { hangups?.awaitHead(connection) }
        guard let exchange else { return }
        leaveLive(exchange)
        _ = perform(exchange.step { $0.completed(ok: ok, daemonShutdown: daemonShutdown) }, exchange)
        exchange.finish()
        recycleFields(exchange)
    }

    /// Out of `live`: the last one takes its place. One no longer there (the
    /// stop emptied `live`) is left alone.
    private func leaveLive(_ exchange: Exchange) {
        let at = exchange.liveAt
        exchange.liveAt = -1
        guard at >= 0, at < live.count, live[at] === exchange else { return }
        let last = live.removeLast()
        guard at < live.count else { return }
        live[at] = last
        last.liveAt = at
    }

    /// An exchange MHD completed well, kept for the next head when nothing
    /// but `exchange` holds it: not MHD (a stream's response may still hold
    /// it), not a test. Its reply and stream let go of it in `finish`; a
    /// handler that kept the reply is seen to in `Exchange.begin`. Making one
    /// exchange and reply a request would be two allocations.
    func reuse(_ exchange: inout Exchange) {
        guard isKnownUniquelyReferenced(&exchange) else { return }
        var body: [UInt8] = []
        swap(&body, &exchange.request.body)
        exchange.request = HTTPRequest(method: "", path: "", query: HTTPFields(), headers: HTTPFields())
        // Emptied in place, unless the handler kept a copy: then emptying it makes
        // a buffer of its own, which the next body would have made anyway.
        if body.capacity <= Self.spareBodyLimit && body.capacity > spareBody.capacity {
            if !body.isEmpty { body.removeAll(keepingCapacity: true) }
            spareBody = body
        }  // else the body goes now
        spareExchange = exchange
    }

    func opened(_ connection: OpaquePointer) {
        hangups?.opened(connection, fd: calls.socket(connection))
        makeRoom()
    }

    func closed(_ connection: OpaquePointer) {
        hangups?.closed(connection)
        poll?.runAgain()
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
        guard let exchange = live.first(where: { $0.connection == connection }) else { return }
        _ = perform(exchange.step { $0.hungUp() }, exchange)
    }
}
