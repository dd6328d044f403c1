import Foundation
import Glibc
import Synchronization
@testable import BodyHTTP
import BodyTestSupport

/// Drives an HTTPServer on the test thread the way the body's loop does:
/// poll its descriptor with its timeout, run it, fire due test timers.
final class Harness {
    var server: HTTPServer!
    var logs: [String] = []
    var handled: [HTTPRequest] = []
    private var timers: [(at: Double, action: () -> Void)] = []

    /// A pipe that client threads write to when they finish, so the loop wakes.
    let wakeRead: Int32
    let wakeWrite: Int32

    /// `calls` stands in for libmicrohttpd (MHDCalls), for a test that makes one of its calls fail.
    init(limits: HTTPLimits = HTTPLimits(), tls: HTTPTLS? = nil, token: BearerAuth? = nil,
         trusts: @escaping (HTTPRequest) -> Bool = { _ in false },
         answerLines: Bool = true, calls: MHDCalls = .live,
         _ handler: @escaping (Harness, HTTPRequest, HTTPReply) -> Void) throws {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        (wakeRead, wakeWrite) = (fds[0], fds[1])
        server = try HTTPServer(listen: "127.0.0.1", port: 0, limits: limits, tls: tls, token: token, trusts: trusts,
                                log: { [unowned self] in self.logs.append($0) },
                                answerLines: answerLines, calls: calls,
                                handler: { [unowned self] request, reply in
            self.handled.append(request)
            handler(self, request, reply)
        })
    }

    deinit {
        server = nil
        close(wakeRead)
        close(wakeWrite)
    }

    static func now() -> Double { HTTPServer.monotonic() }

    func after(_ seconds: Double, _ action: @escaping () -> Void) {
        timers.append((Harness.now() + seconds, action))
    }

    /// Turns the loop until `done` or `limit` seconds pass; false on the limit.
    @discardableResult
    func drive(limit: Double = 5, until done: () -> Bool) -> Bool {
        let end = Harness.now() + limit
        while !done() {
            let now = Harness.now()
            if now > end { return false }
            var wait = end - now // no polling tick: a missed wake-up shows as a stall
            if let t = server.timeout() { wait = min(wait, t) }
            if let next = timers.map(\.at).min() { wait = min(wait, max(0, next - now)) }
            var pfds = [pollfd(fd: server.pollDescriptor?.rawValue ?? -1, events: Int16(POLLIN), revents: 0),
                        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                        pollfd(fd: server.hangupDescriptor?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)]
            _ = poll(&pfds, 3, Int32((wait * 1000).rounded(.up)))
            var drain = [UInt8](repeating: 0, count: 64)
            _ = read(wakeRead, &drain, drain.count)
            if pfds[2].revents != 0 { server.hangUpsReported() }
            server.run()
            let due = Harness.now()
            let ready = timers.filter { $0.at <= due }
            timers.removeAll { $0.at <= due }
            for t in ready { t.action() }
        }
        return true
    }
}

/// Work on a thread of its own, so the test thread can drive the server meanwhile.
final class Background<T: Sendable>: @unchecked Sendable {
    private let result = Mutex<T?>(nil)
    /// Runs `work`, then wakes `harness`'s loop.
    init(_ harness: Harness, _ work: @escaping @Sendable () -> T) {
        let wake = harness.wakeWrite
        let thread = Thread { [self] in
            let value = work()
            self.result.withLock { $0 = value }
            var one: UInt8 = 1
            _ = write(wake, &one, 1)
        }
        thread.start()
    }
    var value: T? { result.withLock { $0 } }
    var isDone: Bool { value != nil }
}

struct Answer: Sendable, Equatable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

enum ClientError: Error, Equatable { case closed, timeout, malformed(String) }

/// A blocking HTTP/1.1 client on one raw socket, to see keep-alive and pacing as they are.
final class RawClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, receiveBuffer: Int32? = nil, from source: UInt8? = nil) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source { bindSource(fd, host: source) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        connectLoopback(fd, port: port)
    }

    deinit { close(fd) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func get(_ path: String, headers: String = "") { send("GET \(path) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n") }

    private func fill() throws(ClientError) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { throw .closed }
        if n < 0 { throw errno == EAGAIN ? .timeout : .closed }
        buffer += chunk[0..<n]
    }

    private func line() throws(ClientError) -> String {
        while true {
            if let i = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                let text = String(decoding: buffer[0..<i], as: UTF8.self)
                buffer.removeFirst(i + 2)
                return text
            }
            try fill()
        }
    }

    private func take(_ n: Int) throws(ClientError) -> [UInt8] {
        while buffer.count < n { try fill() }
        let out = Array(buffer[0..<n])
        buffer.removeFirst(n)
        return out
    }

    /// Reads the status line and headers only (names lower-cased).
    func head() throws(ClientError) -> (Int, [String: String]) {
        let status = try line()
        let parts = status.split(separator: " ")
        guard parts.count >= 2, let code = Int(parts[1]) else { throw .malformed(status) }
        var headers: [String: String] = [:]
        while true {
            let h = try line()
            if h.isEmpty { break }
            guard let colon = h.firstIndex(of: ":") else { throw .malformed(h) }
            headers[h[..<colon].lowercased()] = h[h.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (code, headers)
    }

    /// One chunk of a chunked body; nil at its end.
    func chunk() throws(ClientError) -> [UInt8]? {
        let size = try line()
        guard let n = Int(size.split(separator: ";")[0], radix: 16) else { throw .malformed(size) }
        if n == 0 { _ = try line(); return nil }
        let data = try take(n)
        _ = try line()
        return data
    }

    /// Everything after the answers read so far, to the connection's end, and
    /// how it ended: 0 a clean close, else recv's errno (EAGAIN: still open at the timeout).
    func rest() -> (bytes: [UInt8], end: Int32) {
        var bytes = buffer
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return (bytes, 0) }
            if n < 0 { return (bytes, errno) }
            bytes += chunk[0..<n]
        }
    }

    func answer() throws(ClientError) -> Answer {
        let (status, headers) = try head()
        var body: [UInt8] = []
        if headers["transfer-encoding"] == "chunked" {
            while let c = try chunk() { body += c }
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            body = try take(length)
        }
        return Answer(status: status, headers: headers, body: body)
    }
}
