import Testing
@testable import BodyCore

@Suite("Oriel's silence turns On Air unread (DESIGN 4, Silence)")
struct SilenceTests {
    @Test("at start the state is unread: Oriel has not said whether On Air is on")
    func start() {
        let body = studio(at: 100)
        #expect(body.state == .atStart)
        #expect(body.state.unreadWords == "Oriel has not said whether On Air is on")
        #expect(body.contact.silent)
        #expect(body.contact.due == nil)
        #expect(body.onAirValue(at: Moment(100)) == "unknown")
    }

    @Test("a body never heard from keeps its start words, and says no silence")
    func neverHeard() {
        var body = studio(at: 100)
        #expect(body.tick(at: Moment(1_000)).isEmpty)
        #expect(body.state.unreadWords == "Oriel has not said whether On Air is on")
    }

    @Test("neither a push nor a poll for exactly 60 s: unread, said once")
    func silenceAtSixty() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true,"phase":"live"}}"#, at: 100)
        #expect(!body.contact.silent)
        #expect(body.contact.due == 160)
        #expect(body.tick(at: Moment(159.999)).isEmpty)
        #expect(body.state == Said.live)
        #expect(body.tick(at: Moment(160)) == silence("Oriel has not been heard from in 60 s"))
        #expect(body.state.on == nil)
        #expect(body.state.unreadWords == "Oriel has not been heard from in 60 s")
        #expect(body.contact.silent)
        #expect(body.tick(at: Moment(200)).isEmpty)
        #expect(body.unreadSince == 160)
    }

    @Test("Oriel's polls are its heartbeat")
    func pollsKeepAlive() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        _ = body.poll(after: 0, at: Moment(150))
        #expect(body.tick(at: Moment(209.999)).isEmpty)
        body.waits(after: 0, at: Moment(209))
        #expect(body.tick(at: Moment(268.999)).isEmpty)
        #expect(body.state == Said.off)
        #expect(body.contact.lastPoll == Moment(209))
        #expect(body.tick(at: Moment(269)) == silence())
    }

    @Test("the configured silence is said in its own words", arguments: [(30.0, "30"), (90.5, "90.5")])
    func configured(silence: Double, words: String) throws {
        var body = studio(BodySettings(name: "studio", silence: silence), at: 100)
        try body.face(#"{"onair":{"on":false}}"#, at: 100)
        #expect(body.tick(at: Moment(100 + silence)) == BodyCoreTests.silence("Oriel has not been heard from in \(words) s"))
    }

    @Test("a push after a silence is heard again, and a new silence is said again")
    func againAfterPush() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        _ = body.tick(at: Moment(160))
        try body.face(#"{"onair":{"on":false}}"#, at: 170)
        #expect(body.state == Said.off)
        #expect(!body.contact.silent)
        #expect(body.tick(at: Moment(230)) == silence())
    }

    @Test("a silence disarms an armed On Air control, whose press would now mean something else")
    func silenceDisarms() throws {
        var body = studio(at: 100)
        try body.face(#"{"onair":{"on":true}}"#, at: 100)
        _ = body.tap(.onair, at: 158)
        #expect(body.onAirValue(at: Moment(158)) == "armed")
        _ = body.tick(at: Moment(160))
        #expect(body.onAirValue(at: Moment(160)) == "unknown")
        #expect(body.tap(.onair, at: 161) == .refused("Oriel has not been heard from in 60 s"))
    }
}

@Suite("The hello's retry schedule (DESIGN 5)")
struct HelloBackoffTests {
    @Test("1 s doubling to 60 s without jitter")
    func doubling() {
        var backoff = HelloBackoff()
        let delays = (0..<9).map { _ in backoff.failed(jitter: 0) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        #expect(backoff.failures == 9)
    }

    @Test("jitter makes a delay up to a quarter longer, never past 60 s")
    func jitter() {
        var backoff = HelloBackoff()
        #expect(backoff.failed(jitter: 1) == 1.25)
        #expect(backoff.failed(jitter: 0.5) == 2.25)
        #expect(backoff.failed(jitter: 7) == 5)
        #expect(backoff.failed(jitter: -3) == 8)
        for _ in 0..<20 { #expect(backoff.failed(jitter: 1) <= 60) }
        #expect(backoff.failed(jitter: 0.99) == 60)
    }

    @Test("a success starts the schedule over")
    func success() {
        var backoff = HelloBackoff()
        _ = backoff.failed(jitter: 0)
        _ = backoff.failed(jitter: 0)
        backoff.succeeded()
        #expect(backoff.failures == 0)
        #expect(backoff.failed(jitter: 0) == 1)
    }
}
