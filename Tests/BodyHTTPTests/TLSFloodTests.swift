import Foundation
import Glibc
import Testing
@testable import BodyHTTP
import BodyTLS
import BodyTestSupport

/// The server with TLS on (issue 19): a flood of handshakes that never finish
/// (a ClientHello cut short and then silence, or bytes that are not TLS at all)
/// must not make it deaf; Oriel, trusting the certificate alone, still gets through.
@Suite("HTTPS: half-open handshakes do not make the body deaf", .serialized)
struct TLSFloodTests {
    static func identity() throws -> (TLSIdentity, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tls-flood-\(UUID().uuidString)").path
        let (identity, _) = try TLSIdentity.obtain(directory: dir, commonName: "test",
                                                   names: (dns: ["localhost"], ips: ["127.0.0.1"]))
        return (identity, dir)
    }

    /// curl from 127.0.0.`host`, trusting the certificate alone (`--cacert` and the pin);
    /// a POST of `push` (JSON) when there is one.
    static func oriel(port: UInt16, host: UInt8, identity: TLSIdentity, path: String = "/status",
                      push: String? = nil) -> (status: Int, took: Double, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-sS", "--max-time", "8", "-o", "/dev/null", "-w", "%{http_code}", "--interface", "127.0.0.\(host)",
                       "--cacert", identity.certificateFile, "--pinnedpubkey", identity.pin.curl,
                       "-H", "Authorization: Bearer good", "https://127.0.0.1:\(port)\(path)"]
            + (push.map { ["-H", "Content-Type: application/json", "--data", $0] } ?? [])
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let start = monotonicNow()
        guard (try? p.run()) != nil else { return (0, 0, "curl did not start") }
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitForExit()
        return (Int(String(decoding: o, as: UTF8.self)) ?? 0, monotonicNow() - start, String(decoding: e, as: UTF8.self))
    }

    /// The first bytes of a TLS 1.2 ClientHello record: a header promising 512 bytes, and 5 of them.
    static let cutHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03]

    @Test("a client trusting the certificate alone (--cacert and the pin) gets /status over TLS")
    func served() throws {
        let (identity, dir) = try Self.identity()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let h = try Harness(tls: HTTPTLS(key: identity.key, certificate: identity.certificate),
                            trusts: OrielGetsThroughTests.trusted) { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        let got = Background(h) { Self.oriel(port: port, host: 40, identity: identity) }
        #expect(h.drive(limit: 15) { got.isDone })
        #expect(got.value?.status == 200, "\(got.value?.err ?? "")")
        #expect(h.server.servesTLS)
    }

    @Test("handshakes that are not TLS are closed at once; 128 cut short fill the server: Oriel's pinned request still gets through, soon")
    func flood() throws {
        let (identity, dir) = try Self.identity()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var limits = HTTPLimits()
        limits.headDeadline = 60  // only making room can let Oriel in, not the deadline
        let h = try Harness(limits: limits, tls: HTTPTLS(key: identity.key, certificate: identity.certificate),
                            trusts: OrielGetsThroughTests.trusted) { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        var fds: [Int32] = [], notTLS: [Int32] = []
        func open(from host: UInt8, sending bytes: [UInt8]) -> Int32 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            _ = bindSource(fd, host: host)
            _ = connectLoopback(fd, port: port)
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            return fd
        }
        // Bytes that are not TLS: GnuTLS refuses them at once, and the connection closes.
        for _ in 0..<limits.perAddress { notTLS.append(open(from: 30, sending: Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8))) }
        // ClientHellos cut short, then silence: held until the head deadline, or until room is made.
        for host in (31...38).map(UInt8.init) {
            for _ in 0..<limits.perAddress { fds.append(open(from: host, sending: Self.cutHello)) }
        }
        defer { for fd in fds + notTLS { close(fd) } }
        func closedByServer(_ fd: Int32) -> Bool {
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 0
        }
        let most = limits.connections - limits.reserve
        #expect(h.drive(limit: 10) { notTLS.allSatisfy(closedByServer) && h.server.openConnections == most },
                "open: \(h.server.openConnections), not-TLS ones still open: \(notTLS.filter { !closedByServer($0) }.count)")
        let oriel = Background(h) { Self.oriel(port: port, host: 39, identity: identity) }
        #expect(h.drive(limit: 15) { oriel.isDone })
        let got = try #require(oriel.value)
        #expect(got.status == 200, "\(got.err)")
        #expect(got.took < 3, "Oriel's request took \(got.took) s")
        #expect(h.handled.allSatisfy { $0.headers["authorization"] == "Bearer good" }, "no flooding connection reached the handler")
    }

    @Test("handshakes cut short are closed at the head deadline, and the server answers after")
    func deadline() throws {
        let (identity, dir) = try Self.identity()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var limits = HTTPLimits()
        limits.headDeadline = 1
        let h = try Harness(limits: limits, tls: HTTPTLS(key: identity.key, certificate: identity.certificate),
                            trusts: OrielGetsThroughTests.trusted) { _, _, reply in reply.send(.json(200, okBody)) }
        let port = h.server.port
        var fds: [Int32] = []
        for _ in 0..<10 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            _ = bindSource(fd, host: 41)
            _ = connectLoopback(fd, port: port)
            _ = Self.cutHello.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            fds.append(fd)
        }
        defer { for fd in fds { close(fd) } }
        #expect(h.drive(limit: 3) { h.server.openConnections == 10 })
        #expect(h.drive(limit: 5) { h.server.openConnections == 0 }, "open: \(h.server.openConnections)")
        let oriel = Background(h) { Self.oriel(port: port, host: 42, identity: identity) }
        #expect(h.drive(limit: 15) { oriel.isDone })
        #expect(oriel.value?.status == 200, "\(oriel.value?.err ?? "")")
    }
}
