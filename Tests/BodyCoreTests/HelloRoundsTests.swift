import Testing
@testable import BodyCore

@Suite("The hello's rounds: sent, retried with backoff, said once per change (DESIGN 5)")
struct HelloRoundsTests {
    let a = "http://studio.local:8790", b = "http://10.0.0.7:8790"

    @Test("a round begins once: a second begin while in flight or retrying sends nothing")
    func beginsOnce() {
        var hello = HelloRounds(oriel: "http://oriel:8080/hello")
        #expect(hello.begin(url: a) == [.send(url: a)])
        #expect(hello.begin(url: a) == [])
        #expect(hello.done(status: nil, failure: "hello: Oriel refused", carried: a, url: a, jitter: 0)
                == [.counted(answered: false), .log("hello: Oriel refused; trying again, backing off from 1 s to 60 s", warning: true),
                    .retry(after: 1)])
        #expect(hello.begin(url: a) == [])
    }

    @Test("failures back off 1, 2, 4 s and the same failure is said once; an answer is said once")
    func backoff() {
        var hello = HelloRounds(oriel: "http://oriel:8080/hello")
        _ = hello.begin(url: a)
        _ = hello.done(status: nil, failure: "down", carried: a, url: a, jitter: 0)
        #expect(hello.retryDue(url: a) == [.send(url: a)])
        #expect(hello.done(status: nil, failure: "down", carried: a, url: a, jitter: 0) == [.counted(answered: false), .retry(after: 2)])
        _ = hello.retryDue(url: a)
        #expect(hello.done(status: nil, failure: "down", carried: a, url: a, jitter: 1) == [.counted(answered: false), .retry(after: 5)])
        _ = hello.retryDue(url: a)
        #expect(hello.done(status: 204, carried: a, url: a, jitter: 0)
                == [.counted(answered: true), .log("hello: Oriel at http://oriel:8080/hello answered 204", warning: false)])
        _ = hello.begin(url: a)
        #expect(hello.done(status: 204, carried: a, url: a, jitter: 0) == [.counted(answered: true)])
    }

    @Test("Oriel calling while the hello backs off cancels the retry and sends now; otherwise nothing")
    func orielCalled() {
        var hello = HelloRounds(oriel: "o")
        #expect(hello.orielCalled(url: a) == [])
        _ = hello.begin(url: a)
        #expect(hello.orielCalled(url: a) == [])
        _ = hello.done(status: nil, failure: "down", carried: a, url: a, jitter: 0)
        #expect(hello.orielCalled(url: a) == [.cancelRetry, .send(url: a)])
        #expect(hello.retryDue(url: a) == [])
    }

    @Test("a new URL: a hello at once when idle, after the answer when in flight, none before any answer")
    func urlChanged() {
        var hello = HelloRounds(oriel: "o")
        #expect(hello.urlChanged(to: b) == [])
        _ = hello.begin(url: a)
        #expect(hello.urlChanged(to: b) == [])
        #expect(hello.done(status: 200, carried: a, url: b, jitter: 0)
                == [.counted(answered: true), .log("hello: Oriel at o answered 200", warning: false), .send(url: b)])
        _ = hello.done(status: 200, carried: b, url: b, jitter: 0)
        #expect(hello.urlChanged(to: b) == [])
        #expect(hello.urlChanged(to: a) == [.send(url: a)])
    }
}
