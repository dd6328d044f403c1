import Testing
@testable import BodyCore

@Suite("Whether Oriel's long poll is answered now or parked is the rules' decision (issue 22)")
struct PollVerdictTests {
    @Test("nothing after N and a wait: parked until the wait's end, acknowledging up to N")
    func parks() throws {
        var body = studio(at: 100)
        #expect(body.poll(after: 0, wait: 25, at: Moment(100)) == .park(until: 125))
    }

    @Test("no wait: answered now, even with nothing to take")
    func noWait() throws {
        var body = studio(at: 100)
        #expect(body.poll(after: 0, wait: 0, at: Moment(100)) == .answer([]))
    }

    @Test("a request already waiting: answered now with it; a poll past it parks")
    func news() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102, id: "r1")
        #expect(body.hasNews(after: 0))
        guard case .answer(let items) = body.poll(after: 0, wait: 25, at: Moment(102.1)) else {
            Issue.record("a poll with news waiting was parked")
            return
        }
        #expect(items.map(\.request.id) == ["r1"])
        let seq = try #require(items.first?.seq)
        #expect(!body.hasNews(after: seq))
        #expect(body.poll(after: seq, wait: 25, at: Moment(102.2)) == .park(until: 127.2))
        // Parked at or past the item's seq: the item was taken, and is gone.
        #expect(body.outbox.items.isEmpty)
    }

    @Test("a cursor ahead of every seq and past 10^15: refused in words, the request waiting untouched, Oriel not heard by it")
    func refused() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.tap(.onair, at: 101)
        _ = body.tap(.onair, at: 102, id: "r1")
        let before = body
        guard case .refuse(let words) = body.poll(after: UInt64.max, wait: 25, at: Moment(102.1)) else {
            Issue.record("a cursor of 2^64 - 1 was taken")
            return
        }
        #expect(words.hasPrefix("after must be a seq this body handed out"))
        #expect(body == before, "a refused poll changes nothing")
        guard case .answer(let items) = body.poll(after: 0, wait: 25, at: Moment(102.2)) else {
            Issue.record("the request was not there after the refusal")
            return
        }
        #expect(items.map(\.request.id) == ["r1"])
    }
}
