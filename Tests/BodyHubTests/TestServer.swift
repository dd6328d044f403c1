import Foundation
import Glibc
import Synchronization
import BodyTestSupport

/// One request as the test server read it off the socket.
struct Recorded: Sendable {
    var method: String
    var target: String
    /// Header names lower-cased.
    var headers: [String: String]
    var body: [UInt8]

    var path: String { String(target.prefix { $0 != "?" }) }

    func query(_ name: String) -> String? {
        guard let q = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in q.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.first.map(String.init) == name { return kv.count > 1 ? String(kv[1]) : "" }
        }
        return nil
    }
}

/// What the test server answers; `hang` holds the connection open without a word.
struct Reply: Sendable {
    var status: Int = 200
    var body: [UInt8] = Array(#"{"ok":true}"#.utf8)
    var hang: Double = 0
}

/// A tiny HTTP/1.1 server on 127.0.0.1, one thread per connection, for real-socket tests.
final class TestServer: Sendable {
    let port: UInt16
    private let fd: Int32
    private let log = Mutex<[Recorded]>([])
    private let handler: @Sendable (Recorded) -> Reply

    /// Listens on `port`, or on a free one when 0.
    init(port: UInt16 = 0, _ handler: @escaping @Sendable (Recorded) -> Reply) throws {
        let (fd, port) = try Self.bound(port)
        guard listen(fd, 16) == 0 else { throw TestServerError("listen: \(String(cString: strerror(errno)))") }
        self.fd = fd
        self.port = port
        self.handler = handler
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var url: String { "http://127.0.0.1:\(port)" }
    var requests: [Recorded] { log.withLock { $0 } }

    /// Wakes the accept loop, which closes the socket itself: closing it here
    /// could hand its number to another test's server while the loop still accepts on it.
    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// A port nobody listens on: bound to learn a free number, then closed.
    static func deadPort() throws -> UInt16 {
        let (fd, port) = try bound()
        close(fd)
        return port
    }

    private static func bound(_ port: UInt16 = 0) throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard let bound = bindLoopback(fd, port: port) else {
            close(fd); throw TestServerError("bind: \(String(cString: strerror(errno)))")
        }
        return (fd, bound)
    }

    private func acceptLoop() {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                close(fd)
                return
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int? = nil
        while headEnd == nil {
            let n = read(client, &chunk, chunk.count)
            if n <= 0 { return }
            bytes += chunk[0..<n]
            if let r = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<$0 + 4]) == end }) { headEnd = r }
        }
        let head = String(decoding: bytes[0..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let start = head[0].split(separator: " ")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Array(bytes[(headEnd! + 4)...])
        while body.count < length {
            let n = read(client, &chunk, chunk.count)
            if n <= 0 { return }
            body += chunk[0..<n]
        }
        let request = Recorded(method: String(start[0]), target: String(start.count > 1 ? start[1] : "/"), headers: headers, body: body)
        log.withLock { $0.append(request) }
        let reply = handler(request)
        if reply.hang > 0 {
            Thread.sleep(forTimeInterval: reply.hang)
            return
        }
        let text = "HTTP/1.1 \(reply.status) Test\r\nContent-Type: application/json\r\nContent-Length: \(reply.body.count)\r\nConnection: close\r\n\r\n"
        let out = Array(text.utf8) + reply.body
        var sent = 0
        while sent < out.count {
            let n = out[sent...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            sent += n
        }
    }
}

struct TestServerError: Error, CustomStringConvertible {
    var description: String
    init(_ words: String) { description = "test server: \(words)" }
}
