import BodyHub
import Foundation
import Glibc
import Testing

/// A peer on 127.0.0.1 that reads one request and answers each connection
/// with `bytes` as they are (no HTTP framing of its own), then closes.
final class RawHub: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32

    init(_ bytes: [UInt8]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                bind(fd, a, size) == 0 && getsockname(fd, a, &size) == 0 && listen(fd, 8) == 0
            }
        }
        guard ok else { close(fd); throw TestServerError("raw hub: cannot listen") }
        self.fd = fd
        port = UInt16(bigEndian: addr.sin_port)
        let listener = fd
        Thread.detachNewThread {
            while true {
                let c = accept(listener, nil, nil)
                if c < 0 { break }
                var request = [UInt8](repeating: 0, count: 65536)
                _ = recv(c, &request, request.count, 0)
                var sent = 0
                while sent < bytes.count {
                    let n = bytes[sent...].withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if n <= 0 { break }
                    sent += n
                }
                close(c)
            }
            close(listener)
        }
    }

    var url: String { "http://127.0.0.1:\(port)/api/bodies/hello" }
    func stop() { shutdown(fd, Int32(SHUT_RDWR)) }
}

/// Oriel's hello endpoint gone wrong (issue 12, faults): every answer is a
/// failure in words, none takes longer than the timeout, none grows memory
/// past the answer limit. (A bare "HTTP/1.1 200 OK" then a close is a whole
/// answer to libcurl, as HTTP/1.0 allows: Oriel did say 200.)
@Suite("a hub that answers garbage, too much, or half")
struct HostileHubTests {
    struct Garbage: Sendable, CustomTestStringConvertible {
        var what: String
        var bytes: String
        var testDescription: String { what }
    }

    @Test("each is a failure in words, not an answer, and does not wait for the timeout", arguments: [
        Garbage(what: "bytes that are not HTTP", bytes: "SSH-2.0-OpenSSH_9.2\r\n\r\n"),
        Garbage(what: "a 200 whose body stops half-way", bytes: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"ok\""),
        Garbage(what: "a chunked answer with a broken chunk", bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
        Garbage(what: "a 500 whose headers never end", bytes: "HTTP/1.1 500 Oops\r\nContent-Type: app"),
    ])
    func garbage(_ answer: Garbage) throws {
        let hub = try RawHub(Array(answer.bytes.utf8))
        defer { hub.stop() }
        let result = HubClient(timeout: 2).post(hub.url, token: "t", json: Array("{}".utf8))
        guard case .failure(let error) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error.description.hasPrefix("hello: cannot POST \(hub.url): ") || error.description.hasPrefix("hello: POST \(hub.url) answered "),
                "\(error)")
        #expect(error.reason != .timedOut(2), "\(error)")
    }

    @Test("a 10 MB answer is cut off at the limit, in words")
    func tenMegabytes() throws {
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20)
        let hub = try RawHub(Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
        defer { hub.stop() }
        let result = HubClient(timeout: 5).post(hub.url, token: "t", json: Array("{}".utf8))
        guard case .failure(let error) = result else { Issue.record("expected a failure, got a \(result)"); return }
        #expect(error.reason == .failed("the answer is larger than 1024 KiB"))
    }
}
