/// One request's life on its connection, from its head to its completion, as
/// a plain value: each event returns the one thing the server must do (after
/// async-http-client's `HTTP1ConnectionStateMachine`). No MHD call in here.
struct ExchangeState: Equatable {
    enum State: Equatable {
        /// The head arrived; the body, if any, is coming in.
        case reading
        /// The body passed the limit at this length: the answer will be 413.
        case overflowing(Int)
        /// The handler has run; its answer is being taken.
        case answering
        /// The handler has not answered yet: the connection is suspended.
        case waiting
        /// A whole answer is queued.
        case queued
        /// A stream is queued; suspended while its producer has nothing new.
        case streaming(suspended: Bool)
        /// The client hung up while suspended (the reply is closed), or MHD
        /// would not take the answer: MHD is to drop the connection when it
        /// calls again.
        case gone
        /// MHD completed the request.
        case finished
    }

    enum Action: Equatable {
        case none
        /// Keep the upload bytes.
        case append
        /// Drop the upload bytes and what was kept (past the limit).
        case discard
        /// Answer MHD "no": it drops the connection.
        case refuse
        /// Call the handler, then take its answer.
        case dispatch
        /// Look at the reply for an answer (after a resume).
        case takeAnswer
        case queue(HTTPResponse)
        case queueStream
        case suspend
        case resume
        /// Close the reply (its owner hears it) and resume, so MHD finishes the connection.
        case closeReplyAndResume
        /// Say that an answer did not reach its client, and why.
        case logGone(String)
    }

    /// What the handler left in the reply.
    enum Answer: Equatable { case none, whole(HTTPResponse), stream }

    private(set) var state: State = .reading
    let maxBody: Int

    /// A body this much past the limit closes the connection instead of being drained.
    static let drainLimit = 1 << 20

    init(maxBody: Int) { self.maxBody = maxBody }

    /// The body is still coming in (its deadline applies).
    var isReadingBody: Bool {
        switch state {
        case .reading, .overflowing: true
        default: false
        }
    }

    var isSuspended: Bool {
        switch state {
        case .waiting, .streaming(suspended: true): true
        default: false
        }
    }

    /// The head arrived. A body framed two ways is answered now, so MHD never
    /// reads it and closes the connection after the answer; so is one too big
    /// that waits for 100 Continue (nothing was sent) or is past the drain
    /// limit. One too big that is already on its way is read and dropped, and
    /// answered at its end, as a chunked one is: closing on unread bytes resets
    /// the connection, and the reset throws away the 413 the client had not
    /// read yet. Anything else waits for the body (answering at the head would
    /// close a kept-alive connection).
    mutating func head(_ framing: Framing, expectsContinue: Bool = false) -> Action {
        switch framing {
        case .refused(let words):
            state = .queued
            var refusal = HTTPResponse.error(400, words)
            refusal.headers.append(("Connection", "close"))
            return .queue(refusal)
        case .length(let length) where length > maxBody && !expectsContinue && length <= ExchangeState.drainLimit:
            state = .overflowing(0)
            return .none
        case .length(let length) where length > maxBody:
            state = .queued
            return .queue(tooLarge(length))
        case .none, .length, .chunked:
            return .none
        }
    }

    /// `count` more body bytes arrived; `have` were kept so far.
    mutating func body(_ count: Int, have: Int) -> Action {
        switch state {
        case .reading where have + count <= maxBody:
            return .append
        case .reading:
            state = .overflowing(have + count)
            return .discard
        case .overflowing(let seen):
            state = .overflowing(seen + count)
            return seen + count > ExchangeState.drainLimit ? .refuse : .discard
        default:
            return .discard
        }
    }

    /// MHD calls with no more body: the request is whole, or it calls again after a resume.
    mutating func ready(stopping: Bool) -> Action {
        switch state {
        case .reading where stopping:
            state = .queued
            return .queue(.error(503, "the body is stopping"))
        case .reading:
            state = .answering
            return .dispatch
        case .overflowing(let seen):
            state = .queued
            return .queue(tooLarge(seen))
        case .answering, .waiting:
            state = .answering
            return .takeAnswer
        case .queued, .streaming, .finished:
            return .none
        case .gone:
            return .refuse
        }
    }

    /// What the reply holds after the handler ran or after a resume.
    mutating func answer(_ answer: Answer) -> Action {
        guard case .answering = state else { return .none }
        switch answer {
        case .none:
            state = .waiting
            return .suspend
        case .whole(let response):
            state = .queued
            return .queue(response)
        case .stream:
            state = .streaming(suspended: false)
            return .queueStream
        }
    }

    /// The stream's producer had nothing to give.
    mutating func streamEmpty() -> Action {
        guard case .streaming(suspended: false) = state else { return .none }
        state = .streaming(suspended: true)
        return .suspend
    }

    /// The reply was answered, or its stream was offered or finished, from elsewhere on the loop.
    mutating func wake() -> Action {
        switch state {
        case .waiting:
            state = .answering
            return .resume
        case .streaming(suspended: true):
            state = .streaming(suspended: false)
            return .resume
        default:
            return .none
        }
    }

    /// MHD would not take the answer (the server said so): it drops the
    /// connection, and nothing more is said when it completes the request.
    mutating func notQueued() -> Action {
        state = .gone
        return .refuse
    }

    /// The kernel says the client hung up. Only a suspended connection needs
    /// this: MHD does not watch its socket; otherwise MHD hears it itself.
    mutating func hungUp() -> Action {
        guard isSuspended else { return .none }
        state = .gone
        return .closeReplyAndResume
    }

    /// The server stops: MHD must not be stopped with a suspended connection,
    /// so it resumes one as a wake-up would.
    mutating func stopping() -> Action { wake() }

    /// MHD is done with the request: `ok` when the answer went out whole.
    mutating func completed(ok: Bool, daemonShutdown: Bool) -> Action {
        let was = state
        state = .finished
        guard !ok, was == .queued else { return .none }
        return .logGone(daemonShutdown ? "the server stopped" : "the client went away")
    }

    private func tooLarge(_ length: Int) -> HTTPResponse {
        .error(413, "the request body is \(length) bytes; the limit is \(maxBody)")
    }
}
