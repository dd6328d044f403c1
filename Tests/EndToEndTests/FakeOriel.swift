import Foundation
#if canImport(Glibc)
import Glibc
#endif
import BodyTestSupport

/// Oriel's side of the hello: a tiny HTTP server on 127.0.0.1 that records
/// every request and answers with the status the test sets.
final class FakeOriel: @unchecked Sendable {
    struct Hello {
        var at: Date
        var path: String
        var authorization: String?
        var body: [String: Any]
    }

    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var recorded: [Hello] = []
    private var answerStatus = 200
    private var running = true

    /// Binds to `port` (0: the kernel picks one).
    init(port: Int = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard let bound = bindLoopback(fd, port: UInt16(port), listen: 16) else {
            throw BodyFailed(words: "fake Oriel cannot listen: \(errno)")
        }
        self.fd = fd
        self.port = Int(bound)
        Thread.detachNewThread { [self] in serve() }
    }

    /// A port with nothing listening on it, for "Oriel is down".
    /// A socket bound and closed, with no thread of a fake Oriel left to
    /// touch its descriptor's number once another socket has it.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(fd) }
        guard let port = bindLoopback(fd) else { throw BodyFailed(words: "no free port on 127.0.0.1: \(errno)") }
        return Int(port)
    }

    var url: String { "http://127.0.0.1:\(port)" }

    var hellos: [Hello] {
        lock.lock(); defer { lock.unlock() }
        return recorded
    }

    func answer(_ status: Int) {
        lock.lock(); answerStatus = status; lock.unlock()
    }

    func close() {
        lock.lock(); running = false; lock.unlock()
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }

    deinit { if running { close() } }

    private func serve() {
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 { return }
            handle(c)
            Glibc.close(c)
        }
    }

    private func handle(_ c: Int32) {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int? = nil
        var length = 0
        while true {
            let n = recv(c, &buffer, buffer.count, 0)
            if n <= 0 { return }
            data += buffer[0..<n]
            if headerEnd == nil, let r = String(decoding: data, as: UTF8.self).range(of: "\r\n\r\n") {
                let head = String(decoding: data, as: UTF8.self)[..<r.lowerBound]
                headerEnd = head.utf8.count + 4
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let h = headerEnd, data.count >= h + length { break }
        }
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let auth = lines.first { $0.lowercased().hasPrefix("authorization:") }
            .map { String($0.dropFirst("authorization:".count)).trimmingCharacters(in: .whitespaces) }
        let body = Data(data[(headerEnd ?? data.count)...])
        lock.lock()
        recorded.append(Hello(at: Date(), path: path, authorization: auth,
                              body: (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]))
        let status = answerStatus
        lock.unlock()
        let reply = "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
        _ = reply.withCString { send(c, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }
}
