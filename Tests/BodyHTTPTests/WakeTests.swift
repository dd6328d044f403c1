import Foundation
import Glibc
import Testing
@testable import BodyHTTP
import BodySystem

/// The server's system calls around a resume (issue 21): a wake-up only when
/// no run is sure to follow; and the token checked once, at the head.
@Suite("HTTP server: wake-ups and the token", .serialized)
struct WakeTests {
    /// Whether the server's own descriptor is readable within `wait` ms.
    private func readable(_ h: Harness, wait: Int32 = 0) -> Bool {
        var p = pollfd(fd: h.server.pollDescriptor?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, wait) == 1
    }

    /// A client whose `GET /ears?wait=5` the handler parks.
    private func waitingEars(_ h: Harness) -> Background<Got> {
        let port = h.server.port
        return Background(h) { () -> Got in
            let c = RawClient(port: port)
            c.get("/ears?wait=5")
            return attempt { () throws(ClientError) in try c.answer() }
        }
    }

    /// write(2)s this thread made (/proc/thread-self/io).
    private func writes() throws -> Int {
        let io = open("/proc/thread-self/io", O_RDONLY)
        defer { close(io) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let n = read(io, &bytes, bytes.count)
        let text = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("syscw:") })
        return try #require(Int(line.dropFirst(6).filter { $0 != " " }))
    }

    /// A server with one request parked (the handler keeps its reply), and its client.
    private func parked(willRun: Bool?) throws -> (Harness, Background<Got>, () -> HTTPReply?) {
        var held: HTTPReply?
        let h = try Harness { _, request, reply in if request.path == "/ears" { held = reply } }
        if let willRun { h.server.willRun = { willRun } }
        let client = waitingEars(h)
        #expect(h.drive { held != nil })
        #expect(h.drive(limit: 0.2) { false } == false)  // settled: nothing due
        #expect(!readable(h))
        return (h, client, { held })
    }

    @Test("a resume from outside a run with no run sure to follow makes the server's descriptor readable")
    func resumeFromElsewhereWakes() throws {
        let (h, client, held) = try parked(willRun: false)
        let w0 = try writes(), w1 = try writes()
        held()?.send(.json(200, okBody))
        let w2 = try writes()
        #expect(w2 - w1 == w1 - w0 + 1, "the resume signals the counter once")
        #expect(readable(h), "the loop must be woken to send the answer")
        #expect(h.drive { client.isDone })
        #expect(try client.value?.get().body == okBody)
    }

    @Test("a resume when the owner will run anyway writes nothing; the run it asks for sends the answer")
    func resumeBeforeARunWritesNothing() throws {
        let (h, client, held) = try parked(willRun: true)
        let w0 = try writes(), w1 = try writes()
        held()?.send(.json(200, okBody))
        let w2 = try writes()
        #expect(w2 - w1 == w1 - w0, "the resume wrote \(w2 - w1 - (w1 - w0)) times")
        #expect(!readable(h))
        #expect(h.server.wantsRun && h.server.timeout() == 0)
        #expect(h.drive { client.isDone })
        #expect(try client.value?.get().body == okBody)
    }

    @Test("a resume within a run writes nothing: the run's timeout says another is due")
    func resumeWithinARun() throws {
        var held: HTTPReply?
        var timeoutAfter: Double?
        let h = try Harness { _, request, reply in
            if request.path == "/ears" { held = reply; return }
            held?.send(.json(200, okBody))  // another request's handler answers the parked one
            reply.send(.json(200, okBody))
        }
        let port = h.server.port
        let ears = waitingEars(h)
        #expect(h.drive { held != nil })
        // Its client handed back, so it stays open: its close would be a hang-up, rightly heard.
        let push = Background(h) { () -> (RawClient, Got) in
            let c = RawClient(port: port)
            c.get("/face")
            return (c, attempt { () throws(ClientError) in try c.answer() })
        }
        // Turned by hand: the run in which /face is handled is looked at right
        // after it; poll(2) and a socket's sendmsg(2) are no write(2)s, the counter's signal is.
        let end = Harness.now() + 5
        let w0 = try writes(), w1 = try writes()
        while h.handled.count < 2 && Harness.now() < end {
            _ = readable(h, wait: 100)
            h.server.run()
        }
        let w2 = try writes()
        timeoutAfter = h.server.timeout()
        #expect(w2 - w1 == w1 - w0, "the resume within the run wrote \(w2 - w1 - (w1 - w0)) times")
        #expect(timeoutAfter == 0)
        #expect(h.drive { ears.isDone && push.isDone })
        #expect(try ears.value?.get().body == okBody)
        #expect(try push.value?.1.get().status == 200)
    }

    @Test("the token is checked once, at the head: the request carries the answer")
    func tokenCarried() throws {
        let auth = BearerAuth(token: "wake-token-0123456789")
        var seen: [Bool?] = []
        let h = try Harness(token: auth) { _, request, reply in
            seen.append(request.showedToken)
            reply.send(.json(200, okBody))
        }
        let port = h.server.port
        let client = Background(h) { () -> [Int] in
            let c = RawClient(port: port)
            c.get("/status", headers: "Authorization: Bearer wake-token-0123456789\r\n")
            let a = (try? c.answer().status) ?? 0
            c.get("/status", headers: "Authorization: Bearer wrong\r\n")
            let b = (try? c.answer().status) ?? 0
            return [a, b]
        }
        #expect(h.drive { client.isDone })
        #expect(seen == [true, false])
        let noToken = try Harness { _, request, reply in
            seen.append(request.showedToken)
            reply.send(.json(200, okBody))
        }
        let port2 = noToken.server.port
        let other = Background(noToken) { () -> Int in
            let c = RawClient(port: port2)
            c.get("/status", headers: "Authorization: Bearer wake-token-0123456789\r\n")
            return (try? c.answer().status) ?? 0
        }
        #expect(noToken.drive { other.isDone })
        #expect(seen == [true, false, nil], "a server with no token leaves the check to routing")
    }
}
