import Testing
@testable import BodyHTTP

/// The exchange's life as a table: from a state reached by a few events, one
/// more event, and the action and state it gives. No socket, no MHD.
@Suite("exchange state machine")
struct ExchangeStateTests {
    enum Event: CustomStringConvertible {
        case head(Framing, expectsContinue: Bool = false), body(Int, have: Int), ready(stopping: Bool), answer(ExchangeState.Answer)
        case streamEmpty, wake, hungUp, notQueued, stopping, completed(ok: Bool)

        var description: String {
            switch self {
            case .head(let f, let c): c ? "head(\(f), Expect: 100-continue)" : "head(\(f))"
            case .body(let n, let have): "body(\(n), have \(have))"
            case .ready(let s): "ready(stopping: \(s))"
            case .answer(let a): "answer(\(a))"
            case .streamEmpty: "streamEmpty"
            case .wake: "wake"
            case .hungUp: "hungUp"
            case .notQueued: "notQueued"
            case .stopping: "stopping"
            case .completed(let ok): "completed(ok: \(ok))"
            }
        }

        func apply(to s: inout ExchangeState) -> ExchangeState.Action {
            switch self {
            case .head(let f, let c): s.head(f, expectsContinue: c)
            case .body(let n, let have): s.body(n, have: have)
            case .ready(let stopping): s.ready(stopping: stopping)
            case .answer(let a): s.answer(a)
            case .streamEmpty: s.streamEmpty()
            case .wake: s.wake()
            case .hungUp: s.hungUp()
            case .notQueued: s.notQueued()
            case .stopping: s.stopping()
            case .completed(let ok): s.completed(ok: ok, daemonShutdown: false)
            }
        }
    }

    struct Row: CustomTestStringConvertible, Sendable {
        let before: [Event]
        let event: Event
        let action: ExchangeState.Action
        let after: ExchangeState.State
        var testDescription: String { "\(before) then \(event) -> \(action)" }
    }

    static let ok = HTTPResponse.json(200, Array("{}".utf8))
    static let refusal = HTTPResponse(status: 400, contentType: "application/json",
                                      body: HTTPResponse.errorBody("framed twice"), headers: [("Connection", "close")])
    static let dispatched: [Event] = [.head(.none), .ready(stopping: false)]
    static let waiting: [Event] = dispatched + [.answer(.none)]
    static let streaming: [Event] = dispatched + [.answer(.stream)]
    static let streamIdle: [Event] = streaming + [.streamEmpty]

    static let rows: [Row] = [
        // The head and the body.
        Row(before: [], event: .head(.none), action: .none, after: .reading),
        Row(before: [], event: .head(.length(10)), action: .none, after: .reading),
        // Too big and on its way: read and dropped, answered at its end (closing on unread bytes resets the 413).
        Row(before: [], event: .head(.length(11)), action: .none, after: .overflowing(0)),
        Row(before: [.head(.length(11))], event: .body(11, have: 0), action: .discard, after: .overflowing(11)),
        Row(before: [.head(.length(11)), .body(11, have: 0)], event: .ready(stopping: false),
            action: .queue(.error(413, "the request body is 11 bytes; the limit is 10")), after: .queued),
        // Too big and waiting for 100 Continue, or past the drain limit: answered at the head.
        Row(before: [], event: .head(.length(11), expectsContinue: true),
            action: .queue(.error(413, "the request body is 11 bytes; the limit is 10")), after: .queued),
        Row(before: [], event: .head(.length(ExchangeState.drainLimit + 1)),
            action: .queue(.error(413, "the request body is \(ExchangeState.drainLimit + 1) bytes; the limit is 10")), after: .queued),
        Row(before: [], event: .head(.length(10), expectsContinue: true), action: .none, after: .reading),
        Row(before: [], event: .head(.chunked), action: .none, after: .reading),
        // Framed two ways: refused at the head, closed after, the handler never called.
        Row(before: [], event: .head(.refused("framed twice")), action: .queue(refusal), after: .queued),
        Row(before: [.head(.refused("framed twice"))], event: .ready(stopping: false), action: .none, after: .queued),
        Row(before: [.head(.refused("framed twice"))], event: .body(4, have: 0), action: .discard, after: .queued),
        Row(before: [.head(.none)], event: .body(4, have: 6), action: .append, after: .reading),
        Row(before: [.head(.none)], event: .body(5, have: 6), action: .discard, after: .overflowing(11)),
        Row(before: [.head(.none), .body(5, have: 6)], event: .body(ExchangeState.drainLimit, have: 0), action: .refuse,
            after: .overflowing(11 + ExchangeState.drainLimit)),
        Row(before: [.head(.none), .body(5, have: 6)], event: .ready(stopping: false),
            action: .queue(.error(413, "the request body is 11 bytes; the limit is 10")), after: .queued),
        Row(before: [.head(.none)], event: .ready(stopping: true), action: .queue(.error(503, "the body is stopping")), after: .queued),
        // The handler's answer.
        Row(before: [.head(.none)], event: .ready(stopping: false), action: .dispatch, after: .answering),
        Row(before: dispatched, event: .answer(.whole(ok)), action: .queue(ok), after: .queued),
        Row(before: dispatched, event: .answer(.none), action: .suspend, after: .waiting),
        Row(before: dispatched, event: .answer(.stream), action: .queueStream, after: .streaming(suspended: false)),
        // A later answer resumes; MHD calls again and the answer is taken.
        Row(before: waiting, event: .wake, action: .resume, after: .answering),
        Row(before: waiting + [.wake], event: .ready(stopping: false), action: .takeAnswer, after: .answering),
        Row(before: waiting + [.wake, .ready(stopping: false)], event: .answer(.whole(ok)), action: .queue(ok), after: .queued),
        Row(before: dispatched + [.answer(.whole(ok))], event: .wake, action: .none, after: .queued),
        Row(before: dispatched + [.answer(.whole(ok))], event: .ready(stopping: false), action: .none, after: .queued),
        // A stream suspends when its producer has nothing and resumes on an offer.
        Row(before: streaming, event: .streamEmpty, action: .suspend, after: .streaming(suspended: true)),
        Row(before: streamIdle, event: .streamEmpty, action: .none, after: .streaming(suspended: true)),
        Row(before: streamIdle, event: .wake, action: .resume, after: .streaming(suspended: false)),
        Row(before: streaming, event: .wake, action: .none, after: .streaming(suspended: false)),
        // A client that hangs up while suspended: the reply closes, MHD drops the connection.
        Row(before: waiting, event: .hungUp, action: .closeReplyAndResume, after: .gone),
        Row(before: streamIdle, event: .hungUp, action: .closeReplyAndResume, after: .gone),
        Row(before: streaming, event: .hungUp, action: .none, after: .streaming(suspended: false)),
        Row(before: [.head(.none)], event: .hungUp, action: .none, after: .reading),
        Row(before: waiting + [.hungUp], event: .ready(stopping: false), action: .refuse, after: .gone),
        Row(before: waiting + [.hungUp], event: .wake, action: .none, after: .gone),
        Row(before: waiting + [.hungUp], event: .completed(ok: false), action: .none, after: .finished),
        // An answer MHD would not take: the connection is dropped, and its completion says nothing more.
        Row(before: dispatched + [.answer(.whole(ok))], event: .notQueued, action: .refuse, after: .gone),
        Row(before: streaming, event: .notQueued, action: .refuse, after: .gone),
        Row(before: dispatched + [.answer(.whole(ok)), .notQueued], event: .completed(ok: false),
            action: .none, after: .finished),
        // Stopping resumes what is suspended, once.
        Row(before: waiting, event: .stopping, action: .resume, after: .answering),
        Row(before: streamIdle, event: .stopping, action: .resume, after: .streaming(suspended: false)),
        Row(before: dispatched + [.answer(.whole(ok))], event: .stopping, action: .none, after: .queued),
        // Completion: only a whole answer that did not go out is worth a line.
        Row(before: dispatched + [.answer(.whole(ok))], event: .completed(ok: false),
            action: .logGone("the client went away"), after: .finished),
        Row(before: dispatched + [.answer(.whole(ok))], event: .completed(ok: true), action: .none, after: .finished),
        Row(before: streaming, event: .completed(ok: false), action: .none, after: .finished),
    ]

    @Test("each event from each state gives one action", arguments: rows)
    func table(_ row: Row) {
        var s = ExchangeState(maxBody: 10)
        for e in row.before { _ = e.apply(to: &s) }
        #expect(row.event.apply(to: &s) == row.action)
        #expect(s.state == row.after)
    }

    @Test("a connection is suspended exactly while the state says so")
    func suspendedFollowsTheState() {
        var s = ExchangeState(maxBody: 10)
        for e in Self.waiting { _ = e.apply(to: &s) }
        #expect(s.isSuspended)
        _ = s.wake()
        #expect(!s.isSuspended)
        _ = s.ready(stopping: false)
        _ = s.answer(.stream)
        #expect(!s.isSuspended)
        _ = s.streamEmpty()
        #expect(s.isSuspended)
        _ = s.completed(ok: true, daemonShutdown: false)
        #expect(!s.isSuspended)
    }
}
