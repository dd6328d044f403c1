import Glibc

/// One non-blocking HTTP/1.1 connection to libmicrohttpd on loopback, for
/// the agent tests that need the real server (`RigServer.libmicrohttpd`).
final class SocketClient {
    let fd: Int32
    private var got: [UInt8] = []
    var raw: String { String(decoding: got, as: UTF8.self) }

    init(port: UInt16) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    /// The client goes away (both directions shut), as an Oriel that stopped would.
    func leave() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    func send(_ method: String, _ path: String, body: String = "") {
        let text = "\(method) \(path) HTTP/1.1\r\nHost: body\r\nAuthorization: Bearer t0ken\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything received so far, as text (a stream's bytes: `/events`).
    func received() -> String {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            got += chunk[0..<n]
        }
        return raw
    }

    /// A whole answer, if one has arrived: its status and body.
    func answer() -> (status: Int, body: String)? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            got += chunk[0..<n]
        }
        guard let end = got.indices.dropLast(3).first(where: { got[$0] == 13 && got[$0 + 1] == 10 && got[$0 + 2] == 13 && got[$0 + 3] == 10 })
        else { return nil }
        let head = String(decoding: got[..<end], as: UTF8.self).lowercased().split(separator: "\r\n")
        let length = head.first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).filter { $0 != " " }) } ?? 0
        let body = got[(end + 4)...]
        guard body.count >= length, let status = Int(head[0].split(separator: " ")[1]) else { return nil }
        defer { got.removeFirst(end + 4 + length) }
        return (status, String(decoding: body.prefix(length), as: UTF8.self))
    }
}
