import Testing
@testable import BodyHTTP

@Suite("stream pacing")
struct HTTPStreamTests {
    func read(_ s: HTTPStream, max: Int = 4) -> (HTTPStream.Read, [UInt8]) {
        var buf = [UInt8](repeating: 0, count: max)
        let r = buf.withUnsafeMutableBytes { s.read(into: $0) }
        if case .bytes(let n) = r { return (r, Array(buf[0..<n])) }
        return (r, [])
    }

    @Test("nothing offered yet means later")
    func empty() {
        #expect(read(HTTPStream()).0 == .later)
    }

    @Test("a newer offer replaces a chunk not yet started")
    func replaces() {
        let s = HTTPStream()
        s.offer([1, 1])
        s.offer([2, 2])
        #expect(read(s).1 == [2, 2])
        #expect(read(s).0 == .later)
    }

    @Test("a chunk in flight finishes; one waits behind it, replaced by newer ones")
    func inFlight() {
        let s = HTTPStream()
        s.offer([1, 1, 1, 1, 1, 1])
        #expect(read(s).1 == [1, 1, 1, 1])
        s.offer([2])
        s.offer([3])
        #expect(read(s).1 == [1, 1])
        #expect(read(s).1 == [3])
        #expect(read(s).0 == .later)
    }

    @Test("finish ends after what was offered has gone out")
    func finish() {
        let s = HTTPStream()
        let woken = Woken()
        s.wakes = woken
        s.offer([7])
        s.finish()
        s.offer([8])
        #expect(woken.count == 2)
        #expect(read(s).1 == [7])
        #expect(read(s).0 == .end)
    }

    @Test("onClose runs once")
    func closeOnce() {
        let s = HTTPStream()
        var closed = 0
        s.onClose = { closed += 1 }
        s.close()
        s.close()
        #expect(closed == 1)
        #expect(!s.isOpen)
    }
}

@Suite("reply without a connection")
struct DetachedReplyTests {
    @Test("a handler can be tested with a bare reply; the first answer wins")
    func firstWins() {
        let reply = HTTPReply()
        #expect(!reply.isSent)
        reply.send(.error(409, "the preview is not running"))
        reply.send(.json(200, []))
        #expect(reply.isSent)
        #expect(reply.response?.status == 409)
    }

    @Test("a stream offered to an answered reply is closed at once")
    func streamAfterSend() {
        let reply = HTTPReply()
        reply.send(.json(200, []))
        let s = HTTPStream()
        var closed = false
        s.onClose = { closed = true }
        reply.stream(contentType: "text/plain", s)
        #expect(closed)
        #expect(reply.response?.status == 200)
    }
}

/// Counts the wake-ups a stream gives its exchange.
final class Woken: Waking {
    var count = 0
    func wake() { count += 1 }
}
