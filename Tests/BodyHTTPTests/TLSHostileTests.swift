import Foundation
import Glibc
import Testing
@testable import BodyHTTP
import BodyTLS
import BodyTestSupport

/// A hostile TLS client against the server with TLS on (issue 36): records
/// longer than TLS allows, a second ClientHello on one connection (the door a
/// renegotiation would use; TLS 1.3 has none), and a real ClientHello trickled
/// a byte at a time. Each is closed, the last at the head deadline, and Oriel's
/// pinned push still gets through. Judged by what the socket does, not by words.
@Suite("HTTPS: a hostile TLS client does not keep Oriel out", .serialized)
struct TLSHostileTests {
    static let push = #"{"onair":{"on":true,"phase":"live"}}"#

    /// A real ClientHello record (TLS 1.3, from `openssl s_client`), caught on a listener of our own.
    static func clientHello() throws -> [UInt8] {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        let port = try #require(bindLoopback(listener, listen: 1))
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        client.arguments = ["s_client", "-connect", "127.0.0.1:\(port)", "-tls1_3", "-servername", "localhost"]
        client.standardInput = FileHandle.nullDevice
        client.standardOutput = FileHandle.nullDevice
        client.standardError = FileHandle.nullDevice
        try client.run()
        // SIGKILL: the child inherits the test runner's signal mask, where SIGTERM may be blocked.
        defer { kill(client.processIdentifier, SIGKILL); client.waitForExit() }
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let fd = accept(listener, nil, nil)
        try #require(fd >= 0, "openssl s_client did not connect")
        defer { close(fd) }
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var record: [UInt8] = []
        func readUp(to n: Int) {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while record.count < n, case let got = recv(fd, &chunk, min(chunk.count, n - record.count), 0), got > 0 {
                record += chunk[..<got]
            }
        }
        readUp(to: 5)
        try #require(record.count == 5 && record[0] == 0x16, "not a handshake record: \(record)")
        readUp(to: 5 + (Int(record[3]) << 8 | Int(record[4])))
        return record
    }

    /// True once the server closed `fd` (what it sent before is read and dropped).
    static func closedByServer(_ fd: Int32) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if got == 0 || (got < 0 && errno == ECONNRESET) { return true }
            if got < 0 { return false }
        }
    }

    /// Whether the server's first bytes on `fd` are a TLS handshake record (its ServerHello).
    static func answeredHello(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 1 && byte == 0x16
    }

    static func connection(to port: UInt16, from host: UInt8, sending bytes: [UInt8]) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        bindSource(fd, host: host)
        connectLoopback(fd, port: port)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return fd
    }

    /// The server with TLS on, its identity's folder removed with it.
    final class Served {
        let h: Harness, identity: TLSIdentity, dir: String
        var port: UInt16 { h.server.port }

        init(headDeadline: Double) throws {
            (identity, dir) = try TLSFloodTests.identity()
            var limits = HTTPLimits()
            limits.headDeadline = headDeadline
            h = try Harness(limits: limits, tls: HTTPTLS(key: identity.key, certificate: identity.certificate),
                            trusts: OrielGetsThroughTests.trusted) { _, _, reply in reply.send(.json(200, okBody)) }
        }

        deinit { try? FileManager.default.removeItem(atPath: dir) }

        /// Oriel's pinned push from 127.0.0.`host`, on a thread of its own while
        /// the server is driven: its status and curl's words, nil when it never ended.
        func orielGetsThrough(from host: UInt8) -> (status: Int, err: String)? {
            let (port, identity) = (port, identity)
            let oriel = Background(h) {
                let got = TLSFloodTests.oriel(port: port, host: host, identity: identity, path: "/face", push: TLSHostileTests.push)
                return (got.status, got.err)
            }
            return h.drive(limit: 15) { oriel.isDone } ? oriel.value : nil
        }
    }

    @Test("records longer than TLS allows (a hello's and application data's) are closed at once; Oriel's push gets through")
    func hugeRecords() throws {
        let s = try Served(headDeadline: 60)  // only the refusal can close them in time
        let (h, port) = (s.h, s.port)
        let junk = [UInt8](repeating: 0x41, count: 4096)
        // 0xFFFF bytes promised: past TLS's 2^14 + 256 for a record, at any version.
        let huge = [[0x16, 0x03, 0x01, 0xff, 0xff] + junk, [0x17, 0x03, 0x03, 0xff, 0xff] + junk, [0x16, 0x03, 0x03, 0x48, 0x01] + junk]
        let fds = huge.enumerated().map { Self.connection(to: port, from: UInt8(50 + $0.offset), sending: $0.element) }
        defer { for fd in fds { close(fd) } }
        #expect(h.drive(limit: 5) { fds.allSatisfy(Self.closedByServer) }, "still open: \(fds.filter { !Self.closedByServer($0) }.count)")
        let oriel = s.orielGetsThrough(from: 59)
        #expect(oriel?.status == 200, "\(oriel?.err ?? "no answer")")
        #expect(h.handled.map(\.method) == ["POST"], "only Oriel's push reached the handler")
    }

    @Test("a second ClientHello on one connection is closed at once, not held; Oriel's push gets through")
    func secondHello() throws {
        let hello = try Self.clientHello()
        let s = try Served(headDeadline: 60)
        let (h, port) = (s.h, s.port)
        // One hello alone is answered (the hello is real), and held open waiting for the client's Finished.
        let once = Self.connection(to: port, from: 60, sending: hello)
        defer { close(once) }
        #expect(h.drive(limit: 5) { Self.answeredHello(once) }, "the server did not answer a real ClientHello")
        let twice = Self.connection(to: port, from: 61, sending: hello + hello)
        defer { close(twice) }
        #expect(h.drive(limit: 5) { Self.closedByServer(twice) }, "a connection with a second hello is still open")
        #expect(!Self.closedByServer(once), "the one-hello connection was closed too: the test would prove nothing")
        let oriel = s.orielGetsThrough(from: 62)
        #expect(oriel?.status == 200, "\(oriel?.err ?? "no answer")")
    }

    @Test("a real ClientHello trickled a byte every 0.1 s is cut off at the head deadline; Oriel's push gets through meanwhile; a byte every 2 ms is answered")
    func trickledHello() throws {
        let hello = try Self.clientHello()
        let s = try Served(headDeadline: 2)
        let (h, port) = (s.h, s.port)
        func trickle(from host: UInt8, every micros: UInt32) -> Background<Double> {
            Background(h) { () -> Double in
                let fd = Self.connection(to: port, from: host, sending: [])
                defer { close(fd) }
                let start = monotonicNow()
                for byte in hello {
                    if Self.closedByServer(fd) { break }
                    if send(fd, [byte], 1, Int32(MSG_NOSIGNAL)) != 1 { break }
                    usleep(micros)
                }
                // Past the hello: wait for the server's answer or its close.
                for _ in 0..<300 where !Self.answeredHello(fd) && !Self.closedByServer(fd) { usleep(10_000) }
                return Self.answeredHello(fd) ? -(monotonicNow() - start) : monotonicNow() - start
            }
        }
        let slow = trickle(from: 70, every: 100_000)
        let oriel = s.orielGetsThrough(from: 71)
        #expect(oriel?.status == 200 && !slow.isDone, "Oriel: \(oriel?.err ?? "no answer"), the trickle already ended: \(slow.isDone)")
        #expect(h.drive(limit: 10) { slow.isDone })
        let took = try #require(slow.value)
        #expect(took >= 1.9 && took < 4, "the slow hello ended after \(took) s (negative: it was answered)")
        let quick = trickle(from: 72, every: 2_000)
        #expect(h.drive(limit: 10) { quick.isDone })
        #expect((quick.value ?? 0) < 0, "a hello a byte every 2 ms (\(hello.count) bytes) was not answered: \(quick.value ?? 0)")
    }
}
