import Foundation
import Glibc
import Testing
@testable import BodyHTTP
import BodySystem
import BodyTestSupport

/// The head deadline and the repeat filter as values, at literal times.
@Suite("what a connection may take, at literal times")
struct LimitRuleTests {
    final class Clock: @unchecked Sendable { var now = 100.0 }

    /// `n` connected pairs, their ends in a row (0-1, 2-3, ...): a connection
    /// the watch opens on each even one. The caller closes them.
    func socketPairs(_ n: Int) throws -> [Int32] {
        var pairs: [Int32] = []
        for _ in 0..<n {
            var pair: [Int32] = [0, 0]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
            pairs += pair
        }
        return pairs
    }

    @Test("the first head waiting follows every change: a trust, a close, a head, the next wait")
    func firstHeadWaiting() throws {
        let epoll = try Epoll()
        defer { epoll.close() }
        let clock = Clock()
        let watch = HangupWatch(epoll: epoll, clock: { clock.now })
        let pairs = try socketPairs(3)
        defer { for fd in pairs { close(fd) } }
        let a = OpaquePointer(bitPattern: 1)!, b = OpaquePointer(bitPattern: 2)!, c = OpaquePointer(bitPattern: 3)!
        watch.opened(a, fd: pairs[0])
        clock.now = 101
        watch.opened(b, fd: pairs[2])
        clock.now = 102
        watch.opened(c, fd: pairs[4])
        #expect(watch.firstHeadWaiting == 100)
        watch.trust(a)
        #expect(watch.firstHeadWaiting == 101)
        watch.closed(b)
        #expect(watch.firstHeadWaiting == 102)
        watch.headArrived(c)
        #expect(watch.firstHeadWaiting == nil && watch.headsWaiting.isEmpty)
        clock.now = 110
        watch.awaitHead(c)
        #expect(watch.firstHeadWaiting == 110)
        watch.headArrived(c, trusted: true)
        watch.awaitHead(c)
        #expect(watch.firstHeadWaiting == nil, "a trusted connection has no head deadline")
    }

    @Test("an untrusted head is due limit seconds after it began to wait; a trusted one never; a whole head ends the wait")
    func headDeadline() throws {
        let epoll = try Epoll()
        defer { epoll.close() }
        let clock = Clock()
        let watch = HangupWatch(epoll: epoll, clock: { clock.now })
        let pairs = try socketPairs(3)
        defer { for fd in pairs { close(fd) } }
        let stranger = OpaquePointer(bitPattern: 1)!, oriel = OpaquePointer(bitPattern: 2)!, done = OpaquePointer(bitPattern: 3)!
        watch.opened(stranger, fd: pairs[0])
        watch.opened(oriel, fd: pairs[2])
        watch.opened(done, fd: pairs[4])
        watch.trust(oriel)
        watch.headArrived(done)
        #expect(watch.firstHeadWaiting == 100, "the stranger's: Oriel is trusted, and done's head came")
        #expect(watch.nextDeadline(limit: 5) == 105)
        clock.now = 104.999
        #expect(watch.overdue(limit: 5).isEmpty)
        clock.now = 105
        #expect(watch.overdue(limit: 5).map(\.rawValue) == [pairs[0]])
        #expect(watch.nextDeadline(limit: 5) == nil)
        #expect(watch.firstHeadWaiting == nil)
        clock.now = 1000
        #expect(watch.overdue(limit: 5).isEmpty, "Oriel's kept-alive connection is never cut off")
        // After its answer the stranger's next head has a deadline of its own, from then.
        watch.awaitHead(done)
        #expect(watch.nextDeadline(limit: 5) == 1005)
    }
}

/// Server-side connections of `port` from 127.0.0.`host`.
func heldSockets(port: UInt16, from host: UInt8) -> Int {
    guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return -1 }
    let local = String(format: ":%04X", port)
    let remote = String(format: "%02X00007F:", host)  // 127.0.0.host, little-endian hex
    return table.split(separator: "\n").dropFirst().filter { row in
        let f = row.split(separator: " ")
        return f.count > 3 && f[1].hasSuffix(local) && f[2].hasPrefix(remote) && ["01", "08", "09"].contains(f[3])
    }.count
}

@Suite("HTTP server: Oriel gets through", .serialized)
struct OrielGetsThroughTests {
    static func trusted(_ r: HTTPRequest) -> Bool { r.headers["authorization"] == "Bearer good" }

    @Test("a head sent a byte at a time is cut off at its deadline; a stranger's idle connection too; Oriel's stays")
    func slowHead() throws {
        var limits = HTTPLimits()
        limits.headDeadline = 1
        let h = try Harness(limits: limits, trusts: Self.trusted) { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        let trickle = Background(h) { () -> Double in
            let c = RawClient(port: port, from: 2)
            let start = monotonicNow()
            c.send("GET /status HTTP/1.1\r\n")
            for _ in 0..<20 {  // a byte every 0.25 s: never idle, never whole
                usleep(250_000)
                var byte: UInt8 = 0
                if recv(c.fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0 { break }  // the server closed it
                if !c.send([UInt8(ascii: "X")]) { break }
            }
            return monotonicNow() - start
        }
        let idle = Background(h) { () -> [Int] in
            let oriel = RawClient(port: port, from: 3), stranger = RawClient(port: port, from: 4)
            oriel.get("/status", headers: "Authorization: Bearer good\r\n")
            stranger.get("/status")
            let first = [(try? oriel.answer().status) ?? 0, (try? stranger.answer().status) ?? 0]
            usleep(2_000_000)  // past the deadline, both idle
            oriel.get("/status", headers: "Authorization: Bearer good\r\n")
            stranger.get("/status")
            return first + [(try? oriel.answer().status) ?? 0, (try? stranger.answer().status) ?? 0]
        }
        #expect(h.drive(limit: 10) { trickle.isDone && idle.isDone })
        let took = try #require(trickle.value)
        #expect(took >= 0.9 && took < 3, "the trickled head was cut off after \(took) s")
        #expect(idle.value == [200, 200, 200, 0], "Oriel's kept-alive connection answers again; the stranger's was closed")
    }

    @Test("one address gets at most 16 connections; another still gets its answer")
    func perAddress() throws {
        let h = try Harness { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        var fds: [Int32] = []
        for _ in 0..<40 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            bindSource(fd, host: 5)
            connectLoopback(fd, port: port)
            fds.append(fd)
        }
        defer { for fd in fds { close(fd) } }
        #expect(h.drive(limit: 3) { heldSockets(port: port, from: 5) <= 16 })
        let probe = Background(h) { () -> Got in
            let c = RawClient(port: port, from: 6)
            c.get("/status")
            return attempt { () throws(ClientError) in try c.answer() }
        }
        #expect(h.drive(limit: 5) { probe.isDone })
        #expect(try probe.value?.get().status == 200)
        #expect(heldSockets(port: port, from: 5) <= 16)
        #expect(h.logs.filter { $0.contains("libmicrohttpd") }.count <= 3, "the refusals are said once, not 24 times: \(h.logs)")
    }

    @Test("a body sent a byte a second is cut off at its deadline, Oriel's too; a waiting long poll keeps its wait")
    func trickledBody() throws {
        var limits = HTTPLimits()
        limits.bodyDeadline = 1
        limits.headDeadline = 1
        let h = try Harness(limits: limits, trusts: Self.trusted) { h, request, reply in
            if request.path == "/ears" {
                h.after(2.5) { reply.send(.json(200, okBody)) }  // a long poll longer than both deadlines
            } else {
                reply.send(.json(200, okBody))
            }
        }
        let port = h.server.port
        func trickle(from host: UInt8, token: Bool) -> Background<Double> {
            Background(h) { () -> Double in
                let c = RawClient(port: port, from: host)
                let start = monotonicNow()
                c.send("POST /face HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n"
                       + (token ? "Authorization: Bearer good\r\n" : "") + "\r\n")
                for _ in 0..<20 {  // a byte every 0.25 s
                    usleep(250_000)
                    var byte: UInt8 = 0
                    if recv(c.fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0 { break }  // the server closed it
                    if !c.send([UInt8(ascii: "x")]) { break }
                }
                return monotonicNow() - start
            }
        }
        let stranger = trickle(from: 8, token: false), oriel = trickle(from: 9, token: true)
        let poll = Background(h) { () -> (Int, Double) in
            let c = RawClient(port: port, from: 10)
            let start = monotonicNow()
            c.get("/ears?after=0&wait=2.5", headers: "Authorization: Bearer good\r\n")
            let status = (try? c.answer().status) ?? 0
            return (status, monotonicNow() - start)
        }
        #expect(h.drive(limit: 10) { stranger.isDone && oriel.isDone && poll.isDone })
        for (who, took) in [("a stranger's", stranger.value), ("Oriel's", oriel.value)] {
            let took = try #require(took)
            #expect(took >= 0.9 && took < 3, "\(who) trickled body was cut off after \(took) s")
        }
        let (status, took) = try #require(poll.value)
        #expect(status == 200)
        #expect(took >= 2.4 && took < 4, "the long poll was answered after \(took) s")
        #expect(h.handled.filter { $0.path == "/face" }.isEmpty, "no trickled push reached the handler")
        #expect(h.logs.contains { $0.contains("the body was not whole 1.0 s after the head") }, "\(h.logs)")
    }

    @Test("at the connection limit the oldest connections that showed no token go, and Oriel's push gets in")
    func nearLimit() throws {
        var limits = HTTPLimits()
        limits.headDeadline = 60  // only making room can let Oriel in within its 5 s
        let h = try Harness(limits: limits, trusts: Self.trusted) { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        let hosts: [UInt8] = Array(11...18)  // 8 addresses x 16 = the limit of 128
        var fds: [Int32] = []
        for host in hosts {
            for _ in 0..<limits.perAddress {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                bindSource(fd, host: host)
                connectLoopback(fd, port: port)
                fds.append(fd)
            }
        }
        defer { for fd in fds { close(fd) } }
        let most = limits.connections - limits.reserve
        // Still open from the client's side: no end of stream to read (/proc/net/tcp reads short).
        func held() -> Int {
            fds.filter { fd in
                var byte: UInt8 = 0
                return recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) < 0 && errno == EAGAIN
            }.count
        }
        #expect(h.drive(limit: 5) { h.server.openConnections == most })
        let oriel = Background(h) { () -> (Got, Double) in
            let c = RawClient(port: port, from: 19)
            let start = monotonicNow()
            c.send("POST /face HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\nContent-Length: 2\r\n\r\n{}")
            let got = attempt { () throws(ClientError) in try c.answer() }
            return (got, monotonicNow() - start)
        }
        #expect(h.drive(limit: 6) { oriel.isDone })
        let (got, took) = try #require(oriel.value)
        #expect(try got.get().status == 200)
        #expect(took < 1, "Oriel's push took \(took) s")
        #expect(h.drive(limit: 3) { held() <= most }, "held \(held())")
        #expect(held() >= most - 1, "only as many as needed were closed: held \(held())")
        #expect(h.logs.filter { $0.contains("to make room") }.count == 1, "said once: \(h.logs)")
    }
}
