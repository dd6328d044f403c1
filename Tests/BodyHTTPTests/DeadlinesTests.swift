import Testing
@testable import BodyHTTP

/// The head and body deadlines as a value on the caller's clock: the times
/// are literals, no socket and no sleep.
@Suite("the head and body deadlines")
struct DeadlinesTests {
    @Test("a wait begun at 100 with 5 s: waiting until 105, cut off from 105 on",
          arguments: [(100.0, Deadline.Verdict.wait(until: 105)), (104.999, .wait(until: 105)),
                      (105, .cutOff), (105.001, .cutOff), (400, .cutOff)])
    func verdict(now: Double, expected: Deadline.Verdict) {
        #expect(Deadline(seconds: 5).verdict(since: 100, at: now) == expected)
    }

    @Test("of several waits, those past due at the time given, in the order given")
    func late() {
        let deadline = Deadline(seconds: 5)
        let waits = [("a", 100.0), ("b", 101), ("c", 99), ("d", 104)]
        #expect(deadline.late(waits, at: 105) == ["a", "c"])
        #expect(deadline.late(waits, at: 104.5) == ["c"])
        #expect(deadline.late(waits, at: 109) == ["a", "b", "c", "d"])
        #expect(deadline.late([(String, Double)](), at: 1000).isEmpty)
    }

    @Test("the next one due is the earliest start plus the seconds; none when nothing waits")
    func next() {
        #expect(Deadline(seconds: 5).next([103, 101, 102]) == 106)
        #expect(Deadline(seconds: 5).next([Double]()) == nil)
    }

    @Test("the next one due is the earlier of the first head's and the first body's")
    func nextFromFirst() {
        var limits = HTTPLimits()
        limits.headDeadline = 5
        limits.bodyDeadline = 10
        let rule = Deadlines(limits)
        #expect(rule.next(firstHead: 100, firstBody: 98) == 105)
        #expect(rule.next(firstHead: 100, firstBody: 94) == 104)
        #expect(rule.next(firstHead: 100, firstBody: nil) == 105)
        #expect(rule.next(firstHead: nil, firstBody: 100) == 110)
        #expect(rule.next(firstHead: nil, firstBody: nil) == nil)
    }

    @Test("heads and bodies each have their own seconds (head 5, body 10)")
    func both() {
        var limits = HTTPLimits()
        limits.headDeadline = 5
        limits.bodyDeadline = 10
        let rule = Deadlines(limits)
        let at106 = rule.cuts(heads: [(1, 100.0)], bodies: [("push", 100.0)], at: 106)
        #expect(at106.heads == [1] && at106.bodies.isEmpty)
        let at110 = rule.cuts(heads: [(1, 100.0)], bodies: [("push", 100.0)], at: 110)
        #expect(at110.heads == [1] && at110.bodies == ["push"])
        #expect(rule.next(firstHead: 100, firstBody: 92) == 102)
        #expect(rule.next(firstHead: 100, firstBody: 97) == 105)
    }

    @Test("the timeout is the seconds to the next due, never below 0",
          arguments: [(100.0, 5.0 as Double?), (104, 1), (105, 0), (120, 0)])
    func timeout(now: Double, expected: Double?) {
        let rule = Deadlines(HTTPLimits())  // 5 s each
        #expect(rule.timeout(firstHead: 100, firstBody: nil, at: now) == expected)
        #expect(rule.timeout(firstHead: nil, firstBody: nil, at: now) == nil)
    }
}
