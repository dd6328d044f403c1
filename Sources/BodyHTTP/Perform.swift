/// The one function that carries out what an exchange's state asked for
/// (after async-http-client's `HTTP1ClientChannelHandler.run(_:)`): every
/// `ExchangeState.Action` from every event (MHD's callbacks, a wake-up from
/// the loop, a hang-up, the stop) comes here, and nowhere else does one.
extension HTTPServer {
    /// Does `action` for `exchange`; the result is MHD's answer to its
    /// callback (false drops the connection). `upload` is the body bytes an
    /// `.append` keeps.
    @discardableResult
    func perform(_ action: ExchangeState.Action, _ exchange: Exchange,
                 upload: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) -> Bool {
        switch action {
        case .none:
            return true
        case .append:
            exchange.request.body.append(contentsOf: upload)
            return true
        case .discard:
            // Past the limit: drop it, answer 413 at the end.
            exchange.request.body = []
            return true
        case .refuse:
            // MHD calls refusing an "internal error"; for a client already gone it is not one.
            if exchange.state.state == .gone { quietRefusal = true }
            return false
        case .dispatch:
            exchange.reply.wakes = exchange
            handler(exchange.request, exchange.reply)
            let answer = takeAnswer(exchange)
            return perform(exchange.step { $0.answer(answer) }, exchange)
        case .takeAnswer:
            let answer = takeAnswer(exchange)
            return perform(exchange.step { $0.answer(answer) }, exchange)
        case .queue(let response):
            return queue(exchange, response)
        case .queueStream:
            guard let stream = exchange.stream else { return false }
            return queueStream(exchange, stream)
        case .suspend:
            guard let connection = exchange.connection else { return true }
            calls.suspend(connection)
            hangups?.suspended(connection)
            return true
        case .resume:
            resume(exchange)
            return true
        case .closeReplyAndResume:
            exchange.stream?.close()
            exchange.reply.close()
            resume(exchange)
            return true
        case .logGone(let why):
            // Said through the repeat filter: a storm of clients that leave is a few lines.
            let text = "http: \(exchange.request.method) \(exchange.request.path): \(why) before the answer was sent"
            if let line = repeats.say(text, key: "gone: \(why)", at: HTTPServer.monotonic()) { log(line) }
            return true
        }
    }

    /// MHD watches the connection again; the loop is woken to run it, unless
    /// a run follows anyway (`runFollows`). A
    /// connection MHD already completed (the exchange finished) is not touched.
    private func resume(_ exchange: Exchange) {
        guard let connection = exchange.connection else { return }
        hangups?.resumed(connection)
        calls.resume(connection)
        poll?.wakeUp(follows: runFollows)
    }

    /// What the handler left in the reply, taken from it.
    private func takeAnswer(_ exchange: Exchange) -> ExchangeState.Answer {
        switch exchange.reply.take() {
        case nil:
            return .none
        case .whole(let response)?:
            return .whole(response)
        case .stream(let contentType, let stream)?:
            exchange.stream = stream
            exchange.streamType = contentType
            return .stream
        }
    }

    private func queue(_ exchange: Exchange, _ answer: HTTPResponse) -> Bool {
        let queued = exchange.connection.map { calls.queue($0, answer, stopping) } ?? .notQueued
        return said(queued, exchange, answer.status, what: "answer")
    }

    private static let streamHeaders = [("Cache-Control", "no-store")]

    /// A chunked `200` whose body MHD pulls from the exchange (`Exchange.readStream`).
    private func queueStream(_ exchange: Exchange, _ stream: HTTPStream) -> Bool {
        stream.wakes = exchange
        let queued = exchange.connection.map {
            calls.queueStream($0, exchange.streamType, Self.streamHeaders, stopping, exchange)
        } ?? .notQueued
        return said(queued, exchange, 200, what: "stream")
    }

    /// The one log line each answer gets, and whether it was queued.
    private func said(_ queued: MHDCalls.Queued, _ exchange: Exchange, _ status: Int, what: String) -> Bool {
        // The request is read only for a line: a copy of it is a retain and release of each of its fields.
        if queued == .notBuilt {
            let request = exchange.request
            log("http: cannot build the \(what) for \(request.method) \(request.path)")
            return perform(exchange.step { $0.notQueued() }, exchange)
        }
        // A refusal is said through the repeat filter: wrong tokens or garbage from a
        // flood are a few lines a minute with their count, not one a request.
        if status >= 400 {
            let request = exchange.request
            // Keyed by method and status: the path and `doing` are the client's to vary.
            if let said = repeats.say(answerLine(request, status), key: "\(request.method.prefix(16)) \(status)",
                                      at: HTTPServer.monotonic()) {
                if let requests { requests(said, status) } else { log(said) }
            }
        } else if answerLines {
            let line = answerLine(exchange.request, status)
            if let requests { requests(line, status) } else { log(line) }
        }
        guard queued == .queued else {
            log("http: cannot queue the answer to \(exchange.request.method) \(exchange.request.path)")
            return perform(exchange.step { $0.notQueued() }, exchange)
        }
        answered?(status)
        return true
    }

    private func answerLine(_ request: HTTPRequest, _ status: Int) -> String {
        var line = "http: \(request.method) \(request.path) \(status)"
        if let doing = request.doing { line += " doing \(doing.debugDescription)" }
        return line
    }
}
